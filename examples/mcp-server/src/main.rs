//! `mcp-server`: the conformance fixtures served to one client on stdio, or to any number over
//! Streamable HTTP.
//!
//! ```text
//! cargo run -p mcp-server -- --stdio
//! ```
//!
//! `--stdio` reads newline-delimited JSON-RPC on stdin and writes it on stdout until stdin
//! ends. The log goes to stderr (`RUST_LOG` picks the levels, `info` by default), never to
//! stdout, which is the protocol's.

use clap::Parser;
use contracts::mcp;
use contracts::port::{NdjsonOptions, NdjsonPort};
use contracts::rpc::{self, Options};
use mcp_server::Server;
use std::process::ExitCode;

/// An MCP server holding the fixtures of the official conformance suite.
#[derive(Parser)]
#[command(name = "mcp-server", version)]
struct Args {
    /// Serve one client on stdin and stdout (newline-delimited JSON-RPC).
    #[arg(long)]
    stdio: bool,
}

/// Logs to stderr, at the levels `RUST_LOG` names (`info` when unset or unreadable).
fn init_log() {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|wanted| wanted.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::INFO));
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(false);
    tracing_subscriber::registry()
        .with(filter)
        .with(layer)
        .init();
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    init_log();
    if args.stdio {
        serve_stdio().await;
        return ExitCode::SUCCESS;
    }
    eprintln!("mcp-server: say how to serve: --stdio");
    ExitCode::from(2)
}

/// Serves one client on stdin and stdout until stdin ends.
async fn serve_stdio() {
    tracing::info!("serving MCP on stdio");
    let stdio = NdjsonPort::from_parts(
        tokio::io::stdin(),
        tokio::io::stdout(),
        &NdjsonOptions::default(),
    );
    rpc::serve(stdio, Options::mcp(), |peer| {
        mcp::HostSide(Server::new(peer))
    })
    .await;
    tracing::info!("stdin ended");
}
