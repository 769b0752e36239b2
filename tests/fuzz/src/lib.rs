//! A structure-aware mutation fuzzer over every parse entry point of every protocol, on stable
//! Rust: seeded from the shared corpus and the benchmark frames (`seeds`), mutated on the
//! JSON tree and on the bytes (`mutate`), each input checked by every path that must agree
//! (`targets`), a failure minimised (`minimize`) and written to the corpus as a regression
//! line. `differential` runs generated inputs through Rust, Zod and ajv.
//!
//! `cargo xtask fuzz [--seconds N] [--seed S]` runs [`run`]; `cargo xtask test` runs a short
//! seeded run and a differential run with a new seed.

pub mod differential;
pub mod json;
pub mod minimize;
pub mod mutate;
pub mod rng;
pub mod seeds;
pub mod targets;

use rng::Rng;
use seeds::Seed;
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};
use targets::Target;

/// How long a run goes on.
#[derive(Clone, Copy, Debug)]
pub enum Budget {
    Seconds(f64),
    /// Inputs per entry point (each kind of each protocol).
    PerTarget(u64),
}

/// A run's options.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    pub budget: Budget,
    /// Only the entry points whose name (`agent request`) starts with this.
    pub only: Option<String>,
    /// Write a failing input to the corpus.
    pub write_regression: bool,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs checked, by entry point (`agent request`, ...; a bare kind's names together).
    pub inputs: BTreeMap<String, u64>,
    pub elapsed: Duration,
    /// The first failure, minimised.
    pub failure: Option<Failure>,
}

/// A failing input.
#[derive(Debug)]
pub struct Failure {
    pub target: Target,
    pub input: String,
    pub minimised: String,
    pub what: String,
}

/// The entry point's name a report counts by.
fn kind_name(t: &Target) -> String {
    format!("{} {}", t.protocol, t.kind)
}

/// Checks one input: the verdict, or what broke (a panic or a slow input included).
pub fn check(target: &Target, text: &str) -> Result<contracts::verdict::Verdict, String> {
    let start = Instant::now();
    let got = std::panic::catch_unwind(AssertUnwindSafe(|| targets::check(target, text)));
    let took = start.elapsed();
    let got = match got {
        Ok(r) => r,
        Err(p) => {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            return Err(format!("panicked: {what}"));
        }
    };
    if took > targets::SLOW {
        // Once more, to tell a slow input from a busy machine.
        let again = Instant::now();
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| targets::check(target, text)));
        if again.elapsed() > targets::SLOW {
            return Err(format!("slow: {took:?} (bound {:?})", targets::SLOW));
        }
    }
    got
}

/// What kind of failure a message is: its first line without values, so minimising keeps
/// the failure, not the input's details.
fn failure_kind(what: &str) -> String {
    let first = what.lines().next().unwrap_or_default();
    first.split(':').next().unwrap_or(first).to_owned()
}

/// The dictionary of every seed's keys and strings.
pub fn dict(seeds: &[Seed]) -> mutate::Dict {
    let (mut keys, mut strings) = (Vec::new(), Vec::new());
    for s in seeds {
        if let Some(t) = json::J::parse(&s.text) {
            t.words(&mut keys, &mut strings);
        }
    }
    for k in [&mut keys, &mut strings] {
        k.sort();
        k.dedup();
    }
    strings.retain(|s| s.len() < 64);
    mutate::Dict { keys, strings }
}

/// The seeds grouped by entry point (each bare kind's names together).
fn by_kind(seeds: &[Seed], only: Option<&str>) -> BTreeMap<String, Vec<Seed>> {
    let mut out: BTreeMap<String, Vec<Seed>> = BTreeMap::new();
    for s in seeds {
        let name = kind_name(&s.target);
        if only.is_none_or(|o| s.target.to_string().starts_with(o)) {
            out.entry(name).or_default().push(s.clone());
        }
    }
    out
}

/// One input made from a seed of `group`: mutated, as the ports read bytes (U+FFFD for what
/// is not UTF-8).
pub fn generate(rng: &mut Rng, dict: &mutate::Dict, group: &[Seed]) -> (Target, String) {
    let seed = rng.pick(group);
    let other = &rng.pick(group).text;
    let bytes = mutate::mutate(rng, dict, &seed.text, other);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    (seed.target.clone(), text)
}

/// Runs the fuzzer: every seed first, then mutated inputs, round robin over the entry points,
/// until the budget is spent or an input fails.
pub fn run(options: &Options) -> Result<Report, String> {
    let seeds = seeds::load()?;
    let dict = dict(&seeds);
    let groups = by_kind(&seeds, options.only.as_deref());
    if groups.is_empty() {
        return Err(format!("no entry point matches {:?}", options.only));
    }
    let mut report = Report::default();
    let start = Instant::now();
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let fail = |target: &Target, text: &str, what: String| {
        let kind = failure_kind(&what);
        let minimised = minimize::minimise(text, 5_000, |t| {
            check(target, t).is_err_and(|w| failure_kind(&w) == kind)
        });
        Failure {
            target: target.clone(),
            input: text.to_owned(),
            minimised,
            what,
        }
    };
    'run: {
        for s in groups.values().flatten() {
            *report.inputs.entry(kind_name(&s.target)).or_default() += 1;
            if let Err(what) = check(&s.target, &s.text) {
                report.failure = Some(fail(&s.target, &s.text, what));
                break 'run;
            }
        }
        let mut rng = Rng::new(options.seed);
        let names: Vec<&String> = groups.keys().collect();
        let mut round = 0u64;
        loop {
            match options.budget {
                Budget::Seconds(s) if start.elapsed().as_secs_f64() >= s => break,
                Budget::PerTarget(n) if round >= n => break,
                _ => {}
            }
            for name in &names {
                let (target, text) = generate(&mut rng, &dict, &groups[*name]);
                *report.inputs.entry((*name).clone()).or_default() += 1;
                if let Err(what) = check(&target, &text) {
                    report.failure = Some(fail(&target, &text, what));
                    break 'run;
                }
            }
            round += 1;
        }
    }
    std::panic::set_hook(quiet);
    report.elapsed = start.elapsed();
    if options.write_regression
        && let Some(f) = &report.failure
    {
        let note = format!(
            "found by cargo xtask fuzz --seed {}: {}",
            options.seed,
            f.what.lines().next().unwrap_or_default()
        );
        let expected = check_verdict(&f.target, &f.minimised);
        write_regression(&f.target, &f.minimised, &expected, &note)?;
    }
    Ok(report)
}

/// The decoder's verdict on an input, for a regression line: the two stages', or a refusal
/// at the envelope when even that panics (the line then fails until the bug is fixed).
fn check_verdict(target: &Target, text: &str) -> contracts::verdict::Verdict {
    use contracts::verdict::{Stage, Verdict};
    let got = std::panic::catch_unwind(AssertUnwindSafe(|| {
        differential::rust_verdict(target, text)
    }));
    match got {
        Ok(Some(v)) => v,
        _ => Verdict::refused_with(Stage::Envelope, "panicked"),
    }
}

/// Appends a regression line to the protocol's corpus file (`tests/corpus/<protocol>.jsonl`;
/// the documents app has no corpus of its own: `tests/corpus/documents-found.jsonl`).
pub fn write_regression(
    target: &Target,
    text: &str,
    expected: &contracts::verdict::Verdict,
    note: &str,
) -> Result<std::path::PathBuf, String> {
    use std::io::Write;
    let file = match target.protocol {
        "documents" => "documents-found".to_owned(),
        p => p.to_owned(),
    };
    let path = seeds::root().join(format!("tests/corpus/{file}.jsonl"));
    let line = corpus_line(target, text, expected, note);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    writeln!(f, "{line}").map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// A corpus line (`tests/corpus/README.md`) for an input and its expected verdict.
pub fn corpus_line(
    target: &Target,
    text: &str,
    expected: &contracts::verdict::Verdict,
    note: &str,
) -> String {
    let mut line = serde_json::Map::new();
    line.insert("as".into(), target.kind.clone().into());
    if let Some(t) = &target.ty {
        line.insert("type".into(), t.clone().into());
    }
    line.insert("raw".into(), text.into());
    line.insert("ok".into(), expected.ok.into());
    if let Some(stage) = expected.stage {
        line.insert(
            "stage".into(),
            serde_json::to_value(stage).unwrap_or_default(),
        );
    }
    line.insert("note".into(), note.into());
    serde_json::Value::Object(line).to_string()
}
