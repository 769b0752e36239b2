//! `connect-server`: a reference Agent Connect server on `ws://ADDR/v1/ws`.
//!
//! ```text
//! connect-server --addr 127.0.0.1:0 --data-dir ./connect-data
//! connect-server --addr 127.0.0.1:8787 --workspace ws_1 --token t1=harness:h1:Scout --token t2=person:u1:Dana:owner
//! connect-server --log memory --retain 10000
//! ```
//!
//! Prints `listening on ws://HOST:PORT/v1/ws` once the socket is bound and the log is open,
//! then serves until killed. Without `--token`, the demo tokens of [`TokenTable::demo`] are
//! used. The log is SQLite in `--data-dir` unless `--log memory`.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use connect_server::tokens::DEMO_WORKSPACE;
use connect_server::{PATH, Server, Settings, TokenTable};
use contracts::connect::session::{
    DEFAULT_MAX_SUBSCRIPTIONS, Durability, EventLog, MemoryLog, SqliteLog,
};
use contracts::port::{Limits, ListenOptions};

/// Where events are kept.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum LogKind {
    /// SQLite in the data directory: every acked event survives a crash.
    Sqlite,
    /// In memory: everything is gone when the process ends.
    Memory,
}

/// When a SQLite commit reaches the disk.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Sync {
    /// fsync at every commit: an acked event survives a power cut.
    Full,
    /// fsync at checkpoints: an acked event survives kill -9, not a power cut.
    Normal,
}

/// A reference Agent Connect server.
#[derive(Parser)]
#[command(name = "connect-server", version)]
struct Args {
    /// The address to listen on; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:8787")]
    addr: String,
    /// The workspace the tokens given with --token belong to.
    #[arg(long, default_value = DEMO_WORKSPACE)]
    workspace: String,
    /// A token: TOKEN=harness:ID:NAME or TOKEN=person:ID:NAME:ROLE (owner, admin, member,
    /// guest). Repeat for more. Without any, the demo tokens (scout-token, dana-token,
    /// mo-token, gus-token in ws_demo).
    #[arg(long = "token", value_name = "SPEC")]
    tokens: Vec<String>,
    /// Where events are kept.
    #[arg(long, value_enum, default_value_t = LogKind::Sqlite)]
    log: LogKind,
    /// The directory of the SQLite log (`events.sqlite3`), made if missing.
    #[arg(long, default_value = "connect-data")]
    data_dir: PathBuf,
    /// When a SQLite commit reaches the disk (docs/benchmarks.md has the cost).
    #[arg(long, value_enum, default_value_t = Sync::Full)]
    sync: Sync,
    /// One commit per write instead of one per group of the frames that arrive together
    /// (group commit, the default: every ack still after its commit).
    #[arg(long)]
    no_group_commit: bool,
    /// How many events the log keeps per workspace: 10,000 in memory, every one in SQLite
    /// unless given.
    #[arg(long, value_name = "N")]
    retain: Option<usize>,
    /// How many idempotency keys the log remembers per workspace (at least --retain): ten per
    /// event kept in memory, every one in SQLite unless given.
    #[arg(long, value_name = "N")]
    key_retain: Option<usize>,
    /// The most bytes of frames queued for one socket before it is closed as a slow consumer.
    #[arg(long, value_name = "BYTES")]
    queue_bytes: Option<usize>,
    /// The most bytes of frames one socket has read and the server not yet handled before it
    /// stops reading that socket (the client then waits: TCP's backpressure).
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_inbound_bytes)]
    inbound_bytes: usize,
    /// The most scopes (the workspace, spaces) one socket subscribes to at once; a subscribe
    /// to one more is refused with `rate_limited`.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SUBSCRIPTIONS)]
    max_subscriptions: usize,
    /// The most connections served at once; more are answered 503.
    #[arg(long, default_value_t = ListenOptions::default().max_connections)]
    max_connections: usize,
    /// Milliseconds a connection has to send its request head and finish a WebSocket upgrade.
    #[arg(long, default_value_t = ListenOptions::default().handshake_timeout.as_millis() as u64)]
    handshake_timeout_ms: u64,
    /// How the log on stderr is written: text lines, or one JSON object a line. `RUST_LOG`
    /// picks what is logged (`info` by default; `debug`, `warn`, `contracts=debug,info`...).
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// How the log on stderr is written.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum LogFormat {
    /// One line of text an event.
    Text,
    /// One JSON object a line: `timestamp`, `level`, `message`, the event's fields and the
    /// `span` it happened in (a connection's, with its `peer`).
    Json,
}

/// Logs to stderr in `format`, at the levels `RUST_LOG` names (`info` when unset or unreadable).
fn init_log(format: LogFormat) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let wanted = std::env::var("RUST_LOG").ok();
    let parsed = wanted.as_deref().map(str::parse::<Targets>);
    let filter = match &parsed {
        Some(Ok(targets)) => targets.clone(),
        _ => Targets::new().with_default(LevelFilter::INFO),
    };
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(false);
    let registry = tracing_subscriber::registry().with(filter);
    match format {
        LogFormat::Text => registry.with(layer).init(),
        LogFormat::Json => registry
            .with(
                layer
                    .json()
                    .flatten_event(true)
                    .with_current_span(true)
                    .with_span_list(false),
            )
            .init(),
    }
    if let Some(Err(e)) = parsed {
        tracing::warn!(error = %e, "RUST_LOG is not understood; logging at info");
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    init_log(args.log_format);
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        log = ?args.log,
        "connect-server starting"
    );
    let tokens = if args.tokens.is_empty() {
        TokenTable::demo()
    } else {
        let mut table = TokenTable::new();
        for spec in &args.tokens {
            if let Err(e) = table.add_spec(&args.workspace, spec) {
                // The error names ids, never a token.
                eprintln!("connect-server: {e}");
                return ExitCode::from(2);
            }
        }
        table
    };
    let mut settings = Settings {
        group_commit: !args.no_group_commit,
        ..Settings::default()
    };
    if let Some(bytes) = args.queue_bytes {
        settings.queue_bytes = bytes;
    }
    settings.inbound_bytes = args.inbound_bytes;
    settings.config.max_subscriptions = args.max_subscriptions;
    settings.listen = ListenOptions::default()
        .max_connections(args.max_connections)
        .handshake_timeout(Duration::from_millis(args.handshake_timeout_ms));
    match args.log {
        LogKind::Memory => {
            let mut log = MemoryLog::new(args.retain.unwrap_or(MemoryLog::DEFAULT_RETAIN));
            if let Some(keys) = args.key_retain {
                log = log.with_key_retain(keys);
            }
            serve(&args.addr, Server::with_log(tokens, settings, log)).await
        }
        LogKind::Sqlite => {
            if let Err(e) = std::fs::create_dir_all(&args.data_dir) {
                eprintln!(
                    "connect-server: cannot make {}: {e}",
                    args.data_dir.display()
                );
                return ExitCode::FAILURE;
            }
            let durability = match args.sync {
                Sync::Full => Durability::Full,
                Sync::Normal => Durability::Normal,
            };
            let path = args.data_dir.join("events.sqlite3");
            let mut log = match SqliteLog::open(&path, durability) {
                Ok(log) => log,
                Err(e) => {
                    eprintln!("connect-server: {e}");
                    return ExitCode::FAILURE;
                }
            };
            if let Some(n) = args.retain {
                log = log.retain(n as u64);
            }
            if let Some(n) = args.key_retain {
                log = log.key_retain(n as u64);
            }
            serve(&args.addr, Server::with_log(tokens, settings, log)).await
        }
    }
}

async fn serve<L: EventLog + Send + 'static>(addr: &str, server: Server<L>) -> ExitCode {
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("connect-server: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let local = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("connect-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Whoever reads stdout may stop after this line: nothing here may fail on that.
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "listening on ws://{local}{PATH}");
    let _ = stdout.flush();
    server.serve(listener).await;
    ExitCode::SUCCESS
}
