//! A validator over agent-shaped tables (the agent's own, or an app's composed on them):
//! `KIND [TYPE]`. Compiled into `contracts-validate` and into every validator `cargo xtask
//! validate` generates for an app's protocol (contracts-xtask includes this file, with
//! `lines.rs`, from the runtime's sources).

use crate::lines::judge_lines;
use contracts::agent::{Kind, Tables, verdict_in};
use std::process::ExitCode;

/// The whole of a validator over the tables `T`: reads `args` (`KIND [TYPE]`), then judges
/// every line on stdin; exit 2 for a usage error, with `usage` after the message.
pub fn run<T: Tables>(program: &str, usage: &str, args: &[String]) -> ExitCode {
    let (kind, ty) = match parse_args::<T>(args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{program}: {message}\n{usage}");
            return ExitCode::from(2);
        }
    };
    judge_lines(program, |line| {
        verdict_in::<T>(kind, ty.as_deref(), line).map_err(|e| e.to_string())
    })
}

/// Reads a validator's arguments over the tables `T`, `KIND [TYPE]`: a bare kind's TYPE is
/// checked against the tables before any input (a usage error, not a verdict).
fn parse_args<T: Tables>(args: &[String]) -> Result<(Kind, Option<String>), String> {
    let [kind, rest @ ..] = args else {
        return Err("missing arguments".into());
    };
    let kind: Kind = kind.parse()?;
    let ty = rest.first().cloned();
    if rest.len() > 1 {
        return Err("too many arguments".into());
    }
    let bare = !matches!(kind, Kind::Request | Kind::Server);
    match (&ty, bare) {
        (None, true) => {
            return Err("this kind needs a TYPE (a request or event name, or a type's)".into());
        }
        (Some(_), false) => {
            return Err("TYPE applies only to payload, result, event and type".into());
        }
        (Some(t), true) => {
            // A usage error, not a verdict: checked with an empty input.
            verdict_in::<T>(kind, Some(t), "{}").map_err(|e| e.to_string())?;
        }
        (None, false) => {}
    }
    Ok((kind, ty))
}
