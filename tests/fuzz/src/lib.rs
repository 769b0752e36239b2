//! A structure-aware mutation fuzzer over every parse entry point of every protocol, on stable
//! Rust: seeded from the shared corpus and the benchmark frames (`seeds`), mutated on the
//! JSON tree and on the bytes (`mutate`), each input checked by every path that must agree
//! (`targets`), a failure minimised (`minimize`) and written to the corpus as a regression
//! line. `differential` runs generated inputs through Rust, Zod and ajv.
//!
//! Every check runs under the [`guard`]s: generated inputs are capped in size, and a watchdog
//! fails the run on an input that never answers, with the input written out.
//!
//! `cargo xtask fuzz [--seconds N] [--seed S]` runs [`run`]; `cargo xtask test` runs a short
//! seeded run and a differential run with a new seed.

pub mod differential;
pub mod figure;
pub mod guard;
pub mod json;
pub mod judge;
pub mod minimize;
pub mod mutate;
pub mod rng;
pub mod seeds;
pub mod targets;

use contracts::verdict::Verdict;
use guard::{Hang, Watchdog};
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
    /// An input whose check takes longer than this, twice, fails as slow.
    pub slow: Duration,
    /// An input not answered after this fails the run as hung (the watchdog's bound).
    pub hang: Duration,
}

impl Options {
    /// A run of `budget` from `seed` with the default bounds ([`targets::SLOW`],
    /// [`guard::HANG`]), writing a failing input to the corpus.
    pub fn new(seed: u64, budget: Budget) -> Options {
        Options {
            seed,
            budget,
            only: None,
            write_regression: true,
            slow: targets::SLOW,
            hang: guard::HANG,
        }
    }
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

/// Checks one input with `check`: the verdict, or what broke (a panic, or an input slower than
/// `slow` twice).
pub fn check_with(
    check: &impl Fn(&Target, &str) -> Result<Verdict, String>,
    target: &Target,
    text: &str,
    slow: Duration,
) -> Result<Verdict, String> {
    let start = Instant::now();
    let got = std::panic::catch_unwind(AssertUnwindSafe(|| check(target, text)));
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
    if took > slow {
        // Once more, to tell a slow input from a busy machine.
        let again = Instant::now();
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| check(target, text)));
        if again.elapsed() > slow {
            return Err(format!("slow: {took:?} (bound {slow:?})"));
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

/// One input made from a seed of `group`: mutated, as the ports read bytes
/// (`wire::text_of_vec`: a leading byte order mark dropped, U+FFFD for what is not UTF-8), at
/// most [`guard::MAX_INPUT`] bytes (a mutation that grew past it is made
/// again; after eight, the last one's first bytes).
pub fn generate(rng: &mut Rng, dict: &mutate::Dict, group: &[Seed]) -> (Target, String) {
    let seed = rng.pick(group);
    let mut text = String::new();
    for _ in 0..8 {
        let other = &rng.pick(group).text;
        let bytes = mutate::mutate(rng, dict, &seed.text, other);
        text = contracts::wire::text_of_vec(bytes);
        if text.len() <= guard::MAX_INPUT {
            return (seed.target.clone(), text);
        }
    }
    let mut end = guard::MAX_INPUT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    (seed.target.clone(), text)
}

/// Runs the fuzzer: every seed first, then mutated inputs, round robin over the entry points,
/// until the budget is spent or an input fails. An input that hangs ends the process (exit
/// code [`EXIT_HUNG`]) with its input written out ([`hung`]).
pub fn run(options: &Options) -> Result<Report, String> {
    let seeds = seeds::load()?;
    let (seed, write) = (options.seed, options.write_regression);
    run_with(options, &seeds, targets::check, move |h| {
        hung(h, seed, write)
    })
}

/// [`run`] over `seeds`, with `check` for the invariants and `on_hang` for the watchdog's
/// action (called on the watchdog's thread while the check is stuck). When the action
/// returns, the run ends with the input as its failure once the check does.
pub fn run_with(
    options: &Options,
    seeds: &[Seed],
    check: impl Fn(&Target, &str) -> Result<Verdict, String>,
    on_hang: impl Fn(&Hang) + Send + 'static,
) -> Result<Report, String> {
    run_observing(options, seeds, check, on_hang, |_, _, _| Ok(()))
}

/// [`run_with`], with `observe` called on every input that passed, with its verdict, after
/// its check and outside its bounds (the time `observe` takes is not the check's). An error
/// from `observe` ends the run with that error.
pub fn run_observing(
    options: &Options,
    seeds: &[Seed],
    check: impl Fn(&Target, &str) -> Result<Verdict, String>,
    on_hang: impl Fn(&Hang) + Send + 'static,
    mut observe: impl FnMut(&Target, &str, &Verdict) -> Result<(), String>,
) -> Result<Report, String> {
    let dict = dict(seeds);
    let groups = by_kind(seeds, options.only.as_deref());
    if groups.is_empty() {
        return Err(format!("no entry point matches {:?}", options.only));
    }
    let mut report = Report::default();
    let start = Instant::now();
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let dog = Watchdog::start(options.hang, on_hang);
    let check = |target: &Target, text: &str| {
        dog.watch(target, text, || {
            check_with(&check, target, text, options.slow)
        })
        .unwrap_or_else(|h| {
            Err(format!(
                "hung: no answer after {:.1?} (bound {:?})",
                h.after,
                dog.bound()
            ))
        })
    };
    let fail = |target: &Target, text: &str, what: String| {
        let kind = failure_kind(&what);
        // A hung input is not minimised: every candidate could take the bound.
        let minimised = if kind == "hung" {
            text.to_owned()
        } else {
            minimize::minimise(text, 5_000, |t| {
                check(target, t).is_err_and(|w| failure_kind(&w) == kind)
            })
        };
        Failure {
            target: target.clone(),
            input: text.to_owned(),
            minimised,
            what,
        }
    };
    let mut broken = None;
    'run: {
        for s in groups.values().flatten() {
            *report.inputs.entry(kind_name(&s.target)).or_default() += 1;
            match check(&s.target, &s.text) {
                Err(what) => {
                    report.failure = Some(fail(&s.target, &s.text, what));
                    break 'run;
                }
                Ok(v) => {
                    if let Err(e) = observe(&s.target, &s.text, &v) {
                        broken = Some(e);
                        break 'run;
                    }
                }
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
                match check(&target, &text) {
                    Err(what) => {
                        report.failure = Some(fail(&target, &text, what));
                        break 'run;
                    }
                    Ok(v) => {
                        if let Err(e) = observe(&target, &text, &v) {
                            broken = Some(e);
                            break 'run;
                        }
                    }
                }
            }
            round += 1;
        }
    }
    drop(dog);
    std::panic::set_hook(quiet);
    if let Some(e) = broken {
        return Err(e);
    }
    report.elapsed = start.elapsed();
    if options.write_regression
        && let Some(f) = &report.failure
    {
        let note = format!(
            "found by cargo xtask fuzz --seed {}: {}",
            options.seed,
            f.what.lines().next().unwrap_or_default()
        );
        let expected = if failure_kind(&f.what) == "hung" {
            hung_verdict()
        } else {
            check_verdict(&f.target, &f.minimised)
        };
        write_regression(&f.target, &f.minimised, &expected, &note)?;
    }
    Ok(report)
}

/// The exit code of a run the watchdog ended.
pub const EXIT_HUNG: i32 = 3;

/// The verdict a hung input's regression line holds, a placeholder: the line fails (or hangs)
/// until the parse is fixed and its verdict written in.
fn hung_verdict() -> Verdict {
    Verdict::refused_with(contracts::verdict::Stage::Envelope, "hung")
}

/// The fuzzer's action on a hang: the input printed and written to `fuzz-hung.txt` in the
/// target directory, a regression line appended to the corpus (when `write`), and the process
/// ended with [`EXIT_HUNG`]: the stuck check cannot be stopped, and a run that waited for it
/// would hang with it.
pub fn hung(h: &Hang, seed: u64, write: bool) -> ! {
    let what = format!("hung: no answer after {:.1?}", h.after);
    eprintln!("fuzz: FAILED on {} (seed {seed}): {what}", h.target);
    eprintln!("fuzz: input:     {}", h.input);
    let file = differential::target_dir().join("fuzz-hung.txt");
    match std::fs::write(&file, format!("{}\n{}\n", h.target, h.input)) {
        Ok(()) => eprintln!("fuzz: the input is in {}", file.display()),
        Err(e) => eprintln!("fuzz: {}: {e}", file.display()),
    }
    if write {
        let note = format!("found by cargo xtask fuzz --seed {seed}: {what}");
        match write_regression(&h.target, &h.input, &hung_verdict(), &note) {
            Ok(path) => eprintln!(
                "fuzz: written to {} as a regression line (its verdict a placeholder)",
                path.display()
            ),
            Err(e) => eprintln!("fuzz: {e}"),
        }
    }
    std::process::exit(EXIT_HUNG)
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

/// Appends a regression line to the protocol's corpus file (`tests/corpus/<protocol>.jsonl`:
/// `agent`, `connect`, and `documents` for the app's composed tables).
pub fn write_regression(
    target: &Target,
    text: &str,
    expected: &contracts::verdict::Verdict,
    note: &str,
) -> Result<std::path::PathBuf, String> {
    use std::io::Write;
    let path = seeds::root().join(format!("tests/corpus/{}.jsonl", target.protocol));
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
    // `raw` is what travels; a receiver reads it through `TextDecoder`, which drops one leading
    // byte order mark. A text that starts with one (the bytes held two) travels with another,
    // so the receiver reads `text`, as Rust judged it.
    let raw = if text.starts_with('\u{feff}') {
        format!("\u{feff}{text}")
    } else {
        text.to_owned()
    };
    line.insert("raw".into(), raw.into());
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::sync::mpsc;

    fn seed(text: &str) -> Seed {
        Seed {
            target: Target {
                protocol: "agent",
                kind: "request".into(),
                ty: None,
            },
            text: text.into(),
        }
    }

    /// An injected target that hangs on one input: the run's watchdog fires while the check
    /// is stuck, hands over that input, and the run ends with it as its failure.
    #[test]
    fn a_hanging_check_fails_the_run_with_its_input() {
        let (tx, rx) = mpsc::channel::<Hang>();
        let rx = Mutex::new(rx);
        let check = |_: &Target, text: &str| {
            if text.contains("stuck") {
                // Stuck until the watchdog's action answers; after 10 s the watchdog failed.
                let hang = rx
                    .lock()
                    .unwrap()
                    .recv_timeout(Duration::from_secs(10))
                    .map_err(|e| format!("never released: {e}"))?;
                assert_eq!(hang.input, text, "the watchdog names the stuck input");
            }
            Ok(Verdict::accepted())
        };
        let options = Options {
            write_regression: false,
            hang: Duration::from_millis(200),
            ..Options::new(7, Budget::PerTarget(20))
        };
        let seeds = [seed(r#"{"id":"1"}"#), seed(r#"{"id":"stuck"}"#)];
        let report = run_with(&options, &seeds, check, move |h| {
            let _ = tx.send(h.clone());
        })
        .expect("the run ran");
        let f = report.failure.expect("the hang fails the run");
        assert!(f.what.starts_with("hung: no answer after "), "{}", f.what);
        assert_eq!(f.input, r#"{"id":"stuck"}"#);
        assert_eq!(f.minimised, f.input, "a hung input is not minimised");
    }

    /// The same run with a check that answers: no failure, every input counted.
    #[test]
    fn a_quick_check_does_not_fire() {
        let options = Options {
            write_regression: false,
            hang: Duration::from_millis(200),
            ..Options::new(7, Budget::PerTarget(20))
        };
        let seeds = [seed(r#"{"id":"1"}"#), seed(r#"{"id":"stuck"}"#)];
        let report = run_with(
            &options,
            &seeds,
            |_, _| Ok(Verdict::accepted()),
            |h| panic!("fired on {h:?}"),
        )
        .expect("the run ran");
        assert!(report.failure.is_none(), "{:?}", report.failure);
        assert_eq!(report.inputs["agent request"], 22);
    }

    /// Generated inputs stay under the cap, from a seed over it and from one that the
    /// mutations grow past it (which they do: mutated alone, its inputs go over).
    #[test]
    fn generated_inputs_are_capped() {
        let items = |n: usize| format!("[{}1]", "\"aaaaaaaaaaaaaaa\",".repeat(n));
        let seeds = vec![
            seed(&format!("\"{}\"", "a".repeat(guard::MAX_INPUT + 10))),
            seed(&items(3_000)),
            seed(r#"{"a":[{"b":[1,2,3]}],"c":"x"}"#),
        ];
        assert!(seeds[0].text.len() > guard::MAX_INPUT);
        let dict = dict(&seeds);
        let mut rng = Rng::new(1);
        let mut longest = 0;
        for _ in 0..300 {
            let (_, text) = generate(&mut rng, &dict, &seeds);
            longest = longest.max(text.len());
        }
        assert!(longest <= guard::MAX_INPUT, "{longest} bytes");
        let mut rng = Rng::new(1);
        let over = (0..300)
            .filter(|_| {
                mutate::mutate(&mut rng, &dict, &seeds[1].text, &seeds[2].text).len()
                    > guard::MAX_INPUT
            })
            .count();
        assert!(over > 0, "the mutations grow the second seed past the cap");
    }
}
