//! emit::typescript::typed: the typed frames of `src/frames.ts`: for each struct with a
//! `#[table]` field, `<Name>TypedSchema` (one pass, the payload read by name) and
//! `parse<Name>Typed`, which falls back to the two stages for their verdict; for an untagged
//! union ending in such a frame, `parse<Union>Typed`.

use super::js::{article, js_prop};
use super::schemas::ty_has_lazy;
use super::{Emitter, js_key, js_string, jsdoc};
use crate::model::{
    Docs, Field, Meta, TableKind, TyKind, TypeDef, TypeDefKind, TypeRef, UnionTag, Variant,
};
use crate::names;
use std::fmt::Write as _;

impl<'a> Emitter<'a> {
    /// Every typed frame (`analysis::frames`), this protocol's or a base's, whose table has
    /// entries here: each gets `<Name>TypedSchema` over this package's table (an app's over
    /// its own names and its bases').
    pub(super) fn typed_frames(&self) -> Vec<TypedFrame<'a>> {
        let mut out: Vec<TypedFrame<'a>> = Vec::new();
        for owner in self.protocols() {
            for t in &owner.types {
                let Some(frame) = self.model.named(&owner.name).analysis().frames.get(&t.name)
                else {
                    continue;
                };
                let TypeDefKind::Struct(s) = &t.kind else {
                    continue;
                };
                if out.iter().any(|f| f.schema.name == t.name) {
                    continue;
                }
                let entries = frame.entries(self.model, owner, t);
                if entries.is_empty() {
                    continue;
                }
                out.push(TypedFrame {
                    schema: self.ref_in(owner, &t.name),
                    def: t,
                    key: &s.fields[frame.key],
                    field: &s.fields[frame.field],
                    table: frame.table,
                    entries,
                });
            }
        }
        out
    }

    /// Every untagged union whose last variant is a closed typed frame and whose earlier
    /// variants are structs that each require a literal key the frame does not have
    /// (`ServerFrame`: `ok`): an input without those keys can only be the frame, and a parsed
    /// value is an earlier variant exactly when it has one of them. Each gets
    /// `parse<Name>Typed`.
    pub(super) fn typed_unions(&self, typed: &[TypedFrame<'a>]) -> Vec<TypedUnion> {
        let mut out = Vec::new();
        for owner in self.protocols() {
            'union: for t in &owner.types {
                let TypeDefKind::Union(u) = &t.kind else {
                    continue;
                };
                if !matches!(u.tag, UnionTag::Untagged) {
                    continue;
                }
                let Some((last, earlier)) = u.variants.split_last() else {
                    continue;
                };
                let resolve = |v: &Variant| match self.qualify(owner, &v.ty).kind {
                    TyKind::Ref(r) => self.model.resolve(&r).map(|d| (r, d)),
                    _ => None,
                };
                let Some((last_ref, _)) = resolve(last) else {
                    continue;
                };
                let Some(frame) = typed.iter().position(|f| f.schema == last_ref) else {
                    continue;
                };
                let TypeDefKind::Struct(fs) = &typed[frame].def.kind else {
                    continue;
                };
                // An open frame may hold an earlier variant's key in its rest: the union's
                // value would not tell them apart (`variants_typed_unions` reads it).
                if fs.rest.is_some() {
                    continue;
                }
                let mut keys: Vec<String> = Vec::new();
                let mut refs = Vec::new();
                for v in earlier {
                    let Some((r, d)) = resolve(v) else {
                        continue 'union;
                    };
                    let TypeDefKind::Struct(s) = &d.kind else {
                        continue 'union;
                    };
                    let literals = self.model.declaring(&r).required_literals(s);
                    let Some((k, _)) = literals
                        .into_iter()
                        .find(|(k, _)| !fs.fields.iter().any(|g| g.name == *k))
                    else {
                        continue 'union;
                    };
                    if !keys.iter().any(|have| have == k) {
                        keys.push(k.to_owned());
                    }
                    refs.push(r);
                }
                out.push(TypedUnion {
                    schema: self.ref_in(owner, &t.name),
                    earlier: refs,
                    frame,
                    keys,
                });
            }
        }
        out
    }

    /// Every untagged union of structs that holds a typed frame and is no [`TypedUnion`]
    /// (JSON-RPC's `JSONRPCMessage`: a request, a notification, the responses). Each gets
    /// `parse<Name>Typed`, which reads each typed variant's payload through its table.
    pub(super) fn variants_typed_unions(
        &self,
        typed: &[TypedFrame<'a>],
        unions: &[TypedUnion],
    ) -> Vec<VariantsTypedUnion> {
        let mut out = Vec::new();
        for owner in self.protocols() {
            'union: for t in &owner.types {
                let TypeDefKind::Union(u) = &t.kind else {
                    continue;
                };
                if !matches!(u.tag, UnionTag::Untagged) {
                    continue;
                }
                let schema = self.ref_in(owner, &t.name);
                if unions.iter().any(|x| x.schema == schema)
                    || out.iter().any(|x: &VariantsTypedUnion| x.schema == schema)
                {
                    continue;
                }
                let mut variants: Vec<UnionVariant> = Vec::new();
                let mut structs: Vec<&crate::model::Struct> = Vec::new();
                for v in &u.variants {
                    let TyKind::Ref(r) = self.qualify(owner, &v.ty).kind else {
                        continue 'union;
                    };
                    let Some(d) = self.model.resolve(&r) else {
                        continue 'union;
                    };
                    let TypeDefKind::Struct(s) = &d.kind else {
                        continue 'union;
                    };
                    let frame = typed.iter().position(|f| f.schema == r);
                    // The keys of which one must be absent for each earlier variant to refuse
                    // an object of this frame's keys: one it requires and the frame does not
                    // have; `None` when some earlier variant has none.
                    let guard = frame.and_then(|i| {
                        let fields = typed[i].fields();
                        let mut keys: Vec<String> = Vec::new();
                        for earlier in &structs {
                            let k = earlier.fields.iter().find(|f| {
                                !f.optional && !fields.iter().any(|g| g.name == f.name)
                            })?;
                            if !keys.contains(&k.name) {
                                keys.push(k.name.clone());
                            }
                        }
                        Some(keys)
                    });
                    structs.push(s);
                    variants.push(UnionVariant {
                        schema: r,
                        frame,
                        guard,
                    });
                }
                if variants.iter().all(|v| v.frame.is_none()) {
                    continue;
                }
                out.push(VariantsTypedUnion { schema, variants });
            }
        }
        out
    }

    /// One entry's object of a typed frame's union: the frame's fields in their order, the
    /// key's schema `key` and the table field's `payload`. Written out, not
    /// `<Frame>Schema.extend(..)`, so the frame's schema, which the two stages parse, has no
    /// member read (see [`wrap`]); a frame with a field of a named type (whose import this file
    /// does not have) is extended all the same.
    pub(super) fn typed_entry(&self, f: &TypedFrame<'_>, key: &str, payload: &str) -> String {
        if f.extends() {
            return format!(
                "{}.extend({{ {}: {key}, {}: {payload} }})",
                names::ts_schema(&f.schema.name),
                js_key(&f.key.name),
                js_key(&f.field.name),
            );
        }
        let members: Vec<String> = f
            .fields()
            .iter()
            .map(|x| {
                let expr = if x.name == f.key.name {
                    key.to_owned()
                } else if x.name == f.field.name {
                    payload.to_owned()
                } else {
                    self.field(x)
                };
                format!("{}: {expr}", js_key(&x.name))
            })
            .collect();
        // An open frame keeps its other keys, as its own schema does (a rest of a named type
        // extends that schema, above).
        let (open, catchall) = match f.rest() {
            None => ("z.object", String::new()),
            Some(t) if matches!(t.kind, TyKind::Unknown) => ("z.looseObject", String::new()),
            Some(t) => ("z.object", format!(".catchall({})", self.ty(t))),
        };
        format!("{open}({{ {} }}){catchall}", members.join(", "))
    }

    /// The typed frames a typed parse function reads (by index): each union's frame, and each
    /// frame that is no union's.
    pub(super) fn typed_parse_targets(
        &self,
        typed: &[TypedFrame<'a>],
        unions: &[TypedUnion],
    ) -> Vec<usize> {
        let mut out: Vec<usize> = unions.iter().map(|u| u.frame).collect();
        for i in 0..typed.len() {
            if !unions.iter().any(|u| u.frame == i) {
                out.push(i);
            }
        }
        out.sort();
        out
    }

    /// The table stage of a typed frame `f` whose envelope is the value `v` (indented by
    /// `ind`): its name looked up, its payload (`{}` when an optional one is absent) parsed by
    /// name, the typed value answered.
    fn table_stage(&self, f: &TypedFrame<'_>, v: &str, ind: &str) -> String {
        let tp = self.options.type_prefix();
        let (is, parse) = match f.table {
            TableKind::Requests => (
                format!("is{tp}RequestType"),
                format!("parse{tp}RequestPayload"),
            ),
            TableKind::Events => (format!("is{tp}EventType"), format!("parse{tp}EventPayload")),
        };
        let p = js_prop(&f.field.name);
        let params = if f.field.optional {
            format!("{v}{p} === undefined ? {{}} : {v}{p}")
        } else {
            format!("{v}{p}")
        };
        format!(
            "{ind}const name = {v}{key};
{ind}if (!{is}(name)) return {{ ok: false, stage: 'table', message: noTableEntry(name) }};
{ind}const payload = {parse}(name, {params});
{ind}if (!payload.ok) return {{ ok: false, stage: 'table', message: payload.message }};
{ind}return {{ ok: true, value: {{ ...{v}, {field}: payload.value }} as {frame}Typed }};
",
            key = js_prop(&f.key.name),
            field = js_key(&f.field.name),
            frame = f.schema.name,
        )
    }

    /// `parse<Union>Typed` and `<Union>Typed` for each union of [`Self::variants_typed_unions`].
    fn variants_typed_section(
        &self,
        out: &mut String,
        typed: &[TypedFrame<'a>],
        many: &[VariantsTypedUnion],
    ) {
        for u in many {
            let name = &u.schema.name;
            let members: Vec<String> = u
                .variants
                .iter()
                .map(|v| match v.frame {
                    Some(_) => format!("{}Typed", v.schema.name),
                    None => v.schema.name.clone(),
                })
                .collect();
            let frames: Vec<String> = u
                .variants
                .iter()
                .filter(|v| v.frame.is_some())
                .map(|v| format!("`{}`", v.schema.name))
                .collect();
            let _ = write!(
                out,
                "
/** {a} `{name}` with the payload of each typed frame ({frames}) read by name. */
export type {name}Typed = {members};
",
                a = article(name),
                frames = frames.join(", "),
                members = members.join(" | "),
            );
            let docs = format!(
                "{a} `{name}` with the payload of each typed frame ({frames}) read by name through its\ntable. A typed frame is tried in one `safeParse` of its typed schema where the union would\npick it (no earlier variant can accept an object without the keys it requires); otherwise\nthe two stages ({{@link {envelope}}}, then the payload of the variant the union picked, by\nname), so the verdict, the stage and the message are theirs. An absent optional payload is\n`{{}}` to the table.\n\nAnswers `{{ ok: true, value }}` or `{{ ok: false, stage, message }}` with Zod's prettified\nmessage; never throws.",
                a = article(name),
                frames = frames.join(", "),
                envelope = names::ts_schema(name),
            );
            out.push('\n');
            out.push_str(&jsdoc(&Docs::default(), &Meta::default(), &[docs], ""));
            let _ = writeln!(
                out,
                "export function parse{name}Typed(input: unknown): TypedParseResult<{name}Typed> {{"
            );
            out.push_str("    try {\n");
            for v in &u.variants {
                let (Some(i), Some(guard)) = (v.frame, &v.guard) else {
                    continue;
                };
                let schema = format!("{}TypedSchema", typed[i].schema.name);
                if guard.is_empty() {
                    let _ = writeln!(
                        out,
                        "        {{\n            const r = z.safeParse({schema}, input);\n            if (r.success) return {{ ok: true, value: r.data }};\n        }}"
                    );
                } else {
                    let absent: Vec<String> = guard
                        .iter()
                        .map(|k| format!("!({} in input)", js_string(k)))
                        .collect();
                    let _ = writeln!(
                        out,
                        "        if (typeof input === 'object' && input !== null && {}) {{\n            const r = z.safeParse({schema}, input);\n            if (r.success) return {{ ok: true, value: r.data }};\n        }}",
                        absent.join(" && ")
                    );
                }
            }
            out.push_str("    } catch {\n        // Thrown by a hostile input: the two stages answer it.\n    }\n");
            let _ = writeln!(
                out,
                "    const frame = parseWith({}, input);",
                names::ts_schema(name)
            );
            out.push_str(
                "    if (!frame.ok) return { ok: false, stage: 'envelope', message: frame.message };\n",
            );
            out.push_str("    // The variant the union picked: the first whose schema accepts, as it tried them.\n");
            for v in u.tested() {
                let _ = writeln!(
                    out,
                    "    if (z.safeParse({}, input).success) {{",
                    names::ts_schema(&v.schema.name)
                );
                match v.frame {
                    Some(i) => {
                        let _ =
                            writeln!(out, "        const v = frame.value as {};", v.schema.name);
                        out.push_str(&self.table_stage(&typed[i], "v", "        "));
                    }
                    None => out.push_str("        return { ok: true, value: frame.value };\n"),
                }
                out.push_str("    }\n");
            }
            let _ = writeln!(
                out,
                "    return {{ ok: true, value: frame.value as {name}Typed }};\n}}"
            );
        }
    }

    /// The one-pass schemas, their types and the typed parse functions.
    pub(super) fn typed_section(
        &self,
        out: &mut String,
        typed: &[TypedFrame<'a>],
        unions: &[TypedUnion],
        many: &[VariantsTypedUnion],
    ) {
        let p = self.prefix_const();
        let tp = self.options.type_prefix();
        for f in typed {
            let name = &f.schema.name;
            let (table, what, entry) = match f.table {
                TableKind::Requests => (format!("{p}_REQUEST_SCHEMAS"), "request", ".payload"),
                TableKind::Events => (format!("{p}_EVENT_SCHEMAS"), "event", ""),
            };
            let _ = write!(
                out,
                "
/**
 * {a} `{name}` with its `{field}` read by its `{key}` through the {what} table, in one
 * `safeParse`: one object per entry of {{@link {table}}}, the frame's fields with `{key}`
 * the entry's name and `{field}` its schema.
 */
export const {name}TypedSchema = z.discriminatedUnion({key_js}, [
",
                field = f.field.name,
                key = f.key.name,
                key_js = js_string(&f.key.name),
                a = article(name),
            );
            for e in &f.entries {
                let key = format!("z.literal({})", js_string(e));
                let mut payload = format!("{table}[{}]{entry}", js_string(e));
                if f.field.optional {
                    // An optional payload that is absent is `{}` to the table.
                    payload =
                        format!("z.preprocess((v) => (v === undefined ? {{}} : v), {payload})");
                }
                let _ = writeln!(out, "    {},", self.typed_entry(f, &key, &payload));
            }
            let _ = write!(
                out,
                "]);
/** {a} `{name}` whose `{key}` names an entry of the {what} table: narrowing on `{key}` types `{field}`. */
export type {name}Typed = z.infer<typeof {name}TypedSchema>;
",
                field = f.field.name,
                key = f.key.name,
                a = article(name),
            );
        }
        for u in unions {
            let f = &typed[u.frame];
            let mut members: Vec<String> = u.earlier.iter().map(|r| r.name.clone()).collect();
            members.push(format!("{}Typed", f.schema.name));
            let _ = write!(
                out,
                "
/** {} `{}` with the `{}` of {} `{}` read by its `{}`: `{}Typed` in place of `{}`. */
export type {}Typed = {};
",
                article(&u.schema.name),
                u.schema.name,
                f.field.name,
                article(&f.schema.name).to_lowercase(),
                f.schema.name,
                f.key.name,
                f.schema.name,
                f.schema.name,
                u.schema.name,
                members.join(" | "),
            );
        }
        for i in self.typed_parse_targets(typed, unions) {
            let f = &typed[i];
            let union = unions.iter().find(|u| u.frame == i);
            let frame = &f.schema.name;
            let (is, parse, what) = match f.table {
                TableKind::Requests => (
                    format!("is{tp}RequestType"),
                    format!("parse{tp}RequestPayload"),
                    "request",
                ),
                TableKind::Events => (
                    format!("is{tp}EventType"),
                    format!("parse{tp}EventPayload"),
                    "event",
                ),
            };
            let field = &f.field.name;
            let key = &f.key.name;
            let (target, envelope) = match union {
                Some(u) => (u.schema.name.clone(), names::ts_schema(&u.schema.name)),
                None => (frame.clone(), names::ts_schema(frame)),
            };
            let guard = match union {
                Some(u) if !u.keys.is_empty() => {
                    let absent: Vec<String> = u
                        .keys
                        .iter()
                        .map(|k| format!("!({} in input)", js_string(k)))
                        .collect();
                    format!(
                        "typeof input === 'object' && input !== null && {}",
                        absent.join(" && ")
                    )
                }
                _ => String::new(),
            };
            let earlier_doc = match union {
                Some(u) if !u.keys.is_empty() => {
                    let keys: Vec<String> = u.keys.iter().map(|k| format!("`{k}`")).collect();
                    let earlier: Vec<String> =
                        u.earlier.iter().map(|r| format!("`{}`", r.name)).collect();
                    format!(
                        "\n\nThe one pass is tried only on an object without {} (the keys {} require,\nwhich the union tries first); a value with one of them is theirs, as parsed.",
                        keys.join(" or "),
                        earlier.join(", ")
                    )
                }
                _ => String::new(),
            };
            let docs = format!(
                "{an} `{target}` with {a} `{field}` read by its `{key}` through the {what} table: one\n`safeParse` of {{@link {frame}TypedSchema}}; when it refuses, the two stages\n({{@link {envelope}}}, then the `{field}` by name), so the verdict, the stage and the message\nare theirs. A name the table does not know is a table-stage refusal.{earlier_doc}\n\nAnswers `{{ ok: true, value }}` or `{{ ok: false, stage, message }}` with Zod's prettified\nmessage; never throws.",
                a = match union {
                    Some(_) => format!("its `{}` variant's", f.schema.name),
                    None => "its".to_owned(),
                },
                an = article(&target),
            );
            out.push('\n');
            out.push_str(&jsdoc(&Docs::default(), &Meta::default(), &[docs], ""));
            let _ = writeln!(
                out,
                "export function parse{target}Typed(input: unknown): TypedParseResult<{target}Typed> {{"
            );
            out.push_str("    try {\n");
            let ind = if guard.is_empty() {
                "        "
            } else {
                let _ = writeln!(out, "        if ({guard}) {{");
                "            "
            };
            let _ = writeln!(
                out,
                "{ind}const r = z.safeParse({frame}TypedSchema, input);"
            );
            let _ = writeln!(
                out,
                "{ind}if (r.success) return {{ ok: true, value: r.data }};"
            );
            if !guard.is_empty() {
                out.push_str("        }\n");
            }
            out.push_str("    } catch {\n        // Thrown by a hostile input: the two stages answer it.\n    }\n");
            let pick = match union {
                Some(u)
                    if self.is_own(&u.schema)
                        && self.options.parse_functions.contains(&u.schema.name)
                        && self.union_picks(&u.schema.name).is_some() =>
                {
                    format!(", pick{}", u.schema.name)
                }
                _ => String::new(),
            };
            let _ = writeln!(out, "    const frame = parseWith({envelope}, input{pick});");
            out.push_str(
                "    if (!frame.ok) return { ok: false, stage: 'envelope', message: frame.message };\n",
            );
            out.push_str("    const v = frame.value;\n");
            if let Some(u) = union
                && !u.keys.is_empty()
            {
                let has: Vec<String> = u
                    .keys
                    .iter()
                    .map(|k| format!("{} in v", js_string(k)))
                    .collect();
                let _ = writeln!(
                    out,
                    "    if ({}) return {{ ok: true, value: v }};",
                    has.join(" || ")
                );
            }
            let _ = writeln!(out, "    const name = v{};", js_prop(key));
            let _ = writeln!(
                out,
                "    if (!{is}(name)) return {{ ok: false, stage: 'table', message: noTableEntry(name) }};"
            );
            let params = if f.field.optional {
                // Absent, the payload is `{}` to the table.
                let p = js_prop(field);
                format!("v{p} === undefined ? {{}} : v{p}")
            } else {
                format!("v{}", js_prop(field))
            };
            let _ = writeln!(out, "    const payload = {parse}(name, {params});");
            out.push_str(
                "    if (!payload.ok) return { ok: false, stage: 'table', message: payload.message };\n",
            );
            let _ = writeln!(
                out,
                "    return {{ ok: true, value: {{ ...v, {}: payload.value }} as {frame}Typed }};\n}}",
                js_key(field)
            );
        }
        self.variants_typed_section(out, typed, many);
    }
}

/// A frame struct with a `#[table]` field (`Request`, `Event`), this protocol's or a base's.
pub(super) struct TypedFrame<'m> {
    /// The struct, as this package refers to it.
    pub(super) schema: TypeRef,
    pub(super) def: &'m TypeDef,
    /// The field whose value names the entry (`type`).
    pub(super) key: &'m Field,
    /// The `unknown` field that holds the entry's payload (`payload`).
    pub(super) field: &'m Field,
    pub(super) table: TableKind,
    /// The table's names the key accepts, in table order (bases first).
    pub(super) entries: Vec<&'m str>,
}

impl TypedFrame<'_> {
    /// The frame's fields (a typed frame is a struct).
    fn fields(&self) -> &[Field] {
        match &self.def.kind {
            TypeDefKind::Struct(s) => &s.fields,
            _ => &[],
        }
    }

    /// The type of each value of an open frame's rest (`..: T`), if it is open.
    fn rest(&self) -> Option<&crate::model::Ty> {
        let TypeDefKind::Struct(s) = &self.def.kind else {
            return None;
        };
        let rest = s.rest.as_ref()?;
        Some(match &rest.ty.kind {
            TyKind::Map(inner) => &**inner,
            _ => &rest.ty,
        })
    }

    /// Whether the entries extend the frame's schema: when a field other than the key and the
    /// table field, or the rest, has a named type (see `typed_entry`).
    pub(super) fn extends(&self) -> bool {
        self.fields().iter().any(|x| {
            x.name != self.key.name && x.name != self.field.name && ty_has_lazy(&x.ty, &|_| true)
        }) || self.rest().is_some_and(|t| ty_has_lazy(t, &|_| true))
    }
}

/// An untagged union whose last variant is a typed frame (`ServerFrame`).
pub(super) struct TypedUnion {
    pub(super) schema: TypeRef,
    /// The variants before the frame (`ReplyOk`, `ReplyError`).
    pub(super) earlier: Vec<TypeRef>,
    /// The frame, an index into the typed frames.
    pub(super) frame: usize,
    /// A required literal key of each earlier variant that the frame does not have (`ok`).
    pub(super) keys: Vec<String>,
}

/// An untagged union of structs holding typed frames anywhere (`JSONRPCMessage`).
pub(super) struct VariantsTypedUnion {
    pub(super) schema: TypeRef,
    /// Every variant, in order.
    pub(super) variants: Vec<UnionVariant>,
}

impl VariantsTypedUnion {
    /// The variants the two stages test, up to the last typed one (any later is as read).
    pub(super) fn tested(&self) -> &[UnionVariant] {
        let last = self
            .variants
            .iter()
            .rposition(|v| v.frame.is_some())
            .map_or(0, |i| i + 1);
        &self.variants[..last]
    }
}

/// A variant of a [`VariantsTypedUnion`].
pub(super) struct UnionVariant {
    /// Its struct.
    pub(super) schema: TypeRef,
    /// The typed frame it is, an index into the typed frames.
    pub(super) frame: Option<usize>,
    /// For a typed frame the one pass may answer for: the keys that must be absent (each
    /// earlier variant requires one of them).
    pub(super) guard: Option<Vec<String>>,
}
