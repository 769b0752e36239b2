//! Text: which structs and unions hold text anywhere in their value (a string, an `unknown`,
//! a map's keys), through fields, variants, aliases, arrays and nullables: what a borrowed
//! view of them would borrow, so exactly those get a view (`NameRef<'a>`, `emit::rust::view`).
//! A type whose view's name the schema takes has no view, and its text is not a view's; an
//! open enum keeps an unknown value as owned text, so it is not a view's either.

use crate::model::{Model, Ty, TyKind, TypeDefKind};
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
        TyKind::String(_) | TyKind::Unknown | TyKind::Map(_) => true,
        TyKind::Boolean | TyKind::Int(_) | TyKind::Number(_) | TyKind::Literal(_) => false,
        TyKind::Array(inner, _) | TyKind::Nullable(inner) => reaches_text(owner, inner, seen),
        TyKind::Ref(r) => {
            let def_owner = owner.declaring(r);
            if !seen.insert((def_owner.name.clone(), r.name.clone())) {
                return false;
            }
            let Some(def) = owner.resolve(r) else {
                return false;
            };
            let viewless = || def_owner.own_type(&view_name(&def.name)).is_some();
            match &def.kind {
                TypeDefKind::Alias(inner) => reaches_text(def_owner, inner, seen),
                TypeDefKind::Struct(_) | TypeDefKind::Union(_) if viewless() => false,
                TypeDefKind::Struct(s) => s
                    .fields
                    .iter()
                    .any(|f| reaches_text(def_owner, &f.ty, seen)),
                TypeDefKind::Union(u) => u
                    .variants
                    .iter()
                    .any(|v| reaches_text(def_owner, &v.ty, seen)),
                TypeDefKind::Enum(_) => false,
            }
        }
    }
}
