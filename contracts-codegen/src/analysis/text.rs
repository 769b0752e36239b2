//! Text: which structs and unions hold text anywhere in their value (a string, an `unknown`,
//! a map's keys), through fields, variants, aliases, arrays and nullables: what a borrowed
//! view of them would borrow, so exactly those get a view (`NameRef<'a>`, `emit::rust::view`).
//! A type whose view's name the schema takes has no view, and its text is not a view's; an
//! open enum keeps an unknown value as owned text, so it is not a view's either.
//!
//! Of those, the flat ones (the frame envelopes, `RequestRef<'a>`) get a view that decodes
//! itself: every field a literal, a string or an `unknown` value, none optional with a default,
//! and one `unknown`, so the view holds each string and raw value borrowed (`emit::rust::envelope`).
//! A typed frame (a struct with a `#[table]` field, JSON-RPC's `JSONRPCRequest`) is flat
//! whatever its other fields hold: the view holds any other value owned (`id: RequestId`),
//! and so is an open one (`..: unknown`, MCP's envelope): its view holds the rest owned.

use crate::model::{Model, Struct, Ty, TyKind, TypeDefKind};
use crate::names::view_name;
use std::collections::BTreeSet;

/// The own structs and unions that hold text.
pub fn texts(model: &Model) -> BTreeSet<String> {
    model
        .types
        .iter()
        .filter(|t| matches!(t.kind, TypeDefKind::Struct(_) | TypeDefKind::Union(_)))
        .filter(|t| {
            let ty = Ty {
                kind: TyKind::Ref(crate::model::TypeRef {
                    name: t.name.clone(),
                    protocol: None,
                }),
                loc: t.loc.clone(),
            };
            reaches_text(model, &ty, &mut BTreeSet::new())
        })
        .map(|t| t.name.clone())
        .collect()
}

/// Whether a text leaf is reachable from `ty`, written in `owner` (each named type visited
/// once).
fn reaches_text(owner: &Model, ty: &Ty, seen: &mut BTreeSet<(String, String)>) -> bool {
    match &ty.kind {
        TyKind::String(_, None) | TyKind::Unknown | TyKind::Map(_) => true,
        // A string with a format is held owned in views (its schema checks it).
        TyKind::String(_, Some(_))
        | TyKind::Boolean
        | TyKind::Int(..)
        | TyKind::Number(_)
        | TyKind::Literal(_) => false,
        TyKind::Array(inner, _) | TyKind::Nullable(inner) => reaches_text(owner, inner, seen),
        TyKind::Ref(r) => {
            let def_owner = owner.declaring(r);
            if !seen.insert((def_owner.name.clone(), r.name.clone())) {
                return false;
            }
            let Some(def) = owner.resolve(r) else {
                return false;
            };
            // An open object has no view: other views hold it owned, its rest included. An
            // open typed frame has one, its flat view, which holds the rest owned.
            let viewless = || {
                def_owner.own_type(&view_name(&def.name)).is_some()
                    || matches!(&def.kind, TypeDefKind::Struct(s) if s.rest.is_some() && !is_typed(s))
            };
            match &def.kind {
                TypeDefKind::Alias(inner) => reaches_text(def_owner, inner, seen),
                TypeDefKind::Struct(_) | TypeDefKind::Union(_) if viewless() => false,
                TypeDefKind::Struct(s) => s.slots().any(|ty| reaches_text(def_owner, ty, seen)),
                TypeDefKind::Union(u) => u
                    .variants
                    .iter()
                    .any(|v| reaches_text(def_owner, &v.ty, seen)),
                TypeDefKind::Enum(_) => false,
            }
        }
    }
}

/// The own structs of `texts` that are flat (see the module's doc).
pub fn flats(model: &Model, texts: &BTreeSet<String>) -> BTreeSet<String> {
    model
        .types
        .iter()
        .filter(|t| texts.contains(&t.name))
        .filter(|t| matches!(&t.kind, TypeDefKind::Struct(s) if is_flat(model, s)))
        .map(|t| t.name.clone())
        .collect()
}

/// Whether every field of `s` is a literal, a string or an `unknown` value without a default
/// of its own (one a view can borrow or check, with nothing to make up when it is absent),
/// and one is `unknown`; a typed frame's other fields may be of any type (held owned).
/// An open struct is flat only when it is a typed frame (its view holds the rest owned).
fn is_flat(model: &Model, s: &Struct) -> bool {
    let typed = is_typed(s);
    if s.rest.is_some() && !typed {
        return false;
    }
    let mut unknown = false;
    for f in &s.fields {
        if f.optional && f.default.is_some() {
            return false;
        }
        match model.unalias(&f.ty).kind {
            // A string with a format is checked by its schema, not borrowed plainly.
            TyKind::Literal(_) | TyKind::String(_, None) => {}
            TyKind::Unknown => unknown = true,
            _ if typed => {}
            _ => return false,
        }
    }
    unknown
}

/// Whether `s` is a typed frame: one of its fields has `#[table]`.
fn is_typed(s: &Struct) -> bool {
    s.fields.iter().any(|f| f.meta.table.is_some())
}
