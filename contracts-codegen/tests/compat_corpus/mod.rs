//! The compat corpus as both compat tests read it: its cases, and each side of a case loaded.

use contracts_codegen::analysis::Checked;
use contracts_codegen::load::{LoadOptions, load_files};
use contracts_codegen::model::{Model, SourceFile};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const PROTOCOL: &str = "demo";

pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat")
}

/// Every `.contract` file of one side, shown as `tests/compat/<case>/<side>/<file>`.
pub fn read_side(case: &Path, side: &str) -> Vec<SourceFile> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "contract") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&case.join(side), &mut paths);
    paths.sort();
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    paths
        .into_iter()
        .map(|p| {
            let shown = p
                .strip_prefix(crate_dir)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            SourceFile {
                display: Arc::from(shown),
                absolute: p,
                text,
            }
        })
        .collect()
}

/// Load one side; a side with no file is an empty protocol (the schema is new).
pub fn load(case: &Path, side: &str) -> Result<Checked, String> {
    let files = read_side(case, side);
    if files.is_empty() {
        return Ok(Checked::new(Model {
            name: PROTOCOL.into(),
            ..Model::default()
        }));
    }
    load_files(PROTOCOL, files, &LoadOptions::default())
        .map(Checked::new)
        .map_err(|e| e.render())
}

/// Load both sides of a case; when either has schema errors, both sides' errors, named by
/// the case.
pub fn load_case(case: &Path, name: &str) -> Result<(Checked, Checked), String> {
    match (load(case, "base"), load(case, "head")) {
        (Ok(b), Ok(h)) => Ok((b, h)),
        (b, h) => Err(format!(
            "{name}: schema errors:\n{}{}",
            b.err().unwrap_or_default(),
            h.err().unwrap_or_default()
        )),
    }
}

pub fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}
