//! `agent-host`: the echo agent over WebSocket, for a person (or a test) to talk to.
//!
//! ```text
//! cargo run -p agent-host -- --addr 127.0.0.1:8787
//! ```
//!
//! Prints `listening on ws://HOST:PORT` once the socket is bound, then the path of the client
//! token file, and serves until killed. Each WebSocket text message is one JSON frame of the
//! agent protocol. Chats are kept in `--data-dir` (a SQLite file, `agent-host-data/` by
//! default) and served again after a restart; `--memory` keeps them in memory only.
//!
//! A client presents the token (`--token`, or a random one written to `<data-dir>/token` with
//! mode 0600 at every start) as `?token=` or `Authorization: Bearer`; a browser page only from
//! an origin allowed with `--allow-origin` (README, "Who may connect").

use agent_host::{EchoAgent, LoginMode, Options};
use clap::{Parser, ValueEnum};
use contracts::agent::host::HubConfig;
use contracts::port::{Access, Limits, ListenOptions};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// An example agent host: answers every message with `echo: <text>`.
#[derive(Parser)]
#[command(name = "agent-host", version)]
struct Args {
    /// The address to listen on; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:8787")]
    addr: String,
    /// The most events a reconnect is replayed (from memory or the store); a client whose
    /// `since` is older gets a snapshot.
    #[arg(long, default_value_t = HubConfig::default().log_capacity)]
    log_capacity: usize,
    /// Items in an attach snapshot when the client gives no historyLimit.
    #[arg(long, default_value_t = HubConfig::default().default_history_limit)]
    history_limit: usize,
    /// Milliseconds between two deltas of a reply.
    #[arg(long, default_value_t = 30)]
    delta_delay_ms: u64,
    /// Milliseconds a login started with accounts.watchLogin takes.
    #[arg(long, default_value_t = 1500)]
    login_delay_ms: u64,
    /// Where the chats are kept (a SQLite file in it); made if missing.
    #[arg(long, default_value = "agent-host-data")]
    data_dir: PathBuf,
    /// Keep the chats in memory only: they die with the process.
    #[arg(long)]
    memory: bool,
    /// The largest frame accepted or sent, in bytes.
    #[arg(long, default_value_t = Limits::default().max_frame_size)]
    max_frame_size: usize,
    /// Bytes queued for a client before it is closed as a slow consumer.
    #[arg(long, default_value_t = Limits::default().max_queued_bytes)]
    max_queued_bytes: usize,
    /// Bytes of a client's requests read and not yet answered before its socket is read no
    /// further (the client then waits: TCP's backpressure).
    #[arg(long, default_value_t = Limits::default().max_inbound_bytes)]
    max_inbound_bytes: usize,
    /// Milliseconds between two pings of a client; 0 for none.
    #[arg(long, default_value_t = 15_000)]
    heartbeat_ms: u64,
    /// Milliseconds a client may stay silent (no frame, no pong) before it is closed; 0 for
    /// never.
    #[arg(long, default_value_t = 45_000)]
    idle_timeout_ms: u64,
    /// The token a client must present (`?token=` or `Authorization: Bearer`). Without it, a
    /// random one is made at every start and written to `<data-dir>/token` (mode 0600).
    #[arg(
        long,
        value_name = "TOKEN",
        env = "AGENT_HOST_TOKEN",
        hide_env_values = true
    )]
    token: Option<String>,
    /// A browser origin whose pages may connect (`http://localhost:5173`); repeat for more.
    /// A request with any other Origin is refused (403); one without Origin is no browser's.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// The most connections served at once; more are answered 503.
    #[arg(long, default_value_t = ListenOptions::default().max_connections)]
    max_connections: usize,
    /// Milliseconds a connection has to finish its WebSocket handshake.
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

/// The name of the client token file in the data directory.
const TOKEN_FILE: &str = "token";

/// A new random token: 32 bytes from the OS, in hex.
fn random_token() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random bytes for a token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes `token` to `dir/token`, readable by this user only, and answers the file's path.
/// The file is made anew (written beside, then renamed over), so an old file's mode is not
/// kept. On a full disk the old token file is written over in place instead.
fn write_token(dir: &Path, token: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(TOKEN_FILE);
    let fresh = dir.join(format!("{TOKEN_FILE}.new"));
    let _ = std::fs::remove_file(&fresh);
    let text = format!("{token}\n");
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&fresh)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        });
    match made {
        Ok(()) => std::fs::rename(&fresh, &path).map(|()| path),
        Err(e) if is_full(&e) => {
            let _ = std::fs::remove_file(&fresh);
            rewrite_token(&path, &text).map(|()| path).map_err(|_| e)
        }
        Err(e) => Err(e),
    }
}

/// Whether an IO error is the disk out of space (or over quota).
fn is_full(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

/// Writes `text` over the token file at `path` in place (a full disk: the blocks it has
/// already, so it must be a regular file of the same length, not a link), readable by this
/// user only.
fn rewrite_token(path: &Path, text: &str) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let old = std::fs::symlink_metadata(path)?;
    if !old.file_type().is_file() || old.len() != text.len() as u64 {
        return Err(std::io::Error::other(
            "no token file of the same length to write over",
        ));
    }
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// `Some` duration of that many milliseconds, `None` for 0.
fn millis(ms: u64) -> Option<Duration> {
    (ms > 0).then(|| Duration::from_millis(ms))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    init_log(args.log_format);
    let (token, token_file) = match args.token.clone() {
        Some(token) if token.is_empty() => {
            eprintln!("agent-host: --token is empty");
            return ExitCode::from(2);
        }
        Some(token) => (token, None),
        None => {
            let made = random_token().and_then(|token| {
                write_token(&args.data_dir, &token)
                    .map(|path| (token, Some(path)))
                    .map_err(|e| format!("cannot write the token file: {e}"))
            });
            match made {
                Ok(made) => made,
                Err(e) => {
                    eprintln!("agent-host: {}: {e}", args.data_dir.display());
                    return ExitCode::FAILURE;
                }
            }
        }
    };
    let access = args
        .allow_origins
        .iter()
        .fold(Access::token(token), |access, origin| {
            access.allow_origin(origin)
        });
    let options = Options {
        hub: HubConfig {
            log_capacity: args.log_capacity,
            default_history_limit: args.history_limit,
            limits: Limits {
                max_frame_size: args.max_frame_size,
                max_queued_bytes: args.max_queued_bytes,
                max_inbound_bytes: args.max_inbound_bytes,
            },
            ..HubConfig::default()
        },
        delta_delay: Duration::from_millis(args.delta_delay_ms),
        login: LoginMode::After(Duration::from_millis(args.login_delay_ms)),
        heartbeat: millis(args.heartbeat_ms),
        idle_timeout: millis(args.idle_timeout_ms),
        access: Some(access),
        listen: ListenOptions::default()
            .max_connections(args.max_connections)
            .handshake_timeout(Duration::from_millis(args.handshake_timeout_ms)),
        ..Options::default()
    };
    let agent = if args.memory {
        EchoAgent::new(options)
    } else {
        match EchoAgent::open(options, &args.data_dir) {
            Ok(agent) => agent,
            Err(e) => {
                eprintln!("agent-host: {}: {e}", args.data_dir.display());
                return ExitCode::FAILURE;
            }
        }
    };
    let listener = match tokio::net::TcpListener::bind(&args.addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("agent-host: cannot listen on {}: {e}", args.addr);
            return ExitCode::FAILURE;
        }
    };
    let addr = match listener.local_addr() {
        Ok(addr) => addr,
        Err(e) => {
            eprintln!("agent-host: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Whoever reads stdout may stop after the first line: nothing here may fail on that.
    let mut said = format!("listening on ws://{addr}\n");
    if let Some(path) = &token_file {
        said.push_str(&format!("client token in {}\n", path.display()));
    }
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(said.as_bytes());
    let _ = stdout.flush();
    agent.serve(listener).await;
    ExitCode::SUCCESS
}
