//! The figure behind the claim that the two languages give one verdict: millions of inputs
//! per entry point, each checked by every invariant of [`crate::run`] and judged by Zod and
//! ajv ([`crate::judge`]), in chunks that a ledger records, so that a run of many hours can
//! stop and go on in another session.
//!
//! Chunk `k` of base seed `b` is a run of [`crate::run`]'s kind with the seed
//! [`chunk_seed`]`(b, k)` and a budget of `per_target` inputs per entry point. A chunk that
//! ends with no failure and no disagreement is appended to the ledger
//! (`tests/fuzz/figure.jsonl`, committed) with its counts, time, rate and commit; the figure
//! is the sum over the ledger's chunks of one base seed and chunk size. A chunk already in the
//! ledger is not run again.

use crate::differential::{self, Line};
use crate::judge::Judges;
use crate::rng::Rng;
use crate::{Budget, Options, Report, seeds, targets};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The ledger's place in the repository.
pub const LEDGER: &str = "tests/fuzz/figure.jsonl";

/// The inputs per entry point the figure claims.
pub const GOAL: u64 = 10_000_000;

/// A chunk's inputs per entry point, by default: 100 chunks make the goal.
pub const CHUNK: u64 = 100_000;

/// One finished chunk, as the ledger records it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    pub base: u64,
    pub chunk: u64,
    pub seed: u64,
    pub per_target: u64,
    /// Inputs checked by every invariant, by entry point (the seeds included).
    pub inputs: BTreeMap<String, u64>,
    /// Of those, the inputs Zod and ajv judged too (every one with a Rust verdict).
    pub judged: u64,
    pub seconds: f64,
    /// Inputs per second, all entry points together.
    pub rate: f64,
    /// The commit the chunk ran on (`-dirty` when the tree had changes).
    pub commit: String,
    /// When it finished (UTC).
    pub finished: String,
}

/// The seed of chunk `k` of base seed `base`.
pub fn chunk_seed(base: u64, k: u64) -> u64 {
    Rng::new(base ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
}

/// The ledger's entries (none when it does not exist yet).
pub fn read_ledger(path: &Path) -> Result<Vec<Entry>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// The chunks the ledger holds for `base` and `per_target`.
pub fn done(ledger: &[Entry], base: u64, per_target: u64) -> BTreeSet<u64> {
    ledger
        .iter()
        .filter(|e| e.base == base && e.per_target == per_target)
        .map(|e| e.chunk)
        .collect()
}

/// Which chunks to run.
#[derive(Clone, Debug)]
pub enum Chunks {
    /// These, those in the ledger skipped.
    Range(std::ops::Range<u64>),
    /// The first `n` that the ledger does not hold.
    Next(u64),
}

impl Chunks {
    /// The chunk numbers to run, given those done.
    pub fn pick(&self, done: &BTreeSet<u64>) -> Vec<u64> {
        match self {
            Chunks::Range(r) => r.clone().filter(|k| !done.contains(k)).collect(),
            Chunks::Next(n) => (0..)
                .filter(|k| !done.contains(k))
                .take(*n as usize)
                .collect(),
        }
    }
}

/// A figure run's options.
#[derive(Clone, Debug)]
pub struct FigureOptions {
    pub base: u64,
    pub per_target: u64,
    pub chunks: Chunks,
    /// The ledger; `None` runs the chunks named and records nothing (the CI's short run).
    pub ledger: Option<PathBuf>,
    /// Write a failing input to the corpus.
    pub write_regression: bool,
}

/// How a figure run ended.
#[derive(Debug)]
pub enum Outcome {
    /// Every chunk run passed, and is in the ledger.
    Passed { ran: Vec<Entry> },
    /// A chunk failed an invariant: its report, with the failure minimised.
    Failed {
        chunk: u64,
        seed: u64,
        report: Report,
    },
    /// A chunk's input disagreed across the languages: minimised, with node's words.
    Disagreed {
        chunk: u64,
        seed: u64,
        found: Vec<(Line, String)>,
        count: usize,
    },
}

/// Runs the chunks `options` names that the ledger does not hold, in order, each appended
/// to the ledger when it passes; stops at the first that fails.
pub fn run(options: &FigureOptions) -> Result<Outcome, String> {
    let root = seeds::root();
    let all = seeds::load()?;
    let ledger = match &options.ledger {
        Some(path) => read_ledger(path)?,
        None => Vec::new(),
    };
    let todo = options
        .chunks
        .pick(&done(&ledger, options.base, options.per_target));
    let commit = commit(&root);
    let mut ran = Vec::new();
    for k in todo {
        let seed = chunk_seed(options.base, k);
        eprintln!(
            "figure: chunk {k} (base {}, seed {seed}, {} per entry point)",
            options.base, options.per_target
        );
        let fuzz = Options {
            write_regression: options.write_regression,
            ..Options::new(seed, Budget::PerTarget(options.per_target))
        };
        let started = Instant::now();
        let mut judges = Judges::new(&root);
        let write = options.write_regression;
        let report = crate::run_observing(
            &fuzz,
            &all,
            targets::check,
            move |h| crate::hung(h, seed, write),
            |target, text, verdict| judges.send(target, text, verdict),
        )?;
        let judged = judges.close()?;
        if report.failure.is_some() {
            return Ok(Outcome::Failed {
                chunk: k,
                seed,
                report,
            });
        }
        if !judged.said.is_empty() {
            let count = judged.said.len();
            let found = minimise_disagreements(&root, &judged.said)?;
            return Ok(Outcome::Disagreed {
                chunk: k,
                seed,
                found,
                count,
            });
        }
        let seconds = started.elapsed().as_secs_f64();
        let total: u64 = report.inputs.values().sum();
        let entry = Entry {
            base: options.base,
            chunk: k,
            seed,
            per_target: options.per_target,
            inputs: report.inputs,
            judged: judged.lines,
            seconds: (seconds * 10.0).round() / 10.0,
            rate: (total as f64 / seconds.max(1e-9)).round(),
            commit: commit.clone(),
            finished: now(),
        };
        if let Some(path) = &options.ledger {
            append(path, &entry)?;
        }
        eprintln!(
            "figure: chunk {k}: {total} inputs ({} judged by Zod and ajv) in {seconds:.1} s, {:.0} inputs/s, no failure, no disagreement",
            entry.judged, entry.rate
        );
        ran.push(entry);
    }
    Ok(Outcome::Passed { ran })
}

/// The first disagreement of each protocol, minimised across the languages.
fn minimise_disagreements(
    root: &Path,
    said: &[crate::judge::Said],
) -> Result<Vec<(Line, String)>, String> {
    let dir = differential::scratch_dir().join("figure");
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for s in said {
        if !seen.insert(s.target.protocol) {
            continue;
        }
        let Some(verdict) = differential::rust_verdict(&s.target, &s.text) else {
            continue;
        };
        let line = Line {
            target: s.target.clone(),
            text: s.text.clone(),
            verdict,
        };
        let pdir = dir.join(s.target.protocol);
        out.push(differential::shrink(
            root,
            &pdir,
            s.target.protocol,
            line,
            s.said.clone(),
        )?);
    }
    Ok(out)
}

/// What the ledger adds up to for `base` and `per_target`: the inputs by entry point, the
/// chunks, the seconds and the commits.
pub fn summary(ledger: &[Entry], base: u64, per_target: u64) -> Summary {
    let mut s = Summary::default();
    for e in ledger
        .iter()
        .filter(|e| e.base == base && e.per_target == per_target)
    {
        s.chunks += 1;
        s.seconds += e.seconds;
        s.judged += e.judged;
        for (name, n) in &e.inputs {
            *s.inputs.entry(name.clone()).or_default() += n;
        }
        s.commits.insert(e.commit.clone());
    }
    s
}

/// The ledger's sums.
#[derive(Debug, Default)]
pub struct Summary {
    pub chunks: u64,
    pub seconds: f64,
    pub judged: u64,
    pub inputs: BTreeMap<String, u64>,
    pub commits: BTreeSet<String>,
}

fn append(path: &Path, entry: &Entry) -> Result<(), String> {
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    let line = serde_json::to_string(entry).map_err(|e| e.to_string())?;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(io)?;
    writeln!(f, "{line}").map_err(io)
}

/// The checkout's commit, `-dirty` when its tree has changes (`unknown` without git).
fn commit(root: &Path) -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let Some(head) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        return "unknown".into();
    };
    // The ledger itself changes as chunks finish: it does not make the tree dirty.
    let dirty = git(&[
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ".",
        ":!tests/fuzz/figure.jsonl",
    ])
    .is_some_and(|s| !s.is_empty());
    if dirty { format!("{head}-dirty") } else { head }
}

/// The time now, UTC, to the second (`date -u`; seconds since the epoch without it).
fn now() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            format!("{secs}")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(base: u64, chunk: u64, per_target: u64) -> Entry {
        Entry {
            base,
            chunk,
            seed: chunk_seed(base, chunk),
            per_target,
            inputs: BTreeMap::from([("agent request".into(), per_target + 3)]),
            judged: per_target,
            seconds: 1.0,
            rate: 1.0,
            commit: "abc".into(),
            finished: "2026-12-02T00:00:00Z".into(),
        }
    }

    /// A chunk in the ledger is skipped; one of another base or size is not.
    #[test]
    fn the_ledger_picks_what_is_left() {
        let ledger = vec![
            entry(7, 0, 10),
            entry(7, 2, 10),
            entry(8, 1, 10),
            entry(7, 1, 5),
        ];
        let done = done(&ledger, 7, 10);
        assert_eq!(Chunks::Range(0..4).pick(&done), vec![1, 3]);
        assert_eq!(Chunks::Next(3).pick(&done), vec![1, 3, 4]);
        let s = summary(&ledger, 7, 10);
        assert_eq!(s.chunks, 2);
        assert_eq!(s.inputs["agent request"], 26);
    }

    /// The ledger is read back as written; chunks have distinct seeds.
    #[test]
    fn the_ledger_round_trips() {
        let dir = std::env::temp_dir().join(format!("figure-ledger-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("figure.jsonl");
        let _ = std::fs::remove_file(&path);
        assert!(read_ledger(&path).unwrap().is_empty());
        append(&path, &entry(1, 0, 10)).unwrap();
        append(&path, &entry(1, 1, 10)).unwrap();
        assert_eq!(
            read_ledger(&path).unwrap(),
            vec![entry(1, 0, 10), entry(1, 1, 10)]
        );
        assert_ne!(chunk_seed(1, 0), chunk_seed(1, 1));
        assert_ne!(chunk_seed(1, 0), chunk_seed(2, 0));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
