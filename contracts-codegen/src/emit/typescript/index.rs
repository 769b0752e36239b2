//! emit::typescript::index: `src/index.ts` (the root types, the runtime's parse names, the
//! tables, the frames and the hand-written modules) and `src/<module>.ts` (one schema module's
//! types), both re-exports only.

use super::{Emitter, HEADER, js_string, screaming};
use crate::model::TypeDefKind;
use crate::names;
use std::fmt::Write as _;

impl<'a> Emitter<'a> {
    /// `src/index.ts` (module `None`) or `src/<module>.ts`: re-exports.
    pub(super) fn module_index(&self, module: Option<&str>) -> String {
        let mut out = format!("{HEADER}\n");
        match module {
            None => {
                let _ = writeln!(
                    out,
                    "//\n// {}: the root types, the tables, the frames.\n",
                    self.options.package_name
                );
            }
            Some(m) => {
                let _ = writeln!(
                    out,
                    "//\n// {}/{m}: the types of the `{m}` module.\n",
                    self.options.package_name
                );
            }
        }
        let mut names: Vec<String> = Vec::new();
        for t in &self.model.types {
            if t.module.as_deref() != module {
                continue;
            }
            names.push(names::ts_schema(&t.name));
            // An integer enum's name is also its object of named values.
            match &t.kind {
                TypeDefKind::Enum(e) if e.is_int() => names.push(t.name.clone()),
                _ => names.push(format!("type {}", t.name)),
            }
            if let TypeDefKind::Enum(e) = &t.kind
                && e.open
                && !e.is_int()
            {
                names.push(format!("{}_VALUES", screaming(&t.name)));
            }
        }
        if module.is_none() {
            names.extend(self.model.consts.iter().map(|k| k.name.clone()));
        }
        if !names.is_empty() {
            out.push_str("export {\n");
            for n in &names {
                let _ = writeln!(out, "    {n},");
            }
            out.push_str("} from './schemas.js';\n");
        }
        if module.is_none() {
            // The runtime's parse names, as the package's own (the same functions).
            let mut runtime = vec!["type ParseResult"];
            if !self.typed_frames().is_empty() {
                runtime.push("type TypedParseResult");
            }
            runtime.extend(["noTableEntry", "quoteName", "parseWith"]);
            let _ = writeln!(
                out,
                "export {{ {} }} from {};",
                runtime.join(", "),
                js_string(&self.options.runtime.specifier())
            );
            if self.has_tables() {
                out.push_str("export * from './tables.js';\n");
            }
            out.push_str("export * from './frames.js';\n");
            if self.rpc_envelope().is_some() {
                out.push_str("export * from './connect.js';\n");
            }
            for x in &self.options.extra_exports {
                let _ = writeln!(out, "export * from {};", js_string(x));
            }
        } else if names.is_empty() {
            out.push_str("export {};\n");
        }
        out
    }
}
