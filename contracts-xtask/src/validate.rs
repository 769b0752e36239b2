//! `cargo xtask validate --as KIND [--type NAME] [--protocol NAME] [--echo]`: reads JSON lines on stdin
//! and writes one verdict line each.
//!
//! The verdicts come from the project's generated Rust, never from the xtask itself (which
//! stays light, and builds while a schema is broken). Two ways:
//!
//! - **An app's protocol** ([`Project::rust_module`](crate::Project::rust_module): where
//!   `protocol!` generated it, `notes_app::notes`): the xtask writes a small validator crate
//!   into the target directory, `contracts-xtask/validate-<protocol>/`, that depends on the
//!   app's package and on the runtime exactly as the app resolves it (read from `cargo
//!   metadata`: the same source, version and features, the workspace's `Cargo.lock` and
//!   profiles copied), and implements the runtime's `contracts::agent::Tables` over the module's
//!   generated tables, the agent's entries and the app's; its command line is the runtime's
//!   validator binary's (`src/bin/contracts-validate/lines.rs` and `agent.rs` in the runtime's
//!   sources, included by `#[path]`: the library has no command line). It runs it with `cargo run`: the
//!   verdict is the one the app's host gives, over its composed tables. Nothing is written
//!   into the app's tree.
//! - **A binary of the project** ([`Validator`]: this repository's `contracts-validate`).
//!
//! Either way stdin and stdout are passed through: one verdict line per input line,
//! `{"ok":true}` (with `--echo`, where the validator can, `{"ok":true,"value":...}`: the line
//! as the generated types write it back) or
//! `{"ok":false,"stage":"envelope"|"table","message":"..."}`, exit 0;
//! exit 2 for a usage error (an unknown kind or `--type`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde_json::Value;

/// The binary that judges lines: `cargo run --package PACKAGE --bin BIN [--features F,..] --
/// [PROTOCOL] KIND [TYPE] [--echo]`.
#[derive(Clone, Debug)]
pub struct Validator {
    pub package: String,
    pub bin: String,
    /// Whether the binary takes the protocol's name as its first argument (one binary for
    /// several protocols).
    pub takes_protocol: bool,
    /// The package's features the binary is built with (the runtime's `mcp` and `acp`).
    pub features: Vec<String>,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The protocol, when the project's validator judges several.
    #[arg(long)]
    pub protocol: Option<String>,
    /// What each line is: request|server|payload|result|event|type for an agent-shaped
    /// protocol, client|server for connect, message|payload|result|event|type for a JSON-RPC
    /// protocol (mcp, acp).
    #[arg(long = "as", value_name = "KIND")]
    pub kind: String,
    /// The request or event name for payload, result and event; a type's name for type.
    #[arg(long = "type", value_name = "NAME")]
    pub type_name: Option<String>,
    /// Write an accepted line's value back as the generated types write it, in the verdict's
    /// `"value"` (a validator that can: the runtime's, for mcp and acp).
    #[arg(long)]
    pub echo: bool,
}

/// The runtime crate's package name, which an app depends on (under any name).
pub const RUNTIME_PACKAGE: &str = "adecore-contracts";

/// Runs `validate`: through the generated validator of a protocol with a Rust module, else
/// through the project's binary.
pub fn run(
    root: &Path,
    validator: Option<&Validator>,
    modules: &BTreeMap<String, String>,
    args: Args,
) -> ExitCode {
    let generated = match &args.protocol {
        Some(p) => modules.get_key_value(p),
        None if validator.is_none() && modules.len() == 1 => modules.iter().next(),
        None if validator.is_none() && modules.len() > 1 => {
            let names: Vec<&str> = modules.keys().map(String::as_str).collect();
            eprintln!(
                "xtask validate: --protocol is required: one of {}",
                names.join(", ")
            );
            return ExitCode::from(2);
        }
        None => None,
    };
    if let Some((protocol, module)) = generated {
        if args.echo {
            eprintln!(
                "xtask validate: --echo is not available for `{protocol}` (its validator over the generated tables writes no value back)"
            );
            return ExitCode::from(2);
        }
        return match generated_validator(root, protocol, module) {
            Ok(manifest) => {
                let mut cmd = cargo();
                cmd.current_dir(root)
                    .args(["run", "--quiet", "--manifest-path"]);
                cmd.arg(&manifest.manifest).arg("--").arg(&args.kind);
                cmd.args(&args.type_name);
                cmd.env("CARGO_TARGET_DIR", &manifest.target_dir);
                status(cmd)
            }
            Err(e) => {
                eprintln!("xtask validate: {e}");
                ExitCode::from(2)
            }
        };
    }
    binary(root, validator, args)
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn status(mut cmd: Command) -> ExitCode {
    match cmd.status() {
        Ok(status) => ExitCode::from(status.code().map_or(1, |c| c.clamp(0, 255) as u8)),
        Err(e) => {
            eprintln!("xtask validate: could not run cargo: {e}");
            ExitCode::from(2)
        }
    }
}

/// `validate` through the project's validator binary.
fn binary(root: &Path, validator: Option<&Validator>, args: Args) -> ExitCode {
    let Some(v) = validator else {
        match &args.protocol {
            Some(p) => eprintln!(
                "xtask validate: the project names no Rust module for `{p}` (Project::rust_module) and no validator binary (Project::validator)"
            ),
            None => eprintln!(
                "xtask validate: this project's xtask names no protocol's Rust module (Project::rust_module) and no validator binary (Project::validator)"
            ),
        }
        return ExitCode::from(2);
    };
    let mut cmd = cargo();
    cmd.current_dir(root)
        .args(["run", "--quiet", "--package", &v.package, "--bin", &v.bin]);
    if !v.features.is_empty() {
        cmd.arg("--features").arg(v.features.join(","));
    }
    cmd.arg("--");
    match (&args.protocol, v.takes_protocol) {
        (Some(p), true) => {
            cmd.arg(p);
        }
        (None, true) => {
            eprintln!("xtask validate: --protocol is required (the validator judges several)");
            return ExitCode::from(2);
        }
        (Some(_), false) => {
            eprintln!(
                "xtask validate: this project's validator judges one protocol; leave out --protocol"
            );
            return ExitCode::from(2);
        }
        (None, false) => {}
    }
    cmd.arg(&args.kind);
    if let Some(t) = &args.type_name {
        cmd.arg(t);
    }
    if args.echo {
        cmd.arg("--echo");
    }
    status(cmd)
}

/// A generated validator crate, written and ready to run.
pub struct Generated {
    /// Its `Cargo.toml`.
    pub manifest: PathBuf,
    /// The workspace's target directory, which it builds in (its dependencies compiled once
    /// for both).
    pub target_dir: PathBuf,
}

/// Writes the validator crate of `protocol`, whose generated module is `module`
/// (`notes_app::notes`), into the workspace's target directory.
pub fn generated_validator(root: &Path, protocol: &str, module: &str) -> Result<Generated, String> {
    let metadata = metadata(root)?;
    let plan = plan(&metadata, protocol, module)?;
    let dir = plan
        .target_dir
        .join("contracts-xtask")
        .join(format!("validate-{protocol}"));
    let profiles = std::fs::read_to_string(root.join("Cargo.toml"))
        .map(|t| profiles(&t))
        .unwrap_or_default();
    write_if_changed(&dir.join("Cargo.toml"), &plan.manifest(&profiles))?;
    write_if_changed(&dir.join("src/main.rs"), &plan.main_rs())?;
    // The workspace's lock: the validator resolves every package as the app does.
    if let Ok(lock) = std::fs::read_to_string(root.join("Cargo.lock")) {
        write_if_changed(&dir.join("Cargo.lock"), &lock)?;
    }
    Ok(Generated {
        manifest: dir.join("Cargo.toml"),
        target_dir: plan.target_dir,
    })
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `cargo metadata` of the workspace at `root`.
fn metadata(root: &Path) -> Result<Value, String> {
    let out = cargo()
        .current_dir(root)
        .args(["metadata", "--format-version", "1"])
        .output()
        .map_err(|e| format!("could not run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata's output: {e}"))
}

/// What the validator crate is made of.
#[derive(Debug, PartialEq, Eq)]
pub struct Plan {
    pub protocol: String,
    /// The module's path, `notes_app::notes`.
    pub module: String,
    /// The app's library name (the module path's first segment), its package and directory.
    pub lib: String,
    pub package: String,
    pub package_dir: PathBuf,
    /// The runtime, as a dependency table's inline value (`{ path = "...", ... }`).
    pub runtime: String,
    /// The runtime package's directory (its sources: the validator's command line is compiled
    /// from its `src/bin/contracts-validate/`).
    pub runtime_dir: PathBuf,
    pub target_dir: PathBuf,
}

/// Finds the app's package and how it depends on the runtime in `metadata`.
pub fn plan(metadata: &Value, protocol: &str, module: &str) -> Result<Plan, String> {
    let lib = module.split("::").next().unwrap_or_default().to_owned();
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let members: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let is_lib = |t: &Value| {
        t["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| matches!(k.as_str(), Some("lib" | "rlib"))))
    };
    let app = packages
        .iter()
        .filter(|p| p["id"].as_str().is_some_and(|id| members.contains(&id)))
        .find(|p| {
            p["targets"].as_array().is_some_and(|ts| {
                ts.iter()
                    .any(|t| is_lib(t) && t["name"].as_str() == Some(lib.as_str()))
            })
        })
        .ok_or_else(|| {
            format!(
                "no package of the workspace has a library called `{lib}` (the Rust module of `{protocol}` is `{module}`, Project::rust_module)"
            )
        })?;
    let app_id = app["id"].as_str().unwrap_or_default();
    let package = app["name"].as_str().unwrap_or_default().to_owned();
    let package_dir = dir_of(&app["manifest_path"]);
    let by_id = |id: &str| packages.iter().find(|p| p["id"].as_str() == Some(id));
    // The runtime the app's library was resolved with: its package and its features.
    let node = metadata["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| n["id"].as_str() == Some(app_id))
        .ok_or_else(|| format!("cargo metadata resolved no package {package}"))?;
    let runtime_id = node["deps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["pkg"].as_str())
        .find(|id| by_id(id).is_some_and(|p| p["name"].as_str() == Some(RUNTIME_PACKAGE)))
        .ok_or_else(|| format!("{package} does not depend on {RUNTIME_PACKAGE}"))?;
    let runtime = by_id(runtime_id).ok_or("cargo metadata lists no runtime package")?;
    let features: Vec<String> = metadata["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| n["id"].as_str() == Some(runtime_id))
        .and_then(|n| n["features"].as_array())
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|f| *f != "default")
        .map(|f| format!("{f:?}"))
        .collect();
    let runtime_dir = dir_of(&runtime["manifest_path"]);
    let version = runtime["version"].as_str().unwrap_or_default();
    let source = match runtime["source"].as_str() {
        None => format!(
            "path = {}",
            toml_string(&dir_of(&runtime["manifest_path"]).display().to_string())
        ),
        Some(s) => source_spec(s, version)?,
    };
    let defaults = metadata["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| n["id"].as_str() == Some(runtime_id))
        .and_then(|n| n["features"].as_array())
        .is_some_and(|fs| fs.iter().any(|f| f.as_str() == Some("default")));
    let runtime = format!(
        "{{ package = \"{RUNTIME_PACKAGE}\", {source}, default-features = {defaults}, features = [{}] }}",
        features.join(", ")
    );
    Ok(Plan {
        protocol: protocol.to_owned(),
        module: module.to_owned(),
        lib,
        package,
        package_dir,
        runtime,
        runtime_dir,
        target_dir: PathBuf::from(metadata["target_directory"].as_str().unwrap_or("target")),
    })
}

/// The directory of a `manifest_path`.
fn dir_of(manifest: &Value) -> PathBuf {
    let path = PathBuf::from(manifest.as_str().unwrap_or_default());
    path.parent().map(Path::to_path_buf).unwrap_or(path)
}

/// A package source of `cargo metadata` as the keys of a dependency: the same registry, or
/// the same git repository and reference (another reference would be another package).
fn source_spec(source: &str, version: &str) -> Result<String, String> {
    if let Some(index) = source
        .strip_prefix("registry+")
        .or(source.strip_prefix("sparse+"))
    {
        let crates_io = matches!(
            index,
            "https://github.com/rust-lang/crates.io-index" | "https://index.crates.io/"
        );
        return Ok(if crates_io {
            format!("version = \"={version}\"")
        } else {
            format!(
                "version = \"={version}\", registry-index = {}",
                toml_string(source)
            )
        });
    }
    if let Some(git) = source.strip_prefix("git+") {
        let git = git.split('#').next().unwrap_or(git);
        let (url, query) = git.split_once('?').unwrap_or((git, ""));
        let mut spec = format!("git = {}", toml_string(url));
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            if let Some((key @ ("branch" | "tag" | "rev"), value)) = pair.split_once('=') {
                spec.push_str(&format!(", {key} = {}", toml_string(value)));
            }
        }
        return Ok(spec);
    }
    Err(format!(
        "{RUNTIME_PACKAGE} comes from a source the validator cannot name: {source}"
    ))
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// The `[profile.*]` sections of a workspace manifest, as written (they name no path).
fn profiles(manifest: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in manifest.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            inside = trimmed.starts_with("[profile.") || trimmed.starts_with("[profile]");
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

impl Plan {
    /// The validator's `Cargo.toml`: its own workspace, the app's package by path, the runtime
    /// from the app's source with the app's features, the app's profiles.
    pub fn manifest(&self, profiles: &str) -> String {
        format!(
            "# Written by `cargo xtask validate` (contracts-xtask) on every run; do not edit.\n\
             [package]\n\
             name = \"xtask-validate-{name}\"\n\
             version = \"0.0.0\"\n\
             edition = \"2024\"\n\
             publish = false\n\
             \n\
             # Its own workspace, beside the app's.\n\
             [workspace]\n\
             \n\
             [dependencies]\n\
             {lib} = {{ package = {package}, path = {dir} }}\n\
             contracts = {runtime}\n\
             {profiles_sep}{profiles}",
            name = self.protocol,
            lib = self.lib,
            package = toml_string(&self.package),
            dir = toml_string(&self.package_dir.display().to_string()),
            runtime = self.runtime,
            profiles_sep = if profiles.is_empty() { "" } else { "\n" },
        )
    }

    /// The validator's `main.rs`: the runtime's validator over the module's tables, its
    /// command line compiled from the runtime's validator binary.
    pub fn main_rs(&self) -> String {
        let m = &self.module;
        let bin = self
            .runtime_dir
            .join("src")
            .join("bin")
            .join("contracts-validate");
        // Rust string literals of the two files' paths.
        let source = |file: &str| format!("{:?}", bin.join(file).display().to_string());
        format!(
            "//! Written by `cargo xtask validate` (contracts-xtask) on every run; do not edit.\n\
             //! The verdicts of the `{protocol}` protocol over the tables `protocol!` generated in\n\
             //! `{m}`: the agent's entries and the app's.\n\
             \n\
             // The command line of the runtime's `contracts-validate`: the stdin loop, and a\n\
             // validator over agent-shaped tables.\n\
             #[path = {lines}]\n\
             mod lines;\n\
             #[path = {agent}]\n\
             mod agent;\n\
             \n\
             struct Protocol;\n\
             \n\
             impl contracts::agent::Tables for Protocol {{\n    \
                 type Request = {m}::RequestPayload;\n    \
                 type Result = {m}::RequestResult;\n    \
                 type Event = {m}::EventPayload;\n    \
                 const REQUEST_NAMES: &'static [&'static str] = {m}::REQUEST_NAMES;\n    \
                 const EVENT_NAMES: &'static [&'static str] = {m}::EVENT_NAMES;\n    \
                 fn check_type(\n        \
                     name: &str,\n        \
                     json: &str,\n    \
                 ) -> Option<Result<(), contracts::wire::ParseError>> {{\n        \
                     {m}::check_type(name, json)\n    \
                 }}\n\
             }}\n\
             \n\
             fn main() -> std::process::ExitCode {{\n    \
                 let args: Vec<String> = std::env::args().skip(1).collect();\n    \
                 agent::run::<Protocol>(\n        \
                     \"xtask validate\",\n        \
                     \"usage: cargo xtask validate --as request|server|payload|result|event|type [--type NAME]\",\n        \
                     &args,\n    \
                 )\n\
             }}\n",
            protocol = self.protocol,
            lines = source("lines.rs"),
            agent = source("agent.rs"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(runtime_source: Value, features: &[&str]) -> Value {
        serde_json::json!({
            "packages": [
                {
                    "id": "path+file:///app#notes-app@0.1.0",
                    "name": "notes-app",
                    "manifest_path": "/app/Cargo.toml",
                    "targets": [
                        { "kind": ["lib"], "name": "notes_app" },
                        { "kind": ["bin"], "name": "notes-app" }
                    ]
                },
                {
                    "id": "rt",
                    "name": "adecore-contracts",
                    "version": "0.1.0",
                    "source": runtime_source,
                    "manifest_path": "/rt/Cargo.toml",
                    "targets": [{ "kind": ["lib"], "name": "contracts" }]
                }
            ],
            "workspace_members": ["path+file:///app#notes-app@0.1.0"],
            "resolve": { "nodes": [
                { "id": "path+file:///app#notes-app@0.1.0", "deps": [{ "name": "contracts", "pkg": "rt" }] },
                { "id": "rt", "deps": [], "features": features }
            ]},
            "target_directory": "/app/target"
        })
    }

    #[test]
    fn the_runtime_is_named_as_the_app_resolves_it() {
        let runtime = |source: Value, features: &[&str]| {
            plan(&metadata(source, features), "notes", "notes_app::notes")
                .unwrap()
                .runtime
        };
        assert_eq!(
            runtime(Value::Null, &["default", "tokio", "websocket"]),
            r#"{ package = "adecore-contracts", path = "/rt", default-features = true, features = ["tokio", "websocket"] }"#
        );
        assert_eq!(
            runtime(
                "registry+https://github.com/rust-lang/crates.io-index".into(),
                &["websocket"]
            ),
            r#"{ package = "adecore-contracts", version = "=0.1.0", default-features = false, features = ["websocket"] }"#
        );
        assert_eq!(
            runtime(
                "git+https://github.com/adecore/contracts?tag=v0.1.0#0123abc".into(),
                &[]
            ),
            r#"{ package = "adecore-contracts", git = "https://github.com/adecore/contracts", tag = "v0.1.0", default-features = false, features = [] }"#
        );
        let p = plan(&metadata(Value::Null, &[]), "notes", "notes_app::notes").unwrap();
        assert_eq!(p.package, "notes-app");
        assert_eq!(p.package_dir, PathBuf::from("/app"));
        assert_eq!(p.target_dir, PathBuf::from("/app/target"));
        let manifest = p.manifest("[profile.dev]\nopt-level = 1\n");
        assert!(
            manifest.contains("notes_app = { package = \"notes-app\", path = \"/app\" }\n"),
            "{manifest}"
        );
        assert!(manifest.contains("\n[workspace]\n"), "{manifest}");
        assert!(
            manifest.ends_with("\n\n[profile.dev]\nopt-level = 1\n"),
            "{manifest}"
        );
        let main = p.main_rs();
        assert!(
            main.contains("type Request = notes_app::notes::RequestPayload;"),
            "{main}"
        );
        // The command line is the runtime's validator binary's, from the runtime's sources.
        assert_eq!(p.runtime_dir, PathBuf::from("/rt"));
        assert!(
            main.contains(
                "#[path = \"/rt/src/bin/contracts-validate/lines.rs\"]\nmod lines;\n\
                 #[path = \"/rt/src/bin/contracts-validate/agent.rs\"]\nmod agent;\n"
            ),
            "{main}"
        );
    }

    #[test]
    fn a_module_of_no_library_of_the_workspace_is_refused() {
        let err = plan(&metadata(Value::Null, &[]), "notes", "notes::notes").unwrap_err();
        assert!(
            err.contains("no package of the workspace has a library called `notes`"),
            "{err}"
        );
    }

    #[test]
    fn only_profiles_are_copied() {
        let manifest = "[workspace]\nmembers = []\n\n[profile.dev.package.\"*\"]\ndebug = false\n\n[patch.crates-io]\nx = { path = \"y\" }\n[profile.bench]\ncodegen-units = 1\n";
        assert_eq!(
            profiles(manifest),
            "[profile.dev.package.\"*\"]\ndebug = false\n\n[profile.bench]\ncodegen-units = 1\n"
        );
    }
}
