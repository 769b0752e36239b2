//! generate: the codegen library an app's xtask is made of (and this repository's).
//!
//! Three steps: load the protocols the app builds on, load the app's own schema directory on
//! top of them, then plan the outputs (a TypeScript package, its JSON Schema, the Markdown
//! reference) and write them or check them.
//!
//! ```no_run
//! use contracts_codegen::emit::typescript::{BasePackage, TsOptions};
//! use contracts_codegen::generate::{Outputs, Protocol};
//!
//! # fn main() -> Result<(), contracts_codegen::generate::Error> {
//! let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
//! let agent = Protocol::load("agent", "../contracts/schema/agent")?;
//! let app = Protocol::load_with_bases("documents", root.join("schema"), &[&agent])?;
//!
//! let mut ts = TsOptions::new("@acme/documents-contracts", "DOCUMENTS");
//! ts.base_packages.insert(
//!     "agent".into(),
//!     // A peer dependency with this range, built against the path while unpublished.
//!     BasePackage::new("@adecore/agent-contracts", "AGENT", "^0.1.0")
//!         .dev_version("file:../contracts/bindings/agent-contracts"),
//! );
//! let mut out = Outputs::new(&root);
//! out.package(&app, "bindings/documents-contracts", &ts)
//!     .reference(&app, "docs/documents.md", &ts);
//! let check = std::env::args().any(|a| a == "--check");
//! std::process::exit(out.run(check, "cargo xtask codegen"));
//! # }
//! ```
//!
//! IO is contained: [`Protocol::load`] reads a schema directory; [`Outputs::package`] reads
//! the package's existing `package.json` for the app's own keys (license, author, ...: kept,
//! see [`typescript::package`]); [`Outputs::differences`]
//! reads the planned files and lists the directories the outputs own; [`Outputs::write`]
//! writes and removes files; [`Outputs::run`] prints to stderr. Planning is pure.
//!
//! A directory an output owns (a package's `src/`, a reference's directory) is swept: a file
//! there that starts with a generated header but is no longer planned (a removed module) is
//! extra, deleted by `write` and reported by `check`.

use crate::analysis::Checked;
use crate::emit::MARKDOWN_HEADER;
use crate::emit::docs::{self, DocsOptions};
use crate::emit::json_schema::{self, JsonSchemaOptions};
use crate::emit::typescript::{self, TsOptions};
use crate::load::{LoadError, LoadOptions, load_dir};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A loaded and checked protocol: its name, its directory and its model (bases included).
#[derive(Clone, Debug)]
pub struct Protocol {
    pub name: String,
    pub dir: PathBuf,
    pub model: Arc<Checked>,
}

impl Protocol {
    /// Loads a protocol that builds on nothing (the agent's `schema/agent`).
    pub fn load(name: &str, dir: impl Into<PathBuf>) -> Result<Protocol, Error> {
        Protocol::load_with_bases(name, dir, &[])
    }

    /// Loads a protocol whose types may use its bases' by name (`use agent::{ChatId};`) and
    /// whose tables hold the bases' entries beside its own. Diagnostics show paths relative
    /// to the current directory when the directory is under it.
    pub fn load_with_bases(
        name: &str,
        dir: impl Into<PathBuf>,
        bases: &[&Protocol],
    ) -> Result<Protocol, Error> {
        let options = LoadOptions {
            name: Some(name.to_owned()),
            bases: bases.iter().map(|b| b.model.model_arc().clone()).collect(),
            display_root: std::env::current_dir().ok(),
        };
        Protocol::load_with(dir, &options)
    }

    /// Loads with every option of [`load_dir`] (a display root of your own, a default name).
    pub fn load_with(dir: impl Into<PathBuf>, options: &LoadOptions) -> Result<Protocol, Error> {
        let dir = dir.into();
        match load_dir(&dir, options) {
            Ok(model) => Ok(Protocol {
                name: model.name.clone(),
                dir,
                model: Arc::new(Checked::new(model)),
            }),
            Err(error) => Err(Error::Schema { dir, error }),
        }
    }
}

/// What can go wrong: a schema that does not load, or a file that cannot be written.
#[derive(Debug)]
pub enum Error {
    /// Every diagnostic of a schema directory, rendered as `path:line:col: error: ...`.
    Schema { dir: PathBuf, error: LoadError },
    /// An app's existing `package.json` that cannot be read back for its own keys.
    PackageJson { path: PathBuf, message: String },
    /// An input of the plan that could not be read (a file it copies).
    Read { path: PathBuf, message: String },
    /// A file that could not be written or removed.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Schema { error, .. } => f.write_str(error.render().trim_end()),
            Error::PackageJson { path, message } => write!(f, "{}:{message}", path.display()),
            Error::Read { path, message } => write!(f, "{}: {message}", path.display()),
            Error::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for Error {}

/// How a planned file differs from the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// On disk with other contents.
    Stale,
    /// Not on disk.
    Missing,
    /// On disk in an owned directory, generated, and no longer planned.
    Extra,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Change::Stale => "stale",
            Change::Missing => "missing",
            Change::Extra => "extra",
        })
    }
}

/// An input that could not be read while planning, by path with the reason.
#[derive(Clone, Debug)]
enum PlanError {
    PackageJson(PathBuf, String),
    Read(PathBuf, String),
}

/// Every file a codegen run owns, by path relative to its root.
#[derive(Clone, Debug)]
pub struct Outputs {
    root: PathBuf,
    files: BTreeMap<PathBuf, String>,
    owned: BTreeSet<PathBuf>,
    /// Directories whose every file with an extension is generated (JSON lines carry no
    /// header), by directory and extension.
    owned_by_extension: BTreeSet<(PathBuf, String)>,
    /// Inputs that could not be read while planning, by path with the reason; `write` and
    /// `run` refuse with them.
    errors: Vec<PlanError>,
}

impl Outputs {
    /// An empty plan; every path given later is relative to `root` (an app's workspace root).
    pub fn new(root: impl Into<PathBuf>) -> Outputs {
        Outputs {
            root: root.into(),
            files: BTreeMap::new(),
            owned: BTreeSet::new(),
            owned_by_extension: BTreeSet::new(),
            errors: Vec::new(),
        }
    }

    /// The root every path is relative to.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The TypeScript package in `dir` (`package.json`, `tsconfig.json`, `src/*.ts`) and its
    /// JSON Schema (`dir/schema.json`). The package's `src/` is owned: hand-written modules
    /// there (a typed client) must not start with the generated header.
    pub fn package(&mut self, p: &Protocol, dir: impl AsRef<Path>, ts: &TsOptions) -> &mut Self {
        let dir = dir.as_ref();
        self.typescript(p, dir, ts);
        let js = JsonSchemaOptions {
            id: None,
            title: ts.package_name.clone(),
        };
        self.json_schema(p, dir.join("schema.json"), &js)
    }

    /// The TypeScript package's files alone, in `dir`.
    ///
    /// Reads `dir/package.json` when there is one: the app's own keys there (`license`,
    /// `author`, `repository`, its own scripts and dependencies, any key the generator does
    /// not write) are kept as they are (see [`typescript::package`]). One that is not a JSON
    /// object is an error of the plan, and nothing is written.
    pub fn typescript(&mut self, p: &Protocol, dir: impl AsRef<Path>, ts: &TsOptions) -> &mut Self {
        let dir = dir.as_ref();
        let path = dir.join("package.json");
        let existing = match std::fs::read_to_string(self.root.join(&path)) {
            Ok(text) => match typescript::package::parse_existing(&text) {
                Ok(map) => Some(map),
                Err(e) => {
                    self.errors.push(PlanError::PackageJson(path, e.0));
                    return self;
                }
            },
            Err(_) => None,
        };
        for f in typescript::emit_with(&p.model, ts, existing.as_ref()) {
            self.files.insert(dir.join(&f.path), f.contents);
        }
        self.owned.insert(dir.join("src"));
        self
    }

    /// The JSON Schema document, at `path`.
    pub fn json_schema(
        &mut self,
        p: &Protocol,
        path: impl AsRef<Path>,
        options: &JsonSchemaOptions,
    ) -> &mut Self {
        self.file(path, json_schema::emit(&p.model, options))
    }

    /// The Markdown reference, at `path`; its directory is owned. The package named in it and
    /// its tables' prefix come from the TypeScript options.
    pub fn reference(&mut self, p: &Protocol, path: impl AsRef<Path>, ts: &TsOptions) -> &mut Self {
        let options = DocsOptions {
            package_name: ts.package_name.clone(),
            table_prefix: ts.table_prefix.clone(),
            ..DocsOptions::default()
        };
        self.reference_with(p, path, &options)
    }

    /// The Markdown reference, at `path`, with every option of the page: the bases' pages
    /// to link into (`agent` at `../../docs/reference/agent.md`), the flows to draw, the
    /// corpus that checks its examples. Its directory is owned.
    pub fn reference_with(
        &mut self,
        p: &Protocol,
        path: impl AsRef<Path>,
        options: &DocsOptions,
    ) -> &mut Self {
        let path = path.as_ref();
        if let Some(parent) = path.parent() {
            self.owned.insert(parent.to_path_buf());
        }
        self.file(path, docs::emit(&p.model, options))
    }

    /// The corpus lines of the examples the protocol's reference shows (its own entries,
    /// frames and types, [`crate::corpus::examples::own_cases`]), at `path`, one JSON line each as
    /// `tests/corpus/README.md` describes them: name it in the page's
    /// [`DocsOptions::examples`] and run it through the validators.
    pub fn examples(&mut self, p: &Protocol, path: impl AsRef<Path>) -> &mut Self {
        let cases = crate::corpus::examples::own_cases(&p.model);
        self.file(path, crate::corpus::to_jsonl(&cases))
    }

    /// Any other file, made by the caller.
    pub fn file(&mut self, path: impl AsRef<Path>, contents: String) -> &mut Self {
        self.files.insert(path.as_ref().to_path_buf(), contents);
        self
    }

    /// Owns a directory: a generated file in it that is not planned is extra.
    pub fn own_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.owned.insert(dir.as_ref().to_path_buf());
        self
    }

    /// Owns every file of `dir` (not its subdirectories) whose name ends with `.extension`,
    /// for generated files that cannot carry a header (JSON lines): one that is not planned is
    /// extra.
    pub fn own_files(&mut self, dir: impl AsRef<Path>, extension: &str) -> &mut Self {
        self.owned_by_extension
            .insert((dir.as_ref().to_path_buf(), extension.to_owned()));
        self
    }

    /// A file of the root copied into the plan at `to` (a license file every package ships:
    /// npm packs only what is under the package). A file that cannot be read is an error of
    /// the plan.
    pub fn copy(&mut self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> &mut Self {
        let from = from.as_ref();
        match std::fs::read_to_string(self.root.join(from)) {
            Ok(text) => self.file(to, text),
            Err(e) => {
                self.errors
                    .push(PlanError::Read(from.to_path_buf(), e.to_string()));
                self
            }
        }
    }

    /// What could not be read while planning (an app's `package.json` that is not JSON).
    pub fn errors(&self) -> Vec<Error> {
        let error = |e: &PlanError| match e {
            PlanError::PackageJson(path, message) => Error::PackageJson {
                path: path.clone(),
                message: message.clone(),
            },
            PlanError::Read(path, message) => Error::Read {
                path: path.clone(),
                message: message.clone(),
            },
        };
        self.errors.iter().map(error).collect()
    }

    /// Every planned file, by path relative to the root.
    pub fn files(&self) -> &BTreeMap<PathBuf, String> {
        &self.files
    }

    /// The directories swept for extra files, relative to the root.
    pub fn owned_dirs(&self) -> impl Iterator<Item = &Path> {
        self.owned.iter().map(PathBuf::as_path)
    }

    /// Adds every file and owned directory of another plan with the same root.
    pub fn extend(&mut self, other: Outputs) -> &mut Self {
        self.files.extend(other.files);
        self.owned.extend(other.owned);
        self.owned_by_extension.extend(other.owned_by_extension);
        self.errors.extend(other.errors);
        self
    }

    /// What differs between the plan and the disk, sorted by path. Reads files.
    pub fn differences(&self) -> Vec<(PathBuf, Change)> {
        let mut out = Vec::new();
        for (path, contents) in &self.files {
            match std::fs::read_to_string(self.root.join(path)) {
                Ok(actual) if actual == *contents => {}
                Ok(_) => out.push((path.clone(), Change::Stale)),
                Err(_) => out.push((path.clone(), Change::Missing)),
            }
        }
        for dir in &self.owned {
            for path in generated_files(&self.root, dir) {
                if !self.files.contains_key(&path) {
                    out.push((path, Change::Extra));
                }
            }
        }
        for (dir, extension) in &self.owned_by_extension {
            for path in files_with_extension(&self.root, dir, extension) {
                if !self.files.contains_key(&path) {
                    out.push((path, Change::Extra));
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Writes every stale or missing file and removes every extra one; answers what changed.
    /// Writes nothing when planning found an error (see [`Outputs::errors`]).
    pub fn write(&self) -> Result<Vec<(PathBuf, Change)>, Error> {
        if let Some(e) = self.errors().into_iter().next() {
            return Err(e);
        }
        let changes = self.differences();
        for (path, change) in &changes {
            let abs = self.root.join(path);
            let done = match change {
                Change::Extra => std::fs::remove_file(&abs),
                Change::Stale | Change::Missing => abs
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::write(&abs, &self.files[path])),
            };
            done.map_err(|error| Error::Io {
                path: path.clone(),
                error,
            })?;
        }
        Ok(changes)
    }

    /// The whole of an xtask's `codegen [--check]`: writes (or, with `check`, lists every
    /// stale, missing or extra file and the `command` that regenerates them), reporting on
    /// stderr. Answers the exit code: 0 when written or fresh, 1 otherwise.
    pub fn run(&self, check: bool, command: &str) -> i32 {
        if !self.errors.is_empty() {
            for e in self.errors() {
                eprintln!("codegen: {e}");
            }
            return 1;
        }
        if check {
            let changes = self.differences();
            if changes.is_empty() {
                eprintln!("codegen: {} generated files are fresh", self.files.len());
                return 0;
            }
            for (path, change) in &changes {
                eprintln!("{}: {change}", path.display());
            }
            eprintln!("run: {command}");
            return 1;
        }
        match self.write() {
            Ok(changes) => {
                for (path, change) in &changes {
                    let done = if *change == Change::Extra {
                        "removed"
                    } else {
                        "written"
                    };
                    eprintln!("codegen: {} ({done})", path.display());
                }
                eprintln!(
                    "codegen: {} generated files, {} changed",
                    self.files.len(),
                    changes.len()
                );
                0
            }
            Err(e) => {
                eprintln!("codegen: {e}");
                1
            }
        }
    }
}

/// Whether a file's text starts with a header this crate writes.
pub fn is_generated(text: &str) -> bool {
    text.starts_with(typescript::HEADER) || text.starts_with(MARKDOWN_HEADER)
}

/// Files directly in `root/dir` whose name ends with `.extension`, relative to `root`.
fn files_with_extension(root: &Path, dir: &Path, extension: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| dir.join(e.file_name()))
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .collect();
    out.sort();
    out
}

/// Files under `root/dir` (recursively) that start with a generated header, relative to `root`.
fn generated_files(root: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return out;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let rel = dir.join(e.file_name());
        if e.path().is_dir() {
            out.extend(generated_files(root, &rel));
        } else if std::fs::read_to_string(e.path()).is_ok_and(|s| is_generated(&s)) {
            out.push(rel);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("generate-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(root: &Path, path: &str, text: &str) {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn an_app_on_a_base_writes_then_is_fresh_then_sees_stale_and_extra_files() {
        let root = temp("app");
        write(
            &root,
            "base/a.contract",
            "type Id = string(min = 1);\nrequests { \"a.get\": { id: Id } -> { ok: boolean }, }\n",
        );
        write(
            &root,
            "app/b.contract",
            "use base::{Id};\nrequests { \"b.get\": { id: Id } -> { text: string }, }\nevents { \"b.changed\": { id: Id }, }\n",
        );
        let base = Protocol::load("base", root.join("base")).unwrap();
        let app = Protocol::load_with_bases("app", root.join("app"), &[&base]).unwrap();
        let mut ts = TsOptions::new("@x/app", "APP");
        ts.base_packages.insert(
            "base".into(),
            typescript::BasePackage::new("@x/base", "BASE", "^1.2.0").dev_version("file:../base"),
        );
        let mut out = Outputs::new(&root);
        out.package(&app, "pkg", &ts)
            .reference(&app, "docs/app.md", &ts);
        assert_eq!(out.run(true, "cargo xtask codegen"), 1);
        assert_eq!(out.run(false, "cargo xtask codegen"), 0);
        assert!(out.differences().is_empty());

        let tables = std::fs::read_to_string(root.join("pkg/src/tables.ts")).unwrap();
        assert!(tables.contains("...BASE_REQUEST_SCHEMAS,"), "{tables}");
        assert!(tables.contains("...BASE_EVENT_SCHEMAS,"), "{tables}");
        assert!(
            !tables.contains("'a.get'"),
            "no base name is copied: {tables}"
        );
        let package: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("pkg/package.json")).unwrap())
                .unwrap();
        // The base and zod: peers with a range (one copy, the consumer's), pinned for the
        // package's own build.
        assert_eq!(package["peerDependencies"]["@x/base"], "^1.2.0");
        assert_eq!(package["devDependencies"]["@x/base"], "file:../base");
        assert_eq!(package["peerDependencies"]["zod"], typescript::ZOD_RANGE);
        assert_eq!(package["devDependencies"]["zod"], typescript::ZOD_VERSION);
        assert!(package.get("dependencies").is_none(), "{package}");
        assert!(
            package.get("license").is_none(),
            "no license of ours: {package}"
        );

        // Every reference of the JSON Schema resolves: a base entry's types are there too.
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("pkg/schema.json")).unwrap())
                .unwrap();
        let mut refs = Vec::new();
        fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(o) => {
                    if let Some(serde_json::Value::String(r)) = o.get("$ref") {
                        out.push(r.clone());
                    }
                    o.values().for_each(|x| walk(x, out));
                }
                serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
                _ => {}
            }
        }
        walk(&schema, &mut refs);
        assert!(
            refs.iter().any(|r| r.starts_with("#/$defs/base.")),
            "{refs:?}"
        );
        for r in &refs {
            let key = r.strip_prefix("#/$defs/").expect("a local reference");
            assert!(schema["$defs"].get(key).is_some(), "{r} does not resolve");
        }
        // The examples the page shows are the app's own, each valid (the documents app's show
        // its frames too: examples/documents-app/tests/corpus.rs).
        let mut examples = Outputs::new(&root);
        examples.examples(&app, "examples.jsonl");
        let lines = &examples.files()[Path::new("examples.jsonl")];
        assert!(
            lines.contains(r#"{"as":"payload","type":"b.get","input":{"id":"bget-1"},"ok":true"#),
            "{lines}"
        );
        assert!(
            lines.contains(r#""as":"event","type":"b.changed""#),
            "{lines}"
        );
        assert!(!lines.contains("a.get"), "{lines}");
        assert!(!lines.contains(r#""ok":false"#), "{lines}");

        write(&root, "pkg/src/tables.ts", "// edited\n");
        write(
            &root,
            "pkg/src/gone.ts",
            &format!("{}\n", typescript::HEADER),
        );
        write(&root, "pkg/src/client.ts", "// hand-written\n");
        assert_eq!(
            out.differences(),
            vec![
                (PathBuf::from("pkg/src/gone.ts"), Change::Extra),
                (PathBuf::from("pkg/src/tables.ts"), Change::Stale),
            ]
        );
        assert_eq!(out.run(false, "cargo xtask codegen"), 0);
        assert!(!root.join("pkg/src/gone.ts").exists());
        assert!(root.join("pkg/src/client.ts").exists());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn files_owned_by_extension_and_copies() {
        let root = temp("by-extension");
        write(&root, "corpus/kept.jsonl", "old\n");
        write(&root, "corpus/gone.jsonl", "{}\n");
        write(&root, "corpus/notes.md", "hand-written\n");
        write(&root, "corpus/deeper/other.jsonl", "{}\n");
        write(&root, "LICENSE", "the license\n");
        let mut out = Outputs::new(&root);
        out.file("corpus/kept.jsonl", "new\n".into())
            .own_files("corpus", "jsonl")
            .copy("LICENSE", "pkg/LICENSE");
        assert!(out.errors().is_empty());
        // Only `.jsonl` files directly in the directory are the plan's.
        assert_eq!(
            out.differences(),
            vec![
                (PathBuf::from("corpus/gone.jsonl"), Change::Extra),
                (PathBuf::from("corpus/kept.jsonl"), Change::Stale),
                (PathBuf::from("pkg/LICENSE"), Change::Missing),
            ]
        );
        assert_eq!(out.run(false, "cargo xtask codegen"), 0);
        assert!(out.differences().is_empty());
        assert!(!root.join("corpus/gone.jsonl").exists());
        assert!(root.join("corpus/notes.md").exists());
        assert!(root.join("corpus/deeper/other.jsonl").exists());
        assert_eq!(
            std::fs::read_to_string(root.join("pkg/LICENSE")).unwrap(),
            "the license\n"
        );

        // A file the plan copies and cannot read is an error: nothing is written.
        let mut missing = Outputs::new(&root);
        missing
            .file("other.txt", "x".into())
            .copy("NOPE", "pkg/NOPE");
        let errors: Vec<String> = missing.errors().iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("NOPE: "), "{errors:?}");
        assert_eq!(missing.run(false, "cargo xtask codegen"), 1);
        assert!(!root.join("other.txt").exists());
        let _ = std::fs::remove_dir_all(&root);
    }

    /// An app whose package.json already has its own keys.
    fn app_with_package_json(name: &str, package_json: &str) -> (PathBuf, Outputs) {
        let root = temp(name);
        write(&root, "app/b.contract", "struct Doc { id: string }\n");
        write(&root, "pkg/package.json", package_json);
        let app = Protocol::load("app", root.join("app")).unwrap();
        let mut out = Outputs::new(&root);
        out.package(&app, "pkg", &TsOptions::new("@x/app", "APP"));
        (root, out)
    }

    #[test]
    fn an_apps_own_package_json_keys_are_kept_and_ours_replaced() {
        let (root, out) = app_with_package_json(
            "keep",
            r#"{
  "name": "@x/old-name",
  "license": "ISC",
  "author": "Ada <ada@example.com>",
  "repository": { "type": "git", "url": "https://example.com/app.git" },
  "keywords": ["documents"],
  "files": ["CHANGELOG.md", "src"],
  "scripts": { "lint": "eslint .", "build": "old" },
  "dependencies": { "left-pad": "1.3.0", "zod": "3.0.0" },
  "exports": "./old.js",
  "zzz-custom": 1
}
"#,
        );
        assert!(out.errors().is_empty());
        assert_eq!(out.run(false, "cargo xtask codegen"), 0);
        let text = std::fs::read_to_string(root.join("pkg/package.json")).unwrap();
        let p: serde_json::Value = serde_json::from_str(&text).unwrap();
        // The app's own keys, as they were.
        assert_eq!(p["license"], "ISC");
        assert_eq!(p["author"], "Ada <ada@example.com>");
        assert_eq!(p["repository"]["url"], "https://example.com/app.git");
        assert_eq!(p["keywords"], serde_json::json!(["documents"]));
        assert_eq!(p["zzz-custom"], 1);
        assert_eq!(p["scripts"]["lint"], "eslint .");
        assert_eq!(
            p["dependencies"],
            serde_json::json!({ "left-pad": "1.3.0" })
        );
        assert_eq!(
            p["files"],
            serde_json::json!(["dist/src", "src", "schema.json", "CHANGELOG.md"])
        );
        // Ours, replaced: zod is a peer now, not the app's dependency.
        assert_eq!(p["name"], "@x/app");
        assert_eq!(p["scripts"]["build"], "tsc --strict -p tsconfig.json");
        assert_eq!(p["scripts"]["prepare"], "npm run build");
        assert_eq!(p["peerDependencies"]["zod"], typescript::ZOD_RANGE);
        assert_eq!(p["exports"]["."]["types"], "./dist/src/index.d.ts");
        assert_eq!(p["publishConfig"]["access"], "public");
        assert_eq!(p["engines"]["node"], typescript::NODE_RANGE);
        // npm's order: license after description, `types` before `default`, ours before the
        // app's scripts, unknown keys last.
        let at = |needle: &str| {
            text.find(needle)
                .unwrap_or_else(|| panic!("{needle}: {text}"))
        };
        assert!(at("\"description\"") < at("\"license\""));
        assert!(at("\"license\"") < at("\"type\": \"module\""));
        assert!(at("\"types\": \"./dist/src/index.d.ts\"") < at("\"default\""));
        assert!(at("\"prepare\"") < at("\"lint\""));
        assert!(at("\"devDependencies\"") < at("\"zzz-custom\""));
        // Written once, fresh after: the kept keys are read back the same.
        assert!(out.differences().is_empty());
        let (_, again) = app_with_package_json("keep-again", &text);
        assert_eq!(again.files(), out.files());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_package_json_that_is_not_json_is_an_error_and_nothing_is_written() {
        let (root, out) =
            app_with_package_json("broken", "{\n  \"license\": \"ISC\",\n  nope\n}\n");
        let errors: Vec<String> = out.errors().iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].starts_with(&format!(
                "{}:3:3: ",
                Path::new("pkg/package.json").display()
            )),
            "{errors:?}"
        );
        assert!(out.write().is_err());
        assert_eq!(out.run(false, "cargo xtask codegen"), 1);
        assert_eq!(out.run(true, "cargo xtask codegen"), 1);
        assert!(!root.join("pkg/src").exists(), "nothing written");
        assert!(
            std::fs::read_to_string(root.join("pkg/package.json"))
                .unwrap()
                .contains("nope"),
            "the app's file is left as it was"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_schema_error_names_its_file_line_and_column() {
        let root = temp("error");
        write(&root, "app/b.contract", "struct A { id: Missing }\n");
        let e = Protocol::load("app", root.join("app")).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("b.contract:1:16: error: unknown type `Missing`"),
            "{text}"
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
