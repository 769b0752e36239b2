//! emit::typescript::frames: `src/frames.ts`, `parse<Frame>()` for the frame types, the
//! alias exports, and for an untagged union whose variants require literal keys,
//! `pick<Union>()` (the variant to try first); the typed section is [`super::typed`]'s.

use super::js::{js_prop, literal};
use super::{Emitter, HEADER, js_string, jsdoc};
use crate::model::{Literal, Meta, TableKind, TyKind, TypeDefKind, TypeRef};
use crate::names;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

impl<'a> Emitter<'a> {
    /// `src/frames.ts`: the parse functions, the alias exports and, for the frames with a
    /// `#[table]` field, their one-pass schemas and typed parse functions.
    pub(super) fn frames(&self) -> String {
        let typed = self.typed_frames();
        let unions = self.typed_unions(&typed);
        let many = self.variants_typed_unions(&typed, &unions);
        let mut out = format!(
            "{HEADER}\n//\n// The envelope stage: parse functions for the frame types, and the names the spec exports.\n"
        );
        if !typed.is_empty() {
            out.push_str("// The typed frames: the envelope and the payload by name in one safeParse, the two\n// stages' verdict when it refuses.\n");
        }
        out.push('\n');
        // Imports by module: values, then types, each sorted.
        let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut type_imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        const SCHEMAS: &str = "./schemas.js";
        for f in &self.options.parse_functions {
            imports
                .entry(SCHEMAS.into())
                .or_default()
                .insert(names::ts_schema(f));
            type_imports
                .entry(SCHEMAS.into())
                .or_default()
                .insert(f.clone());
        }
        let picks: BTreeMap<&String, Vec<Pick>> = self
            .options
            .parse_functions
            .iter()
            .filter_map(|f| self.union_picks(f).map(|p| (f, p)))
            .collect();
        for p in picks.values().flatten() {
            imports
                .entry(self.module_of(&p.schema))
                .or_default()
                .insert(names::ts_schema(&p.schema.name));
        }
        for a in &self.options.aliases {
            imports
                .entry(SCHEMAS.into())
                .or_default()
                .insert(names::ts_schema(&a.target));
            if a.type_alias {
                type_imports
                    .entry(SCHEMAS.into())
                    .or_default()
                    .insert(a.target.clone());
            }
        }
        let p = self.prefix_const();
        let tp = self.options.type_prefix();
        let tables = "./tables.js".to_owned();
        // A frame's schema: for its entries when they extend it, and as the envelope of its
        // own typed parse function (a union's typed parse function has the union's).
        let targets = self.typed_parse_targets(&typed, &unions);
        for (i, f) in typed.iter().enumerate() {
            let envelope = targets.contains(&i) && !unions.iter().any(|u| u.frame == i);
            if f.extends() || envelope {
                imports
                    .entry(self.module_of(&f.schema))
                    .or_default()
                    .insert(names::ts_schema(&f.schema.name));
            }
            let t = imports.entry(tables.clone()).or_default();
            match f.table {
                TableKind::Requests => t.insert(format!("{p}_REQUEST_SCHEMAS")),
                TableKind::Events => t.insert(format!("{p}_EVENT_SCHEMAS")),
            };
        }
        for u in &unions {
            imports
                .entry(self.module_of(&u.schema))
                .or_default()
                .insert(names::ts_schema(&u.schema.name));
            for e in &u.earlier {
                type_imports
                    .entry(self.module_of(e))
                    .or_default()
                    .insert(e.name.clone());
            }
        }
        // A union of typed frames anywhere: its schema, each variant's it tests, the types.
        let mut many_frames = Vec::new();
        for u in &many {
            imports
                .entry(self.module_of(&u.schema))
                .or_default()
                .insert(names::ts_schema(&u.schema.name));
            for v in u.tested() {
                imports
                    .entry(self.module_of(&v.schema))
                    .or_default()
                    .insert(names::ts_schema(&v.schema.name));
            }
            for v in &u.variants {
                type_imports
                    .entry(self.module_of(&v.schema))
                    .or_default()
                    .insert(v.schema.name.clone());
                many_frames.extend(v.frame);
            }
        }
        // The two stages of each typed parse function: the frame's own name lookup and the
        // table's parse function.
        let mut stage_frames = self.typed_parse_targets(&typed, &unions);
        stage_frames.extend(many_frames);
        for f in stage_frames {
            let t = imports.entry(tables.clone()).or_default();
            match typed[f].table {
                TableKind::Requests => {
                    t.insert(format!("is{tp}RequestType"));
                    t.insert(format!("parse{tp}RequestPayload"));
                }
                TableKind::Events => {
                    t.insert(format!("is{tp}EventType"));
                    t.insert(format!("parse{tp}EventPayload"));
                }
            }
        }
        if !typed.is_empty() || !picks.is_empty() {
            out.push_str("import { z } from 'zod';\n");
        }
        // Packages first (as `tables.ts` orders them), then this package's modules.
        let mut specs: Vec<&String> = imports.keys().chain(type_imports.keys()).collect();
        specs.sort_by_key(|s| (s.starts_with("./"), s.as_str()));
        specs.dedup();
        for spec in specs {
            let mut all: Vec<String> = imports
                .get(spec)
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default();
            if let Some(ts) = type_imports.get(spec) {
                all.extend(ts.iter().map(|t| format!("type {t}")));
            }
            let _ = writeln!(
                out,
                "import {{ {} }} from {};",
                all.join(", "),
                js_string(spec)
            );
        }
        if !self.options.parse_functions.is_empty() || !typed.is_empty() {
            let mut parse = vec!["parseWith", "type ParseResult"];
            if self.options.parse_functions.is_empty() {
                parse.retain(|n| *n == "parseWith");
            }
            if !typed.is_empty() {
                parse.push("noTableEntry");
                parse.push("type TypedParseResult");
            }
            let _ = writeln!(
                out,
                "import {{ {} }} from {};",
                parse.join(", "),
                js_string(&self.options.runtime.specifier())
            );
        }
        for f in &self.options.parse_functions {
            let doc = self
                .model
                .own_type(f)
                .map(|t| t.docs.clone())
                .unwrap_or_default();
            let mut extra = vec![format!(
                "Answers `{{ ok: true, value }}` or `{{ ok: false, message }}` with Zod's\nprettified message; never throws."
            )];
            if doc.is_empty() {
                extra.insert(0, format!("Parse a `{f}`."));
            }
            let pick = match picks.get(f) {
                Some(p) => {
                    out.push('\n');
                    out.push_str(&pick_fn(f, p));
                    extra.push(format!(
                        "The variant {{@link pick{f}}} names is tried first."
                    ));
                    format!(", pick{f}")
                }
                None => String::new(),
            };
            out.push('\n');
            out.push_str(&jsdoc(&doc, &Meta::default(), &extra, ""));
            let _ = writeln!(
                out,
                "export function parse{f}(input: unknown): ParseResult<{f}> {{\n    return parseWith({}, input{pick});\n}}",
                names::ts_schema(f)
            );
        }
        for a in &self.options.aliases {
            out.push('\n');
            let _ = writeln!(
                out,
                "/** The same schema as {{@link {}}}. */",
                names::ts_schema(&a.target)
            );
            let _ = writeln!(
                out,
                "export const {} = {};",
                names::ts_schema(&a.name),
                names::ts_schema(&a.target)
            );
            if a.type_alias {
                let _ = writeln!(out, "/** The same type as {{@link {}}}. */", a.target);
                let _ = writeln!(out, "export type {} = {};", a.name, a.target);
            }
        }
        self.typed_section(&mut out, &typed, &unions, &many);
        if self.options.parse_functions.is_empty()
            && self.options.aliases.is_empty()
            && typed.is_empty()
        {
            out.push_str("export {};\n");
        }
        out
    }

    /// The picks of the untagged union `name` of this model (`analysis::picks`), each with
    /// its variant's schema as this package refers to it; `None`: nothing to pick by.
    pub(super) fn union_picks(&self, name: &str) -> Option<Vec<Pick>> {
        let TypeDefKind::Union(u) = &self.model.own_type(name)?.kind else {
            return None;
        };
        let picks = self.model.analysis().picks.get(name)?;
        Some(
            picks
                .iter()
                .filter_map(
                    |p| match self.qualify(self.model, &u.variants[p.variant].ty).kind {
                        TyKind::Ref(schema) => Some(Pick {
                            schema,
                            keys: p.keys.clone(),
                        }),
                        _ => None,
                    },
                )
                .collect(),
        )
    }
}

/// A variant an untagged union's parse function can pick by its literal keys.
pub(super) struct Pick {
    pub(super) schema: TypeRef,
    /// The required literal keys and their values; none for a variant that takes anything.
    pub(super) keys: Vec<(String, Literal)>,
}

/// `pick<Name>`: the first variant of the untagged union `name` whose literal keys `input`
/// has (see `union_picks`), or `undefined` (the union decides).
pub(super) fn pick_fn(name: &str, picks: &[Pick]) -> String {
    let mut out = format!(
        "/**\n * The first variant of `{name}` that can accept `input`: the first whose required literal keys\n * it has (each variant before it lacks one, so refuses). `undefined`: the union decides.\n */\nfunction pick{name}(input: unknown): z.ZodType | undefined {{\n    if (typeof input !== 'object' || input === null) return undefined;\n    const v = input as {{ readonly [key: string]: unknown }};\n"
    );
    for p in picks {
        let schema = names::ts_schema(&p.schema.name);
        if p.keys.is_empty() {
            let _ = writeln!(out, "    return {schema};");
            out.push_str("}\n");
            return out;
        }
        let cond: Vec<String> = p
            .keys
            .iter()
            .map(|(k, l)| format!("v{} === {}", js_prop(k), literal(l)))
            .collect();
        let _ = writeln!(out, "    if ({}) return {schema};", cond.join(" && "));
    }
    out.push_str("    return undefined;\n}\n");
    out
}
