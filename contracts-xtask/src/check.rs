//! `cargo xtask check [DIR] [--base NAME=DIR]...`: parse and check schema directories.
//!
//! Without DIR, the project's protocols are checked, each on the bases it names;
//! with bases and no DIR, every directory directly under `schema/`. Diagnostics go to stderr;
//! the exit code is 0 when every directory passes (with a one-line summary each), 1 on any
//! schema error, 2 on a usage error.

use contracts_codegen::load::{LoadOptions, load_dir};
use contracts_codegen::model::{Model, TypeDefKind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Checks `dirs` (every directory under `schema/` when empty) on the protocols `bases`.
pub fn run(root: &Path, dirs: &[PathBuf], bases: &[String]) -> ExitCode {
    let display_root = Some(root.to_path_buf());
    // The base protocols, loaded first and in the order given.
    let mut loaded: Vec<Arc<Model>> = Vec::new();
    for spec in bases {
        let Some((name, path)) = spec
            .split_once('=')
            .filter(|(n, p)| !n.is_empty() && !p.is_empty())
        else {
            eprintln!(
                "error: `--base {spec}`: expected NAME=DIR, e.g. `--base agent=schema/agent`"
            );
            return ExitCode::from(2);
        };
        let options = LoadOptions {
            name: Some(name.to_owned()),
            bases: loaded.clone(),
            display_root: display_root.clone(),
        };
        match load_dir(&resolve(root, Path::new(path)), &options) {
            Ok(model) => loaded.push(Arc::new(model)),
            Err(e) => {
                eprint!("{}", e.render());
                eprintln!("error: the base protocol `{name}` does not pass its checks");
                return ExitCode::from(1);
            }
        }
    }
    let dirs = match dirs {
        [_, ..] => dirs.iter().map(|d| resolve(root, d)).collect::<Vec<_>>(),
        [] => {
            let schema = root.join("schema");
            let mut dirs: Vec<PathBuf> = match std::fs::read_dir(&schema) {
                Ok(entries) => entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect(),
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", schema.display());
                    return ExitCode::from(2);
                }
            };
            dirs.sort();
            if dirs.is_empty() {
                eprintln!("error: no schema directory under {}", schema.display());
                return ExitCode::from(2);
            }
            dirs
        }
    };
    let mut failed = false;
    for d in dirs {
        let options = LoadOptions {
            name: None,
            bases: loaded.clone(),
            display_root: display_root.clone(),
        };
        match load_dir(&d, &options) {
            Ok(model) => println!("{}", summary(&model, root, &d)),
            Err(e) => {
                eprint!("{}", e.render());
                let n = e.diagnostics.items.len();
                eprintln!(
                    "error: {} failed its checks ({n} {})",
                    shown(root, &d),
                    if n == 1 { "error" } else { "errors" }
                );
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Checks the project's protocols in their order, each on the protocols it builds on. A base
/// read from outside the tree is loaded (and reported when it fails) but not summarised.
pub(crate) fn protocols(root: &Path, specs: &[crate::Spec]) -> ExitCode {
    let mut loaded: std::collections::BTreeMap<&str, Arc<Model>> = Default::default();
    let mut failed = false;
    for s in specs {
        let mut bases = Vec::new();
        for b in &s.bases {
            match loaded.get(b.as_str()) {
                Some(m) => bases.push(m.clone()),
                None => {
                    eprintln!(
                        "error: `{}` builds on `{b}`, which did not load (or is not declared before it)",
                        s.name
                    );
                    failed = true;
                }
            }
        }
        if bases.len() != s.bases.len() {
            continue;
        }
        let dir = root.join(&s.dir);
        let options = LoadOptions {
            name: Some(s.name.clone()),
            bases,
            display_root: Some(root.to_path_buf()),
        };
        match load_dir(&dir, &options) {
            Ok(model) => {
                if !s.external {
                    println!("{}", summary(&model, root, &dir));
                }
                loaded.insert(&s.name, Arc::new(model));
            }
            Err(e) => {
                eprint!("{}", e.render());
                let n = e.diagnostics.items.len();
                eprintln!(
                    "error: {} failed its checks ({n} {})",
                    shown(root, &dir),
                    if n == 1 { "error" } else { "errors" }
                );
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `path` relative to the workspace root unless it is absolute.
pub(crate) fn resolve(root: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        // Relative to where the command was run, falling back to the workspace root.
        let here = std::env::current_dir()
            .map(|c| c.join(path))
            .unwrap_or_else(|_| path.to_path_buf());
        if here.exists() { here } else { root.join(path) }
    }
}

fn shown(root: &Path, dir: &Path) -> String {
    let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    abs.strip_prefix(root).unwrap_or(&abs).display().to_string()
}

/// `schema/agent: protocol agent, 41 types (12 structs, ...), 9 requests, 4 events, 7 files`.
fn summary(model: &Model, root: &Path, dir: &Path) -> String {
    let count = |f: fn(&TypeDefKind) -> bool| model.types.iter().filter(|t| f(&t.kind)).count();
    let structs = count(|k| matches!(k, TypeDefKind::Struct(_)));
    let enums = count(|k| matches!(k, TypeDefKind::Enum(_)));
    let unions = count(|k| matches!(k, TypeDefKind::Union(_)));
    let aliases = count(|k| matches!(k, TypeDefKind::Alias(_)));
    let bases: Vec<&str> = model.bases.iter().map(|b| b.name.as_str()).collect();
    let on = if bases.is_empty() {
        String::new()
    } else {
        format!(" (on {})", bases.join(", "))
    };
    format!(
        "{}: ok: protocol {}{on}, {} types ({structs} structs, {enums} enums, {unions} unions, {aliases} aliases), {} requests, {} events, {} files",
        shown(root, dir),
        model.name,
        model.types.len(),
        model.requests.len(),
        model.events.len(),
        model.files.len(),
    )
}
