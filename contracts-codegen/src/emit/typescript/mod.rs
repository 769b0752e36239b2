//! emit::typescript: the model to a TypeScript package (types, Zod schemas, tables).
//!
//! One package per protocol (`bindings/agent-contracts` for `schema/agent`). The generated
//! sources follow `docs/wire-semantics.md` exactly:
//!
//! - structs are `z.object` (never strict: unknown keys are accepted and dropped);
//! - optional fields are `.optional()` (absent, never null), nullable ones `.nullable()`;
//!   defaults are `.default(v)`; on a named schema, the function forms (`z.optional(Name)`),
//!   so no member of a shared schema is ever read (see `wrap`);
//! - tagged unions are `z.discriminatedUnion(tag, [Variant.extend({ tag: z.literal(..) })])`,
//!   untagged ones `z.union([...])` tried in order;
//! - closed enums are `z.enum`, open ones `z.string()` typed as the known values or any string;
//! - `int` is `z.int()` (the safe range), strings, numbers and arrays carry `.min`/`.max`;
//! - maps are `z.record(z.string(), T)`, `unknown` is `z.unknown()`;
//! - recursive types go through getters, Zod 4 style.
//!
//! Layout of a generated package (paths relative to the package root):
//!
//! ```text
//! README.md                     what the package holds, an example, the wire rules
//! test/readme-example.ts        the README's example in a function, compiled by `npm run build`
//! package.json, tsconfig.json   ESM, exports map, zod a peer, build on `prepare` (not
//!                               @generated: JSON has no comments; the owner's keys of
//!                               package.json are kept, see [`package`])
//! src/schemas.ts                every type's schema and type, in dependency order
//! src/tables.ts                 <PREFIX>_REQUEST_SCHEMAS, <PREFIX>_EVENT_SCHEMAS and their types
//!                               (only when the protocol or a base has requests or events)
//! src/frames.ts                 parse<Frame>() for the frame types, the alias exports, and the
//!                               typed frames (below); for an untagged union, pick<Frame>()
//!                               (below)
//! src/connect.ts                connect<Prefix>Client and connect<Prefix>Host: each side over
//!                               the runtime's JSON-RPC connection (only for a JSON-RPC protocol:
//!                               tables with two sides and a message union of their frames)
//! src/index.ts                  the root module's types, the tables, frames, hand-written extras
//! src/<module>.ts               the types of one schema module (`./task`, `./agent`)
//! ```
//!
//! Typed frames: every struct with a `#[table = "requests[type]"]` field, this protocol's or a
//! base's, gets `<Name>TypedSchema`, a `z.discriminatedUnion` on the key with one
//! `z.object({ ..., key: z.literal(name), field: <table>[name] })` per name of this
//! package's table (an app's: its bases' names and its own). `parse<Name>Typed` runs it and,
//! when it refuses (or throws), the two stages (the frame's schema, then the payload by name),
//! so its verdict, stage and message are always the two stages'. An untagged union whose last
//! variant is such a frame and whose earlier variants each require a literal key the frame
//! lacks (`ServerFrame`: `ok`) gets `parse<Union>Typed` instead: the one pass only on an input
//! without those keys, a parsed value with one of them returned as it is.
//!
//! Picks: `parse<Union>` of an untagged union whose variants require literal keys first tries
//! the one variant `pick<Union>` names, the first whose literal keys the input has (each
//! variant before it lacks one of its own, so refuses): when it accepts, its value is the
//! union's, as Zod answers the first variant that accepts; when it refuses, the union runs for
//! its verdict and message. An event frame then skips the two reply variants' failed tries.
//!
//! The runtime the generated code runs on (`ParseResult<T>`, `TypedParseResult<T>`, the
//! never-throwing `parseWith`, `noTableEntry`, the limits' parameters `onString` and
//! `onArray`) is not emitted: it is hand-written TypeScript, `src/runtime/` of the agent
//! package (`bindings/agent-contracts`), compiled and tested there and exported as
//! `@adecore/agent-contracts/runtime`. The agent package ships it ([`Runtime::Ships`]: its
//! modules import `./runtime/index.js`); every other package imports it from there
//! ([`Runtime::From`], the agent package a peer dependency), so a consumer has one copy.
//! [`RUNTIME_IMPORTS`] names what generated code imports from it.
//!
//! Hand-written files in a package (a typed client, a thread reducer, tests) are not emitted
//! here; [`TsOptions::extra_exports`] names the ones `index.ts` re-exports.
//!
//! One file per job, each read as a template of what it writes:
//!
//! ```text
//! mod.rs        emit: the files of a package, and the Emitter every job reads (the model,
//!               the options, the emission order, where a type is imported from)
//! options.rs    TsOptions, BasePackage, PeerDependency, TsAlias: how a protocol becomes a package
//! runtime.rs    Runtime: where the runtime comes from, what generated code imports from it
//! package.rs    package.json (shared with the package's owner) and tsconfig.json
//! schemas.rs    src/schemas.ts: every type's Zod schema and type, in dependency order
//! tables.rs     src/tables.ts: the request and event tables, their types and parse functions
//! frames.rs     src/frames.ts: parse<Frame>(), the aliases, pick<Union>()
//! connect.rs    src/connect.ts: each side of a JSON-RPC protocol as a connection
//! typed.rs      src/frames.ts's typed section: <Name>TypedSchema, parse<Name>Typed
//! index.rs      src/index.ts and src/<module>.ts: the re-exports
//! readme.rs     README.md and test/readme-example.ts, its example compiled
//! js.rs         JavaScript literals, keys and JSDoc
//! ```

use crate::analysis::Checked;
use crate::model::{Model, Ty, TyKind, TypeDef, TypeRef};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

mod connect;
mod frames;
mod index;
mod js;
mod options;
pub mod package;
mod readme;
mod runtime;
mod schemas;
mod tables;
mod typed;

pub use js::{js_key, js_string, jsdoc, screaming};
pub use options::{BasePackage, PeerDependency, TsAlias, TsOptions};
pub use package::{ATTW_VERSION, NODE_RANGE, PUBLINT_VERSION, ZOD_RANGE};
pub use runtime::{RUNTIME_IMPORTS, RUNTIME_PACKAGE, RUNTIME_RANGE, Runtime, RuntimePackage};

use runtime::import_limits;

/// The header every generated TypeScript source starts with.
pub const HEADER: &str = "// @generated by cargo xtask codegen; do not edit.";

/// The zod version generated packages pin for their own build and tests (a dev dependency;
/// consumers bring theirs, [`ZOD_RANGE`]): 4.6 and later count string lengths in code points.
pub const ZOD_VERSION: &str = "4.6.7";
/// The TypeScript version generated packages pin: 7.x, the native compiler (`tsc --strict`
/// works with it).
pub const TYPESCRIPT_VERSION: &str = "7.0.2";
/// The `@types/node` version generated packages pin (the tests use `node:test`).
pub const TYPES_NODE_VERSION: &str = "20.19.25";

/// The `ws` range the agent package's Node WebSocket port (`./node`) accepts as an optional
/// peer, and the version and types it pins for its own tests.
pub const WS_RANGE: &str = "^8.18.0";
/// See [`WS_RANGE`].
pub const WS_VERSION: &str = "8.18.3";
/// See [`WS_RANGE`].
pub const TYPES_WS_VERSION: &str = "8.18.1";

/// The `ajv` version a package's shared-corpus runner pins (its `ajv/dist/2020` validates
/// the generated draft 2020-12 schema, counting string lengths in code points by default).
pub const AJV_VERSION: &str = "8.20.0";

/// One file of a generated package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Relative to the package root (or, for [`crate::emit`] callers that place it, to
    /// wherever they say).
    pub path: PathBuf,
    pub contents: String,
}

/// The package for one protocol: every generated file, sorted by path; a new package's
/// `package.json` (no owner's keys to keep, see [`package`]).
pub fn emit(model: &Checked, options: &TsOptions) -> Vec<GeneratedFile> {
    emit_with(model, options, None)
}

/// The package for one protocol, its `package.json` keeping the owner's keys of the existing
/// one (read by [`package::parse_existing`]): license, author, repository and the rest.
pub fn emit_with(
    model: &Checked,
    options: &TsOptions,
    existing_package_json: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Vec<GeneratedFile> {
    let e = Emitter::new(model, options);
    let frames = e.frames();
    let example = e.readme_example(&frames);
    let mut files = vec![
        file("README.md", e.readme(&frames, example.as_ref())),
        file(
            "package.json",
            package::package_json(options, &e.modules(), existing_package_json),
        ),
        file(
            "tsconfig.json",
            package::tsconfig(options, example.is_some()),
        ),
        file("src/schemas.ts", e.schemas()),
        file("src/frames.ts", frames),
        file("src/index.ts", e.module_index(None)),
    ];
    if e.has_tables() {
        files.push(file("src/tables.ts", e.tables()));
    }
    if let Some(envelope) = e.rpc_envelope() {
        files.push(file("src/connect.ts", e.connect(&envelope)));
    }
    let runtime = options.runtime.specifier();
    for f in &mut files {
        if f.path.extension().is_some_and(|e| e == "ts") {
            import_limits(&mut f.contents, &runtime);
        }
    }
    if let Some(example) = &example {
        files.push(file("test/readme-example.ts", e.readme_example_ts(example)));
    }
    for m in e.modules() {
        files.push(file(&format!("src/{m}.ts"), e.module_index(Some(&m))));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// Writes an `import { … } from '<spec>';` line for each module specifier of `imports`, with
/// the names imported from it.
fn write_imports(out: &mut String, imports: &BTreeMap<String, BTreeSet<String>>) {
    for (spec, names) in imports {
        let list: Vec<&str> = names.iter().map(String::as_str).collect();
        let _ = writeln!(
            out,
            "import {{ {} }} from {};",
            list.join(", "),
            js_string(spec)
        );
    }
}

fn file(path: &str, contents: String) -> GeneratedFile {
    GeneratedFile {
        path: PathBuf::from(path),
        contents,
    }
}

struct Emitter<'a> {
    model: &'a Checked,
    options: &'a TsOptions,
    /// Own types in emission order: every eager dependency before its user.
    order: Vec<&'a TypeDef>,
}

impl<'a> Emitter<'a> {
    fn new(model: &'a Checked, options: &'a TsOptions) -> Self {
        let mut e = Emitter {
            model,
            options,
            order: Vec::new(),
        };
        e.order = e.emission_order();
        e
    }

    /// Whether the package has request or event tables (the agent protocol does; a protocol of
    /// frames only, like Agent Connect, does not).
    fn has_tables(&self) -> bool {
        !self.model.all_requests().is_empty() || !self.model.all_events().is_empty()
    }

    fn prefix_const(&self) -> String {
        self.options.table_prefix.clone()
    }

    /// The modules of this model, sorted.
    fn modules(&self) -> Vec<String> {
        let set: BTreeSet<String> = self
            .model
            .types
            .iter()
            .filter_map(|t| t.module.clone())
            .collect();
        set.into_iter().collect()
    }

    /// Whether a reference from `from` to `to` must be lazy (both in one cycle).
    fn is_lazy_edge(&self, from: &str, to: &TypeRef) -> bool {
        if !self.is_own(to) {
            return false;
        }
        self.model.analysis().recursion.same_cycle(from, &to.name)
    }

    /// Where a base type is imported from: its package, or the package's module subpath.
    fn import_spec(&self, r: &TypeRef) -> String {
        let p = r.protocol.as_deref().unwrap_or_default();
        let pkg = self
            .options
            .base_packages
            .get(p)
            .map_or_else(|| p.to_owned(), |b| b.name.clone());
        let module = self
            .model
            .base(p)
            .and_then(|b| b.own_type(&r.name))
            .and_then(|d| d.module.clone());
        match module {
            Some(m) => format!("{pkg}/{m}"),
            None => pkg,
        }
    }

    /// A type expression written in `owner` (this model or a base), its references qualified
    /// with the protocol that declares them.
    fn qualify(&self, owner: &Model, ty: &Ty) -> Ty {
        let kind = match &ty.kind {
            TyKind::Ref(r) => TyKind::Ref(TypeRef {
                name: r.name.clone(),
                protocol: match &r.protocol {
                    Some(p) if *p != self.model.name => Some(p.clone()),
                    Some(_) => None,
                    None if owner.name == self.model.name => None,
                    None => Some(owner.name.clone()),
                },
            }),
            TyKind::Array(inner, l) => TyKind::Array(Box::new(self.qualify(owner, inner)), *l),
            TyKind::Map(inner) => TyKind::Map(Box::new(self.qualify(owner, inner))),
            TyKind::Nullable(inner) => TyKind::Nullable(Box::new(self.qualify(owner, inner))),
            other => other.clone(),
        };
        Ty {
            kind,
            loc: ty.loc.clone(),
        }
    }

    fn is_own(&self, r: &TypeRef) -> bool {
        r.protocol.as_deref().is_none_or(|p| p == self.model.name)
    }

    /// Where a schema type is imported from in a generated module of this package.
    fn module_of(&self, r: &TypeRef) -> String {
        if self.is_own(r) {
            "./schemas.js".to_owned()
        } else {
            self.import_spec(r)
        }
    }

    /// A reference from this package to a type `owner` declares.
    fn ref_in(&self, owner: &Model, name: &str) -> TypeRef {
        TypeRef {
            name: name.to_owned(),
            protocol: (owner.name != self.model.name).then(|| owner.name.clone()),
        }
    }

    /// This protocol and its bases, each once, bases first (the tables' order).
    fn protocols(&self) -> Vec<&'a Model> {
        fn walk<'m>(m: &'m Model, seen: &mut BTreeSet<&'m str>, out: &mut Vec<&'m Model>) {
            for b in &m.bases {
                walk(b, seen, out);
            }
            if seen.insert(&m.name) {
                out.push(m);
            }
        }
        let mut out = Vec::new();
        walk(self.model, &mut BTreeSet::new(), &mut out);
        out
    }
}
