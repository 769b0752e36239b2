//! `contracts-validate PROTOCOL KIND [TYPE]`: reads JSON lines on stdin and writes one verdict
//! line per input line, `{"ok":true}` or `{"ok":false,"stage":"envelope"|"table","message":"..."}`.
//! `cargo xtask validate` runs it. One malformed line never stops the rest; bytes that are not
//! UTF-8 are read with U+FFFD in their place, as the ports and a JavaScript host read them.
//!
//! PROTOCOL `agent`: KIND is request | server | payload | result | event | type (the bare kinds
//! need TYPE: a request or event name, or for `type` the name of a type no table entry reaches,
//! such as `TaskChangedEvent`). PROTOCOL `connect`: KIND is client | server.
//! Exit 2 for a usage error, an unknown kind or an unknown TYPE.

use contracts::{agent, connect};
use std::io::{BufRead, Write};
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
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match stdin.read_until(b'\n', &mut bytes) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("contracts-validate: reading stdin: {e}");
                return ExitCode::FAILURE;
            }
        }
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        }
        // Bytes that are not UTF-8 are read as the ports read them, and as a `TextDecoder`
        // does: U+FFFD in their place (docs/wire-semantics.md).
        let line = String::from_utf8_lossy(&bytes);
        let verdict = match &judge {
            Judge::Agent(kind, ty) => match agent::verdict(*kind, ty.as_deref(), &line) {
                Ok(v) => v,
                Err(e) => {
                    eprintln!("contracts-validate: {e}");
                    return ExitCode::from(2);
                }
            },
            Judge::Connect(side) => connect::verdict(*side, &line),
        };
        if writeln!(stdout, "{}", verdict.to_line())
            .and_then(|()| stdout.flush())
            .is_err()
        {
            // The reader went away.
            return ExitCode::SUCCESS;
        }
    }
    ExitCode::SUCCESS
}

/// Reads the arguments, checking a bare kind's TYPE against the tables before any input.
fn parse_args(args: &[String]) -> Result<Judge, String> {
    match args {
        [p, kind, rest @ ..] if p == "agent" => {
            let kind: agent::Kind = kind.parse()?;
            let ty = rest.first().cloned();
            if rest.len() > 1 {
                return Err("too many arguments".into());
            }
            let bare = !matches!(kind, agent::Kind::Request | agent::Kind::Server);
            match (&ty, bare) {
                (None, true) => {
                    return Err(
                        "this kind needs a TYPE (a request or event name, or a type's)".into(),
                    );
                }
                (Some(_), false) => {
                    return Err("TYPE applies only to payload, result, event and type".into());
                }
                (Some(t), true) => {
                    // A usage error, not a verdict: checked with an empty input.
                    agent::verdict(kind, Some(t), "{}").map_err(|e| e.to_string())?;
                }
                (None, false) => {}
            }
            Ok(Judge::Agent(kind, ty))
        }
        [p, side] if p == "connect" => connect::Side::from_name(side)
            .map(Judge::Connect)
            .ok_or_else(|| format!("unknown kind {side:?}: expected client or server")),
        [p, ..] if p == "connect" => Err("connect takes one kind and no TYPE".into()),
        [p, ..] => Err(format!("unknown protocol {p:?}: expected agent or connect")),
        [] => Err("missing arguments".into()),
    }
}
