//! emit::rust's doc comments and attributes: a type's, a field's and a variant's doc (a hoisted
//! type's role first, who sends and who reads a payload or a result, a limit in words after), `#[deprecated]` from the schema's meta, and
//! `#[non_exhaustive]` on what may grow (`analysis::Growth`).

use super::Emitter;
use crate::model::{
    Direction, Docs, Field, Meta, Ty, TyKind, TypeDef, TypeDefKind, Union, UnionTag, Variant,
};
use crate::names::{rust_field, rust_ident, rust_type_name};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeMap;

impl Emitter<'_> {
    /// The place of every hoisted type of this model, found from the requests, the events,
    /// the fields and the variants that hold it (the first place found; `lower` hoists an
    /// inline object once, in the module of what holds it). A link to a table entry starts
    /// with `{up}`, replaced by the way up from the hoisted type's module.
    pub(super) fn find_roles(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for r in &self.model.requests {
            let ident = rust_type_name(&r.name);
            let entry = format!("[`{ident}`]({{up}}requests::{ident}) (`{}`)", r.name);
            self.note_role(&r.payload, &format!("the payload of {entry}"), &mut out);
            self.note_role(&r.result, &format!("the result of {entry}"), &mut out);
        }
        for ev in &self.model.events {
            let ident = rust_type_name(&ev.name);
            let entry = format!("[`{ident}`]({{up}}events::{ident}) (`{}`)", ev.name);
            self.note_role(&ev.payload, &format!("the payload of {entry}"), &mut out);
        }
        for def in &self.model.types {
            let owner = rust_type_name(&def.name);
            match &def.kind {
                TypeDefKind::Struct(st) => {
                    for f in &st.fields {
                        let place = format!("the `{}` field of [`{owner}`]", f.name);
                        self.note_role(&f.ty, &place, &mut out);
                    }
                }
                TypeDefKind::Union(u) => {
                    for (i, v) in u.variants.iter().enumerate() {
                        let place = match &v.tag {
                            Some(tag) => format!("the `{tag}` variant of [`{owner}`]"),
                            None => format!("variant {} of [`{owner}`]", i + 1),
                        };
                        self.note_role(&v.ty, &place, &mut out);
                    }
                }
                TypeDefKind::Alias(ty) => {
                    self.note_role(ty, &format!("what [`{owner}`] names"), &mut out);
                }
                TypeDefKind::Enum(_) => {}
            }
        }
        out
    }

    /// Who sends and who reads each type a request or an event of this model holds directly
    /// as its payload or result, by type name: the first entry found ("sent by the client,
    /// received by [`Host::chat_send`]", a link starting with `{up}` as in
    /// [`Self::find_roles`]), and how many other entries hold it.
    pub(super) fn find_readers(&self) -> BTreeMap<String, (String, usize)> {
        let two_sided = self.model.model().two_sided();
        // The trait method a side receives an entry by, as a link.
        let method = |side: &str, name: &str| {
            let m = rust_ident(&rust_field(name));
            format!("[`{side}::{m}`]({{up}}{side}::{m})")
        };
        // Who receives what `dir`'s sender sends of the entry `name`.
        let receivers = |dir: Direction, name: &str, client_reads: &str| {
            let mut out = Vec::new();
            if dir.from_client() {
                out.push(method("Host", name));
            }
            if dir.from_server() {
                out.push(if two_sided {
                    method("ClientHandler", name)
                } else {
                    client_reads.to_owned()
                });
            }
            out.join(" and ")
        };
        let sender = |dir: Direction| match dir {
            Direction::ClientToServer => "the client",
            Direction::ServerToClient => "the host",
            Direction::Both => "either side",
        };
        let mut out: BTreeMap<String, (String, usize)> = BTreeMap::new();
        let mut note = |ty: &Ty, line: String| {
            let TyKind::Ref(r) = &ty.kind else {
                return;
            };
            if r.protocol.as_deref().is_some_and(|p| p != self.model.name)
                || self.model.own_type(&r.name).is_none()
            {
                return;
            }
            out.entry(r.name.clone())
                .and_modify(|(_, others)| *others += 1)
                .or_insert((line, 0));
        };
        for r in &self.model.requests {
            let dir = r.sender();
            let to = receivers(dir, &r.name, "the client");
            note(
                &r.payload,
                format!("sent by {}, received by {to}", sender(dir)),
            );
            let reader = match dir {
                Direction::ClientToServer => "the client",
                Direction::ServerToClient => "the host",
                Direction::Both => "its sender",
            };
            note(&r.result, format!("returned by {to}, read by {reader}"));
        }
        for e in &self.model.events {
            let dir = e.sender();
            let to = receivers(dir, &e.name, "the client (`EventPayload`)");
            note(
                &e.payload,
                format!("sent by {}, received by {to}", sender(dir)),
            );
        }
        out
    }

    /// Notes `place` as the role of the hoisted type `ty` holds (through arrays, maps and
    /// nullables).
    fn note_role(&self, ty: &Ty, place: &str, out: &mut BTreeMap<String, String>) {
        match &ty.kind {
            TyKind::Ref(r) => {
                let Some(def) = self.model.resolve(r) else {
                    return;
                };
                let own = r.protocol.as_deref().is_none_or(|p| p == self.model.name);
                if own && def.synthetic && !out.contains_key(&def.name) {
                    let up = if def.module.is_some() { "super::" } else { "" };
                    let mut line = place.replace("{up}", up);
                    line[..1].make_ascii_uppercase();
                    out.insert(def.name.clone(), format!("{line}."));
                }
            }
            TyKind::Array(inner, _) => self.note_role(inner, &format!("an item of {place}"), out),
            TyKind::Map(inner) => self.note_role(inner, &format!("a value of {place}"), out),
            TyKind::Nullable(inner) => self.note_role(inner, place, out),
            _ => {}
        }
    }

    /// A type's doc comment: a hoisted type's role first (then its own doc, if any).
    pub(super) fn def_docs(&self, def: &TypeDef) -> TokenStream {
        let mut docs = def.docs.clone();
        let up = if def.module.is_some() { "super::" } else { "" };
        let reader = self.readers.get(&def.name).map(|(line, others)| {
            let line = if up.is_empty() {
                drop_self_links(line)
            } else {
                line.replace("{up}", up)
            };
            match others {
                0 => line,
                1 => format!("{line}; one other entry holds it too"),
                n => format!("{line}; {n} other entries hold it too"),
            }
        });
        if let Some(role) = self.roles.get(&def.name) {
            // A hoisted payload's or result's role and its readers, in one line.
            let role = match &reader {
                Some(reader) => format!("{}: {reader}.", role.trim_end_matches('.')),
                None => role.clone(),
            };
            let mut lines = vec![role];
            if !docs.is_empty() {
                lines.push(String::new());
                lines.extend(docs.0);
            }
            docs = Docs(lines);
        } else if let Some(reader) = reader {
            // A named payload or result: its readers after its own doc.
            if !docs.is_empty() {
                docs.0.push(String::new());
            }
            let mut reader = format!("{reader}.");
            reader[..1].make_ascii_uppercase();
            docs.0.push(reader);
        }
        if let TypeDefKind::Alias(ty) = &def.kind
            && let Some(limit) = self.limit_sentence(ty)
        {
            if !docs.is_empty() {
                docs.0.push(String::new());
            }
            docs.0.push(limit);
        }
        docs_attrs(&docs)
    }

    /// A union variant's doc comment; without one, what marks it on the wire (a tagged
    /// union's tag) or the type it holds (an untagged union's).
    pub(super) fn variant_docs(&self, u: &Union, v: &Variant) -> TokenStream {
        if !v.docs.is_empty() {
            return docs_attrs(&v.docs);
        }
        let line = match (&u.tag, &v.tag, &v.ty.kind) {
            (UnionTag::Tagged { field, .. }, Some(tag), _) => {
                format!(" `{field}: \"{tag}\"` on the wire.")
            }
            (_, _, TyKind::Ref(r)) => format!(" A [`{}`].", rust_type_name(&r.name)),
            _ => " A value of this variant's type.".to_owned(),
        };
        quote!(#[doc = #line])
    }

    /// A field's doc comment, with the limits of its type in words ("At most 200
    /// characters.") after its own doc.
    pub(super) fn field_docs(&self, f: &Field) -> TokenStream {
        let mut docs = f.docs.clone();
        if docs.is_empty() {
            docs = Docs(vec![format!("`{}` on the wire.", f.name)]);
        }
        if let Some(limit) = self.limit_sentence(&f.ty) {
            if !docs.is_empty() {
                docs.0.push(String::new());
            }
            docs.0.push(limit);
        }
        docs_attrs(&docs)
    }

    /// The limits of a type in a sentence a person reads, through aliases and nullables:
    /// `At least 1 character.`, `From 1 to 100.`, `At most 500 items.`; `None` without limits.
    fn limit_sentence(&self, ty: &Ty) -> Option<String> {
        let mut ty = self.model.unalias(ty);
        while let TyKind::Nullable(inner) = &ty.kind {
            ty = self.model.unalias(inner);
        }
        let (min, max, units) = match &ty.kind {
            TyKind::String(l, _) => (
                l.min.map(|v| v as i64),
                l.max.map(|v| v as i64),
                ("character", "characters"),
            ),
            TyKind::Int(l, _) | TyKind::Number(l) => (l.min, l.max, ("", "")),
            TyKind::Array(_, l) => (
                l.min.map(|v| v as i64),
                l.max.map(|v| v as i64),
                ("item", "items"),
            ),
            _ => return None,
        };
        let unit = |n: i64| {
            let u = if n == 1 { units.0 } else { units.1 };
            if u.is_empty() {
                String::new()
            } else {
                format!(" {u}")
            }
        };
        Some(match (min, max) {
            (None, None) => return None,
            (Some(a), None) => format!("At least {a}{}.", unit(a)),
            (None, Some(b)) => format!("At most {b}{}.", unit(b)),
            (Some(a), Some(b)) if a == b => format!("Exactly {a}{}.", unit(a)),
            (Some(a), Some(b)) => format!("From {a} to {b}{}.", unit(b)),
        })
    }

    /// `#[non_exhaustive]` for an enum or a union that may gain a value or a variant in a
    /// compatible change (`analysis::Growth`), and for its views: a match on it from another
    /// crate then has a `_` arm, and keeps compiling when it grows. Empty for any other.
    pub(super) fn grows(&self, def: &TypeDef) -> TokenStream {
        if self.model.analysis().growth.may_grow(self.model, def) {
            quote!(#[non_exhaustive])
        } else {
            TokenStream::new()
        }
    }
}

/// A line whose links sit where their text names (`[`Host::x`]({up}Host::x)` at the root)
/// with the text alone: rustdoc resolves `[`Host::x`]` by itself.
fn drop_self_links(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find("[`") {
        let Some(len) = rest[start + 2..].find("`](") else {
            break;
        };
        let text = &rest[start + 2..start + 2 + len];
        let after = &rest[start + 2 + len + 3..];
        let target = format!("{{up}}{text})");
        out.push_str(&rest[..start + 2 + len + 2]);
        rest = match after.strip_prefix(&target) {
            Some(tail) => tail,
            None => &rest[start + 2 + len + 2..],
        };
    }
    out.push_str(rest);
    out.replace("{up}", "")
}

/// A doc comment as `#[doc]` attributes, one per line (nothing for none).
pub(super) fn docs_attrs(docs: &Docs) -> TokenStream {
    if docs.is_empty() {
        return TokenStream::new();
    }
    let lines = docs.0.iter().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

/// `#[deprecated]` (with its reason) for what the schema marks deprecated.
pub(super) fn meta_attrs(meta: &Meta) -> TokenStream {
    match meta.deprecated.as_deref() {
        None => TokenStream::new(),
        Some("") => quote!(#[deprecated]),
        Some(reason) => quote!(#[deprecated = #reason]),
    }
}

#[cfg(test)]
mod tests {
    use super::drop_self_links;

    #[test]
    fn a_link_to_what_its_text_names_is_the_text_alone() {
        assert_eq!(
            drop_self_links("sent by [`Host::x`]({up}Host::x) and [`A`](requests::A)."),
            "sent by [`Host::x`] and [`A`](requests::A)."
        );
    }
}
