//! `cargo xtask test-app`: the template app (`examples/notes-app`) as its users meet it, in a
//! directory outside this workspace, built against the packaged crates.
//!
//! 1. `cargo package` packages and verifies every published crate; the unpacked packages
//!    (`target/package/NAME-VERSION`) stand in for crates.io through a `[patch.crates-io]`
//!    written into the copy's `.cargo/config.toml`: no workspace path is used.
//! 2. The template is copied to a temporary directory, made a git repository with a release
//!    tag `v0.1.0`.
//! 3. There it runs the app's CI workflow (`.github/workflows/ci.yml`) step by step as
//!    written ([`crate::workflow`]): `cargo xtask codegen --check`, `cargo xtask compat` against
//!    the release tag, `cargo test`, the agent package packed from a stand-in checkout of this
//!    repository, the app's package packed, and the node client built and run against the
//!    app's host over a real socket, each installed by `npm ci` from the template's lock.
//! 4. Then `cargo xtask expand notes`, the app's `cargo xtask validate` (no validator of the
//!    app's: the library generates one over its tables), the reference's examples through
//!    Rust, Zod and ajv. Then it grows the schema: a new optional payload field passes compat
//!    and the app still builds and passes its tests; a new required payload field fails compat
//!    with exit 1 and the rule's id.
//!
//! `--update` first regenerates the template's generated files (its TypeScript package and
//! reference) with its own xtask in the copy, and copies them back with the app's `Cargo.lock`
//! (a file the app's codegen removed is removed from the template too);
//! later it writes the npm lock files and copies them back too.
//!
//! The guide's walk-through (`docs/guide/apps.md`) shows the template's files; [`readme_blocks`] checks they are
//! equal, so the two cannot drift.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The template, relative to the workspace root.
pub const TEMPLATE: &str = "examples/notes-app";

/// The published crates, in dependency order.
pub const PUBLISHED: &[&str] = &[
    "adecore-contracts-codegen",
    "adecore-contracts-macros",
    "adecore-contracts",
    "adecore-contracts-xtask",
];

/// A failed step: what was run, where, and what it printed.
type Step = Result<(), String>;

/// The directories of the template its own xtask generates, copied back by `--update` (with
/// the app's `Cargo.lock`).
const GENERATED: &[&str] = &["bindings", "docs"];

pub fn run(root: &Path, update: bool) -> Result<(), String> {
    run_all(root, update)?;
    eprintln!("test-app: the template app passed out of tree");
    Ok(())
}

fn run_all(root: &Path, update: bool) -> Step {
    // Cargo's target directory for this checkout: where `cargo package` leaves the packages.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let packages = package(root, &target)?;
    let app = copy_template(root)?;
    // The app builds in a target directory of its own (kept between runs under ours).
    eprintln!("test-app: the app is at {}", app.display());
    write_patch(&app, &packages)?;
    let app_target = target.join("notes-app");
    let cargo = |args: &[&str]| cargo_in(&app, &app_target, args);
    if update {
        // The template's generated files, made by its own xtask and copied back.
        expect(cargo(&["xtask", "codegen"]), 0, "codegen")?;
        for dir in GENERATED {
            let template = root.join(TEMPLATE).join(dir);
            // A generated file the app's codegen removed (its source gone) goes here too.
            remove_absent(&app.join(dir), &template)
                .map_err(|e| format!("removing {dir}'s removed files: {e}"))?;
            copy_dir(&app.join(dir), &template).map_err(|e| format!("copying {dir} back: {e}"))?;
        }
        // The lock file the build resolved, so the app's builds are repeatable.
        std::fs::copy(
            app.join("Cargo.lock"),
            root.join(TEMPLATE).join("Cargo.lock"),
        )
        .map_err(|e| format!("copying Cargo.lock back: {e}"))?;
        eprintln!("test-app: the template's generated files are updated");
    }
    git(&app, &["init", "-q", "-b", "main"])?;
    git(&app, &["add", "-A"])?;
    git(&app, &["commit", "-q", "-m", "notes app v0.1.0"])?;
    git(&app, &["tag", "v0.1.0"])?;

    if update {
        // The npm locks, written before the workflow's `npm ci` reads them.
        node::update_locks(root, &app, &root.join(TEMPLATE))?;
    }
    // The app's CI, step by step as its workflow file says: codegen --check, compat against
    // the release tag, cargo test, both packages packed and the node client against the host.
    crate::workflow::run(root, &app, &[("CARGO_TARGET_DIR", &app_target)])?;
    eprintln!("test-app: the app's workflow passed, every step as written");
    // What the app's protocol! writes, formatted: its types on the agent's module.
    let out = cargo(&["xtask", "expand", "notes"])?;
    if out.code != 0
        || !out.stdout.contains("pub struct NoteReadPayload {")
        || !out.stdout.contains("::contracts::agent::")
    {
        return Err(format!(
            "expand notes: expected exit 0 and the app's types on ::contracts::agent, got {}:\n{}",
            out.code, out.stderr
        ));
    }
    validate(&app, &app_target, root)?;
    examples_in_rust(&app, &app_target)?;
    node::examples_in_zod(root, &app)?;

    // A compatible change: a new optional payload field. The generated files follow, compat
    // passes, and the app's own code still builds.
    edit(
        &app,
        "schema/notes.contract",
        "\"note.write\": { id: NoteId, text: string }",
        "\"note.write\": { id: NoteId, text: string, pinned?: boolean }",
    )?;
    expect(cargo(&["xtask", "codegen"]), 0, "codegen")?;
    expect(
        cargo(&["xtask", "codegen", "--check"]),
        0,
        "codegen --check",
    )?;
    expect(
        cargo(&["xtask", "compat", "--base", "v0.1.0"]),
        0,
        "compat after a new optional field",
    )?;
    expect(
        cargo(&["test", "--quiet"]),
        0,
        "cargo test after a new optional field",
    )?;

    // A breaking change: a new required payload field fails with the rule's id.
    edit(
        &app,
        "schema/notes.contract",
        "\"note.read\": { id: NoteId }",
        "\"note.read\": { id: NoteId, folder: string }",
    )?;
    let out = cargo(&["xtask", "compat", "--base", "v0.1.0"])?;
    if out.code != 1 || !out.stdout.contains("field-added-required") {
        return Err(format!(
            "compat after a new required field: expected exit 1 naming field-added-required, got {}:\n{}{}",
            out.code, out.stdout, out.stderr
        ));
    }
    eprintln!("test-app: a new required field fails compat (exit 1, field-added-required)");
    git(&app, &["checkout", "-q", "--", "."])?;
    let _ = std::fs::remove_dir_all(app.parent().unwrap_or(&app));
    readme_blocks(root)
}

/// Packages and verifies the published crates; answers the unpacked package directories.
fn package(root: &Path, target: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let version = env!("CARGO_PKG_VERSION");
    let packaged = |p: &str| target.join("package").join(format!("{p}-{version}"));
    let (verified, stderr) = package_and_verify(root)?;
    // Cargo verifies a package against the others through a temporary registry whose crates
    // it unpacks under `$CARGO_HOME/registry/src/-HASH/NAME-VERSION`, and never unpacks one
    // again while that directory exists: a run at the same version as an earlier one verifies
    // the earlier sources (and may fail on them: this run's crate against an earlier macro).
    // The directories this run read are found in cargo's own output, whether it failed or not
    // (another checkout's target directory has a registry of its own, which is left alone:
    // its run may be reading it); when one holds other sources than this run packaged, it is
    // removed and the packages verified again.
    let mut found = stale_sources(&stderr, &packaged);
    let mut verified = verified;
    // A crate whose dependency failed to verify was never compiled, so its directory shows
    // only on a later pass: each pass removes what it found, and the passes are bounded.
    for _ in 0..=PUBLISHED.len() {
        if found.is_empty() {
            break;
        }
        for dir in &found {
            eprintln!(
                "test-app: {} holds an earlier run's sources: removed",
                dir.display()
            );
            std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let (again, stderr) = package_and_verify(root)?;
        verified = again;
        found = stale_sources(&stderr, &packaged);
    }
    if let Some(dir) = found.first() {
        return Err(format!(
            "cargo package verified {} again, not this run's sources",
            dir.display()
        ));
    }
    verified?;
    PUBLISHED
        .iter()
        .map(|p| {
            let dir = packaged(p);
            if dir.join("Cargo.toml").is_file() {
                Ok(((*p).to_owned(), dir))
            } else {
                Err(format!("cargo package left no {}", dir.display()))
            }
        })
        .collect()
}

/// The directories under cargo's temporary registries that hold other sources than this run
/// packaged: every published crate's directory in each registry the output names, compiled in
/// this pass or not (a crate after a failed one was not, and would fail the next pass).
fn stale_sources(stderr: &str, packaged: &dyn Fn(&str) -> PathBuf) -> Vec<PathBuf> {
    let version = env!("CARGO_PKG_VERSION");
    let mut registries: Vec<PathBuf> = Vec::new();
    for (_, dir) in unpacked_sources(stderr) {
        if let Some(parent) = dir.parent()
            && !registries.iter().any(|r| r == parent)
        {
            registries.push(parent.to_path_buf());
        }
    }
    let mut stale = Vec::new();
    for registry in &registries {
        for p in PUBLISHED {
            let dir = registry.join(format!("{p}-{version}"));
            if dir.is_dir() && !same_tree(&dir, &packaged(p)) {
                stale.push(dir);
            }
        }
    }
    stale
}

/// `cargo package` of the published crates, each verified by a build; answers whether they
/// were (or cargo's failure, its output's tail) and cargo's verbose output, which names every
/// source it compiled.
fn package_and_verify(root: &Path) -> Result<(Result<(), String>, String), String> {
    // Cargo takes a registry crate's build for fresh by its version alone, so the verify
    // builds of an earlier run (same version, other sources) are cleaned first.
    let mut clean = vec!["clean", "--quiet"];
    for p in PUBLISHED {
        clean.extend(["-p", p]);
    }
    let out = run_cmd(Command::new(cargo()).args(&clean).current_dir(root))?;
    if out.code != 0 {
        return Err(format!("cargo clean failed:\n{}", out.stderr));
    }
    let mut args = vec!["package", "--verbose"];
    for p in PUBLISHED {
        args.extend(["-p", p]);
    }
    // A checkout with local edits (a developer's) still tests what it has.
    args.push("--allow-dirty");
    let out = run_cmd(Command::new(cargo()).args(&args).current_dir(root))?;
    let verified = if out.code == 0 {
        Ok(())
    } else {
        let lines: Vec<&str> = out.stderr.lines().collect();
        let tail = &lines[lines.len().saturating_sub(40)..];
        Err(format!("cargo package failed:\n{}", tail.join("\n")))
    };
    Ok((verified, out.stderr))
}

/// The directories of the published crates that a verbose cargo run compiled from a local
/// registry (`.../registry/src/-HASH/NAME-VERSION/...`), by crate name.
fn unpacked_sources(stderr: &str) -> Vec<(String, PathBuf)> {
    let version = env!("CARGO_PKG_VERSION");
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    for word in stderr.split_whitespace() {
        let word = word.trim_matches(|c| c == '`' || c == '\'' || c == '"');
        let Some(at) = word.find("/registry/src/-") else {
            continue;
        };
        let rest = &word[at + "/registry/src/".len()..];
        // `-HASH/NAME-VERSION/...`
        let mut parts = rest.splitn(3, '/');
        let (Some(registry), Some(krate)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Some(name) = PUBLISHED.iter().find(|p| krate == format!("{p}-{version}")) else {
            continue;
        };
        let dir = PathBuf::from(format!("{}/registry/src/{registry}/{krate}", &word[..at]));
        if !out.iter().any(|(_, d)| *d == dir) {
            out.push(((*name).to_owned(), dir));
        }
    }
    out
}

/// Whether two directories hold the same files with the same contents (cargo's own marker
/// `.cargo-ok` and build outputs left aside).
fn same_tree(a: &Path, b: &Path) -> bool {
    fn files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name();
            if name == ".cargo-ok" || name == "target" {
                continue;
            }
            if path.is_dir() {
                files(root, &path, out);
            } else if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
    }
    let (mut fa, mut fb) = (Vec::new(), Vec::new());
    files(a, a, &mut fa);
    files(b, b, &mut fb);
    fa.sort();
    fb.sort();
    fa == fb
        && fa
            .iter()
            .all(|f| std::fs::read(a.join(f)).ok() == std::fs::read(b.join(f)).ok())
}

/// Copies the template, without build outputs, to a fresh temporary directory.
fn copy_template(root: &Path) -> Result<PathBuf, String> {
    let base = std::env::temp_dir().join(format!("contracts-test-app-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let app = base.join("notes-app");
    copy_dir(&root.join(TEMPLATE), &app).map_err(|e| format!("copying the template: {e}"))?;
    Ok(app)
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "target" || name == "node_modules" || name == "dist" || name == node::VENDOR {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if entry.file_type()?.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// Removes the files under `to` that `from` has not (what [`copy_dir`] copies: the copy was
/// made from `to`, so a file it lacks was removed there).
fn remove_absent(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(to)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "target" || name == "node_modules" || name == "dist" || name == node::VENDOR {
            continue;
        }
        let (src, dst) = (from.join(&name), entry.path());
        if entry.file_type()?.is_dir() {
            if src.is_dir() {
                remove_absent(&src, &dst)?;
            } else {
                eprintln!("test-app: {} removed", dst.display());
                std::fs::remove_dir_all(&dst)?;
            }
        } else if !src.exists() {
            eprintln!("test-app: {} removed", dst.display());
            std::fs::remove_file(&dst)?;
        }
    }
    Ok(())
}

/// Points crates.io's names of the published crates at their packages.
fn write_patch(app: &Path, packages: &[(String, PathBuf)]) -> Step {
    let config = app.join(".cargo/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap_or_default();
    text.push_str("\n# Written by the contracts repository's `cargo xtask test-app`: the packaged crates.\n[patch.crates-io]\n");
    for (name, dir) in packages {
        text.push_str(&format!(
            "{name} = {{ path = {:?} }}\n",
            dir.display().to_string()
        ));
    }
    std::fs::write(&config, text).map_err(|e| format!("{}: {e}", config.display()))
}

fn edit(app: &Path, file: &str, from: &str, to: &str) -> Step {
    let path = app.join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !text.contains(from) {
        return Err(format!("{file} no longer holds `{from}`: update test-app"));
    }
    std::fs::write(&path, text.replacen(from, to, 1)).map_err(|e| format!("{file}: {e}"))
}

/// What a command printed and how it ended.
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run_cmd(cmd: &mut Command) -> Result<Output, String> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| format!("{shown}: {e}"))?;
    Ok(Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Cargo in the app, as its developer runs it: nothing of this workspace's environment
/// (its target directory, its manifest) leaks in.
fn cargo_in(app: &Path, target: &Path, args: &[&str]) -> Result<Output, String> {
    eprintln!("test-app: cargo {}", args.join(" "));
    run_cmd(&mut app_cargo(app, target, args))
}

fn app_cargo(app: &Path, target: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(cargo());
    cmd.args(args)
        .current_dir(app)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("RUSTFLAGS");
    cmd
}

/// The refusal `validate` gives the guide's example line, as the guide shows it.
/// The guide that walks through the template app, file by file (a page of the site too).
pub const GUIDE: &str = "docs/guide/apps.md";

pub const EXAMPLE_REFUSAL: &str = r#"{"ok":false,"stage":"table","message":"✖ Too small: expected string to have >=1 characters\n  → at id"}"#;

/// The app's `validate`, with no validator of the app's: an app request, an invalid one (the
/// the guide's example) and an agent request, one verdict each over the composed tables; an
/// unknown `--type` is a usage error (exit 2) that names it.
fn validate(app: &Path, target: &Path, root: &Path) -> Step {
    let input = concat!(
        r#"{"id":"1","type":"note.write","payload":{"id":"n1","text":"milk"}}"#,
        "\n",
        r#"{"id":"1","type":"note.read","payload":{"id":""}}"#,
        "\n",
        r#"{"id":"2","type":"chat.list","payload":{}}"#,
        "\n",
    );
    let out = cargo_with_stdin(
        app,
        target,
        &["xtask", "validate", "--as", "request"],
        input,
    )?;
    let lines: Vec<&str> = out.stdout.lines().collect();
    let expected = [r#"{"ok":true}"#, EXAMPLE_REFUSAL, r#"{"ok":true}"#];
    if out.code != 0 || lines != expected {
        return Err(format!(
            "validate --as request: expected exit 0 and {expected:#?}, got {}:\n{}{}",
            out.code, out.stdout, out.stderr
        ));
    }
    let readme = std::fs::read_to_string(root.join(GUIDE)).map_err(|e| e.to_string())?;
    if !readme.contains(EXAMPLE_REFUSAL) {
        return Err(format!(
            "{GUIDE} does not show validate's verdict on its example: {EXAMPLE_REFUSAL}"
        ));
    }
    let out = cargo_with_stdin(
        app,
        target,
        &[
            "xtask",
            "validate",
            "--as",
            "payload",
            "--type",
            "note.nope",
        ],
        "{}\n",
    )?;
    if out.code != 2
        || !out
            .stderr
            .contains(r#"no table entry is called "note.nope""#)
    {
        return Err(format!(
            "validate --type note.nope: expected exit 2 naming it, got {}:\n{}{}",
            out.code, out.stdout, out.stderr
        ));
    }
    eprintln!(
        "test-app: validate judges over the composed tables (a refusal, exit 2 for an unknown type)"
    );
    Ok(())
}

/// The examples the app's reference shows, a corpus file the app's xtask writes beside it.
pub const EXAMPLES: &str = "docs/notes-examples.jsonl";

/// A corpus line's `as` and `type`: how `validate` is told to read it.
type Kind = (String, Option<String>);

/// One line of the examples file.
struct Example {
    kind: Kind,
    /// The input's text.
    text: String,
    ok: bool,
}

/// The lines of the examples file.
fn example_lines(app: &Path) -> Result<Vec<Example>, String> {
    let path = app.join(EXAMPLES);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, raw) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let place = format!("{EXAMPLES}:{}", i + 1);
        let v: serde_json::Value =
            serde_json::from_str(raw).map_err(|e| format!("{place}: {e}"))?;
        let text = match (v.get("raw").and_then(|r| r.as_str()), v.get("input")) {
            (Some(raw), _) => raw.to_owned(),
            (None, Some(input)) => input.to_string(),
            _ => return Err(format!("{place}: neither raw nor input")),
        };
        let kind = v["as"].as_str().ok_or(format!("{place}: no \"as\""))?;
        let ty = v.get("type").and_then(|t| t.as_str()).map(str::to_owned);
        out.push(Example {
            kind: (kind.to_owned(), ty),
            text,
            ok: v["ok"].as_bool() == Some(true),
        });
    }
    if out.is_empty() {
        return Err(format!("{EXAMPLES} has no examples"));
    }
    Ok(out)
}

/// Every example of the app's reference through the app's `validate` (the Rust verdict over
/// its tables), each kind and type in one run: each is accepted.
fn examples_in_rust(app: &Path, target: &Path) -> Step {
    let lines = example_lines(app)?;
    let mut groups: Vec<(&Kind, Vec<&Example>)> = Vec::new();
    for l in &lines {
        match groups.iter_mut().find(|(k, _)| **k == l.kind) {
            Some((_, g)) => g.push(l),
            None => groups.push((&l.kind, vec![l])),
        }
    }
    for ((kind, ty), group) in groups.iter().map(|(k, g)| (*k, g)) {
        let mut args = vec!["xtask", "validate", "--as", kind.as_str()];
        if let Some(t) = ty {
            args.extend(["--type", t.as_str()]);
        }
        let input: String = group.iter().map(|l| format!("{}\n", l.text)).collect();
        let out = cargo_with_stdin(app, target, &args, &input)?;
        let verdicts: Vec<&str> = out.stdout.lines().collect();
        let agree = verdicts.len() == group.len()
            && group
                .iter()
                .zip(&verdicts)
                .all(|(l, v)| v.starts_with(r#"{"ok":true}"#) == l.ok);
        if out.code != 0 || !agree {
            return Err(format!(
                "the reference's examples as {kind} {}: expected each line's verdict, got exit {}:\n{}{}",
                ty.as_deref().unwrap_or(""),
                out.code,
                out.stdout,
                out.stderr
            ));
        }
    }
    eprintln!(
        "test-app: the reference's {} examples pass the app's validate",
        lines.len()
    );
    Ok(())
}

/// Cargo in the app with `input` on its stdin.
fn cargo_with_stdin(
    app: &Path,
    target: &Path,
    args: &[&str],
    input: &str,
) -> Result<Output, String> {
    use std::io::Write as _;
    use std::process::Stdio;
    eprintln!("test-app: cargo {}", args.join(" "));
    let mut cmd = app_cargo(app, target, args);
    let shown = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{shown}: {e}"))?;
    // A usage error may exit before reading: a broken pipe here is expected.
    let _ = child
        .stdin
        .take()
        .map(|mut s| s.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{shown}: {e}"))?;
    Ok(Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

fn expect(out: Result<Output, String>, code: i32, what: &str) -> Step {
    let out = out?;
    if out.code == code {
        return Ok(());
    }
    Err(format!(
        "{what}: expected exit {code}, got {}:\n{}{}",
        out.code, out.stdout, out.stderr
    ))
}

fn git(dir: &Path, args: &[&str]) -> Step {
    let out = run_cmd(
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "test-app")
            .env("GIT_AUTHOR_EMAIL", "test-app@localhost")
            .env("GIT_COMMITTER_NAME", "test-app")
            .env("GIT_COMMITTER_EMAIL", "test-app@localhost"),
    )?;
    if out.code != 0 {
        return Err(format!("git {}: {}", args.join(" "), out.stderr));
    }
    Ok(())
}

/// Checks that every block of the guide marked `<!-- file: PATH -->` is the template's file.
pub fn readme_blocks(root: &Path) -> Step {
    let readme = std::fs::read_to_string(root.join(GUIDE)).map_err(|e| e.to_string())?;
    let mut checked = 0;
    let mut lines = readme.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let Some(path) = line
            .trim()
            .strip_prefix("<!-- file: ")
            .and_then(|r| r.strip_suffix(" -->"))
        else {
            continue;
        };
        let fence = lines.next().map(|(_, l)| l).unwrap_or_default();
        if !fence.starts_with("```") {
            return Err(format!(
                "{GUIDE}:{}: a file marker must precede a code block",
                n + 1
            ));
        }
        let mut block = String::new();
        for (_, l) in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            block.push_str(l);
            block.push('\n');
        }
        let file = root.join(TEMPLATE).join(path);
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("{GUIDE}:{}: {}: {e}", n + 1, file.display()))?;
        if text != block {
            return Err(format!(
                "{GUIDE}:{}: the block differs from {TEMPLATE}/{path}; copy the file into the guide",
                n + 1
            ));
        }
        checked += 1;
    }
    if checked == 0 {
        return Err(format!(
            "{GUIDE} shows none of the template's files (<!-- file: PATH -->)"
        ));
    }
    eprintln!("test-app: the guide's {checked} app files are the template's");
    Ok(())
}

pub mod node {
    //! The app's TypeScript side beyond its workflow: the npm locks `--update` writes, and the
    //! reference's examples through the app's Zod schemas and JSON Schema.
    //!
    //! Every install is `npm ci` from a lock file the template commits (the package's and the
    //! client's), so the registry's packages are the locked ones. The locks resolve the two
    //! unpublished packages to their tarballs in `vendor/` without an integrity: a tarball is
    //! made again by every run, and npm serves a locked integrity from its cache instead of
    //! reading the file. `--update` writes the locks ([`lock`]).

    use super::{Output, Step, run_cmd};
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// Where the app keeps the tarballs of the packages that are not on npm yet.
    pub const VENDOR: &str = "vendor";

    /// The directories of the app with a lock file, relative to the app, each with the
    /// packages its lock takes from `vendor/`.
    pub const LOCKED: &[(&str, &[&str])] = &[
        ("bindings/notes-contracts", &["@adecore/agent-contracts"]),
        (
            "client",
            &["@adecore/agent-contracts", "@acme/notes-contracts"],
        ),
    ];

    /// Writes the app's npm lock files (`--update`) and copies them into the template: the
    /// agent package's tarball packed from this checkout, the app's package installed with it
    /// and packed in turn, each lock resolving the two from `vendor/` without an integrity.
    pub fn update_locks(root: &Path, app: &Path, template: &Path) -> Step {
        let vendor = app.join(VENDOR);
        std::fs::create_dir_all(&vendor).map_err(|e| e.to_string())?;
        let agent_dir = root.join("bindings/agent-contracts");
        if !root.join("node_modules").is_dir() {
            // The repository's workspaces, from the root's lock: the dev dependencies its
            // `prepare` builds it with (when `npm pack` runs it).
            npm(root, &["ci", "--no-audit", "--no-fund", "--ignore-scripts"])?;
        }
        let agent = pack(&agent_dir, &vendor)?;
        let package = app.join("bindings/notes-contracts");
        lock(&package, &[("@adecore/agent-contracts", &agent)])?;
        // Its `prepare` builds it.
        ci(&package)?;
        let notes = pack(&package, &vendor)?;
        let client = app.join("client");
        lock(
            &client,
            &[
                ("@adecore/agent-contracts", &agent),
                ("@acme/notes-contracts", &notes),
            ],
        )?;
        for (dir, _) in LOCKED {
            let lock = Path::new(dir).join("package-lock.json");
            std::fs::copy(app.join(&lock), template.join(&lock))
                .map_err(|e| format!("copying {} back: {e}", lock.display()))?;
        }
        eprintln!("test-app: the template's npm lock files are updated");
        Ok(())
    }

    /// The shared corpus runner's adapter for the notes package (Zod and ajv).
    const NOTES_CORPUS: &str = include_str!("notes-corpus.mjs");

    /// Every example of the app's reference through the app's Zod schemas and its JSON
    /// Schema, by the shared corpus runner (`tests/corpus/runner.mjs`), from the client, where
    /// the packages are installed as its users install them.
    pub fn examples_in_zod(root: &Path, app: &Path) -> Step {
        let corpus = app.join("../corpus");
        let derived = corpus.join("derived");
        let messages = corpus.join("messages/derived");
        for dir in [&derived, &messages] {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let copy = std::fs::copy(app.join(super::EXAMPLES), derived.join("notes.jsonl"));
        copy.map_err(|e| format!("{}: {e}", super::EXAMPLES))?;
        // Every example is accepted: no refusal has a message to compare.
        std::fs::write(messages.join("notes.jsonl"), "").map_err(|e| e.to_string())?;
        let script = app.join("client/corpus-check.mjs");
        std::fs::write(&script, NOTES_CORPUS).map_err(|e| format!("{}: {e}", script.display()))?;
        let url = |p: PathBuf| format!("file://{}", p.display());
        let ajv = root.join("node_modules/ajv/dist/2020.js");
        eprintln!("test-app: the reference's examples through Zod and ajv");
        let out = run_cmd(
            Command::new("node")
                .args(["--test", "corpus-check.mjs"])
                .current_dir(app.join("client"))
                .env("CONTRACTS_CORPUS_DIR", &corpus)
                .env("RUNNER", url(root.join("tests/corpus/runner.mjs")))
                .env("AJV", url(ajv)),
        )?;
        let ran = |name: &str| {
            out.stdout.lines().any(|l| {
                l.contains(&format!("{name}: derived/notes.jsonl: "))
                    && l.ends_with(" lines, 0 disagreements")
            })
        };
        if out.code == 0 && !(ran("zod") && ran("json schema")) {
            return Err(format!(
                "the reference's examples through Zod and ajv: the runner ran no lines:\n{}{}",
                out.stdout, out.stderr
            ));
        }
        check(out, "the reference's examples through Zod and ajv")
    }

    /// `npm ci` in `dir`: the lock file's packages, or a failure that says how to write it.
    fn ci(dir: &Path) -> Step {
        npm(dir, &["ci", "--no-audit", "--no-fund"])
            .map(drop)
            .map_err(|e| format!("{e}\n(after a change of the package's dependencies: cargo xtask test-app --update writes the lock files)"))
    }

    /// Writes `dir/package-lock.json` as npm resolves `dir/package.json`, the `locals` (by name,
    /// with their tarballs) taken from the tarballs: npm locks them with the tarballs as
    /// `file:` dependencies, then the lock is given back the package's own ranges and each
    /// local entry its path in `vendor/`, relative to `dir`, without an integrity.
    fn lock(dir: &Path, locals: &[(&str, &String)]) -> Step {
        let manifest = dir.join("package.json");
        let original = std::fs::read_to_string(&manifest)
            .map_err(|e| format!("{}: {e}", manifest.display()))?;
        let _ = std::fs::remove_file(dir.join("package-lock.json"));
        let specs: Vec<(String, String)> = locals
            .iter()
            .map(|(name, tarball)| {
                let rel = relative(dir, Path::new(tarball.as_str()));
                ((*name).to_owned(), format!("file:{rel}"))
            })
            .collect();
        let specs_json = serde_json_object(&specs);
        node(dir, POINT_AT_TARBALLS, &[&specs_json])?;
        let locked = npm(
            dir,
            &[
                "install",
                "--package-lock-only",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
            ],
        );
        // The package's own file, whatever npm did.
        std::fs::write(&manifest, &original).map_err(|e| format!("{}: {e}", manifest.display()))?;
        locked?;
        node(dir, KEEP_RANGES, &[&specs_json])
    }

    /// Sets each named dependency of `package.json` (in whichever table has it) to its spec.
    const POINT_AT_TARBALLS: &str = r#"
const fs = require('node:fs');
const specs = JSON.parse(process.argv[1]);
const p = JSON.parse(fs.readFileSync('package.json', 'utf8'));
for (const [name, spec] of Object.entries(specs)) {
    for (const table of ['dependencies', 'devDependencies']) {
        if (p[table] && name in p[table]) p[table][name] = spec;
    }
}
fs.writeFileSync('package.json', JSON.stringify(p, null, 2) + '\n');
"#;

    /// Gives the lock's root the package's own dependency tables, and each local entry its
    /// tarball as `resolved`, without an integrity.
    const KEEP_RANGES: &str = r#"
const fs = require('node:fs');
const specs = JSON.parse(process.argv[1]);
const p = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const top = lock.packages[''];
for (const table of ['dependencies', 'devDependencies', 'peerDependencies']) {
    if (p[table]) top[table] = p[table];
}
for (const [path, entry] of Object.entries(lock.packages)) {
    for (const [name, spec] of Object.entries(specs)) {
        if (path === `node_modules/${name}` || path.endsWith(`/node_modules/${name}`)) {
            entry.resolved = spec;
            delete entry.integrity;
        }
    }
}
fs.writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
"#;

    fn node(dir: &Path, script: &str, args: &[&str]) -> Step {
        let out = run_cmd(
            Command::new("node")
                .arg("-e")
                .arg(script)
                .args(args)
                .current_dir(dir),
        )?;
        check(out, &format!("node in {}", dir.display()))
    }

    /// `{"name": "spec", ...}` as JSON.
    fn serde_json_object(pairs: &[(String, String)]) -> String {
        let map: serde_json::Map<String, serde_json::Value> = pairs
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        serde_json::Value::Object(map).to_string()
    }

    /// `to` relative to the directory `from` (both under the app), with `/`.
    fn relative(from: &Path, to: &Path) -> String {
        let from: Vec<_> = from.components().collect();
        let to: Vec<_> = to.components().collect();
        let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        let mut parts: Vec<String> = vec!["..".into(); from.len() - common];
        parts.extend(
            to[common..]
                .iter()
                .map(|c| c.as_os_str().to_string_lossy().into_owned()),
        );
        parts.join("/")
    }

    /// `npm pack` of `dir` into `into`; answers the tarball's path.
    fn pack(dir: &Path, into: &Path) -> Result<String, String> {
        let into = into.display().to_string();
        let out = npm(dir, &["pack", "--silent", "--pack-destination", &into])?;
        let name = out
            .stdout
            .lines()
            .last()
            .map(str::trim)
            .filter(|n| n.ends_with(".tgz"))
            .ok_or_else(|| {
                format!(
                    "npm pack in {} named no tarball: {}",
                    dir.display(),
                    out.stdout
                )
            })?;
        Ok(PathBuf::from(into).join(name).display().to_string())
    }

    fn npm(dir: &Path, args: &[&str]) -> Result<Output, String> {
        eprintln!("test-app: npm {} ({})", args.join(" "), dir.display());
        let out = run_cmd(Command::new("npm").args(args).current_dir(dir))?;
        let what = format!("npm {} in {}", args.join(" "), dir.display());
        if out.code != 0 {
            return Err(format!(
                "{what}: exit {}:\n{}{}",
                out.code, out.stdout, out.stderr
            ));
        }
        Ok(out)
    }

    fn check(out: Output, what: &str) -> Step {
        if out.code == 0 {
            return Ok(());
        }
        Err(format!(
            "{what}: exit {}:\n{}{}",
            out.code, out.stdout, out.stderr
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sources_a_verify_compiled_are_read_from_cargos_output() {
        let v = env!("CARGO_PKG_VERSION");
        let stderr = format!(
            "   Compiling adecore-contracts-codegen v{v}\n     Running `/r/bin/rustc --crate-name contracts_codegen --edition=2024 /h/.cargo/registry/src/-688cafa7da19fbc7/adecore-contracts-codegen-{v}/src/lib.rs --error-format=json`\n     Running `rustc --crate-name serde /h/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/serde-1.0.0/src/lib.rs`\n     Running `rustc /h/.cargo/registry/src/-688cafa7da19fbc7/adecore-contracts-codegen-{v}/src/emit/mod.rs`\n"
        );
        assert_eq!(
            unpacked_sources(&stderr),
            vec![(
                "adecore-contracts-codegen".to_owned(),
                PathBuf::from(format!(
                    "/h/.cargo/registry/src/-688cafa7da19fbc7/adecore-contracts-codegen-{v}"
                ))
            )]
        );
    }
}
