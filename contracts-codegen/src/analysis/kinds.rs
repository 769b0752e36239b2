//! Canonical forms and kind relations: what makes two spellings the same, and one kind a part of
//! another.
//!
//! A bound the type already implies is no bound (`string(min = 0)`, `int(..=9007199254740991)`),
//! and a default is compared as a JSON value whatever its spelling (`40` is `40.0`). Values of
//! the string-like kinds (a string with limits, an enum, a literal) and of the int-like and
//! boolean kinds (an integer enum is int-like) are compared as sets: one kind widened into
//! another accepts everything it did. [`covers`] extends the sets to every type: whether one
//! accepts every value another does. The differ reads the scalar relations, `check` the cover.

use crate::model::MAX_SAFE;
use crate::model::{DefKey, Limits, Literal, Model, Ty, TyKind, TypeDefKind, Width};
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

/// An integer's bounds with its width's range in them, exact (`int64`'s upper bound is
/// `2^63 - 1`): what two integers of different widths are compared by.
pub fn wide_ints(l: &Limits<i64>, w: Width) -> Limits<i128> {
    let (lo, hi) = match w {
        Width::Safe => (-i128::from(MAX_SAFE), i128::from(MAX_SAFE)),
        Width::I64 => (i128::from(i64::MIN), i128::from(i64::MAX)),
        Width::U64 => (0, i128::from(u64::MAX)),
    };
    Limits {
        min: Some(l.min.map_or(lo, |m| i128::from(m).max(lo))),
        max: Some(l.max.map_or(hi, |m| i128::from(m).min(hi))),
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
    /// Exactly `null`.
    Null,
}

fn set(m: &Model, t: &Ty) -> Option<Set> {
    Some(match &t.kind {
        // A string with a format, a 64-bit integer: compared by the walk, kind to kind.
        TyKind::String(l, None) => Set::Strings(lengths(l)),
        // `int(n..=n)` holds one integer, as the literal `n` does: a respelling of it.
        TyKind::Int(l, Width::Safe) => match ints(l) {
            Limits {
                min: Some(a),
                max: Some(b),
            } if a == b => Set::Int(a),
            l => Set::Ints(l),
        },
        TyKind::Boolean => Set::Bools,
        TyKind::Literal(Literal::String(s)) => Set::Words(vec![s.clone()]),
        TyKind::Literal(Literal::Int(i)) => Set::Int(*i),
        TyKind::Literal(Literal::Bool(b)) => Set::Bool(*b),
        TyKind::Literal(Literal::Null) => Set::Null,
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
        (Null, Null) => Some(Ordering::Equal),
        _ => None,
    }
}

/// Whether `a` (written in `am`) accepts every value `b` (written in `bm`) accepts: `true` only
/// when that is sure, `false` when it is not or cannot be shown. `check` refuses an untagged
/// union's variant that an earlier one covers, since the earlier one always wins.
///
/// Aliases are followed; `unknown` covers everything; a named type covers itself; a nullable
/// is covered by a type that admits null; arrays by their items and counts; an untagged union
/// covers what one of its variants covers and is covered when each of its variants is. An
/// object (a struct or a map, which is an object whose every key is its rest) covers another
/// when each of its required keys is required there with a covered type, each optional key
/// holds a covered type there (a closed object's other keys may hold anything), and every key
/// it does not name holds what its rest accepts (anything, when closed). A tagged union is
/// covered by itself, or by another version of it (the same tag key, each variant covered by
/// the one of its tag).
pub fn covers(am: &Model, a: &Ty, bm: &Model, b: &Ty) -> bool {
    let mut c = Cover {
        fuel: 10_000,
        depth: 0,
        open: Vec::new(),
    };
    c.ty(am, a, bm, b)
}

/// The walk of [`covers`]: a budget of steps (spent, the answer is `false`), the objects
/// entered, and the pairs of named types being compared, each with the depth it was entered
/// at. A pair met again deeper, inside an object or an array, holds (every value is finite,
/// so the walk that reached it is the proof); met again at the same depth, it is not shown.
struct Cover {
    fuel: u32,
    depth: u32,
    open: Vec<(DefKey, DefKey, u32)>,
}

/// The type `unknown`, which a closed object's other keys hold.
fn unknown() -> Ty {
    Ty {
        kind: TyKind::Unknown,
        loc: crate::model::Loc::builtin(),
    }
}

/// An object's keys as [`covers`] compares them: its fields and the type of every other key
/// (`None`: anything, a closed object).
struct Obj<'m> {
    m: &'m Model,
    fields: &'m [crate::model::Field],
    rest: Option<&'m Ty>,
}

impl Cover {
    fn ty(&mut self, am: &Model, a: &Ty, bm: &Model, b: &Ty) -> bool {
        if self.fuel == 0 {
            return false;
        }
        self.fuel -= 1;
        let (am, a) = am.unalias_in(a);
        let (bm, b) = bm.unalias_in(b);
        if let TyKind::Unknown = a.kind {
            return true;
        }
        if let TyKind::Nullable(bi) = &b.kind {
            return admits_null(am, a, 0) && self.ty(am, a, bm, bi);
        }
        if let TyKind::Literal(Literal::Null) = &b.kind {
            return admits_null(am, a, 0);
        }
        if let TyKind::Nullable(ai) = &a.kind {
            return self.ty(am, ai, bm, b);
        }
        if let (TyKind::Ref(ra), TyKind::Ref(rb)) = (&a.kind, &b.kind) {
            let (Some((dam, da)), Some((dbm, db))) = (am.locate(ra), bm.locate(rb)) else {
                return false;
            };
            let (ka, kb) = (
                (dam.name.clone(), da.name.clone()),
                (dbm.name.clone(), db.name.clone()),
            );
            // The same named type of the same model: itself (two models, base and head, may
            // hold two versions of one name).
            if ka == kb && std::ptr::eq(dam, dbm) {
                return true;
            }
            if let Some(&(_, _, at)) = self.open.iter().find(|(x, y, _)| *x == ka && *y == kb) {
                return at < self.depth;
            }
            self.open.push((ka, kb, self.depth));
            let out = self.named(am, a, bm, b);
            self.open.pop();
            return out;
        }
        self.named(am, a, bm, b)
    }

    /// [`Cover::ty`] once aliases, `unknown`, nullables and a pair of names are settled.
    fn named(&mut self, am: &Model, a: &Ty, bm: &Model, b: &Ty) -> bool {
        if let Some((um, u)) = untagged(bm, b) {
            return u.variants.iter().all(|v| self.ty(am, a, um, &v.ty));
        }
        if let Some((um, u)) = untagged(am, a) {
            return u.variants.iter().any(|v| self.ty(um, &v.ty, bm, b));
        }
        if let Some(o) = relation(bm, b, am, a) {
            return o != Ordering::Greater;
        }
        match (&a.kind, &b.kind) {
            (TyKind::Number(la), TyKind::Number(lb)) => limits_le(lb, la),
            (TyKind::Number(la), TyKind::Int(lb, w)) => {
                // The integer's range with its width's in it, compared exactly.
                let lb = wide_ints(lb, *w);
                la.min
                    .is_none_or(|m| lb.min.is_some_and(|x| x >= i128::from(m)))
                    && la
                        .max
                        .is_none_or(|m| lb.max.is_some_and(|x| x <= i128::from(m)))
            }
            (TyKind::Number(la), TyKind::Literal(Literal::Int(i))) => within(*i, la),
            // 64-bit integers and strings with a format, which the scalar sets leave out: by
            // their exact ranges, and by their lengths under the same (or no) format.
            (TyKind::Int(la, wa), TyKind::Int(lb, wb)) => {
                limits_le(&wide_ints(lb, *wb), &wide_ints(la, *wa))
            }
            (TyKind::String(la, fa), TyKind::String(lb, fb)) if fa.is_none() || fa == fb => {
                limits_le(&lengths(lb), &lengths(la))
            }
            (TyKind::Array(ai, la), TyKind::Array(bi, lb)) => {
                limits_le(&lengths(lb), &lengths(la)) && self.deeper(|c| c.ty(am, ai, bm, bi))
            }
            _ => {
                // Two tagged unions with one tag key: each variant of `b` covered by `a`'s of
                // the same tag (two versions of one union, in two models).
                if let (Some((um, ua)), Some((vm, ub))) = (tagged(am, a), tagged(bm, b)) {
                    let key = |u: &crate::model::Union| match &u.tag {
                        crate::model::UnionTag::Tagged { field, .. } => Some(field.clone()),
                        crate::model::UnionTag::Untagged => None,
                    };
                    if key(ua) != key(ub) {
                        return false;
                    }
                    return self.deeper(|c| {
                        ub.variants.iter().all(|vb| {
                            ua.variants
                                .iter()
                                .find(|va| va.tag == vb.tag)
                                .is_some_and(|va| c.ty(um, &va.ty, vm, &vb.ty))
                        })
                    });
                }
                match (object(am, a), object(bm, b)) {
                    (Some(oa), Some(ob)) => self.deeper(|c| c.object(&oa, &ob)),
                    _ => false,
                }
            }
        }
    }

    /// Runs `f` one object or array deeper.
    fn deeper(&mut self, f: impl FnOnce(&mut Cover) -> bool) -> bool {
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    /// Whether the object `a` accepts every object `b` does.
    fn object(&mut self, a: &Obj<'_>, b: &Obj<'_>) -> bool {
        let any = unknown();
        let b_rest = b.rest.unwrap_or(&any);
        for f in a.fields {
            let held = match b.fields.iter().find(|g| g.name == f.name) {
                Some(g) if g.optional && !f.optional => return false,
                Some(g) => self.ty(a.m, &f.ty, b.m, &g.ty),
                None if !f.optional => return false,
                None => self.ty(a.m, &f.ty, b.m, b_rest),
            };
            if !held {
                return false;
            }
        }
        let Some(a_rest) = a.rest else {
            return true;
        };
        b.fields
            .iter()
            .filter(|g| !a.fields.iter().any(|f| f.name == g.name))
            .all(|g| self.ty(a.m, a_rest, b.m, &g.ty))
            && self.ty(a.m, a_rest, b.m, b_rest)
    }
}

/// Whether no value is accepted both by `a` (written in `am`) and by `b` (in `bm`): `true`
/// only when that is sure. Two types of different JSON kinds (a string and an object), two
/// scalar sets with no value in common (`"a"` and `"b"`, `int(0..=9)` and `int(10..)`), a
/// nullable and a type without null when the rest is apart, every variant of an untagged union
/// apart from the other type, and two objects that require a key each with types apart there
/// (`kind: "a"` and `kind: "b"`). `unknown` meets everything.
pub fn disjoint(am: &Model, a: &Ty, bm: &Model, b: &Ty) -> bool {
    apart(am, a, bm, b, false, 0)
}

/// [`disjoint`] for the values peers built on the contract write: an object holds the keys it
/// names (generated code writes no other; an open object's rest keeps keys it read, not keys
/// it makes up), so an object that requires a key the other does not name accepts none of its
/// values. What an old peer sends as one variant of an untagged union is judged so.
pub fn disjoint_declared(am: &Model, a: &Ty, bm: &Model, b: &Ty) -> bool {
    apart(am, a, bm, b, true, 0)
}

/// The JSON kinds a type's values have (null excluded): bits of [`kind_bits`].
fn kind_bits(m: &Model, t: &Ty) -> Option<u8> {
    const STR: u8 = 1;
    const NUM: u8 = 2;
    const BOOL: u8 = 4;
    const ARR: u8 = 8;
    const OBJ: u8 = 16;
    Some(match &t.kind {
        TyKind::String(..) | TyKind::Literal(Literal::String(_)) => STR,
        TyKind::Int(..) | TyKind::Number(_) | TyKind::Literal(Literal::Int(_)) => NUM,
        TyKind::Boolean | TyKind::Literal(Literal::Bool(_)) => BOOL,
        TyKind::Array(..) => ARR,
        TyKind::Map(_) => OBJ,
        TyKind::Ref(r) => match &m.locate(r)?.1.kind {
            TypeDefKind::Enum(e) if e.is_int() => NUM,
            TypeDefKind::Enum(_) => STR,
            TypeDefKind::Struct(_) => OBJ,
            TypeDefKind::Union(u) if u.tag != crate::model::UnionTag::Untagged => OBJ,
            _ => return None,
        },
        _ => return None,
    })
}

fn apart(am: &Model, a: &Ty, bm: &Model, b: &Ty, declared: bool, depth: u32) -> bool {
    if depth > 16 {
        return false;
    }
    let (am, a) = am.unalias_in(a);
    let (bm, b) = bm.unalias_in(b);
    if matches!(a.kind, TyKind::Unknown) || matches!(b.kind, TyKind::Unknown) {
        return false;
    }
    if let TyKind::Nullable(ai) = &a.kind {
        return !admits_null(bm, b, 0) && apart(am, ai, bm, b, declared, depth + 1);
    }
    if let TyKind::Nullable(bi) = &b.kind {
        return !admits_null(am, a, 0) && apart(am, a, bm, bi, declared, depth + 1);
    }
    if let Some((um, u)) = untagged(am, a) {
        return u
            .variants
            .iter()
            .all(|v| apart(um, &v.ty, bm, b, declared, depth + 1));
    }
    if let Some((um, u)) = untagged(bm, b) {
        return u
            .variants
            .iter()
            .all(|v| apart(am, a, um, &v.ty, declared, depth + 1));
    }
    let (Some(ka), Some(kb)) = (kind_bits(am, a), kind_bits(bm, b)) else {
        return false;
    };
    if ka & kb == 0 {
        return true;
    }
    if let (Some(x), Some(y)) = (set(am, a), set(bm, b)) {
        use Set::*;
        return match (&x, &y) {
            (Words(w), Words(v)) => !w.iter().any(|s| v.contains(s)),
            (Words(w), Strings(l)) | (Strings(l), Words(w)) => !w.iter().any(|s| within(len(s), l)),
            (Strings(l), Strings(k)) => !overlap(l, k),
            (Int(i), Int(j)) => i != j,
            (Int(i), Ints(l)) | (Ints(l), Int(i)) => !within(*i, l),
            (Ints(l), Ints(k)) => !overlap(l, k),
            (IntsListed(v), IntsListed(w)) => !v.iter().any(|i| w.contains(i)),
            (IntsListed(v), Int(i)) | (Int(i), IntsListed(v)) => !v.contains(i),
            (IntsListed(v), Ints(l)) | (Ints(l), IntsListed(v)) => !v.iter().any(|i| within(*i, l)),
            (Bool(p), Bool(q)) => p != q,
            _ => false,
        };
    }
    // Two objects: a key both require, holding values apart.
    let (Some(oa), Some(ob)) = (object(am, a), object(bm, b)) else {
        return false;
    };
    // Declared values: a key one requires that the other never writes (its rest keeps keys
    // it read, not keys it makes up).
    let unwritten = |x: &Obj<'_>, y: &Obj<'_>| {
        x.fields
            .iter()
            .any(|f| !f.optional && !y.fields.iter().any(|g| g.name == f.name))
    };
    if declared && (unwritten(&oa, &ob) || unwritten(&ob, &oa)) {
        return true;
    }
    oa.fields.iter().filter(|f| !f.optional).any(|f| {
        ob.fields
            .iter()
            .find(|g| g.name == f.name && !g.optional)
            .is_some_and(|g| apart(oa.m, &f.ty, ob.m, &g.ty, declared, depth + 1))
    })
}

/// Whether two bounds share a value.
fn overlap<T: Copy + Ord>(a: &Limits<T>, b: &Limits<T>) -> bool {
    let lo = match (a.min, b.min) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    };
    let hi = match (a.max, b.max) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    match (lo, hi) {
        (Some(l), Some(h)) => l <= h,
        _ => true,
    }
}

/// The untagged union `t` names (after aliases), with the model that declares it.
fn untagged<'m>(m: &'m Model, t: &'m Ty) -> Option<(&'m Model, &'m crate::model::Union)> {
    let TyKind::Ref(r) = &t.kind else {
        return None;
    };
    let (dm, def) = m.locate(r)?;
    match &def.kind {
        TypeDefKind::Union(u) if u.tag == crate::model::UnionTag::Untagged => Some((dm, u)),
        _ => None,
    }
}

/// The tagged union `t` names, with the model that declares it, and its tag key.
fn tagged<'m>(m: &'m Model, t: &'m Ty) -> Option<(&'m Model, &'m crate::model::Union)> {
    let TyKind::Ref(r) = &t.kind else {
        return None;
    };
    let (dm, def) = m.locate(r)?;
    match &def.kind {
        TypeDefKind::Union(u) if matches!(u.tag, crate::model::UnionTag::Tagged { .. }) => {
            Some((dm, u))
        }
        _ => None,
    }
}

/// `t` as an object: a struct it names, or a map.
fn object<'m>(m: &'m Model, t: &'m Ty) -> Option<Obj<'m>> {
    match &t.kind {
        TyKind::Map(inner) => Some(Obj {
            m,
            fields: &[],
            rest: Some(inner),
        }),
        TyKind::Ref(r) => {
            let (dm, def) = m.locate(r)?;
            let TypeDefKind::Struct(s) = &def.kind else {
                return None;
            };
            Some(Obj {
                m: dm,
                fields: &s.fields,
                rest: s.rest.as_ref().map(|r| match &r.ty.kind {
                    TyKind::Map(inner) => &**inner,
                    _ => &r.ty,
                }),
            })
        }
        _ => None,
    }
}

/// Whether `t` accepts `null` for sure: `unknown`, a nullable, `null`, or an untagged union with a
/// variant that does.
fn admits_null(m: &Model, t: &Ty, depth: u32) -> bool {
    if depth > 16 {
        return false;
    }
    let (m, t) = m.unalias_in(t);
    match &t.kind {
        TyKind::Unknown | TyKind::Nullable(_) | TyKind::Literal(Literal::Null) => true,
        _ => untagged(m, t)
            .is_some_and(|(um, u)| u.variants.iter().any(|v| admits_null(um, &v.ty, depth + 1))),
    }
}

/// A literal as the schema writes it (`"2025-11-25"`, `1`, `true`).
pub fn literal_text(l: &Literal) -> String {
    match l {
        Literal::String(s) => format!("{s:?}"),
        Literal::Bool(b) => b.to_string(),
        Literal::Int(i) => i.to_string(),
        Literal::Null => "null".to_owned(),
    }
}
