//! `connect-server`: a reference Agent Connect server on `ws://ADDR/v1/ws`.
//!
//! ```text
//! connect-server --addr 127.0.0.1:0
//! connect-server --addr 127.0.0.1:8787 --workspace ws_1 --token t1=harness:h1:Scout --token t2=person:u1:Dana:owner
//! ```
//!
//! Prints `listening on ws://HOST:PORT/v1/ws` once the socket is bound, then serves until
//! killed. Without `--token`, the demo tokens of [`TokenTable::demo`] are used.

use std::process::ExitCode;

use clap::Parser;
use connect_server::tokens::DEMO_WORKSPACE;
use connect_server::{PATH, Server, TokenTable};
use contracts::connect::session::{Config, MemoryLog};
use std::io::Write as _;

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
    /// How many events the in-memory log keeps per workspace.
    #[arg(long, default_value_t = MemoryLog::DEFAULT_RETAIN)]
    retain: usize,
    /// How many idempotency keys the log remembers per workspace (at least --retain); ten per
    /// event kept when not given.
    #[arg(long, value_name = "N")]
    key_retain: Option<usize>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let tokens = if args.tokens.is_empty() {
        TokenTable::demo()
    } else {
        let mut table = TokenTable::new();
        for spec in &args.tokens {
            if let Err(e) = table.add_spec(&args.workspace, spec) {
                eprintln!("connect-server: {e}");
                return ExitCode::from(2);
            }
        }
        table
    };
    let listener = match tokio::net::TcpListener::bind(&args.addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("connect-server: cannot listen on {}: {e}", args.addr);
            return ExitCode::FAILURE;
        }
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("connect-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("listening on ws://{addr}{PATH}");
    let _ = std::io::stdout().flush();
    let mut log = MemoryLog::new(args.retain);
    if let Some(keys) = args.key_retain {
        log = log.with_key_retain(keys);
    }
    let server = Server::with_log(tokens, Config::default(), log);
    match server.serve(listener).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("connect-server: {e}");
            ExitCode::FAILURE
        }
    }
}
