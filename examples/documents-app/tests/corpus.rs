//! The verdict over the app's composed tables (`contracts::agent::verdict_in`, what
//! `cargo xtask validate --protocol documents` runs): the app's entries and the agent's, each
//! judged by its own table, and the agent's verdict alone knows none of the app's. And the
//! app's corpus (`tests/corpus/documents.jsonl`: hand-written and the fuzzer's regression
//! lines) and the examples of its reference (`tests/corpus/derived/documents.jsonl`, written
//! by `cargo xtask codegen`) through it, by the shared corpus runner the agent's corpus runs
//! through; the package's `test/corpus.test.ts` runs the same lines through Zod and ajv.

#[path = "../../../contracts/tests/common/mod.rs"]
mod common;

use contracts::agent::{self, Kind};
use contracts::verdict::Verdict;
use documents_app::DocumentsTables as Documents;

/// A corpus line's verdict over the app's tables.
fn line_verdict(line: &common::Line) -> Verdict {
    let kind: Kind = line
        .kind
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", line.place));
    agent::verdict_in::<Documents>(kind, line.type_name.as_deref(), &line.text)
        .unwrap_or_else(|e| panic!("{}: {e}", line.place))
}

#[test]
fn the_references_examples_are_accepted() {
    common::run("derived/documents.jsonl", line_verdict);
}

#[test]
fn the_apps_corpus() {
    common::run("documents.jsonl", line_verdict);
}

fn app(kind: Kind, ty: Option<&str>, text: &str) -> Verdict {
    agent::verdict_in::<Documents>(kind, ty, text).expect("a known type")
}

#[test]
fn the_apps_entries_and_the_agents_are_judged_by_their_tables() {
    let read = r#"{"id":"1","type":"document.read","payload":{"id":"notes"}}"#;
    assert!(app(Kind::Request, None, read).ok);
    assert!(
        app(
            Kind::Request,
            None,
            r#"{"id":"2","type":"chat.list","payload":{}}"#
        )
        .ok
    );
    let empty = app(
        Kind::Request,
        None,
        r#"{"id":"3","type":"document.read","payload":{"id":""}}"#,
    );
    assert!(!empty.ok);
    assert_eq!(empty.paths, ["id"]);
    let changed = r#"{"type":"event","event":"document.changed","payload":{"id":"notes"}}"#;
    assert!(app(Kind::Server, None, changed).ok);
    assert!(app(Kind::Payload, Some("document.read"), r#"{"id":"notes"}"#).ok);
    assert!(app(Kind::Result, Some("document.read"), r#"{"text":"hello"}"#).ok);
    assert!(app(Kind::Event, Some("document.changed"), r#"{"id":"notes"}"#).ok);
    // The agent's frames outside the tables are still checked by name.
    assert!(app(Kind::Type, Some("Request"), read).ok);

    // The agent's own verdict knows none of the app's names.
    let alone = agent::verdict(Kind::Request, None, read).unwrap();
    assert_eq!(
        alone.message.as_deref(),
        Some(r#"no table entry is called "document.read""#)
    );
    assert!(agent::verdict(Kind::Payload, Some("document.read"), "{}").is_err());
    assert!(agent::verdict_in::<Documents>(Kind::Payload, Some("document.nope"), "{}").is_err());
}
