//! Mutation testing over the real schemas (`schema/agent`, `schema/connect`).
//!
//! Each kind of edit is applied to the loaded model at every place it applies (drop a field, add
//! a required or an optional one, add an enum value or a union variant, tighten or loosen a
//! limit, make a field optional or required or nullable, change its type, rename it, drop or add
//! a request, drop an event, drop an enum value or a variant, rename a named type). The expected
//! findings of each mutant are worked out here from the rule table and the way the mutated type
//! travels, and the differ must yield exactly those: a mutant is caught when it does. The count
//! is printed (`cargo test -p contracts-codegen --test compat_mutants -- --nocapture`).

use contracts_codegen::compat::{self, Level, reach, rules};
use contracts_codegen::load::{LoadOptions, load_dir};
use contracts_codegen::model::*;
use std::collections::BTreeMap;
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
    expect: Vec<(&'static str, Level)>,
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
        ty: ty(TyKind::String(Limits::none())),
    }
}

/// The way the named type `name` of `m` travels (both when nothing reaches it).
fn dir_of(dirs: &reach::Directions, m: &Model, name: &str) -> Direction {
    dirs.get(&(m.name.clone(), name.to_string()))
        .unwrap_or(Direction::Both)
}

fn level(rule: &str, dir: Direction) -> Level {
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
        TyKind::String(l) | TyKind::Array(_, l) => Some(Bounds::U(l)),
        TyKind::Int(l) | TyKind::Number(l) => Some(Bounds::I(l)),
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

/// Every mutant of `m`, with its expected findings.
fn mutants(m: &Model) -> Vec<Mutant> {
    let dirs = reach::directions(m);
    let mut out = Vec::new();
    let mut push =
        |kind: &'static str, place: String, model: Model, expect: Vec<(&'static str, Level)>| {
            out.push(Mutant {
                kind,
                place,
                model,
                expect,
            });
        };
    for (ti, t) in m.types.iter().enumerate() {
        let dir = dir_of(&dirs, m, &t.name);
        // Renaming a named type changes no wire name.
        {
            let mut x = m.clone();
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
            // Paired by the places it is used, or (used nowhere) by its shape.
            push("rename-type", t.name.clone(), x, vec![]);
        }
        match &t.kind {
            TypeDefKind::Struct(s) => {
                for (fi, f) in s.fields.iter().enumerate() {
                    let place = format!("{}.{}", t.name, f.name);
                    let with = |g: &dyn Fn(&mut Struct)| {
                        let mut x = m.clone();
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
                        vec![("field-removed", level("field-removed", dir))],
                    );
                    let x = with(&|s| s.fields[fi].name = format!("{}Mutant", s.fields[fi].name));
                    push(
                        "rename-field",
                        place.clone(),
                        x,
                        vec![("field-renamed", level("field-renamed", dir))],
                    );
                    if f.optional {
                        let x = with(&|s| {
                            s.fields[fi].optional = false;
                            s.fields[fi].default = None;
                        });
                        let mut e =
                            vec![("optional-to-required", level("optional-to-required", dir))];
                        if f.default.is_some() {
                            e.push(("default-changed", level("default-changed", dir)));
                        }
                        push("make-required", place.clone(), x, e);
                    } else {
                        let x = with(&|s| s.fields[fi].optional = true);
                        push(
                            "make-optional",
                            place.clone(),
                            x,
                            vec![("required-to-optional", level("required-to-optional", dir))],
                        );
                    }
                    if !is_nullable(&f.ty) && !matches!(f.ty.kind, TyKind::Unknown) {
                        let x = with(&|s| {
                            let inner = s.fields[fi].ty.clone();
                            s.fields[fi].ty = ty(TyKind::Nullable(Box::new(inner)));
                        });
                        let l = rules::verdict(Level::Info, Level::Error, dir);
                        push(
                            "make-nullable",
                            place.clone(),
                            x,
                            vec![("nullability-changed", l)],
                        );
                    }
                    if matches!(f.ty.kind, TyKind::String(_)) {
                        let x = with(&|s| s.fields[fi].ty = ty(TyKind::Boolean));
                        push(
                            "change-type",
                            place.clone(),
                            x,
                            vec![("type-changed", level("type-changed", dir))],
                        );
                    }
                    let mut x = m.clone();
                    if let TypeDefKind::Struct(s) = &mut x.types[ti].kind
                        && bounds(&mut s.fields[fi].ty).is_some_and(tighten)
                    {
                        push(
                            "tighten-limit",
                            place.clone(),
                            x,
                            vec![("constraint-tightened", level("constraint-tightened", dir))],
                        );
                    }
                    let mut x = m.clone();
                    if let TypeDefKind::Struct(s) = &mut x.types[ti].kind
                        && bounds(&mut s.fields[fi].ty).is_some_and(loosen)
                    {
                        push(
                            "loosen-limit",
                            place.clone(),
                            x,
                            vec![("constraint-loosened", level("constraint-loosened", dir))],
                        );
                    }
                }
                let mut x = m.clone();
                if let TypeDefKind::Struct(s) = &mut x.types[ti].kind {
                    s.fields.push(new_field("zzMutant", false));
                }
                push(
                    "add-required-field",
                    t.name.clone(),
                    x,
                    vec![("field-added-required", level("field-added-required", dir))],
                );
                let mut x = m.clone();
                if let TypeDefKind::Struct(s) = &mut x.types[ti].kind {
                    s.fields.push(new_field("zzMutant", true));
                }
                push(
                    "add-optional-field",
                    t.name.clone(),
                    x,
                    vec![("field-added-optional", Level::Info)],
                );
            }
            TypeDefKind::Alias(_) => {
                let mut x = m.clone();
                if let TypeDefKind::Alias(a) = &mut x.types[ti].kind
                    && bounds(a).is_some_and(tighten)
                {
                    push(
                        "tighten-limit",
                        t.name.clone(),
                        x,
                        vec![("constraint-tightened", level("constraint-tightened", dir))],
                    );
                }
                let mut x = m.clone();
                if let TypeDefKind::Alias(a) = &mut x.types[ti].kind
                    && bounds(a).is_some_and(loosen)
                {
                    push(
                        "loosen-limit",
                        t.name.clone(),
                        x,
                        vec![("constraint-loosened", level("constraint-loosened", dir))],
                    );
                }
            }
            TypeDefKind::Enum(e) => {
                let mut x = m.clone();
                if let TypeDefKind::Enum(xe) = &mut x.types[ti].kind {
                    let mut v = xe.values[0].clone();
                    v.value = "zz-mutant".into();
                    v.meta = Meta::default();
                    xe.values.push(v);
                }
                let l = if e.open {
                    Level::Info
                } else {
                    level("enum-value-added", dir)
                };
                push(
                    "add-enum-value",
                    t.name.clone(),
                    x,
                    vec![("enum-value-added", l)],
                );
                if e.values.len() > 1 {
                    for (vi, v) in e.values.iter().enumerate() {
                        let mut x = m.clone();
                        if let TypeDefKind::Enum(xe) = &mut x.types[ti].kind {
                            xe.values.remove(vi);
                        }
                        let expect = if v.meta.legacy {
                            ("legacy-value-removed", Level::Error)
                        } else if e.open {
                            ("enum-value-removed", Level::Warning)
                        } else {
                            ("enum-value-removed", level("enum-value-removed", dir))
                        };
                        push(
                            "drop-enum-value",
                            format!("{}.{:?}", t.name, v.value),
                            x,
                            vec![expect],
                        );
                    }
                }
            }
            TypeDefKind::Union(u) => {
                let tagged = matches!(u.tag, UnionTag::Tagged { .. });
                let mut x = m.clone();
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
                    }),
                });
                if let TypeDefKind::Union(xu) = &mut x.types[ti].kind {
                    xu.variants.push(Variant {
                        tag: tagged.then(|| "zz-mutant".to_string()),
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
                    vec![("union-variant-added", level("union-variant-added", dir))],
                );
                if u.variants.len() > 1 {
                    for (vi, v) in u.variants.iter().enumerate() {
                        let mut x = m.clone();
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
                                "union-variant-removed",
                                level("union-variant-removed", vdir),
                            )],
                        );
                    }
                }
            }
        }
    }
    for (i, r) in m.requests.iter().enumerate() {
        let mut x = m.clone();
        x.requests.remove(i);
        push(
            "drop-request",
            r.name.clone(),
            x,
            vec![("request-removed", Level::Error)],
        );
    }
    if let Some(r) = m.requests.first() {
        let mut x = m.clone();
        let mut n = r.clone();
        n.name = "zz.mutant".into();
        x.requests.push(n);
        push(
            "add-request",
            "zz.mutant".into(),
            x,
            vec![("request-added", Level::Info)],
        );
    }
    for (i, e) in m.events.iter().enumerate() {
        let mut x = m.clone();
        x.events.remove(i);
        push(
            "drop-event",
            e.name.clone(),
            x,
            vec![("event-removed", Level::Error)],
        );
    }
    push("identity", m.name.clone(), m.clone(), vec![]);
    out
}

#[test]
fn mutants_of_the_real_schemas_are_caught() {
    let mut total = 0usize;
    let mut caught = 0usize;
    let mut by_kind: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut missed = Vec::new();
    for dir in ["schema/agent", "schema/connect"] {
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
            Ok(m) => m,
            Err(e) => panic!("{dir} does not load:\n{}", e.render()),
        };
        let (total0, caught0) = (total, caught);
        for mutant in mutants(&model) {
            let findings = compat::diff(&model, &mutant.model);
            let mut got: Vec<(&str, Level)> = findings.iter().map(|f| (f.rule, f.level)).collect();
            let mut want = mutant.expect.clone();
            got.sort();
            want.sort();
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
                    .map(|f| format!("{}:{}:{}", f.rule, f.level, f.subject))
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
