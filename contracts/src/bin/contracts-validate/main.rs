//! `contracts-validate PROTOCOL KIND [TYPE]`: reads JSON lines on stdin and writes one verdict
//! line per input line, `{"ok":true}` or `{"ok":false,"stage":"envelope"|"table","message":"..."}`.
//! `cargo xtask validate` runs it. One malformed line never stops the rest; bytes that are not
//! UTF-8 are read with U+FFFD in their place, as the ports and a JavaScript host read them.
//!
//! PROTOCOL `agent`: KIND is request | server | payload | result | event | type (the bare kinds
//! need TYPE: a request or event name, or for `type` the name of a type no table entry reaches,
//! such as `TaskChangedEvent`). PROTOCOL `connect` (feature `connect`): KIND is client |
//! server. PROTOCOL `mcp` or `acp` (features `mcp`, `acp`): KIND is message (a JSON-RPC
//! message of either side; a batch is refused) | payload | result | event | type, the bare
//! kinds with TYPE (a method, or a type's name); with `--echo`, an accepted line's verdict
//! carries `"value"`, the input as the generated types write it back (see
//! `contracts::jsonrpc`). Exit 2 for a usage error, an unknown kind or an unknown TYPE.
//!
//! The command line lives here, not in the library: `lines.rs` (the loop) and `agent.rs` (a
//! validator over agent-shaped tables) are also compiled into the validators `cargo xtask
//! validate` generates for an app's protocol.

mod agent;
#[cfg(any(feature = "mcp", feature = "acp"))]
mod jsonrpc;
mod lines;

use std::process::ExitCode;

const PROGRAM: &str = "contracts-validate";

const USAGE: &str = "usage: contracts-validate agent request|server|payload|result|event|type [TYPE]\n       contracts-validate connect client|server\n       contracts-validate mcp|acp message|payload|result|event|type [TYPE] [--echo]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let echo = args.iter().any(|a| a == "--echo");
    match args.as_slice() {
        #[cfg(feature = "mcp")]
        [p, rest @ ..] if p == "mcp" => {
            jsonrpc::run::<contracts::mcp::McpTables>(PROGRAM, USAGE, rest)
        }
        #[cfg(feature = "acp")]
        [p, rest @ ..] if p == "acp" => {
            jsonrpc::run::<contracts::acp::AcpTables>(PROGRAM, USAGE, rest)
        }
        [p, ..] if matches!(p.as_str(), "mcp" | "acp" | "connect") && !enabled(p) => {
            usage(&format!(
                "this contracts-validate was built without the feature {p:?} (cargo run --features {p})"
            ))
        }
        [p, ..] if echo => usage(&format!("--echo applies to mcp and acp, not to {p:?}")),
        [p, rest @ ..] if p == "agent" => {
            agent::run::<contracts::agent::AgentTables>(PROGRAM, USAGE, rest)
        }
        #[cfg(feature = "connect")]
        [p, rest @ ..] if p == "connect" => connect(rest),
        [p, ..] => usage(&format!(
            "unknown protocol {p:?}: expected agent, connect, mcp or acp"
        )),
        [] => usage("missing arguments"),
    }
}

/// Whether this binary was built with the feature that judges `protocol`.
fn enabled(protocol: &str) -> bool {
    const BEHIND_FEATURES: [(&str, bool); 3] = [
        ("mcp", cfg!(feature = "mcp")),
        ("acp", cfg!(feature = "acp")),
        ("connect", cfg!(feature = "connect")),
    ];
    BEHIND_FEATURES
        .iter()
        .all(|&(name, built)| name != protocol || built)
}

/// A usage error: the message and the usage on stderr, exit 2.
fn usage(message: &str) -> ExitCode {
    eprintln!("{PROGRAM}: {message}\n{USAGE}");
    ExitCode::from(2)
}

/// Agent Connect frames of one side: `client` or `server`, no TYPE.
#[cfg(feature = "connect")]
fn connect(args: &[String]) -> ExitCode {
    use contracts::connect::{self, Side};
    let side = match args {
        [side] => match Side::from_name(side) {
            Some(side) => side,
            None => {
                return usage(&format!("unknown kind {side:?}: expected client or server"));
            }
        },
        _ => return usage("connect takes one kind and no TYPE"),
    };
    lines::judge_lines(PROGRAM, |line| Ok(connect::verdict(side, line)))
}
