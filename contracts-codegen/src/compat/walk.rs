//! The walk: pairs base and head by wire names and reports each difference.
//!
//! Requests and events are paired by name; their payloads and results are compared structurally,
//! so named types are paired by the place they are used, not by their names. Each pair of named
//! types is compared once, judged by the way the base type travels. Named types no walk reached
//! are paired by name at the end; a named type that is gone is `definition-removed`.

use super::fingerprint::Printer;
use super::reach::{self, Directions};
use super::{DefKey, Finding, Level, def_key, resolve, rules, unalias};
use crate::model::{
    Direction, Enum, Field, Limits, Literal, Loc, Model, Struct, Ty, TyKind, TypeDef, TypeDefKind,
    Union, UnionTag,
};
use std::collections::{HashMap, HashSet};
use std::fmt::Display;
use std::sync::Arc;

/// Where a comparison stands: the way it travels, its wire path and its places.
#[derive(Clone)]
struct Ctx {
    dir: Direction,
    subject: String,
    loc: Loc,
    base_loc: Loc,
}

pub(super) struct Differ<'a> {
    base: &'a Model,
    head: &'a Model,
    bdirs: Directions,
    hdirs: Directions,
    /// Pairs of named types compared (or being compared), with whether they yielded a finding.
    memo: HashMap<(DefKey, DefKey), bool>,
    paired_base: HashSet<DefKey>,
    paired_head: HashSet<DefKey>,
    /// Every capability (`#[accepts]`) the base already gates something with.
    base_accepts: HashSet<String>,
    /// The protocol's directory in each model (`schema/agent`).
    base_root: String,
    head_root: String,
    bprint: Printer,
    hprint: Printer,
    out: Vec<Finding>,
}

impl<'a> Differ<'a> {
    pub(super) fn new(base: &'a Model, head: &'a Model) -> Self {
        Differ {
            base,
            head,
            bdirs: reach::directions(base),
            hdirs: reach::directions(head),
            memo: HashMap::new(),
            paired_base: HashSet::new(),
            paired_head: HashSet::new(),
            base_accepts: capabilities(base),
            base_root: root_dir(base),
            head_root: root_dir(head),
            bprint: Printer::new(),
            hprint: Printer::new(),
            out: Vec::new(),
        }
    }

    pub(super) fn run(mut self) -> Vec<Finding> {
        self.requests();
        self.events();
        self.definitions();
        self.out
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        rule: &'static str,
        level: Level,
        dir: Direction,
        subject: impl Into<String>,
        loc: &Loc,
        base_loc: Option<&Loc>,
        message: String,
    ) {
        let hint = hint(rule, level, dir).to_string();
        self.out.push(Finding {
            rule,
            level,
            direction: dir,
            subject: subject.into(),
            loc: loc.clone(),
            base_loc: base_loc.cloned(),
            message,
            hint,
        });
    }

    /// Report `rule` at the context's place, at the level its catalogue entry gives.
    fn at(&mut self, rule: &'static str, cx: &Ctx, message: String) {
        let level = rules::level(rule, cx.dir);
        self.push(
            rule,
            level,
            cx.dir,
            cx.subject.clone(),
            &cx.loc,
            Some(&cx.base_loc),
            message,
        );
    }

    // ----- roots -----

    fn requests(&mut self) {
        let (base, head) = (self.base, self.head);
        for (i, r) in base.requests.iter().enumerate() {
            let Some(h) = head.request(&r.name) else {
                let next = self.neighbour(&base.requests, i, &r.loc, |n| {
                    head.request(&n.name).map(|h| h.loc.clone())
                });
                let loc = self.anchor(&r.loc, next);
                let level = rules::level("request-removed", Direction::Both);
                let msg = format!("request `{}` was removed", r.name);
                self.push(
                    "request-removed",
                    level,
                    Direction::Both,
                    r.name.clone(),
                    &loc,
                    Some(&r.loc),
                    msg,
                );
                continue;
            };
            let cx = Ctx {
                dir: Direction::ClientToServer,
                subject: format!("{}.payload", r.name),
                loc: h.payload.loc.clone(),
                base_loc: r.payload.loc.clone(),
            };
            self.root(&r.payload, &h.payload, &cx);
            let cx = Ctx {
                dir: Direction::ServerToClient,
                subject: format!("{}.result", r.name),
                loc: h.result.loc.clone(),
                base_loc: r.result.loc.clone(),
            };
            self.root(&r.result, &h.result, &cx);
        }
        for h in &head.requests {
            if base.request(&h.name).is_none() {
                let msg = format!("request `{}` was added", h.name);
                self.push(
                    "request-added",
                    Level::Info,
                    Direction::Both,
                    h.name.clone(),
                    &h.loc,
                    None,
                    msg,
                );
            }
        }
    }

    fn events(&mut self) {
        let (base, head) = (self.base, self.head);
        for (i, e) in base.events.iter().enumerate() {
            let Some(h) = head.event(&e.name) else {
                let next = self.neighbour(&base.events, i, &e.loc, |n| {
                    head.event(&n.name).map(|h| h.loc.clone())
                });
                let loc = self.anchor(&e.loc, next);
                let dir = Direction::ServerToClient;
                let msg = format!("event `{}` was removed", e.name);
                self.push(
                    "event-removed",
                    rules::level("event-removed", dir),
                    dir,
                    e.name.clone(),
                    &loc,
                    Some(&e.loc),
                    msg,
                );
                continue;
            };
            let cx = Ctx {
                dir: Direction::ServerToClient,
                subject: format!("{}.payload", e.name),
                loc: h.payload.loc.clone(),
                base_loc: e.payload.loc.clone(),
            };
            if e.meta.accepts != h.meta.accepts {
                let msg = format!(
                    "event `{}` is now sent to peers that accept {} (was {})",
                    e.name,
                    show_accepts(&h.meta.accepts),
                    show_accepts(&e.meta.accepts)
                );
                let cx = Ctx {
                    subject: e.name.clone(),
                    loc: h.loc.clone(),
                    base_loc: e.loc.clone(),
                    ..cx.clone()
                };
                self.at("unmodelled-change", &cx, msg);
            }
            self.root(&e.payload, &h.payload, &cx);
        }
        for h in &head.events {
            if base.event(&h.name).is_none() {
                let dir = Direction::ServerToClient;
                let (level, gate) = match &h.meta.accepts {
                    Some(a) if !self.base_accepts.contains(a) => (Level::Info, new_gate(a)),
                    _ => (rules::level("event-added", dir), String::new()),
                };
                let msg = format!("event `{}` was added{gate}", h.name);
                self.push("event-added", level, dir, h.name.clone(), &h.loc, None, msg);
            }
        }
    }

    /// Compare a table entry's payload or result, then apply the fail-closed net.
    fn root(&mut self, b: &'a Ty, h: &'a Ty, cx: &Ctx) {
        let found = self.ty(self.base, b, self.head, h, cx);
        if !found {
            let fb = self.bprint.ty(self.base, b);
            let fh = self.hprint.ty(self.head, h);
            if fb != fh {
                let msg = format!(
                    "`{}` changed in a way the differ does not model",
                    cx.subject
                );
                self.at("unmodelled-change", cx, msg);
            }
        }
    }

    /// Named types: those with a `#[direction]`, then every other one by name.
    fn definitions(&mut self) {
        let (base, head) = (self.base, self.head);
        let mut order: Vec<&TypeDef> = base
            .types
            .iter()
            .filter(|t| t.meta.direction.is_some())
            .collect();
        order.extend(base.types.iter().filter(|t| t.meta.direction.is_none()));
        for bd in order {
            let bk = def_key(base, &bd.name);
            if self.paired_base.contains(&bk) {
                continue;
            }
            if let Some(hd) = head.own_type(&bd.name) {
                let dir = self.pair_dir(&bk, &def_key(head, &hd.name));
                let cx = Ctx {
                    dir,
                    subject: hd.name.clone(),
                    loc: hd.loc.clone(),
                    base_loc: bd.loc.clone(),
                };
                let found = self.defs(base, bd, head, hd, &cx);
                if !found {
                    let fb = self.bprint.ty(base, &named(bd));
                    let fh = self.hprint.ty(head, &named(hd));
                    if fb != fh {
                        let msg =
                            format!("`{}` changed in a way the differ does not model", bd.name);
                        self.at("unmodelled-change", &cx, msg);
                    }
                }
                continue;
            }
            if bd.synthetic {
                // Its place was compared (or removed) where it was written.
                continue;
            }
            if self.renamed(bd).is_some() {
                // Nothing refers to it, and a new type of the same shape took its place.
                continue;
            }
            let i = base
                .types
                .iter()
                .position(|t| t.name == bd.name)
                .unwrap_or(0);
            let next = self.neighbour(&base.types, i, &bd.loc, |n| {
                head.own_type(&n.name).map(|h| h.loc.clone())
            });
            let loc = self.anchor(&bd.loc, next);
            let dir = self.bdirs.get(&bk).unwrap_or(Direction::Both);
            let msg = format!("type `{}` was removed", bd.name);
            let level = rules::level("definition-removed", dir);
            self.push(
                "definition-removed",
                level,
                dir,
                bd.name.clone(),
                &loc,
                Some(&bd.loc),
                msg,
            );
        }
    }

    /// A head type that is new by name, not paired yet, of the same kind and the same shape as
    /// `bd`: the same type renamed. It is marked paired.
    fn renamed(&mut self, bd: &TypeDef) -> Option<&'a TypeDef> {
        let (base, head) = (self.base, self.head);
        let fb = self.bprint.ty(base, &named(bd));
        for hd in &head.types {
            let hk = def_key(head, &hd.name);
            if hd.synthetic != bd.synthetic
                || base.own_type(&hd.name).is_some()
                || self.paired_head.contains(&hk)
                || std::mem::discriminant(&hd.kind) != std::mem::discriminant(&bd.kind)
            {
                continue;
            }
            if self.hprint.ty(head, &named(hd)) == fb {
                self.paired_head.insert(hk);
                return Some(hd);
            }
        }
        None
    }

    /// The way a pair travels: the base type's way, else the head type's, else both.
    fn pair_dir(&self, bk: &DefKey, hk: &DefKey) -> Direction {
        self.bdirs
            .get(bk)
            .or_else(|| self.hdirs.get(hk))
            .unwrap_or(Direction::Both)
    }

    /// True when a base file and a head file are the same file of the protocol (paths are
    /// compared below each model's directory, so two checkouts in two places compare).
    fn same_file(&self, base_file: &str, head_file: &str) -> bool {
        below(base_file, &self.base_root) == below(head_file, &self.head_root)
    }

    /// The head place of the nearest base sibling of `items[i]` that survives in the same file:
    /// the next one, else the previous one.
    fn neighbour<T>(
        &self,
        items: &[T],
        i: usize,
        at: &Loc,
        head_loc: impl Fn(&T) -> Option<Loc>,
    ) -> Option<Loc> {
        let same = |l: &Loc| self.same_file(&at.file, &l.file);
        let next = items
            .get(i + 1..)
            .unwrap_or_default()
            .iter()
            .filter_map(&head_loc)
            .find(same);
        next.or_else(|| {
            items[..i.min(items.len())]
                .iter()
                .rev()
                .filter_map(&head_loc)
                .find(same)
        })
    }

    /// Where a removal is anchored: the next surviving sibling in the same file, else the file,
    /// else (the file is gone too) its directory, else the protocol's directory.
    fn anchor(&self, base_loc: &Loc, next: Option<Loc>) -> Loc {
        if let Some(l) = next {
            return l;
        }
        let file = self
            .head
            .files
            .iter()
            .find(|f| self.same_file(&base_loc.file, &f.display));
        if let Some(f) = file {
            return Loc {
                file: f.display.clone(),
                line: 1,
                col: 1,
            };
        }
        let rel = below(&base_loc.file, &self.base_root);
        let dir = match rel.rfind('/') {
            Some(i) => format!("{}/{}", self.head_root, &rel[..i]),
            None => self.head_root.clone(),
        };
        let survives = self
            .head
            .files
            .iter()
            .any(|f| f.display.starts_with(&format!("{dir}/")));
        let dir = if survives || self.head.files.is_empty() {
            dir
        } else {
            self.head_root.clone()
        };
        Loc {
            file: Arc::from(dir.trim_start_matches('/')),
            line: 0,
            col: 0,
        }
    }

    // ----- types -----

    /// Compare two type expressions; true when anything was reported.
    fn ty(&mut self, bm: &'a Model, b: &'a Ty, hm: &'a Model, h: &'a Ty, cx: &Ctx) -> bool {
        if let (TyKind::Ref(br), TyKind::Ref(hr)) = (&b.kind, &h.kind) {
            match (resolve(bm, br), resolve(hm, hr)) {
                (Some((bm2, bd)), Some((hm2, hd))) => {
                    if is_alias(bd) == is_alias(hd) {
                        return self.defs(bm2, bd, hm2, hd, cx);
                    }
                }
                _ => {
                    let msg = format!("cannot resolve `{}` or `{}`", br.name, hr.name);
                    self.at("unmodelled-change", cx, msg);
                    return true;
                }
            }
        }
        let (bm, b) = unalias(bm, b);
        let (hm, h) = unalias(hm, h);
        use TyKind as K;
        match (&b.kind, &h.kind) {
            (K::Ref(br), K::Ref(hr)) => match (resolve(bm, br), resolve(hm, hr)) {
                (Some((bm2, bd)), Some((hm2, hd))) => self.defs(bm2, bd, hm2, hd, cx),
                _ => {
                    let msg = format!("cannot resolve `{}` or `{}`", br.name, hr.name);
                    self.at("unmodelled-change", cx, msg);
                    true
                }
            },
            (K::Unknown, K::Unknown) | (K::Boolean, K::Boolean) => false,
            (_, K::Unknown) => {
                let msg = format!(
                    "`{}` was {}, now accepts any JSON value",
                    cx.subject,
                    describe(bm, b)
                );
                self.at("constraint-loosened", cx, msg);
                true
            }
            (K::Unknown, _) => {
                let msg = format!(
                    "`{}` accepted any JSON value, now only {}",
                    cx.subject,
                    describe(hm, h)
                );
                self.at("constraint-tightened", cx, msg);
                true
            }
            (K::Nullable(bi), K::Nullable(hi)) => self.ty(bm, bi, hm, hi, cx),
            (K::Nullable(bi), _) => {
                let level = rules::verdict(Level::Error, Level::Info, cx.dir);
                let msg = format!("`{}` no longer admits null", cx.subject);
                self.push(
                    "nullability-changed",
                    level,
                    cx.dir,
                    cx.subject.clone(),
                    &cx.loc,
                    Some(&cx.base_loc),
                    msg,
                );
                self.ty(bm, bi, hm, h, cx);
                true
            }
            (_, K::Nullable(hi)) => {
                let level = rules::verdict(Level::Info, Level::Error, cx.dir);
                let msg = format!("`{}` now admits null", cx.subject);
                self.push(
                    "nullability-changed",
                    level,
                    cx.dir,
                    cx.subject.clone(),
                    &cx.loc,
                    Some(&cx.base_loc),
                    msg,
                );
                self.ty(bm, b, hm, hi, cx);
                true
            }
            (K::String(bl), K::String(hl)) => self.limits("length", bl, hl, cx),
            (K::Int(bl), K::Int(hl)) | (K::Number(bl), K::Number(hl)) => {
                self.limits("value", bl, hl, cx)
            }
            (K::Int(bl), K::Number(hl)) => {
                let msg = format!("`{}` was an integer, now any number", cx.subject);
                self.at("constraint-loosened", cx, msg);
                self.limits("value", bl, hl, cx);
                true
            }
            (K::Number(bl), K::Int(hl)) => {
                let msg = format!("`{}` was any number, now only integers", cx.subject);
                self.at("constraint-tightened", cx, msg);
                self.limits("value", bl, hl, cx);
                true
            }
            (K::Literal(a), K::Literal(c)) if a == c => false,
            (K::Array(bi, bl), K::Array(hi, hl)) => {
                let a = self.limits("item count", bl, hl, cx);
                let cx2 = Ctx {
                    subject: format!("{}[]", cx.subject),
                    ..cx.clone()
                };
                let b2 = self.ty(bm, bi, hm, hi, &cx2);
                a || b2
            }
            (K::Map(bi), K::Map(hi)) => {
                let cx2 = Ctx {
                    subject: format!("{}{{}}", cx.subject),
                    ..cx.clone()
                };
                self.ty(bm, bi, hm, hi, &cx2)
            }
            _ => {
                let msg = format!(
                    "`{}` was {}, now {}",
                    cx.subject,
                    describe(bm, b),
                    describe(hm, h)
                );
                self.at("type-changed", cx, msg);
                true
            }
        }
    }

    /// Compare bounds: each bound that moved is one finding.
    fn limits<T: Copy + Ord + Display>(
        &mut self,
        what: &str,
        b: &Limits<T>,
        h: &Limits<T>,
        cx: &Ctx,
    ) -> bool {
        let mut found = false;
        let show = |v: Option<T>| v.map(|v| v.to_string()).unwrap_or_else(|| "none".into());
        for (bound, bv, hv) in [("min", b.min, h.min), ("max", b.max, h.max)] {
            if bv == hv {
                continue;
            }
            let tighter = match (bv, hv) {
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(x), Some(y)) => (bound == "min") == (y > x),
                (None, None) => continue,
            };
            let rule = if tighter {
                "constraint-tightened"
            } else {
                "constraint-loosened"
            };
            let msg = format!(
                "`{}`: {bound} {what} {} -> {}",
                cx.subject,
                show(bv),
                show(hv)
            );
            self.at(rule, cx, msg);
            found = true;
        }
        found
    }

    /// Compare two named types once per pair; judged by the way the pair travels.
    fn defs(
        &mut self,
        bm: &'a Model,
        bd: &'a TypeDef,
        hm: &'a Model,
        hd: &'a TypeDef,
        cx: &Ctx,
    ) -> bool {
        let bk = def_key(bm, &bd.name);
        let hk = def_key(hm, &hd.name);
        let key = (bk.clone(), hk.clone());
        if let Some(found) = self.memo.get(&key) {
            return *found;
        }
        self.memo.insert(key.clone(), false);
        self.paired_base.insert(bk.clone());
        self.paired_head.insert(hk.clone());
        let dir = self.pair_dir(&bk, &hk);
        let subject = if hd.synthetic {
            cx.subject.clone()
        } else {
            hd.name.clone()
        };
        let dcx = Ctx {
            dir,
            subject,
            loc: hd.loc.clone(),
            base_loc: bd.loc.clone(),
        };
        use TypeDefKind as D;
        let found = match (&bd.kind, &hd.kind) {
            (D::Alias(a), D::Alias(c)) => {
                let acx = Ctx {
                    loc: c.loc.clone(),
                    base_loc: a.loc.clone(),
                    ..dcx
                };
                self.ty(bm, a, hm, c, &acx)
            }
            (D::Struct(a), D::Struct(c)) => self.structs(bm, a, hm, c, &dcx),
            (D::Enum(a), D::Enum(c)) => self.enums(a, c, &dcx),
            (D::Union(a), D::Union(c)) => self.unions(bm, a, hm, c, &dcx),
            _ => {
                let msg = format!(
                    "`{}` was {}, now {}",
                    dcx.subject,
                    def_kind(bd),
                    def_kind(hd)
                );
                self.at("type-changed", &dcx, msg);
                true
            }
        };
        self.memo.insert(key, found);
        found
    }

    fn structs(
        &mut self,
        bm: &'a Model,
        b: &'a Struct,
        hm: &'a Model,
        h: &'a Struct,
        cx: &Ctx,
    ) -> bool {
        let mut found = false;
        let mut removed: Vec<&Field> = Vec::new();
        for bf in &b.fields {
            match h.fields.iter().find(|f| f.name == bf.name) {
                Some(hf) => found |= self.field(bm, bf, hm, hf, cx),
                None => removed.push(bf),
            }
        }
        let added: Vec<&Field> = h
            .fields
            .iter()
            .filter(|f| !b.fields.iter().any(|g| g.name == f.name))
            .collect();
        let mut used = vec![false; added.len()];
        for bf in removed {
            found = true;
            let fb = self.bprint.ty(bm, &bf.ty);
            let mut renamed = None;
            for (i, af) in added.iter().enumerate() {
                if !used[i] && af.optional == bf.optional && self.hprint.ty(hm, &af.ty) == fb {
                    renamed = Some(i);
                    break;
                }
            }
            let subject = format!("{}.{}", cx.subject, bf.name);
            if let Some(i) = renamed {
                used[i] = true;
                let af = added[i];
                let msg = format!(
                    "field `{}` of `{}` was renamed to `{}`",
                    bf.name, cx.subject, af.name
                );
                let level = rules::level("field-renamed", cx.dir);
                self.push(
                    "field-renamed",
                    level,
                    cx.dir,
                    subject,
                    &af.loc,
                    Some(&bf.loc),
                    msg,
                );
            } else {
                let msg = format!("field `{}` was removed from `{}`", bf.name, cx.subject);
                let level = rules::level("field-removed", cx.dir);
                self.push(
                    "field-removed",
                    level,
                    cx.dir,
                    subject,
                    &cx.loc,
                    Some(&bf.loc),
                    msg,
                );
            }
        }
        for (i, af) in added.iter().enumerate() {
            if used[i] {
                continue;
            }
            found = true;
            let subject = format!("{}.{}", cx.subject, af.name);
            let (rule, what) = if af.optional {
                ("field-added-optional", "optional")
            } else {
                ("field-added-required", "required")
            };
            let msg = format!("{what} field `{}` was added to `{}`", af.name, cx.subject);
            self.push(
                rule,
                rules::level(rule, cx.dir),
                cx.dir,
                subject,
                &af.loc,
                None,
                msg,
            );
        }
        found
    }

    fn field(
        &mut self,
        bm: &'a Model,
        b: &'a Field,
        hm: &'a Model,
        h: &'a Field,
        cx: &Ctx,
    ) -> bool {
        let fcx = Ctx {
            dir: cx.dir,
            subject: format!("{}.{}", cx.subject, h.name),
            loc: h.loc.clone(),
            base_loc: b.loc.clone(),
        };
        let mut found = false;
        if b.optional && !h.optional {
            self.at(
                "optional-to-required",
                &fcx,
                format!("field `{}` is now required", fcx.subject),
            );
            found = true;
        }
        if !b.optional && h.optional {
            self.at(
                "required-to-optional",
                &fcx,
                format!("field `{}` is now optional", fcx.subject),
            );
            found = true;
        }
        if b.default != h.default {
            let show = |d: &Option<serde_json::Value>| {
                d.as_ref()
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "none".into())
            };
            let msg = format!(
                "the default of `{}` changed from {} to {}",
                fcx.subject,
                show(&b.default),
                show(&h.default)
            );
            self.at("default-changed", &fcx, msg);
            found = true;
        }
        let tcx = Ctx {
            loc: h.ty.loc.clone(),
            base_loc: b.ty.loc.clone(),
            ..fcx
        };
        found | self.ty(bm, &b.ty, hm, &h.ty, &tcx)
    }

    fn enums(&mut self, b: &'a Enum, h: &'a Enum, cx: &Ctx) -> bool {
        let mut found = false;
        if b.open != h.open {
            let (rule, msg) = if h.open {
                (
                    "constraint-loosened",
                    format!("enum `{}` is now open: any string is accepted", cx.subject),
                )
            } else {
                (
                    "constraint-tightened",
                    format!(
                        "enum `{}` is now closed: unknown values are refused",
                        cx.subject
                    ),
                )
            };
            self.at(rule, cx, msg);
            found = true;
        }
        for bv in &b.values {
            if h.values.iter().any(|v| v.value == bv.value) {
                continue;
            }
            found = true;
            let subject = format!("{}.{:?}", cx.subject, bv.value);
            if bv.meta.legacy {
                let msg = format!(
                    "legacy value {:?} was removed from `{}`; it can never be dropped",
                    bv.value, cx.subject
                );
                self.push(
                    "legacy-value-removed",
                    Level::Error,
                    cx.dir,
                    subject,
                    &cx.loc,
                    Some(&bv.loc),
                    msg,
                );
                continue;
            }
            // An open enum still accepts the value: only the documented set shrinks.
            let level = if h.open {
                Level::Warning
            } else {
                rules::level("enum-value-removed", cx.dir)
            };
            let msg = format!("value {:?} was removed from `{}`", bv.value, cx.subject);
            self.push(
                "enum-value-removed",
                level,
                cx.dir,
                subject,
                &cx.loc,
                Some(&bv.loc),
                msg,
            );
        }
        for hv in &h.values {
            if b.values.iter().any(|v| v.value == hv.value) {
                continue;
            }
            found = true;
            let subject = format!("{}.{:?}", cx.subject, hv.value);
            // An old client of an open enum already accepts any string.
            let level = if b.open {
                Level::Info
            } else {
                rules::level("enum-value-added", cx.dir)
            };
            let msg = format!("value {:?} was added to `{}`", hv.value, cx.subject);
            self.push(
                "enum-value-added",
                level,
                cx.dir,
                subject,
                &hv.loc,
                None,
                msg,
            );
        }
        found
    }

    fn unions(
        &mut self,
        bm: &'a Model,
        b: &'a Union,
        hm: &'a Model,
        h: &'a Union,
        cx: &Ctx,
    ) -> bool {
        match (&b.tag, &h.tag) {
            (UnionTag::Tagged { field: a, .. }, UnionTag::Tagged { field: c, loc }) => {
                if a != c {
                    let msg = format!(
                        "the tag key of `{}` changed from {a:?} to {c:?}",
                        cx.subject
                    );
                    let tcx = Ctx {
                        loc: loc.clone(),
                        ..cx.clone()
                    };
                    self.at("union-tag-changed", &tcx, msg);
                    return true;
                }
                self.tagged(bm, b, hm, h, cx)
            }
            (UnionTag::Untagged, UnionTag::Untagged) => self.untagged(bm, b, hm, h, cx),
            (bt, _) => {
                let was = if matches!(bt, UnionTag::Untagged) {
                    "untagged"
                } else {
                    "tagged"
                };
                let now = if was == "tagged" {
                    "untagged"
                } else {
                    "tagged"
                };
                let msg = format!("`{}` was a {was} union, now {now}", cx.subject);
                self.at("union-tag-changed", cx, msg);
                true
            }
        }
    }

    fn tagged(
        &mut self,
        bm: &'a Model,
        b: &'a Union,
        hm: &'a Model,
        h: &'a Union,
        cx: &Ctx,
    ) -> bool {
        let mut found = false;
        for bv in &b.variants {
            let tag = bv.tag.clone().unwrap_or_default();
            let subject = format!("{}.{tag:?}", cx.subject);
            // A variant's own `#[direction]` says which way it travels.
            let dir = bv.meta.direction.unwrap_or(cx.dir);
            match h.variants.iter().find(|v| v.tag == bv.tag) {
                Some(hv) => {
                    let vcx = Ctx {
                        dir,
                        subject,
                        loc: hv.loc.clone(),
                        base_loc: bv.loc.clone(),
                    };
                    found |= self.variant_meta(bv, hv, &vcx);
                    let vcx = Ctx {
                        loc: hv.ty.loc.clone(),
                        base_loc: bv.ty.loc.clone(),
                        ..vcx
                    };
                    found |= self.ty(bm, &bv.ty, hm, &hv.ty, &vcx);
                }
                None => {
                    found = true;
                    let msg = format!("variant {tag:?} was removed from `{}`", cx.subject);
                    let level = rules::level("union-variant-removed", dir);
                    let rule = "union-variant-removed";
                    self.push(rule, level, dir, subject, &cx.loc, Some(&bv.loc), msg);
                }
            }
        }
        for hv in &h.variants {
            if b.variants.iter().any(|v| v.tag == hv.tag) {
                continue;
            }
            found = true;
            let tag = hv.tag.clone().unwrap_or_default();
            let dir = hv.meta.direction.unwrap_or(cx.dir);
            let (level, gate) = match &hv.meta.accepts {
                // No old peer can have announced a capability that did not exist.
                Some(a) if !self.base_accepts.contains(a) => (Level::Info, new_gate(a)),
                _ => (rules::level("union-variant-added", dir), String::new()),
            };
            let msg = format!("variant {tag:?} was added to `{}`{gate}", cx.subject);
            let subject = format!("{}.{tag:?}", cx.subject);
            self.push(
                "union-variant-added",
                level,
                dir,
                subject,
                &hv.loc,
                None,
                msg,
            );
        }
        found
    }

    /// A variant's `#[direction]` or `#[accepts]` changed: who receives it changed.
    fn variant_meta(
        &mut self,
        b: &crate::model::Variant,
        h: &crate::model::Variant,
        cx: &Ctx,
    ) -> bool {
        if b.meta.direction == h.meta.direction && b.meta.accepts == h.meta.accepts {
            return false;
        }
        let msg = format!(
            "variant `{}` now travels {} to peers that accept {} (was {}, {})",
            cx.subject,
            h.meta
                .direction
                .map(super::direction_str)
                .unwrap_or("as its union"),
            show_accepts(&h.meta.accepts),
            b.meta
                .direction
                .map(super::direction_str)
                .unwrap_or("as its union"),
            show_accepts(&b.meta.accepts),
        );
        self.at("unmodelled-change", cx, msg);
        true
    }

    /// Untagged variants are paired by the name they refer to, then by position.
    fn untagged(
        &mut self,
        bm: &'a Model,
        b: &'a Union,
        hm: &'a Model,
        h: &'a Union,
        cx: &Ctx,
    ) -> bool {
        let name = |t: &Ty| match &t.kind {
            TyKind::Ref(r) => r.name.clone(),
            _ => String::new(),
        };
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut hused = vec![false; h.variants.len()];
        let mut bleft = Vec::new();
        for (i, bv) in b.variants.iter().enumerate() {
            match (0..h.variants.len())
                .find(|&j| !hused[j] && name(&h.variants[j].ty) == name(&bv.ty))
            {
                Some(j) => {
                    hused[j] = true;
                    pairs.push((i, j));
                }
                None => bleft.push(i),
            }
        }
        let hleft: Vec<usize> = (0..h.variants.len()).filter(|&j| !hused[j]).collect();
        let mut bleft = bleft.into_iter();
        let mut hleft = hleft.into_iter();
        let mut removed = Vec::new();
        let mut added = Vec::new();
        loop {
            match (bleft.next(), hleft.next()) {
                (Some(i), Some(j)) => pairs.push((i, j)),
                (Some(i), None) => removed.push(i),
                (None, Some(j)) => added.push(j),
                (None, None) => break,
            }
        }
        pairs.sort();
        let mut found = false;
        if pairs.windows(2).any(|w| w[0].1 > w[1].1) {
            let msg = format!(
                "the variants of untagged `{}` were reordered; the first that accepts wins",
                cx.subject
            );
            self.at("union-variants-reordered", cx, msg);
            found = true;
        }
        for (i, j) in pairs {
            let (bv, hv) = (&b.variants[i], &h.variants[j]);
            let subject = format!("{}[{}]", cx.subject, name(&hv.ty));
            let vcx = Ctx {
                dir: cx.dir,
                subject,
                loc: hv.ty.loc.clone(),
                base_loc: bv.ty.loc.clone(),
            };
            found |= self.ty(bm, &bv.ty, hm, &hv.ty, &vcx);
        }
        for i in removed {
            found = true;
            let bv = &b.variants[i];
            let msg = format!(
                "variant `{}` was removed from `{}`",
                name(&bv.ty),
                cx.subject
            );
            let level = rules::level("union-variant-removed", cx.dir);
            let subject = format!("{}[{}]", cx.subject, name(&bv.ty));
            self.push(
                "union-variant-removed",
                level,
                cx.dir,
                subject,
                &cx.loc,
                Some(&bv.loc),
                msg,
            );
        }
        for j in added {
            found = true;
            let hv = &h.variants[j];
            let msg = format!("variant `{}` was added to `{}`", name(&hv.ty), cx.subject);
            let level = rules::level("union-variant-added", cx.dir);
            let subject = format!("{}[{}]", cx.subject, name(&hv.ty));
            self.push(
                "union-variant-added",
                level,
                cx.dir,
                subject,
                &hv.loc,
                None,
                msg,
            );
        }
        found
    }
}

/// The protocol's directory: the path up to the last component named after the protocol, else
/// the deepest directory holding every file (as `load_files` decides modules).
fn root_dir(m: &Model) -> String {
    let split: Vec<Vec<&str>> = m
        .files
        .iter()
        .map(|f| f.display.split('/').collect())
        .collect();
    let Some(first) = split.first() else {
        return String::new();
    };
    if let Some(i) = first[..first.len().saturating_sub(1)]
        .iter()
        .rposition(|p| *p == m.name)
    {
        return first[..=i].join("/");
    }
    let mut common = first.len().saturating_sub(1);
    for s in &split {
        let same = s.iter().zip(first).take_while(|(a, b)| a == b).count();
        common = common.min(same).min(s.len().saturating_sub(1));
    }
    first[..common].join("/")
}

/// `file` relative to `root`.
fn below<'s>(file: &'s str, root: &str) -> &'s str {
    if root.is_empty() {
        return file;
    }
    file.strip_prefix(root)
        .and_then(|r| r.strip_prefix('/'))
        .unwrap_or(file)
}

/// Every capability named by an `#[accepts]` in the model: events and union variants.
fn capabilities(m: &Model) -> HashSet<String> {
    let mut out: HashSet<String> = m
        .events
        .iter()
        .filter_map(|e| e.meta.accepts.clone())
        .collect();
    for t in &m.types {
        if let TypeDefKind::Union(u) = &t.kind {
            out.extend(u.variants.iter().filter_map(|v| v.meta.accepts.clone()));
        }
    }
    out
}

fn is_alias(d: &TypeDef) -> bool {
    matches!(d.kind, TypeDefKind::Alias(_))
}

/// A reference to `d`, to fingerprint a named type.
fn named(d: &TypeDef) -> Ty {
    Ty {
        kind: TyKind::Ref(crate::model::TypeRef {
            name: d.name.clone(),
            protocol: None,
        }),
        loc: d.loc.clone(),
    }
}

fn def_kind(d: &TypeDef) -> &'static str {
    match &d.kind {
        TypeDefKind::Alias(_) => "an alias",
        TypeDefKind::Struct(_) => "an object",
        TypeDefKind::Enum(_) => "an enum",
        TypeDefKind::Union(_) => "a union",
    }
}

fn new_gate(capability: &str) -> String {
    format!(", sent only to peers that accept the new capability `{capability}`")
}

fn show_accepts(a: &Option<String>) -> String {
    match a {
        Some(a) => format!("`{a}`"),
        None => "anything (no capability)".into(),
    }
}

/// A short description of a type expression for messages.
fn describe(m: &Model, t: &Ty) -> String {
    fn lim<T: Display>(l: &Limits<T>, a: &str, b: &str) -> String {
        match (&l.min, &l.max) {
            (None, None) => String::new(),
            (Some(x), None) => format!("({a} = {x})"),
            (None, Some(y)) => format!("({b} = {y})"),
            (Some(x), Some(y)) => format!("({a} = {x}, {b} = {y})"),
        }
    }
    match &t.kind {
        TyKind::String(l) => format!("string{}", lim(l, "min", "max")),
        TyKind::Boolean => "boolean".into(),
        TyKind::Int(l) => format!("int{}", lim(l, "min", "max")),
        TyKind::Number(l) => format!("number{}", lim(l, "min", "max")),
        TyKind::Unknown => "unknown".into(),
        TyKind::Literal(Literal::String(s)) => format!("{s:?}"),
        TyKind::Literal(Literal::Bool(b)) => b.to_string(),
        TyKind::Literal(Literal::Int(i)) => i.to_string(),
        TyKind::Array(i, l) => format!("[{}]{}", describe(m, i), lim(l, "min", "max")),
        TyKind::Map(i) => format!("map<{}>", describe(m, i)),
        TyKind::Nullable(i) => format!("{} | null", describe(m, i)),
        TyKind::Ref(r) => match resolve(m, r) {
            Some((_, d)) if d.synthetic => "an inline object".into(),
            Some((_, d)) => format!("`{}`", d.name),
            None => format!("`{}`", r.name),
        },
    }
}

/// The help line: what to do when it breaks, why it is fine when it does not.
fn hint(rule: &str, level: Level, dir: Direction) -> &'static str {
    let ok = level != Level::Error;
    match (rule, ok) {
        ("request-removed", _) => {
            "old clients still send it; keep it (mark it `#[deprecated]`) until no client does"
        }
        ("request-added", _) => "compatible: old clients never send it",
        ("event-removed", _) => {
            "old clients may wait for it; keep sending it (mark it `#[deprecated]`)"
        }
        ("event-added", _) => {
            "old clients ignore an event name they do not know; gate it with `#[accepts = \"...\"]` to send it only to clients that asked"
        }
        ("union-variant-added", true) => {
            "compatible: the host accepts one more kind; old clients never send it"
        }
        ("union-variant-added", false) => {
            "old clients refuse a whole thread with an item kind they do not know; carry it as an optional field of an existing variant instead"
        }
        ("union-variant-removed", _) => {
            "old clients and stored data still carry it; keep it (mark it `#[deprecated]`)"
        }
        ("enum-value-added", true) => {
            "compatible: the host accepts one more value; old clients never send it"
        }
        ("enum-value-added", false) => {
            "old clients refuse a value they do not know; add a new optional field instead, or make the enum `#[open]` from its first version"
        }
        ("enum-value-removed", true) => {
            "compatible on the wire: the enum is open; the documented set shrank"
        }
        ("enum-value-removed", false) => {
            "old clients and stored data still carry it; keep it (mark it `#[deprecated]` or `#[legacy]`)"
        }
        ("legacy-value-removed", _) => {
            "a `#[legacy]` value is read and written back forever; put it back (this cannot be acknowledged)"
        }
        ("field-removed", _) => {
            "peers built on the old contract still send or require it; keep it and mark it `#[deprecated]`"
        }
        ("field-renamed", _) => {
            "the key is what travels; keep the old key (a Rust-only rename is not a wire change)"
        }
        ("field-added-required", _) => "make it optional (`name?: T`, with a default if needed)",
        ("field-added-optional", _) => "compatible: a contract grows by optional fields",
        ("optional-to-required", true) => {
            "compatible for live clients; records written before the change may lack it"
        }
        ("optional-to-required", false) => {
            "old clients may leave it out; keep it optional and give it a default"
        }
        ("required-to-optional", true) => "compatible: the host accepts more",
        ("required-to-optional", false) => "old clients require it; keep sending it",
        ("nullability-changed", true) if dir == Direction::ClientToServer => {
            "compatible: the host accepts more"
        }
        ("nullability-changed", true) => "compatible: old clients never receive what they refuse",
        ("nullability-changed", false) => {
            "the peer built on the old contract refuses or sends null; keep the old nullability"
        }
        ("type-changed", _) => {
            "no peer built on the old contract accepts the new type; add a new optional field instead"
        }
        ("constraint-tightened", true) => {
            "compatible: the host sends a subset of what old clients accept"
        }
        ("constraint-tightened", false) => {
            "old clients may still send values the new limit refuses; keep the old limit"
        }
        ("constraint-loosened", true) => "compatible: the host accepts more than old clients send",
        ("constraint-loosened", false) => {
            "old clients that check the old limit refuse the new values; keep the limit on what the host sends"
        }
        ("default-changed", _) => {
            "peers that leave the field out now mean something else; keep the default"
        }
        ("union-tag-changed", _) => "no old peer can pick the variant; keep the tag",
        ("union-variants-reordered", _) => "the first variant that accepts wins; keep the order",
        ("definition-removed", _) => "apps import types by name; keep it (mark it `#[deprecated]`)",
        _ => "the differ does not model this change; review it, then acknowledge it if it is safe",
    }
}
