//! lower: syntax trees to the model; hoists inline objects, resolves imports.
//!
//! Lowering never fails and reports nothing: whatever it cannot make sense of (a bound that
//! does not fit, an unknown attribute, a name that resolves nowhere) is kept as best it can,
//! and `check` judges it, from the model or from the syntax tree.
//!
//! Inline objects become synthetic named structs, named from their place with
//! [`names::synthetic`]: a request payload `ChatHistoryPayload`, a result `ChatHistoryResult`,
//! an event payload `TaskChangedEvent`, a field `context` of `Hello` `HelloContext`, a tagged
//! variant `"reset"` of `ChatEvent` `ChatEventReset`, the second untagged variant of
//! `ServerFrame` `ServerFrameVariant2`, array items `...Item`, map values `...Value`. A hoisted
//! object comes right before the type that holds it.

use crate::model::*;
use crate::names;
use crate::syntax::{
    self, Arg, Args, Attrs, FieldDecl, Item, LiteralExpr, TypeExpr, TypeExprKind, ValueKind,
};
use std::collections::HashSet;
use std::sync::Arc;

/// The primitive type words, which no declaration can shadow.
pub const PRIMITIVES: &[&str] = &[
    "string", "boolean", "int", "int64", "uint64", "number", "unknown",
];

/// Lower every file of one schema directory into a model named `name`, building on `bases`.
/// `Model::files` is left empty for the caller (`load`) to fill.
pub fn lower(name: &str, files: &[syntax::File], bases: &[Arc<Model>]) -> Model {
    let mut own = HashSet::new();
    let mut imports = Vec::new();
    for file in files {
        for item in &file.items {
            match item {
                Item::Alias(a) => {
                    own.insert(a.name.text.clone());
                }
                Item::Struct(s) => {
                    own.insert(s.name.text.clone());
                }
                Item::Enum(e) => {
                    own.insert(e.name.text.clone());
                }
                Item::Union(u) => {
                    own.insert(u.name.text.clone());
                }
                Item::Use(u) => imports.push(Import {
                    protocol: u.protocol.text.clone(),
                    names: u
                        .names
                        .iter()
                        .map(|n| (n.text.clone(), n.loc.clone()))
                        .collect(),
                    glob: u.glob,
                    loc: u.loc.clone(),
                }),
                Item::Requests(_) | Item::Events(_) | Item::Const(_) => {}
            }
        }
    }
    let consts: Vec<Const> = files
        .iter()
        .flat_map(|f| &f.items)
        .filter_map(|item| match item {
            Item::Const(c) => Some(Const {
                name: c.name.text.clone(),
                docs: docs(&c.attrs),
                meta: meta(&c.attrs),
                loc: c.loc.clone(),
                value: literal(&c.value),
            }),
            _ => None,
        })
        .collect();
    let mut cx = Cx {
        own,
        imports: &imports,
        bases,
        types: Vec::new(),
        module: None,
        consts,
    };
    let mut requests = Vec::new();
    let mut events = Vec::new();
    for file in files {
        cx.module = file.module.clone();
        for item in &file.items {
            match item {
                Item::Use(_) | Item::Const(_) => {}
                Item::Alias(a) => {
                    let kind = match &a.ty.kind {
                        // `type X = { ... };` is the struct `X`.
                        TypeExprKind::Object(fields) => {
                            TypeDefKind::Struct(cx.object(&a.name.text, fields))
                        }
                        _ => TypeDefKind::Alias(cx.ty(&a.ty, &a.name.text)),
                    };
                    cx.push(&a.name, &a.attrs, kind, false);
                }
                Item::Struct(s) => {
                    let st = cx.object(&s.name.text, &s.fields);
                    cx.push(&s.name, &s.attrs, TypeDefKind::Struct(st), false);
                }
                Item::Enum(e) => {
                    let values = e
                        .values
                        .iter()
                        .map(|v| EnumValue {
                            value: match &v.int {
                                None => EnumLit::Str(v.value.text.clone()),
                                // Out of range is refused by `check` on the syntax.
                                Some(n) => EnumLit::Int {
                                    name: v.value.text.clone(),
                                    value: i64::try_from(n.value).unwrap_or(0),
                                },
                            },
                            docs: docs(&v.attrs),
                            meta: meta(&v.attrs),
                            loc: v.value.loc.clone(),
                        })
                        .collect();
                    let open = e.attrs.get("open").is_some();
                    let extends = e
                        .attrs
                        .get("extends")
                        .and_then(|a| a.value.as_ref())
                        .map(|v| match v.text.split_once("::") {
                            Some((protocol, name)) => TypeRef {
                                name: name.to_owned(),
                                protocol: Some(protocol.to_owned()),
                            },
                            None => cx.resolve(&v.text),
                        });
                    cx.push(
                        &e.name,
                        &e.attrs,
                        TypeDefKind::Enum(Enum {
                            values,
                            open,
                            extends,
                        }),
                        false,
                    );
                }
                Item::Union(u) => {
                    let un = cx.union(u);
                    cx.push(&u.name, &u.attrs, TypeDefKind::Union(un), false);
                }
                Item::Requests(entries) => {
                    for r in entries {
                        let base = names::rust_type(&r.name.text);
                        requests.push(Request {
                            name: r.name.text.clone(),
                            docs: docs(&r.attrs),
                            group: r.group.clone(),
                            meta: meta(&r.attrs),
                            loc: r.name.loc.clone(),
                            payload: cx.ty(&r.payload, &names::synthetic(&[&base, "Payload"])),
                            result: cx.ty(&r.result, &names::synthetic(&[&base, "Result"])),
                            partial: type_attr(&cx, &r.attrs, "partial"),
                            error_data: type_attr(&cx, &r.attrs, "error_data"),
                        });
                    }
                }
                Item::Events(entries) => {
                    for e in entries {
                        let base = names::rust_type(&e.name.text);
                        events.push(Event {
                            name: e.name.text.clone(),
                            docs: docs(&e.attrs),
                            meta: meta(&e.attrs),
                            loc: e.name.loc.clone(),
                            payload: cx.ty(&e.payload, &names::synthetic(&[&base, "Event"])),
                        });
                    }
                }
            }
        }
    }
    let mut types = cx.types;
    let consts = cx.consts;
    include_fields(&mut types, bases);
    Model {
        consts,
        name: name.to_owned(),
        files: Vec::new(),
        bases: bases.to_vec(),
        imports,
        types,
        requests,
        events,
    }
}

/// The lowering context: what names mean, and the types made so far.
struct Cx<'a> {
    /// Every type name declared in this directory.
    own: HashSet<String>,
    imports: &'a [Import],
    bases: &'a [Arc<Model>],
    types: Vec<TypeDef>,
    /// The module of the file being lowered.
    module: Option<String>,
    /// The directory's constants, which a type expression may name.
    consts: Vec<Const>,
}

impl Cx<'_> {
    fn push(&mut self, name: &syntax::Name, attrs: &Attrs, kind: TypeDefKind, synthetic: bool) {
        self.types.push(TypeDef {
            name: name.text.clone(),
            docs: docs(attrs),
            meta: meta(attrs),
            loc: name.loc.clone(),
            module: self.module.clone(),
            synthetic,
            kind,
        });
    }

    /// The fields of a struct or inline object called `owner`.
    fn object(&mut self, owner: &str, fields: &[FieldDecl]) -> Struct {
        // The first `..` is the rest; `check_syntax` reports any other.
        // Resolved and copied in by `include_fields`, once every type is lowered.
        let includes = fields
            .iter()
            .filter(|f| f.include)
            .filter_map(|f| match self.ty(&f.ty, owner).kind {
                TyKind::Ref(r) => Some(Include {
                    ty: r,
                    loc: f.ty.loc.clone(),
                    fields: 0,
                }),
                _ => None,
            })
            .collect();
        let rest = fields.iter().find(|f| f.rest).map(|f| Rest {
            docs: docs(&f.attrs),
            loc: f.name.loc.clone(),
            ty: Ty {
                kind: TyKind::Map(Box::new(
                    self.ty(&f.ty, &names::synthetic(&[owner, "Rest"])),
                )),
                loc: f.ty.loc.clone(),
            },
        });
        let fields = fields
            .iter()
            .filter(|f| !f.rest && !f.include)
            .map(|f| Field {
                name: f.name.text.clone(),
                docs: docs(&f.attrs),
                meta: meta(&f.attrs),
                loc: f.name.loc.clone(),
                optional: f.optional,
                default: f.default.as_ref().map(json),
                ty: self.ty(&f.ty, &names::synthetic(&[owner, &f.name.text])),
            })
            .collect();
        Struct {
            fields,
            rest,
            includes,
        }
    }

    fn union(&mut self, u: &syntax::UnionDecl) -> Union {
        let owner = &u.name.text;
        let variants = u
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let place = match &v.tag {
                    Some(tag) => names::synthetic(&[owner, &tag.text]),
                    None => names::synthetic(&[owner, &format!("variant{}", i + 1)]),
                };
                Variant {
                    tag: v.tag.as_ref().map(|t| t.text.clone()),
                    name: v.name.as_ref().map(|n| n.text.clone()),
                    docs: docs(&v.attrs),
                    meta: meta(&v.attrs),
                    loc: v.loc.clone(),
                    ty: self.ty(&v.ty, &place),
                }
            })
            .collect();
        let tag = match &u.tag {
            Some(t) => UnionTag::Tagged {
                field: t.text.clone(),
                loc: t.loc.clone(),
            },
            None => UnionTag::Untagged,
        };
        Union { tag, variants }
    }

    /// A type expression; an inline object in it is hoisted under the name `place`.
    fn ty(&mut self, t: &TypeExpr, place: &str) -> Ty {
        let kind = match &t.kind {
            TypeExprKind::Literal(l) => TyKind::Literal(literal(l)),
            TypeExprKind::Array(item, args) => {
                let item = self.ty(item, &names::synthetic(&[place, "Item"]));
                TyKind::Array(Box::new(item), lengths(args.as_ref()))
            }
            TypeExprKind::Map(value) => TyKind::Map(Box::new(
                self.ty(value, &names::synthetic(&[place, "Value"])),
            )),
            TypeExprKind::Nullable(inner) => TyKind::Nullable(Box::new(self.ty(inner, place))),
            TypeExprKind::Object(fields) => {
                let st = self.object(place, fields);
                let name = syntax::Name {
                    text: place.to_owned(),
                    loc: t.loc.clone(),
                };
                self.push(&name, &Attrs::default(), TypeDefKind::Struct(st), true);
                TyKind::Ref(TypeRef {
                    name: place.to_owned(),
                    protocol: None,
                })
            }
            TypeExprKind::Named {
                protocol: Some(p),
                name,
                ..
            } => match find_base(self.bases, &p.text)
                .and_then(|b| b.consts.iter().find(|c| c.name == name.text))
            {
                // A base's constant written as a type: the literal it holds.
                Some(c) => TyKind::Literal(c.value.clone()),
                None => TyKind::Ref(TypeRef {
                    name: name.text.clone(),
                    protocol: Some(p.text.clone()),
                }),
            },
            TypeExprKind::Named {
                protocol: None,
                name,
                args,
            } => match name.text.as_str() {
                "string" => TyKind::String(lengths(args.as_ref()), format(args.as_ref())),
                "boolean" => TyKind::Boolean,
                "int" => TyKind::Int(bounds(args.as_ref()), Width::Safe),
                "int64" => TyKind::Int(bounds(args.as_ref()), Width::I64),
                "uint64" => TyKind::Int(bounds(args.as_ref()), Width::U64),
                "number" => TyKind::Number(bounds(args.as_ref())),
                "unknown" => TyKind::Unknown,
                // A constant written as a type: the literal it holds.
                other if self.consts.iter().any(|c| c.name == other) => TyKind::Literal(
                    self.consts
                        .iter()
                        .find(|c| c.name == other)
                        .map(|c| c.value.clone())
                        .expect("found above"),
                ),
                other => TyKind::Ref(self.resolve(other)),
            },
        };
        Ty {
            kind,
            loc: t.loc.clone(),
        }
    }

    /// An unqualified name: declared here, imported by name, or found through a glob import.
    /// Unresolved names stay local; `check` reports them.
    fn resolve(&self, name: &str) -> TypeRef {
        let local = TypeRef {
            name: name.to_owned(),
            protocol: None,
        };
        if self.own.contains(name) {
            return local;
        }
        if let Some(i) = self
            .imports
            .iter()
            .find(|i| i.names.iter().any(|(n, _)| n == name))
        {
            return TypeRef {
                name: name.to_owned(),
                protocol: Some(i.protocol.clone()),
            };
        }
        for i in self.imports.iter().filter(|i| i.glob) {
            if find_base(self.bases, &i.protocol).is_some_and(|b| b.own_type(name).is_some()) {
                return TypeRef {
                    name: name.to_owned(),
                    protocol: Some(i.protocol.clone()),
                };
            }
        }
        local
    }
}

/// A literal as the model holds it (an integer out of range is clamped; `check` reports it).
fn literal(l: &LiteralExpr) -> Literal {
    match l {
        LiteralExpr::String(s) => Literal::String(s.clone()),
        LiteralExpr::Bool(b) => Literal::Bool(*b),
        LiteralExpr::Null => Literal::Null,
        LiteralExpr::Int(i) => {
            Literal::Int(i64::try_from(*i).unwrap_or(if *i < 0 { i64::MIN } else { i64::MAX }))
        }
    }
}

/// The base protocol called `name`, searched depth-first.
pub fn find_base<'a>(bases: &'a [Arc<Model>], name: &str) -> Option<&'a Model> {
    for b in bases {
        if b.name == name {
            return Some(b);
        }
        if let Some(m) = b.base(name) {
            return Some(m);
        }
    }
    None
}

fn docs(attrs: &Attrs) -> Docs {
    Docs(attrs.docs.clone())
}

/// Metadata from attributes; values that mean nothing are left out (`check` reports them).
/// A type named by an attribute's value (`#[partial = "Location"]`, `agent::Name` for a
/// base's), placed at the value.
fn type_attr(cx: &Cx<'_>, attrs: &Attrs, name: &str) -> Option<Ty> {
    let v = attrs.get(name)?.value.as_ref()?;
    let r = match v.text.split_once("::") {
        Some((protocol, name)) => TypeRef {
            name: name.to_owned(),
            protocol: Some(protocol.to_owned()),
        },
        None => cx.resolve(&v.text),
    };
    Some(Ty {
        kind: TyKind::Ref(r),
        loc: v.loc.clone(),
    })
}

fn meta(attrs: &Attrs) -> Meta {
    let mut meta = Meta::default();
    for a in &attrs.attrs {
        let value = a.value.as_ref().map(|v| v.text.clone());
        match a.name.text.as_str() {
            "deprecated" => meta.deprecated = Some(value.unwrap_or_default()),
            "legacy" => meta.legacy = true,
            "stored" => meta.stored = true,
            "direction" => meta.direction = value.as_deref().and_then(direction),
            "accepts" => meta.accepts = value,
            "table" => meta.table = value.as_deref().and_then(table_key),
            "error" => meta.error = true,
            _ => {}
        }
    }
    meta
}

/// `"client-to-server"`, `"server-to-client"` or `"both"`.
pub fn direction(s: &str) -> Option<Direction> {
    match s {
        "client-to-server" => Some(Direction::ClientToServer),
        "server-to-client" => Some(Direction::ServerToClient),
        "both" => Some(Direction::Both),
        _ => None,
    }
}

/// `"requests[type]"` or `"events[event]"`: a table and the sibling field naming its entry.
pub fn table_key(s: &str) -> Option<TableKey> {
    let (table, key) = split_table_key(s)?;
    Some(TableKey {
        table: table_kind(table)?,
        key: key.to_owned(),
    })
}

/// `"name[key]"` as the name and the key, both non-empty, whatever the name is.
pub fn split_table_key(s: &str) -> Option<(&str, &str)> {
    let (table, rest) = s.split_once('[')?;
    let key = rest.strip_suffix(']')?;
    let ok = !table.is_empty() && !key.is_empty() && !key.contains(['[', ']']);
    ok.then_some((table, key))
}

/// `"requests"` or `"events"`.
pub fn table_kind(s: &str) -> Option<TableKind> {
    match s {
        "requests" => Some(TableKind::Requests),
        "events" => Some(TableKind::Events),
        _ => None,
    }
}

/// The `min` and `max` written in `args`, as wide integers (later ones win).
pub fn raw_bounds(args: Option<&Args>) -> (Option<i128>, Option<i128>) {
    let (mut min, mut max) = (None, None);
    for a in args.map(|a| a.items.as_slice()).unwrap_or_default() {
        match a {
            Arg::Named { key, value } if key.text == "min" => min = Some(value.value),
            Arg::Named { key, value } if key.text == "max" => max = Some(value.value),
            Arg::Named { .. } | Arg::Text { .. } => {}
            Arg::Range {
                min: lo, max: hi, ..
            } => {
                min = lo.as_ref().map(|n| n.value).or(min);
                max = hi.as_ref().map(|n| n.value).or(max);
            }
        }
    }
    (min, max)
}

/// Length limits: negative or oversized bounds are dropped (`check` reports them).
fn lengths(args: Option<&Args>) -> Limits<u64> {
    let (min, max) = raw_bounds(args);
    Limits {
        min: min.and_then(|v| u64::try_from(v).ok()),
        max: max.and_then(|v| u64::try_from(v).ok()),
    }
}

/// A string's format: an unknown one is dropped (`check` reports it).
fn format(args: Option<&Args>) -> Option<Format> {
    args.map(|a| a.items.as_slice())
        .unwrap_or_default()
        .iter()
        .find_map(|a| match a {
            Arg::Text { key, value } if key.text == "format" => Format::from_name(&value.text),
            _ => None,
        })
}

/// Number bounds: bounds outside `i64` are dropped (`check` reports them).
fn bounds(args: Option<&Args>) -> Limits<i64> {
    let (min, max) = raw_bounds(args);
    Limits {
        min: min.and_then(|v| i64::try_from(v).ok()),
        max: max.and_then(|v| i64::try_from(v).ok()),
    }
}

/// A default value as JSON.
fn json(v: &syntax::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match &v.kind {
        ValueKind::Null => J::Null,
        ValueKind::Bool(b) => J::Bool(*b),
        ValueKind::Int(i) => {
            if let Ok(i) = i64::try_from(*i) {
                J::from(i)
            } else if let Ok(u) = u64::try_from(*i) {
                J::from(u)
            } else {
                serde_json::Number::from_f64(*i as f64)
                    .map(J::Number)
                    .unwrap_or(J::Null)
            }
        }
        ValueKind::Float(f) => serde_json::Number::from_f64(*f)
            .map(J::Number)
            .unwrap_or(J::Null),
        ValueKind::String(s) => J::String(s.clone()),
        ValueKind::Array(items) => J::Array(items.iter().map(json).collect()),
        ValueKind::Object(entries) => J::Object(
            entries
                .iter()
                .map(|(k, v)| (k.text.clone(), json(v)))
                .collect(),
        ),
    }
}

/// Copies each included struct's fields (and its rest, when the struct has none) into the
/// structs that include it, first, in order; an include of an include is resolved first. A
/// base protocol's struct brings its fields with their references qualified by that protocol.
/// What does not resolve to a struct, or includes itself, is left out: `check` reports it.
fn include_fields(types: &mut [TypeDef], bases: &[Arc<Model>]) {
    fn own_struct(types: &[TypeDef], r: &TypeRef, depth: usize) -> Option<usize> {
        if r.protocol.is_some() || depth > 64 {
            return None;
        }
        let i = types.iter().position(|t| t.name == r.name)?;
        match &types[i].kind {
            TypeDefKind::Struct(_) => Some(i),
            TypeDefKind::Alias(Ty {
                kind: TyKind::Ref(next),
                ..
            }) => own_struct(types, next, depth + 1),
            _ => None,
        }
    }
    fn qualified(mut ty: Ty, protocol: &str) -> Ty {
        match &mut ty.kind {
            TyKind::Ref(r) if r.protocol.is_none() => r.protocol = Some(protocol.to_owned()),
            TyKind::Array(inner, _) | TyKind::Map(inner) | TyKind::Nullable(inner) => {
                **inner = qualified((**inner).clone(), protocol);
            }
            _ => {}
        }
        ty
    }
    /// The fields and the rest struct `i` holds with its includes resolved.
    fn resolve(
        types: &mut [TypeDef],
        bases: &[Arc<Model>],
        i: usize,
        done: &mut [bool],
        stack: &mut Vec<usize>,
    ) -> Option<(Vec<Field>, Option<Rest>)> {
        let TypeDefKind::Struct(s) = &types[i].kind else {
            return None;
        };
        if done[i] || s.includes.is_empty() {
            return Some((s.fields.clone(), s.rest.clone()));
        }
        if stack.contains(&i) {
            return None;
        }
        stack.push(i);
        let includes = s.includes.clone();
        let (mut fields, mut rest) = (Vec::new(), None);
        let mut counts = Vec::new();
        for inc in &includes {
            let got = match &inc.ty.protocol {
                None => own_struct(types, &inc.ty, 0)
                    .and_then(|j| resolve(types, bases, j, done, stack)),
                Some(p) => find_base(bases, p)
                    .and_then(|b| b.locate(&inc.ty).map(|(m, d)| (m.name.clone(), d.clone())))
                    .and_then(|(protocol, d)| match d.kind {
                        TypeDefKind::Struct(bs) => Some((
                            bs.fields
                                .into_iter()
                                .map(|mut f| {
                                    f.ty = qualified(f.ty, &protocol);
                                    f
                                })
                                .collect(),
                            bs.rest.map(|mut r| {
                                r.ty = qualified(r.ty, &protocol);
                                r
                            }),
                        )),
                        _ => None,
                    }),
            };
            let (got_fields, got_rest) = got.unwrap_or_default();
            counts.push(got_fields.len());
            fields.extend(got_fields);
            if rest.is_none() {
                rest = got_rest;
            }
        }
        stack.pop();
        done[i] = true;
        let TypeDefKind::Struct(s) = &mut types[i].kind else {
            return None;
        };
        for (inc, n) in s.includes.iter_mut().zip(counts) {
            inc.fields = n;
        }
        fields.append(&mut s.fields);
        s.fields = fields;
        if s.rest.is_none() {
            s.rest = rest;
        }
        Some((s.fields.clone(), s.rest.clone()))
    }
    let mut done = vec![false; types.len()];
    for i in 0..types.len() {
        resolve(types, bases, i, &mut done, &mut Vec::new());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_keys() {
        let key = |table, key: &str| {
            Some(TableKey {
                table,
                key: key.to_owned(),
            })
        };
        assert_eq!(
            table_key("requests[type]"),
            key(TableKind::Requests, "type")
        );
        assert_eq!(table_key("events[event]"), key(TableKind::Events, "event"));
        assert_eq!(
            table_key("events[x-odd-key]"),
            key(TableKind::Events, "x-odd-key")
        );
        for bad in [
            "requests",
            "requests[]",
            "[type]",
            "requests[type",
            "requests[type]x",
            "requests[a][b]",
            "commands[type]",
            "",
        ] {
            assert_eq!(table_key(bad), None, "{bad}");
        }
        assert_eq!(
            split_table_key("commands[type]"),
            Some(("commands", "type"))
        );
    }
}
