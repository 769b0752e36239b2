//! emit::typescript::package: a generated package's `package.json` and `tsconfig.json`.
//!
//! `package.json` is shared between the generator and the package's owner. The generator
//! writes what makes the package build and publish as it is:
//!
//! - `name`, `version`, `description` (from [`TsOptions`]), `type: module`, `main`, `types`;
//! - `exports`, each entry's `types` condition before `default` (resolvers take the first
//!   condition that matches);
//! - `files`, `engines` (Node 20), `publishConfig.access: public` for a scoped name;
//! - the scripts `build` (`tsc --strict`), `prepare` (the build, so `npm pack`, `npm publish`
//!   and an install from git carry `dist/`) and `test`;
//! - `./runtime` in `exports` when the package ships the runtime ([`Runtime::Ships`]);
//! - zod, the runtime's package ([`Runtime::From`]), the base packages and
//!   [`TsOptions::peer_dependencies`] as peer dependencies with a range (one copy, the
//!   consumer's), each pinned again as a dev dependency for the package's own build and tests;
//!   typescript, `@types/node`, publint and arethetypeswrong as pinned dev dependencies.
//!
//! Everything else is the owner's and is read back from the package's existing
//! `package.json` and kept as it is: `license`, `author`, `repository`, `keywords` and any
//! other key, the owner's own entries of `files`, `scripts`, `engines` and `publishConfig`,
//! and dependencies of names the generator does not write. A name the generator writes
//! in one dependency map is removed from the owner's other maps (zod, once a dependency, is
//! now a peer). Keys are written in npm's usual order, unknown ones last, sorted.

use super::{Runtime, TsOptions};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The zod range a generated package accepts as a peer: 4.6 and later count string lengths in
/// code points, as the Rust side does.
pub const ZOD_RANGE: &str = "^4.6.0";
/// The Node versions a generated package supports (`engines.node`).
pub const NODE_RANGE: &str = ">=20";
/// The publint version a generated package pins to lint its packed tarball.
pub const PUBLINT_VERSION: &str = "0.3.25";
/// The `@arethetypeswrong/cli` version a generated package pins to check its types resolve.
pub const ATTW_VERSION: &str = "0.18.5";

/// Top-level keys in the order they are written; any other key follows, sorted.
const KEY_ORDER: &[&str] = &[
    "name",
    "version",
    "private",
    "description",
    "keywords",
    "homepage",
    "bugs",
    "license",
    "author",
    "contributors",
    "funding",
    "repository",
    "type",
    "main",
    "types",
    "exports",
    "files",
    "bin",
    "sideEffects",
    "engines",
    "publishConfig",
    "scripts",
    "peerDependencies",
    "peerDependenciesMeta",
    "dependencies",
    "optionalDependencies",
    "devDependencies",
];

/// The maps keyed by package name.
const DEPENDENCY_MAPS: &[&str] = &[
    "peerDependencies",
    "peerDependenciesMeta",
    "dependencies",
    "optionalDependencies",
    "devDependencies",
];

/// An existing `package.json` that cannot be kept: not JSON, or not an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageJsonError(pub String);

impl std::fmt::Display for PackageJsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads an existing `package.json` for the keys its owner wrote.
pub fn parse_existing(text: &str) -> Result<Map<String, Value>, PackageJsonError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(PackageJsonError(
            "1:1: not a JSON object; fix or remove it, codegen writes it again".into(),
        )),
        Err(e) => Err(PackageJsonError(format!(
            "{}:{}: {e}; fix or remove it, codegen writes it again",
            e.line(),
            e.column()
        ))),
    }
}

/// `package.json` for a package with the schema modules `modules` (`agent`, `task`), the
/// owner's keys of `existing` kept (see the module docs).
pub fn package_json(
    o: &TsOptions,
    modules: &[String],
    existing: Option<&Map<String, Value>>,
) -> String {
    let generated = generated(o, modules);
    let owned_names: BTreeSet<&str> = generated
        .iter()
        .filter(|(k, _)| DEPENDENCY_MAPS.contains(&k.as_str()))
        .filter_map(|(_, v)| match v {
            Node::Object(entries) => Some(entries.iter().map(|(name, _)| name.as_str())),
            Node::Value(_) => None,
        })
        .flatten()
        .collect();
    let mut out: Vec<(String, Node)> = Vec::new();
    for (k, v) in generated.iter() {
        let mine = existing.and_then(|e| e.get(k));
        out.push((k.clone(), merge(k, v, mine, &owned_names)));
    }
    for (k, v) in existing.into_iter().flatten() {
        if generated.iter().any(|(g, _)| g == k) {
            continue;
        }
        let v = match (DEPENDENCY_MAPS.contains(&k.as_str()), v) {
            (true, Value::Object(m)) => {
                let rest: Map<String, Value> = m
                    .iter()
                    .filter(|(name, _)| !owned_names.contains(name.as_str()))
                    .map(|(name, v)| (name.clone(), v.clone()))
                    .collect();
                if rest.is_empty() {
                    continue;
                }
                Value::Object(rest)
            }
            _ => v.clone(),
        };
        out.push((k.clone(), Node::Value(v)));
    }
    // Known keys in npm's order, then the others by name (a stable sort keeps them sorted).
    out.sort_by(|(a, _), (b, _)| {
        let rank = |k: &str| {
            KEY_ORDER
                .iter()
                .position(|o| *o == k)
                .unwrap_or(KEY_ORDER.len())
        };
        rank(a).cmp(&rank(b)).then_with(|| {
            if rank(a) == KEY_ORDER.len() {
                a.cmp(b)
            } else {
                std::cmp::Ordering::Equal
            }
        })
    });
    let mut s = serde_json::to_string_pretty(&Node::Object(out)).expect("json");
    s.push('\n');
    s
}

/// A JSON value whose objects keep the order given (serde_json's `Map` sorts its keys).
enum Node {
    Value(Value),
    Object(Vec<(String, Node)>),
}

impl Node {
    fn object<K: Into<String>, V: Into<Node>>(entries: impl IntoIterator<Item = (K, V)>) -> Node {
        Node::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

impl<T: Into<Value>> From<T> for Node {
    fn from(v: T) -> Node {
        Node::Value(v.into())
    }
}

impl serde::Serialize for Node {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        match self {
            Node::Value(v) => v.serialize(s),
            Node::Object(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// The keys the generator writes, with its values, in the order written.
fn generated(o: &TsOptions, modules: &[String]) -> Vec<(String, Node)> {
    let entry = |name: &str| {
        Node::object([
            ("types", format!("./dist/src/{name}.d.ts")),
            ("default", format!("./dist/src/{name}.js")),
        ])
    };
    let mut exports = vec![(".".to_owned(), entry("index"))];
    for m in modules.iter().chain(&o.entry_points) {
        exports.push((format!("./{m}"), entry(m)));
    }
    if o.runtime == Runtime::Ships {
        exports.push(("./runtime".to_owned(), entry("runtime/index")));
    }
    for file in ["./schema.json", "./package.json"] {
        exports.push((file.to_owned(), Node::from(file)));
    }
    let mut files = vec!["dist/src".to_owned(), "src".into(), "schema.json".into()];
    files.extend(o.files.iter().cloned());

    let mut peers = BTreeMap::new();
    let mut optional = BTreeMap::new();
    let mut dev = BTreeMap::new();
    peers.insert("zod".to_owned(), ZOD_RANGE.to_owned());
    dev.insert("zod".to_owned(), super::ZOD_VERSION.to_owned());
    // The runtime's package; a base package of the same name gives its own versions.
    if let Runtime::From(r) = &o.runtime {
        peers.insert(r.name.clone(), r.version.clone());
        let dev_version = r.dev_version.as_ref().unwrap_or(&r.version);
        dev.insert(r.name.clone(), dev_version.clone());
    }
    for b in o.base_packages.values() {
        peers.insert(b.name.clone(), b.version.clone());
        let dev_version = b.dev_version.as_ref().unwrap_or(&b.version);
        dev.insert(b.name.clone(), dev_version.clone());
    }
    for (name, p) in &o.peer_dependencies {
        peers.insert(name.clone(), p.range.clone());
        if p.optional {
            optional.insert(name.clone(), json!({ "optional": true }));
        }
    }
    dev.insert("@types/node".into(), super::TYPES_NODE_VERSION.into());
    dev.insert("typescript".into(), super::TYPESCRIPT_VERSION.into());
    dev.insert("publint".into(), PUBLINT_VERSION.into());
    dev.insert("@arethetypeswrong/cli".into(), ATTW_VERSION.into());
    for (name, version) in &o.dev_dependencies {
        dev.insert(name.clone(), version.clone());
    }
    let test = if o.has_tests {
        "node --test dist/test/"
    } else {
        "node -e \"\""
    };

    let mut m: Vec<(String, Node)> = vec![
        ("name".into(), o.package_name.as_str().into()),
        ("version".into(), o.version.as_str().into()),
        ("description".into(), o.description.as_str().into()),
        ("type".into(), "module".into()),
        // For resolvers that read no `exports`.
        ("main".into(), "./dist/src/index.js".into()),
        ("types".into(), "./dist/src/index.d.ts".into()),
        ("exports".into(), Node::Object(exports)),
        ("files".into(), files.into()),
        ("engines".into(), Node::object([("node", NODE_RANGE)])),
    ];
    if o.package_name.starts_with('@') {
        m.push(("publishConfig".into(), Node::object([("access", "public")])));
    }
    m.push((
        "scripts".into(),
        Node::object([
            ("build", "tsc --strict -p tsconfig.json"),
            ("prepare", "npm run build"),
            ("test", test),
        ]),
    ));
    m.push(("peerDependencies".into(), Node::object(peers)));
    if !optional.is_empty() {
        m.push(("peerDependenciesMeta".into(), Node::object(optional)));
    }
    m.push(("devDependencies".into(), Node::object(dev)));
    m
}

/// The generator's value of `key` with the owner's `mine` kept where it is the owner's.
///
/// `scripts`, `engines` and `publishConfig`: the owner's other entries after the generator's.
/// Dependency maps: the owner's names the generator writes in no map, all sorted by name.
/// `files`: the owner's other paths after the generator's. Any other key is the generator's.
fn merge(key: &str, generated: &Node, mine: Option<&Value>, owned: &BTreeSet<&str>) -> Node {
    match (generated, mine) {
        (Node::Object(g), Some(Value::Object(m))) if key != "exports" => {
            let deps = DEPENDENCY_MAPS.contains(&key);
            // The generator's entry, or a name it writes in another dependency map.
            let ours = |k: &str| g.iter().any(|(name, _)| name == k) || deps && owned.contains(k);
            let mut entries: Vec<(String, Node)> =
                g.iter().map(|(k, v)| (k.clone(), clone(v))).collect();
            entries.extend(
                m.iter()
                    .filter(|(k, _)| !ours(k))
                    .map(|(k, v)| (k.clone(), Node::Value(v.clone()))),
            );
            if deps {
                entries.sort_by(|(a, _), (b, _)| a.cmp(b));
            }
            Node::Object(entries)
        }
        (Node::Value(Value::Array(g)), Some(Value::Array(m))) if key == "files" => {
            let mut all = g.clone();
            all.extend(m.iter().filter(|v| !g.contains(v)).cloned());
            Node::Value(Value::Array(all))
        }
        _ => clone(generated),
    }
}

fn clone(n: &Node) -> Node {
    match n {
        Node::Value(v) => Node::Value(v.clone()),
        Node::Object(entries) => {
            Node::Object(entries.iter().map(|(k, v)| (k.clone(), clone(v))).collect())
        }
    }
}

/// The README's `## Install` section: the install command with the required peers, and what
/// each peer is for.
pub fn readme_install(o: &TsOptions) -> String {
    let mut peers: Vec<(String, String)> = vec![("zod".into(), ZOD_RANGE.into())];
    for b in o.base_packages.values() {
        peers.push((b.name.clone(), b.version.clone()));
    }
    if let Runtime::From(r) = &o.runtime
        && !peers.iter().any(|(n, _)| *n == r.name)
    {
        peers.push((r.name.clone(), r.version.clone()));
    }
    let required: Vec<&str> = peers.iter().map(|(n, _)| n.as_str()).collect();
    let list = |ps: &[(String, String)]| {
        let items: Vec<String> = ps.iter().map(|(n, r)| format!("`{n}` `{r}`")).collect();
        items.join(", ")
    };
    let mut out = format!(
        "## Install\n\n```sh\nnpm install {} {}\n```\n\nIts peer dependencies, one copy each and the \
         consumer's: {}. Node 20 or later; ESM only.\n",
        o.package_name,
        required.join(" "),
        list(&peers)
    );
    let optional: Vec<(String, String)> = o
        .peer_dependencies
        .iter()
        .map(|(n, p)| (n.clone(), p.range.clone()))
        .collect();
    if !optional.is_empty() {
        let entries: Vec<String> = o
            .entry_points
            .iter()
            .map(|m| format!("`{}/{m}`", o.package_name))
            .collect();
        out.push_str(&format!(
            "\n{} also needs {} (optional peers: the rest of the package works without them).\n",
            entries.join(", "),
            list(&optional)
        ));
    }
    out.push('\n');
    out
}

/// `tsconfig.json`: `test/` compiled too when the package has tests or a README example.
pub fn tsconfig(o: &TsOptions, example: bool) -> String {
    let include: Vec<&str> = if o.has_tests || example {
        vec!["src", "test"]
    } else {
        vec!["src"]
    };
    let v = json!({
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": true,
            "declaration": true,
            "outDir": "dist",
            "rootDir": ".",
            "skipLibCheck": false,
            "noUnusedLocals": true,
            "noFallthroughCasesInSwitch": true,
            "exactOptionalPropertyTypes": false,
            "types": ["node"],
        },
        "include": include,
    });
    let mut s = serde_json::to_string_pretty(&v).expect("json");
    s.push('\n');
    s
}
