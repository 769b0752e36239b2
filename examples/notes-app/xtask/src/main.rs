//! `cargo xtask codegen [--check] | check | compat [--base REV] [--bless] | validate | expand`:
//! the app's protocol, its TypeScript package and its reference.

use contracts_codegen::emit::docs::DocsOptions;
use contracts_codegen::emit::typescript::{BasePackage, Runtime, TsOptions};
use contracts_xtask::{AGENT_REFERENCE, Project};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut ts = TsOptions::new("@acme/notes-contracts", "NOTES");
    ts.description = "The notes app: its tables beside the agent ones, types and Zod schemas.".into();
    ts.base_packages.insert(
        "agent".into(),
        BasePackage::new("@adecore/agent-contracts", "AGENT", "^0.1.0"),
    );
    // The runtime the generated code runs on (`parseWith`, `ParseResult`): the agent
    // package's, `@adecore/agent-contracts/runtime`, one copy with the agent's own code.
    ts.runtime = Runtime::agent();
    // The reference links the agent's entries into the agent's page, and shows an example
    // frame of each of the app's, every one a line of the examples file written beside it.
    let examples = "docs/notes-examples.jsonl";
    let page = DocsOptions::for_package(&ts)
        .base_page("agent", AGENT_REFERENCE)
        .examples(examples, "`cargo xtask validate` accepts (`--as` and `--type` as the line names them), as do the package's Zod schemas and its JSON Schema.");
    Project::new(env!("CARGO_MANIFEST_DIR"))
        .base("agent", env!("CONTRACTS_SCHEMA_AGENT"))
        .protocol("notes", "schema", &["agent"])
        // Where protocol! generates it (src/lib.rs): `validate` judges frames with it.
        .rust_module("notes", "notes_app::notes")
        .outputs(move |p, out| {
            let notes = p.get("notes");
            out.package(notes, "bindings/notes-contracts", &ts)
                .examples(notes, examples)
                .reference_with(notes, "docs/notes.md", &page);
            Ok(())
        })
        .main()
}
