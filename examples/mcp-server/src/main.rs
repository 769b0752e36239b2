//! `mcp-server`: the conformance fixtures served to one client on stdio, or to any number over
//! Streamable HTTP.
//!
//! ```text
//! cargo run -p mcp-server -- --http 127.0.0.1:3000
//! cargo run -p mcp-server -- --stdio
//! ```
//!
//! `--http [ADDR]` binds `ADDR` (`127.0.0.1:0` when not given: a free port), prints
//! `listening on http://HOST:PORT/mcp` as its first line on stdout, and serves Streamable HTTP
//! there until killed: each session is a connection with a [`Server`] of its own. Only local
//! host names may reach it (`Host` and `Origin` checked, against DNS rebinding) unless
//! `--allow-host` names more. `--stdio` reads newline-delimited JSON-RPC on stdin and writes
//! it on stdout until stdin ends. The log goes to stderr (`RUST_LOG` picks the levels, `info`
//! by default), never to stdout.

use clap::Parser;
use contracts::mcp;
use contracts::port::{NdjsonOptions, NdjsonPort};
use contracts::rpc::http::{HttpOptions, HttpServer, LOCAL_HOSTS};
use contracts::rpc::{self, Options};
use mcp_server::{SUPPORTED_PROTOCOL_VERSIONS, Server};
use std::io::Write as _;
use std::process::ExitCode;

/// An MCP server holding the fixtures of the official conformance suite.
#[derive(Parser)]
#[command(name = "mcp-server", version)]
#[command(group = clap::ArgGroup::new("transport").required(true))]
struct Args {
    /// Serve Streamable HTTP at http://ADDR/mcp; without ADDR, on a free port of 127.0.0.1.
    #[arg(
        long,
        value_name = "ADDR",
        num_args = 0..=1,
        default_missing_value = "127.0.0.1:0",
        group = "transport"
    )]
    http: Option<String>,
    /// Serve one client on stdin and stdout (newline-delimited JSON-RPC).
    #[arg(long, group = "transport")]
    stdio: bool,
    /// A host name (without port; IPv6 in brackets) the HTTP server answers besides the local ones
    /// (localhost, 127.0.0.1, [::1]); repeat for more. Requests naming any other `Host` or
    /// `Origin` are refused (403).
    #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
    allow_hosts: Vec<String>,
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
    match args.http {
        Some(addr) => match serve_http(&addr, &args.allow_hosts).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                tracing::error!("cannot serve http on {addr}: {e}");
                ExitCode::FAILURE
            }
        },
        None => {
            serve_stdio().await;
            ExitCode::SUCCESS
        }
    }
}

/// Serves Streamable HTTP on `addr` until killed, a [`Server`] per session.
async fn serve_http(addr: &str, allow_hosts: &[String]) -> std::io::Result<()> {
    let hosts = LOCAL_HOSTS
        .iter()
        .map(|h| (*h).to_owned())
        .chain(allow_hosts.iter().cloned());
    let options = HttpOptions::default()
        .allow_hosts(hosts)
        .protocol_versions(SUPPORTED_PROTOCOL_VERSIONS.iter().copied());
    let server = HttpServer::bind(addr, options, |peer| mcp::HostSide(Server::new(peer))).await?;
    let url = server.url();
    // The first line on stdout, which a test or a script reads; flushed at once.
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on {url}")?;
    stdout.flush()?;
    drop(stdout);
    tracing::info!(%url, "serving MCP over Streamable HTTP");
    server.run().await
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
