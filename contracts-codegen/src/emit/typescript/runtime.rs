//! emit::typescript::runtime: where the runtime the generated code runs on comes from.
//!
//! The runtime (`ParseResult`, `TypedParseResult`, `parseWith`, `noTableEntry`, `quoteName`,
//! and the limits' parameters `onString` and `onArray`) is hand-written TypeScript in the agent
//! package (`bindings/agent-contracts/src/runtime/`), which ships it ([`Runtime::Ships`]);
//! every other package imports it from `@adecore/agent-contracts/runtime` ([`Runtime::From`]).
//! [`RUNTIME_IMPORTS`] is every name generated code imports from it
//! (`tests/ts_runtime.rs` checks the runtime exports each).

use super::js_string;

/// The npm name of the package that ships the runtime (`src/runtime/`, exported as
/// `./runtime`): the agent package.
pub const RUNTIME_PACKAGE: &str = "@adecore/agent-contracts";
/// The range of the runtime package's versions a package importing it accepts (a peer).
pub const RUNTIME_RANGE: &str = "^0.1.0";

/// Every name generated code imports from the runtime, and the names a package's `index.ts`
/// re-exports from it (the runtime's parse names; the limits' parameters and the 64-bit
/// integers' schemas stay inside).
/// `tests/ts_runtime.rs` checks the runtime's `.ts` files export each.
pub const RUNTIME_IMPORTS: &[&str] = &[
    "ParseResult",
    "TypedParseResult",
    "noTableEntry",
    "quoteName",
    "parseWith",
    LIMIT_STRING,
    LIMIT_ARRAY,
    WHOLE_I64,
    WHOLE_U64,
    "callTyped",
    "dispatchTyped",
    "notifyTyped",
    "DispatchAnswer",
    "RawCall",
    "RpcCallOptions",
    "RpcHandlerContext",
    "connectRpc",
    "RpcEnvelope",
    "RpcFailure",
    "RpcOptions",
    "RpcPort",
    "RpcSession",
];

/// Where a package's runtime (`parseWith`, `ParseResult`, the limits' parameters) comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// The package ships it: hand-written under `src/runtime/` (nothing emitted), imported by
    /// the generated modules as `./runtime/index.js` and exported as `./runtime`. The agent
    /// package's.
    Ships,
    /// Imported from `<package>/runtime`; the package a peer dependency (and a dev dependency
    /// for the package's own build and tests).
    From(RuntimePackage),
}

impl Runtime {
    /// The agent package's runtime, at [`RUNTIME_RANGE`]: what
    /// [`TsOptions::new`](super::TsOptions::new) starts with.
    pub fn agent() -> Runtime {
        Runtime::From(RuntimePackage::new(RUNTIME_PACKAGE, RUNTIME_RANGE))
    }

    /// The module specifier generated modules import the runtime from.
    pub fn specifier(&self) -> String {
        match self {
            Runtime::Ships => "./runtime/index.js".to_owned(),
            Runtime::From(p) => format!("{}/runtime", p.name),
        }
    }
}

/// The package a [`Runtime::From`] imports the runtime from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimePackage {
    /// The npm name: `@adecore/agent-contracts`.
    pub name: String,
    /// The range of versions accepted, a peer dependency: `^0.1.0`.
    pub version: String,
    /// What the package's own build and tests install, when not the range (a path while the
    /// runtime's package is not published: `file:../agent-contracts`). A base package of the
    /// same name ([`TsOptions::base_packages`](super::TsOptions::base_packages)) gives its own
    /// instead.
    pub dev_version: Option<String>,
}

impl RuntimePackage {
    /// The runtime of package `name`, accepted at `version` (`^0.1.0`).
    pub fn new(name: &str, version: &str) -> RuntimePackage {
        RuntimePackage {
            name: name.to_owned(),
            version: version.to_owned(),
            dev_version: None,
        }
    }

    /// Builds and tests against `spec` (`file:../agent-contracts`) instead of the range.
    pub fn dev_version(mut self, spec: &str) -> RuntimePackage {
        self.dev_version = Some(spec.to_owned());
        self
    }
}

/// The name of the string limits' parameters in the runtime (`src/runtime/limits.ts`).
pub(super) const LIMIT_STRING: &str = "onString";
/// The name of the array limits' parameters in the runtime (`src/runtime/limits.ts`).
pub(super) const LIMIT_ARRAY: &str = "onArray";

/// The name of `int64`'s schema in the runtime (`src/runtime/ints.ts`), called `wholeI64()`.
pub(super) const WHOLE_I64: &str = "wholeI64";
/// The name of `uint64`'s schema in the runtime (`src/runtime/ints.ts`).
pub(super) const WHOLE_U64: &str = "wholeU64";

/// Imports the limits' parameters and the 64-bit integers' schemas a generated module uses
/// from the runtime (`runtime`, a module specifier), after its import of zod.
pub(super) fn import_limits(ts: &mut String, runtime: &str) {
    let used: Vec<&str> = [LIMIT_ARRAY, LIMIT_STRING, WHOLE_I64, WHOLE_U64]
        .into_iter()
        .filter(|name| ts.contains(&format!(", {name})")) || ts.contains(&format!("{name}()")))
        .collect();
    if used.is_empty() {
        return;
    }
    let zod = "import { z } from 'zod';\n";
    let import = format!(
        "import {{ {} }} from {};\n",
        used.join(", "),
        js_string(runtime)
    );
    match ts.find(zod) {
        Some(at) => ts.insert_str(at + zod.len(), &import),
        None => ts.insert_str(0, &import),
    }
}
