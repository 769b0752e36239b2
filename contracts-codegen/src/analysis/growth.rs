//! growth: which of a model's enums and unions may gain a value or a variant in a change the
//! differ judges compatible, read from the rule catalogue ([`crate::compat_rules`]).

use crate::analysis::{Checked, Directions};
use crate::compat_rules::{self as rules, Level};
use crate::model::{Direction, Model, Ty, TyKind, TypeDef, TypeDefKind, def_key};

/// Which of a model's enums and unions may gain a value or a variant in a change the differ
/// judges compatible: an `#[open]` enum always; a closed enum or a union that travels only
/// client -> host (the host accepts more); any union of a protocol that negotiates
/// capabilities (a variant behind a new `#[accepts]` gate). The Rust emitter makes exactly
/// these `#[non_exhaustive]`, so code that matches them keeps compiling when they grow.
#[derive(Debug)]
pub struct Growth {
    negotiates: bool,
}

impl Growth {
    /// The growth rules of `model`'s types (its own and its bases' as it reaches them), which
    /// travel as `dirs` says: part of the model's analysis ([`Checked::analysis`]).
    pub fn of(model: &Model, dirs: &Directions) -> Growth {
        Growth {
            negotiates: negotiates(model, dirs),
        }
    }

    /// Whether the protocol negotiates capabilities (a client announces what it accepts), so
    /// a gate keeps a new frame or variant from old clients.
    pub fn negotiates(&self) -> bool {
        self.negotiates
    }

    /// Whether `def`, a type of `model`, may gain a value or a variant compatibly.
    pub fn may_grow(&self, model: &Checked, def: &TypeDef) -> bool {
        // A type nothing reaches is judged as travelling both ways.
        let dir = model
            .analysis()
            .directions
            .get(&def_key(model, &def.name))
            .unwrap_or(Direction::Both);
        let compatible = |rule: &rules::Rule| rules::level(rule, dir) != Level::Error;
        match &def.kind {
            // An enum that `#[extends]` an open one grows as the open set does.
            TypeDefKind::Enum(e) if e.open || e.extends.is_some() => {
                compatible(&rules::OPEN_ENUM_VALUE_ADDED)
            }
            TypeDefKind::Enum(_) => compatible(&rules::ENUM_VALUE_ADDED),
            TypeDefKind::Union(_) => {
                compatible(&rules::UNION_VARIANT_ADDED)
                    || (self.negotiates && compatible(&rules::UNION_VARIANT_ADDED_GATED))
            }
            _ => false,
        }
    }
}

/// True when the protocol negotiates capabilities: a type it sends client -> host has an
/// `accepts` field holding a list of strings (connect's hello), in which a client announces
/// what it accepts.
fn negotiates(m: &Model, dirs: &Directions) -> bool {
    m.types.iter().any(|t| {
        let travels_in = dirs
            .get(&def_key(m, &t.name))
            .is_some_and(|d| d != Direction::ServerToClient);
        let TypeDefKind::Struct(s) = &t.kind else {
            return false;
        };
        travels_in
            && s.fields.iter().any(|f| {
                f.name == "accepts"
                    && match &m.unalias_in(&f.ty).1.kind {
                        TyKind::Array(item, _) => {
                            matches!(m.unalias_in(item).1.kind, TyKind::String(..))
                                || kinds_is_enum(m, item)
                        }
                        _ => false,
                    }
            })
    })
}

fn kinds_is_enum(m: &Model, t: &Ty) -> bool {
    let (m, t) = m.unalias_in(t);
    matches!(&t.kind, TyKind::Ref(r) if matches!(m.locate(r), Some((_, d)) if matches!(d.kind, TypeDefKind::Enum(_))))
}
