//! `cargo xtask bench-build --parts clean --against REV`: what an agent app's clean debug build
//! costs with this checkout's crates and with those of the commit REV, side by side in one run
//! (docs/benchmarks.md, "An agent app's clean build").
//!
//! The app is the template app (`examples/notes-app`: the agent protocol extended by
//! `protocol!`, the `Hub` served over WebSocket), each side's own copy, in a scratch workspace
//! of its own under the bench's scratch directory: its manifest as the template writes it, the
//! published crates (`adecore-*`) patched to the side's checkout (this working tree, or REV's
//! tree unpacked by `git archive`), non-incremental as registry crates are, the checkout's
//! `Cargo.lock` copied in, built `--offline`. Each round builds, for each side in turn (the old
//! side first in odd rounds, the new first in even ones, so neither always follows the other):
//!
//! 1. the app from nothing (its target directory removed): `cargo build -p notes-app
//!    --timings`, the wall time, the CPU time of cargo and everything it ran (user and system,
//!    from `/proc/self/stat`: much less moved by the load of a shared machine than the wall
//!    time), the crates compiled and each package's time from cargo's timing report (build
//!    scripts included);
//! 2. the macro from nothing (a target directory of its own): `cargo build -p
//!    adecore-contracts-macros --timings`, the compiler and the proc macro with their
//!    dependencies, as the first crate of an app that uses `protocol!` waits for them.
//!
//! The report gives each side's median, the new side's over the old side's, and each round's
//! ratio (the two sides' builds ran one after the other, under about the same load).

use crate::bench_build::{compiled, loadavg, median};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The template app, relative to a checkout.
const TEMPLATE: &str = crate::template_app::TEMPLATE;

/// The app's package, the one measured build 1 asks for.
const APP: &str = "notes-app";

/// The proc macro's package, measured build 2.
const MACRO: &str = "adecore-contracts-macros";

/// The packages whose times the report shows, when the side compiles them.
const SHOWN: &[&str] = &[
    "adecore-contracts-codegen",
    "adecore-contracts-macros",
    "adecore-contracts",
    APP,
    "prettyplease",
];

/// One side: a checkout, and the scratch workspace of its app.
struct Side {
    /// How the report names it: the commit, or `working tree`.
    label: String,
    checkout: PathBuf,
    app: PathBuf,
}

/// One measured build: the wall time, the crates compiled, and each package's time (the sum
/// of its units' in cargo's timing report).
struct Run {
    wall: f64,
    /// User and system CPU time of cargo and its children, NaN where `/proc` has none.
    cpu: f64,
    crates: usize,
    packages: BTreeMap<String, f64>,
}

/// Runs the part: `rounds` rounds of the two builds for each side; the load average after each
/// build goes into `load`.
pub fn run(
    root: &Path,
    scratch: &Path,
    against: &str,
    rounds: usize,
    load: &mut Vec<f64>,
) -> Result<(), String> {
    let commit = rev_parse(root, against)?;
    let short = &commit[..commit.len().min(9)];
    println!("\n## an agent app's clean debug build: {short} (old) and the working tree (new)");
    let dir = scratch.join("clean");
    let old_tree = unpack(root, &dir, &commit)?;
    let sides = [
        Side::write(&old_tree, &dir.join(format!("app-{short}")), short)?,
        Side::write(root, &dir.join("app-working-tree"), "working tree")?,
    ];
    // [side][build] -> the rounds' runs.
    let mut runs: [[Vec<Run>; 2]; 2] = Default::default();
    for round in 0..rounds {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            let side = &sides[i];
            for (b, (package, target)) in [(APP, "target"), (MACRO, "target-macro")]
                .into_iter()
                .enumerate()
            {
                let r = side.build_clean(package, target)?;
                load.push(loadavg());
                println!(
                    "round {}: {:<14} {package:<25} {:7.2} s, CPU {:7.2} s, {} crates  (load {:.2})",
                    round + 1,
                    side.label,
                    r.wall,
                    r.cpu,
                    r.crates,
                    load[load.len() - 1]
                );
                runs[i][b].push(r);
            }
        }
    }
    for (b, what) in [
        (0, "the app from nothing (`cargo build -p notes-app`)"),
        (
            1,
            "the macro from nothing (`cargo build -p adecore-contracts-macros`)",
        ),
    ] {
        println!("\n### {what}");
        report(&sides, &runs[0][b], &runs[1][b]);
    }
    Ok(())
}

/// The full hash of the commit `rev` names.
fn rev_parse(root: &Path, rev: &str) -> Result<String, String> {
    let out = Command::new("git")
        .current_dir(root)
        .args(["rev-parse", "--verify", "--quiet"])
        .arg(format!("{rev}^{{commit}}"))
        .output()
        .map_err(|e| format!("git: {e}"))?;
    let hash = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.status.success() || hash.is_empty() {
        return Err(format!(
            "--against {rev}: no such commit in this repository"
        ));
    }
    Ok(hash)
}

/// The tree of `commit`, unpacked by `git archive` under `dir` (once: a marker file says the
/// unpacking finished).
fn unpack(root: &Path, dir: &Path, commit: &str) -> Result<PathBuf, String> {
    let tree = dir.join(format!("src-{commit}"));
    let marker = tree.join(".bench-build-unpacked");
    if marker.exists() {
        return Ok(tree);
    }
    if tree.exists() {
        std::fs::remove_dir_all(&tree).map_err(|e| format!("{}: {e}", tree.display()))?;
    }
    std::fs::create_dir_all(&tree).map_err(|e| format!("{}: {e}", tree.display()))?;
    println!("unpacking {commit} into {} ...", tree.display());
    let mut archive = Command::new("git")
        .current_dir(root)
        .args(["archive", "--format=tar", commit])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("git archive: {e}"))?;
    let tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(&tree)
        .stdin(archive.stdout.take().ok_or("git archive gave no output")?)
        .status()
        .map_err(|e| format!("tar: {e}"))?;
    let archived = archive.wait().map_err(|e| format!("git archive: {e}"))?;
    if !archived.success() || !tar.success() {
        return Err(format!("unpacking {commit} failed (git archive | tar -x)"));
    }
    std::fs::write(&marker, commit).map_err(|e| format!("{}: {e}", marker.display()))?;
    Ok(tree)
}

impl Side {
    /// Writes the app's scratch workspace for the checkout `checkout` into `app`: the
    /// template's manifest, build script, sources, schema and xtask (a member of its
    /// workspace), then the patch of the published crates and the profile.
    fn write(checkout: &Path, app: &Path, label: &str) -> Result<Side, String> {
        let template = checkout.join(TEMPLATE);
        for entry in [
            "build.rs",
            "src",
            "schema",
            "xtask/Cargo.toml",
            "xtask/build.rs",
            "xtask/src",
        ] {
            copy(&template.join(entry), &app.join(entry))?;
        }
        let manifest = read(&template.join("Cargo.toml"))?;
        let lit = |p: &Path| format!("{:?}", p.display().to_string());
        let mut patch = String::new();
        for (package, dir) in [
            ("adecore-contracts", "contracts"),
            ("adecore-contracts-codegen", "contracts-codegen"),
            ("adecore-contracts-macros", "contracts-macros"),
            ("adecore-contracts-xtask", "contracts-xtask"),
        ] {
            patch.push_str(&format!(
                "{package} = {{ path = {} }}\n",
                lit(&checkout.join(dir))
            ));
        }
        let manifest = format!(
            "{manifest}\n\
             # Written by `cargo xtask bench-build --parts clean`: the published crates from the\n\
             # checkout measured, not incremental (as registry crates are); the app is.\n\
             [patch.crates-io]\n{patch}\n\
             [profile.dev]\nincremental = false\n\n\
             [profile.dev.package.{APP:?}]\nincremental = true\n"
        );
        std::fs::write(app.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
        // Each run starts from the checkout's lock: the versions its workspace builds.
        std::fs::write(app.join("Cargo.lock"), read(&checkout.join("Cargo.lock"))?)
            .map_err(|e| e.to_string())?;
        Ok(Side {
            label: label.to_owned(),
            checkout: checkout.to_path_buf(),
            app: app.to_path_buf(),
        })
    }

    /// Builds `package` in the target directory `target` (under the app's workspace), removed
    /// first; answers the wall time and cargo's timing report.
    fn build_clean(&self, package: &str, target: &str) -> Result<Run, String> {
        let target = self.app.join(target);
        if target.exists() {
            std::fs::remove_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
        }
        let mut cmd = Command::new(env!("CARGO"));
        cmd.current_dir(&self.app)
            .args(["build", "--offline", "--timings", "-p", package])
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            // The profile's: the app incremental, its dependencies not.
            .env_remove("CARGO_INCREMENTAL");
        let cpu_before = children_cpu();
        let start = Instant::now();
        let out = cmd.output().map_err(|e| format!("cargo: {e}"))?;
        let wall = start.elapsed().as_secs_f64();
        let cpu = children_cpu() - cpu_before;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            return Err(format!(
                "building {package} against {} failed:\n{stderr}",
                self.checkout.display()
            ));
        }
        let report = read(&target.join("cargo-timings").join("cargo-timing.html"))?;
        Ok(Run {
            wall,
            cpu,
            crates: compiled(&stderr).len(),
            packages: package_times(&report)?,
        })
    }
}

/// Each package's time in a cargo timing report (`--timings`): the sum of its units'
/// durations (the build script's compile and run, the library, the binaries).
fn package_times(html: &str) -> Result<BTreeMap<String, f64>, String> {
    const START: &str = "const UNIT_DATA = ";
    let at = html
        .find(START)
        .ok_or("cargo's timing report has no UNIT_DATA (its format changed?)")?;
    let rest = &html[at + START.len()..];
    let end = rest
        .find("];")
        .ok_or("cargo's timing report: UNIT_DATA does not end")?;
    let units: Vec<serde_json::Value> = serde_json::from_str(&rest[..end + 1])
        .map_err(|e| format!("cargo's timing report: UNIT_DATA is not JSON: {e}"))?;
    let mut out = BTreeMap::new();
    for unit in &units {
        let (Some(name), Some(duration)) = (unit["name"].as_str(), unit["duration"].as_f64())
        else {
            return Err("cargo's timing report: a unit without name or duration".into());
        };
        *out.entry(name.to_owned()).or_insert(0.0) += duration;
    }
    Ok(out)
}

/// The two sides' medians and ratios, for the wall time and each shown package.
fn report(sides: &[Side; 2], old: &[Run], new: &[Run]) {
    let runs = |v: &[f64]| {
        v.iter()
            .map(|t| format!("{t:.2}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let line = |what: &str, old: Vec<f64>, new: Vec<f64>| {
        let per_round: Vec<f64> = new.iter().zip(&old).map(|(n, o)| n / o).collect();
        println!(
            "{what}: {} {:.2} s ({}), {} {:.2} s ({}), new / old {:.2}x (per round {}, median {:.2}x)",
            sides[0].label,
            median(&old),
            runs(&old),
            sides[1].label,
            median(&new),
            runs(&new),
            median(&new) / median(&old),
            runs(&per_round),
            median(&per_round)
        );
    };
    line(
        "wall time",
        old.iter().map(|r| r.wall).collect(),
        new.iter().map(|r| r.wall).collect(),
    );
    line(
        "CPU time",
        old.iter().map(|r| r.cpu).collect(),
        new.iter().map(|r| r.cpu).collect(),
    );
    let crates = |v: &[Run]| v.first().map_or(0, |r| r.crates);
    println!(
        "crates compiled: {} {}, {} {}",
        sides[0].label,
        crates(old),
        sides[1].label,
        crates(new)
    );
    for package in SHOWN {
        let times = |v: &[Run]| -> Option<Vec<f64>> {
            v.iter()
                .map(|r| r.packages.get(*package).copied())
                .collect()
        };
        match (times(old), times(new)) {
            (Some(o), Some(n)) => line(package, o, n),
            (Some(o), None) => println!(
                "{package}: {} {:.2} s ({}), not compiled by {}",
                sides[0].label,
                median(&o),
                runs(&o),
                sides[1].label
            ),
            (None, Some(n)) => println!(
                "{package}: not compiled by {}, {} {:.2} s ({})",
                sides[0].label,
                sides[1].label,
                median(&n),
                runs(&n)
            ),
            (None, None) => {}
        }
    }
}

/// The CPU time (user and system, in seconds) of this process's children that it waited for,
/// and of theirs (`cutime` and `cstime` of `/proc/self/stat`); NaN without `/proc`.
pub(crate) fn children_cpu() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // The fields after the command's name (in parentheses, which may hold spaces) start at
    // the third; cutime and cstime are the 16th and 17th.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    match (ticks(16 - 3), ticks(17 - 3)) {
        (Some(user), Some(system)) => (user + system) / clock_ticks(),
        _ => f64::NAN,
    }
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 where it does not answer).
fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .filter(|t: &f64| *t > 0.0)
        .unwrap_or(100.0)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Copies a file, or a directory and everything in it, from `from` to `to` (replacing what
/// `to` held).
fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if from.is_dir() {
        if to.exists() {
            std::fs::remove_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
        }
        std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
        let entries = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| e.to_string())?;
            copy(&entry.path(), &to.join(entry.file_name()))?;
        }
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::copy(from, to)
        .map(drop)
        .map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_cpu_grows_with_a_waited_child() {
        let before = children_cpu();
        if before.is_nan() {
            // No `/proc` here: the figure is NaN and the report says so.
            return;
        }
        // A child that spins for a while: its CPU time is counted once it is waited for.
        let status = Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"])
            .status()
            .unwrap();
        assert!(status.success());
        assert!(children_cpu() > before);
    }

    #[test]
    fn package_times_add_up_each_packages_units() {
        let html = r#"<script>
const UNIT_DATA = [
  { "i": 0, "name": "app", "target": " build-script", "duration": 0.5 },
  { "i": 1, "name": "app", "target": " build-script (run)", "duration": 0.25 },
  { "i": 2, "name": "app", "target": "", "duration": 1.0 },
  { "i": 3, "name": "serde", "target": "", "duration": 2.0 }
];
const CONCURRENCY_DATA = [];
</script>"#;
        let times = package_times(html).unwrap();
        assert_eq!(times["app"], 1.75);
        assert_eq!(times["serde"], 2.0);
        assert_eq!(times.len(), 2);
        assert!(package_times("<html></html>").is_err());
    }
}
