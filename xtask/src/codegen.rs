//! `cargo xtask codegen [--check]`: regenerate every generated file, or check they are fresh.
//!
//! For every protocol under `schema/` (see [`targets`]) it writes:
//!
//! - the TypeScript package's generated sources and `package.json`/`tsconfig.json`
//!   (`bindings/<package>/`, [`typescript`]);
//! - the JSON Schema beside them (`bindings/<package>/schema.json`, [`json_schema`]);
//! - the Markdown reference (`docs/reference/<protocol>.md`, [`docs`]);
//! - the corpus derived from the model (`tests/corpus/derived/<protocol>.jsonl`,
//!   [`contracts_codegen::corpus`]), run with the hand-written corpus by the Rust, Zod and
//!   JSON Schema runners.
//!
//! and the example app's package and reference (`examples/documents-app`), through
//! [`contracts_codegen::generate`], the library an app's own xtask uses.
//!
//! A generated file that no longer has a source (a removed module) is deleted: it is found by
//! its `@generated` header under the directories codegen owns, or, for the derived corpus
//! (JSON lines have no comments), by being a `.jsonl` file in its directory. `--check` writes nothing; it
//! prints every stale, missing or extra file and the command to run, and exits 1.

use contracts_codegen::corpus;
use contracts_codegen::emit::docs::{self, DocsOptions};
use contracts_codegen::emit::json_schema::{self, JsonSchemaOptions};
use contracts_codegen::emit::typescript::{self, BasePackage, PeerDependency, TsAlias, TsOptions};
use contracts_codegen::flows;
use contracts_codegen::generate::{Outputs, Protocol};
use contracts_codegen::load::{LoadOptions, load_dir};
use contracts_codegen::model::Model;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One protocol and where its outputs go.
pub struct Target {
    /// The protocol's name and its directory under `schema/`.
    pub protocol: &'static str,
    /// The package directory, relative to the workspace root.
    pub package_dir: &'static str,
    pub ts: TsOptions,
}

/// Every protocol the workspace generates bindings for.
pub fn targets() -> Vec<Target> {
    let mut agent = TsOptions::new("@adecore/agent-contracts", "AGENT");
    agent.description = "The agent protocol: types, Zod schemas, request and event tables, parse functions, a typed client and the thread reducer.".into();
    agent.parse_functions = vec!["Request".into(), "ServerFrame".into()];
    // The spec's export names that are not a schema type's own name.
    agent.aliases = vec![TsAlias {
        name: "Error".into(),
        target: "WireError".into(),
        type_alias: false,
    }];
    agent.extra_exports = vec![
        "./port.js".into(),
        "./client.js".into(),
        "./thread.js".into(),
    ];
    // The Node WebSocket port (`src/node.ts`) is its own entry point: only it needs `ws`.
    agent.entry_points = vec!["node".into()];
    agent.peer_dependencies.insert(
        "ws".into(),
        PeerDependency {
            range: typescript::WS_RANGE.into(),
            optional: true,
        },
    );
    for (name, version) in [
        ("ws", typescript::WS_VERSION),
        ("@types/ws", typescript::TYPES_WS_VERSION),
    ] {
        agent.dev_dependencies.insert(name.into(), version.into());
    }
    agent.has_tests = true;
    // The shared-corpus runner (tests/corpus/runner.mjs, through test/corpus.test.ts) checks
    // the JSON Schema with ajv, resolved from the package.
    agent
        .dev_dependencies
        .insert("ajv".into(), typescript::AJV_VERSION.into());

    let mut connect = TsOptions::new("@adecore/connect-frames", "CONNECT");
    connect.description =
        "The Agent Connect frames on /v1/ws: types, Zod schemas and parse functions.".into();
    connect.parse_functions = vec!["ClientFrame".into(), "ServerFrame".into()];
    connect.has_tests = true;
    connect
        .dev_dependencies
        .insert("ajv".into(), typescript::AJV_VERSION.into());

    for ts in [&mut agent, &mut connect] {
        ts.files = LICENSE_FILES.iter().map(|f| (*f).to_owned()).collect();
    }
    vec![
        Target {
            protocol: "agent",
            package_dir: "bindings/agent-contracts",
            ts: agent,
        },
        Target {
            protocol: "connect",
            package_dir: "bindings/connect-frames",
            ts: connect,
        },
    ]
}

/// The license files at the workspace root that every package of `targets` ships, copied
/// into it by codegen (npm packs only what is under the package's directory).
const LICENSE_FILES: &[&str] = &["LICENSE-MIT", "LICENSE-APACHE"];

/// The directories whose `@generated` files codegen owns (an extra one there is stale).
fn owned_dirs(targets: &[Target]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = targets
        .iter()
        .map(|t| Path::new(t.package_dir).join("src"))
        .collect();
    dirs.push(PathBuf::from("docs/reference"));
    dirs.extend(example_app_plan().owned_dirs().map(Path::to_path_buf));
    dirs
}

/// Where the derived corpus goes; every `.jsonl` file in it is generated.
const DERIVED_CORPUS_DIR: &str = "tests/corpus/derived";

/// Load a protocol's schema directory.
fn load(root: &Path, protocol: &str) -> Result<Model, String> {
    let dir = root.join("schema").join(protocol);
    let options = LoadOptions {
        name: Some(protocol.to_owned()),
        bases: Vec::new(),
        display_root: Some(root.to_path_buf()),
    };
    load_dir(&dir, &options).map_err(|e| format!("schema/{protocol}: {e}"))
}

/// Every generated file, by path relative to the workspace root.
pub fn plan(root: &Path, targets: &[Target]) -> Result<BTreeMap<PathBuf, String>, String> {
    let mut files = BTreeMap::new();
    for t in targets {
        if !root.join("schema").join(t.protocol).is_dir() {
            continue;
        }
        let model = load(root, t.protocol)?;
        let pkg = Path::new(t.package_dir);
        // The package's own keys of package.json (its license) are kept.
        let package_json = pkg.join("package.json");
        let existing = match std::fs::read_to_string(root.join(&package_json)) {
            Ok(text) => Some(
                typescript::package::parse_existing(&text)
                    .map_err(|e| format!("{}:{e}", package_json.display()))?,
            ),
            Err(_) => None,
        };
        for f in typescript::emit_with(&model, &t.ts, existing.as_ref()) {
            files.insert(pkg.join(&f.path), f.contents);
        }
        for name in &t.ts.files {
            let text = std::fs::read_to_string(root.join(name))
                .map_err(|e| format!("{name}: {e} (every package ships it)"))?;
            files.insert(pkg.join(name), text);
        }
        let js = JsonSchemaOptions {
            id: Some(json_schema::release_id(
                env!("CARGO_PKG_REPOSITORY"),
                &t.ts.package_name,
                &t.ts.version,
            )),
            title: t.ts.package_name.clone(),
        };
        files.insert(pkg.join("schema.json"), json_schema::emit(&model, &js));
        let d = docs_options(root, t, &model)?;
        files.insert(
            Path::new("docs/reference").join(format!("{}.md", t.protocol)),
            docs::emit(&model, &d),
        );
        // The derived cases, the examples among them, then every frame of every flow.
        let mut cases = corpus::derive(&model);
        for c in flows::cases(&d.flows) {
            if !cases.contains(&c) {
                cases.push(c);
            }
        }
        files.insert(
            Path::new(DERIVED_CORPUS_DIR).join(format!("{}.jsonl", t.protocol)),
            corpus::to_jsonl(&cases),
        );
    }
    files.extend(example_app(root)?.files().clone());
    Ok(files)
}

/// How a protocol's reference is written: its package, its flows (`schema/<protocol>/*.flows`)
/// and the derived corpus that checks its examples.
pub fn docs_options(root: &Path, t: &Target, model: &Model) -> Result<DocsOptions, String> {
    let dir = root.join("schema").join(t.protocol);
    Ok(DocsOptions {
        package_name: t.ts.package_name.clone(),
        table_prefix: t.ts.table_prefix.clone(),
        base_pages: BTreeMap::new(),
        flows: flows::load(&dir, &format!("schema/{}", t.protocol), model)?,
        examples_corpus: Some(format!("{DERIVED_CORPUS_DIR}/{}.jsonl", t.protocol)),
    })
}

/// Load a protocol's schema directory, for the site.
pub fn load_protocol(root: &Path, protocol: &str) -> Result<Model, String> {
    load(root, protocol)
}

/// The example app's package (`examples/documents-app`), planned through the codegen library
/// an app's own xtask uses ([`contracts_codegen::generate`], see the README's app section).
fn example_app(root: &Path) -> Result<Outputs, String> {
    let agent = Protocol::load("agent", root.join("schema/agent")).map_err(|e| e.to_string())?;
    let dir = root.join("examples/documents-app/schema");
    let app = Protocol::load_with_bases("documents", dir, &[&agent]).map_err(|e| e.to_string())?;
    let (ts, mut out) = (example_app_ts(), Outputs::new(root));
    let docs = example_app_docs("../../../docs/reference/agent.md");
    out.package(&app, EXAMPLE_APP_PACKAGE, &ts).reference_with(
        &app,
        "examples/documents-app/docs/documents.md",
        &docs,
    );
    if let Some(e) = out.errors().into_iter().next() {
        return Err(e.to_string());
    }
    Ok(out)
}

/// The example app and its reference's options, its base's page at `agent_page`, for the site.
pub fn example_app_reference(root: &Path, agent_page: &str) -> Result<String, String> {
    let agent = Protocol::load("agent", root.join("schema/agent")).map_err(|e| e.to_string())?;
    let dir = root.join("examples/documents-app/schema");
    let app = Protocol::load_with_bases("documents", dir, &[&agent]).map_err(|e| e.to_string())?;
    Ok(docs::emit(&app.model, &example_app_docs(agent_page)))
}

/// The example app's reference options: the agent's entries link into `agent_page`.
fn example_app_docs(agent_page: &str) -> DocsOptions {
    let ts = example_app_ts();
    DocsOptions {
        package_name: ts.package_name.clone(),
        table_prefix: ts.table_prefix.clone(),
        base_pages: BTreeMap::from([("agent".to_owned(), agent_page.to_owned())]),
        flows: Vec::new(),
        examples_corpus: None,
    }
}

/// Where the example app's package goes.
const EXAMPLE_APP_PACKAGE: &str = "examples/documents-app/bindings/documents-contracts";

/// The example app's package options: the agent package is a peer, built and tested against
/// by path (it is not published).
fn example_app_ts() -> TsOptions {
    let mut ts = TsOptions::new("@adecore/documents-contracts", "DOCUMENTS");
    ts.description = "The documents example app: its tables beside the agent ones, its parse functions and typed client.".into();
    ts.base_packages.insert(
        "agent".into(),
        BasePackage::new("@adecore/agent-contracts", "AGENT", "^0.1.0")
            .dev_version("file:../../../../bindings/agent-contracts"),
    );
    ts.extra_exports = vec!["./client.js".into()];
    ts
}

/// The directories the example app's outputs own, without loading its schema.
fn example_app_plan() -> Outputs {
    let mut out = Outputs::new(".");
    out.own_dir(Path::new(EXAMPLE_APP_PACKAGE).join("src"))
        .own_dir("examples/documents-app/docs");
    out
}

/// Files under `dirs` that carry a generated header, relative to `root`.
fn generated_files_on_disk(root: &Path, dirs: &[PathBuf]) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let rel = dir.join(e.file_name());
            if e.path().is_dir() {
                walk(root, &rel, out);
            } else if std::fs::read_to_string(e.path())
                .is_ok_and(|s| s.starts_with(typescript::HEADER) || s.starts_with(docs::HEADER))
            {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    for d in dirs {
        walk(root, d, &mut out);
    }
    if let Ok(entries) = std::fs::read_dir(root.join(DERIVED_CORPUS_DIR)) {
        let mut derived: Vec<PathBuf> = entries
            .flatten()
            .map(|e| Path::new(DERIVED_CORPUS_DIR).join(e.file_name()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        derived.sort();
        out.extend(derived);
    }
    out
}

/// What differs between the plan and the disk: `(path, "stale" | "missing" | "extra")`.
pub fn differences(
    root: &Path,
    targets: &[Target],
    files: &BTreeMap<PathBuf, String>,
) -> Vec<(PathBuf, &'static str)> {
    let mut out = Vec::new();
    for (path, contents) in files {
        match std::fs::read_to_string(root.join(path)) {
            Ok(actual) if actual == *contents => {}
            Ok(_) => out.push((path.clone(), "stale")),
            Err(_) => out.push((path.clone(), "missing")),
        }
    }
    for path in generated_files_on_disk(root, &owned_dirs(targets)) {
        if !files.contains_key(&path) {
            out.push((path, "extra"));
        }
    }
    out
}

pub fn run(root: &Path, check: bool) -> ExitCode {
    let targets = targets();
    let files = match plan(root, &targets) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let diffs = differences(root, &targets, &files);
    if check {
        if diffs.is_empty() {
            eprintln!("codegen: {} generated files are fresh", files.len());
            return ExitCode::SUCCESS;
        }
        for (path, why) in &diffs {
            eprintln!("{}: {why}", path.display());
        }
        eprintln!("run: cargo xtask codegen");
        return ExitCode::FAILURE;
    }
    for (path, why) in &diffs {
        let abs = root.join(path);
        let result = if *why == "extra" {
            std::fs::remove_file(&abs)
        } else {
            std::fs::create_dir_all(abs.parent().expect("a file has a parent"))
                .and_then(|_| std::fs::write(&abs, &files[path]))
        };
        if let Err(e) = result {
            eprintln!("codegen: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!(
            "codegen: {} ({})",
            path.display(),
            if *why == "extra" {
                "removed"
            } else {
                "written"
            }
        );
    }
    eprintln!(
        "codegen: {} generated files, {} changed",
        files.len(),
        diffs.len()
    );
    ExitCode::SUCCESS
}
