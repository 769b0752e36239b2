//! Rust-source notes: what the walk's pairs of named types mean for the generated Rust.
//!
//! The wire compares by shape, so a renamed type, a type moved to another directory or an
//! inline object given a name is no wire finding; its Rust type's path changed all the same
//! (`rust-type-renamed`). An enum or a union whose way of travelling changed may become
//! `#[non_exhaustive]` (`rust-non-exhaustive-added`). A struct whose required fields were
//! reordered takes them in another order in `new` (`rust-new-reordered`); an `#[open]` enum made
//! closed loses its `Other` variant (`rust-open-enum-closed`); an integer enum's value renamed
//! with its number kept is another Rust variant (`rust-enum-value-renamed`). All are `info` on the wire: they
//! say which Rust code needs an edit, never that peers break.

use super::Differ;
use crate::compat::rules;
use crate::model::{Direction, EnumLit, Model, Struct, TyKind, TypeDef, TypeDefKind};
use crate::names::rust_type_name;

impl Differ<'_> {
    /// Notes for every pair of the protocol's own named types the walk compared or found renamed.
    pub(super) fn rust_source(&mut self) {
        let (base, head) = (self.base, self.head);
        let mut pairs: Vec<(&TypeDef, &TypeDef)> = self
            .memo
            .keys()
            .map(|(bk, hk, _)| (bk, hk))
            .chain(self.renames.iter().map(|(bk, hk)| (bk, hk)))
            .filter(|(bk, hk)| bk.0 == base.name && hk.0 == head.name)
            .filter_map(|(bk, hk)| Some((base.own_type(&bk.1)?, head.own_type(&hk.1)?)))
            .collect();
        pairs.sort_by(|a, b| (&a.0.name, &a.1.name).cmp(&(&b.0.name, &b.1.name)));
        pairs.dedup_by(|a, b| a.0.name == b.0.name && a.1.name == b.1.name);
        for (bd, hd) in pairs {
            let bpath = rust_path(bd);
            let hpath = rust_path(hd);
            // Another declared name that existed on the other side too: the place holds another
            // type, nothing was renamed (a hoisted name follows its place: renamed).
            let replaced = bd.name != hd.name
                && !bd.synthetic
                && !hd.synthetic
                && (head.own_type(&bd.name).is_some() || base.own_type(&hd.name).is_some());
            if replaced {
                let key = (
                    crate::model::def_key(base, &bd.name),
                    crate::model::def_key(head, &hd.name),
                );
                let place = self.places.get(&key).cloned().unwrap_or(hd.name.clone());
                let still = if head.own_type(&bd.name).is_some() {
                    ", which still exists"
                } else {
                    ""
                };
                let msg =
                    format!("`{place}` now holds the Rust type `{hpath}` (was `{bpath}`{still})");
                self.push(
                    &rules::RUST_TYPE_REPLACED,
                    Direction::Both,
                    place,
                    &hd.loc,
                    Some(&bd.loc),
                    msg,
                );
            } else if bpath != hpath {
                let msg = format!("the Rust type `{bpath}` is now `{hpath}`");
                self.push(
                    &rules::RUST_TYPE_RENAMED,
                    Direction::Both,
                    hd.name.clone(),
                    &hd.loc,
                    Some(&bd.loc),
                    msg,
                );
            }
            let grows_kind =
                |d: &TypeDef| matches!(d.kind, TypeDefKind::Enum(_) | TypeDefKind::Union(_));
            if grows_kind(bd) && grows_kind(hd) && !base.may_grow(bd) && head.may_grow(hd) {
                let msg = format!("the Rust type `{hpath}` is now `#[non_exhaustive]`");
                self.push(
                    &rules::RUST_NON_EXHAUSTIVE_ADDED,
                    Direction::Both,
                    hd.name.clone(),
                    &hd.loc,
                    Some(&bd.loc),
                    msg,
                );
            }
            match (&bd.kind, &hd.kind) {
                (TypeDefKind::Enum(be), TypeDefKind::Enum(he)) if be.open && !he.open => {
                    let msg = format!("`{hpath}` is no longer open: its `Other` variant is gone");
                    self.push(
                        &rules::RUST_OPEN_ENUM_CLOSED,
                        Direction::Both,
                        hd.name.clone(),
                        &hd.loc,
                        Some(&bd.loc),
                        msg,
                    );
                }
                (TypeDefKind::Enum(be), TypeDefKind::Enum(he)) if be.is_int() && he.is_int() => {
                    for bv in &be.values {
                        let (EnumLit::Int { name: was, value }, Some(hv)) = (
                            &bv.value,
                            he.values.iter().find(|v| v.as_int() == bv.as_int()),
                        ) else {
                            continue;
                        };
                        if hv.name() == was {
                            continue;
                        }
                        let msg = format!(
                            "`{hpath}::{was}` is now `{hpath}::{}` (the value {value})",
                            hv.name()
                        );
                        self.push(
                            &rules::RUST_ENUM_VALUE_RENAMED,
                            Direction::Both,
                            format!("{}.{value}", hd.name),
                            &hv.loc,
                            Some(&bv.loc),
                            msg,
                        );
                    }
                }
                (TypeDefKind::Struct(bs), TypeDefKind::Struct(hs)) => {
                    let bnew = new_args(base, bs);
                    let hnew: Vec<&str> = new_args(head, hs)
                        .into_iter()
                        .filter(|n| bnew.contains(n))
                        .collect();
                    let kept: Vec<&str> = bnew.into_iter().filter(|n| hnew.contains(n)).collect();
                    if kept != hnew {
                        let msg = format!(
                            "`{hpath}::new` takes `{}` in another order (was `{}`)",
                            hnew.join(", "),
                            kept.join(", ")
                        );
                        self.push(
                            &rules::RUST_NEW_REORDERED,
                            Direction::Both,
                            hd.name.clone(),
                            &hd.loc,
                            Some(&bd.loc),
                            msg,
                        );
                    }
                }
                _ => {}
            }
        }
    }
}

/// The fields `new` takes, in its order: the required ones that are not literals (`emit::rust`).
fn new_args<'s>(m: &Model, s: &'s Struct) -> Vec<&'s str> {
    s.fields
        .iter()
        .filter(|f| !f.optional && !matches!(m.unalias(&f.ty).kind, TyKind::Literal(_)))
        .map(|f| f.name.as_str())
        .collect()
}

/// A named type's Rust path from the protocol's module: `Name` or `module::Name`.
fn rust_path(def: &TypeDef) -> String {
    let name = rust_type_name(&def.name);
    match &def.module {
        Some(m) => format!("{m}::{name}"),
        None => name,
    }
}
