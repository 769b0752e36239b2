//! emit::typescript::options: how a protocol becomes a package: its npm name, version and
//! description, the table prefix, the parse functions and aliases it exports, its base
//! packages, its hand-written modules and entry points, its dependencies, and where its runtime
//! comes from ([`Runtime`]).

use super::Runtime;
use heck::ToUpperCamelCase;
use std::collections::BTreeMap;

/// An extra export under the spec's name for a schema type (`ErrorSchema` for `WireError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TsAlias {
    /// The exported base name: `Error` exports `ErrorSchema`.
    pub name: String,
    /// The schema type it stands for: `WireError`.
    pub target: String,
    /// Also export `type <name> = <target>` (off for names like `Error` that would shadow a
    /// global).
    pub type_alias: bool,
}

/// The package of a base protocol, as an app's package imports it.
///
/// The app's tables spread the base's (`{ ...AGENT_REQUEST_SCHEMAS, 'document.read': ... }`)
/// and its types import the base's schemas by name: no base name or shape is written into
/// the app's package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BasePackage {
    /// The npm name: `@adecore/agent-contracts`.
    pub name: String,
    /// The base's table prefix: `AGENT` for `AGENT_REQUEST_SCHEMAS`.
    pub table_prefix: String,
    /// The range of versions the package works with, a peer dependency (one copy of the
    /// base's client and schemas, the consumer's): `^0.1.0`.
    pub version: String,
    /// What the package's own build and tests install (a dev dependency), when not the
    /// range: a path while the base is not published (`file:../agent-contracts`).
    pub dev_version: Option<String>,
}

impl BasePackage {
    /// A base package by npm name, table prefix and range of versions (`^0.1.0`).
    pub fn new(name: &str, table_prefix: &str, version: &str) -> BasePackage {
        BasePackage {
            name: name.to_owned(),
            table_prefix: table_prefix.to_owned(),
            version: version.to_owned(),
            dev_version: None,
        }
    }

    /// Builds and tests against `spec` (`file:../agent-contracts`) instead of the range.
    pub fn dev_version(mut self, spec: &str) -> BasePackage {
        self.dev_version = Some(spec.to_owned());
        self
    }
}

/// A peer dependency of a package: a range, and whether the package works without it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerDependency {
    pub range: String,
    /// Needed only by an entry point that not every consumer imports (`ws`, for `./node`).
    pub optional: bool,
}

/// How a protocol becomes a package.
#[derive(Clone, Debug)]
pub struct TsOptions {
    /// The npm name: `@adecore/agent-contracts`.
    pub package_name: String,
    pub version: String,
    pub description: String,
    /// The tables' prefix: `AGENT` gives `AGENT_REQUEST_SCHEMAS` and `AgentRequestType`.
    pub table_prefix: String,
    /// Types that get a `parse<Name>(input): ParseResult<Name>` (`Request`, `ServerFrame`).
    pub parse_functions: Vec<String>,
    /// Extra exports under other names.
    pub aliases: Vec<TsAlias>,
    /// Base protocols by name with the npm package their types and tables are imported from.
    pub base_packages: BTreeMap<String, BasePackage>,
    /// Hand-written modules `index.ts` re-exports, as import paths (`./client.js`).
    pub extra_exports: Vec<String>,
    /// Test files compiled and run by `npm test` (a glob under `dist/`), if the package has any.
    pub has_tests: bool,
    /// Extra devDependencies by npm name with their pinned versions (the shared-corpus runner
    /// needs `ajv`, see [`AJV_VERSION`](super::AJV_VERSION)).
    pub dev_dependencies: BTreeMap<String, String>,
    /// Peer dependencies besides zod and the bases, by npm name (pin each in
    /// `dev_dependencies` too for the package's own tests).
    pub peer_dependencies: BTreeMap<String, PeerDependency>,
    /// Hand-written modules exported as a subpath of their own, not from the root: `node`
    /// is `./node`, `src/node.ts` (one that needs a peer the root does not, such as `ws`).
    pub entry_points: Vec<String>,
    /// Files the package ships besides `dist/src`, `src` and `schema.json` (its license
    /// files).
    pub files: Vec<String>,
    /// Where the runtime comes from: shipped ([`Runtime::Ships`], the agent package) or
    /// imported ([`Runtime::agent`] by default).
    pub runtime: Runtime,
}

impl TsOptions {
    /// Options for a package with nothing but the generated sources.
    pub fn new(package_name: &str, table_prefix: &str) -> TsOptions {
        TsOptions {
            package_name: package_name.to_owned(),
            version: "0.1.0".to_owned(),
            description: String::new(),
            table_prefix: table_prefix.to_owned(),
            parse_functions: Vec::new(),
            aliases: Vec::new(),
            base_packages: BTreeMap::new(),
            extra_exports: Vec::new(),
            has_tests: false,
            dev_dependencies: BTreeMap::new(),
            peer_dependencies: BTreeMap::new(),
            entry_points: Vec::new(),
            files: Vec::new(),
            runtime: Runtime::agent(),
        }
    }

    /// `AGENT` -> `Agent`, the prefix of the table's type names.
    pub fn type_prefix(&self) -> String {
        self.table_prefix.to_lowercase().to_upper_camel_case()
    }
}
