//! Reachability: which way each named type travels.
//!
//! Request payloads travel client -> host; results and events host -> client, unless the
//! entry's `#[direction]` says who sends it (a request the host sends: its payload host ->
//! client, its result back; an event the client sends: client -> host); a type with a
//! `#[direction]` attribute (on the type or on a union variant) travels the way it says. A type
//! reached from both sides travels both ways, and so does a `#[stored]` type and every type in
//! it: records written with the old contract are read back by new code, and new records by old
//! code, wherever the type travels. A type reached from nothing is absent from the map; the
//! differ judges it as both.

use crate::model::{DefKey, Direction, Model, Ty, TyKind, TypeDefKind, def_key};
use std::collections::HashMap;

/// Bit for client -> host.
pub const IN: u8 = 1;
/// Bit for host -> client.
pub const OUT: u8 = 2;

/// The direction bits of every reached named type, keyed by protocol and name.
#[derive(Clone, Debug, Default)]
pub struct Directions {
    pub bits: HashMap<DefKey, u8>,
}

impl Directions {
    /// The direction of a named type, `None` when nothing reaches it.
    pub fn get(&self, key: &DefKey) -> Option<Direction> {
        to_direction(self.bits.get(key).copied().unwrap_or(0))
    }
}

/// Bits to a direction; zero is `None`.
pub fn to_direction(bits: u8) -> Option<Direction> {
    match bits {
        IN => Some(Direction::ClientToServer),
        OUT => Some(Direction::ServerToClient),
        0 => None,
        _ => Some(Direction::Both),
    }
}

/// A direction to bits.
pub fn to_bits(dir: Direction) -> u8 {
    match dir {
        Direction::ClientToServer => IN,
        Direction::ServerToClient => OUT,
        Direction::Both => IN | OUT,
    }
}

/// Walk the model from its roots and record the way every named type travels.
pub fn directions(model: &Model) -> Directions {
    let mut d = Directions::default();
    for r in &model.requests {
        walk(model, &r.payload, to_bits(r.sender()), &mut d);
        walk(model, &r.result, to_bits(r.sender().reversed()), &mut d);
        for (_, t) in r.metadata() {
            walk(model, t, to_bits(r.sender().reversed()), &mut d);
        }
    }
    for e in &model.events {
        walk(model, &e.payload, to_bits(e.sender()), &mut d);
    }
    for t in &model.types {
        let key = def_key(model, &t.name);
        if let Some(dir) = t.meta.direction {
            mark(model, key.clone(), t, to_bits(dir), &mut d);
        }
        if t.meta.stored {
            mark(model, key.clone(), t, IN | OUT, &mut d);
        }
        // A frame union's variants say which way each travels; the union travels all of them.
        if let TypeDefKind::Union(u) = &t.kind {
            let bits = u
                .variants
                .iter()
                .filter_map(|v| v.meta.direction)
                .fold(0, |b, dir| b | to_bits(dir));
            if bits != 0 {
                mark(model, key, t, bits, &mut d);
            }
        }
    }
    stored_in_bases(&model.bases, &mut d);
    d
}

/// The `#[stored]` types of the base protocols travel both ways too.
fn stored_in_bases(bases: &[std::sync::Arc<Model>], d: &mut Directions) {
    for b in bases {
        for t in b.types.iter().filter(|t| t.meta.stored) {
            mark(b, def_key(b, &t.name), t, IN | OUT, d);
        }
        stored_in_bases(&b.bases, d);
    }
}

fn walk(m: &Model, ty: &Ty, bits: u8, d: &mut Directions) {
    match &ty.kind {
        TyKind::Array(inner, _) | TyKind::Map(inner) | TyKind::Nullable(inner) => {
            walk(m, inner, bits, d)
        }
        TyKind::Ref(r) => {
            if let Some((dm, def)) = m.locate(r) {
                let key = def_key(dm, &def.name);
                mark(dm, key, def, bits, d);
            }
        }
        _ => {}
    }
}

fn mark(m: &Model, key: DefKey, def: &crate::model::TypeDef, bits: u8, d: &mut Directions) {
    let old = d.bits.get(&key).copied().unwrap_or(0);
    if old & bits == bits {
        return;
    }
    d.bits.insert(key, old | bits);
    match &def.kind {
        TypeDefKind::Alias(t) => walk(m, t, bits, d),
        TypeDefKind::Struct(s) => {
            for ty in s.slots() {
                walk(m, ty, bits, d);
            }
        }
        TypeDefKind::Enum(_) => {}
        TypeDefKind::Union(u) => {
            for v in &u.variants {
                // A variant's own `#[direction]` overrides the way its union travels.
                let vbits = v.meta.direction.map(to_bits).unwrap_or(bits);
                walk(m, &v.ty, vbits, d);
            }
        }
    }
}
