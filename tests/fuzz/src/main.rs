//! `contracts-fuzz`: the fuzzer's command line; `cargo xtask fuzz` runs it.
//!
//! ```text
//! contracts-fuzz run [--seconds N | --per-target N] [--seed S] [--only PREFIX] [--no-write]
//! contracts-fuzz differential [--per-kind N] [--seed S]
//! contracts-fuzz figure [--next N | --chunks A..B] [--seed BASE] [--per-target N] [--ledger PATH] [--summary]
//! ```
//!
//! Every run prints its seed; a run with the same seed and budget in inputs checks the same
//! inputs. Exit 1 when an input fails (printed, minimised, and written to the corpus unless
//! `--no-write`); exit 3 when one hangs (printed, written to `fuzz-hung.txt` in the target
//! directory and to the corpus unless `--no-write`, not minimised).

use clap::{Parser, Subcommand};
use contracts_fuzz::{Budget, Options, differential, figure, seeds};
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
    /// The figure: chunks of inputs through every invariant and through Zod and ajv
    /// (streamed), each recorded in the ledger when it passes; chunks in it are skipped.
    Figure {
        /// Run the first N chunks the ledger does not hold.
        #[arg(long, conflicts_with = "chunks")]
        next: Option<u64>,
        /// Run these chunks (`A..B`), skipping those the ledger holds.
        #[arg(long, value_parser = parse_range)]
        chunks: Option<std::ops::Range<u64>>,
        /// The base seed the chunks' seeds are made from.
        #[arg(long, default_value_t = 2026)]
        seed: u64,
        /// Inputs per entry point in each chunk.
        #[arg(long, default_value_t = figure::CHUNK)]
        per_target: u64,
        /// The ledger (default: tests/fuzz/figure.jsonl in the repository).
        #[arg(long)]
        ledger: Option<std::path::PathBuf>,
        /// Record nothing and skip nothing: run the chunks named (what CI's short run does).
        #[arg(long, conflicts_with = "ledger")]
        no_ledger: bool,
        /// Do not write a failing input to the corpus.
        #[arg(long)]
        no_write: bool,
        /// Print what the ledger adds up to, and run nothing.
        #[arg(long, conflicts_with_all = ["next", "chunks"])]
        summary: bool,
    },
}

/// `A..B`, a range of chunk numbers.
fn parse_range(s: &str) -> Result<std::ops::Range<u64>, String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("{s:?} is not a range A..B"))?;
    let n = |x: &str| x.parse::<u64>().map_err(|e| format!("{x:?} in {s:?}: {e}"));
    Ok(n(a)?..n(b)?)
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Cmd::Figure {
            next,
            chunks,
            seed,
            per_target,
            ledger,
            no_ledger,
            no_write,
            summary,
        } => {
            let ledger = ledger.unwrap_or_else(|| seeds::root().join(figure::LEDGER));
            if summary {
                return print_summary(&ledger, seed, per_target);
            }
            let options = figure::FigureOptions {
                base: seed,
                per_target,
                chunks: match chunks {
                    Some(r) => figure::Chunks::Range(r),
                    None => figure::Chunks::Next(next.unwrap_or(1)),
                },
                ledger: (!no_ledger).then(|| ledger.clone()),
                write_regression: !no_write,
            };
            match figure::run(&options) {
                Err(e) => {
                    eprintln!("figure: {e}");
                    ExitCode::from(2)
                }
                Ok(figure::Outcome::Passed { ran }) => {
                    eprintln!("figure: {} chunks run, each passed", ran.len());
                    if no_ledger {
                        ExitCode::SUCCESS
                    } else {
                        print_summary(&ledger, seed, per_target)
                    }
                }
                Ok(figure::Outcome::Failed {
                    chunk,
                    seed,
                    report,
                }) => {
                    if let Some(f) = report.failure {
                        eprintln!(
                            "figure: chunk {chunk} FAILED on {} (seed {seed}): {}",
                            f.target, f.what
                        );
                        eprintln!("figure: input:     {}", f.input);
                        eprintln!("figure: minimised: {}", f.minimised);
                    }
                    ExitCode::FAILURE
                }
                Ok(figure::Outcome::Disagreed {
                    chunk,
                    seed,
                    found,
                    count,
                }) => {
                    eprintln!(
                        "figure: chunk {chunk} (seed {seed}): {count} DISAGREEMENTS with Zod or ajv; the first of each protocol, minimised:"
                    );
                    for (line, said) in &found {
                        eprintln!("figure: {}: {}", line.target, line.text);
                        eprintln!("figure: {said}");
                        if !no_write {
                            let note = format!(
                                "found by cargo xtask fuzz --figure, chunk {chunk} (seed {seed}): Rust and Zod or ajv disagree (the verdict is Rust's)"
                            );
                            match contracts_fuzz::write_regression(
                                &line.target,
                                &line.text,
                                &line.verdict,
                                &note,
                            ) {
                                Ok(path) => eprintln!("figure: written to {}", path.display()),
                                Err(e) => eprintln!("figure: {e}"),
                            }
                        }
                    }
                    ExitCode::FAILURE
                }
            }
        }
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

/// Prints what the ledger adds up to for one base seed and chunk size, against the goal.
fn print_summary(ledger: &std::path::Path, base: u64, per_target: u64) -> ExitCode {
    let entries = match figure::read_ledger(ledger) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("figure: {e}");
            return ExitCode::from(2);
        }
    };
    let s = figure::summary(&entries, base, per_target);
    let total: u64 = s.inputs.values().sum();
    eprintln!(
        "figure: {} (base seed {base}, {per_target} per entry point a chunk): {} chunks, {total} inputs, {} judged by Zod and ajv, {:.0} s, {:.0} inputs/s",
        ledger.display(),
        s.chunks,
        s.judged,
        s.seconds,
        total as f64 / s.seconds.max(1e-9)
    );
    for (name, n) in &s.inputs {
        eprintln!(
            "figure: {name}: {n} inputs ({:.1}% of {})",
            100.0 * *n as f64 / figure::GOAL as f64,
            figure::GOAL
        );
    }
    let commits: Vec<&str> = s.commits.iter().map(String::as_str).collect();
    eprintln!("figure: commits: {}", commits.join(", "));
    ExitCode::SUCCESS
}
