//! emit::typescript::schemas: `src/schemas.ts`, every own type's Zod schema and TypeScript
//! type in dependency order (recursive references through getters), and the rules a type is
//! written by (`wrap`: the function forms on a named schema).

use super::js::{js_value, literal};
use super::runtime::{LIMIT_ARRAY, LIMIT_STRING, WHOLE_I64, WHOLE_U64};
use super::{Emitter, HEADER, js_key, js_string, jsdoc, screaming, write_imports};
use crate::model::{
    Enum, EnumLit, Field, Format, Rest, Ty, TyKind, TypeDef, TypeDefKind, TypeRef, UnionTag, Width,
};
use crate::names;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

impl<'a> Emitter<'a> {
    /// Depth-first over eager references, in declaration order: deterministic, and every
    /// schema is defined before a non-getter use.
    pub(super) fn emission_order(&self) -> Vec<&'a TypeDef> {
        let mut done: BTreeSet<&str> = BTreeSet::new();
        let mut on_stack: BTreeSet<&str> = BTreeSet::new();
        let mut out = Vec::new();
        for t in &self.model.types {
            self.visit(t, &mut done, &mut on_stack, &mut out);
        }
        out
    }

    pub(super) fn visit(
        &self,
        t: &'a TypeDef,
        done: &mut BTreeSet<&'a str>,
        on_stack: &mut BTreeSet<&'a str>,
        out: &mut Vec<&'a TypeDef>,
    ) {
        if done.contains(t.name.as_str()) || on_stack.contains(t.name.as_str()) {
            return;
        }
        on_stack.insert(&t.name);
        for r in eager_refs(t, |from, to| self.is_lazy_edge(from, to)) {
            if self.is_own(r)
                && let Some(d) = self.model.own_type(&r.name)
            {
                self.visit(d, done, on_stack, out);
            }
        }
        on_stack.remove(t.name.as_str());
        done.insert(&t.name);
        out.push(t);
    }

    /// `src/schemas.ts`: every schema and type.
    pub(super) fn schemas(&self) -> String {
        let mut out = format!(
            "{HEADER}\n//\n// Every type of the `{}` protocol: a Zod schema and its type.\n\n",
            self.model.name
        );
        out.push_str("import { z } from 'zod';\n");
        // Imports from base packages, grouped by package subpath.
        let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for t in &self.model.types {
            for r in all_refs(t) {
                if self.is_own(r) {
                    continue;
                }
                imports
                    .entry(self.import_spec(r))
                    .or_default()
                    .insert(names::ts_schema(&r.name));
            }
        }
        write_imports(&mut out, &imports);
        for k in &self.model.consts {
            let doc = jsdoc(&k.docs, &k.meta, &[], "");
            let _ = writeln!(
                out,
                "\n{doc}export const {} = {} as const;",
                k.name,
                literal(&k.value)
            );
        }
        for t in &self.order {
            out.push('\n');
            self.type_def(&mut out, t);
        }
        out
    }

    /// An integer enum: the names and their values as a `const` object of the type's own
    /// name (`Severity.Error` is `1`), and its schema: a closed one `z.enum` of that object
    /// (exactly the listed numbers), an open one any `int`, typed as the known values or any
    /// number (and so is a closed one that `grows`: it may gain a value compatibly).
    fn int_enum(&self, out: &mut String, doc: &str, name: &str, e: &Enum, grows: bool) {
        let schema = names::ts_schema(name);
        let mut entries = String::new();
        for v in &e.values {
            let EnumLit::Int { name: key, value } = &v.value else {
                continue;
            };
            let vdoc = jsdoc(&v.docs, &v.meta, &[], "    ");
            let _ = writeln!(entries, "{vdoc}    {key}: {value},");
        }
        let _ = writeln!(out, "{doc}export const {name} = {{\n{entries}}} as const;");
        if e.open {
            let known: Vec<String> = e.ints().map(|i| i.to_string()).collect();
            let known = if known.is_empty() {
                "never".to_owned()
            } else {
                known.join(" | ")
            };
            let _ = writeln!(out, "{doc}export type {name} = {known} | (number & {{}});");
            let _ = writeln!(
                out,
                "{doc}export const {schema} = z.int() as z.ZodType<{name}, number>;"
            );
        } else {
            // One that may gain a value compatibly admits any integer, as a string enum does.
            let open = if grows { " | (number & {})" } else { "" };
            let _ = writeln!(out, "{doc}export const {schema} = z.enum({name});");
            let _ = writeln!(
                out,
                "{doc}export type {name} = z.infer<typeof {schema}>{open};"
            );
        }
    }

    pub(super) fn type_def(&self, out: &mut String, t: &TypeDef) {
        let schema = names::ts_schema(&t.name);
        let mut extra = Vec::new();
        if let TypeDefKind::Enum(e) = &t.kind {
            let mut s = String::from(match (e.open, e.is_int()) {
                (true, false) => "Known values (the set is open: any string is accepted):",
                (true, true) => "Known values (the set is open: any integer is accepted):",
                (false, _) => "Values:",
            });
            for v in &e.values {
                let mut line = match &v.value {
                    EnumLit::Str(x) => format!("\n- `{}`", js_string(x)),
                    EnumLit::Int { name, value } => format!("\n- `{value}` (`{name}`)"),
                };
                let d = v.docs.text().replace('\n', " ");
                if !d.trim().is_empty() {
                    let _ = write!(line, ": {}", d.trim());
                }
                if v.meta.legacy {
                    line.push_str(" (legacy: read and written back, never produced)");
                }
                if let Some(r) = &v.meta.deprecated {
                    let _ = write!(
                        line,
                        " (deprecated{}{})",
                        if r.is_empty() { "" } else { ": " },
                        r
                    );
                }
                s.push_str(&line);
            }
            extra.push(s);
        }
        let doc = jsdoc(&t.docs, &t.meta, &extra, "");
        match &t.kind {
            TypeDefKind::Alias(ty) => {
                let _ = writeln!(out, "{doc}export const {schema} = {};", self.ty(ty));
                let _ = writeln!(
                    out,
                    "{doc}export type {} = z.infer<typeof {schema}>;",
                    t.name
                );
            }
            TypeDefKind::Struct(s) if !s.includes.is_empty() => {
                // The included schemas shared (`.extend`), then the struct's own fields.
                let included: usize = s.includes.iter().map(|i| i.fields).sum();
                let mut expr = names::ts_schema(&s.includes[0].ty.name);
                for inc in &s.includes[1..] {
                    let _ = write!(expr, ".extend({}.shape)", names::ts_schema(&inc.ty.name));
                }
                if s.fields.len() > included {
                    let own = self.shape(&t.name, &s.fields[included..], "");
                    let _ = write!(expr, ".extend({own})");
                }
                if let Some(rest) = &s.rest
                    && let TyKind::Map(inner) = &rest.ty.kind
                {
                    let _ = write!(expr, ".catchall({})", self.ty(inner));
                }
                let _ = writeln!(out, "{doc}export const {schema} = {expr};");
                let _ = writeln!(
                    out,
                    "{doc}export type {} = z.infer<typeof {schema}>;",
                    t.name
                );
            }
            TypeDefKind::Struct(s) => {
                let _ = writeln!(
                    out,
                    "{doc}export const {schema} = {};",
                    self.object(&t.name, &s.fields, s.rest.as_ref(), "")
                );
                let _ = writeln!(
                    out,
                    "{doc}export type {} = z.infer<typeof {schema}>;",
                    t.name
                );
            }
            TypeDefKind::Enum(e) if e.is_int() => {
                self.int_enum(out, &doc, &t.name, e, self.model.may_grow(t))
            }
            TypeDefKind::Enum(e) => {
                let values: Vec<String> = e.strs().map(js_string).collect();
                if e.open {
                    let known = if values.is_empty() {
                        "never".to_owned()
                    } else {
                        values.join(" | ")
                    };
                    let _ = writeln!(
                        out,
                        "{doc}export type {} = {known} | (string & {{}});",
                        t.name
                    );
                    let _ = writeln!(
                        out,
                        "{doc}export const {schema} = z.string() as z.ZodType<{}, string>;",
                        t.name
                    );
                    let _ = writeln!(out, "/** The known values of {}. */", t.name);
                    let _ = writeln!(
                        out,
                        "export const {}_VALUES = [{}] as const;",
                        screaming(&t.name),
                        values.join(", ")
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "{doc}export const {schema} = z.enum([{}]);",
                        values.join(", ")
                    );
                    // An enum that may gain a value compatibly (one that `#[extends]` an open
                    // one, one that travels only client -> host): its type admits any string,
                    // so a switch over it keeps a default arm, as `#[non_exhaustive]` makes a
                    // Rust `match`.
                    let open = if self.model.may_grow(t) {
                        " | (string & {})"
                    } else {
                        ""
                    };
                    let _ = writeln!(
                        out,
                        "{doc}export type {} = z.infer<typeof {schema}>{open};",
                        t.name
                    );
                }
            }
            TypeDefKind::Union(u) => {
                let mut variants = Vec::new();
                for v in &u.variants {
                    let vdoc = jsdoc(&v.docs, &v.meta, &[], "    ");
                    let base = self.ty(&v.ty);
                    let expr = match (&u.tag, &v.tag) {
                        (UnionTag::Tagged { field, .. }, Some(tag)) => {
                            format!(
                                "{base}.extend({{ {}: z.literal({}) }})",
                                js_key(field),
                                js_string(tag)
                            )
                        }
                        _ => base,
                    };
                    variants.push(format!("{vdoc}    {expr},\n"));
                }
                let body: String = variants.concat();
                match &u.tag {
                    UnionTag::Tagged { field, .. } => {
                        let _ = writeln!(
                            out,
                            "{doc}export const {schema} = z.discriminatedUnion({}, [\n{body}]);",
                            js_string(field)
                        );
                    }
                    UnionTag::Untagged => {
                        let _ = writeln!(out, "{doc}export const {schema} = z.union([\n{body}]);");
                    }
                }
                let _ = writeln!(
                    out,
                    "{doc}export type {} = z.infer<typeof {schema}>;",
                    t.name
                );
            }
        }
    }

    /// `z.object({ ... })` for fields; `owner` decides which references are lazy. An open
    /// object keeps its other keys: `z.looseObject` for `..: unknown`, `.catchall(T)` for
    /// `..: T`.
    pub(super) fn object(
        &self,
        owner: &str,
        fields: &[Field],
        rest: Option<&Rest>,
        indent: &str,
    ) -> String {
        let rest_ty = rest.map(|r| match &r.ty.kind {
            TyKind::Map(inner) => &**inner,
            _ => &r.ty,
        });
        let (open, catchall) = match rest_ty {
            None => ("z.object", String::new()),
            Some(t) if matches!(t.kind, TyKind::Unknown) => ("z.looseObject", String::new()),
            Some(t) if ty_has_lazy(t, &|r| self.is_lazy_edge(owner, r)) => (
                "z.object",
                format!(".catchall(z.lazy(() => {}))", self.ty(t)),
            ),
            Some(t) => ("z.object", format!(".catchall({})", self.ty(t))),
        };
        format!("{open}({}){catchall}", self.shape(owner, fields, indent))
    }

    /// The shape of an object's fields, `{ key: schema, ... }`; `owner` decides which
    /// references are lazy (getters).
    pub(super) fn shape(&self, owner: &str, fields: &[Field], indent: &str) -> String {
        if fields.is_empty() {
            return "{}".to_owned();
        }
        let inner = format!("{indent}    ");
        let mut s = "{\n".to_owned();
        for f in fields {
            s.push_str(&jsdoc(&f.docs, &f.meta, &[], &inner));
            let expr = self.field(f);
            if ty_has_lazy(&f.ty, &|r| self.is_lazy_edge(owner, r)) {
                let _ = writeln!(s, "{inner}get {}() {{", js_key(&f.name));
                let _ = writeln!(s, "{inner}    return {expr};");
                let _ = writeln!(s, "{inner}}},");
            } else {
                let _ = writeln!(s, "{inner}{}: {expr},", js_key(&f.name));
            }
        }
        let _ = write!(s, "{indent}}}");
        s
    }

    /// The Zod expression for a field: its type, `.optional()` or `.default(v)` when it may be
    /// absent.
    pub(super) fn field(&self, f: &Field) -> String {
        let expr = self.ty(&f.ty);
        if !f.optional {
            return expr;
        }
        match &f.default {
            Some(v) if v.is_object() || v.is_array() => wrap(
                &f.ty,
                expr,
                "default",
                Some(&format!("() => ({})", js_value(v))),
            ),
            Some(v) => wrap(&f.ty, expr, "default", Some(&js_value(v))),
            None => wrap(&f.ty, expr, "optional", None),
        }
    }

    /// The Zod expression for a type expression.
    pub(super) fn ty(&self, ty: &Ty) -> String {
        match &ty.kind {
            // Limits are checked only on a value of their type (`limits`).
            // A format is checked first, as `z.base64()` checks it, then the lengths.
            TyKind::String(l, format) => {
                let mut s = match format {
                    None => "z.string()".to_owned(),
                    Some(Format::Byte) => "z.base64()".to_owned(),
                    Some(f @ Format::Uri) => format!("z.string().regex(/{}/)", f.pattern()),
                };
                if let Some(m) = l.min {
                    let _ = write!(s, ".min({m}, {LIMIT_STRING})");
                }
                if let Some(m) = l.max {
                    let _ = write!(s, ".max({m}, {LIMIT_STRING})");
                }
                s
            }
            TyKind::Boolean => "z.boolean()".to_owned(),
            TyKind::Int(l, _) | TyKind::Number(l) => {
                let mut s = match ty.kind {
                    TyKind::Int(_, Width::Safe) => "z.int()".to_owned(),
                    TyKind::Int(_, Width::I64) => format!("{WHOLE_I64}()"),
                    TyKind::Int(_, Width::U64) => format!("{WHOLE_U64}()"),
                    _ => "z.number()".to_owned(),
                };
                if let Some(m) = l.min {
                    let _ = write!(s, ".min({m})");
                }
                if let Some(m) = l.max {
                    let _ = write!(s, ".max({m})");
                }
                s
            }
            TyKind::Unknown => "z.unknown()".to_owned(),
            TyKind::Literal(crate::model::Literal::Null) => "z.null()".to_owned(),
            TyKind::Literal(l) => format!("z.literal({})", literal(l)),
            TyKind::Array(inner, l) => {
                let mut s = format!("z.array({})", self.ty(inner));
                if let Some(m) = l.min {
                    let _ = write!(s, ".min({m}, {LIMIT_ARRAY})");
                }
                if let Some(m) = l.max {
                    let _ = write!(s, ".max({m}, {LIMIT_ARRAY})");
                }
                s
            }
            TyKind::Map(inner) => format!("z.record(z.string(), {})", self.ty(inner)),
            TyKind::Ref(r) => names::ts_schema(&r.name),
            TyKind::Nullable(inner) => wrap(inner, self.ty(inner), "nullable", None),
        }
    }
}

/// Whether `ty` references a type for which `lazy` holds (any named type with `|_| true`).
pub(super) fn ty_has_lazy(ty: &Ty, lazy: &impl Fn(&TypeRef) -> bool) -> bool {
    let mut found = false;
    ty.each_ref(&mut |r| found |= lazy(r));
    found
}

/// `expr.method(arg)`, the schema of `ty` wrapped; for a named schema, Zod's function form
/// `z.method(Name, arg)` instead (`default` is `z._default`). Reading a method of a schema
/// installs it on that schema as an own property (Zod 4 binds methods on first read), which
/// gives the schema a hidden class of its own: V8's inline caches in Zod's parse code, shared
/// by every schema, then see one more shape. A named schema is used in many places, so the
/// generated code reads no member of one that another schema or a parse function uses; a
/// tagged union's variant is still `.extend`ed with its tag (its schema serves that union).
pub(super) fn wrap(ty: &Ty, expr: String, method: &str, arg: Option<&str>) -> String {
    match (&ty.kind, arg) {
        (TyKind::Ref(_), _) => {
            let f = if method == "default" {
                "_default"
            } else {
                method
            };
            let arg = arg.map(|a| format!(", {a}")).unwrap_or_default();
            format!("z.{f}({expr}{arg})")
        }
        (_, arg) => format!("{expr}.{method}({})", arg.unwrap_or_default()),
    }
}

/// Every reference a definition makes.
pub(super) fn all_refs(t: &TypeDef) -> Vec<&TypeRef> {
    let mut out = Vec::new();
    if let TypeDefKind::Struct(s) = &t.kind {
        out.extend(s.includes.iter().map(|i| &i.ty));
    }
    for ty in t.slots() {
        ty.each_ref(&mut |r| out.push(r));
    }
    out
}

/// The references a definition needs at its own initialisation (struct fields in the same
/// cycle are getters and are not needed then).
pub(super) fn eager_refs(t: &TypeDef, lazy: impl Fn(&str, &TypeRef) -> bool) -> Vec<&TypeRef> {
    match &t.kind {
        TypeDefKind::Struct(s) => {
            // Included schemas are read at once (`.extend`).
            let mut out: Vec<&TypeRef> = s.includes.iter().map(|i| &i.ty).collect();
            for ty in s.slots() {
                if !ty_has_lazy(ty, &|r| lazy(&t.name, r)) {
                    ty.each_ref(&mut |r| out.push(r));
                }
            }
            out
        }
        _ => all_refs(t),
    }
}
