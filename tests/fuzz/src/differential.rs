//! The differential run: generated inputs through Rust, Zod and ajv, verdict, stage and
//! message compared.
//!
//! Rust's verdicts (`cargo xtask validate`'s: `agent::verdict`, `connect::verdict`; for the
//! documents app's composed tables, [`documents_verdict`], the same two stages) are written
//! as a corpus of their own, with Rust's messages beside it as `tests/corpus/messages/`
//! records them, and each package's corpus adapter (`test/corpus.test.ts` of
//! `bindings/agent-contracts`, `bindings/connect-frames` and the app's
//! `examples/documents-app/bindings/documents-contracts`, through
//! `tests/corpus/runner.mjs`, `CONTRACTS_CORPUS_DIR` pointing at it) runs it through the
//! generated Zod (verdict, stage and message must be Rust's) and the generated JSON Schema
//! (verdict and stage). A disagreement is minimised across the languages: one simpler input
//! after another, each batch run through node again, while it still disagrees.

use crate::minimize;
use crate::rng::Rng;
use crate::seeds::{self, Seed};
use crate::targets::Target;
use contracts::verdict::Verdict;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Rust's verdict on an input, as `cargo xtask validate` prints it (for the documents app,
/// [`documents_verdict`]); `None` for an entry point there is none of.
pub fn rust_verdict(target: &Target, text: &str) -> Option<Verdict> {
    use contracts::{agent, connect};
    match target.protocol {
        "agent" => {
            let kind: agent::Kind = target.kind.parse().ok()?;
            agent::verdict(kind, target.ty.as_deref(), text).ok()
        }
        "connect" => Some(connect::verdict(
            connect::Side::from_name(&target.kind)?,
            text,
        )),
        "documents" => documents_verdict(&target.kind, target.ty.as_deref(), text),
        _ => None,
    }
}

/// The documents app's verdict through its composed tables, as `agent::verdict` gives the
/// agent's: a frame (`request`, `server`) in one pass with the two stages' verdict, a bare
/// value (`payload`, `result`, `event`) by its entry's name (`None` for a name the tables do
/// not have, or another kind).
pub fn documents_verdict(kind: &str, type_name: Option<&str>, text: &str) -> Option<Verdict> {
    let kind: contracts::agent::Kind = kind.parse().ok()?;
    contracts::agent::verdict_in::<documents_app::DocumentsTables>(kind, type_name, text).ok()
}

/// The package that runs a protocol's corpus through Zod and ajv.
fn package(protocol: &str) -> Option<&'static str> {
    match protocol {
        "agent" => Some("bindings/agent-contracts"),
        "connect" => Some("bindings/connect-frames"),
        "documents" => Some("examples/documents-app/bindings/documents-contracts"),
        _ => None,
    }
}

/// The corpus files the package's adapter reads, relative to the corpus directory: the
/// hand-written and the derived one.
fn corpus_files(protocol: &str) -> Vec<String> {
    vec![
        format!("{protocol}.jsonl"),
        format!("derived/{protocol}.jsonl"),
    ]
}

/// FNV-1a (32 bits) of a line's UTF-8 bytes, in hex, as the runner computes it.
fn fingerprint(line: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in line.bytes() {
        h = (h ^ b as u32).wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

/// One generated input with Rust's verdict.
#[derive(Clone, Debug)]
pub struct Line {
    pub target: Target,
    pub text: String,
    pub verdict: Verdict,
}

/// Writes `lines` as a corpus of `protocol` under `dir` (spread over the files the runner
/// reads, [`corpus_files`]) with Rust's messages; the line each input went to, by (file, line
/// number).
fn write_corpus(
    dir: &Path,
    protocol: &str,
    lines: &[Line],
) -> Result<BTreeMap<(String, usize), usize>, String> {
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(dir.join("derived")).map_err(io)?;
    std::fs::create_dir_all(dir.join("messages/derived")).map_err(io)?;
    let mut at = BTreeMap::new();
    let files = corpus_files(protocol);
    let parts = files.len();
    for (part, file) in files.into_iter().enumerate() {
        let (mut corpus, mut messages) = (String::new(), String::new());
        let mine: Vec<(usize, &Line)> = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| i % parts == part)
            .collect();
        // The runner refuses an empty file: the first line again when this part has none.
        let mine = if mine.is_empty() {
            vec![(0, &lines[0])]
        } else {
            mine
        };
        for (n, (i, l)) in mine.into_iter().enumerate() {
            let line = crate::corpus_line(&l.target, &l.text, &l.verdict, "generated");
            if let Some(m) = &l.verdict.message {
                let record =
                    serde_json::json!({"line": n + 1, "of": fingerprint(&line), "message": m});
                let _ = writeln!(messages, "{record}");
            }
            let _ = writeln!(corpus, "{line}");
            at.insert((file.clone(), n + 1), i);
        }
        std::fs::write(dir.join(&file), corpus).map_err(io)?;
        std::fs::write(dir.join("messages").join(&file), messages).map_err(io)?;
    }
    Ok(at)
}

/// A source of the package (under `src/` and `test/`) changed after `built` was built: a
/// stale build would compare Rust with an older Zod and report a false disagreement.
fn newer_source(pkg: &Path, built: &Path) -> Option<std::path::PathBuf> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let built_at = modified(built)?;
    let mut dirs = vec![pkg.join("src"), pkg.join("test")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if modified(&path).is_some_and(|t| t > built_at) {
                return Some(path);
            }
        }
    }
    None
}

/// The package that judges `protocol` and its built corpus adapter, refused when it is
/// missing or older than a source of the package.
pub fn judge_script(root: &Path, protocol: &str) -> Result<(PathBuf, PathBuf), String> {
    let pkg = root.join(package(protocol).ok_or("no package")?);
    let test = pkg.join("dist/test/corpus.test.js");
    if !test.exists() {
        return Err(format!(
            "{} is missing: build the package first (npm ci at the root, npm run build in {})",
            test.display(),
            pkg.display()
        ));
    }
    if let Some(newer) = newer_source(&pkg, &test) {
        return Err(format!(
            "{} is older than {}: rebuild the package first (npm run build in {})",
            test.display(),
            newer.display(),
            pkg.display()
        ));
    }
    Ok((pkg, test))
}

/// Runs a corpus under `dir` through the package's Zod and ajv: the (file, line) of every line
/// that disagrees, with what node said.
fn run_node(
    root: &Path,
    protocol: &str,
    dir: &Path,
) -> Result<BTreeMap<(String, usize), String>, String> {
    let (pkg, test) = judge_script(root, protocol)?;
    let out = Command::new("node")
        .arg("--test")
        .arg("--test-reporter=tap")
        .arg(&test)
        .current_dir(&pkg)
        .env("CONTRACTS_CORPUS_DIR", dir)
        .output()
        .map_err(|e| format!("could not run node: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut wrong = BTreeMap::new();
    let files = corpus_files(protocol);
    let marker = "tests/corpus/";
    for l in text.lines() {
        let Some(at) = l.find(marker) else { continue };
        let rest = &l[at + marker.len()..];
        let Some((file, tail)) = rest.split_once(':') else {
            continue;
        };
        let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = digits.parse::<usize>()
            && files.iter().any(|f| f == file)
        {
            wrong
                .entry((file.to_owned(), n))
                .or_insert_with(|| l.trim().to_owned());
        }
    }
    if !out.status.success() && wrong.is_empty() {
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        return Err(format!(
            "node failed with no line named:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    Ok(wrong)
}

/// What a differential run found.
#[derive(Debug, Default)]
pub struct DiffReport {
    /// Inputs by entry point.
    pub inputs: BTreeMap<String, usize>,
    /// Disagreements: the input, minimised, and what node said of it.
    pub disagreements: Vec<(Target, String, String)>,
}

/// Runs `lines` of one protocol through node: the lines that disagree, with node's words.
fn disagreeing(
    root: &Path,
    dir: &Path,
    protocol: &str,
    lines: &[Line],
) -> Result<Vec<(usize, String)>, String> {
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let at = write_corpus(dir, protocol, lines)?;
    let wrong = run_node(root, protocol, dir)?;
    Ok(wrong
        .into_iter()
        .filter_map(|(k, said)| at.get(&k).map(|&i| (i, said)))
        .collect())
}

/// Generates `per_kind` inputs for every kind of the agent and Agent Connect protocols and of
/// the documents app's composed tables from `seed`, runs them through Rust, Zod and ajv, and
/// minimises the first disagreement of each protocol.
pub fn run(seed: u64, per_kind: usize, dir: &Path) -> Result<DiffReport, String> {
    let root = seeds::root();
    let all = seeds::load()?;
    let dict = crate::dict(&all);
    let mut rng = Rng::new(seed);
    let mut report = DiffReport::default();
    for protocol in ["agent", "connect", "documents"] {
        let started = std::time::Instant::now();
        let mut groups: BTreeMap<String, Vec<Seed>> = BTreeMap::new();
        for s in all.iter().filter(|s| s.target.protocol == protocol) {
            groups
                .entry(s.target.kind.clone())
                .or_default()
                .push(s.clone());
        }
        let mut lines = Vec::new();
        for (kind, group) in &groups {
            for _ in 0..per_kind {
                let (target, text) = crate::generate(&mut rng, &dict, group);
                let Some(verdict) = rust_verdict(&target, &text) else {
                    continue;
                };
                lines.push(Line {
                    target,
                    text,
                    verdict,
                });
            }
            report.inputs.insert(format!("{protocol} {kind}"), per_kind);
        }
        let pdir = dir.join(protocol);
        let generated = started.elapsed();
        let wrong = disagreeing(&root, &pdir, protocol, &lines)?;
        eprintln!(
            "differential: {protocol}: {} inputs made and judged by Rust in {:.1} s, by Zod and ajv in {:.1} s",
            lines.len(),
            generated.as_secs_f64(),
            (started.elapsed() - generated).as_secs_f64()
        );
        if let Some((i, said)) = wrong.first() {
            let first = lines[*i].clone();
            let (small, said) = shrink(&root, &pdir, protocol, first, said.clone())?;
            report.disagreements.push((small.target, small.text, said));
        }
        if wrong.len() > 1 {
            eprintln!(
                "differential: {protocol}: {} inputs disagree; the first is minimised",
                wrong.len()
            );
        }
    }
    Ok(report)
}

/// Minimises a disagreeing input across the languages: each round runs every candidate one
/// step simpler through node and keeps the shortest that still disagrees.
pub fn shrink(
    root: &Path,
    dir: &Path,
    protocol: &str,
    mut line: Line,
    mut said: String,
) -> Result<(Line, String), String> {
    for _ in 0..20 {
        let mut batch: Vec<Line> = Vec::new();
        for text in minimize::candidates(&line.text).into_iter().take(400) {
            if let Some(verdict) = rust_verdict(&line.target, &text) {
                batch.push(Line {
                    target: line.target.clone(),
                    text,
                    verdict,
                });
            }
        }
        let wrong = disagreeing(root, dir, protocol, &batch)?;
        let Some((i, s)) = wrong.into_iter().min_by_key(|(i, _)| batch[*i].text.len()) else {
            break;
        };
        line = batch[i].clone();
        said = s;
    }
    Ok((line, said))
}

/// A fresh seed: the clock's nanoseconds mixed with the process id.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    Rng::new(nanos ^ ((std::process::id() as u64) << 32)).next_u64()
}

/// The target directory: `CARGO_TARGET_DIR`, or the workspace's `target`.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| seeds::root().join("target"))
}

/// Where a differential run writes its corpora: under the target directory.
pub fn scratch_dir() -> PathBuf {
    target_dir().join("fuzz-differential")
}
