//! load: the only IO; reads a schema directory and runs parse, lower and check.
//!
//! [`load_dir`] reads every `*.contract` file under a directory (recursively, sorted by path);
//! [`load_files`] takes the files ready-made (from a git revision, from a test) and does no IO.
//! Both return the checked model, or every diagnostic with the files needed to render them.
//!
//! Diagnostics name files as a reader can open them: relative to the display root when below
//! it (the workspace root of the crate, [`workspace_root`], for the macro; the checkout for an
//! xtask), else absolute with `..` resolved (a base protocol's schema in cargo's registry).

use crate::diag::Diagnostics;
use crate::model::{Loc, Model, SourceFile};
use crate::{check, lower, parse};
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// How to load a schema directory.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// The protocol's name; by default the directory's name (`schema/agent` is `agent`).
    pub name: Option<String>,
    /// The protocols this one builds on (an app's `agent`), already loaded.
    pub bases: Vec<Arc<Model>>,
    /// Show file paths relative to this directory (e.g. the workspace root, so paths read
    /// `schema/agent/chat.contract`, see [`workspace_root`]) and paths outside it absolute;
    /// by default paths are shown as given.
    pub display_root: Option<PathBuf>,
}

/// A schema that did not pass: every diagnostic, and the files they point into (this
/// directory's, then its bases').
#[derive(Clone, Debug)]
pub struct LoadError {
    pub diagnostics: Diagnostics,
    pub files: Vec<SourceFile>,
}

impl LoadError {
    /// Every diagnostic as `path:line:col: error: message`, with the source line and a caret.
    pub fn render(&self) -> String {
        self.diagnostics.render(&self.files)
    }

    fn at(loc: Loc, message: String) -> LoadError {
        let mut diagnostics = Diagnostics::default();
        diagnostics.error(&loc, message);
        LoadError {
            diagnostics,
            files: Vec::new(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for LoadError {}

/// Read, parse, lower and check the schema directory `dir`.
pub fn load_dir(dir: &Path, options: &LoadOptions) -> Result<Model, LoadError> {
    let shown = display(dir, options.display_root.as_deref());
    let here = Loc {
        file: Arc::from(shown.as_str()),
        line: 0,
        col: 0,
    };
    let name = match &options.name {
        Some(n) => n.clone(),
        None => match std::path::absolute(dir)
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        {
            Some(n) => n,
            None => {
                return Err(LoadError::at(
                    here,
                    "cannot tell the protocol's name from this path; name it".to_owned(),
                ));
            }
        },
    };
    if !dir.is_dir() {
        return Err(LoadError::at(
            here,
            format!("the schema directory `{shown}` does not exist or is not a directory"),
        ));
    }
    let mut paths = Vec::new();
    let mut diags = Diagnostics::default();
    walk(
        dir,
        &mut paths,
        &mut diags,
        options.display_root.as_deref(),
        0,
    );
    paths.sort();
    if paths.is_empty() && !diags.has_errors() {
        diags.error(
            &here,
            format!("the schema directory `{shown}` holds no `.contract` file"),
        );
    }
    let mut files = Vec::new();
    for path in paths {
        let display: Arc<str> = Arc::from(display(&path, options.display_root.as_deref()));
        let module = match path.strip_prefix(dir).ok().and_then(|r| r.parent()) {
            Some(rel) => module_of(rel, &display, &mut diags),
            None => None,
        };
        let absolute = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
        match std::fs::read_to_string(&path) {
            Ok(text) => files.push((
                SourceFile {
                    display,
                    absolute,
                    text,
                },
                module,
            )),
            Err(e) => {
                diags.error(
                    &Loc {
                        file: display,
                        line: 1,
                        col: 1,
                    },
                    format!("cannot read this file: {e}"),
                );
            }
        }
    }
    run(&name, files, options, diags)
}

/// Parse, lower and check ready-made files (no IO): for the compatibility differ reading git
/// revisions, and for tests. Files are taken in path order. Their module is the subdirectory
/// they sit in below the protocol's directory: the deepest directory holding every file, or
/// the last component named `name` above it (so `schema/agent/task/x.contract` alone is still
/// in the module `task`).
pub fn load_files(
    name: &str,
    mut files: Vec<SourceFile>,
    options: &LoadOptions,
) -> Result<Model, LoadError> {
    files.sort_by(|a, b| a.display.cmp(&b.display));
    let mut diags = Diagnostics::default();
    if files.is_empty() {
        diags.error(
            &Loc {
                file: Arc::from(name),
                line: 0,
                col: 0,
            },
            format!("the protocol `{name}` has no `.contract` file"),
        );
    }
    let split: Vec<Vec<&str>> = files
        .iter()
        .map(|f| f.display.split(['/', '\\']).collect())
        .collect();
    // The deepest directory every file sits in.
    let mut common = split
        .first()
        .map(|s| s.len().saturating_sub(1))
        .unwrap_or(0);
    for s in &split {
        let same = s.iter().zip(&split[0]).take_while(|(a, b)| a == b).count();
        common = common.min(same).min(s.len().saturating_sub(1));
    }
    let mut out = Vec::new();
    for (file, parts) in files.iter().zip(&split) {
        let dirs = &parts[..parts.len().saturating_sub(1)];
        // The protocol's directory: the last component named `name` that holds every file,
        // stepping back over a module named like the protocol (`schema/agent/agent/`).
        let mut start = common;
        if let Some(mut i) = (0..common.min(dirs.len())).rev().find(|&i| dirs[i] == name) {
            while i > 0 && dirs[i - 1] == name {
                i -= 1;
            }
            start = i + 1;
        }
        let rel: PathBuf = dirs[start.min(dirs.len())..].iter().collect();
        let module = module_of(&rel, &file.display, &mut diags);
        out.push((file.clone(), module));
    }
    run(name, out, options, diags)
}

/// The modules the generated Rust declares beside a directory's: the request and event
/// tables' markers, the borrowed views, and the runtime as each impl block names it (`rt`).
const GENERATED_MODULES: &[&str] = &["requests", "events", "views", "rt"];

/// The module for a file whose directory, relative to the protocol's, is `rel`: `None` at the
/// root, the directory's name one level down; deeper nesting is refused.
fn module_of(rel: &Path, display: &Arc<str>, diags: &mut Diagnostics) -> Option<String> {
    let parts: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let loc = Loc {
        file: display.clone(),
        line: 1,
        col: 1,
    };
    match parts.as_slice() {
        [] => None,
        [m] => {
            let ok = m.starts_with(|c: char| c.is_ascii_lowercase())
                && m.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                && !crate::names::is_rust_keyword(m);
            if !ok {
                diags.error(&loc, format!("the directory `{m}` names a module, so it must be a lowercase identifier (not a keyword)"));
            } else if GENERATED_MODULES.contains(&m.as_str()) {
                diags.error(&loc, format!("the directory `{m}` names a module, and the generated code declares a module `{m}` beside it (the tables' `requests` and `events`, the views' `views`, the runtime's `rt`); rename the directory"));
            }
            Some(m.clone())
        }
        _ => {
            diags.error(&loc, "schema files sit in the protocol's directory or one subdirectory (a module), not deeper");
            parts.first().cloned()
        }
    }
}

/// Parse every file, then lower and check them all: every mistake of every file is reported.
fn run(
    name: &str,
    files: Vec<(SourceFile, Option<String>)>,
    options: &LoadOptions,
    mut diags: Diagnostics,
) -> Result<Model, LoadError> {
    let parsed = parse::with_fallback(|| {
        files
            .iter()
            .map(|(f, module)| {
                parse::parse_file(f.display.clone(), module.clone(), &f.text, &mut diags)
            })
            .collect::<Vec<_>>()
    });
    let missing = check::Missing::of(&parsed);
    check::check_syntax(&parsed, &mut diags);
    let mut model = lower::lower(name, &parsed, &options.bases);
    model.files = files.into_iter().map(|(f, _)| f).collect();
    check::check_with(&model, &missing, &mut diags);
    if diags.has_errors() {
        diags.sort();
        let mut files = model.files;
        let mut seen: Vec<String> = Vec::new();
        base_files(&options.bases, &mut files, &mut seen);
        return Err(LoadError {
            diagnostics: diags,
            files,
        });
    }
    Ok(model)
}

/// The files of every base, once each, for notes that point into them.
fn base_files(bases: &[Arc<Model>], out: &mut Vec<SourceFile>, seen: &mut Vec<String>) {
    for b in bases {
        if seen.contains(&b.name) {
            continue;
        }
        seen.push(b.name.clone());
        out.extend(b.files.iter().cloned());
        base_files(&b.bases, out, seen);
    }
}

/// Every `*.contract` file under `dir`, recursively.
fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    diags: &mut Diagnostics,
    root: Option<&Path>,
    depth: u32,
) {
    // Deeper than a module is refused anyway; the bound also stops symlink loops.
    if depth > 8 {
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            let loc = Loc {
                file: Arc::from(display(dir, root)),
                line: 0,
                col: 0,
            };
            diags.error(&loc, format!("cannot read this directory: {e}"));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() || (kind.is_symlink() && path.is_dir()) {
            walk(&path, out, diags, root, depth + 1);
        } else if path.extension().is_some_and(|e| e == "contract") {
            out.push(path);
        }
    }
}

/// `path` as diagnostics show it, with `root` as the display root: see [`LoadOptions`].
pub fn display_path(path: &Path, root: Option<&Path>) -> String {
    display(path, root)
}

/// `path` as shown to people, with `/` separators: relative to `root` when it lies below it,
/// else absolute with `.` and `..` resolved (a path that opens from anywhere, never a relative
/// path that only opens from a directory the reader does not know). Without a root, as given.
fn display(path: &Path, root: Option<&Path>) -> String {
    let Some(root) = root else {
        return path.to_string_lossy().replace('\\', "/");
    };
    // As written first (a path below the root through a link stays below it), then with
    // links resolved (a root reached through a link).
    let lexical = lexical_absolute(path);
    let shown = match lexical.strip_prefix(lexical_absolute(root)) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) => {
            let real = resolved(path);
            match real.strip_prefix(resolved(root)) {
                Ok(rel) => rel.to_path_buf(),
                Err(_) => real,
            }
        }
    };
    shown.to_string_lossy().replace('\\', "/")
}

/// `path` made absolute (against the current directory) with `.` and `..` taken away by
/// their text.
fn lexical_absolute(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` with links resolved when it exists (without Windows' `\\?\` prefix), else as
/// [`lexical_absolute`] makes it.
fn resolved(path: &Path) -> PathBuf {
    match std::fs::canonicalize(path) {
        Ok(p) => {
            let text = p.to_string_lossy();
            match text.strip_prefix(r"\\?\") {
                Some(rest) if !rest.starts_with("UNC") => PathBuf::from(rest),
                _ => p,
            }
        }
        Err(_) => lexical_absolute(path),
    }
}

/// The root that diagnostics show paths relative to, for a crate whose manifest is in
/// `manifest_dir`: its workspace's root (the nearest directory at or above it whose
/// `Cargo.toml` has a `[workspace]` table), else `manifest_dir` itself. Cargo runs rustc
/// there, so the paths read like rustc's own and open from the same place.
pub fn workspace_root(manifest_dir: &Path) -> PathBuf {
    let start = lexical_absolute(manifest_dir);
    for dir in start.ancestors() {
        if let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml"))
            && declares_workspace(&text)
        {
            return dir.to_path_buf();
        }
    }
    start
}

/// Whether a manifest's text has a `[workspace]` table (or one of its subtables, such as
/// `[workspace.dependencies]`, which makes one too).
fn declares_workspace(manifest: &str) -> bool {
    manifest.lines().any(|line| {
        let line = line.trim();
        line.strip_prefix("[workspace")
            .is_some_and(|rest| rest.trim_start().starts_with([']', '.']))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("contracts-load-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn paths_below_the_root_are_relative_and_others_absolute() {
        let root = temp("display");
        std::fs::create_dir_all(root.join("app/schema")).unwrap();
        std::fs::create_dir_all(root.join("elsewhere/agent")).unwrap();
        let app = root.join("app/schema/a.contract");
        assert_eq!(display(&app, Some(&root)), "app/schema/a.contract");
        // Reached with `..`: still below the root, shown without the detour.
        let detour = root.join("app/schema/../schema/a.contract");
        assert_eq!(display(&detour, Some(&root)), "app/schema/a.contract");
        // Outside the root: absolute, `..` resolved, so it opens from any directory.
        let base = root.join("app/../elsewhere/agent/chat.contract");
        let shown = display(&base, Some(&root.join("app")));
        assert!(Path::new(&shown).is_absolute(), "{shown}");
        assert!(!shown.contains(".."), "{shown}");
        assert!(shown.ends_with("elsewhere/agent/chat.contract"), "{shown}");
        // Without a root: as given.
        assert_eq!(
            display(Path::new("x/../y.contract"), None),
            "x/../y.contract"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_workspace_root_is_the_nearest_manifest_with_a_workspace() {
        let root = temp("workspace");
        let member = root.join("crates/app");
        std::fs::create_dir_all(&member).unwrap();
        std::fs::write(member.join("Cargo.toml"), "[package]\nname = \"app\"\n").unwrap();
        // No workspace anywhere above (below the temporary directory): the manifest's own.
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"top\"\n").unwrap();
        assert_eq!(workspace_root(&member), member);
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/app\"]\n",
        )
        .unwrap();
        assert_eq!(workspace_root(&member), root);
        // A workspace made by a subtable alone (as trybuild writes its projects).
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace.dependencies]\nx = \"1\"\n",
        )
        .unwrap();
        assert_eq!(workspace_root(&member), root);
        // A key that only starts like it is not a workspace.
        std::fs::write(root.join("Cargo.toml"), "[workspaces]\n").unwrap();
        assert_eq!(workspace_root(&member), member);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
