//! The shared corpus runner of the Rust tests (`corpus.rs`, `connect_corpus.rs`, and the
//! documents app's `tests/corpus.rs`, which includes this file by path): reads the
//! lines of `tests/corpus/` as `tests/corpus/README.md` describes them and compares a
//! validator's [`Verdict`] with each: the verdict, the stage (where the line gives one) and the
//! set of paths the issues name (where the line gives them; `[]` is one issue at the root),
//! exactly as the node runner (`tests/corpus/runner.mjs`) compares the Zod and JSON Schema
//! verdicts on the same lines. Every disagreement is reported with its file, line and note.

// Each test crate uses a part of it.
#![allow(dead_code)]

use contracts::verdict::{Stage, Verdict};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// One corpus line, as `tests/corpus/README.md` describes it.
pub struct Line {
    /// `tests/corpus/<file>:<line>`.
    pub place: String,
    /// The line's number in its file (from 1).
    pub number: usize,
    /// The line as written: what its record in `tests/corpus/messages/` is tied to.
    pub source: String,
    /// The line's `as`: what the input is checked as.
    pub kind: String,
    /// The line's `type`: the request or event name, for `payload`, `result` and `event`.
    pub type_name: Option<String>,
    /// The input as text: the line's `raw` as a port reads its bytes, or its `input` written as
    /// JSON.
    pub text: String,
    /// The line's `input`, as given, if it has one.
    pub input: Option<Value>,
    pub ok: bool,
    pub stage: Option<Stage>,
    pub paths: Option<Vec<String>>,
    pub note: String,
}

/// `tests/corpus/` of the workspace: the nearest one up from the crate running the tests
/// (the runtime's, or an app's such as `examples/documents-app`).
fn corpus_dir() -> PathBuf {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    crate_dir
        .ancestors()
        .map(|d| d.join("tests/corpus"))
        .find(|d| d.join("README.md").is_file())
        .unwrap_or_else(|| crate_dir.join("../tests/corpus"))
}

/// The lines of `file`, relative to `tests/corpus/`; panics on a line that breaks the format.
pub fn read(file: &str) -> Vec<Line> {
    let path = corpus_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run cargo xtask codegen)", path.display()));
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let place = format!("tests/corpus/{file}:{}", i + 1);
        let v: Value =
            serde_json::from_str(raw).unwrap_or_else(|e| panic!("{place}: not a JSON line: {e}"));
        // The input's own text, its keys in the order written (as `JSON.parse` reads them:
        // an open object keeps them, and its issues follow them), not a `Value`'s sorted ones.
        let fields: std::collections::BTreeMap<String, Box<serde_json::value::RawValue>> =
            serde_json::from_str(raw).unwrap_or_else(|e| panic!("{place}: not a JSON line: {e}"));
        let text = match (v.get("raw"), fields.get("input")) {
            // As a port reads the frame's bytes (a leading byte order mark dropped), as the
            // node runner reads it with `TextDecoder`.
            (Some(Value::String(raw)), _) => {
                contracts::wire::text_of_bytes(raw.as_bytes()).into_owned()
            }
            (_, Some(input)) => input.get().to_owned(),
            _ => panic!("{place}: neither raw nor input"),
        };
        let stage = match v.get("stage").and_then(Value::as_str) {
            None => None,
            Some("envelope") => Some(Stage::Envelope),
            Some("table") => Some(Stage::Table),
            Some(other) => panic!("{place}: unknown stage {other:?}"),
        };
        let paths = v.get("paths").map(|p| {
            p.as_array()
                .unwrap_or_else(|| panic!("{place}: paths is not an array"))
                .iter()
                .map(|s| {
                    s.as_str()
                        .unwrap_or_else(|| panic!("{place}: a path is not a string"))
                        .to_owned()
                })
                .collect()
        });
        lines.push(Line {
            kind: v["as"]
                .as_str()
                .unwrap_or_else(|| panic!("{place}: no \"as\""))
                .to_owned(),
            type_name: v.get("type").and_then(Value::as_str).map(str::to_owned),
            text,
            input: v.get("input").cloned(),
            ok: v["ok"]
                .as_bool()
                .unwrap_or_else(|| panic!("{place}: no \"ok\"")),
            stage,
            paths,
            note: v
                .get("note")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            place,
            number: i + 1,
            source: raw.to_owned(),
        });
    }
    lines
}

/// FNV-1a (32 bits) of a corpus line's UTF-8 bytes, in hex: a message record names the line
/// it was made from, so a record left behind by a corpus change is found stale (the node
/// runner computes the same).
fn fingerprint(line: &str) -> String {
    let h = line.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    format!("{h:08x}")
}

/// A set of paths, the root as `""`: `[]` in a line is one issue at the root.
fn path_set(paths: &[String]) -> BTreeSet<String> {
    if paths.is_empty() {
        BTreeSet::from([String::new()])
    } else {
        paths.iter().cloned().collect()
    }
}

/// What is wrong with `got` for `line`, if anything.
fn disagreement(line: &Line, got: &Verdict) -> Option<String> {
    let wrong = if got.ok != line.ok {
        format!("ok {}, expected {}", got.ok, line.ok)
    } else if !line.ok && line.stage.is_some() && got.stage != line.stage {
        format!("stage {:?}, expected {:?}", got.stage, line.stage)
    } else if let (false, Some(want)) = (line.ok, &line.paths) {
        let (want, have) = (path_set(want), path_set(&got.paths));
        if want == have {
            return None;
        }
        format!("paths {have:?}, expected {want:?}")
    } else {
        return None;
    };
    let message = got
        .message
        .as_deref()
        .map(|m| format!("\n    message: {}", m.replace('\n', "\n             ")))
        .unwrap_or_default();
    Some(format!("{} ({}): {wrong}{message}", line.place, line.note))
}

/// The record of Rust's messages for `file`'s refusals: one JSON line per refused line whose
/// text is JSON (its number, the line's fingerprint, the stage and the message; text that is
/// not JSON is worded by each language's own parser). The node runner (`tests/corpus/runner.mjs`) requires Zod's message
/// on each of those lines to be this one, so Rust and TypeScript say the same thing, not only
/// give the same verdict.
fn messages(lines: &[Line], verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    for (l, v) in lines.iter().zip(verdicts) {
        if v.ok || serde_json::from_str::<serde::de::IgnoredAny>(&l.text).is_err() {
            continue;
        }
        let record = serde_json::json!({
            "line": l.number,
            "of": fingerprint(&l.source),
            "stage": v.stage,
            "message": v.message,
        });
        out.push_str(&record.to_string());
        out.push('\n');
    }
    out
}

/// Checks `tests/corpus/messages/<file>` against `text`, or writes it with `UPDATE_EXPECT=1`.
fn check_messages(file: &str, text: &str) {
    let path = corpus_dir().join("messages").join(file);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("the messages directory");
        std::fs::write(&path, text).expect("the messages file");
        return;
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == text,
        "tests/corpus/messages/{file} is stale: run UPDATE_EXPECT=1 cargo test -p {} --test {}",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_CRATE_NAME")
    );
}

/// Run every line of `file`, panicking with every disagreement; Rust's messages are checked
/// against their record (`tests/corpus/messages/`).
pub fn run(file: &str, verdict: fn(&Line) -> Verdict) {
    let lines = read(file);
    assert!(!lines.is_empty(), "{file} is empty");
    let verdicts: Vec<Verdict> = lines.iter().map(verdict).collect();
    let wrong: Vec<String> = lines
        .iter()
        .zip(&verdicts)
        .filter_map(|(l, v)| disagreement(l, v))
        .collect();
    eprintln!(
        "rust: {file}: {} lines, {} disagreements",
        lines.len(),
        wrong.len()
    );
    assert!(
        wrong.is_empty(),
        "{} of {} lines of {file} disagree:\n{}",
        wrong.len(),
        lines.len(),
        wrong.join("\n")
    );
    check_messages(file, &messages(&lines, &verdicts));
}
