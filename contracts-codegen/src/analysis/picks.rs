//! Picks: how a value finds its variant of an untagged union by the literal keys the variants
//! require (`ServerFrame`'s `ok: true`, `ok: false`). Zod tries the variants in order and
//! answers the first that accepts; a variant whose literal keys an input has is the first that
//! can, as each earlier one requires a literal the input lacks. The Rust emitter reads the same
//! keys (`Model::required_literals`, its `Object::LITERALS`).

use crate::model::{Literal, Model, TyKind, TypeDefKind, UnionTag};
use std::collections::BTreeMap;

/// One variant of an untagged union with the literal keys it requires.
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    /// The variant's index in the union.
    pub variant: usize,
    /// Its required literal keys and their values; none for a variant that takes anything
    /// (the last pick: the union decides from there).
    pub keys: Vec<(String, Literal)>,
}

/// The picks of the own untagged union `u`: its variants in order, up to the first that
/// requires no literal or is not a struct; `None` when no variant requires one (nothing to
/// pick by).
fn picks_of(model: &Model, variants: &[crate::model::Variant]) -> Option<Vec<Pick>> {
    let mut out = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        let TyKind::Ref(r) = &v.ty.kind else {
            break;
        };
        // A variant that is not a struct (an alias too): the union decides from here.
        let Some(TypeDefKind::Struct(s)) = model.resolve(r).map(|d| &d.kind) else {
            break;
        };
        let keys: Vec<(String, Literal)> = model
            .declaring(r)
            .required_literals(s)
            .into_iter()
            .map(|(k, l)| (k.to_owned(), l.clone()))
            .collect();
        let last = keys.is_empty();
        out.push(Pick { variant: i, keys });
        if last {
            break;
        }
    }
    out.iter().any(|p| !p.keys.is_empty()).then_some(out)
}

/// Every own untagged union that can be picked by literal keys, by name.
pub fn union_picks(model: &Model) -> BTreeMap<String, Vec<Pick>> {
    model
        .types
        .iter()
        .filter_map(|t| match &t.kind {
            TypeDefKind::Union(u) if matches!(u.tag, UnionTag::Untagged) => {
                picks_of(model, &u.variants).map(|p| (t.name.clone(), p))
            }
            _ => None,
        })
        .collect()
}
