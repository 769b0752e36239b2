//! `cargo xtask codegen [--check]`: this repository's outputs, planned for `contracts-xtask`'s
//! [`Project`](contracts_xtask::Project), which writes them or checks they are fresh as it
//! does for an app.
//!
//! For each protocol under `schema/` (see [`targets`]) the plan has:
//!
//! - the TypeScript package's generated sources and `package.json`/`tsconfig.json`
//!   (`bindings/<package>/`, [`typescript`]), with the root's license files;
//! - the JSON Schema beside them (`bindings/<package>/schema.json`, [`json_schema`]), its
//!   `$id` the release's;
//! - the Markdown reference (`docs/reference/<protocol>.md`,
//!   [`docs`](contracts_codegen::emit::docs)), with its flows and examples;
//! - the corpus derived from the model (`tests/corpus/derived/<protocol>.jsonl`,
//!   [`contracts_codegen::corpus`]), run with the hand-written corpus by the Rust, Zod and
//!   JSON Schema runners.
//!
//! (agent, connect, mcp and acp) and the example app's package and reference (`examples/documents-app`), as an app's own
//! xtask plans them.
//!
//! A generated file that no longer has a source (a removed module) is deleted: it is found by
//! its `@generated` header under the directories the outputs own, or, for the derived corpus
//! (JSON lines have no comments), by being a `.jsonl` file in its directory. `--check` writes
//! nothing; it prints every stale, missing or extra file and the command to run, and exits 1.

use contracts_codegen::corpus;
use contracts_codegen::emit::docs::DocsOptions;
use contracts_codegen::emit::json_schema::{self, JsonSchemaOptions};
use contracts_codegen::emit::typescript::{
    self, BasePackage, PeerDependency, Runtime, RuntimePackage, TsAlias, TsOptions,
};
use contracts_codegen::flows;
use contracts_codegen::generate::{Outputs, Protocol};
use contracts_xtask::Protocols;
use std::collections::BTreeMap;
use std::path::Path;

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
    // The runtime (`src/runtime/`, hand-written) is the agent package's: the others import it.
    agent.runtime = Runtime::Ships;
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
    // The runtime from the agent package, built and tested against by path (not published).
    connect.runtime = Runtime::From(
        RuntimePackage::new(typescript::RUNTIME_PACKAGE, typescript::RUNTIME_RANGE)
            .dev_version("file:../agent-contracts"),
    );
    connect
        .dev_dependencies
        .insert("ajv".into(), typescript::AJV_VERSION.into());

    // The two JSON-RPC protocols of the field, each its own package on the agent package's
    // runtime: a message of either side is parsed by `parse<Message>Typed`.
    let mut mcp = json_rpc_package(
        "@adecore/mcp-contracts",
        "MCP",
        "The Model Context Protocol (revision 2025-11-25): types, Zod schemas, the request and notification tables of both sides and parse functions.",
        "JSONRPCMessage",
    );
    let mut acp = json_rpc_package(
        "@adecore/acp-contracts",
        "ACP",
        "The Agent Client Protocol (v1): types, Zod schemas, the request and notification tables of both sides and parse functions.",
        "JsonRpcMessage",
    );

    // The cross-side check of JSON-RPC refusals (tests/rpc-parity) runs both protocols'
    // connections from ACP's tests: MCP's package is built before ACP's.
    acp.dev_dependencies.insert(
        "@adecore/mcp-contracts".into(),
        "file:../mcp-contracts".into(),
    );

    for ts in [&mut agent, &mut connect, &mut mcp, &mut acp] {
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
        Target {
            protocol: "mcp",
            package_dir: "bindings/mcp-contracts",
            ts: mcp,
        },
        Target {
            protocol: "acp",
            package_dir: "bindings/acp-contracts",
            ts: acp,
        },
    ]
}

/// The package of a JSON-RPC protocol (MCP, ACP): `parse<message>` for any message of either
/// side, the runtime from the agent package (by path while it is not published), and the
/// tests of connect's package (the corpus through Zod and ajv).
fn json_rpc_package(name: &str, prefix: &str, description: &str, message: &str) -> TsOptions {
    let mut ts = TsOptions::new(name, prefix);
    ts.description = description.into();
    ts.parse_functions = vec![message.into()];
    ts.has_tests = true;
    ts.runtime = Runtime::From(
        RuntimePackage::new(typescript::RUNTIME_PACKAGE, typescript::RUNTIME_RANGE)
            .dev_version("file:../agent-contracts"),
    );
    ts.dev_dependencies
        .insert("ajv".into(), typescript::AJV_VERSION.into());
    ts
}

/// The license files at the workspace root that every package of `targets` ships, copied
/// into it by codegen (npm packs only what is under the package's directory).
const LICENSE_FILES: &[&str] = &["LICENSE-MIT", "LICENSE-APACHE"];

/// Where the derived corpus goes; every `.jsonl` file in it is generated.
const DERIVED_CORPUS_DIR: &str = "tests/corpus/derived";

/// Every generated file of this repository, planned into `out` from the loaded protocols.
pub fn plan(p: &Protocols, out: &mut Outputs) -> Result<(), String> {
    let root = out.root().to_path_buf();
    for t in targets() {
        let protocol = p.get(t.protocol);
        let pkg = Path::new(t.package_dir);
        // The package's own keys of package.json (its license) are kept.
        out.typescript(protocol, pkg, &t.ts);
        for name in &t.ts.files {
            out.copy(name, pkg.join(name));
        }
        let js = JsonSchemaOptions {
            id: Some(json_schema::release_id(
                env!("CARGO_PKG_REPOSITORY"),
                &t.ts.package_name,
                &t.ts.version,
            )),
            title: t.ts.package_name.clone(),
        };
        out.json_schema(protocol, pkg.join("schema.json"), &js);
        let d = docs_options(&root, &t, protocol)?;
        out.reference_with(
            protocol,
            Path::new("docs/reference").join(format!("{}.md", t.protocol)),
            &d,
        );
        // The derived cases, the examples among them, then every frame of every flow.
        let mut cases = corpus::derive(&protocol.model);
        for c in flows::cases(&d.flows) {
            if !cases.contains(&c) {
                cases.push(c);
            }
        }
        out.file(
            Path::new(DERIVED_CORPUS_DIR).join(format!("{}.jsonl", t.protocol)),
            corpus::to_jsonl(&cases),
        );
    }
    out.own_files(DERIVED_CORPUS_DIR, "jsonl");
    let app = p.get(EXAMPLE_APP);
    out.package(app, EXAMPLE_APP_PACKAGE, &example_app_ts())
        .examples(app, EXAMPLE_APP_CORPUS)
        .reference_with(
            app,
            "examples/documents-app/docs/documents.md",
            &example_app_docs("../../../docs/reference/agent.md"),
        );
    Ok(())
}

/// How a protocol's reference is written: its package, its flows (`schema/<protocol>/*.flows`)
/// and the derived corpus that checks its examples.
pub fn docs_options(root: &Path, t: &Target, protocol: &Protocol) -> Result<DocsOptions, String> {
    let display = protocol.dir.strip_prefix(root).unwrap_or(&protocol.dir);
    let display = display.display().to_string();
    Ok(DocsOptions {
        package_name: t.ts.package_name.clone(),
        table_prefix: t.ts.table_prefix.clone(),
        base_pages: BTreeMap::new(),
        flows: flows::load(&protocol.dir, &display, &protocol.model)?,
        examples_corpus: Some(format!("{DERIVED_CORPUS_DIR}/{}.jsonl", t.protocol)),
        examples_checked: None,
    })
}

/// The example app's protocol, as the project names it.
pub const EXAMPLE_APP: &str = "documents";

/// The example app's reference options: the agent's entries link into `agent_page`, and its
/// examples are the lines of [`EXAMPLE_APP_CORPUS`].
pub fn example_app_docs(agent_page: &str) -> DocsOptions {
    let mut d = DocsOptions::for_package(&example_app_ts()).base_page("agent", agent_page);
    d.examples_corpus = Some(EXAMPLE_APP_CORPUS.into());
    d
}

/// The example app's examples, run through the Rust verdict over its tables
/// (`examples/documents-app/tests/corpus.rs`) and its package's Zod schemas and JSON Schema
/// (its `test/corpus.test.ts`), as the agent's derived corpus is.
const EXAMPLE_APP_CORPUS: &str = "tests/corpus/derived/documents.jsonl";

/// Where the example app's package goes.
const EXAMPLE_APP_PACKAGE: &str = "examples/documents-app/bindings/documents-contracts";

/// The example app's package options: the agent package is a peer (its base and its
/// runtime), built and tested against by path (it is not published).
fn example_app_ts() -> TsOptions {
    const AGENT_BY_PATH: &str = "file:../../../../bindings/agent-contracts";
    let mut ts = TsOptions::new("@adecore/documents-contracts", "DOCUMENTS");
    ts.description = "The documents example app: its tables beside the agent ones, its parse functions and typed client.".into();
    ts.base_packages.insert(
        "agent".into(),
        BasePackage::new("@adecore/agent-contracts", "AGENT", "^0.1.0").dev_version(AGENT_BY_PATH),
    );
    ts.runtime = Runtime::From(
        RuntimePackage::new(typescript::RUNTIME_PACKAGE, typescript::RUNTIME_RANGE)
            .dev_version(AGENT_BY_PATH),
    );
    ts.extra_exports = vec!["./client.js".into()];
    // Its examples through the shared corpus runner: Zod, and the JSON Schema with ajv.
    ts.has_tests = true;
    ts.dev_dependencies
        .insert("ajv".into(), typescript::AJV_VERSION.into());
    ts
}
