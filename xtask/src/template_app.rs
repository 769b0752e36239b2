//! `cargo xtask test-app`: the template app (`examples/notes-app`) as its users meet it, in a
//! directory outside this workspace, built against the packaged crates.
//!
//! 1. `cargo package` packages and verifies every published crate; the unpacked packages
//!    (`target/package/NAME-VERSION`) stand in for crates.io through a `[patch.crates-io]`
//!    written into the copy's `.cargo/config.toml`: no workspace path is used.
//! 2. The template is copied to a temporary directory, made a git repository with a release
//!    tag `v0.1.0`.
//! 3. There it runs what the app's CI runs: `cargo xtask codegen --check`, `cargo xtask compat
//!    --base v0.1.0` and `cargo test`. Then it grows the schema: a new optional payload field
//!    passes compat and the app still builds and passes its tests; a new required payload
//!    field fails compat with exit 1 and the rule's id.
//! 4. The app's TypeScript package is built against the agent package's tarball, and its node
//!    client runs against the app's host over a real socket (see [`node`]).
//!
//! `--update` first regenerates the template's generated files (its TypeScript package and
//! reference) with its own xtask in the copy, and copies them back.
//!
//! The README's walk-through shows the template's files; [`readme_blocks`] checks they are
//! equal, so the two cannot drift.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

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

pub fn run(root: &Path, update: bool) -> ExitCode {
    match run_all(root, update) {
        Ok(()) => {
            eprintln!("test-app: the template app passed out of tree");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("test-app: {e}");
            ExitCode::FAILURE
        }
    }
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
            copy_dir(&app.join(dir), &root.join(TEMPLATE).join(dir))
                .map_err(|e| format!("copying {dir} back: {e}"))?;
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

    expect(
        cargo(&["xtask", "codegen", "--check"]),
        0,
        "codegen --check",
    )?;
    expect(cargo(&["xtask", "compat", "--base", "v0.1.0"]), 0, "compat")?;
    expect(cargo(&["test", "--quiet"]), 0, "cargo test")?;

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
    node::run(root, &app, &app_target)?;
    let _ = std::fs::remove_dir_all(app.parent().unwrap_or(&app));
    readme_blocks(root)
}

/// Packages and verifies the published crates; answers the unpacked package directories.
fn package(root: &Path, target: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    forget_verified_sources();
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
    let mut args = vec!["package", "--quiet"];
    for p in PUBLISHED {
        args.extend(["-p", p]);
    }
    // A checkout with local edits (a developer's) still tests what it has.
    args.push("--allow-dirty");
    let out = run_cmd(Command::new(cargo()).args(&args).current_dir(root))?;
    if out.code != 0 {
        return Err(format!("cargo package failed:\n{}", out.stderr));
    }
    let version = env!("CARGO_PKG_VERSION");
    PUBLISHED
        .iter()
        .map(|p| {
            let dir = target.join("package").join(format!("{p}-{version}"));
            if dir.join("Cargo.toml").is_file() {
                Ok(((*p).to_owned(), dir))
            } else {
                Err(format!("cargo package left no {}", dir.display()))
            }
        })
        .collect()
}

/// Removes what earlier runs of `cargo package` unpacked. Cargo verifies a package against the
/// others through a temporary registry whose crates it unpacks under
/// `$CARGO_HOME/registry/src/-HASH/NAME-VERSION`, and never unpacks one again while that
/// directory exists: a second run at the same version would verify the first run's sources.
fn forget_verified_sources() {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry/src")) else {
        return;
    };
    let Ok(registries) = std::fs::read_dir(&src) else {
        return;
    };
    // Local registries are the ones without a host name: `-HASH`.
    for registry in registries
        .flatten()
        .filter(|r| r.file_name().to_string_lossy().starts_with('-'))
    {
        let Ok(crates) = std::fs::read_dir(registry.path()) else {
            continue;
        };
        for c in crates.flatten() {
            let name = c.file_name().to_string_lossy().into_owned();
            if PUBLISHED.iter().any(|p| name.starts_with(&format!("{p}-"))) {
                let _ = std::fs::remove_dir_all(c.path());
            }
        }
    }
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
        if name == "target" || name == "node_modules" || name == "dist" {
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
    let mut cmd = Command::new(cargo());
    cmd.args(args)
        .current_dir(app)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("RUSTFLAGS");
    run_cmd(&mut cmd)
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

/// Checks that every block of the README marked `<!-- file: PATH -->` is the template's file.
pub fn readme_blocks(root: &Path) -> Step {
    let readme = std::fs::read_to_string(root.join("README.md")).map_err(|e| e.to_string())?;
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
                "README.md:{}: a file marker must precede a code block",
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
            .map_err(|e| format!("README.md:{}: {}: {e}", n + 1, file.display()))?;
        if text != block {
            return Err(format!(
                "README.md:{}: the block differs from {TEMPLATE}/{path}; copy the file into the README",
                n + 1
            ));
        }
        checked += 1;
    }
    if checked == 0 {
        return Err("README.md shows none of the template's files (<!-- file: PATH -->)".into());
    }
    eprintln!("test-app: the README's {checked} app files are the template's");
    Ok(())
}

pub mod node {
    //! The app's TypeScript side, out of tree, installed as its users install it: the agent
    //! package's tarball (`npm pack` of `bindings/agent-contracts`, built by its `prepare`),
    //! the app's package built against it and packed in turn, and the node client installed
    //! from the two tarballs (the rest from the registry at the versions the package files
    //! name), built and run against the app's host over a real socket.

    use super::{Output, Step, run_cmd};
    use std::io::{BufRead, BufReader};
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    pub fn run(root: &Path, app: &Path, target: &Path) -> Step {
        let tarballs = app.join("../tarballs");
        std::fs::create_dir_all(&tarballs).map_err(|e| e.to_string())?;
        let agent_dir = root.join("bindings/agent-contracts");
        if !agent_dir.join("node_modules").is_dir() {
            // Its `prepare` builds it with its dev dependencies, from its lock file.
            npm(&agent_dir, &["ci", "--no-audit", "--no-fund"])?;
        }
        let agent = pack(&agent_dir, &tarballs)?;
        let package = app.join("bindings/notes-contracts");
        npm(
            &package,
            &["install", "--no-save", "--no-audit", "--no-fund", &agent],
        )?;
        npm(&package, &["run", "build"])?;
        let notes = pack(&package, &tarballs)?;
        let client = app.join("client");
        npm(
            &client,
            &[
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                &agent,
                &notes,
            ],
        )?;
        npm(&client, &["run", "build"])?;

        // The host, as `cargo run` starts it, on a port of its own.
        let binary = target.join("debug/notes-app");
        let mut host = Command::new(&binary)
            .arg("127.0.0.1:0")
            .current_dir(app)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("{}: {e}", binary.display()))?;
        let url = listening(&mut host);
        let result = url.and_then(|url| {
            eprintln!("test-app: the node client against {url}");
            let out = run_cmd(
                Command::new("npm")
                    .args(["test"])
                    .current_dir(&client)
                    .env("NOTES_URL", &url),
            )?;
            check(out, "the node client")
        });
        let _ = host.kill();
        let _ = host.wait();
        result?;
        eprintln!("test-app: the node client talked to the host over a real socket");
        Ok(())
    }

    /// The `listening on ws://...` line the host prints once bound, within 30 s.
    fn listening(host: &mut std::process::Child) -> Result<String, String> {
        let stdout = host.stdout.take().ok_or("the host has no stdout")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let start = Instant::now();
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .map_err(|_| format!("the host printed no address in {:?}", start.elapsed()))?;
        line.trim()
            .strip_prefix("listening on ")
            .map(str::to_owned)
            .ok_or_else(|| format!("the host printed {line:?}, not its address"))
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
