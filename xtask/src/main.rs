//! `cargo xtask`: the project's commands. Their names are part of the contract with CI and users.
//!
//! ```text
//! cargo xtask codegen [--check]        regenerate every generated file; --check: fail if stale
//! cargo xtask check [DIR] [--base NAME=DIR]
//!                                      parse and check a schema directory, print diagnostics
//! cargo xtask compat [--base REV] [--schema [NAME=]DIR] [--format text|json] [--bless]
//! cargo xtask validate --protocol agent|connect|documents|mcp|acp --as KIND [--type NAME] [--echo]
//! cargo xtask expand PROTOCOL [--base NAME=DIR]
//!                                      what `protocol!` writes for a protocol (agent, connect,
//!                                      mcp, acp, documents) or a schema directory, formatted
//! cargo xtask fuzz [--seconds N] [--seed S] [--differential [--per-kind N]]
//! cargo xtask growth                  check the workspace with an optional field added to every
//!                                      schema object (a copy under target/growth)
//! cargo xtask test [--list] [--only STEP]... [--from STEP]
//!                                      every test: Rust, TypeScript, end to end; --list: the
//!                                      steps and their ids; --only: those steps; --from: a
//!                                      step and the ones after it
//! cargo xtask test-app [--update]      the template app out of tree, on the packaged crates
//! cargo xtask site [--no-browser]       the reference as a static site, opened in Chromium
//! cargo xtask bench-build [--rounds N] [--parts lines,debug,release,edit,clean] [--scratch DIR]
//!                         [--against REV]
//!                                      build cost: the generated crate against plain serde;
//!                                      clean: an agent app built from nothing, against REV's
//! cargo xtask bench-mcp [--rounds N] [--turn SECS | --calls N] [--concurrency 1,8]
//!                       [--clients rust,sdk] [--transports stdio,http]
//!                                      tools/call round trips per second: examples/mcp-server
//!                                      against the official TypeScript SDK's server
//! cargo xtask bench-turns [--rounds N] [--seconds S] [--clients 1,10,100]
//!                                      agent-host's turns against a minimal broadcast server:
//!                                      chat.event frames per second, side by side
//! ```
//!
//! Built on `contracts-xtask`, the library an app's xtask is made of: `codegen` (planned by
//! [`codegen::plan`]), `check`, `compat`, `validate` and `expand` are the library's, and every command works on the checkout it is run in (found
//! from the current directory, refused when this binary was built from another).

mod bench_build;
mod bench_clean;
mod bench_mcp;
mod bench_turns;
mod bench_use;
mod codegen;
mod conformance;
mod fuzz;
mod growth;
mod serde_baseline;
mod site;
mod template_app;
mod test;
mod workflow;

use clap::{Parser, Subcommand};
use contracts_xtask::validate::Validator;
use contracts_xtask::{Project, compat, validate};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Contract generator tasks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Regenerate every generated file (TypeScript packages, JSON Schema, docs, derived corpus).
    Codegen {
        /// Change nothing; fail with the command to run when a generated file is stale.
        #[arg(long)]
        check: bool,
    },
    /// Parse and check a schema directory and print its diagnostics (default: every protocol
    /// of the project, each on its bases).
    Check {
        dir: Option<PathBuf>,
        /// Protocols the directory builds on, as `name=DIR` (an app's `agent=schema/agent`).
        #[arg(long = "base", value_name = "NAME=DIR")]
        bases: Vec<String>,
    },
    /// Compare the schema at a git revision with the working tree.
    Compat(compat::Args),
    /// Validate JSON lines from stdin, one verdict line each.
    Validate(validate::Args),
    /// Print what `protocol!` writes for a protocol, formatted (prettyplease).
    Expand {
        /// A protocol of the project (agent, connect, mcp, acp, documents), or a schema
        /// directory.
        protocol: String,
        /// For a directory: the protocols it builds on, as `name=DIR`.
        #[arg(long = "base", value_name = "NAME=DIR")]
        bases: Vec<String>,
    },
    /// Fuzz every parse entry point (or, --differential, compare Rust, Zod and ajv).
    Fuzz(fuzz::Args),
    /// Check the workspace in a copy whose every schema object has an optional field more:
    /// the runtime's and the examples' code builds generated types as apps must.
    Growth,
    /// Run every test: Rust, TypeScript, end to end (or, --only and --from, some of them).
    Test(test::Args),
    /// Build and test the template app (examples/notes-app) out of tree, against the packaged
    /// crates and the agent package's tarball.
    TestApp {
        /// First regenerate the template's generated files with its own xtask.
        #[arg(long)]
        update: bool,
    },
    /// Build the reference site (target/site/book) and open every page in headless Chromium.
    Site {
        /// Build only; do not open the pages.
        #[arg(long)]
        no_browser: bool,
    },
    /// Measure what the generated code costs to build against plain serde types of the same
    /// schemas, and its lines per schema line (docs/benchmarks.md, "Build cost").
    BenchBuild(bench_build::Args),
    /// Measure tools/call round trips per second of examples/mcp-server against the official
    /// TypeScript SDK's server, over stdio and Streamable HTTP (docs/benchmarks.md, "MCP
    /// servers").
    BenchMcp(bench_mcp::Args),
    /// Measure chat.event frames per second of agent-host's turns against a minimal
    /// tokio-tungstenite broadcast server sending the same frames, with 1, 10 and 100 clients
    /// (docs/benchmarks.md, "Turns against a broadcast server").
    BenchTurns(bench_turns::Args),
    /// Run the official MCP conformance suite (tests/conformance, pinned) against
    /// examples/mcp-server over Streamable HTTP.
    Conformance(conformance::Args),
}

/// This repository as the library sees it: four protocols under `schema/` (the agent's, Agent
/// Connect's, MCP's and ACP's) and the example app
/// on the agent's, its outputs ([`codegen::plan`]), and what judges frames: the app's
/// generated tables, and the runtime's `contracts-validate` for the rest.
pub fn project() -> Project {
    Project::new(env!("CARGO_MANIFEST_DIR"))
        .protocol("agent", "schema/agent", &[])
        .protocol("connect", "schema/connect", &[])
        .protocol("mcp", "schema/mcp", &[])
        .protocol("acp", "schema/acp", &[])
        .protocol(
            codegen::EXAMPLE_APP,
            "examples/documents-app/schema",
            &["agent"],
        )
        .outputs(codegen::plan)
        // The example app's frames are judged over its composed tables (a validator
        // generated over its module); the others by the runtime's binary.
        .rust_module(codegen::EXAMPLE_APP, "documents_app::documents")
        .validator(Validator {
            package: "adecore-contracts".into(),
            bin: "contracts-validate".into(),
            takes_protocol: true,
            // Agent Connect's, MCP's and ACP's verdicts are behind the runtime's features.
            features: vec!["connect".into(), "mcp".into(), "acp".into()],
        })
}

/// A command's exit code; its error, if any, printed after the command's name.
fn exit(command: &str, result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{command}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let project = project();
    let root = match project.root() {
        Ok(root) => root,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let common = |c| project.run_in(&root, c);
    match cli.command {
        Command::Codegen { check } => common(contracts_xtask::Command::Codegen { check }),
        Command::Check { dir, bases } => common(contracts_xtask::Command::Check { dir, bases }),
        Command::Compat(args) => common(contracts_xtask::Command::Compat(args)),
        Command::Validate(args) => common(contracts_xtask::Command::Validate(args)),
        Command::Expand { protocol, bases } => {
            common(contracts_xtask::Command::Expand { protocol, bases })
        }
        Command::Fuzz(args) => fuzz::run(args),
        Command::Growth => exit("growth", growth::run(&root)),
        Command::Test(args) => test::run(&root, args),
        Command::TestApp { update } => exit("test-app", template_app::run(&root, update)),
        Command::Site { no_browser } => exit("site", site::run(&root, !no_browser)),
        Command::BenchBuild(args) => exit("bench-build", bench_build::run(&root, args)),
        Command::BenchMcp(args) => exit("bench-mcp", bench_mcp::run(&root, args)),
        Command::BenchTurns(args) => exit("bench-turns", bench_turns::run(&root, args)),
        Command::Conformance(args) => exit("conformance", conformance::run(&root, args)),
    }
}
