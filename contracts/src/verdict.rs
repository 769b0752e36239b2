//! One verdict per input: the line `cargo xtask validate` prints, and what the shared corpus
//! (`tests/corpus/`) compares across Rust, Zod and JSON Schema.

use crate::wire::{ParseError, RawJson};
use serde::Serialize;

/// The refusal of a name no table entry has, worded as the generated TypeScript words it
/// (`noTableEntry`): the name quoted as JSON, so a control character is `\u0001` in both,
/// not Rust's `\u{1}`.
pub fn no_table_entry(name: &str) -> String {
    let quoted = serde_json::to_string(name).unwrap_or_else(|_| format!("{name:?}"));
    format!("no table entry is called {quoted}")
}

/// The refusal of a name `validate --as type` does not know: no struct, enum or union is
/// called so (an alias is checked where a type uses it: it has no reader of its own).
pub fn no_named_type(name: &str) -> String {
    format!(
        "no struct, enum or union is called {name:?} (an alias is checked where a type uses it)"
    )
}

/// Where a refusal happened: the frame itself, or its payload checked by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The frame: not JSON, or not a frame of the protocol.
    Envelope,
    /// The payload, result or event checked against the table entry its name picks.
    Table,
}

/// The verdict on one input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The paths the issues name, in Zod's dotted form (`limits[0].resetsAt`; empty at the
    /// root). Not printed: the corpus compares them.
    #[serde(skip)]
    pub paths: Vec<String>,
    /// An accepted input as the generated types write it back, when the validator was asked
    /// to echo it (`cargo xtask validate --echo`, MCP and ACP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<RawJson>,
}

impl Verdict {
    /// Accepted.
    pub fn accepted() -> Verdict {
        Verdict {
            ok: true,
            stage: None,
            message: None,
            paths: Vec::new(),
            value: None,
        }
    }

    /// Refused at `stage` because of `error`.
    pub fn refused(stage: Stage, error: &ParseError) -> Verdict {
        let paths = error.issues().iter().map(|i| i.path_string()).collect();
        Verdict {
            ok: false,
            stage: Some(stage),
            message: Some(error.to_string()),
            paths,
            value: None,
        }
    }

    /// Refused at `stage` with a message that names no path (an unknown request name).
    pub fn refused_with(stage: Stage, message: impl Into<String>) -> Verdict {
        Verdict {
            ok: false,
            stage: Some(stage),
            message: Some(message.into()),
            paths: Vec::new(),
            value: None,
        }
    }

    /// The verdict as one JSON line: `{"ok":true}` (`{"ok":true,"value":...}` with an echo)
    /// or `{"ok":false,"stage":"envelope","message":"..."}`.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| {
            r#"{"ok":false,"stage":"envelope","message":"unprintable"}"#.to_owned()
        })
    }
}

/// The lines of a corpus file (`tests/corpus/`): `as`, `type` and the input's text as written
/// (the keys in their order, `null` too), for the crate's own tests.
#[cfg(test)]
pub(crate) fn corpus_lines(file: &str) -> Vec<(String, Option<String>, String)> {
    use serde_json::value::RawValue;
    file.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let line: std::collections::HashMap<String, &RawValue> =
                serde_json::from_str(l).expect("a corpus line");
            let string = |key: &str| {
                line.get(key)
                    .and_then(|v| serde_json::from_str::<String>(v.get()).ok())
            };
            let text = match (line.get("input"), string("raw")) {
                (Some(input), _) => input.get().to_owned(),
                (None, Some(raw)) => raw,
                (None, None) => panic!("a corpus line without input: {l}"),
            };
            (string("as").expect("as"), string("type"), text)
        })
        .collect()
}
