//! The build-cost benchmark's two apps in use ([`crate::bench_build`]): a crate on each side
//! that calls what an app of the protocols calls, so that what each side compiles where it is
//! called is measured too.
//!
//! - `use-generated`, on `bench-generated`: every table side read by name with the fast
//!   reader first (`ByName::read_named`) and written; every frame (a struct or union nothing
//!   refers to, [`roots`]) read by its one-pass typed form where the generated
//!   code has one (`from_str_typed`, `from_str_union_typed`), else by `wire::from_str`, and
//!   written. The typed frames, `read_named` and the fast readers they reach are `#[inline]`
//!   or generic: this crate is where they are compiled.
//! - `use-baseline`, on `baseline-tables`: the same calls to the baseline in use's by-name
//!   `parse`, `to_json` and frame reads and writes, which that crate compiled.
//!
//! Each crate is measured alone, as the others are; the report adds each side's two builds.

use crate::serde_baseline::{roots, type_name};
use contracts_codegen::generate::Protocol;
use contracts_codegen::model::{Model, TypeDefKind};
use contracts_codegen::names::rust_field;
use std::fmt::Write;

/// The table sides an app reads by name, as both sides name their enums, when the table has
/// entries.
fn sides(model: &Model) -> Vec<&'static str> {
    let mut sides = Vec::new();
    if !model.requests.is_empty() {
        sides.extend(["RequestPayload", "RequestResult"]);
    }
    if !model.events.is_empty() {
        sides.push("EventPayload");
    }
    sides
}

/// A root type's path inside its protocol's module (`Request`, `module::Name`).
fn root_path(model: &Model, name: &str) -> String {
    let module = model
        .types
        .iter()
        .find(|d| d.name == name)
        .and_then(|d| d.module.as_deref());
    match module {
        Some(m) => format!("{}::{}", rust_field(m), type_name(name)),
        None => type_name(name),
    }
}

/// Opens the module of protocol `p`, its types as `p` from `krate`.
fn open_module(out: &mut String, krate: &str, p: &Protocol) {
    let m = rust_field(&p.name);
    let _ = write!(
        out,
        "\npub mod {m} {{\n    use super::*;\n    use {krate}::{m} as p;\n"
    );
}

/// A function that reads a value of table side `side` by its name and writes it, by `body`.
fn by_name_fn(out: &mut String, side: &str, body: &str) {
    let f = rust_field(side);
    let _ = write!(
        out,
        "\n    /// Reads a value of `{side}` by its name, and writes it.\n    \
         pub fn {f}(name: &str, json: &str) -> Option<String> {{\n        {body}\n    }}\n"
    );
}

/// `use-generated`'s `lib.rs`: one module per protocol of `protocols`. `emitted` is each
/// protocol's generated Rust (`emit_pretty`), where a frame's typed form is looked for.
pub fn generated(protocols: &[(&Protocol, &str)], krate: &str) -> String {
    let mut out = String::from(
        "//! What an app of the generated protocols calls (`cargo xtask bench-build`): each table \
         read by name\n//! with the fast reader first and written, each frame read by its typed \
         form where it has one.\n\n\
         use contracts::wire::ByName;\nuse std::hint::black_box;\n",
    );
    let krate = krate.replace('-', "_");
    for (p, emitted) in protocols {
        open_module(&mut out, &krate, p);
        for side in sides(&p.model) {
            let body = format!(
                "let v = <p::{side} as ByName<'_>>::read_named(name, json).ok()?;\n        \
                 serde_json::to_string(&v).ok()"
            );
            by_name_fn(&mut out, side, &body);
        }
        for root in roots(&p.model) {
            let path = root_path(&p.model, root);
            let typed = type_name(&format!("{root}Typed"));
            // The typed form sits beside its type, in the type's module.
            let typed_path = match path.rsplit_once("::") {
                Some((module, _)) => format!("{module}::{typed}"),
                None => typed.clone(),
            };
            let is_union = p
                .model
                .types
                .iter()
                .any(|d| d.name == root && matches!(d.kind, TypeDefKind::Union(_)));
            let read = if emitted.contains(&format!("pub struct {typed}<")) {
                format!("contracts::wire::from_str_typed::<p::{typed_path}<'_>>(text)")
            } else if is_union && emitted.contains(&format!("pub enum {typed}<")) {
                format!("contracts::wire::from_str_union_typed::<p::{typed_path}<'_>>(text)")
            } else {
                format!("contracts::wire::from_str::<p::{path}>(text)")
            };
            let f = rust_field(root);
            let _ = write!(
                out,
                "\n    /// Reads a `{root}` frame.\n    \
                 pub fn read_{f}(text: &str) -> bool {{\n        \
                 black_box(&{read}).is_ok()\n    }}\n\n    \
                 /// Writes a `{root}` frame.\n    \
                 pub fn write_{f}(frame: &p::{path}) -> Option<String> {{\n        \
                 serde_json::to_string(frame).ok()\n    }}\n"
            );
        }
        out.push_str("}\n");
    }
    out
}

/// `use-baseline`'s `lib.rs`: the same calls to `krate` (the baseline in use).
pub fn baseline(protocols: &[&Protocol], krate: &str) -> String {
    let mut out = String::from(
        "//! What an app of the plain serde types calls (`cargo xtask bench-build`): the same \
         calls as\n//! `use-generated`'s, to the baseline in use.\n\n\
         use std::hint::black_box;\n",
    );
    let krate = krate.replace('-', "_");
    for p in protocols {
        open_module(&mut out, &krate, p);
        for side in sides(&p.model) {
            let body = format!("p::tables::{side}::parse(name, json).ok()?.to_json().ok()");
            by_name_fn(&mut out, side, &body);
        }
        for root in roots(&p.model) {
            let path = root_path(&p.model, root);
            let f = rust_field(root);
            let _ = write!(
                out,
                "\n    /// Reads a `{root}` frame.\n    \
                 pub fn read_{f}(text: &str) -> bool {{\n        \
                 black_box(&p::tables::read_{f}(text)).is_ok()\n    }}\n\n    \
                 /// Writes a `{root}` frame.\n    \
                 pub fn write_{f}(frame: &p::{path}) -> Option<String> {{\n        \
                 p::tables::write_{f}(frame).ok()\n    }}\n"
            );
        }
        out.push_str("}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use contracts_codegen::emit::rust::{RustOptions, emit_pretty};
    use std::path::Path;

    /// Each module's function names, in order.
    fn functions(text: &str) -> Vec<(String, String)> {
        let mut module = String::new();
        let mut out = Vec::new();
        for line in text.lines() {
            if let Some(m) = line.strip_prefix("pub mod ") {
                module = m.trim_end_matches(" {").to_owned();
            } else if let Some(f) = line.trim_start().strip_prefix("pub fn ") {
                out.push((module.clone(), f[..f.find('(').unwrap()].to_owned()));
            }
        }
        out
    }

    /// Both apps make the same calls, and the generated one reads the agent's frames by their
    /// typed forms where the generated code has them.
    #[test]
    fn both_apps_call_the_same_functions() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let protocols = crate::project().load(root).unwrap();
        let (agent, connect) = (protocols.get("agent"), protocols.get("connect"));
        let emitted = [agent, connect].map(|p| emit_pretty(&p.model, &RustOptions::default()));
        let generated = generated(
            &[(agent, &emitted[0]), (connect, &emitted[1])],
            "bench-generated",
        );
        let baseline = baseline(&[agent, connect], "baseline-tables");
        let calls = functions(&generated);
        assert_eq!(calls, functions(&baseline));
        for expected in [
            "request_payload",
            "event_payload",
            "read_request",
            "write_server_frame",
        ] {
            assert!(
                calls.contains(&("agent".into(), expected.into())),
                "{expected}: {calls:?}"
            );
        }
        assert!(generated.contains("from_str_typed::<p::RequestTyped<'_>>(text)"));
        assert!(generated.contains("from_str_union_typed::<p::ServerFrameTyped<'_>>(text)"));
        assert!(generated.contains("use bench_generated::agent as p;"));
        assert!(baseline.contains("p::tables::RequestPayload::parse(name, json)"));
    }
}
