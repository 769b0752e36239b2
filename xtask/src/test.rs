//! `cargo xtask test`: every check the project has, in one command. CI runs exactly this.
//!
//! Steps run in order and stop at the first failure, naming the step and the command that
//! failed so it can be run again by hand.

use std::path::Path;
use std::process::{Command, ExitCode};

/// One step: a name for the report and the command to run from a directory.
struct Step {
    name: &'static str,
    dir: &'static str,
    program: &'static str,
    args: &'static [&'static str],
}

const fn step(
    name: &'static str,
    dir: &'static str,
    program: &'static str,
    args: &'static [&'static str],
) -> Step {
    Step {
        name,
        dir,
        program,
        args,
    }
}

/// The npm packages under test, in dependency order (a package built before the ones that
/// depend on it through `file:`), each installed from its own lock file.
const NPM_PACKAGES: &[&str] = &[
    "bindings/agent-contracts",
    "bindings/connect-frames",
    "examples/documents-app/bindings/documents-contracts",
    "examples/agent-host/client-test",
    "examples/connect-server/client",
    "examples/documents-app/client",
];

pub fn run(root: &Path) -> ExitCode {
    let mut steps = vec![
        step("format", ".", "cargo", &["fmt", "--all", "--", "--check"]),
        step(
            "lints",
            ".",
            "cargo",
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--all-features",
                "--",
                "-D",
                "warnings",
            ],
        ),
        step(
            "generated files are fresh",
            ".",
            "cargo",
            &["xtask", "codegen", "--check"],
        ),
        step(
            "schemas only grew compatibly",
            ".",
            "cargo",
            &["xtask", "compat"],
        ),
    ];
    // TypeScript first: the Rust end-to-end tests run node clients against these builds.
    for dir in NPM_PACKAGES {
        steps.push(step(
            "npm install from the lock file",
            dir,
            "npm",
            &["ci", "--no-audit", "--no-fund"],
        ));
        steps.push(step(
            "TypeScript build (tsc --strict)",
            dir,
            "npm",
            &["run", "build"],
        ));
        steps.push(step("TypeScript tests", dir, "npm", &["test"]));
    }
    // Installed by the lock files above; see tests/npm-consumer/run.mjs.
    steps.push(step(
        "npm packages packed, publint and attw on each tarball, a consumer installed from them",
        "tests/npm-consumer",
        "npm",
        &["test"],
    ));
    // The reference site: built with mdBook, every page opened in headless Chromium.
    steps.push(step(
        "reference site in Chromium",
        ".",
        "cargo",
        &["xtask", "site"],
    ));
    steps.push(step(
        "Rust tests, end to end included",
        ".",
        "cargo",
        &["test", "--workspace", "--all-features"],
    ));
    // The fuzzer: a short seeded run of every invariant, each input judged by Zod and ajv as
    // it is made (one chunk of the figure's kind, recorded nowhere), then Rust, Zod and ajv on
    // generated inputs with a new seed each run (printed; a disagreement fails with its
    // minimised input): 12 000 per kind, 13 kinds (the agent's, Agent Connect's, the
    // documents app's).
    steps.push(step(
        "fuzzing, a short seeded run, judged by Zod and ajv as it goes",
        ".",
        "cargo",
        &[
            "xtask",
            "fuzz",
            "--debug",
            "--figure",
            "--no-ledger",
            "--chunks",
            "0..1",
            "--per-target",
            "300",
            "--seed",
            "1",
        ],
    ));
    steps.push(step(
        "differential: Rust, Zod and ajv on generated inputs",
        ".",
        "cargo",
        &[
            "xtask",
            "fuzz",
            "--debug",
            "--differential",
            "--per-kind",
            "12000",
        ],
    ));
    // Last: the template app as its users meet it, out of tree on the packaged crates (it
    // packs the agent package built above).
    steps.push(step(
        "the template app, out of tree, on the packaged crates",
        ".",
        "cargo",
        &["xtask", "test-app"],
    ));
    for s in &steps {
        eprintln!(
            "\n==> {} ({}: {} {})",
            s.name,
            s.dir,
            s.program,
            s.args.join(" ")
        );
        let status = Command::new(s.program)
            .args(s.args)
            .current_dir(root.join(s.dir))
            .status();
        match status {
            Ok(st) if st.success() => {}
            Ok(st) => {
                eprintln!(
                    "\nxtask test: step `{}` failed ({st}); run it again with:",
                    s.name
                );
                eprintln!("    cd {} && {} {}", s.dir, s.program, s.args.join(" "));
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("\nxtask test: could not start `{}`: {e}", s.program);
                return ExitCode::FAILURE;
            }
        }
    }
    eprintln!("\nxtask test: all {} steps passed", steps.len());
    ExitCode::SUCCESS
}
