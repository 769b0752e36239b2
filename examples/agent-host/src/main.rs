//! `agent-host`: the echo agent over WebSocket, for a person (or a test) to talk to.
//!
//! ```text
//! cargo run -p agent-host -- --addr 127.0.0.1:8787
//! ```
//!
//! Prints `listening on ws://HOST:PORT` once the socket is bound, then serves until killed.
//! Each WebSocket text message is one JSON frame of the agent protocol.

use agent_host::{EchoAgent, LoginMode, Options};
use clap::Parser;
use contracts::agent::host::HubConfig;
use std::io::Write as _;
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
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let options = Options {
        hub: HubConfig {
            log_capacity: args.log_capacity,
            default_history_limit: args.history_limit,
            ..HubConfig::default()
        },
        delta_delay: Duration::from_millis(args.delta_delay_ms),
        login: LoginMode::After(Duration::from_millis(args.login_delay_ms)),
        ..Options::default()
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
    match EchoAgent::new(options).serve(listener).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agent-host: {e}");
            ExitCode::FAILURE
        }
    }
}
