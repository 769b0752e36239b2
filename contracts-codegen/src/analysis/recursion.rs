//! Recursion: which own types reach themselves, and which fields and variants Rust must box.
//!
//! Two questions with one graph, the model's own references (a base's types never refer back
//! to an app's):
//! - through any reference (arrays, maps, nullables included), the strongly connected
//!   components: TypeScript makes a reference inside one a getter (Zod 4's recursive
//!   objects), and an untagged union in one cannot be told apart by its scan alone;
//! - by value only (not behind an array or a map), the slots that hold a type which holds
//!   them: Rust stores exactly those in a `Box`. Only what the slot holds decides, never a
//!   neighbour's size, so growth elsewhere never changes a field's Rust type.

use crate::model::{Model, Ty, TyKind, TypeDef, TypeDefKind};
use std::collections::{BTreeMap, BTreeSet};

/// The recursion of one model's own types.
#[derive(Clone, Debug, Default)]
pub struct Recursion {
    /// Own type name -> the index of its cycle (types that reach each other, or one that
    /// refers to itself). A type in no cycle is absent.
    cycles: BTreeMap<String, usize>,
    /// (type, field or variant index) of every slot that holds its own type by value.
    boxed: BTreeSet<(String, usize)>,
}

impl Recursion {
    /// The recursion of `model`'s own types.
    pub fn of(model: &Model) -> Recursion {
        Recursion {
            cycles: cycles(model),
            boxed: boxed(model),
        }
    }

    /// Whether the own type `name` reaches itself.
    pub fn is_recursive(&self, name: &str) -> bool {
        self.cycles.contains_key(name)
    }

    /// Whether own types `a` and `b` are in one cycle (a reference from one to the other is
    /// recursion).
    pub fn same_cycle(&self, a: &str, b: &str) -> bool {
        match (self.cycles.get(a), self.cycles.get(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// Whether field or variant `slot` of the own type `name` is stored in a `Box`.
    pub fn is_boxed(&self, name: &str, slot: usize) -> bool {
        self.boxed.contains(&(name.to_owned(), slot))
    }
}

/// The own references a type expression makes, through arrays, maps and nullables.
fn own_refs<'m>(model: &'m Model, ty: &'m Ty, out: &mut Vec<&'m TypeDef>) {
    ty.each_ref(&mut |r| {
        if r.protocol.as_deref().is_none_or(|p| p == model.name)
            && let Some(d) = model.own_type(&r.name)
        {
            out.push(d);
        }
    });
}

/// Every own type a definition refers to, in order.
fn refs_of<'m>(model: &'m Model, t: &'m TypeDef) -> Vec<&'m TypeDef> {
    let mut out = Vec::new();
    for ty in t.slots() {
        own_refs(model, ty, &mut out);
    }
    out
}

/// Tarjan's strongly connected components over the own references, kept for components of
/// more than one type and for a type that refers to itself.
fn cycles(model: &Model) -> BTreeMap<String, usize> {
    struct State<'m> {
        model: &'m Model,
        index: BTreeMap<&'m str, usize>,
        low: BTreeMap<&'m str, usize>,
        stack: Vec<&'m str>,
        on: BTreeSet<&'m str>,
        comp: BTreeMap<&'m str, usize>,
        ncomp: usize,
    }
    fn strong<'m>(s: &mut State<'m>, v: &'m TypeDef) {
        let name = v.name.as_str();
        let at = s.index.len();
        s.index.insert(name, at);
        s.low.insert(name, at);
        s.stack.push(name);
        s.on.insert(name);
        for w in refs_of(s.model, v) {
            let wn = w.name.as_str();
            if !s.index.contains_key(wn) {
                strong(s, w);
                let low = s.low[name].min(s.low[wn]);
                s.low.insert(name, low);
            } else if s.on.contains(wn) {
                let low = s.low[name].min(s.index[wn]);
                s.low.insert(name, low);
            }
        }
        if s.low[name] == s.index[name] {
            loop {
                let w = s.stack.pop().expect("tarjan stack");
                s.on.remove(w);
                s.comp.insert(w, s.ncomp);
                if w == name {
                    break;
                }
            }
            s.ncomp += 1;
        }
    }
    let mut s = State {
        model,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        comp: BTreeMap::new(),
        ncomp: 0,
    };
    for t in &model.types {
        if !s.index.contains_key(t.name.as_str()) {
            strong(&mut s, t);
        }
    }
    let mut sizes: BTreeMap<usize, usize> = BTreeMap::new();
    for c in s.comp.values() {
        *sizes.entry(*c).or_default() += 1;
    }
    let refers_to_itself = |t: &TypeDef| refs_of(model, t).iter().any(|d| std::ptr::eq(*d, t));
    model
        .types
        .iter()
        .filter_map(|t| {
            let c = s.comp[t.name.as_str()];
            (sizes[&c] > 1 || refers_to_itself(t)).then(|| (t.name.clone(), c))
        })
        .collect()
}

/// Own named types a type expression holds by value (through aliases and nullables, not
/// behind an array or a map).
fn by_value<'m>(model: &'m Model, ty: &'m Ty, out: &mut Vec<&'m str>) {
    match &ty.kind {
        TyKind::Nullable(inner) => by_value(model, inner, out),
        TyKind::Ref(r) if r.protocol.as_deref().is_some_and(|p| p != model.name) => {}
        TyKind::Ref(r) => match model.own_type(&r.name).map(|d| &d.kind) {
            Some(TypeDefKind::Alias(inner)) => by_value(model, inner, out),
            Some(_) => out.push(&r.name),
            None => {}
        },
        _ => {}
    }
}

/// Whether the own type `from` holds `target` by value.
fn reaches(model: &Model, from: &str, target: &str, seen: &mut BTreeSet<String>) -> bool {
    if from == target {
        return true;
    }
    if !seen.insert(from.to_owned()) {
        return false;
    }
    let Some(def) = model.own_type(from) else {
        return false;
    };
    let mut next = Vec::new();
    for ty in def.slots() {
        by_value(model, ty, &mut next);
    }
    next.iter().any(|n| reaches(model, n, target, seen))
}

/// The fields and variants whose own type holds the type they are in by value.
fn boxed(model: &Model) -> BTreeSet<(String, usize)> {
    let mut out = BTreeSet::new();
    for def in &model.types {
        if matches!(def.kind, TypeDefKind::Alias(_) | TypeDefKind::Enum(_)) {
            continue;
        }
        for (i, ty) in def.slots().into_iter().enumerate() {
            let mut held = Vec::new();
            by_value(model, ty, &mut held);
            if held
                .iter()
                .any(|h| reaches(model, h, &def.name, &mut BTreeSet::new()))
            {
                out.insert((def.name.clone(), i));
            }
        }
    }
    out
}

/// A path by which the own type `name` holds itself (a field, a variant or an alias, through
/// arrays, maps and nullables too), `name` first and last; `None` when it cannot. Declaration
/// order decides which path when there are several: what `check` shows in a message.
pub fn self_path<'m>(model: &'m Model, name: &str) -> Option<Vec<&'m str>> {
    fn walk<'m>(
        model: &'m Model,
        from: &'m TypeDef,
        target: &str,
        seen: &mut Vec<&'m str>,
        path: &mut Vec<&'m str>,
    ) -> bool {
        for next in refs_of(model, from) {
            let n = next.name.as_str();
            if n == target {
                return true;
            }
            if !seen.contains(&n) {
                seen.push(n);
                path.push(n);
                if walk(model, next, target, seen, path) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let def = model.own_type(name)?;
    let mut path = vec![def.name.as_str()];
    walk(model, def, &def.name, &mut Vec::new(), &mut path).then(|| {
        path.push(def.name.as_str());
        path
    })
}
