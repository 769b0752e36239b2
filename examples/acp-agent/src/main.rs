//! `acp-agent`: the example agent over stdio, as an editor starts an ACP agent.
//!
//! ```text
//! cargo run -p acp-agent
//! ```
//!
//! Reads newline-delimited JSON-RPC from stdin and writes it to stdout (a `contracts::rpc`
//! connection over an `NdjsonPort`); logs to stderr. Exits with status 0 when stdin ends, once
//! what it took is answered.

use acp_agent::{Agent, Options};
use clap::Parser;
use contracts::acp;
use contracts::port::{NdjsonOptions, NdjsonPort};
use contracts::rpc;
use std::time::Duration;

/// An example ACP agent: a prompt's lines are its script (README, "What a prompt does").
#[derive(Parser)]
#[command(name = "acp-agent", version)]
struct Args {
    /// The most sessions kept at once.
    #[arg(long, default_value_t = Options::default().max_sessions)]
    max_sessions: usize,
    /// Milliseconds a `wait` step waits for session/cancel before the turn goes on.
    #[arg(long, default_value_t = Options::default().wait_limit.as_millis() as u64)]
    wait_limit_ms: u64,
    /// The largest JSON-RPC message read or written, in bytes.
    #[arg(long, default_value_t = contracts::port::Limits::default().max_frame_size)]
    max_message_size: usize,
}

/// Logs to stderr at the levels `RUST_LOG` names (`info` when unset or unreadable): stdout
/// is the protocol's.
fn init_log() {
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
    tracing_subscriber::registry()
        .with(filter)
        .with(layer)
        .init();
    if let Some(Err(e)) = parsed {
        tracing::warn!(error = %e, "RUST_LOG is not understood; logging at info");
    }
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    init_log();
    let options = Options {
        max_sessions: args.max_sessions,
        wait_limit: Duration::from_millis(args.wait_limit_ms),
    };
    let stdio = NdjsonPort::from_parts(
        tokio::io::stdin(),
        tokio::io::stdout(),
        &NdjsonOptions::default().max_frame_size(args.max_message_size),
    );
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        "acp-agent serving stdio"
    );
    // ACP's `$/cancel_request`: a request it names is aborted and answered -32800, a prompt
    // ends its turn `cancelled`; a request of ours the agent stops waiting for (a permission
    // asked in a cancelled turn) is cancelled at the client the same way. `session/cancel`
    // is an ordinary notification the agent hears.
    rpc::serve(stdio, rpc::Options::acp(), |peer| {
        acp::HostSide(Agent::new(peer, options))
    })
    .await;
    tracing::info!("stdin ended; acp-agent exits");
}
