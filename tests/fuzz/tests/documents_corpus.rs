//! The documents app's corpus (`tests/corpus/documents.jsonl`) through the Rust decoder of its
//! composed tables ([`contracts_fuzz::differential::documents_verdict`], the verdict the
//! fuzzer's differential run compares), as `contracts/tests/corpus.rs` runs the agent's, with
//! the same runner; the node runner checks the same lines with the app's Zod and JSON Schema
//! (`examples/documents-app/bindings/documents-contracts/test/corpus.test.ts`).

#[path = "../../../contracts/tests/common/mod.rs"]
mod common;

use common::Line;
use contracts::verdict::Verdict;

fn documents_verdict(line: &Line) -> Verdict {
    contracts_fuzz::differential::documents_verdict(
        &line.kind,
        line.type_name.as_deref(),
        &line.text,
    )
    .unwrap_or_else(|| {
        panic!(
            "{}: no entry point {:?} {:?} in the documents app's tables",
            line.place, line.kind, line.type_name
        )
    })
}

#[test]
fn documents_corpus() {
    common::run("documents.jsonl", documents_verdict);
}
