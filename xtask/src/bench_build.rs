//! `cargo xtask bench-build [--rounds N] [--parts ...] [--scratch DIR] [--against REV]`: what
//! the generated code costs to build, against plain serde types of the same schemas
//! (docs/benchmarks.md, "Build cost"); with `--parts clean --against REV`, an agent app's
//! clean build with this checkout's crates and REV's, side by side ([`crate::bench_clean`]).
//!
//! Four crates in a scratch workspace under the target directory (outside this workspace, so
//! its lock file and profiles stay out of it; built `--offline` from cargo's registry cache,
//! with this workspace's `Cargo.lock` copied in so the versions match):
//!
//! - `bench-generated`: the agent and Agent Connect protocols through `contracts::protocol!`
//!   over `schema/agent` and `schema/connect`, as an app generates them (the runtime a
//!   dependency, built once);
//! - `baseline`: plain `#[derive(Serialize, Deserialize)]` types of the same two models
//!   ([`crate::serde_baseline`]). Its derives are generic, so it compiles no machine code:
//!   whoever parses with them pays for that;
//! - `baseline-tables`, the baseline in use: the same types with what an app of them writes to
//!   do what the generated tables do (every entry read by `serde_json::from_str` and written by
//!   `to_string`, by name; every frame read and written), so both sides compile their parsers;
//! - `use-generated` and `use-baseline`: an app of each in use ([`crate::bench_use`]), calling
//!   every table by name and every frame, so that what the generated side compiles only where
//!   it is called (the typed frames, the fast readers) is measured too;
//! - `app-generated` and `app-baseline`: the documents app's schema (on the agent's) the same
//!   two ways, for the rebuild after an edit of its `.contract` file.
//!
//! Dependencies are built first; then each measured build rebuilds only its crate (its
//! `lib.rs` touched), non-incremental, in debug and release, the two sides alternating
//! (generated, baseline, generated, ...). A build that compiles anything else is thrown away
//! and run again. The edit rounds change the app's schema (a field added to a request
//! payload, then removed, and so on) and rebuild with incremental compilation on, as a user's
//! `cargo build` has it; the baseline gets the same edit through its emitter (timed apart).
//! The report gives each side's median and the ratio (and for the apps in use, each side's
//! crate and app added up, round by round), by wall time and by CPU time (user and system, of
//! cargo and everything it ran: much less moved by the load of a shared machine), the
//! generated line counts per schema line, and the load average seen.

use crate::bench_clean::children_cpu;
use crate::{bench_use, serde_baseline};
use contracts_codegen::emit::rust::{RustOptions, emit_pretty};
use contracts_codegen::generate::Protocol;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime};

#[derive(clap::Args)]
pub struct Args {
    /// Measured builds per side and profile (and edits per side).
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// What to measure.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Part::Lines, Part::Debug, Part::Release, Part::Edit])]
    parts: Vec<Part>,
    /// The scratch workspace (default: `bench-build` in the target directory).
    #[arg(long)]
    scratch: Option<PathBuf>,
    /// For `--parts clean`: the commit whose crates the working tree's are compared with.
    #[arg(long, value_name = "REV")]
    against: Option<String>,
}

/// A part of the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Part {
    /// Generated Rust lines per schema line.
    Lines,
    /// The crate alone, debug, non-incremental.
    Debug,
    /// The crate alone, release.
    Release,
    /// The app's rebuild after one schema edit, incremental.
    Edit,
    /// An agent app (the template app) built from nothing, and the macro, against the crates
    /// of `--against REV` (not in the default parts).
    Clean,
}

/// The documents app's protocol, as the project names it.
const APP: &str = crate::codegen::EXAMPLE_APP;

/// The edit the rounds make to the app's schema, and undo: a field added to a request's
/// payload.
const EDIT_FROM: &str = r#""document.read": { id: DocumentId }"#;
const EDIT_TO: &str = r#""document.read": { id: DocumentId, note?: string }"#;

pub fn run(root: &Path, args: Args) -> Result<(), String> {
    bench(root, &args)
}

fn bench(root: &Path, args: &Args) -> Result<(), String> {
    if args.rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    let clean = args.parts.contains(&Part::Clean);
    if clean != args.against.is_some() {
        return Err("--parts clean and --against REV go together".into());
    }
    let protocols = crate::project().load(root)?;
    let (agent, connect, app) = (
        protocols.get("agent"),
        protocols.get("connect"),
        protocols.get(APP),
    );
    let parts: Vec<String> = args
        .parts
        .iter()
        .map(|p| format!("{p:?}").to_lowercase())
        .collect();
    let against = args
        .against
        .as_ref()
        .map(|rev| format!(" --against {rev}"))
        .unwrap_or_default();
    println!(
        "# cargo xtask bench-build --rounds {} --parts {}{against}",
        args.rounds,
        parts.join(",")
    );
    let commit = Command::new("git")
        .current_dir(root)
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    println!("started {} at {commit}", utc_now());
    if args.parts.contains(&Part::Lines) {
        lines_report(&[agent, connect, app])?;
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let scratch = match &args.scratch {
        Some(s) => s.clone(),
        None => target.join("bench-build"),
    };
    let scratch = std::path::absolute(&scratch).map_err(|e| e.to_string())?;
    let mut load = Vec::new();
    let measured = [Part::Debug, Part::Release, Part::Edit];
    if measured.iter().any(|p| args.parts.contains(p)) {
        against_baseline(root, args, &scratch, &mut load, [agent, connect])?;
    }
    if let Some(rev) = args.against.as_deref().filter(|_| clean) {
        crate::bench_clean::run(root, &scratch, rev, args.rounds, &mut load)?;
    }
    if !load.is_empty() {
        let mut sorted = load.clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "\nload average (1 min) after each build: min {:.2}, median {:.2}, max {:.2}",
            sorted[0],
            median(&load),
            sorted[sorted.len() - 1]
        );
    }
    println!("finished {}", utc_now());
    Ok(())
}

/// The debug, release and edit parts: the generated crates against the serde baseline.
fn against_baseline(
    root: &Path,
    args: &Args,
    scratch: &Path,
    load: &mut Vec<f64>,
    [agent, connect]: [&Protocol; 2],
) -> Result<(), String> {
    let ws = Scratch::write(root, scratch, agent, connect)?;
    for (part, release) in [(Part::Debug, false), (Part::Release, true)] {
        if !args.parts.contains(&part) {
            continue;
        }
        let profile = if release { "release" } else { "debug" };
        println!("\n## {profile}, the crate alone, non-incremental");
        let build = |krate: &str| Build {
            krate: krate.to_owned(),
            release,
            incremental: false,
        };
        let sides = [
            build(GENERATED),
            build(BASELINE),
            build(BASELINE_TABLES),
            build(USE_GENERATED),
            build(USE_BASELINE),
        ];
        for b in &sides {
            ws.warm(b)?;
        }
        let mut wall: [Vec<f64>; 5] = Default::default();
        let mut cpu: [Vec<f64>; 5] = Default::default();
        for round in 0..args.rounds {
            for (i, b) in sides.iter().enumerate() {
                ws.touch(&b.krate)?;
                let t = ws.measure(b)?;
                load.push(loadavg());
                wall[i].push(t.wall);
                cpu[i].push(t.cpu);
                println!(
                    "round {}: {:<16} {:7.2} s, CPU {:7.2} s  (load {:.2})",
                    round + 1,
                    b.krate,
                    t.wall,
                    t.cpu,
                    load[load.len() - 1]
                );
            }
        }
        ratio_lines(profile, "wall time", wall);
        ratio_lines(profile, "CPU time", cpu);
    }
    if args.parts.contains(&Part::Edit) {
        println!("\n## the app's rebuild after one schema edit, debug, incremental");
        let build = |krate: &str| Build {
            krate: krate.to_owned(),
            release: false,
            incremental: true,
        };
        let sides = [build(APP_GENERATED), build(APP_BASELINE)];
        ws.set_app_schema(false, agent)?;
        for b in &sides {
            ws.warm(b)?;
        }
        let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        let mut cpu: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        let mut emitter = Vec::new();
        for round in 0..args.rounds {
            let edited = round % 2 == 0;
            for (i, b) in sides.iter().enumerate() {
                if i == 0 {
                    ws.edit_generated(edited)?;
                } else {
                    emitter.push(ws.edit_baseline(edited, agent)?);
                }
                let t = ws.measure(b)?;
                load.push(loadavg());
                times[i].push(t.wall);
                cpu[i].push(t.cpu);
                println!(
                    "edit {} ({}): {:<14} {:7.2} s, CPU {:7.2} s  (load {:.2})",
                    round + 1,
                    if edited {
                        "field added"
                    } else {
                        "field removed"
                    },
                    b.krate,
                    t.wall,
                    t.cpu,
                    load[load.len() - 1]
                );
            }
        }
        ws.set_app_schema(false, agent)?;
        ratio_line("edit", "baseline", &times);
        ratio_line("edit, CPU time", "baseline", &cpu);
        println!(
            "the baseline's emitter took {:.3} s per edit (median; not in its build time)",
            median(&emitter)
        );
    }
    Ok(())
}

/// The scratch crates' names.
const GENERATED: &str = "bench-generated";
const BASELINE: &str = "baseline";
const BASELINE_TABLES: &str = "baseline-tables";
const USE_GENERATED: &str = "use-generated";
const USE_BASELINE: &str = "use-baseline";
const APP_GENERATED: &str = "app-generated";
const APP_BASELINE: &str = "app-baseline";

/// One side's measured build.
struct Build {
    krate: String,
    release: bool,
    incremental: bool,
}

/// A measured build's seconds: on the clock, and of CPU (user and system, of cargo and all it
/// ran), which the load of a shared machine moves much less.
struct Timing {
    wall: f64,
    cpu: f64,
}

/// The scratch workspace.
struct Scratch {
    dir: PathBuf,
    /// The workspace root, for the agent schema the app builds on.
    root: PathBuf,
}

impl Scratch {
    /// Writes (or refreshes) the scratch workspace: manifests, sources, the copied lock file.
    fn write(
        root: &Path,
        dir: &Path,
        agent: &Protocol,
        connect: &Protocol,
    ) -> Result<Scratch, String> {
        let runtime = root.join("contracts");
        let lit = |p: &Path| format!("{:?}", p.display().to_string());
        let contracts_dep = format!(
            "contracts = {{ path = {}, package = \"adecore-contracts\" }}\n",
            lit(&runtime)
        );
        let serde_deps = "serde = { version = \"1\", features = [\"derive\"] }\n\
             serde_json = { version = \"1\", features = [\"raw_value\", \"float_roundtrip\"] }\n";
        let header = "# Written by `cargo xtask bench-build`; rewritten on every run.\n";
        let in_use = serde_baseline::Options {
            tables: true,
            ..Default::default()
        };
        let files: Vec<(PathBuf, String)> = vec![
            (
                "Cargo.toml".into(),
                format!(
                    "{header}[workspace]\nresolver = \"3\"\nmembers = [{:?}, {:?}, {:?}, {:?}, {:?}, {:?}, {:?}]\n\n\
                     # As the contracts workspace builds its dependencies.\n\
                     [profile.dev.package.\"*\"]\ndebug = false\n\n\
                     # The runtime and the macro are path dependencies here, registry ones in\n\
                     # an app: never incremental. The apps are, as a user's crate is.\n\
                     [profile.dev]\nincremental = false\n\n\
                     [profile.dev.package.{:?}]\nincremental = true\n\n\
                     [profile.dev.package.{:?}]\nincremental = true\n",
                    GENERATED,
                    BASELINE,
                    BASELINE_TABLES,
                    USE_GENERATED,
                    USE_BASELINE,
                    APP_GENERATED,
                    APP_BASELINE,
                    APP_GENERATED,
                    APP_BASELINE
                ),
            ),
            (
                format!("{GENERATED}/Cargo.toml").into(),
                manifest(GENERATED, &contracts_dep),
            ),
            (
                format!("{GENERATED}/src/lib.rs").into(),
                format!(
                    "//! The agent and Agent Connect protocols, generated by `protocol!`.\n\n\
                     pub mod agent {{\n    contracts::protocol! {{ name: \"agent\", dir: {} }}\n}}\n\n\
                     pub mod connect {{\n    contracts::protocol! {{ name: \"connect\", dir: {} }}\n}}\n",
                    lit(&agent.dir),
                    lit(&connect.dir)
                ),
            ),
            (
                format!("{BASELINE}/Cargo.toml").into(),
                manifest(BASELINE, serde_deps),
            ),
            (
                format!("{BASELINE}/src/lib.rs").into(),
                "//! The agent and Agent Connect types as plain serde types.\n\n\
                 pub mod agent;\npub mod connect;\n"
                    .into(),
            ),
            (
                format!("{BASELINE}/src/agent.rs").into(),
                serde_baseline::emit(&agent.model, &serde_baseline::Options::default()),
            ),
            (
                format!("{BASELINE}/src/connect.rs").into(),
                serde_baseline::emit(&connect.model, &serde_baseline::Options::default()),
            ),
            (
                format!("{BASELINE_TABLES}/Cargo.toml").into(),
                manifest(BASELINE_TABLES, serde_deps),
            ),
            (
                format!("{BASELINE_TABLES}/src/lib.rs").into(),
                "//! The agent and Agent Connect types as plain serde types, with their tables \
                 in use.\n\npub mod agent;\npub mod connect;\n"
                    .into(),
            ),
            (
                format!("{BASELINE_TABLES}/src/agent.rs").into(),
                serde_baseline::emit(&agent.model, &in_use),
            ),
            (
                format!("{BASELINE_TABLES}/src/connect.rs").into(),
                serde_baseline::emit(&connect.model, &in_use),
            ),
            (
                format!("{USE_GENERATED}/Cargo.toml").into(),
                manifest(
                    USE_GENERATED,
                    &format!(
                        "{GENERATED} = {{ path = \"../{GENERATED}\" }}\n{contracts_dep}{serde_deps}"
                    ),
                ),
            ),
            (
                format!("{USE_GENERATED}/src/lib.rs").into(),
                bench_use::generated(
                    &[
                        (agent, &emit_pretty(&agent.model, &RustOptions::default())),
                        (
                            connect,
                            &emit_pretty(&connect.model, &RustOptions::default()),
                        ),
                    ],
                    GENERATED,
                ),
            ),
            (
                format!("{USE_BASELINE}/Cargo.toml").into(),
                manifest(
                    USE_BASELINE,
                    &format!("{BASELINE_TABLES} = {{ path = \"../{BASELINE_TABLES}\" }}\n"),
                ),
            ),
            (
                format!("{USE_BASELINE}/src/lib.rs").into(),
                bench_use::baseline(&[agent, connect], BASELINE_TABLES),
            ),
            (
                format!("{APP_GENERATED}/Cargo.toml").into(),
                manifest(APP_GENERATED, &contracts_dep),
            ),
            (
                format!("{APP_GENERATED}/src/lib.rs").into(),
                format!(
                    "//! The documents app's protocol, generated by `protocol!` on the agent's.\n\n\
                     pub mod documents {{\n    contracts::protocol! {{\n        name: \"documents\",\n        \
                     dir: \"schema\",\n        extends: {{ agent: ::contracts::agent = {} }},\n    }}\n}}\n",
                    lit(&agent.dir)
                ),
            ),
            (
                format!("{APP_BASELINE}/Cargo.toml").into(),
                manifest(
                    APP_BASELINE,
                    &format!("{BASELINE} = {{ path = \"../{BASELINE}\" }}\n{serde_deps}"),
                ),
            ),
            (
                format!("{APP_BASELINE}/src/lib.rs").into(),
                "//! The documents app's types as plain serde types, on the agent's.\n\n\
                 pub mod documents;\n"
                    .into(),
            ),
        ];
        for (path, text) in &files {
            write_if_changed(&dir.join(path), text)?;
        }
        let lock = std::fs::read_to_string(root.join("Cargo.lock")).map_err(|e| e.to_string())?;
        // Copied once: later runs keep the lock cargo completed with the scratch crates.
        let scratch_lock = dir.join("Cargo.lock");
        if !scratch_lock.exists() {
            write_if_changed(&scratch_lock, &lock)?;
        }
        let ws = Scratch {
            dir: dir.to_path_buf(),
            root: root.to_path_buf(),
        };
        ws.set_app_schema(false, agent)?;
        Ok(ws)
    }

    /// The app's schema file in `krate`.
    fn app_schema(&self, krate: &str) -> PathBuf {
        self.dir
            .join(krate)
            .join("schema")
            .join("documents.contract")
    }

    /// The documents schema, edited or not.
    fn app_text(&self, edited: bool) -> Result<String, String> {
        let path = self
            .root
            .join("examples/documents-app/schema/documents.contract");
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        edit(&text, edited)
    }

    /// Both apps' schema, edited or not, and the baseline's types from it.
    fn set_app_schema(&self, edited: bool, agent: &Protocol) -> Result<(), String> {
        self.edit_generated(edited)?;
        self.edit_baseline(edited, agent)?;
        Ok(())
    }

    fn edit_generated(&self, edited: bool) -> Result<(), String> {
        write_if_changed(&self.app_schema(APP_GENERATED), &self.app_text(edited)?)
    }

    /// Edits the baseline app's schema and writes its types again; answers the emitter's time.
    fn edit_baseline(&self, edited: bool, agent: &Protocol) -> Result<f64, String> {
        write_if_changed(&self.app_schema(APP_BASELINE), &self.app_text(edited)?)?;
        let start = Instant::now();
        let schema_dir = self.dir.join(APP_BASELINE).join("schema");
        let app = Protocol::load_with_bases(APP, &schema_dir, &[agent])
            .map_err(|e| format!("the edited app schema: {e:?}"))?;
        let mut options = serde_baseline::Options::default();
        options
            .bases
            .insert("agent".into(), format!("::{BASELINE}::agent"));
        let text = serde_baseline::emit(&app.model, &options);
        write_if_changed(
            &self.dir.join(APP_BASELINE).join("src").join("documents.rs"),
            &text,
        )?;
        Ok(start.elapsed().as_secs_f64())
    }

    fn touch(&self, krate: &str) -> Result<(), String> {
        let path = self.dir.join(krate).join("src").join("lib.rs");
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(SystemTime::now()))
            .map_err(|e| format!("touch {}: {e}", path.display()))
    }

    fn cargo(&self, b: &Build) -> Command {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.current_dir(&self.dir)
            .args(["build", "--offline", "--lib", "-p", &b.krate])
            .env("CARGO_TARGET_DIR", self.dir.join("target"))
            .env_remove("RUSTFLAGS");
        if b.release {
            cmd.arg("--release");
        }
        if b.incremental {
            // The profile's: on for the app crates only, as a user's `cargo build` has it.
            cmd.env_remove("CARGO_INCREMENTAL");
        } else {
            cmd.env("CARGO_INCREMENTAL", "0");
        }
        cmd
    }

    /// Builds `b`'s crate and its dependencies, untimed.
    fn warm(&self, b: &Build) -> Result<(), String> {
        println!("building {} and its dependencies first ...", b.krate);
        let out = self.cargo(b).output().map_err(|e| format!("cargo: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "the warm-up build of {} failed:\n{}",
                b.krate,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(())
    }

    /// One timed build of `b` that compiles its crate and nothing else (a build that compiles
    /// more is run again, at most twice).
    fn measure(&self, b: &Build) -> Result<Timing, String> {
        for _ in 0..3 {
            let (start, cpu_before) = (Instant::now(), children_cpu());
            let out = self.cargo(b).output().map_err(|e| format!("cargo: {e}"))?;
            let t = Timing {
                wall: start.elapsed().as_secs_f64(),
                cpu: children_cpu() - cpu_before,
            };
            let stderr = String::from_utf8_lossy(&out.stderr);
            if !out.status.success() {
                return Err(format!("building {} failed:\n{stderr}", b.krate));
            }
            let compiled = compiled(&stderr);
            if compiled == [b.krate.as_str()] {
                return Ok(t);
            }
            if compiled.is_empty() {
                return Err(format!("{} was not rebuilt:\n{stderr}", b.krate));
            }
            println!(
                "  (thrown away: the build of {} also compiled {})",
                b.krate,
                compiled.join(", ")
            );
            if b.incremental {
                return Err("an edit round rebuilt a dependency; run again".into());
            }
            self.touch(&b.krate)?;
        }
        Err(format!("{} kept rebuilding its dependencies", b.krate))
    }
}

/// A scratch crate's manifest.
fn manifest(name: &str, deps: &str) -> String {
    format!(
        "[package]\nname = {name:?}\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\n{deps}"
    )
}

/// The documents schema with the rounds' edit made (or not).
fn edit(text: &str, edited: bool) -> Result<String, String> {
    if !text.contains(EDIT_FROM) {
        return Err(format!(
            "the documents schema no longer has `{EDIT_FROM}`: change the benchmark's edit"
        ));
    }
    Ok(if edited {
        text.replacen(EDIT_FROM, EDIT_TO, 1)
    } else {
        text.to_owned()
    })
}

/// The crates a cargo run compiled (its `Compiling name vX` lines).
pub(crate) fn compiled(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("Compiling "))
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Generated lines per schema line, per protocol: the macro's output formatted
/// (`emit_pretty`) and the baseline's, over the `.contract` files' lines.
fn lines_report(protocols: &[&Protocol]) -> Result<(), String> {
    println!("\n## generated lines per schema line");
    println!(
        "| protocol | schema lines | generated Rust lines | per schema line | baseline lines | per schema line |"
    );
    println!("|---|---|---|---|---|---|");
    for p in protocols {
        let schema = schema_lines(&p.dir)?;
        let mut rust = RustOptions::default();
        let mut base = serde_baseline::Options::default();
        for b in &p.model.bases {
            rust.bases
                .insert(b.name.clone(), format!("::contracts::{}", b.name));
            base.bases
                .insert(b.name.clone(), format!("::{BASELINE}::{}", b.name));
        }
        let generated = emit_pretty(&p.model, &rust).lines().count();
        let baseline = serde_baseline::emit(&p.model, &base).lines().count();
        println!(
            "| {} | {schema} | {generated} | {:.1} | {baseline} | {:.1} |",
            p.name,
            generated as f64 / schema as f64,
            baseline as f64 / schema as f64
        );
    }
    Ok(())
}

/// The lines of the `.contract` files under `dir`.
fn schema_lines(dir: &Path) -> Result<usize, String> {
    let mut n = 0;
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            n += schema_lines(&path)?;
        } else if path.extension().is_some_and(|e| e == "contract") {
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            n += text.lines().count();
        }
    }
    Ok(n)
}

/// The four ratios of a profile's rounds of one clock (the rounds of `bench-generated`,
/// `baseline`, `baseline-tables`, `use-generated`, `use-baseline`, in that order).
fn ratio_lines(profile: &str, clock: &str, times: [Vec<f64>; 5]) {
    println!("by {clock}:");
    let [generated, types, in_use, use_generated, use_baseline] = times;
    let add = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a + b).collect::<Vec<_>>();
    let with_app = [add(&generated, &use_generated), add(&in_use, &use_baseline)];
    ratio_line(profile, "baseline", &[generated.clone(), types]);
    ratio_line(profile, "baseline in use", &[generated, in_use]);
    ratio_line(
        &format!("{profile}, the app in use alone"),
        "baseline's app",
        &[use_generated, use_baseline],
    );
    ratio_line(
        &format!("{profile}, the crate and the app in use"),
        "baseline in use and its app",
        &with_app,
    );
}

/// `name: median generated, median baseline, ratio`, with every run and each round's ratio.
fn ratio_line(name: &str, baseline: &str, times: &[Vec<f64>; 2]) {
    let (g, b) = (median(&times[0]), median(&times[1]));
    let runs = |v: &[f64]| {
        v.iter()
            .map(|t| format!("{t:.2}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    // Each round's two builds ran one after the other, under about the same load.
    let per_round: Vec<f64> = times[0].iter().zip(&times[1]).map(|(g, b)| g / b).collect();
    println!(
        "{name}: generated {g:.2} s ({}), {baseline} {b:.2} s ({}), generated / {baseline} {:.2}x \
         (per round {}, median {:.2}x)",
        runs(&times[0]),
        runs(&times[1]),
        g / b,
        runs(&per_round),
        median(&per_round)
    );
}

/// The median (the mean of the middle two of an even count).
pub(crate) fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// The one-minute load average (`/proc/loadavg`), NaN where there is none.
pub(crate) fn loadavg() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The time now, `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn compiled_reads_cargos_compiling_lines() {
        let stderr = "   Compiling serde v1.0.0\n   Compiling baseline v0.0.0 (/x/baseline)\n    Finished `dev` profile\n";
        assert_eq!(compiled(stderr), ["serde", "baseline"]);
        assert!(compiled("    Finished `dev` profile\n").is_empty());
    }

    /// The rounds' edit applies to the documents schema, and the edited schema loads.
    #[test]
    fn the_edit_applies_and_loads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let protocols = crate::project().load(root).unwrap();
        let text =
            std::fs::read_to_string(root.join("examples/documents-app/schema/documents.contract"))
                .unwrap();
        let edited = edit(&text, true).unwrap();
        assert_ne!(edited, text);
        assert_eq!(edit(&text, false).unwrap(), text);
        let dir = std::env::temp_dir().join(format!("bench-build-edit-{}", std::process::id()));
        write_if_changed(&dir.join("documents.contract"), &edited).unwrap();
        let app = Protocol::load_with_bases(APP, &dir, &[protocols.get("agent")]);
        std::fs::remove_dir_all(&dir).unwrap();
        let app = app.unwrap_or_else(|e| panic!("{e:?}"));
        let mut options = serde_baseline::Options::default();
        options
            .bases
            .insert("agent".into(), "::baseline::agent".into());
        let rust = serde_baseline::emit(&app.model, &options);
        assert!(rust.contains("pub note: ::core::option::Option<::std::string::String>"));
    }

    #[test]
    fn utc_now_is_a_date() {
        let s = utc_now();
        assert_eq!(s.len(), "2026-12-02 16:00 UTC".len(), "{s}");
        assert!(s.starts_with("20"), "{s}");
    }
}
