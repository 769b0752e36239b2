//! `contracts-fuzz`: the fuzzer's command line; `cargo xtask fuzz` runs it.
//!
//! ```text
//! contracts-fuzz run [--seconds N | --per-target N] [--seed S] [--only PREFIX] [--no-write]
//! contracts-fuzz differential [--per-kind N] [--seed S]
//! ```
//!
//! Every run prints its seed; a run with the same seed and budget in inputs checks the same
//! inputs. Exit 1 when an input fails (printed, minimised, and written to the corpus unless
//! `--no-write`); exit 3 when one hangs (printed, written to `fuzz-hung.txt` in the target
//! directory and to the corpus unless `--no-write`, not minimised).

use clap::{Parser, Subcommand};
use contracts_fuzz::{Budget, Options, differential};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "contracts-fuzz",
    about = "Mutation fuzzing of every parse entry point"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Mutated inputs through every entry point and every invariant.
    Run {
        /// Run for this long (default 60 s, unless --per-target is given).
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
    },
    /// Generated inputs through Rust, Zod and ajv (the packages built), compared.
    Differential {
        /// Inputs per kind.
        #[arg(long, default_value_t = 20_000)]
        per_kind: usize,
        /// The random seed (default: a fresh one, printed).
        #[arg(long)]
        seed: Option<u64>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Cmd::Run {
            seconds,
            per_target,
            seed,
            only,
            no_write,
        } => {
            let seed = seed.unwrap_or_else(differential::fresh_seed);
            let budget = match per_target {
                Some(n) => Budget::PerTarget(n),
                None => Budget::Seconds(seconds.unwrap_or(60.0)),
            };
            eprintln!("fuzz: seed {seed}, {budget:?}");
            let options = Options {
                only,
                write_regression: !no_write,
                ..Options::new(seed, budget)
            };
            let report = match contracts_fuzz::run(&options) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("fuzz: {e}");
                    return ExitCode::from(2);
                }
            };
            let total: u64 = report.inputs.values().sum();
            let secs = report.elapsed.as_secs_f64();
            for (name, n) in &report.inputs {
                eprintln!("fuzz: {name}: {n} inputs");
            }
            eprintln!(
                "fuzz: {total} inputs in {secs:.1} s ({:.0} inputs/s), seed {seed}",
                total as f64 / secs.max(1e-9)
            );
            match report.failure {
                None => {
                    eprintln!("fuzz: no failure");
                    ExitCode::SUCCESS
                }
                Some(f) => {
                    eprintln!("fuzz: FAILED on {} (seed {seed}): {}", f.target, f.what);
                    eprintln!("fuzz: input:     {}", f.input);
                    eprintln!("fuzz: minimised: {}", f.minimised);
                    if options.write_regression {
                        eprintln!(
                            "fuzz: written to the corpus as a regression line; after the fix, run UPDATE_EXPECT=1 cargo test -p adecore-contracts --test corpus --test connect_corpus (the documents app's: -p documents-app --test corpus)"
                        );
                    }
                    ExitCode::FAILURE
                }
            }
        }
        Cmd::Differential { per_kind, seed } => {
            let seed = seed.unwrap_or_else(differential::fresh_seed);
            eprintln!("differential: seed {seed}, {per_kind} inputs per kind");
            let dir = differential::scratch_dir();
            let start = std::time::Instant::now();
            match differential::run(seed, per_kind, &dir) {
                Err(e) => {
                    eprintln!("differential: {e}");
                    ExitCode::from(2)
                }
                Ok(report) => {
                    let total: usize = report.inputs.values().sum();
                    for (name, n) in &report.inputs {
                        eprintln!("differential: {name}: {n} inputs");
                    }
                    eprintln!(
                        "differential: {total} inputs through Rust, Zod and ajv in {:.1} s, seed {seed}",
                        start.elapsed().as_secs_f64()
                    );
                    if report.disagreements.is_empty() {
                        eprintln!("differential: no disagreement");
                        return ExitCode::SUCCESS;
                    }
                    for (target, text, said) in &report.disagreements {
                        eprintln!("differential: DISAGREEMENT on {target} (seed {seed})");
                        eprintln!("differential: minimised input: {text}");
                        eprintln!("differential: {said}");
                        // A regression line with Rust's verdict: the side that is wrong fails
                        // on it until it is fixed (the line's verdict flipped if it is Rust).
                        if let Some(v) = differential::rust_verdict(target, text) {
                            let note = format!(
                                "found by cargo xtask fuzz --differential --seed {seed}: Rust and Zod or ajv disagree (the verdict is Rust's)"
                            );
                            match contracts_fuzz::write_regression(target, text, &v, &note) {
                                Ok(path) => {
                                    eprintln!("differential: written to {}", path.display())
                                }
                                Err(e) => eprintln!("differential: {e}"),
                            }
                        }
                    }
                    ExitCode::FAILURE
                }
            }
        }
    }
}
