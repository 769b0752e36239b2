//! `agent-host`: the echo agent over WebSocket, for a person (or a test) to talk to.
//!
//! ```text
//! cargo run -p agent-host -- --addr 127.0.0.1:8787
//! ```
//!
//! Prints `listening on ws://HOST:PORT` once the socket is bound, then serves until killed.
//! Each WebSocket text message is one JSON frame of the agent protocol. Chats are kept in
//! `--data-dir` (a SQLite file, `agent-host-data/` by default) and served again after a
//! restart; `--memory` keeps them in memory only.

use agent_host::{EchoAgent, LoginMode, Options};
use clap::Parser;
use contracts::agent::host::HubConfig;
use contracts::port::Limits;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// An example agent host: answers every message with `echo: <text>`.
#[derive(Parser)]
#[command(name = "agent-host", version)]
struct Args {
    /// The address to listen on; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:8787")]
    addr: String,
    /// Events kept per chat for replay; a client whose `since` is older gets a snapshot.
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
    /// Milliseconds between two pings of a client; 0 for none.
    #[arg(long, default_value_t = 15_000)]
    heartbeat_ms: u64,
    /// Milliseconds a client may stay silent (no frame, no pong) before it is closed; 0 for
    /// never.
    #[arg(long, default_value_t = 45_000)]
    idle_timeout_ms: u64,
}

/// `Some` duration of that many milliseconds, `None` for 0.
fn millis(ms: u64) -> Option<Duration> {
    (ms > 0).then(|| Duration::from_millis(ms))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let options = Options {
        hub: HubConfig {
            log_capacity: args.log_capacity,
            default_history_limit: args.history_limit,
            limits: Limits {
                max_frame_size: args.max_frame_size,
                max_queued_bytes: args.max_queued_bytes,
            },
            ..HubConfig::default()
        },
        delta_delay: Duration::from_millis(args.delta_delay_ms),
        login: LoginMode::After(Duration::from_millis(args.login_delay_ms)),
        heartbeat: millis(args.heartbeat_ms),
        idle_timeout: millis(args.idle_timeout_ms),
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
    match listener.local_addr() {
        Ok(addr) => println!("listening on ws://{addr}"),
        Err(e) => {
            eprintln!("agent-host: {e}");
            return ExitCode::FAILURE;
        }
    }
    let _ = std::io::stdout().flush();
    match agent.serve(listener).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agent-host: {e}");
            ExitCode::FAILURE
        }
    }
}
