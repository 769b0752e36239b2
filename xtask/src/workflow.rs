//! The template app's CI workflow (`.github/workflows/ci.yml`), run here as written: each
//! `run` step in its `working-directory` under `bash -eo pipefail` (GitHub's default shell),
//! and the two actions it uses given what they would give on a runner.
//!
//! - `actions/checkout` without `repository`: the app's copy is the checkout (a git
//!   repository with its release tag, as `fetch-depth: 0` gives).
//! - `actions/checkout` of `adecore/contracts` at `path`: this repository's files as git
//!   tracks them (their working-tree contents, so a developer's edits are what runs).
//! - `actions/setup-node`: the machine's node, which must be the major version asked for.
//!
//! Any other action, key or shape is an error that names it: a step this runner would skip
//! is a step the app's CI would run untested.

use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

use crate::template_app::run_cmd;

/// The workflow file, relative to the app.
pub const FILE: &str = ".github/workflows/ci.yml";

/// The repository a workflow checks out beside the app: this one.
const CONTRACTS_REPOSITORY: &str = "adecore/contracts";

/// One step of the workflow, as this runner takes it.
#[derive(Debug, PartialEq)]
enum Step {
    /// `actions/checkout` of the app itself.
    CheckoutApp,
    /// `actions/checkout` of this repository into `path`.
    CheckoutContracts { path: String },
    /// `actions/setup-node` with its major version.
    SetupNode { major: u32 },
    /// A shell command in a directory relative to the app.
    Run { command: String, dir: String },
}

/// Runs every step of the app's workflow in order; `env` is given to each command.
pub fn run(root: &Path, app: &Path, env: &[(&str, &Path)]) -> Result<(), String> {
    let text = std::fs::read_to_string(app.join(FILE)).map_err(|e| format!("{FILE}: {e}"))?;
    let steps = read(&text)?;
    for step in steps {
        match step {
            Step::CheckoutApp => eprintln!("test-app: workflow: the app's checkout is the copy"),
            Step::CheckoutContracts { path } => {
                eprintln!("test-app: workflow: {CONTRACTS_REPOSITORY} into {path}");
                checkout_contracts(root, &app.join(&path))?;
            }
            Step::SetupNode { major } => {
                let out = run_cmd(Command::new("node").arg("--version"))?;
                let found = out.stdout.trim().trim_start_matches('v');
                if found.split('.').next() != Some(major.to_string().as_str()) {
                    return Err(format!(
                        "{FILE}: setup-node asks for node {major}, this machine has {found}"
                    ));
                }
            }
            Step::Run { command, dir } => {
                eprintln!("test-app: workflow: {command} (in {dir})");
                let mut cmd = Command::new("bash");
                cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &command])
                    .current_dir(app.join(&dir))
                    .env_remove("CARGO_MANIFEST_DIR")
                    .env_remove("RUSTFLAGS");
                for (k, v) in env {
                    cmd.env(k, v);
                }
                let out = run_cmd(&mut cmd)?;
                if out.code != 0 {
                    return Err(format!(
                        "{FILE}: `{command}` (in {dir}) exited with {}:\n{}{}",
                        out.code, out.stdout, out.stderr
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The steps of the workflow's one job.
fn read(text: &str) -> Result<Vec<Step>, String> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| format!("{FILE}: {e}"))?;
    let doc = docs.first().ok_or(format!("{FILE} is empty"))?;
    let jobs = doc["jobs"].as_hash().ok_or(format!("{FILE}: no `jobs`"))?;
    let [(_, job)] = jobs.iter().collect::<Vec<_>>()[..] else {
        return Err(format!("{FILE}: expected one job, found {}", jobs.len()));
    };
    let steps = job["steps"]
        .as_vec()
        .ok_or(format!("{FILE}: the job has no `steps`"))?;
    steps
        .iter()
        .enumerate()
        .map(|(n, s)| step(n + 1, s))
        .collect()
}

/// Step `n` (from 1), or why this runner cannot run it.
fn step(n: usize, s: &Yaml) -> Result<Step, String> {
    let at = |what: &str| format!("{FILE}: step {n}: {what}");
    let with = &s["with"];
    let text = |y: &Yaml| match y {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        _ => None,
    };
    if let Some(uses) = s["uses"].as_str() {
        let action = uses.split('@').next().unwrap_or(uses);
        return match action {
            "actions/checkout" => match with["repository"].as_str() {
                None => Ok(Step::CheckoutApp),
                Some(CONTRACTS_REPOSITORY) => {
                    let path = with["path"]
                        .as_str()
                        .ok_or(at("a checkout of the contracts repository needs `path`"))?;
                    Ok(Step::CheckoutContracts {
                        path: path.to_owned(),
                    })
                }
                Some(other) => Err(at(&format!("no stand-in for a checkout of {other}"))),
            },
            "actions/setup-node" => {
                let version =
                    text(&with["node-version"]).ok_or(at("setup-node without `node-version`"))?;
                let major = version
                    .split('.')
                    .next()
                    .and_then(|m| m.parse().ok())
                    .ok_or(at(&format!("node-version {version:?} is not a version")))?;
                Ok(Step::SetupNode { major })
            }
            other => Err(at(&format!("no stand-in for the action {other}"))),
        };
    }
    let command = s["run"].as_str().ok_or(at("neither `uses` nor `run`"))?;
    let dir = s["working-directory"].as_str().unwrap_or(".");
    Ok(Step::Run {
        command: command.to_owned(),
        dir: dir.to_owned(),
    })
}

/// This repository's tracked files, copied to `to` (as a checkout of it would hold them).
fn checkout_contracts(root: &Path, to: &Path) -> Result<(), String> {
    let out = run_cmd(
        Command::new("git")
            .args(["ls-files", "-z", "--cached"])
            .current_dir(root),
    )?;
    if out.code != 0 {
        return Err(format!(
            "git ls-files in {}: {}",
            root.display(),
            out.stderr
        ));
    }
    let _ = std::fs::remove_dir_all(to);
    for file in out.stdout.split('\0').filter(|f| !f.is_empty()) {
        let (from, dest): (PathBuf, PathBuf) = (root.join(file), to.join(file));
        // A file deleted in the working tree is not in the checkout either.
        if !from.is_file() {
            continue;
        }
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::copy(&from, &dest).map_err(|e| format!("{}: {e}", from.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_workflow_is_read_step_by_step() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let text = std::fs::read_to_string(root.join("examples/notes-app").join(FILE)).unwrap();
        let steps = read(&text).unwrap();
        assert_eq!(steps[0], Step::CheckoutApp);
        assert!(steps.contains(&Step::SetupNode { major: 20 }));
        assert!(
            steps
                .iter()
                .any(|s| matches!(s, Step::CheckoutContracts { .. }))
        );
        assert!(steps.iter().any(
            |s| matches!(s, Step::Run { command, dir } if command == "cargo test" && dir == ".")
        ));
    }

    #[test]
    fn an_unknown_action_is_an_error_that_names_it() {
        let text = "jobs:\n  a:\n    steps:\n      - uses: actions/cache@v4\n";
        let err = read(text).unwrap_err();
        assert!(
            err.contains("step 1") && err.contains("actions/cache"),
            "{err}"
        );
        let text = "jobs:\n  a:\n    steps:\n      - name: nothing\n";
        assert!(read(text).unwrap_err().contains("neither `uses` nor `run`"));
    }
}
