//! A validator over a JSON-RPC protocol generated in the runtime (MCP, feature `mcp`; ACP,
//! feature `acp`): `KIND [TYPE] [--echo]`.

use crate::lines::judge_lines;
use contracts::jsonrpc::{JsonRpcTables, Kind, verdict};
use std::process::ExitCode;

/// The whole of a validator over the protocol `T`: reads `args`, then judges every line on
/// stdin; exit 2 for a usage error, with `usage` after the message.
pub fn run<T: JsonRpcTables>(program: &str, usage: &str, args: &[String]) -> ExitCode {
    let (kind, ty, echo) = match parse_args::<T>(args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{program}: {message}\n{usage}");
            return ExitCode::from(2);
        }
    };
    judge_lines(program, |line| {
        verdict::<T>(kind, ty.as_deref(), line, echo).map_err(|e| e.to_string())
    })
}

/// Reads a validator's arguments: `KIND [TYPE] [--echo]` (`--echo` anywhere). A TYPE is
/// checked against the tables before any input (a usage error, not a verdict).
fn parse_args<T: JsonRpcTables>(args: &[String]) -> Result<(Kind, Option<String>, bool), String> {
    let echo = args.iter().any(|a| a == "--echo");
    let rest: Vec<&String> = args.iter().filter(|a| *a != "--echo").collect();
    let [kind, rest @ ..] = rest.as_slice() else {
        return Err("missing arguments".into());
    };
    let kind: Kind = kind.parse()?;
    if rest.len() > 1 {
        return Err("too many arguments".into());
    }
    let ty = rest.first().map(|t| (*t).clone());
    match (&ty, kind) {
        (Some(_), Kind::Message) => {
            return Err("TYPE applies only to payload, result, event and type".into());
        }
        (None, Kind::Message) => {}
        (None, _) => {
            return Err(
                "this kind needs a TYPE (a request or notification method, or a type's name)"
                    .into(),
            );
        }
        (Some(t), _) => {
            verdict::<T>(kind, Some(t), "{}", false).map_err(|e| e.to_string())?;
        }
    }
    Ok((kind, ty, echo))
}
