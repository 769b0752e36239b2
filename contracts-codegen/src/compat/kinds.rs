//! Canonical forms and kind relations: what makes two spellings the same, and one kind a part of
//! another.
//!
//! A bound the type already implies is no bound (`string(min = 0)`, `int(..=9007199254740991)`),
//! and a default is compared as a JSON value whatever its spelling (`40` is `40.0`). Values of
//! the string-like kinds (a string with limits, an enum, a literal) and of the int-like and
//! boolean kinds (an integer enum is int-like) are compared as sets: one kind widened into another accepts everything it did.

use crate::model::MAX_SAFE;
use crate::model::{Limits, Literal, Model, Ty, TyKind, TypeDefKind};
use std::cmp::Ordering;

/// Length or count limits without the `min = 0` every length has.
pub fn lengths(l: &Limits<u64>) -> Limits<u64> {
    Limits {
        min: l.min.filter(|&m| m != 0),
        max: l.max,
    }
}

/// Int limits without the safe range every `int` has.
pub fn ints(l: &Limits<i64>) -> Limits<i64> {
    Limits {
        min: l.min.filter(|&m| m != -MAX_SAFE),
        max: l.max.filter(|&m| m != MAX_SAFE),
    }
}

/// A JSON value with every integral number written as an integer (`40.0` is `40`).
pub fn value(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value as V;
    match v {
        V::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() <= MAX_SAFE as f64 => {
                V::from(f as i64)
            }
            _ => v.clone(),
        },
        V::Array(a) => V::Array(a.iter().map(value).collect()),
        V::Object(o) => V::Object(o.iter().map(|(k, x)| (k.clone(), value(x))).collect()),
        _ => v.clone(),
    }
}

/// The values a scalar type accepts, as a set the differ can compare.
#[derive(Clone, Debug, PartialEq)]
enum Set {
    /// Strings of these lengths (an `#[open]` enum is every string).
    Strings(Limits<u64>),
    /// Exactly these strings (a closed enum, a string literal).
    Words(Vec<String>),
    /// Integers in these bounds.
    Ints(Limits<i64>),
    /// Exactly this integer.
    Int(i64),
    /// Exactly these integers (a closed integer enum).
    IntsListed(Vec<i64>),
    /// `true` and `false`.
    Bools,
    /// Exactly this boolean.
    Bool(bool),
}

fn set(m: &Model, t: &Ty) -> Option<Set> {
    Some(match &t.kind {
        TyKind::String(l) => Set::Strings(lengths(l)),
        TyKind::Int(l) => Set::Ints(ints(l)),
        TyKind::Boolean => Set::Bools,
        TyKind::Literal(Literal::String(s)) => Set::Words(vec![s.clone()]),
        TyKind::Literal(Literal::Int(i)) => Set::Int(*i),
        TyKind::Literal(Literal::Bool(b)) => Set::Bool(*b),
        TyKind::Ref(r) => match &m.locate(r)?.1.kind {
            TypeDefKind::Enum(e) if e.is_int() && e.open => Set::Ints(Limits::none()),
            TypeDefKind::Enum(e) if e.is_int() => {
                let mut w: Vec<i64> = e.ints().collect();
                w.sort_unstable();
                w.dedup();
                Set::IntsListed(w)
            }
            TypeDefKind::Enum(e) if e.open => Set::Strings(Limits::none()),
            TypeDefKind::Enum(e) => {
                let mut w: Vec<String> = e.strs().map(str::to_owned).collect();
                w.sort();
                w.dedup();
                Set::Words(w)
            }
            _ => return None,
        },
        _ => return None,
    })
}

fn within<T: Copy + Ord>(x: T, l: &Limits<T>) -> bool {
    l.min.is_none_or(|m| x >= m) && l.max.is_none_or(|m| x <= m)
}

/// `a` inside `b` (every value of `a` is one of `b`).
fn limits_le<T: Copy + Ord>(a: &Limits<T>, b: &Limits<T>) -> bool {
    let lo = match (a.min, b.min) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(x), Some(y)) => x >= y,
    };
    let hi = match (a.max, b.max) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(x), Some(y)) => x <= y,
    };
    lo && hi
}

fn order(a_in_b: bool, b_in_a: bool) -> Option<Ordering> {
    match (a_in_b, b_in_a) {
        (true, true) => Some(Ordering::Equal),
        (true, false) => Some(Ordering::Less),
        (false, true) => Some(Ordering::Greater),
        (false, false) => None,
    }
}

fn len(s: &str) -> u64 {
    s.chars().count() as u64
}

/// How the values of `b` (in `bm`) relate to those of `h` (in `hm`): `Less` when `b` accepts a
/// part of what `h` does (widened), `Greater` the reverse (narrowed), `Equal` the same values,
/// `None` when neither holds the other or the kinds are not scalar ones.
pub fn relation(bm: &Model, b: &Ty, hm: &Model, h: &Ty) -> Option<Ordering> {
    use Set::*;
    let (x, y) = (set(bm, b)?, set(hm, h)?);
    match (&x, &y) {
        (Strings(a), Strings(c)) => order(limits_le(a, c), limits_le(c, a)),
        (Words(w), Strings(l)) => order(w.iter().all(|s| within(len(s), l)), false),
        (Strings(l), Words(w)) => order(false, w.iter().all(|s| within(len(s), l))),
        (Words(a), Words(c)) => order(
            a.iter().all(|s| c.contains(s)),
            c.iter().all(|s| a.contains(s)),
        ),
        (Ints(a), Ints(c)) => order(limits_le(a, c), limits_le(c, a)),
        (Int(i), Ints(l)) => order(within(*i, l), false),
        (Ints(l), Int(i)) => order(false, within(*i, l)),
        (Int(a), Int(c)) => (a == c).then_some(Ordering::Equal),
        (IntsListed(a), IntsListed(c)) => order(
            a.iter().all(|i| c.contains(i)),
            c.iter().all(|i| a.contains(i)),
        ),
        (IntsListed(a), Ints(l)) => order(a.iter().all(|i| within(*i, l)), false),
        (Ints(l), IntsListed(a)) => order(false, a.iter().all(|i| within(*i, l))),
        (IntsListed(a), Int(i)) => order(a == &[*i], a.contains(i)),
        (Int(i), IntsListed(a)) => order(a.contains(i), a == &[*i]),
        (Bool(_), Bools) => Some(Ordering::Less),
        (Bools, Bool(_)) => Some(Ordering::Greater),
        (Bool(a), Bool(c)) => (a == c).then_some(Ordering::Equal),
        (Bools, Bools) => Some(Ordering::Equal),
        _ => None,
    }
}
