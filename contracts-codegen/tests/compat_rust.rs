//! Compat's verdict and Rust source compatibility agree, checked by rustc on the compat corpus.
//!
//! For every wire-compatible case (`tests/compat/*-ok`), code a user would write against the
//! BASE schema's generated Rust (`emit::rust::usage`: every struct built by `new` and setters
//! and read field by field, every enum, union and by-name enum matched, a `Host` answering every
//! request, every type named by its path) is compiled in a crate of its own, apart from the crate that invokes `protocol!` (so
//! `#[non_exhaustive]` bites as it does for a user), once against base and once against head.
//! Against base it must build (the usage generator is sound); against head it must build
//! exactly when compat's Rust-source verdict for the case (`compat::rust_source`: no finding
//! whose rule breaks Rust source) says the source is kept. Every disagreement fails with the
//! case and rustc's errors.
//!
//! All cases are one generated cargo workspace under `CARGO_TARGET_TMPDIR/compat-rust`, with
//! path dependencies onto this checkout's crates and its own target dir (kept between runs),
//! checked by one `cargo check --offline --keep-going --message-format=json`.

mod compat_corpus;

use compat_corpus::{PROTOCOL, cases, load_case};
use contracts_codegen::analysis::Checked;
use contracts_codegen::compat;
use contracts_codegen::emit::rust::{RustOptions, usage};
use contracts_codegen::model::Model;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One case of the corpus, loaded and judged.
struct Case {
    name: String,
    dir: PathBuf,
    base: Checked,
    head: Checked,
    /// The Rust-source notes compat gives (`rule: reason`); none means the source is kept.
    breaks: Vec<String>,
}

/// A crate name of the generated workspace from a case name (`type-renamed-ok` -> `type_renamed_ok`).
fn ident(case: &str) -> String {
    case.replace('-', "_")
}

fn has_files(m: &Model) -> bool {
    !m.files.is_empty()
}

/// The generated workspace: per case a protocol crate (base and head as modules) and a usage
/// crate per side.
fn write_workspace(root: &Path, cases: &[Case]) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let repo = repo.canonicalize().unwrap_or(repo);
    let contracts = repo.join("contracts");
    let mut members = Vec::new();
    let write = |path: PathBuf, text: String| {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        // An unchanged file keeps its mtime, so a second run rebuilds only what changed.
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    };
    let contracts_dep = format!(
        "contracts = {{ path = {:?}, package = \"adecore-contracts\" }}",
        contracts.display().to_string()
    );
    for c in cases {
        let id = ident(&c.name);
        let proto = format!("p_{id}");
        members.push(proto.clone());
        let mut lib = String::from(
            "//! The generated protocol of a compat case, base and head.\n#![allow(deprecated)]\n",
        );
        for (side, m) in [("base", &c.base), ("head", &c.head)] {
            if has_files(m) {
                let dir = c.dir.join(side);
                let _ = writeln!(
                    lib,
                    "pub mod {side} {{\n    contracts::protocol! {{ name: {PROTOCOL:?}, dir: {:?} }}\n}}",
                    dir.display().to_string()
                );
            }
        }
        write(
            root.join(&proto).join("Cargo.toml"),
            format!(
                "[package]\nname = \"{proto}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{contracts_dep}\n"
            ),
        );
        write(root.join(&proto).join("src/lib.rs"), lib);
        if !has_files(&c.base) {
            continue;
        }
        let code = usage(&c.base, &RustOptions::default());
        let code = match syn::parse2::<syn::File>(code.clone()) {
            Ok(f) => prettyplease::unparse(&f),
            Err(_) => code.to_string(),
        };
        for side in ["base", "head"] {
            let krate = format!("u_{id}_{side}");
            members.push(krate.clone());
            write(
                root.join(&krate).join("Cargo.toml"),
                format!(
                    "[package]\nname = \"{krate}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{contracts_dep}\n{proto} = {{ path = \"../{proto}\" }}\n"
                ),
            );
            let import = format!("use {proto}::{side}::*;\n");
            write(
                root.join(&krate).join("src/lib.rs"),
                format!(
                    "//! Code written against `{}`'s base, compiled against its {side}.\n#![allow(deprecated, dead_code, unused, clippy::all)]\n{import}\n{code}",
                    c.name
                ),
            );
        }
    }
    let members: Vec<String> = members.iter().map(|m| format!("{m:?}")).collect();
    write(
        root.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    );
    // The checkout's lock file pins every registry dependency, so the check runs offline.
    if !root.join("Cargo.lock").exists() {
        let _ = std::fs::copy(repo.join("Cargo.lock"), root.join("Cargo.lock"));
    }
}

/// What rustc said of one crate: its errors, rendered, and whether it was built.
#[derive(Default)]
struct Outcome {
    errors: Vec<String>,
    built: bool,
}

fn check(root: &Path) -> BTreeMap<String, Outcome> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env_remove("RUSTFLAGS")
        .args([
            "check",
            "--workspace",
            "--offline",
            "--keep-going",
            "--message-format=json",
            "--quiet",
        ])
        .output()
        .unwrap_or_else(|e| panic!("cargo: {e}"));
    let mut outcomes: BTreeMap<String, Outcome> = BTreeMap::new();
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in stdout.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let Some(krate) = v.pointer("/target/name").and_then(|n| n.as_str()) else {
            continue;
        };
        if !krate.starts_with("u_") && !krate.starts_with("p_") {
            continue;
        }
        let o = outcomes.entry(krate.to_string()).or_default();
        match v.get("reason").and_then(|r| r.as_str()) {
            Some("compiler-artifact") => o.built = true,
            Some("compiler-message") => {
                let level = v.pointer("/message/level").and_then(|l| l.as_str());
                if level == Some("error") {
                    let text = v
                        .pointer("/message/rendered")
                        .and_then(|r| r.as_str())
                        .unwrap_or_default();
                    o.errors.push(text.to_string());
                }
            }
            _ => {}
        }
    }
    if outcomes.is_empty() {
        panic!(
            "cargo check in {} reported nothing:\n{}",
            root.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    outcomes
}

#[test]
fn compatible_changes_keep_rust_source_exactly_when_compat_says_so() {
    let mut failures = Vec::new();
    let mut loaded = Vec::new();
    for dir in cases() {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !name.ends_with("-ok") {
            continue;
        }
        let (base, head) = match load_case(&dir, &name) {
            Ok(pair) => pair,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let findings = compat::diff(&base, &head);
        let mut breaks: Vec<String> = compat::rust_source(&findings)
            .into_iter()
            .map(|(f, why)| format!("{}: {why}", f.rule.id))
            .collect();
        breaks.dedup();
        loaded.push(Case {
            name,
            dir,
            base,
            head,
            breaks,
        });
    }
    assert!(loaded.len() >= 20, "the compatible cases are missing");
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compat-rust");
    write_workspace(&root, &loaded);
    let outcomes = check(&root);
    let mut table = String::from("case | Rust source (compat) | head compiles\n");
    for c in &loaded {
        let id = ident(&c.name);
        if let Some(o) = outcomes.get(&format!("p_{id}"))
            && !o.errors.is_empty()
        {
            failures.push(format!(
                "{}: the generated protocol does not build:\n{}",
                c.name,
                o.errors.join("\n")
            ));
            continue;
        }
        if !has_files(&c.base) {
            let _ = writeln!(table, "{} | kept (no base) | -", c.name);
            continue;
        }
        let get = |side: &str| outcomes.get(&format!("u_{id}_{side}"));
        let (Some(base), Some(head)) = (get("base"), get("head")) else {
            failures.push(format!("{}: cargo checked neither usage crate", c.name));
            continue;
        };
        if !base.errors.is_empty() || !base.built {
            failures.push(format!(
                "{}: the usage written from base does not build against base:\n{}",
                c.name,
                base.errors.join("\n")
            ));
            continue;
        }
        let compiles = head.built && head.errors.is_empty();
        let kept = c.breaks.is_empty();
        let said = if kept {
            "kept".to_string()
        } else {
            format!("breaks ({})", c.breaks.join("; "))
        };
        let _ = writeln!(table, "{} | {said} | {compiles}", c.name);
        if kept && !compiles {
            failures.push(format!(
                "{}: compat says Rust source is kept, but code written against base does not build against head:\n{}",
                c.name,
                head.errors.join("\n")
            ));
        } else if !kept && compiles {
            failures.push(format!(
                "{}: compat says Rust source breaks ({}), but code written against base builds against head",
                c.name,
                c.breaks.join("; ")
            ));
        }
    }
    eprintln!("{table}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
