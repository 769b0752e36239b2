//! The TypeScript runtime is hand-written (`bindings/agent-contracts/src/runtime/`, exported as
//! `@adecore/agent-contracts/runtime`): every name the generated code imports from it, in the
//! package that ships it and in the packages that import it, is exported by its `index.ts` and
//! declared by the module that `index.ts` re-exports it from.

use contracts_codegen::emit::typescript::{
    self, BasePackage, GeneratedFile, RUNTIME_IMPORTS, Runtime, RuntimePackage, TsOptions,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod repo;

use repo::root;

fn runtime_dir() -> PathBuf {
    root().join("bindings/agent-contracts/src/runtime")
}

/// The names in a `{ a, type B, c as d }` list, as exported or imported (`d`, for an `as`).
fn names(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| {
            let n = n.strip_prefix("type ").unwrap_or(n).trim();
            n.rsplit(" as ").next().unwrap_or(n).trim().to_owned()
        })
        .collect()
}

/// Every `import { .. } from '<from>'` and `export { .. } from '<from>'` statement of `ts`
/// (each on one line, as generated and as the runtime is written): the names, by specifier.
fn statements(ts: &str, keyword: &str) -> Vec<(String, Vec<String>)> {
    ts.lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix(keyword)?.trim_start();
            let rest = rest.strip_prefix("type ").unwrap_or(rest);
            let (list, from) = rest.strip_prefix('{')?.split_once('}')?;
            let from = from.trim().strip_prefix("from")?.trim();
            let from = from.trim_end_matches(';').trim_matches('\'');
            Some((from.to_owned(), names(list)))
        })
        .collect()
}

/// The names `index.ts` of the runtime exports, each checked to be declared (`export function`,
/// `export const`, `export type`) by the module it comes from.
fn runtime_exports() -> BTreeSet<String> {
    let dir = runtime_dir();
    let index = std::fs::read_to_string(dir.join("index.ts")).expect("runtime/index.ts");
    let mut out = BTreeSet::new();
    for (from, list) in statements(&index, "export") {
        let file = from
            .strip_prefix("./")
            .and_then(|f| f.strip_suffix(".js"))
            .unwrap_or_else(|| panic!("runtime/index.ts re-exports {from}, not a sibling"));
        let text = std::fs::read_to_string(dir.join(format!("{file}.ts")))
            .unwrap_or_else(|e| panic!("runtime/{file}.ts: {e}"));
        for name in list {
            let declared = [
                "function",
                "async function",
                "const",
                "type",
                "interface",
                "class",
            ]
            .iter()
            .any(|k| {
                text.lines().any(|l| {
                    l.strip_prefix(&format!("export {k} ")).is_some_and(|rest| {
                        rest.strip_prefix(name.as_str()).is_some_and(|after| {
                            !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                        })
                    })
                })
            });
            assert!(declared, "runtime/{file}.ts declares no export `{name}`");
            out.insert(name);
        }
    }
    assert!(
        !index.contains("export *"),
        "runtime/index.ts names what it exports"
    );
    out
}

/// Every name `files` import or re-export from `specifier`, with the file that uses it.
fn imported(files: &[GeneratedFile], specifier: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for f in files {
        if f.path.extension().is_none_or(|e| e != "ts") {
            continue;
        }
        for keyword in ["import", "export"] {
            for (from, list) in statements(&f.contents, keyword) {
                if from == specifier {
                    for n in list {
                        out.entry(n).or_insert_with(|| f.path.display().to_string());
                    }
                }
            }
        }
        for old in ["./parse.js", "./limits.js"] {
            assert!(
                !f.contents.contains(old),
                "{} imports {old}, a copy of the runtime",
                f.path.display()
            );
        }
    }
    out
}

/// The packages of this repository, with the runtime as codegen gives it (shipped by the agent
/// package, imported by Agent Connect's and the documents app's).
fn packages() -> Vec<(String, Runtime, Vec<GeneratedFile>)> {
    let (agent, connect, app) = repo::protocols();
    let from = Runtime::From(RuntimePackage::new(
        typescript::RUNTIME_PACKAGE,
        typescript::RUNTIME_RANGE,
    ));

    let mut a = TsOptions::new("@adecore/agent-contracts", "AGENT");
    a.parse_functions = vec!["Request".into(), "ServerFrame".into()];
    a.runtime = Runtime::Ships;
    let mut c = TsOptions::new("@adecore/connect-frames", "CONNECT");
    c.parse_functions = vec!["ClientFrame".into(), "ServerFrame".into()];
    c.runtime = from.clone();
    let mut d = TsOptions::new("@adecore/documents-contracts", "DOCUMENTS");
    d.base_packages.insert(
        "agent".into(),
        BasePackage::new("@adecore/agent-contracts", "AGENT", "^0.1.0"),
    );
    d.runtime = from.clone();
    // A protocol whose tables have two sides imports the runtime's typed calls.
    let rpc = contracts_codegen::generate::Protocol::load(
        "rpc",
        repo::root().join("contracts/tests/two_sided"),
    )
    .expect("rpc");
    let mut r = TsOptions::new("@fixture/rpc-contracts", "RPC");
    r.runtime = from.clone();
    // A JSON-RPC protocol (a message union of its frames) imports the runtime's connection too.
    let mcp = contracts_codegen::generate::Protocol::load("mcp", repo::root().join("schema/mcp"))
        .expect("mcp");
    let mut m = TsOptions::new("@adecore/mcp-contracts", "MCP");
    m.runtime = from;
    [(agent, a), (connect, c), (app, d), (rpc, r), (mcp, m)]
        .into_iter()
        .map(|(p, o)| {
            let files = typescript::emit(&p.model, &o);
            (p.name.clone(), o.runtime.clone(), files)
        })
        .collect()
}

#[test]
fn every_name_the_generated_code_imports_is_exported() {
    let exported = runtime_exports();
    for name in RUNTIME_IMPORTS {
        assert!(
            exported.contains(*name),
            "the runtime does not export `{name}` (RUNTIME_IMPORTS)"
        );
    }
    let mut seen = BTreeSet::new();
    for (name, runtime, files) in packages() {
        let used = imported(&files, &runtime.specifier());
        assert!(!used.is_empty(), "{name} imports nothing from the runtime");
        for (n, file) in &used {
            assert!(
                exported.contains(n),
                "{name}: {file} imports `{n}` from the runtime, which does not export it"
            );
            assert!(
                RUNTIME_IMPORTS.contains(&n.as_str()),
                "{name}: {file} imports `{n}`, not in RUNTIME_IMPORTS"
            );
            seen.insert(n.clone());
        }
    }
    // Every name of RUNTIME_IMPORTS is used by one of the packages.
    let listed: BTreeSet<String> = RUNTIME_IMPORTS.iter().map(|n| (*n).to_owned()).collect();
    assert_eq!(seen, listed);
}

#[test]
fn no_package_carries_a_copy_of_the_runtime() {
    for (name, runtime, files) in packages() {
        for f in &files {
            let p = f.path.to_string_lossy();
            assert!(
                !p.starts_with("src/runtime/") && p != "src/parse.ts" && p != "src/limits.ts",
                "{name} generates {p}"
            );
        }
        let pkg = files
            .iter()
            .find(|f| f.path == Path::new("package.json"))
            .expect("package.json");
        let json: serde_json::Value = serde_json::from_str(&pkg.contents).expect("json");
        let exports = &json["exports"]["./runtime"];
        match runtime {
            Runtime::Ships => {
                assert_eq!(exports["types"], "./dist/src/runtime/index.d.ts", "{name}");
                assert_eq!(exports["default"], "./dist/src/runtime/index.js", "{name}");
            }
            Runtime::From(r) => {
                assert!(exports.is_null(), "{name} exports a runtime");
                assert_eq!(json["peerDependencies"][&r.name], r.version, "{name}");
                assert!(json["devDependencies"][&r.name].is_string(), "{name}");
            }
        }
    }
}
