//! Typed frames: the structs with a `#[table]` field, whose payload is read by the name in a
//! sibling key field (`Request { type, payload }`). Rust gives each a typed form read in the
//! frame's own pass, TypeScript a one-pass `<Name>TypedSchema`, JSON Schema a `oneOf` over
//! the table's entries. `check` has made sure there is at most one such field per struct and
//! that its key is another required string field.

use crate::model::{Model, Struct, TableKind, TyKind, TypeDef, TypeDefKind};
use std::collections::BTreeMap;

/// One struct with a `#[table]` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypedFrame {
    /// The index of the `unknown` field that holds the entry's payload (`payload`).
    pub field: usize,
    /// The index of the field whose value names the entry (`type`).
    pub key: usize,
    /// The table it names an entry of.
    pub table: TableKind,
}

impl TypedFrame {
    /// The table's names, in `user`'s composed table (bases first), that the key field of
    /// `def` (declared in `owner`) accepts: a name outside the key's limits is refused by the
    /// envelope, so a one-pass union over the entries must not hold it.
    pub fn entries<'m>(&self, user: &'m Model, owner: &Model, def: &TypeDef) -> Vec<&'m str> {
        let TypeDefKind::Struct(s) = &def.kind else {
            return Vec::new();
        };
        let TyKind::String(limits, format) = owner.unalias(&s.fields[self.key].ty).kind else {
            return Vec::new();
        };
        let fits = |n: &str| {
            let c = n.chars().count() as u64;
            limits.min.is_none_or(|m| c >= m)
                && limits.max.is_none_or(|m| c <= m)
                && format.is_none_or(|f| f.accepts(n))
        };
        let names: Vec<&'m str> = match self.table {
            TableKind::Requests => user
                .all_requests()
                .into_iter()
                .map(|(_, r)| r.name.as_str())
                .collect(),
            TableKind::Events => user
                .all_events()
                .into_iter()
                .map(|(_, e)| e.name.as_str())
                .collect(),
        };
        names.into_iter().filter(|n| fits(n)).collect()
    }
}

/// The typed frame of a struct, if it is one.
fn typed_frame(s: &Struct) -> Option<TypedFrame> {
    let (field, tk) = s
        .fields
        .iter()
        .enumerate()
        .find_map(|(i, f)| f.meta.table.as_ref().map(|k| (i, k)))?;
    let key = s
        .fields
        .iter()
        .position(|k| k.name == tk.key && k.name != s.fields[field].name && !k.optional)?;
    Some(TypedFrame {
        field,
        key,
        table: tk.table,
    })
}

/// Every own struct that is a typed frame, by name.
pub fn typed_frames(model: &Model) -> BTreeMap<String, TypedFrame> {
    model
        .types
        .iter()
        .filter_map(|t| match &t.kind {
            TypeDefKind::Struct(s) => typed_frame(s).map(|f| (t.name.clone(), f)),
            _ => None,
        })
        .collect()
}
