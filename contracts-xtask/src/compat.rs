//! `cargo xtask compat`: compare the schema at a git revision with the working tree.
//!
//! ```text
//! cargo xtask compat [--base REV] [--schema [NAME=]DIR]... [--base-protocol NAME=DIR]...
//!                    [--format text|json] [--acknowledged FILE]
//! cargo xtask compat --bless [--schema [NAME=]DIR]...
//! ```
//!
//! Every `.contract` file of each schema directory is read at REV (`git ls-tree`, `git show`) and
//! in the working tree, both are loaded, and `compat::diff` judges the difference. A directory
//! that does not exist at REV is new: everything in it is compatible. One that exists at REV and
//! not in the working tree (deleted or renamed) is a removed protocol, a breaking finding: the
//! directories checked by default are those of the working tree and of the base together.
//! A protocol is named after its directory unless `NAME=` says otherwise (an app's `schema/`).
//!
//! Without `--base`, the base is, in order:
//! 1. the published contracts in `schema/compat-baseline.json`, a snapshot of every schema file
//!    written by `cargo xtask compat --bless` at a release: it needs no git history, so it works
//!    on any clone, shallow ones included;
//! 2. the revision named in `schema/compat-baseline` (first line that is not a `#` comment);
//! 3. the merge base of `HEAD` and `origin/main`, when `origin/main` exists;
//! 4. `HEAD` (only uncommitted changes are checked).
//!
//! Exit codes: 0 compatible, 1 a finding breaks, 2 usage, git or schema errors.

use contracts_codegen::analysis::Checked;
use contracts_codegen::compat::{self, Report, ack, render};
use contracts_codegen::load::{LoadOptions, load_dir, load_files};
use contracts_codegen::model::{Model, SourceFile};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;

/// The published contracts: a snapshot of every schema file, written by `--bless`.
pub const SNAPSHOT_FILE: &str = "schema/compat-baseline.json";
/// The committed baseline: a file naming the revision to compare with.
pub const BASELINE_FILE: &str = "schema/compat-baseline";
/// The acknowledged-breaks list.
pub const ACK_FILE: &str = "schema/compat-acknowledged.json";
/// The branch whose merge base is the default when no baseline is committed.
pub const MAIN_REF: &str = "origin/main";

#[derive(clap::Args, Debug, Default)]
pub struct Args {
    /// The git revision to compare with (default: the published `schema/compat-baseline.json`,
    /// else the revision named in `schema/compat-baseline`, else the merge base with
    /// origin/main, else HEAD).
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// A schema directory to check, as `DIR` or `NAME=DIR` when the protocol is not named after
    /// its directory (an app's `documents=examples/documents-app/schema`); repeatable (default:
    /// every directory under `schema/`, in the working tree or at the base).
    #[arg(long = "schema", value_name = "[NAME=]DIR")]
    pub schemas: Vec<String>,
    /// A protocol the checked schema builds on, as `NAME=DIR` (an app's `agent=schema/agent`).
    /// It is read at the base revision too when it exists there.
    #[arg(long = "base-protocol", value_name = "NAME=DIR")]
    pub base_protocols: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The acknowledged-breaks file (default: `schema/compat-acknowledged.json` when present).
    #[arg(long, value_name = "FILE")]
    pub acknowledged: Option<PathBuf>,
    /// Publish the working tree's schema as the new baseline (`schema/compat-baseline.json`)
    /// and check nothing. Run it at a release.
    #[arg(long)]
    pub bless: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// The revision compared with, and why it was chosen.
#[derive(Clone, Debug)]
pub struct Base {
    pub rev: String,
    pub commit: String,
    pub why: String,
    /// The published snapshot's files (path from the root -> text), when the base is the
    /// snapshot rather than a git revision.
    pub snapshot: Option<std::collections::BTreeMap<String, String>>,
}

/// What a check produced.
pub struct Outcome {
    pub base: Base,
    pub report: Report,
    /// The working tree's files, for the source lines under each finding.
    pub files: Vec<SourceFile>,
    pub ack_file: String,
}

pub fn run(root: &Path, args: Args) -> ExitCode {
    if args.bless {
        return match bless(root, &args.schemas) {
            Ok(n) => {
                eprintln!("compat: published {n} schema files as the baseline in {SNAPSHOT_FILE}");
                ExitCode::SUCCESS
            }
            Err(msg) => {
                eprintln!("{msg}");
                ExitCode::from(2)
            }
        };
    }
    let format = args.format;
    match check(root, &args) {
        Ok(out) => {
            print(&out, format);
            if out.report.is_breaking() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(msg) => {
            if format == Format::Json {
                let v = serde_json::json!({ "error": msg });
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            }
            eprintln!("{msg}");
            ExitCode::from(2)
        }
    }
}

fn print(out: &Outcome, format: Format) {
    match format {
        Format::Text => {
            eprintln!(
                "compat: comparing with {} ({}, {})",
                out.base.rev,
                short(&out.base.commit),
                out.base.why
            );
            print!("{}", render::text(&out.report, &out.files, &out.ack_file));
        }
        Format::Json => {
            let mut v = render::json(&out.report);
            v["base"] = serde_json::json!({
                "rev": out.base.rev, "commit": out.base.commit, "why": out.base.why,
            });
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
    }
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

/// Run the whole check; `Err` is a usage, git or schema error (exit 2).
pub fn check(root: &Path, args: &Args) -> Result<Outcome, String> {
    let base = resolve_base(root, args.base.as_deref())?;
    let targets = targets(root, &base, &args.schemas)?;
    let mut bases_head: Vec<Arc<Model>> = Vec::new();
    let mut bases_rev: Vec<Arc<Model>> = Vec::new();
    for spec in &args.base_protocols {
        let Some((name, dir)) = spec.split_once('=') else {
            return Err(format!(
                "compat: --base-protocol wants NAME=DIR, got `{spec}`"
            ));
        };
        if let Some(outside) = outside(root, Path::new(dir)) {
            // A base the project depends on (the runtime's published schema): one version of
            // it, read from disk, serves both sides; only the project's own change is judged.
            let options = LoadOptions {
                name: Some(name.to_owned()),
                bases: bases_head.clone(),
                display_root: Some(root.to_path_buf()),
            };
            let model = Arc::new(load_dir(&outside, &options).map_err(|e| e.render())?);
            bases_head.push(model.clone());
            bases_rev.push(model);
            continue;
        }
        let rel = relative(root, Path::new(dir))?;
        if !root.join(&rel).is_dir() {
            return Err(format!(
                "compat: the base protocol `{name}` has no directory {rel} in the working tree"
            ));
        }
        let head = load_tree(root, name, &rel, &bases_head)?;
        let rev_files = base_files(root, &base, &rel)?;
        // A base protocol missing at REV is taken from the working tree: the app is what changed.
        let old = if rev_files.is_empty() {
            head.clone()
        } else {
            let at = format!("{} ({})", base.rev, short(&base.commit));
            load(name, rev_files, &bases_rev, &at)?
        };
        bases_head.push(Arc::new(head));
        bases_rev.push(Arc::new(old));
    }
    let mut results = Vec::new();
    let mut files = Vec::new();
    for Target { name, rel } in &targets {
        let empty = || Model {
            name: name.clone(),
            ..Model::default()
        };
        // A directory gone from the working tree is an empty protocol: the differ reports it
        // removed.
        let head = if root.join(rel).is_dir() {
            load_tree(root, name, rel, &bases_head)?
        } else {
            Model {
                bases: bases_head.clone(),
                ..empty()
            }
        };
        let old_files = base_files(root, &base, rel)?;
        let old = if old_files.is_empty() {
            // The directory is new at head: everything in it is new, and compatible.
            Model {
                bases: bases_rev.clone(),
                ..empty()
            }
        } else {
            let at = format!("{} ({})", base.rev, short(&base.commit));
            load(name, old_files, &bases_rev, &at)?
        };
        let (old, head) = (Checked::new(old), Checked::new(head));
        results.push((name.clone(), compat::diff(&old, &head)));
        files.extend(head.files.iter().cloned());
    }
    let (acks, ack_file) = read_acks(root, args.acknowledged.as_deref())?;
    let report = compat::acknowledge(results, &acks);
    Ok(Outcome {
        base,
        report,
        files,
        ack_file,
    })
}

/// One protocol to check: its name and its directory relative to the root.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Target {
    name: String,
    rel: String,
}

/// The protocols to check: the given `[NAME=]DIR`s, or every directory under `schema/` in the
/// working tree or at the base (a directory deleted or renamed since the base is checked too).
fn targets(root: &Path, base: &Base, given: &[String]) -> Result<Vec<Target>, String> {
    let mut out = Vec::new();
    for spec in given {
        let (name, dir) = match spec.split_once('=') {
            Some((n, d)) => (Some(n.to_string()), d),
            None => (None, spec.as_str()),
        };
        let rel = relative(root, Path::new(dir))?;
        if !root.join(&rel).is_dir() && base_files(root, base, &rel)?.is_empty() {
            return Err(format!(
                "compat: {dir}: no schema directory there, in the working tree or at {}",
                base.rev
            ));
        }
        out.push(Target {
            name: protocol_name(name, &rel)?,
            rel,
        });
    }
    if !given.is_empty() {
        return Ok(out);
    }
    let mut dirs = schema_dirs(root, &[])?;
    dirs.extend(base_dirs(root, base)?);
    dirs.sort();
    dirs.dedup();
    if dirs.is_empty() {
        return Err("compat: no schema directories under schema/, here or at the base".into());
    }
    dirs.into_iter()
        .map(|rel| {
            Ok(Target {
                name: protocol_name(None, &rel)?,
                rel,
            })
        })
        .collect()
}

/// The protocol's name: the one given, else its directory's. A directory called `schema` (an
/// app's) names no protocol: the caller must.
fn protocol_name(given: Option<String>, rel: &str) -> Result<String, String> {
    if let Some(n) = given {
        return Ok(n);
    }
    let last = rel.rsplit('/').next().unwrap_or(rel);
    if last == "schema" {
        return Err(format!(
            "compat: the directory {rel} does not name its protocol; give it: --schema NAME={rel}"
        ));
    }
    Ok(last.to_string())
}

/// The directories under `schema/` at the base (the snapshot's or the revision's) that hold a
/// `.contract` file.
fn base_dirs(root: &Path, base: &Base) -> Result<Vec<String>, String> {
    let paths: Vec<String> = match &base.snapshot {
        Some(files) => files.keys().cloned().collect(),
        None => git(
            root,
            &["ls-tree", "-r", "--name-only", &base.commit, "--", "schema"],
        )?
        .lines()
        .map(str::to_string)
        .collect(),
    };
    let mut out: Vec<String> = paths
        .iter()
        .filter(|p| p.ends_with(".contract"))
        .filter_map(|p| {
            let mut parts = p.split('/');
            match (parts.next(), parts.next(), parts.next()) {
                (Some("schema"), Some(dir), Some(_)) => Some(format!("schema/{dir}")),
                _ => None,
            }
        })
        .collect();
    out.dedup();
    Ok(out)
}

/// The revision to compare with: `--base`, the committed baseline, the merge base with
/// `origin/main`, or `HEAD`.
pub fn resolve_base(root: &Path, given: Option<&str>) -> Result<Base, String> {
    if given.is_none()
        && let Ok(text) = std::fs::read_to_string(root.join(SNAPSHOT_FILE))
    {
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("compat: {SNAPSHOT_FILE} is not JSON: {e}"))?;
        let files = v["files"]
            .as_object()
            .ok_or_else(|| format!("compat: {SNAPSHOT_FILE} has no \"files\" object"))?
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
            .collect();
        return Ok(Base {
            rev: "the published baseline".into(),
            commit: "snapshot".into(),
            why: SNAPSHOT_FILE.into(),
            snapshot: Some(files),
        });
    }
    let (rev, why) = match given {
        Some(rev) => (rev.to_string(), "--base".to_string()),
        None => default_base(root)?,
    };
    let commit = git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|_| unknown_revision(root, &rev, &why))?;
    Ok(Base {
        rev,
        commit: commit.trim().to_string(),
        why,
        snapshot: None,
    })
}

/// Why `rev` does not resolve, and what to do: a repository without a commit has no earlier
/// schema at all (commit it, or bless a baseline); a shallow or partial clone lacks history.
fn unknown_revision(root: &Path, rev: &str, why: &str) -> String {
    if git(root, &["rev-parse", "--is-inside-work-tree"]).is_err() {
        return format!(
            "compat: {} is not in a git repository, so there is no earlier schema to compare \
             with; commit the schema in git, or write a baseline with `compat --bless`",
            root.display()
        );
    }
    let commits = git(root, &["rev-list", "-n", "1", "--all"]).unwrap_or_default();
    if commits.trim().is_empty() {
        return format!(
            "compat: the repository has no commit yet, so there is no earlier schema to compare \
             with (`{rev}`, from {why}); commit the schema first (that commit is the base of the \
             next change), or write a baseline with `compat --bless`"
        );
    }
    format!(
        "compat: unknown revision `{rev}` (from {why}); fetch the history it needs \
         (in CI: a full clone, e.g. actions/checkout with fetch-depth: 0)"
    )
}

fn default_base(root: &Path) -> Result<(String, String), String> {
    if let Ok(text) = std::fs::read_to_string(root.join(BASELINE_FILE)) {
        let rev = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'));
        if let Some(rev) = rev {
            return Ok((rev.to_string(), BASELINE_FILE.to_string()));
        }
    }
    if git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{MAIN_REF}^{{commit}}"),
        ],
    )
    .is_ok()
    {
        let mb = git(root, &["merge-base", "HEAD", MAIN_REF])
            .map_err(|e| format!("compat: no merge base of HEAD and {MAIN_REF}: {e}"))?;
        return Ok((
            mb.trim().to_string(),
            format!("merge base of HEAD and {MAIN_REF}"),
        ));
    }
    Ok((
        "HEAD".to_string(),
        format!("no {BASELINE_FILE} and no {MAIN_REF}"),
    ))
}

/// The schema directories of the working tree, relative to the root with `/`: the given ones
/// (`[NAME=]DIR`), or every directory under `schema/`.
fn schema_dirs(root: &Path, given: &[String]) -> Result<Vec<String>, String> {
    if !given.is_empty() {
        return given
            .iter()
            .map(|d| {
                relative(
                    root,
                    Path::new(d.split_once('=').map_or(d.as_str(), |x| x.1)),
                )
            })
            .collect();
    }
    let mut out = Vec::new();
    let entries = std::fs::read_dir(root.join("schema"))
        .map_err(|e| format!("compat: cannot read schema/: {e}"))?;
    for e in entries.flatten() {
        if e.path().is_dir() {
            out.push(format!("schema/{}", e.file_name().to_string_lossy()));
        }
    }
    out.sort();
    Ok(out)
}

/// `dir`, absolute, when it is a directory outside the repository.
fn outside(root: &Path, dir: &Path) -> Option<PathBuf> {
    let abs = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        root.join(dir)
    };
    let abs = abs.canonicalize().ok()?;
    let root = root.canonicalize().ok()?;
    (!abs.starts_with(&root)).then_some(abs)
}

/// `dir` relative to the root, with `/` separators; it must lie inside the repository. It need
/// not exist (a deleted directory is checked against the base).
fn relative(root: &Path, dir: &Path) -> Result<String, String> {
    let abs = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| e.to_string())?
            .join(dir)
    };
    let abs = real_path(&abs).map_err(|e| format!("compat: {}: {e}", dir.display()))?;
    let root = root.canonicalize().map_err(|e| e.to_string())?;
    let rel = abs.strip_prefix(&root).map_err(|_| {
        format!(
            "compat: {} is outside the repository {}",
            dir.display(),
            root.display()
        )
    })?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        return Err(format!(
            "compat: {} is the repository root, not a schema directory",
            dir.display()
        ));
    }
    Ok(parts.join("/"))
}

/// `path` with symbolic links resolved as far as it exists, and `.` and `..` applied to the
/// rest.
fn real_path(path: &Path) -> std::io::Result<PathBuf> {
    use std::path::Component;
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut out = existing.canonicalize()?;
    for part in rest.iter().rev() {
        match Path::new(part).components().next() {
            Some(Component::ParentDir) => {
                out.pop();
            }
            Some(Component::CurDir) => {}
            _ => out.push(part),
        }
    }
    Ok(out)
}

/// Load the working tree's `rel` with `load_dir`, paths shown relative to the root.
fn load_tree(root: &Path, name: &str, rel: &str, bases: &[Arc<Model>]) -> Result<Model, String> {
    let opts = LoadOptions {
        name: Some(name.to_string()),
        bases: bases.to_vec(),
        display_root: Some(root.to_path_buf()),
    };
    load_dir(&root.join(rel), &opts)
        .map_err(|e| format!("compat: the schema `{name}` in the working tree has errors:\n{e}"))
}

/// Every `.contract` file under `rel` at the base: from the snapshot or from git.
fn base_files(root: &Path, base: &Base, rel: &str) -> Result<Vec<SourceFile>, String> {
    let Some(snapshot) = &base.snapshot else {
        return rev_files(root, &base.commit, rel);
    };
    let prefix = format!("{rel}/");
    Ok(snapshot
        .iter()
        .filter(|(path, _)| path.starts_with(&prefix))
        .map(|(path, text)| SourceFile {
            display: Arc::from(path.as_str()),
            absolute: root.join(path),
            text: text.clone(),
        })
        .collect())
}

/// Writes the working tree's schema files (every directory under `schema/`, or the given
/// ones) as the published baseline. Answers how many files it holds.
fn bless(root: &Path, given: &[String]) -> Result<usize, String> {
    // Directories not blessed now keep what was published for them.
    let dirs = schema_dirs(root, given)?;
    let mut files = std::fs::read_to_string(root.join(SNAPSHOT_FILE))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["files"].as_object().cloned())
        .unwrap_or_default();
    // Blessing everything publishes the working tree's directories only (a deleted one goes).
    let whole = if given.is_empty() {
        vec!["schema".to_string()]
    } else {
        dirs.clone()
    };
    files.retain(|path, _| !whole.iter().any(|d| path.starts_with(&format!("{d}/"))));
    for rel in dirs {
        // A directory deleted from the working tree is published deleted.
        let mut stack: Vec<PathBuf> = Some(root.join(&rel))
            .filter(|d| d.is_dir())
            .into_iter()
            .collect();
        while let Some(dir) = stack.pop() {
            let entries =
                std::fs::read_dir(&dir).map_err(|e| format!("compat: {}: {e}", dir.display()))?;
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|x| x == "contract") {
                    let text = std::fs::read_to_string(&path)
                        .map_err(|e| format!("compat: {}: {e}", path.display()))?;
                    let key = relative(root, &path)?;
                    files.insert(key, serde_json::Value::String(text));
                }
            }
        }
    }
    let n = files.len();
    let doc = serde_json::json!({
        "comment": "@generated by `cargo xtask compat --bless`: the published contracts that `cargo xtask compat` compares the working tree with. Bless again at a release.",
        "files": files,
    });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n";
    std::fs::write(root.join(SNAPSHOT_FILE), text)
        .map_err(|e| format!("compat: cannot write {SNAPSHOT_FILE}: {e}"))?;
    Ok(n)
}

/// Every `.contract` file under `rel` at `commit`; empty when the directory is not there.
fn rev_files(root: &Path, commit: &str, rel: &str) -> Result<Vec<SourceFile>, String> {
    let list = git(root, &["ls-tree", "-r", "--name-only", commit, "--", rel])?;
    let mut files = Vec::new();
    for path in list.lines().filter(|p| p.ends_with(".contract")) {
        // `ls-tree` lists a path only under `rel/`; a sibling like `rel-old/` is not matched.
        if !path.starts_with(&format!("{rel}/")) {
            continue;
        }
        let text = git(root, &["show", &format!("{commit}:./{path}")])?;
        files.push(SourceFile {
            display: Arc::from(path),
            absolute: root.join(path),
            text,
        });
    }
    files.sort_by(|a, b| a.display.cmp(&b.display));
    Ok(files)
}

/// Load one protocol from files in memory; a schema error is rendered with its places.
fn load(
    name: &str,
    files: Vec<SourceFile>,
    bases: &[Arc<Model>],
    at: &str,
) -> Result<Model, String> {
    let opts = LoadOptions {
        bases: bases.to_vec(),
        ..LoadOptions::default()
    };
    load_files(name, files, &opts)
        .map_err(|e| format!("compat: the schema `{name}` in {at} has errors:\n{e}"))
}

fn read_acks(root: &Path, given: Option<&Path>) -> Result<(Vec<ack::Ack>, String), String> {
    let path = match given {
        Some(p) => p.to_path_buf(),
        None => root.join(ACK_FILE),
    };
    let shown = path
        .strip_prefix(root)
        .unwrap_or(&path)
        .display()
        .to_string();
    if given.is_none() && !path.exists() {
        return Ok((Vec::new(), shown));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| format!("compat: {shown}: {e}"))?;
    let acks = ack::parse_acks(&text).map_err(|e| format!("compat: {shown}: {e}"))?;
    Ok((acks, shown))
}

/// Run git in the root; `Err` carries its stderr.
fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| format!("compat: cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    //! The command on throwaway git repositories.

    use super::*;

    const V1: &str = "enum State { \"idle\", \"running\" }\nstruct Status { state: State }\nevents {\n    \"status\": Status,\n}\n";

    /// A fresh repository with `files` committed; returns its root.
    fn repo(tag: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-compat-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_default();
        for args in [
            &["init", "-q", "-b", "main"][..],
            &["config", "user.email", "t@t"],
            &["config", "user.name", "t"],
        ] {
            git(&dir, args).unwrap_or_default();
        }
        write(&dir, files);
        git(&dir, &["add", "-A"]).unwrap_or_default();
        git(&dir, &["commit", "-q", "--allow-empty", "-m", "v1"]).unwrap_or_default();
        dir
    }

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let p = root.join(path);
            if let Some(d) = p.parent() {
                std::fs::create_dir_all(d).unwrap_or_default();
            }
            std::fs::write(p, text).unwrap_or_default();
        }
    }

    fn args(base: Option<&str>) -> Args {
        Args {
            base: base.map(str::to_string),
            ..Args::default()
        }
    }

    #[test]
    fn a_breaking_change_against_head_is_reported_with_its_place() {
        let root = repo("breaking", &[("schema/demo/api.contract", V1)]);
        write(
            &root,
            &[(
                "schema/demo/api.contract",
                &V1.replace("\"running\" }", "\"running\", \"waiting\" }"),
            )],
        );
        let out = check(&root, &args(None)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.base.rev, "HEAD");
        assert!(out.report.is_breaking());
        let text = render::text(&out.report, &out.files, &out.ack_file);
        assert!(text.contains("error[enum-value-added]"), "{text}");
        assert!(text.contains("--> schema/demo/api.contract:1:"), "{text}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_directory_missing_at_the_base_is_new_and_compatible() {
        let root = repo("new", &[("README", "x")]);
        write(&root, &[("schema/demo/api.contract", V1)]);
        let out = check(&root, &args(Some("HEAD"))).unwrap_or_else(|e| panic!("{e}"));
        assert!(!out.report.is_breaking());
        assert!(
            out.report
                .items
                .iter()
                .any(|r| r.finding.rule.id == "event-added")
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn acknowledged_breaks_pass_and_stale_entries_are_reported() {
        let ack = r#"{ "acknowledged": [
            { "rule": "enum-value-added", "subject": "State.\"waiting\"", "reason": "no client yet" },
            { "rule": "field-removed", "subject": "Status.gone", "reason": "old" }
        ] }"#;
        let root = repo("ack", &[("schema/demo/api.contract", V1), (ACK_FILE, ack)]);
        write(
            &root,
            &[(
                "schema/demo/api.contract",
                &V1.replace("\"running\" }", "\"running\", \"waiting\" }"),
            )],
        );
        let out = check(&root, &args(Some("HEAD"))).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !out.report.is_breaking(),
            "{}",
            render::text(&out.report, &out.files, &out.ack_file)
        );
        assert_eq!(out.report.acknowledged(), 1);
        assert_eq!(out.report.stale.len(), 1);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn the_published_snapshot_is_the_default_and_needs_no_history() {
        let root = repo("snapshot", &[("schema/demo/api.contract", V1)]);
        bless(&root, &[]).unwrap_or_else(|e| panic!("{e}"));
        // No git revision is read: the snapshot holds the published files.
        let out = check(&root, &args(None)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.base.why, SNAPSHOT_FILE);
        assert!(out.report.items.is_empty());
        write(
            &root,
            &[(
                "schema/demo/api.contract",
                &V1.replace("\"idle\"", "\"idle\", \"paused\""),
            )],
        );
        let out = check(&root, &args(None)).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            out.report.is_breaking(),
            "a new value of an enum that travels out breaks"
        );
        // Blessing one directory keeps what was published for the others.
        write(&root, &[("schema/other/x.contract", V1)]);
        bless(&root, &[root.join("schema/other").display().to_string()])
            .unwrap_or_else(|e| panic!("{e}"));
        let published = std::fs::read_to_string(root.join(SNAPSHOT_FILE)).unwrap_or_default();
        assert!(
            published.contains("schema/demo/api.contract"),
            "{published}"
        );
        assert!(published.contains("schema/other/x.contract"), "{published}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn the_committed_baseline_is_the_default_and_unknown_revisions_are_usage_errors() {
        let root = repo(
            "baseline",
            &[
                ("schema/demo/api.contract", V1),
                (BASELINE_FILE, "# a comment\nv9\n"),
            ],
        );
        let err = check(&root, &args(None)).err().unwrap_or_default();
        assert!(
            err.contains("unknown revision `v9`") && err.contains(BASELINE_FILE),
            "{err}"
        );
        git(&root, &["tag", "v9"]).unwrap_or_default();
        let out = check(&root, &args(None)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.base.why, BASELINE_FILE);
        assert!(out.report.items.is_empty());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn an_app_is_checked_against_its_base_protocol() {
        let app = "use demo::State;\nstruct Note { state: State }\nrequests {\n    \"note.add\": Note -> Note,\n}\n";
        let root = repo(
            "app",
            &[
                ("schema/demo/api.contract", V1),
                ("app/schema/note.contract", app),
            ],
        );
        let more = V1.replace("\"running\" }", "\"running\", \"waiting\" }");
        write(&root, &[("schema/demo/api.contract", &more)]);
        let a = Args {
            base: Some("HEAD".into()),
            schemas: vec![format!("note={}", root.join("app/schema").display())],
            base_protocols: vec![format!("demo={}", root.join("schema/demo").display())],
            ..Args::default()
        };
        let out = check(&root, &a).unwrap_or_else(|e| panic!("{e}"));
        // `State` travels both ways in the app (a request payload and its result).
        let f: Vec<_> = out
            .report
            .items
            .iter()
            .map(|r| (r.protocol.as_str(), r.finding.rule.id))
            .collect();
        // Named by the protocol's name, not by its directory `schema`.
        assert_eq!(f, vec![("note", "enum-value-added")]);
        assert!(out.report.is_breaking());
        // Without a name, a directory called `schema` names no protocol: a usage error.
        let unnamed = Args {
            schemas: vec![root.join("app/schema").display().to_string()],
            ..a
        };
        let err = check(&root, &unnamed).err().unwrap_or_default();
        assert!(err.contains("--schema NAME=app/schema"), "{err}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn an_app_check_judges_the_base_tables_its_package_exposes_and_refuses_a_collision() {
        let demo = format!("{V1}requests {{\n    \"demo.get\": {{}} -> Status,\n}}\n");
        let app = "use demo::State;\nstruct Note { state: State }\nrequests {\n    \"note.add\": Note -> Note,\n}\n";
        let root = repo(
            "app-tables",
            &[
                ("schema/demo/api.contract", &demo),
                ("app/schema/note.contract", app),
            ],
        );
        let a = Args {
            base: Some("HEAD".into()),
            schemas: vec![format!("note={}", root.join("app/schema").display())],
            base_protocols: vec![format!("demo={}", root.join("schema/demo").display())],
            ..Args::default()
        };
        // The base's request is gone: the app's package, whose tables spread the base's,
        // loses it too.
        write(&root, &[("schema/demo/api.contract", V1)]);
        let out = check(&root, &a).unwrap_or_else(|e| panic!("{e}"));
        let f: Vec<_> = out
            .report
            .items
            .iter()
            .map(|r| (r.finding.rule.id, r.finding.subject.as_str()))
            .collect();
        assert_eq!(f, vec![("request-removed", "demo::demo.get")]);
        assert!(out.report.is_breaking());
        // The base now declares a request the app declares: refused, with both places.
        let clash = format!("{V1}requests {{\n    \"note.add\": {{}} -> Status,\n}}\n");
        write(&root, &[("schema/demo/api.contract", &clash)]);
        let err = check(&root, &a).err().unwrap_or_default();
        assert!(
            err.contains("app/schema/note.contract:4:")
                && err.contains("already defined by the base protocol `demo`")
                && err.contains("schema/demo/api.contract:7:5: note: defined in `demo` here"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_deleted_or_renamed_directory_is_a_removed_protocol() {
        let root = repo("deleted", &[("schema/demo/api.contract", V1)]);
        bless(&root, &[]).unwrap_or_else(|e| panic!("{e}"));
        // Renamed: the new directory is new, the old one removed, against the published
        // baseline and against a revision.
        std::fs::rename(root.join("schema/demo"), root.join("schema/demo2"))
            .unwrap_or_else(|e| panic!("{e}"));
        for base in [None, Some("HEAD")] {
            let out = check(&root, &args(base)).unwrap_or_else(|e| panic!("{e}"));
            let removed: Vec<_> = out
                .report
                .items
                .iter()
                .filter(|r| r.breaks())
                .map(|r| {
                    (
                        r.protocol.as_str(),
                        r.finding.rule.id,
                        r.finding.loc.to_string(),
                    )
                })
                .collect();
            assert_eq!(
                removed,
                vec![("demo", "protocol-removed", "schema:0:0".to_string())],
                "{base:?}"
            );
        }
        // Deleted, and named with --schema: a finding, not an I/O error.
        std::fs::remove_dir_all(root.join("schema/demo2")).unwrap_or_default();
        std::fs::create_dir_all(root.join("schema/other")).unwrap_or_default();
        write(&root, &[("schema/other/x.contract", V1)]);
        let a = Args {
            base: Some("HEAD".into()),
            schemas: vec![root.join("schema/demo").display().to_string()],
            ..Args::default()
        };
        let out = check(&root, &a).unwrap_or_else(|e| panic!("{e}"));
        assert!(out.report.is_breaking());
        assert_eq!(out.report.items[0].finding.rule.id, "protocol-removed");
        // A directory that is nowhere is a usage error saying so.
        let a = Args {
            schemas: vec![root.join("schema/nowhere").display().to_string()],
            ..a
        };
        let err = check(&root, &a).err().unwrap_or_default();
        assert!(err.contains("no schema directory there"), "{err}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_repository_without_a_commit_says_so() {
        let dir = std::env::temp_dir().join(format!("xtask-compat-empty-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_default();
        git(&dir, &["init", "-q", "-b", "main"]).unwrap_or_default();
        write(&dir, &[("schema/demo/api.contract", V1)]);
        let err = check(&dir, &args(None)).err().unwrap_or_default();
        assert!(err.contains("has no commit yet"), "{err}");
        assert!(!err.contains("fetch the history"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_schema_error_is_reported_with_its_place() {
        let root = repo("broken", &[("schema/demo/api.contract", V1)]);
        write(
            &root,
            &[(
                "schema/demo/api.contract",
                "struct Status { state: Nope }\n",
            )],
        );
        let err = check(&root, &args(Some("HEAD"))).err().unwrap_or_default();
        assert!(err.contains("schema/demo/api.contract:1:"), "{err}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
