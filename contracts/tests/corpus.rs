//! The shared corpus through the Rust validators.
//!
//! Every line of `tests/corpus/{agent,connect}.jsonl` (hand-written) and
//! `tests/corpus/derived/{agent,connect}.jsonl` (derived from the model by `cargo xtask
//! codegen`) is checked as `cargo xtask validate` checks it: agent lines by
//! [`contracts::agent::verdict`] (`request`, `server`, `payload`, `result`, `event`), connect
//! lines (feature `connect`) by `contracts::connect::verdict` (`client`, `server`; always the
//! envelope stage).
//! The verdict, the stage (where the line gives one) and the set of paths the issues name
//! (where the line gives them; `[]` is one issue at the root) must be the line's: the runner is
//! `common/mod.rs`, which compares as the node runner (`tests/corpus/runner.mjs`) compares the
//! Zod and JSON Schema verdicts on the same lines. Every disagreement is reported with its
//! file, line and note. Rust's messages on the refused lines are checked against their record,
//! `tests/corpus/messages/` (`UPDATE_EXPECT=1` rewrites it), which the node runner compares
//! Zod's messages with.

mod common;

use common::{Line, run};
use contracts::verdict::Verdict;

fn agent_verdict(line: &Line) -> Verdict {
    let kind: contracts::agent::Kind = line
        .kind
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", line.place));
    contracts::agent::verdict(kind, line.type_name.as_deref(), &line.text)
        .unwrap_or_else(|e| panic!("{}: {e}", line.place))
}

#[cfg(feature = "connect")]
fn connect_verdict(line: &Line) -> Verdict {
    let side = contracts::connect::Side::from_name(&line.kind).unwrap_or_else(|| {
        panic!(
            "{}: unknown \"as\" {:?}: expected client or server",
            line.place, line.kind
        )
    });
    contracts::connect::verdict(side, &line.text)
}

#[test]
fn agent_corpus() {
    run("agent.jsonl", agent_verdict);
}

#[test]
fn agent_derived_corpus() {
    run("derived/agent.jsonl", agent_verdict);
}

#[cfg(feature = "connect")]
#[test]
fn connect_corpus() {
    run("connect.jsonl", connect_verdict);
}

#[cfg(feature = "connect")]
#[test]
fn connect_derived_corpus() {
    run("derived/connect.jsonl", connect_verdict);
}
