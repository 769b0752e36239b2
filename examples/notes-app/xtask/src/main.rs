//! `cargo xtask codegen [--check] | check | compat [--base REV] [--bless] | validate`: the
//! app's protocol, its TypeScript package and its reference.

use contracts_codegen::emit::typescript::{BasePackage, TsOptions};
use contracts_xtask::Project;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut ts = TsOptions::new("@acme/notes-contracts", "NOTES");
    ts.description = "The notes app: its tables beside the agent ones, types and Zod schemas.".into();
    ts.base_packages.insert(
        "agent".into(),
        BasePackage::new("@adecore/agent-contracts", "AGENT", "^0.1.0"),
    );
    Project::new(env!("CARGO_MANIFEST_DIR"))
        .base("agent", env!("CONTRACTS_SCHEMA_AGENT"))
        .protocol("notes", "schema", &["agent"])
        .outputs(move |p, out| {
            let notes = p.get("notes");
            out.package(notes, "bindings/notes-contracts", &ts)
                .reference(notes, "docs/notes.md", &ts);
            Ok(())
        })
        .main()
}
