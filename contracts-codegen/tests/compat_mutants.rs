//! Mutation testing over the real schemas (`schema/agent`, `schema/connect`, and the JSON-RPC
//! protocols `schema/mcp` and `schema/acp`, whose open structs, integer enums, composition and
//! tables with two sides every kind of edit meets).
//!
//! Each kind of edit is applied to the loaded model at every place it applies (drop a field, add
//! a required or an optional one, add an enum value or a union variant, tighten or loosen a
//! limit, make a field optional or required or nullable, change its type, rename it, drop or add
//! a request, drop an event, drop an enum value or a variant, rename a named type), and the kinds
//! of issue 19 (delete the whole directory; mark or unmark a type `#[stored]`, with types reached
//! from a stored one checked to travel both ways; gate a request or an event; drop `#[legacy]`,
//! `#[open]`, `#[accepts]`, `#[direction]`; make an enum or a literal a string or a string a
//! literal; respell a bound or a default; add a default; reorder an untagged union; rename a
//! request or an event; another side sends a request or an event; open a closed object or
//! close an open one). The expected
//! findings of each mutant are worked out here from the rule table and the way the mutated type
//! travels, and the differ must yield exactly those: a mutant is caught when it does. The count
//! is printed (`cargo test -p adecore-contracts-codegen --test compat_mutants -- --nocapture`).

use contracts_codegen::analysis::Checked;
use contracts_codegen::analysis::direction as reach;
use contracts_codegen::compat::rules::{self, Rule};
use contracts_codegen::compat::{self, Level};
use contracts_codegen::load::{LoadOptions, load_dir};
use contracts_codegen::model::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One mutant: what was done where, the mutated model and the findings it must yield.
struct Mutant {
    kind: &'static str,
    place: String,
    model: Model,
    expect: Vec<(&'static Rule, Level)>,
}

fn loc() -> Loc {
    Loc {
        file: Arc::from("<mutant>"),
        line: 0,
        col: 0,
    }
}

fn ty(kind: TyKind) -> Ty {
    Ty { kind, loc: loc() }
}

fn new_field(name: &str, optional: bool) -> Field {
    Field {
        name: name.into(),
        docs: Docs::default(),
        meta: Meta::default(),
        loc: loc(),
        optional,
        default: None,
        ty: ty(TyKind::String(Limits::none(), None)),
    }
}

/// The way the named type `name` of `m` travels (both when nothing reaches it).
fn dir_of(dirs: &reach::Directions, m: &Model, name: &str) -> Direction {
    dirs.get(&(m.name.clone(), name.to_string()))
        .unwrap_or(Direction::Both)
}

fn level(rule: &Rule, dir: Direction) -> Level {
    rules::level(rule, dir)
}

/// Call `f` on every type expression of the model, nested ones included.
fn each_ty(m: &mut Model, f: &mut dyn FnMut(&mut Ty)) {
    fn go(t: &mut Ty, f: &mut dyn FnMut(&mut Ty)) {
        f(t);
        match &mut t.kind {
            TyKind::Array(i, _) | TyKind::Map(i) | TyKind::Nullable(i) => go(i, f),
            _ => {}
        }
    }
    for d in &mut m.types {
        match &mut d.kind {
            TypeDefKind::Alias(t) => go(t, f),
            TypeDefKind::Struct(s) => s.fields.iter_mut().for_each(|x| go(&mut x.ty, f)),
            TypeDefKind::Enum(_) => {}
            TypeDefKind::Union(u) => u.variants.iter_mut().for_each(|v| go(&mut v.ty, f)),
        }
    }
    for r in &mut m.requests {
        go(&mut r.payload, f);
        go(&mut r.result, f);
    }
    for e in &mut m.events {
        go(&mut e.payload, f);
    }
}

/// The bounds of a type written in place (not through an alias), looking through `| null`.
enum Bounds<'a> {
    U(&'a mut Limits<u64>),
    I(&'a mut Limits<i64>),
}

fn bounds(t: &mut Ty) -> Option<Bounds<'_>> {
    match &mut t.kind {
        TyKind::String(l, _) | TyKind::Array(_, l) => Some(Bounds::U(l)),
        TyKind::Int(l, _) | TyKind::Number(l) => Some(Bounds::I(l)),
        TyKind::Nullable(i) => bounds(i),
        _ => None,
    }
}

/// Make the bounds stricter: lower a `max`, or add one.
fn tighten(b: Bounds<'_>) -> bool {
    match b {
        Bounds::U(l) => match l.max {
            Some(m) if m > l.min.unwrap_or(0) => l.max = Some(m - 1),
            Some(_) => return false,
            None => l.max = Some(l.min.unwrap_or(0) + 1_000_000),
        },
        Bounds::I(l) => match l.max {
            Some(m) if l.min.is_none_or(|x| m > x) => l.max = Some(m - 1),
            Some(_) => return false,
            None => l.max = Some(l.min.unwrap_or(0).saturating_add(1_000_000)),
        },
    }
    true
}

/// Make the bounds looser: raise a `max`, else lower a `min`; false when there is none.
fn loosen(b: Bounds<'_>) -> bool {
    match b {
        Bounds::U(l) => match (l.min, l.max) {
            (_, Some(m)) => l.max = Some(m + 1),
            (Some(x), None) if x > 0 => l.min = Some(x - 1),
            _ => return false,
        },
        Bounds::I(l) => match (l.min, l.max) {
            (_, Some(m)) => l.max = Some(m.saturating_add(1)),
            (Some(x), None) => l.min = Some(x.saturating_sub(1)),
            _ => return false,
        },
    }
    true
}

fn is_nullable(t: &Ty) -> bool {
    matches!(t.kind, TyKind::Nullable(_))
}

/// True when `t` admits null through its aliases too (`| null` around it changes nothing).
fn admits_null(m: &Model, t: &Ty) -> bool {
    matches!(m.unalias(t).kind, TyKind::Nullable(_) | TyKind::Unknown)
}

/// The way the uses of the alias `name` travel: an alias is judged at each use, by the way
/// the type (or table entry) that writes it travels (an alias's use, as its own uses do).
fn alias_use_dir(m: &Model, dirs: &reach::Directions, name: &str, depth: u32) -> Direction {
    fn names(t: &Ty, name: &str) -> bool {
        match &t.kind {
            TyKind::Ref(r) => r.name == name && r.protocol.is_none(),
            TyKind::Array(i, _) | TyKind::Map(i) | TyKind::Nullable(i) => names(i, name),
            _ => false,
        }
    }
    let mut bits = 0u8;
    for r in &m.requests {
        if names(&r.payload, name) {
            bits |= reach::to_bits(r.sender());
        }
        if names(&r.result, name) {
            bits |= reach::to_bits(r.sender().reversed());
        }
    }
    for e in &m.events {
        if names(&e.payload, name) {
            bits |= reach::to_bits(e.sender());
        }
    }
    for t in &m.types {
        let uses = match &t.kind {
            TypeDefKind::Alias(a) => names(a, name),
            TypeDefKind::Struct(s) => s.slots().any(|x| names(x, name)),
            TypeDefKind::Union(u) => u.variants.iter().any(|v| names(&v.ty, name)),
            TypeDefKind::Enum(_) => false,
        };
        if !uses {
            continue;
        }
        let dir = match &t.kind {
            TypeDefKind::Alias(_) if depth < 8 && t.meta.direction.is_none() && !t.meta.stored => {
                alias_use_dir(m, dirs, &t.name, depth + 1)
            }
            _ => dir_of(dirs, m, &t.name),
        };
        bits |= reach::to_bits(dir);
    }
    reach::to_direction(bits).unwrap_or_else(|| dir_of(dirs, m, name))
}

/// Every mutant of `m`, with its expected findings.
fn mutants(m: &Checked) -> Vec<Mutant> {
    let dirs = &m.analysis().directions;
    let mut out = Vec::new();
    let mut push =
        |kind: &'static str, place: String, model: Model, expect: Vec<(&'static Rule, Level)>| {
            out.push(Mutant {
                kind,
                place,
                model,
                expect,
            });
        };
    for (ti, t) in m.types.iter().enumerate() {
        let dir = dir_of(dirs, m, &t.name);
        // Renaming a named type changes no wire name.
        {
            let mut x = m.model().clone();
            let new = format!("{}Mutant", t.name);
            x.types[ti].name = new.clone();
            let own = m.name.clone();
            each_ty(&mut x, &mut |ty| {
                if let TyKind::Ref(r) = &mut ty.kind
                    && r.name == t.name
                    && r.protocol.as_ref().is_none_or(|p| *p == own)
                {
                    r.name = new.clone();
                }
            });
            // Paired by the places it is used, or (used nowhere) by its shape; only its Rust
            // path changed.
            push(
                "rename-type",
                t.name.clone(),
                x,
                vec![(&rules::RUST_TYPE_RENAMED, Level::Info)],
            );
        }
        match &t.kind {
            TypeDefKind::Struct(s) => {
                // Open a closed object (`..: unknown`), close an open one.
                let mut x = m.model().clone();
                if let TypeDefKind::Struct(xs) = &mut x.types[ti].kind {
                    match &s.rest {
                        Some(_) => xs.rest = None,
                        None => {
                            xs.rest = Some(Rest {
                                docs: Docs::default(),
                                loc: loc(),
                                ty: ty(TyKind::Map(Box::new(ty(TyKind::Unknown)))),
                            })
                        }
                    }
                }
                let (kind, rule) = match &s.rest {
                    Some(_) => ("drop-rest", &rules::REST_REMOVED),
                    None => ("add-rest", &rules::REST_ADDED),
                };
                push(kind, t.name.clone(), x, vec![(rule, level(rule, dir))]);
                for (fi, f) in s.fields.iter().enumerate() {
                    let place = format!("{}.{}", t.name, f.name);
                    let with = |g: &dyn Fn(&mut Struct)| {
                        let mut x = m.model().clone();
                        if let TypeDefKind::Struct(s) = &mut x.types[ti].kind {
                            g(s);
                        }
                        x
                    };
                    let x = with(&|s| {
                        s.fields.remove(fi);
                    });
                    push(
                        "drop-field",
                        place.clone(),
                        x,
                        vec![(&rules::FIELD_REMOVED, level(&rules::FIELD_REMOVED, dir))],
                    );
                    let x = with(&|s| s.fields[fi].name = format!("{}Mutant", s.fields[fi].name));
                    push(
                        "rename-field",
                        place.clone(),
                        x,
                        vec![(&rules::FIELD_RENAMED, level(&rules::FIELD_RENAMED, dir))],
                    );
                    if f.optional {
                        let x = with(&|s| {
                            s.fields[fi].optional = false;
                            s.fields[fi].default = None;
                        });
                        let mut e = vec![(
                            &rules::OPTIONAL_TO_REQUIRED,
                            level(&rules::OPTIONAL_TO_REQUIRED, dir),
                        )];
                        if f.default.is_some() {
                            e.push((&rules::DEFAULT_REMOVED, level(&rules::DEFAULT_REMOVED, dir)));
                        }
                        push("make-required", place.clone(), x, e);
                    } else {
                        let x = with(&|s| s.fields[fi].optional = true);
                        push(
                            "make-optional",
                            place.clone(),
                            x,
                            vec![(
                                &rules::REQUIRED_TO_OPTIONAL,
                                level(&rules::REQUIRED_TO_OPTIONAL, dir),
                            )],
                        );
                    }
                    if !is_nullable(&f.ty) && !admits_null(m, &f.ty) {
                        let x = with(&|s| {
                            let inner = s.fields[fi].ty.clone();
                            s.fields[fi].ty = ty(TyKind::Nullable(Box::new(inner)));
                        });
                        let rule = &rules::NULLABILITY_ADDED;
                        push(
                            "make-nullable",
                            place.clone(),
                            x,
                            vec![(rule, level(rule, dir))],
                        );
                    }
                    if matches!(f.ty.kind, TyKind::String(..)) {
                        let x = with(&|s| s.fields[fi].ty = ty(TyKind::Boolean));
                        push(
                            "change-type",
                            place.clone(),
                            x,
                            vec![(&rules::TYPE_CHANGED, level(&rules::TYPE_CHANGED, dir))],
                        );
                    }
                    let mut x = m.model().clone();
                    if let TypeDefKind::Struct(s) = &mut x.types[ti].kind
                        && bounds(&mut s.fields[fi].ty).is_some_and(tighten)
                    {
                        push(
                            "tighten-limit",
                            place.clone(),
                            x,
                            vec![(
                                &rules::CONSTRAINT_TIGHTENED,
                                level(&rules::CONSTRAINT_TIGHTENED, dir),
                            )],
                        );
                    }
                    let mut x = m.model().clone();
                    if let TypeDefKind::Struct(s) = &mut x.types[ti].kind
                        && bounds(&mut s.fields[fi].ty).is_some_and(loosen)
                    {
                        push(
                            "loosen-limit",
                            place.clone(),
                            x,
                            vec![(
                                &rules::CONSTRAINT_LOOSENED,
                                level(&rules::CONSTRAINT_LOOSENED, dir),
                            )],
                        );
                    }
                }
                let mut x = m.model().clone();
                if let TypeDefKind::Struct(s) = &mut x.types[ti].kind {
                    s.fields.push(new_field("zzMutant", false));
                }
                push(
                    "add-required-field",
                    t.name.clone(),
                    x,
                    vec![(
                        &rules::FIELD_ADDED_REQUIRED,
                        level(&rules::FIELD_ADDED_REQUIRED, dir),
                    )],
                );
                let mut x = m.model().clone();
                if let TypeDefKind::Struct(s) = &mut x.types[ti].kind {
                    s.fields.push(new_field("zzMutant", true));
                }
                push(
                    "add-optional-field",
                    t.name.clone(),
                    x,
                    vec![(&rules::FIELD_ADDED_OPTIONAL, Level::Info)],
                );
            }
            TypeDefKind::Alias(_) => {
                // Judged at each use, at the strictest of the ways they travel.
                let dir = alias_use_dir(m, dirs, &t.name, 0);
                let mut x = m.model().clone();
                if let TypeDefKind::Alias(a) = &mut x.types[ti].kind
                    && bounds(a).is_some_and(tighten)
                {
                    push(
                        "tighten-limit",
                        t.name.clone(),
                        x,
                        vec![(
                            &rules::CONSTRAINT_TIGHTENED,
                            level(&rules::CONSTRAINT_TIGHTENED, dir),
                        )],
                    );
                }
                let mut x = m.model().clone();
                if let TypeDefKind::Alias(a) = &mut x.types[ti].kind
                    && bounds(a).is_some_and(loosen)
                {
                    push(
                        "loosen-limit",
                        t.name.clone(),
                        x,
                        vec![(
                            &rules::CONSTRAINT_LOOSENED,
                            level(&rules::CONSTRAINT_LOOSENED, dir),
                        )],
                    );
                }
            }
            TypeDefKind::Enum(e) => {
                let mut x = m.model().clone();
                if let TypeDefKind::Enum(xe) = &mut x.types[ti].kind {
                    let mut v = xe.values[0].clone();
                    v.value = match &v.value {
                        EnumLit::Str(_) => EnumLit::Str("zz-mutant".into()),
                        EnumLit::Int { .. } => EnumLit::Int {
                            name: "ZzMutant".into(),
                            value: xe.ints().max().unwrap_or(0) + 1,
                        },
                    };
                    v.meta = Meta::default();
                    xe.values.push(v);
                }
                let rule = if e.open {
                    &rules::OPEN_ENUM_VALUE_ADDED
                } else {
                    &rules::ENUM_VALUE_ADDED
                };
                push(
                    "add-enum-value",
                    t.name.clone(),
                    x,
                    vec![(rule, level(rule, dir))],
                );
                if e.values.len() > 1 {
                    for (vi, v) in e.values.iter().enumerate() {
                        let mut x = m.model().clone();
                        if let TypeDefKind::Enum(xe) = &mut x.types[ti].kind {
                            xe.values.remove(vi);
                        }
                        let expect = if v.meta.legacy {
                            (&rules::LEGACY_VALUE_REMOVED, Level::Error)
                        } else if e.open {
                            (&rules::OPEN_ENUM_VALUE_REMOVED, Level::Warning)
                        } else {
                            (
                                &rules::ENUM_VALUE_REMOVED,
                                level(&rules::ENUM_VALUE_REMOVED, dir),
                            )
                        };
                        push(
                            "drop-enum-value",
                            format!("{}.{}", t.name, value_key(v)),
                            x,
                            vec![expect],
                        );
                    }
                }
            }
            TypeDefKind::Union(u) => {
                let tagged = matches!(u.tag, UnionTag::Tagged { .. });
                let mut x = m.model().clone();
                let name = "ZzMutantVariant".to_string();
                x.types.push(TypeDef {
                    name: name.clone(),
                    docs: Docs::default(),
                    meta: Meta::default(),
                    loc: loc(),
                    module: None,
                    synthetic: false,
                    kind: TypeDefKind::Struct(Struct {
                        fields: vec![new_field("zz", false)],
                        rest: None,
                        includes: Vec::new(),
                    }),
                });
                if let TypeDefKind::Union(xu) = &mut x.types[ti].kind {
                    xu.variants.push(Variant {
                        tag: tagged.then(|| "zz-mutant".to_string()),
                        name: None,
                        docs: Docs::default(),
                        meta: Meta::default(),
                        loc: loc(),
                        ty: ty(TyKind::Ref(TypeRef {
                            name,
                            protocol: None,
                        })),
                    });
                }
                push(
                    "add-union-variant",
                    t.name.clone(),
                    x,
                    vec![(
                        &rules::UNION_VARIANT_ADDED,
                        level(&rules::UNION_VARIANT_ADDED, dir),
                    )],
                );
                if u.variants.len() > 1 {
                    for (vi, v) in u.variants.iter().enumerate() {
                        let mut x = m.model().clone();
                        if let TypeDefKind::Union(xu) = &mut x.types[ti].kind {
                            xu.variants.remove(vi);
                        }
                        // Untagged leftovers pair by position: only the last one is a plain removal.
                        if !tagged && vi + 1 != u.variants.len() {
                            continue;
                        }
                        let vdir = v.meta.direction.unwrap_or(dir);
                        let place = format!("{}.{:?}", t.name, v.tag.clone().unwrap_or_default());
                        push(
                            "drop-union-variant",
                            place,
                            x,
                            vec![(
                                &rules::UNION_VARIANT_REMOVED,
                                level(&rules::UNION_VARIANT_REMOVED, vdir),
                            )],
                        );
                    }
                }
            }
        }
    }
    for (i, r) in m.requests.iter().enumerate() {
        let mut x = m.model().clone();
        x.requests.remove(i);
        push(
            "drop-request",
            r.name.clone(),
            x,
            vec![(&rules::REQUEST_REMOVED, Level::Error)],
        );
    }
    if let Some(r) = m.requests.first() {
        let mut x = m.model().clone();
        let mut n = r.clone();
        n.name = "zz.mutant".into();
        x.requests.push(n);
        push(
            "add-request",
            "zz.mutant".into(),
            x,
            vec![(&rules::REQUEST_ADDED, Level::Info)],
        );
    }
    for (i, e) in m.events.iter().enumerate() {
        let mut x = m.model().clone();
        x.events.remove(i);
        push(
            "drop-event",
            e.name.clone(),
            x,
            vec![(&rules::EVENT_REMOVED, Level::Error)],
        );
    }
    push("identity", m.name.clone(), m.model().clone(), vec![]);
    out.extend(more_mutants(m, dirs));
    out
}

/// The names of the own types reached from a `#[stored]` type (itself included), found here
/// by a walk of our own rather than the differ's.
fn stored_closure(m: &Model) -> BTreeSet<String> {
    fn refs(t: &Ty, out: &mut Vec<String>) {
        match &t.kind {
            TyKind::Array(i, _) | TyKind::Map(i) | TyKind::Nullable(i) => refs(i, out),
            TyKind::Ref(r) if r.protocol.is_none() => out.push(r.name.clone()),
            _ => {}
        }
    }
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = m
        .types
        .iter()
        .filter(|t| t.meta.stored)
        .map(|t| t.name.clone())
        .collect();
    while let Some(n) = todo.pop() {
        if !seen.insert(n.clone()) {
            continue;
        }
        let Some(t) = m.own_type(&n) else { continue };
        let mut next = Vec::new();
        match &t.kind {
            TypeDefKind::Alias(a) => refs(a, &mut next),
            TypeDefKind::Struct(s) => s.fields.iter().for_each(|f| refs(&f.ty, &mut next)),
            TypeDefKind::Enum(_) => {}
            TypeDefKind::Union(u) => u.variants.iter().for_each(|v| refs(&v.ty, &mut next)),
        }
        todo.extend(next);
    }
    seen
}

/// True when both types are structs requiring different literals at a key they share.
fn literals_apart(m: &Model, a: &Ty, b: &Ty) -> bool {
    // No value matches both (another JSON kind, literals apart at a key both require), as
    // `kinds::disjoint` decides; the differ calls the reorder of such variants compatible.
    compat::kinds::disjoint(m, a, m, b)
}

/// The edit kinds of issue 19: whole directories, stored data, gates on requests and events,
/// Another sender than `d`, in turn: client, host, both.
fn next_sender(d: Direction) -> Direction {
    match d {
        Direction::ClientToServer => Direction::ServerToClient,
        Direction::ServerToClient => Direction::Both,
        Direction::Both => Direction::ClientToServer,
    }
}

/// attribute removals, safe kind changes, respellings, defaults added, reordered untagged
/// unions, renamed requests and events.
fn more_mutants(m: &Model, dirs: &reach::Directions) -> Vec<Mutant> {
    let mut out = Vec::new();
    let mut push =
        |kind: &'static str, place: String, model: Model, expect: Vec<(&'static Rule, Level)>| {
            out.push(Mutant {
                kind,
                place,
                model,
                expect,
            });
        };
    // The whole directory is gone.
    push(
        "delete-protocol",
        m.name.clone(),
        Model {
            name: m.name.clone(),
            ..Model::default()
        },
        vec![(&rules::PROTOCOL_REMOVED, Level::Error)],
    );
    for (i, r) in m.requests.iter().enumerate() {
        let mut x = m.clone();
        x.requests[i].meta.accepts = Some(match &r.meta.accepts {
            Some(a) => format!("{a}-mutant"),
            None => "mutant".into(),
        });
        push(
            "gate-request",
            r.name.clone(),
            x,
            vec![(&rules::GATE_CHANGED, Level::Error)],
        );
        // Another side sends it (JSON-RPC's tables have two): peers answer it no more.
        let mut x = m.clone();
        x.requests[i].meta.direction = Some(next_sender(r.sender()));
        push(
            "change-sender",
            r.name.clone(),
            x,
            vec![(&rules::DIRECTION_CHANGED, Level::Error)],
        );
        let mut x = m.clone();
        x.requests[i].name = format!("{}.mutant", r.name);
        push(
            "rename-request",
            r.name.clone(),
            x,
            vec![(&rules::REQUEST_RENAMED, Level::Error)],
        );
    }
    for (i, e) in m.events.iter().enumerate() {
        let mut x = m.clone();
        x.events[i].meta.accepts = match &e.meta.accepts {
            Some(_) => None,
            None => Some("mutant".into()),
        };
        push(
            "gate-event",
            e.name.clone(),
            x,
            vec![(&rules::GATE_CHANGED, Level::Error)],
        );
        let mut x = m.clone();
        x.events[i].meta.direction = Some(next_sender(e.sender()));
        push(
            "change-sender",
            e.name.clone(),
            x,
            vec![(&rules::DIRECTION_CHANGED, Level::Error)],
        );
        let mut x = m.clone();
        x.events[i].name = format!("{}.mutant", e.name);
        push(
            "rename-event",
            e.name.clone(),
            x,
            vec![(&rules::EVENT_RENAMED, Level::Error)],
        );
    }
    let stored = stored_closure(m);
    for (ti, t) in m.types.iter().enumerate() {
        let dir = dir_of(dirs, m, &t.name);
        // Stored data travels both ways, whichever way the tables send it.
        if stored.contains(&t.name) && dir != Direction::Both {
            push(
                "stored-both-ways",
                t.name.clone(),
                m.clone(),
                vec![(&rules::UNMODELLED_CHANGE, Level::Error)],
            );
        }
        let mut x = m.clone();
        x.types[ti].meta.stored = !t.meta.stored;
        let rule = if t.meta.stored {
            &rules::STORED_ATTRIBUTE_REMOVED
        } else {
            &rules::STORED_ATTRIBUTE_ADDED
        };
        push(
            if t.meta.stored {
                "drop-stored"
            } else {
                "add-stored"
            },
            t.name.clone(),
            x,
            vec![(rule, level(rule, dir))],
        );
        if t.meta.direction.is_some() {
            let mut x = m.clone();
            x.types[ti].meta.direction = None;
            push(
                "drop-direction",
                t.name.clone(),
                x,
                vec![(&rules::DIRECTION_CHANGED, Level::Error)],
            );
        }
        match &t.kind {
            TypeDefKind::Enum(e) => {
                for (vi, v) in e.values.iter().enumerate().filter(|(_, v)| v.meta.legacy) {
                    let mut x = m.clone();
                    if let TypeDefKind::Enum(xe) = &mut x.types[ti].kind {
                        xe.values[vi].meta.legacy = false;
                    }
                    push(
                        "drop-legacy",
                        format!("{}.{}", t.name, value_key(v)),
                        x,
                        vec![(&rules::LEGACY_ATTRIBUTE_REMOVED, Level::Error)],
                    );
                }
                if e.open {
                    let mut x = m.clone();
                    if let TypeDefKind::Enum(xe) = &mut x.types[ti].kind {
                        xe.open = false;
                    }
                    let rule = &rules::OPEN_ENUM_CLOSED;
                    push(
                        "drop-open",
                        t.name.clone(),
                        x,
                        vec![
                            (rule, level(rule, dir)),
                            (&rules::RUST_OPEN_ENUM_CLOSED, Level::Info),
                        ],
                    );
                }
            }
            TypeDefKind::Union(u) => {
                for (vi, v) in u.variants.iter().enumerate() {
                    let tag = v.tag.clone().unwrap_or_default();
                    let vdir = v.meta.direction.unwrap_or(dir);
                    if v.meta.accepts.is_some() {
                        let mut x = m.clone();
                        if let TypeDefKind::Union(xu) = &mut x.types[ti].kind {
                            xu.variants[vi].meta.accepts = None;
                        }
                        let rule = &rules::GATE_CHANGED;
                        push(
                            "drop-accepts",
                            format!("{}.{tag:?}", t.name),
                            x,
                            vec![(rule, level(rule, vdir))],
                        );
                    }
                    if v.meta.direction.is_some() {
                        let mut x = m.clone();
                        if let TypeDefKind::Union(xu) = &mut x.types[ti].kind {
                            xu.variants[vi].meta.direction = None;
                        }
                        let rule = &rules::DIRECTION_CHANGED;
                        push(
                            "drop-direction",
                            format!("{}.{tag:?}", t.name),
                            x,
                            vec![(rule, level(rule, vdir))],
                        );
                    }
                }
                if matches!(u.tag, UnionTag::Untagged) && u.variants.len() > 1 {
                    let mut x = m.clone();
                    if let TypeDefKind::Union(xu) = &mut x.types[ti].kind {
                        xu.variants.swap(0, 1);
                    }
                    let rule = if literals_apart(m, &u.variants[0].ty, &u.variants[1].ty) {
                        &rules::UNION_VARIANTS_REORDERED_DISJOINT
                    } else {
                        &rules::UNION_VARIANTS_REORDERED
                    };
                    push(
                        "reorder-untagged",
                        t.name.clone(),
                        x,
                        vec![(rule, level(rule, dir))],
                    );
                }
            }
            TypeDefKind::Struct(st) => {
                for (fi, f) in st.fields.iter().enumerate() {
                    let place = format!("{}.{}", t.name, f.name);
                    let with = |g: &dyn Fn(&mut Field)| {
                        let mut x = m.clone();
                        if let TypeDefKind::Struct(s) = &mut x.types[ti].kind {
                            g(&mut s.fields[fi]);
                        }
                        x
                    };
                    let kind_change = |rule: &'static Rule| vec![(rule, level(rule, dir))];
                    match &f.ty.kind {
                        // A closed enum made a string: every old value is still a string.
                        TyKind::Ref(r)
                            if matches!(
                                m.own_type(&r.name).map(|d| &d.kind),
                                Some(TypeDefKind::Enum(Enum { open: false, .. }))
                            ) && r.protocol.is_none() =>
                        {
                            let x = with(&|f| f.ty = ty(TyKind::String(Limits::none(), None)));
                            push(
                                "enum-to-string",
                                place.clone(),
                                x,
                                kind_change(&rules::KIND_WIDENED),
                            );
                        }
                        TyKind::String(l, format) => {
                            if l.min.is_none() && l.max.is_none() {
                                let x = with(&|f| {
                                    f.ty = ty(TyKind::Literal(Literal::String("zz".into())))
                                });
                                // A string of a format (MCP's `uri`) held to a literal: the
                                // literal need not be of the format, so it is another type
                                // either way, not a narrowing.
                                let expect = if format.is_some() {
                                    vec![(&rules::TYPE_CHANGED, Level::Error)]
                                } else {
                                    kind_change(&rules::KIND_NARROWED)
                                };
                                push("string-to-literal", place.clone(), x, expect);
                            }
                            // Respelled: `min = 0` is what every length has.
                            if l.min.is_none() {
                                let x = with(&|f| {
                                    if let TyKind::String(l, _) = &mut f.ty.kind {
                                        l.min = Some(0);
                                    }
                                });
                                push("respell-bound", place.clone(), x, vec![]);
                            }
                        }
                        TyKind::Literal(Literal::String(_)) => {
                            let x = with(&|f| f.ty = ty(TyKind::String(Limits::none(), None)));
                            push(
                                "literal-to-string",
                                place.clone(),
                                x,
                                kind_change(&rules::KIND_WIDENED),
                            );
                        }
                        TyKind::Literal(Literal::Bool(_)) => {
                            let x = with(&|f| f.ty = ty(TyKind::Boolean));
                            push(
                                "literal-to-boolean",
                                place.clone(),
                                x,
                                kind_change(&rules::KIND_WIDENED),
                            );
                        }
                        TyKind::Int(l, _) if l.max.is_none() => {
                            let x = with(&|f| {
                                if let TyKind::Int(l, _) = &mut f.ty.kind {
                                    l.max = Some(9_007_199_254_740_991);
                                }
                            });
                            push("respell-bound", place.clone(), x, vec![]);
                        }
                        _ => {}
                    }
                    match &f.default {
                        // Respelled: `40` written `40.0`.
                        Some(serde_json::Value::Number(n)) if n.is_i64() || n.is_u64() => {
                            let v = n.as_f64().unwrap_or_default();
                            let x = with(&|f| {
                                f.default =
                                    serde_json::Number::from_f64(v).map(serde_json::Value::Number)
                            });
                            push("respell-default", place.clone(), x, vec![]);
                        }
                        None if f.optional && matches!(f.ty.kind, TyKind::Int(..)) => {
                            let x = with(&|f| f.default = Some(serde_json::json!(1)));
                            let rule = &rules::DEFAULT_ADDED;
                            push(
                                "add-default",
                                place.clone(),
                                x,
                                vec![(rule, level(rule, dir))],
                            );
                        }
                        _ => {}
                    }
                }
            }
            TypeDefKind::Alias(_) => {}
        }
    }
    out
}

/// The enums and unions of `base` that may not grow there and may in `head` (by name).
fn newly_growing<'a>(base: &'a Checked, head: &'a Checked) -> impl Iterator<Item = &'a str> {
    base.types.iter().filter_map(move |bd| {
        let hd = head.own_type(&bd.name)?;
        let grows = |d: &TypeDef| matches!(d.kind, TypeDefKind::Enum(_) | TypeDefKind::Union(_));
        (grows(bd) && grows(hd) && !base.may_grow(bd) && head.may_grow(hd))
            .then_some(bd.name.as_str())
    })
}

#[test]
fn mutants_of_the_real_schemas_are_caught() {
    let mut total = 0usize;
    let mut caught = 0usize;
    let mut by_kind: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut missed = Vec::new();
    for dir in ["schema/agent", "schema/connect", "schema/mcp", "schema/acp"] {
        let path = root().join(dir);
        let has_files = std::fs::read_dir(&path)
            .map(|mut d| d.next().is_some())
            .unwrap_or(false);
        if !has_files {
            eprintln!("compat mutants: {dir} is empty or missing; skipped");
            continue;
        }
        let opts = LoadOptions {
            display_root: Some(root()),
            ..LoadOptions::default()
        };
        let model = match load_dir(&path, &opts) {
            Ok(m) => Checked::new(m),
            Err(e) => panic!("{dir} does not load:\n{}", e.render()),
        };
        let (total0, caught0) = (total, caught);
        for mutant in mutants(&model) {
            let mutated = Checked::new(mutant.model);
            let findings = compat::diff(&model, &mutated);
            let mut got: Vec<(&str, Level)> =
                findings.iter().map(|f| (f.rule.id, f.level)).collect();
            let mut want: Vec<(&str, Level)> =
                mutant.expect.iter().map(|(r, l)| (r.id, *l)).collect();
            // A mutant that changes the way a type travels may make an enum or a union one that
            // may grow (`#[non_exhaustive]` in Rust), whatever it mutated.
            want.extend(
                newly_growing(&model, &mutated)
                    .map(|_| (rules::RUST_NON_EXHAUSTIVE_ADDED.id, Level::Info)),
            );
            // A mutant that widens a type may make a variant of an untagged union that holds
            // it take a later variant's values (`union-variant-widened-over`): allowed beside
            // what it must yield.
            let widens = matches!(
                mutant.kind,
                "drop-field"
                    | "rename-field"
                    | "make-optional"
                    | "make-nullable"
                    | "change-type"
                    | "literal-to-string"
                    | "enum-to-string"
                    | "loosen-limit"
            );
            let over = (rules::UNION_VARIANT_WIDENED_OVER.id, Level::Error);
            if widens && got.contains(&over) && !want.contains(&over) {
                want.push(over);
            }
            // An alias is judged at each use, by the way that use travels: a rule once per
            // way, compared at its strictest level.
            let strictest = |v: &mut Vec<(&str, Level)>| {
                v.sort_by(|a, b| a.0.cmp(b.0).then(b.1.cmp(&a.1)));
                v.dedup_by(|a, b| a.0 == b.0);
            };
            strictest(&mut got);
            strictest(&mut want);
            let entry = by_kind.entry(mutant.kind).or_default();
            entry.0 += 1;
            total += 1;
            let breaking = want.iter().any(|(_, l)| *l == Level::Error);
            if got == want && compat::is_breaking(&findings) == breaking {
                caught += 1;
                entry.1 += 1;
            } else {
                let got: Vec<String> = findings
                    .iter()
                    .map(|f| format!("{}:{}:{}", f.rule.id, f.level, f.subject))
                    .collect();
                missed.push(format!(
                    "{dir} {} at {}: want {want:?}, got {got:?}",
                    mutant.kind, mutant.place
                ));
            }
        }
        println!(
            "compat mutants: {dir}: {} of {} caught",
            caught - caught0,
            total - total0
        );
    }
    let kinds: Vec<String> = by_kind
        .iter()
        .map(|(k, (n, c))| format!("{k} {c}/{n}"))
        .collect();
    println!(
        "compat mutants: {caught} of {total} caught ({})",
        kinds.join(", ")
    );
    assert!(
        missed.is_empty(),
        "{} mutants missed:\n{}",
        missed.len(),
        missed.join("\n")
    );
}

/// An enum value in a finding's subject, as the differ writes it: `"idle"`, `2`.
fn value_key(v: &EnumValue) -> String {
    match &v.value {
        EnumLit::Str(s) => format!("{s:?}"),
        EnumLit::Int { value, .. } => value.to_string(),
    }
}
