//! `cargo xtask fuzz [--seconds N] [--per-target N] [--seed S] [--only PREFIX]` and
//! `cargo xtask fuzz --differential [--per-kind N] [--seed S]`, and
//! `cargo xtask fuzz --figure [--next N | --chunks A..B] [--summary]`: the mutation fuzzer of
//! `tests/fuzz` (the `contracts-fuzz` binary), built in release unless `--debug` (what
//! `cargo xtask test` uses, to reuse the test build). xtask stays light: it never compiles
//! the protocols itself.

use std::process::{Command, ExitCode};

#[derive(clap::Args)]
pub struct Args {
    /// Run for this long (default 60 s).
    #[arg(long, conflicts_with = "per_target")]
    seconds: Option<f64>,
    /// Check this many mutated inputs per entry point, then stop.
    #[arg(long)]
    per_target: Option<u64>,
    /// The random seed (default: a fresh one, printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Only the entry points whose name starts with this (`agent request`, `connect`).
    #[arg(long)]
    only: Option<String>,
    /// Do not write a failing input to the corpus.
    #[arg(long)]
    no_write: bool,
    /// Run generated inputs through Rust, Zod and ajv instead (the npm packages built).
    #[arg(long, conflicts_with_all = ["seconds", "per_target", "only", "no_write"])]
    differential: bool,
    /// Inputs per kind, for --differential.
    #[arg(long, requires = "differential")]
    per_kind: Option<usize>,
    /// The figure's chunks: every invariant and Zod and ajv on each input (streamed), each
    /// chunk recorded in tests/fuzz/figure.jsonl when it passes (`--seed` is the base seed,
    /// `--per-target` a chunk's size).
    #[arg(long, conflicts_with_all = ["seconds", "only", "differential"])]
    figure: bool,
    /// Run the first N chunks the ledger does not hold (default 1), for --figure.
    #[arg(long, requires = "figure", conflicts_with = "chunks")]
    next: Option<u64>,
    /// Run these chunks (`A..B`), skipping those the ledger holds, for --figure.
    #[arg(long, requires = "figure")]
    chunks: Option<String>,
    /// Another ledger than tests/fuzz/figure.jsonl, for --figure.
    #[arg(long, requires = "figure")]
    ledger: Option<std::path::PathBuf>,
    /// Record nothing in the ledger and skip nothing, for --figure (CI's short run).
    #[arg(long, requires = "figure", conflicts_with = "ledger")]
    no_ledger: bool,
    /// Print what the ledger adds up to and run nothing, for --figure.
    #[arg(long, requires = "figure")]
    summary: bool,
    /// A debug build (the test build's artifacts) instead of release.
    #[arg(long)]
    debug: bool,
}

pub fn run(args: Args) -> ExitCode {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["run", "--quiet", "--package", "contracts-fuzz"]);
    if !args.debug {
        cmd.arg("--release");
    }
    cmd.arg("--");
    if args.figure {
        cmd.arg("figure");
        if let Some(n) = args.next {
            cmd.arg("--next").arg(n.to_string());
        }
        if let Some(c) = &args.chunks {
            cmd.arg("--chunks").arg(c);
        }
        if let Some(n) = args.per_target {
            cmd.arg("--per-target").arg(n.to_string());
        }
        if let Some(l) = &args.ledger {
            cmd.arg("--ledger").arg(l);
        }
        if args.summary {
            cmd.arg("--summary");
        }
        if args.no_ledger {
            cmd.arg("--no-ledger");
        }
        if args.no_write {
            cmd.arg("--no-write");
        }
    } else if args.differential {
        cmd.arg("differential");
        if let Some(n) = args.per_kind {
            cmd.arg("--per-kind").arg(n.to_string());
        }
    } else {
        cmd.arg("run");
        if let Some(s) = args.seconds {
            cmd.arg("--seconds").arg(s.to_string());
        }
        if let Some(n) = args.per_target {
            cmd.arg("--per-target").arg(n.to_string());
        }
        if let Some(o) = &args.only {
            cmd.arg("--only").arg(o);
        }
        if args.no_write {
            cmd.arg("--no-write");
        }
    }
    if let Some(s) = args.seed {
        cmd.arg("--seed").arg(s.to_string());
    }
    match cmd.status() {
        Ok(status) => ExitCode::from(status.code().map_or(1, |c| c.clamp(0, 255) as u8)),
        Err(e) => {
            eprintln!("xtask fuzz: could not run cargo: {e}");
            ExitCode::from(2)
        }
    }
}
