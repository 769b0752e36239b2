//! `contracts-validate PROTOCOL KIND [TYPE]`: reads JSON lines on stdin and writes one verdict
//! line per input line, `{"ok":true}` or `{"ok":false,"stage":"envelope"|"table","message":"..."}`.
//! `cargo xtask validate` runs it. One malformed line never stops the rest; bytes that are not
//! UTF-8 are read with U+FFFD in their place, as the ports and a JavaScript host read them.
//!
//! PROTOCOL `agent`: KIND is request | server | payload | result | event | type (the bare kinds
//! need TYPE: a request or event name, or for `type` the name of a type no table entry reaches,
//! such as `TaskChangedEvent`). PROTOCOL `connect`: KIND is client | server.
//! PROTOCOL `mcp` or `acp` (features `mcp`, `acp`): KIND is message (a JSON-RPC message of
//! either side; a batch is refused) | payload | result | event | type, the bare kinds with TYPE
//! (a method, or a type's name); with `--echo`, an accepted line's verdict carries `"value"`,
//! the input as the generated types write it back (see `contracts::jsonrpc`).
//! Exit 2 for a usage error, an unknown kind or an unknown TYPE.

use contracts::agent::{self, AgentTables};
#[cfg(any(feature = "mcp", feature = "acp"))]
use contracts::jsonrpc;
use contracts::{connect, verdict};
use std::process::ExitCode;

const USAGE: &str = "usage: contracts-validate agent request|server|payload|result|event|type [TYPE]\n       contracts-validate connect client|server\n       contracts-validate mcp|acp message|payload|result|event|type [TYPE] [--echo]";

/// How each line is judged.
enum Judge {
    Agent(agent::Kind, Option<String>),
    Connect(connect::Side),
    #[cfg(feature = "mcp")]
    Mcp(jsonrpc::Kind, Option<String>, bool),
    #[cfg(feature = "acp")]
    Acp(jsonrpc::Kind, Option<String>, bool),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let judge = match parse_args(&args) {
        Ok(j) => j,
        Err(message) => {
            eprintln!("contracts-validate: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    verdict::judge_lines("contracts-validate", |line| match &judge {
        Judge::Agent(kind, ty) => {
            agent::verdict(*kind, ty.as_deref(), line).map_err(|e| e.to_string())
        }
        Judge::Connect(side) => Ok(connect::verdict(*side, line)),
        #[cfg(feature = "mcp")]
        Judge::Mcp(kind, ty, echo) => {
            jsonrpc::verdict::<contracts::mcp::McpTables>(*kind, ty.as_deref(), line, *echo)
                .map_err(|e| e.to_string())
        }
        #[cfg(feature = "acp")]
        Judge::Acp(kind, ty, echo) => {
            jsonrpc::verdict::<contracts::acp::AcpTables>(*kind, ty.as_deref(), line, *echo)
                .map_err(|e| e.to_string())
        }
    })
}

/// Reads the arguments, checking a bare kind's TYPE against the tables before any input.
fn parse_args(args: &[String]) -> Result<Judge, String> {
    let echo = args.iter().any(|a| a == "--echo");
    match args {
        #[cfg(feature = "mcp")]
        [p, rest @ ..] if p == "mcp" => jsonrpc::validator_args::<contracts::mcp::McpTables>(rest)
            .map(|(kind, ty, echo)| Judge::Mcp(kind, ty, echo)),
        #[cfg(feature = "acp")]
        [p, rest @ ..] if p == "acp" => jsonrpc::validator_args::<contracts::acp::AcpTables>(rest)
            .map(|(kind, ty, echo)| Judge::Acp(kind, ty, echo)),
        [p, ..] if p == "mcp" || p == "acp" => Err(format!(
            "this contracts-validate was built without the feature {p:?} (cargo run --features {p})"
        )),
        [p, ..] if echo => Err(format!("--echo applies to mcp and acp, not to {p:?}")),
        [p, rest @ ..] if p == "agent" => {
            agent::validator_args::<AgentTables>(rest).map(|(kind, ty)| Judge::Agent(kind, ty))
        }
        [p, side] if p == "connect" => connect::Side::from_name(side)
            .map(Judge::Connect)
            .ok_or_else(|| format!("unknown kind {side:?}: expected client or server")),
        [p, ..] if p == "connect" => Err("connect takes one kind and no TYPE".into()),
        [p, ..] => Err(format!(
            "unknown protocol {p:?}: expected agent, connect, mcp or acp"
        )),
        [] => Err("missing arguments".into()),
    }
}
