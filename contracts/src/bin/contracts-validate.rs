//! `contracts-validate PROTOCOL KIND [TYPE]`: reads JSON lines on stdin and writes one verdict
//! line per input line, `{"ok":true}` or `{"ok":false,"stage":"envelope"|"table","message":"..."}`.
//! `cargo xtask validate` runs it. One malformed line never stops the rest; bytes that are not
//! UTF-8 are read with U+FFFD in their place, as the ports and a JavaScript host read them.
//!
//! PROTOCOL `agent`: KIND is request | server | payload | result | event | type (the bare kinds
//! need TYPE: a request or event name, or for `type` the name of a type no table entry reaches,
//! such as `TaskChangedEvent`). PROTOCOL `connect`: KIND is client | server.
//! Exit 2 for a usage error, an unknown kind or an unknown TYPE.

use contracts::agent::{self, AgentTables};
use contracts::{connect, verdict};
use std::process::ExitCode;

const USAGE: &str = "usage: contracts-validate agent request|server|payload|result|event|type [TYPE]\n       contracts-validate connect client|server";

/// How each line is judged.
enum Judge {
    Agent(agent::Kind, Option<String>),
    Connect(connect::Side),
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
    })
}

/// Reads the arguments, checking a bare kind's TYPE against the tables before any input.
fn parse_args(args: &[String]) -> Result<Judge, String> {
    match args {
        [p, rest @ ..] if p == "agent" => {
            agent::validator_args::<AgentTables>(rest).map(|(kind, ty)| Judge::Agent(kind, ty))
        }
        [p, side] if p == "connect" => connect::Side::from_name(side)
            .map(Judge::Connect)
            .ok_or_else(|| format!("unknown kind {side:?}: expected client or server")),
        [p, ..] if p == "connect" => Err("connect takes one kind and no TYPE".into()),
        [p, ..] => Err(format!("unknown protocol {p:?}: expected agent or connect")),
        [] => Err("missing arguments".into()),
    }
}
