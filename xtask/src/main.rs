//! `cargo xtask`: the project's commands. Their names are part of the contract with CI and users.
//!
//! ```text
//! cargo xtask codegen [--check]        regenerate every generated file; --check: fail if stale
//! cargo xtask check [DIR] [--base NAME=DIR]
//!                                      parse and check a schema directory, print diagnostics
//! cargo xtask compat [--base REV] [--schema [NAME=]DIR] [--format text|json] [--bless]
//! cargo xtask validate --protocol agent|connect --as KIND [--type NAME]
//! cargo xtask fuzz [--seconds N] [--seed S] [--differential [--per-kind N]]
//! cargo xtask test                     every test: Rust, TypeScript, end to end
//! cargo xtask site [--no-browser]       the reference as a static site, opened in Chromium
//! ```

mod check;
mod codegen;
mod compat;
mod fuzz;
mod site;
mod test;
mod validate;

use clap::{Parser, Subcommand};
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
    /// Parse and check a schema directory and print its diagnostics (default: every directory
    /// under `schema/`).
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
    /// Fuzz every parse entry point (or, --differential, compare Rust, Zod and ajv).
    Fuzz(fuzz::Args),
    /// Run every test: Rust, TypeScript, end to end.
    Test,
    /// Build the reference site (target/site/book) and open every page in headless Chromium.
    Site {
        /// Build only; do not open the pages.
        #[arg(long)]
        no_browser: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = workspace_root();
    match cli.command {
        Command::Codegen { check } => codegen::run(&root, check),
        Command::Check { dir, bases } => check::run(&root, dir, &bases),
        Command::Compat(args) => compat::run(&root, args),
        Command::Validate(args) => validate::run(args),
        Command::Fuzz(args) => fuzz::run(args),
        Command::Test => test::run(&root),
        Command::Site { no_browser } => site::run(&root, !no_browser),
    }
}

/// The workspace root: xtask's manifest directory's parent.
fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}
