//! The walk: pairs base and head by wire names and reports each difference.
//!
//! Requests and events are paired by name; their payloads and results are compared structurally,
//! so named types are paired by the place they are used, not by their names. Each pair of named
//! types is compared once, judged by the way the base type travels. Named types no walk reached
//! are paired by name at the end; a named type that is gone is `definition-removed`.

use super::fingerprint::Printer;
use super::rules::{self, Rule};
use super::{Finding, kinds};
use crate::analysis::Checked;
use crate::analysis::Directions;
use crate::model::{DefKey, def_key};
use crate::model::{
    Direction, Enum, EnumLit, EnumValue, Event, Field, Format, Limits, Literal, Loc, Model,
    Request, Struct, Ty, TyKind, TypeDef, TypeDefKind, Union, UnionTag, Variant, Width,
};
use std::cmp::Ordering;
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
    /// True inside a nullable whose other side is nullable too: null is admitted already, so
    /// an inner type's null (an alias of `T | null`) changes nothing.
    null_ok: bool,
}

mod rust_source;

/// A pair of named types compared, with the way an alias's use travels and whether null is
/// admitted around it (`None` for anything else, compared once).
type PairKey = (DefKey, DefKey, Option<(Direction, bool)>);

pub(super) struct Differ<'a> {
    base: &'a Checked,
    head: &'a Checked,
    bdirs: &'a Directions,
    hdirs: &'a Directions,
    /// Pairs of named types compared (or being compared), with whether they yielded a finding;
    /// an alias is compared once per way its uses travel and whether null is admitted around
    /// them (`Some`), anything else once (`None`).
    memo: HashMap<PairKey, bool>,
    /// The first place each pair of named types was reached at (`chat.send.payload.attachments`).
    places: HashMap<(DefKey, DefKey), String>,
    paired_base: HashSet<DefKey>,
    paired_head: HashSet<DefKey>,
    /// Named types no walk reached, paired by their shape under a new name (`renamed`).
    renames: Vec<(DefKey, DefKey)>,
    /// Every capability (`#[accepts]`) the base already gates something with.
    base_accepts: HashSet<String>,
    /// True when the head negotiates capabilities (a client announces what it accepts), so a
    /// gate keeps a new frame from old clients.
    negotiates: bool,
    /// The protocol's directory in each model (`schema/agent`).
    base_root: String,
    head_root: String,
    bprint: Printer,
    hprint: Printer,
    out: Vec<Finding>,
}

impl<'a> Differ<'a> {
    pub(super) fn new(base: &'a Checked, head: &'a Checked) -> Self {
        Differ {
            base,
            head,
            bdirs: &base.analysis().directions,
            hdirs: &head.analysis().directions,
            negotiates: head.analysis().growth.negotiates(),
            memo: HashMap::new(),
            places: HashMap::new(),
            paired_base: HashSet::new(),
            paired_head: HashSet::new(),
            renames: Vec::new(),
            base_accepts: capabilities(base),
            base_root: root_dir(base),
            head_root: root_dir(head),
            bprint: Printer::new(),
            hprint: Printer::new(),
            out: Vec::new(),
        }
    }

    pub(super) fn run(mut self) -> Vec<Finding> {
        if self.head.files.is_empty() && !self.base.files.is_empty() {
            self.protocol_removed();
            return self.out;
        }
        self.requests();
        self.events();
        self.base_tables();
        self.definitions();
        self.constants();
        self.rust_source();
        self.out
    }

    /// The protocol's constants, by name: removed, added, or holding another value. A constant
    /// written as a type is its literal, judged where it is used.
    fn constants(&mut self) {
        let (base, head) = (self.base, self.head);
        for bk in &base.consts {
            let Some(hk) = head.consts.iter().find(|k| k.name == bk.name) else {
                let msg = format!("constant `{}` was removed", bk.name);
                let loc = head.files.first().map_or(bk.loc.clone(), |f| Loc {
                    file: f.display.clone(),
                    line: 1,
                    col: 1,
                });
                self.push(
                    &rules::CONST_REMOVED,
                    Direction::Both,
                    bk.name.clone(),
                    &loc,
                    Some(&bk.loc),
                    msg,
                );
                continue;
            };
            if hk.value != bk.value {
                let msg = format!(
                    "constant `{}` now holds {} (was {})",
                    hk.name,
                    kinds::literal_text(&hk.value),
                    kinds::literal_text(&bk.value)
                );
                self.push(
                    &rules::CONST_VALUE_CHANGED,
                    Direction::Both,
                    hk.name.clone(),
                    &hk.loc,
                    Some(&bk.loc),
                    msg,
                );
            }
        }
        for hk in &head.consts {
            if !base.consts.iter().any(|k| k.name == hk.name) {
                let msg = format!("constant `{}` was added", hk.name);
                self.push(
                    &rules::CONST_ADDED,
                    Direction::Both,
                    hk.name.clone(),
                    &hk.loc,
                    None,
                    msg,
                );
            }
        }
    }

    /// Report `rule` for a type travelling `dir`, at the level and with the help its catalogue
    /// entry gives.
    fn push(
        &mut self,
        rule: &'static Rule,
        dir: Direction,
        subject: impl Into<String>,
        loc: &Loc,
        base_loc: Option<&Loc>,
        message: String,
    ) {
        let v = rules::verdict(rule, dir);
        self.out.push(Finding {
            rule,
            level: v.level,
            direction: dir,
            subject: subject.into(),
            loc: loc.clone(),
            base_loc: base_loc.cloned(),
            message,
            hint: v.hint.to_string(),
        });
    }

    /// Report `rule` at the context's place.
    fn at(&mut self, rule: &'static Rule, cx: &Ctx, message: String) {
        self.push(
            rule,
            cx.dir,
            cx.subject.clone(),
            &cx.loc,
            Some(&cx.base_loc),
            message,
        );
    }

    /// The whole protocol is gone: one finding at the nearest surviving parent directory.
    fn protocol_removed(&mut self) {
        let root = root_dir(self.base);
        let parent = root.rsplit_once('/').map_or("", |(p, _)| p).to_string();
        let loc = Loc {
            file: Arc::from(if parent.is_empty() { "." } else { &parent }),
            line: 0,
            col: 0,
        };
        let first = self.base.files.first().map(|f| Loc {
            file: f.display.clone(),
            line: 1,
            col: 1,
        });
        let msg = format!(
            "protocol `{}` was removed: {} is gone",
            self.base.name,
            if root.is_empty() {
                "its directory"
            } else {
                &root
            }
        );
        let name = self.base.name.clone();
        self.push(
            &rules::PROTOCOL_REMOVED,
            Direction::Both,
            name,
            &loc,
            first.as_ref(),
            msg,
        );
    }

    // ----- roots -----

    fn requests(&mut self) {
        let (base, head) = (self.base, self.head);
        let added: Vec<&'a Request> = head
            .requests
            .iter()
            .filter(|h| base.request(&h.name).is_none())
            .collect();
        let mut used = vec![false; added.len()];
        for (i, r) in base.requests.iter().enumerate() {
            let Some(h) = head.request(&r.name) else {
                // A new request with the same payload and result took its place: renamed.
                let fb = (
                    self.bprint.ty(base, &r.payload),
                    self.bprint.ty(base, &r.result),
                );
                let same = (0..added.len()).find(|&j| {
                    !used[j]
                        && added[j].meta.accepts == r.meta.accepts
                        && (
                            self.hprint.ty(head, &added[j].payload),
                            self.hprint.ty(head, &added[j].result),
                        ) == fb
                });
                if let Some(j) = same {
                    used[j] = true;
                    let msg = format!("request `{}` was renamed to `{}`", r.name, added[j].name);
                    let rule = &rules::REQUEST_RENAMED;
                    self.push(
                        rule,
                        Direction::ClientToServer,
                        r.name.clone(),
                        &added[j].loc,
                        Some(&r.loc),
                        msg,
                    );
                    continue;
                }
                let next = self.neighbour(&base.requests, i, &r.loc, |n| {
                    head.request(&n.name).map(|h| h.loc.clone())
                });
                let loc = self.anchor(&r.loc, next);
                let msg = format!("request `{}` was removed", r.name);
                self.push(
                    &rules::REQUEST_REMOVED,
                    Direction::ClientToServer,
                    r.name.clone(),
                    &loc,
                    Some(&r.loc),
                    msg,
                );
                continue;
            };
            if r.meta.accepts != h.meta.accepts {
                let msg = format!(
                    "request `{}` is now answered for peers that accept {} (was {})",
                    r.name,
                    show_accepts(&h.meta.accepts),
                    show_accepts(&r.meta.accepts)
                );
                let rule = &rules::GATE_CHANGED;
                self.push(
                    rule,
                    Direction::ClientToServer,
                    r.name.clone(),
                    &h.loc,
                    Some(&r.loc),
                    msg,
                );
            }
            if r.sender() != h.sender() {
                let msg = format!(
                    "request `{}` is now sent {} (was {})",
                    r.name,
                    show_direction(Some(h.sender())),
                    show_direction(Some(r.sender()))
                );
                let rule = &rules::DIRECTION_CHANGED;
                self.push(rule, h.sender(), r.name.clone(), &h.loc, Some(&r.loc), msg);
            }
            // A request the host sends travels the other way: its payload to the client.
            let cx = Ctx {
                dir: h.sender(),
                subject: format!("{}.payload", r.name),
                loc: h.payload.loc.clone(),
                base_loc: r.payload.loc.clone(),
                null_ok: false,
            };
            self.root(&r.payload, &h.payload, &cx);
            let cx = Ctx {
                dir: h.sender().reversed(),
                subject: format!("{}.result", r.name),
                loc: h.result.loc.clone(),
                base_loc: r.result.loc.clone(),
                null_ok: false,
            };
            self.root(&r.result, &h.result, &cx);
            // What travels beside the result (`#[partial]`, `#[error_data]`), as the result.
            for attr in ["partial", "error_data"] {
                let of = |q: &'a Request| q.metadata().find(|(a, _)| *a == attr).map(|x| x.1);
                match (of(r), of(h)) {
                    (Some(bt), Some(ht)) => {
                        let cx = Ctx {
                            dir: h.sender().reversed(),
                            subject: format!("{}.{attr}", r.name),
                            loc: ht.loc.clone(),
                            base_loc: bt.loc.clone(),
                            null_ok: false,
                        };
                        self.root(bt, ht, &cx);
                    }
                    (None, Some(ht)) => {
                        let msg = format!("request `{}` now declares its {attr}", r.name);
                        let rule = &rules::REQUEST_METADATA_ADDED;
                        self.push(
                            rule,
                            h.sender().reversed(),
                            r.name.clone(),
                            &ht.loc,
                            None,
                            msg,
                        );
                    }
                    (Some(bt), None) => {
                        let msg = format!("request `{}` no longer declares its {attr}", r.name);
                        let rule = &rules::REQUEST_METADATA_REMOVED;
                        self.push(
                            rule,
                            h.sender().reversed(),
                            r.name.clone(),
                            &h.loc,
                            Some(&bt.loc),
                            msg,
                        );
                    }
                    (None, None) => {}
                }
            }
        }
        for (j, h) in added.iter().enumerate() {
            if !used[j] {
                let msg = format!("request `{}` was added", h.name);
                let rule = &rules::REQUEST_ADDED;
                self.push(
                    rule,
                    Direction::ClientToServer,
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
        let dir = Direction::ServerToClient;
        let added: Vec<&'a Event> = head
            .events
            .iter()
            .filter(|h| base.event(&h.name).is_none())
            .collect();
        let mut used = vec![false; added.len()];
        for (i, e) in base.events.iter().enumerate() {
            let Some(h) = head.event(&e.name) else {
                let fb = self.bprint.ty(base, &e.payload);
                let same = (0..added.len()).find(|&j| {
                    !used[j]
                        && added[j].meta.accepts == e.meta.accepts
                        && self.hprint.ty(head, &added[j].payload) == fb
                });
                if let Some(j) = same {
                    used[j] = true;
                    let msg = format!("event `{}` was renamed to `{}`", e.name, added[j].name);
                    let rule = &rules::EVENT_RENAMED;
                    self.push(rule, dir, e.name.clone(), &added[j].loc, Some(&e.loc), msg);
                    continue;
                }
                let next = self.neighbour(&base.events, i, &e.loc, |n| {
                    head.event(&n.name).map(|h| h.loc.clone())
                });
                let loc = self.anchor(&e.loc, next);
                let msg = format!("event `{}` was removed", e.name);
                let rule = &rules::EVENT_REMOVED;
                self.push(rule, dir, e.name.clone(), &loc, Some(&e.loc), msg);
                continue;
            };
            if e.sender() != h.sender() {
                let msg = format!(
                    "event `{}` is now sent {} (was {})",
                    e.name,
                    show_direction(Some(h.sender())),
                    show_direction(Some(e.sender()))
                );
                let rule = &rules::DIRECTION_CHANGED;
                self.push(rule, h.sender(), e.name.clone(), &h.loc, Some(&e.loc), msg);
            }
            let cx = Ctx {
                dir: h.sender(),
                subject: format!("{}.payload", e.name),
                loc: h.payload.loc.clone(),
                base_loc: e.payload.loc.clone(),
                null_ok: false,
            };
            if e.meta.accepts != h.meta.accepts {
                let msg = format!(
                    "event `{}` is now sent to peers that accept {} (was {})",
                    e.name,
                    show_accepts(&h.meta.accepts),
                    show_accepts(&e.meta.accepts)
                );
                let rule = &rules::GATE_CHANGED;
                self.push(rule, dir, e.name.clone(), &h.loc, Some(&e.loc), msg);
            }
            self.root(&e.payload, &h.payload, &cx);
        }
        for (j, h) in added.iter().enumerate() {
            if used[j] {
                continue;
            }
            let (rule, gate) = self.gated(
                &h.meta.accepts,
                &rules::EVENT_ADDED,
                &rules::EVENT_ADDED_GATED,
            );
            let msg = format!("event `{}` was added{gate}", h.name);
            self.push(rule, dir, h.name.clone(), &h.loc, None, msg);
        }
    }

    /// The tables of each base protocol, as the app's generated package exposes them beside its
    /// own (its request and event tables spread the base's): a base request or event gone is
    /// gone from the app's package too, and each entry's payload and result are judged as the
    /// app's. A base read once for both sides (one version) has nothing to compare.
    fn base_tables(&mut self) {
        let (base, head) = (self.base, self.head);
        for hb in head.each_base() {
            let Some(bb) = base.each_base().find(|b| b.name == hb.name) else {
                continue;
            };
            if std::sync::Arc::ptr_eq(bb.model_arc(), hb.model_arc()) {
                continue;
            }
            let (bm, hm): (&'a Model, &'a Model) = (bb.model(), hb.model());
            // Anchored at the app's first file: the app's package is what changed.
            let anchor = head.files.first().map_or_else(
                || Loc {
                    file: Arc::from(self.head_root.as_str()),
                    line: 0,
                    col: 0,
                },
                |f| Loc {
                    file: f.display.clone(),
                    line: 0,
                    col: 0,
                },
            );
            let proto = &hm.name;
            for r in &bm.requests {
                let subject = format!("{proto}::{}", r.name);
                let Some(h) = hm.request(&r.name) else {
                    let msg = format!(
                        "request `{}` of the base protocol `{proto}` was removed: the app's tables include it",
                        r.name
                    );
                    let rule = &rules::REQUEST_REMOVED;
                    self.push(rule, r.sender(), subject, &anchor, Some(&r.loc), msg);
                    continue;
                };
                for (b, h, dir, part) in [
                    (&r.payload, &h.payload, h.sender(), "payload"),
                    (&r.result, &h.result, h.sender().reversed(), "result"),
                ] {
                    let cx = Ctx {
                        dir,
                        subject: format!("{subject}.{part}"),
                        loc: h.loc.clone(),
                        base_loc: b.loc.clone(),
                        null_ok: false,
                    };
                    self.base_root(bm, b, hm, h, &cx);
                }
            }
            for e in &bm.events {
                let subject = format!("{proto}::{}", e.name);
                let Some(h) = hm.event(&e.name) else {
                    let msg = format!(
                        "event `{}` of the base protocol `{proto}` was removed: the app's tables include it",
                        e.name
                    );
                    let rule = &rules::EVENT_REMOVED;
                    self.push(rule, e.sender(), subject, &anchor, Some(&e.loc), msg);
                    continue;
                };
                let cx = Ctx {
                    dir: h.sender(),
                    subject: format!("{subject}.payload"),
                    loc: h.payload.loc.clone(),
                    base_loc: e.payload.loc.clone(),
                    null_ok: false,
                };
                self.base_root(bm, &e.payload, hm, &h.payload, &cx);
            }
        }
    }

    /// [`Differ::root`] for a base protocol's table entry.
    fn base_root(&mut self, bm: &'a Model, b: &'a Ty, hm: &'a Model, h: &'a Ty, cx: &Ctx) {
        let found = self.ty(bm, b, hm, h, cx);
        if !found && self.bprint.ty(bm, b) != self.hprint.ty(hm, h) {
            let msg = format!(
                "`{}` changed in a way the differ does not model",
                cx.subject
            );
            self.at(&rules::UNMODELLED_CHANGE, cx, msg);
        }
    }

    /// The rule for something added behind `accepts`: `gated` when the head negotiates and the
    /// capability is new, else `plain`; with the words to add to the message.
    fn gated(
        &self,
        accepts: &Option<String>,
        plain: &'static Rule,
        gated: &'static Rule,
    ) -> (&'static Rule, String) {
        match accepts {
            Some(a) if !self.negotiates => (
                plain,
                format!(
                    "; its `#[accepts = {a:?}]` gate counts for nothing: `{}` has no handshake in which a client announces what it accepts",
                    self.head.name
                ),
            ),
            // No old peer can have announced a capability that did not exist.
            Some(a) if !self.base_accepts.contains(a) => (gated, new_gate(a)),
            Some(a) => (
                plain,
                format!(", gated by `{a}`, which old clients may already accept"),
            ),
            None => (plain, String::new()),
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
                self.at(&rules::UNMODELLED_CHANGE, cx, msg);
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
            if bd.synthetic {
                // Its place was compared (or removed) where it was written; a hoisted name
                // that now names another place's object pairs nothing.
                continue;
            }
            if let Some(hd) = head.own_type(&bd.name) {
                let dir = self.pair_dir(&bk, &def_key(head, &hd.name));
                let cx = Ctx {
                    dir,
                    subject: hd.name.clone(),
                    loc: hd.loc.clone(),
                    base_loc: bd.loc.clone(),
                    null_ok: false,
                };
                let found = self.defs(base, bd, head, hd, &cx);
                if !found {
                    let fb = self.bprint.ty(base, &named(bd));
                    let fh = self.hprint.ty(head, &named(hd));
                    if fb != fh {
                        let msg =
                            format!("`{}` changed in a way the differ does not model", bd.name);
                        self.at(&rules::UNMODELLED_CHANGE, &cx, msg);
                    }
                }
                continue;
            }
            if let Some(hd) = self.renamed(bd) {
                self.renames.push((bk.clone(), def_key(head, &hd.name)));
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
            self.push(
                &rules::DEFINITION_REMOVED,
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

    /// The way a pair travels: the base type's way, else the head type's, else both. A pair of
    /// two names (a type copied out for one place of the base type, or renamed) serves the
    /// places both types serve, so it travels the ways both travel.
    fn pair_dir(&self, bk: &DefKey, hk: &DefKey) -> Direction {
        use crate::analysis::direction::{to_bits, to_direction};
        // A base protocol's type the app does not reach travels as its own tables send it.
        let of = |c: &Checked, dirs: &Directions, k: &DefKey| {
            dirs.get(k)
                .or_else(|| c.base(&k.0).and_then(|b| b.analysis().directions.get(k)))
        };
        match (of(self.base, self.bdirs, bk), of(self.head, self.hdirs, hk)) {
            (Some(b), Some(h)) if bk != hk => to_direction(to_bits(b) & to_bits(h)).unwrap_or(b),
            (b, h) => b.or(h).unwrap_or(Direction::Both),
        }
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

    /// Where a removal is anchored: the next surviving sibling in the same file (where the
    /// deleted text was), else the file, else (the file is gone too) its directory, else the
    /// protocol's directory.
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
            // The file as a whole: no line of it is the edited one.
            return Loc {
                file: f.display.clone(),
                line: 0,
                col: 0,
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
            match (bm.locate(br), hm.locate(hr)) {
                (Some((bm2, bd)), Some((hm2, hd))) => {
                    if is_alias(bd) == is_alias(hd) {
                        return self.defs(bm2, bd, hm2, hd, cx);
                    }
                }
                _ => {
                    let msg = format!("cannot resolve `{}` or `{}`", br.name, hr.name);
                    self.at(&rules::UNMODELLED_CHANGE, cx, msg);
                    return true;
                }
            }
        }
        let (bm, b) = bm.unalias_in(b);
        let (hm, h) = hm.unalias_in(h);
        use TyKind as K;
        match (&b.kind, &h.kind) {
            (K::Ref(br), K::Ref(hr)) => match (bm.locate(br), hm.locate(hr)) {
                (Some((bm2, bd)), Some((hm2, hd))) => self.defs(bm2, bd, hm2, hd, cx),
                _ => {
                    let msg = format!("cannot resolve `{}` or `{}`", br.name, hr.name);
                    self.at(&rules::UNMODELLED_CHANGE, cx, msg);
                    true
                }
            },
            (K::Unknown, K::Unknown) | (K::Boolean, K::Boolean) => false,
            // `unknown` admits null already: `unknown | null` accepts the same values.
            (K::Unknown, K::Nullable(hi)) if is_unknown(hm, hi) => self.respelled(bm, b, hm, h, cx),
            (K::Nullable(bi), K::Unknown) if is_unknown(bm, bi) => self.respelled(bm, b, hm, h, cx),
            // `unknown` is another kind (its generated types are a raw JSON value): widened
            // to, narrowed from.
            (_, K::Unknown) => {
                let msg = format!(
                    "`{}` was {}, now accepts any JSON value",
                    cx.subject,
                    describe(bm, b)
                );
                self.at(&rules::KIND_WIDENED, cx, msg);
                true
            }
            (K::Unknown, _) => {
                let msg = format!(
                    "`{}` accepted any JSON value, now only {}",
                    cx.subject,
                    describe(hm, h)
                );
                self.at(&rules::KIND_NARROWED, cx, msg);
                true
            }
            (K::Nullable(bi), K::Nullable(hi)) => {
                let ncx = Ctx {
                    null_ok: true,
                    ..cx.clone()
                };
                self.ty(bm, bi, hm, hi, &ncx)
            }
            // Null is admitted outside either way (`T | null` around an alias of `T | null`).
            (K::Nullable(bi), _) if cx.null_ok => self.ty(bm, bi, hm, h, cx),
            (_, K::Nullable(hi)) if cx.null_ok => self.ty(bm, b, hm, hi, cx),
            (K::Nullable(bi), _) => {
                let msg = format!("`{}` no longer admits null", cx.subject);
                self.at(&rules::NULLABILITY_REMOVED, cx, msg);
                self.ty(bm, bi, hm, h, cx);
                true
            }
            (_, K::Nullable(hi)) => {
                let msg = format!("`{}` now admits null", cx.subject);
                self.at(&rules::NULLABILITY_ADDED, cx, msg);
                self.ty(bm, b, hm, hi, cx);
                true
            }
            (K::String(bl, bf), K::String(hl, hf)) => {
                let mut found = false;
                if bf != hf {
                    // A format added or changed accepts fewer strings; one dropped, more.
                    let rule = if hf.is_some() {
                        &rules::CONSTRAINT_TIGHTENED
                    } else {
                        &rules::CONSTRAINT_LOOSENED
                    };
                    let show = |f: &Option<Format>| f.map_or("none", |f| f.name());
                    let msg = format!("`{}`: format {} -> {}", cx.subject, show(bf), show(hf));
                    self.at(rule, cx, msg);
                    found = true;
                }
                self.limits("length", &kinds::lengths(bl), &kinds::lengths(hl), cx) || found
            }
            (K::Int(bl, bw), K::Int(hl, hw)) if bw == hw => {
                self.limits("value", &kinds::ints(bl), &kinds::ints(hl), cx)
            }
            (K::Int(bl, bw), K::Int(hl, hw)) => {
                // Another width: its range is in the bounds, and the bounds say which way
                // the accepted values moved (`int` to `int64` loosens both).
                let wide = (kinds::wide_ints(bl, *bw), kinds::wide_ints(hl, *hw));
                let msg = format!(
                    "`{}` was {}, now {}",
                    cx.subject,
                    describe(bm, b),
                    describe(hm, h)
                );
                let rule = if (*bw == Width::U64) != (*hw == Width::U64) {
                    &rules::INT_SIGNEDNESS_CHANGED
                } else {
                    &rules::INT_WIDTH_CHANGED
                };
                self.at(rule, cx, msg);
                self.limits("value", &wide.0, &wide.1, cx);
                true
            }
            (K::Number(bl), K::Number(hl)) => self.limits("value", bl, hl, cx),
            (K::Int(bl, _), K::Number(hl)) => {
                let msg = format!("`{}` was an integer, now any number", cx.subject);
                self.at(&rules::CONSTRAINT_LOOSENED, cx, msg);
                self.limits("value", &kinds::ints(bl), hl, cx);
                true
            }
            (K::Number(bl), K::Int(hl, _)) => {
                let msg = format!("`{}` was any number, now only integers", cx.subject);
                self.at(&rules::CONSTRAINT_TIGHTENED, cx, msg);
                self.limits("value", bl, &kinds::ints(hl), cx);
                true
            }
            (K::Literal(a), K::Literal(c)) if a == c => false,
            (K::Array(bi, bl), K::Array(hi, hl)) => {
                let a = self.limits("item count", &kinds::lengths(bl), &kinds::lengths(hl), cx);
                let cx2 = Ctx {
                    subject: format!("{}[]", cx.subject),
                    null_ok: false,
                    ..cx.clone()
                };
                let b2 = self.ty(bm, bi, hm, hi, &cx2);
                a || b2
            }
            (K::Map(bi), K::Map(hi)) => {
                let cx2 = Ctx {
                    subject: format!("{}{{}}", cx.subject),
                    null_ok: false,
                    ..cx.clone()
                };
                self.ty(bm, bi, hm, hi, &cx2)
            }
            _ => {
                // Another kind: judged by whether one accepts a part of what the other does.
                let one_int = |t: &Ty| matches!(t.kind, K::Int(..));
                let rule = match kinds::relation(bm, b, hm, h) {
                    Some(Ordering::Less) => &rules::KIND_WIDENED,
                    Some(Ordering::Greater) => &rules::KIND_NARROWED,
                    // `int(1..=1)` and `1`: one integer, as a range or as a literal.
                    Some(Ordering::Equal) if one_int(b) || one_int(h) => &rules::LITERAL_RESPELLED,
                    Some(Ordering::Equal) => &rules::KIND_RESPELLED,
                    None => &rules::TYPE_CHANGED,
                };
                let msg = format!(
                    "`{}` was {}, now {}",
                    cx.subject,
                    describe(bm, b),
                    describe(hm, h)
                );
                self.at(rule, cx, msg);
                true
            }
        }
    }

    /// Two spellings of the same values (`unknown` and `unknown | null`): the wire is the same,
    /// the generated types differ.
    fn respelled(&mut self, bm: &Model, b: &Ty, hm: &Model, h: &Ty, cx: &Ctx) -> bool {
        let msg = format!(
            "`{}` was {}, now {}: the same values",
            cx.subject,
            describe(bm, b),
            describe(hm, h)
        );
        self.at(&rules::KIND_RESPELLED, cx, msg);
        true
    }

    /// Compare canonical bounds: each bound that moved is one finding.
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
                &rules::CONSTRAINT_TIGHTENED
            } else {
                &rules::CONSTRAINT_LOOSENED
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
        // An alias is a name for its body, judged at each use by the way that use travels
        // (unless it says its own way, or is stored).
        let plain = |d: &TypeDef| d.meta.direction.is_none() && !d.meta.stored;
        let per_use = is_alias(bd) && is_alias(hd) && plain(bd) && plain(hd);
        let key = (
            bk.clone(),
            hk.clone(),
            per_use.then_some((cx.dir, cx.null_ok)),
        );
        if let Some(found) = self.memo.get(&key) {
            return *found;
        }
        self.memo.insert(key.clone(), false);
        self.places
            .entry((bk.clone(), hk.clone()))
            .or_insert_with(|| cx.subject.clone());
        self.paired_base.insert(bk.clone());
        self.paired_head.insert(hk.clone());
        let dir = if per_use {
            cx.dir
        } else {
            self.pair_dir(&bk, &hk)
        };
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
            // An alias's body stands where the alias is written.
            null_ok: per_use && cx.null_ok,
        };
        let reached = self.bdirs.get(&bk).is_some();
        let mut found = self.def_meta(bd, hd, reached, &dcx);
        use TypeDefKind as D;
        found |= match (&bd.kind, &hd.kind) {
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
                self.at(&rules::TYPE_CHANGED, &dcx, msg);
                true
            }
        };
        self.memo.insert(key, found);
        found
    }

    /// A named type's `#[stored]` or `#[direction]` changed; `reached` tells whether anything
    /// in the base said which way it travels.
    fn def_meta(&mut self, b: &TypeDef, h: &TypeDef, reached: bool, cx: &Ctx) -> bool {
        let mut found = false;
        if b.meta.stored != h.meta.stored {
            let (rule, msg) = if h.meta.stored {
                (&rules::STORED_ATTRIBUTE_ADDED, "is now")
            } else {
                (&rules::STORED_ATTRIBUTE_REMOVED, "is no longer")
            };
            let msg = format!("`{}` {msg} marked `#[stored]`", cx.subject);
            self.at(rule, cx, msg);
            found = true;
        }
        if b.meta.direction != h.meta.direction {
            let msg = format!(
                "`{}` now travels {} (was {})",
                cx.subject,
                show_direction(h.meta.direction),
                show_direction(b.meta.direction)
            );
            // Declared on a type nothing reached: the base judged it both ways for want of one.
            let rule = if b.meta.direction.is_none() && !reached {
                &rules::DIRECTION_DECLARED
            } else {
                &rules::DIRECTION_CHANGED
            };
            self.at(rule, cx, msg);
            found = true;
        }
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
                let rule = &rules::FIELD_RENAMED;
                self.push(rule, cx.dir, subject, &af.loc, Some(&bf.loc), msg);
            } else {
                let msg = format!("field `{}` was removed from `{}`", bf.name, cx.subject);
                let rule = &rules::FIELD_REMOVED;
                self.push(rule, cx.dir, subject, &cx.loc, Some(&bf.loc), msg);
            }
        }
        for (i, af) in added.iter().enumerate() {
            if used[i] {
                continue;
            }
            found = true;
            let subject = format!("{}.{}", cx.subject, af.name);
            let (rule, what) = if af.optional {
                (&rules::FIELD_ADDED_OPTIONAL, "optional")
            } else {
                (&rules::FIELD_ADDED_REQUIRED, "required")
            };
            let msg = format!("{what} field `{}` was added to `{}`", af.name, cx.subject);
            self.push(rule, cx.dir, subject, &af.loc, None, msg);
        }
        found |= self.rests(bm, b, hm, h, cx);
        found
    }

    /// The rests of two objects (`..: T`): added, removed, or their values compared as a map's.
    fn rests(
        &mut self,
        bm: &'a Model,
        b: &'a Struct,
        hm: &'a Model,
        h: &'a Struct,
        cx: &Ctx,
    ) -> bool {
        let subject = format!("{}.(..)", cx.subject);
        match (&b.rest, &h.rest) {
            (None, None) => false,
            (Some(br), Some(hr)) => {
                let rcx = Ctx {
                    dir: cx.dir,
                    subject,
                    loc: hr.loc.clone(),
                    base_loc: br.loc.clone(),
                    null_ok: false,
                };
                self.ty(bm, &br.ty, hm, &hr.ty, &rcx)
            }
            (None, Some(hr)) => {
                let unknown =
                    matches!(&hr.ty.kind, TyKind::Map(t) if matches!(t.kind, TyKind::Unknown));
                let rule = if unknown {
                    &rules::REST_ADDED
                } else {
                    &rules::REST_ADDED_TYPED
                };
                let msg = format!("`{}` now keeps every other key", cx.subject);
                self.push(rule, cx.dir, subject, &hr.loc, None, msg);
                true
            }
            (Some(br), None) => {
                let msg = format!("`{}` no longer keeps its other keys", cx.subject);
                self.push(
                    &rules::REST_REMOVED,
                    cx.dir,
                    subject,
                    &cx.loc,
                    Some(&br.loc),
                    msg,
                );
                true
            }
        }
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
            null_ok: false,
        };
        let mut found = false;
        if b.optional && !h.optional {
            let msg = format!("field `{}` is now required", fcx.subject);
            self.at(&rules::OPTIONAL_TO_REQUIRED, &fcx, msg);
            found = true;
        }
        if !b.optional && h.optional {
            let msg = format!("field `{}` is now optional", fcx.subject);
            self.at(&rules::REQUIRED_TO_OPTIONAL, &fcx, msg);
            found = true;
        }
        let (bd, hd) = (
            b.default.as_ref().map(kinds::value),
            h.default.as_ref().map(kinds::value),
        );
        if bd != hd {
            let show = |d: &Option<serde_json::Value>| {
                d.as_ref()
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "none".into())
            };
            let msg = format!(
                "the default of `{}` changed from {} to {}",
                fcx.subject,
                show(&bd),
                show(&hd)
            );
            let rule = match (&bd, &hd) {
                (None, Some(_)) if h.optional => &rules::DEFAULT_ADDED,
                (Some(_), None) if h.optional => &rules::DEFAULT_REMOVED,
                _ => &rules::DEFAULT_CHANGED,
            };
            // A field made required loses its default with it: `optional-to-required` says so.
            if h.optional {
                self.at(rule, &fcx, msg);
            } else if b.optional {
                self.at(&rules::DEFAULT_REMOVED, &fcx, msg);
            }
            found = true;
        }
        // Adding a `#[table]` adds a typed read beside the plain one, which still accepts any
        // value: no wire change. Changing or dropping one changes what typed readers accept.
        if b.meta.table.is_some() && b.meta.table != h.meta.table {
            let msg = format!(
                "`{}` now holds {} (was {})",
                fcx.subject,
                show_table(&h.meta.table),
                show_table(&b.meta.table)
            );
            self.at(&rules::UNMODELLED_CHANGE, &fcx, msg);
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
        if b.is_int() != h.is_int() {
            let kind = |e: &Enum| {
                if e.is_int() {
                    "an enum of integers"
                } else {
                    "an enum of strings"
                }
            };
            let msg = format!("`{}` was {}, now {}", cx.subject, kind(b), kind(h));
            self.at(&rules::TYPE_CHANGED, cx, msg);
            return true;
        }
        let mut found = false;
        // An enum that `#[extends]` an open one travels as it: its values are more values of
        // an open set, judged as an open enum's.
        let (b_open, h_open) = (b.open || b.extends.is_some(), h.open || h.extends.is_some());
        if b_open != h_open {
            let any = if h.is_int() { "integer" } else { "string" };
            let (rule, msg) = if h_open {
                (
                    &rules::CONSTRAINT_LOOSENED,
                    format!("enum `{}` is now open: any {any} is accepted", cx.subject),
                )
            } else {
                (
                    &rules::OPEN_ENUM_CLOSED,
                    format!(
                        "enum `{}` is now closed: unknown values are refused",
                        cx.subject
                    ),
                )
            };
            self.at(rule, cx, msg);
            found = true;
        }
        // An integer value whose name now travels as another number: one finding, not a
        // removal and an addition.
        let mut renumbered: Vec<(i64, i64)> = Vec::new();
        for bv in &b.values {
            let EnumLit::Int { name, value } = &bv.value else {
                continue;
            };
            let Some(hv) = h.values.iter().find(|v| v.name() == name) else {
                continue;
            };
            let Some(now) = hv.as_int().filter(|now| now != value) else {
                continue;
            };
            renumbered.push((*value, now));
            found = true;
            let msg = format!(
                "value `{name}` of `{}` now travels as {now} (was {value})",
                cx.subject
            );
            let subject = format!("{}.{name}", cx.subject);
            let rule = &rules::ENUM_VALUE_NUMBER_CHANGED;
            self.push(rule, cx.dir, subject, &hv.loc, Some(&bv.loc), msg);
        }
        for bv in &b.values {
            let subject = format!("{}.{}", cx.subject, wire_key(bv));
            if let Some(hv) = h.values.iter().find(|v| same_wire(v, bv)) {
                if bv.meta.legacy && !hv.meta.legacy {
                    let msg = format!(
                        "value {} of `{}` is no longer marked `#[legacy]`",
                        shown_value(bv),
                        cx.subject
                    );
                    let rule = &rules::LEGACY_ATTRIBUTE_REMOVED;
                    self.push(rule, cx.dir, subject, &hv.loc, Some(&bv.loc), msg);
                    found = true;
                }
                continue;
            }
            if bv
                .as_int()
                .is_some_and(|i| renumbered.iter().any(|r| r.0 == i))
                && !bv.meta.legacy
            {
                continue;
            }
            found = true;
            if bv.meta.legacy {
                let msg = format!(
                    "legacy value {} was removed from `{}`; it can never be dropped",
                    shown_value(bv),
                    cx.subject
                );
                let rule = &rules::LEGACY_VALUE_REMOVED;
                self.push(rule, cx.dir, subject, &cx.loc, Some(&bv.loc), msg);
                continue;
            }
            // An open enum still accepts the value: only the documented set shrinks.
            let rule = if h_open {
                &rules::OPEN_ENUM_VALUE_REMOVED
            } else {
                &rules::ENUM_VALUE_REMOVED
            };
            let msg = format!(
                "value {} was removed from `{}`",
                shown_value(bv),
                cx.subject
            );
            self.push(rule, cx.dir, subject, &cx.loc, Some(&bv.loc), msg);
        }
        for hv in &h.values {
            if b.values.iter().any(|v| same_wire(v, hv))
                || hv
                    .as_int()
                    .is_some_and(|i| renumbered.iter().any(|r| r.1 == i))
            {
                continue;
            }
            found = true;
            let subject = format!("{}.{}", cx.subject, wire_key(hv));
            // An old client of an open enum already accepts any string.
            let rule = if b_open {
                &rules::OPEN_ENUM_VALUE_ADDED
            } else {
                &rules::ENUM_VALUE_ADDED
            };
            let msg = format!("value {} was added to `{}`", shown_value(hv), cx.subject);
            self.push(rule, cx.dir, subject, &hv.loc, None, msg);
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
                    self.at(&rules::UNION_TAG_CHANGED, &tcx, msg);
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
                self.at(&rules::UNION_TAG_CHANGED, cx, msg);
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
                        null_ok: false,
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
                    let rule = &rules::UNION_VARIANT_REMOVED;
                    self.push(rule, dir, subject, &cx.loc, Some(&bv.loc), msg);
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
            let (rule, gate) = self.gated(
                &hv.meta.accepts,
                &rules::UNION_VARIANT_ADDED,
                &rules::UNION_VARIANT_ADDED_GATED,
            );
            let msg = format!("variant {tag:?} was added to `{}`{gate}", cx.subject);
            let subject = format!("{}.{tag:?}", cx.subject);
            self.push(rule, dir, subject, &hv.loc, None, msg);
        }
        found
    }

    /// A variant's `#[direction]` or `#[accepts]` changed: who sends or receives it changed.
    fn variant_meta(&mut self, b: &Variant, h: &Variant, cx: &Ctx) -> bool {
        let mut found = false;
        if b.meta.direction != h.meta.direction {
            let msg = format!(
                "variant `{}` now travels {} (was {})",
                cx.subject,
                show_direction(h.meta.direction),
                show_direction(b.meta.direction)
            );
            self.at(&rules::DIRECTION_CHANGED, cx, msg);
            found = true;
        }
        if b.meta.accepts != h.meta.accepts {
            let msg = format!(
                "variant `{}` is now sent to peers that accept {} (was {})",
                cx.subject,
                show_accepts(&h.meta.accepts),
                show_accepts(&b.meta.accepts)
            );
            self.at(&rules::GATE_CHANGED, cx, msg);
            found = true;
        }
        found
    }

    /// Untagged variants are paired by their name (the name written, the named type they
    /// refer to, else their kind's: `Variant::name_source`), then (inline objects, whose hoisted
    /// names follow their positions) by shape: the same fingerprint, then by position when as
    /// many are left on both sides, else a variant that accepts every value of the other or
    /// whose every value the other accepts.
    fn untagged(
        &mut self,
        bm: &'a Model,
        b: &'a Union,
        hm: &'a Model,
        h: &'a Union,
        cx: &Ctx,
    ) -> bool {
        let name = |t: &Ty| {
            let v = [&b.variants, &h.variants]
                .into_iter()
                .flatten()
                .find(|v| std::ptr::eq(&v.ty, t));
            v.map(crate::model::Variant::name_source)
                .unwrap_or_default()
        };
        // What pairs a variant first: its name, unless it is a hoisted inline object's.
        let named_in = |m: &Model, v: &Variant| match &v.ty.kind {
            TyKind::Ref(r) if v.name.is_none() => m
                .locate(r)
                .filter(|(_, d)| !d.synthetic)
                .map(|_| r.name.clone()),
            _ => Some(v.name_source()),
        };
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut hused = vec![false; h.variants.len()];
        let mut bleft = Vec::new();
        for (i, bv) in b.variants.iter().enumerate() {
            let key = named_in(bm, bv);
            match (0..h.variants.len())
                .find(|&j| !hused[j] && key.is_some() && named_in(hm, &h.variants[j]) == key)
            {
                Some(j) => {
                    hused[j] = true;
                    pairs.push((i, j));
                }
                None => bleft.push(i),
            }
        }
        // The same shape.
        let mut rest = Vec::new();
        for i in bleft {
            let fb = self.bprint.ty(bm, &b.variants[i].ty);
            let same = (0..h.variants.len()).find(|&j| {
                !hused[j]
                    && named_in(hm, &h.variants[j]).is_none()
                    && self.hprint.ty(hm, &h.variants[j].ty) == fb
            });
            match same {
                Some(j) => {
                    hused[j] = true;
                    pairs.push((i, j));
                }
                None => rest.push(i),
            }
        }
        let hleft: Vec<usize> = (0..h.variants.len()).filter(|&j| !hused[j]).collect();
        let mut removed = Vec::new();
        let mut added = Vec::new();
        if rest.len() == hleft.len() {
            // Each edited in its place.
            pairs.extend(rest.iter().copied().zip(hleft.iter().copied()));
        } else {
            let mut hfree: Vec<usize> = hleft.clone();
            for i in rest {
                let bt = &b.variants[i].ty;
                let near = hfree.iter().position(|&j| {
                    let ht = &h.variants[j].ty;
                    kinds::covers(hm, ht, bm, bt) || kinds::covers(bm, bt, hm, ht)
                });
                match near {
                    Some(x) => pairs.push((i, hfree.remove(x))),
                    None => removed.push(i),
                }
            }
            added = hfree;
        }
        pairs.sort();
        let mut found = false;
        // Every two variants whose order changed; the order matters unless no value matches
        // both, in both models.
        let mut flipped = Vec::new();
        for (x, &(i, j)) in pairs.iter().enumerate() {
            for &(k, l) in &pairs[x + 1..] {
                if (i < k) != (j < l) {
                    flipped.push((i, k, j, l));
                }
            }
        }
        if !flipped.is_empty() {
            let apart = flipped.iter().all(|&(i, k, j, l)| {
                kinds::disjoint(bm, &b.variants[i].ty, bm, &b.variants[k].ty)
                    && kinds::disjoint(hm, &h.variants[j].ty, hm, &h.variants[l].ty)
            });
            let (rule, why) = if apart {
                (
                    &rules::UNION_VARIANTS_REORDERED_DISJOINT,
                    "no value matches two of them",
                )
            } else {
                (
                    &rules::UNION_VARIANTS_REORDERED,
                    "the first that accepts wins",
                )
            };
            let msg = format!(
                "the variants of untagged `{}` were reordered; {why}",
                cx.subject
            );
            self.at(rule, cx, msg);
            found = true;
        }
        found |= self.untagged_order(bm, b, hm, h, &pairs, cx);
        for (i, j) in pairs {
            let (bv, hv) = (&b.variants[i], &h.variants[j]);
            let subject = format!("{}[{}]", cx.subject, name(&hv.ty));
            let vcx = Ctx {
                dir: cx.dir,
                subject,
                loc: hv.ty.loc.clone(),
                base_loc: bv.ty.loc.clone(),
                null_ok: false,
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
            let subject = format!("{}[{}]", cx.subject, name(&bv.ty));
            let rule = &rules::UNION_VARIANT_REMOVED;
            self.push(rule, cx.dir, subject, &cx.loc, Some(&bv.loc), msg);
        }
        for j in added {
            found = true;
            let hv = &h.variants[j];
            let msg = format!("variant `{}` was added to `{}`", name(&hv.ty), cx.subject);
            let subject = format!("{}[{}]", cx.subject, name(&hv.ty));
            let rule = &rules::UNION_VARIANT_ADDED;
            self.push(rule, cx.dir, subject, &hv.loc, None, msg);
        }
        found
    }

    /// Which variant an old value decodes as, before and after: the first that accepts wins,
    /// so a head variant placed before a pair's head variant takes the values it accepts. A new
    /// one (`union-variant-added-before`), or one that was before it in base and now accepts
    /// more than it did (`union-variant-widened-over`), breaks unless no value of the pair's
    /// base variant is one it accepts. Variants whose order flipped are `pairs` reordered.
    fn untagged_order(
        &mut self,
        bm: &'a Model,
        b: &'a Union,
        hm: &'a Model,
        h: &'a Union,
        pairs: &[(usize, usize)],
        cx: &Ctx,
    ) -> bool {
        let name = |t: &Ty| match &t.kind {
            TyKind::Ref(r) => r.name.clone(),
            _ => describe(hm, t),
        };
        let mut found = false;
        for &(k, l) in pairs {
            let bt = &b.variants[k].ty;
            for m in 0..l {
                let hv = &h.variants[m];
                let prior = pairs.iter().find(|p| p.1 == m).map(|p| p.0);
                let rule = match prior {
                    // Their order flipped: reported as reordered.
                    Some(i) if i > k => continue,
                    Some(_) => &rules::UNION_VARIANT_WIDENED_OVER,
                    None => &rules::UNION_VARIANT_ADDED_BEFORE,
                };
                // What decoded as `k` was refused by every base variant before it: a variant
                // one of those accepts all of (the same shape, or a cover) takes none of it;
                // nor one that accepts none of the values an old peer writes as `k`.
                let fh = self.hprint.ty(hm, &hv.ty);
                let earlier = (0..k).any(|i| {
                    let bi = &b.variants[i].ty;
                    self.bprint.ty(bm, bi) == fh || kinds::covers(bm, bi, hm, &hv.ty)
                });
                if earlier || kinds::disjoint_declared(hm, &hv.ty, bm, bt) {
                    continue;
                }
                // A variant widened takes only what it newly accepts.
                if let Some(i) = prior
                    && !widened_into(bm, &b.variants[i].ty, hm, &hv.ty, bm, bt)
                {
                    continue;
                }
                let how = if kinds::covers(hm, &hv.ty, bm, bt) {
                    "accepts every value"
                } else {
                    "may accept values"
                };
                let (later, now) = (name(&h.variants[l].ty), name(&hv.ty));
                let what = if prior.is_some() {
                    "now accepts more, and"
                } else {
                    "is new, comes before it, and"
                };
                let msg = format!(
                    "variant `{now}` of untagged `{}` {what} {how} an old peer sent as `{later}`: they now decode as `{now}`",
                    cx.subject
                );
                let subject = format!("{}[{now}]", cx.subject);
                let base_loc = prior.map(|i| &b.variants[i].loc);
                self.push(rule, cx.dir, subject, &hv.loc, base_loc, msg);
                found = true;
            }
        }
        found
    }
}

/// Whether `h`, the head version of the base variant `b`, newly accepts values an old peer
/// writes as the later base variant `k` (all in `bm` but `h`, in `hm`): `true` unless that is
/// sure not to be. Two objects are compared field by field, the new values being those of a
/// field that `h` no longer requires (`k` may lack it too unless it requires it) or whose type
/// `b`'s no longer covers (`k` must name it, with values `b`'s type does not cover and `h`'s
/// may hold), or a rest that accepts more; anything else is taken as newly accepting.
fn widened_into(bm: &Model, b: &Ty, hm: &Model, h: &Ty, km: &Model, k: &Ty) -> bool {
    // A later variant that is an untagged union: any of its variants.
    let (km, k) = km.unalias_in(k);
    if let TyKind::Ref(r) = &k.kind
        && let Some((um, d)) = km.locate(r)
        && let TypeDefKind::Union(u) = &d.kind
        && u.tag == UnionTag::Untagged
    {
        return u
            .variants
            .iter()
            .any(|v| widened_into(bm, b, hm, h, um, &v.ty));
    }
    let fields = |m: &Model, t: &Ty| -> Option<(Vec<Field>, Option<Ty>)> {
        let (dm, t) = m.unalias_in(t);
        let TyKind::Ref(r) = &t.kind else { return None };
        match &dm.locate(r)?.1.kind {
            TypeDefKind::Struct(s) => {
                Some((s.fields.clone(), s.rest.as_ref().map(|r| r.ty.clone())))
            }
            _ => None,
        }
    };
    let (Some((bf, brest)), Some((hf, hrest)), Some((kf, _))) =
        (fields(bm, b), fields(hm, h), fields(km, k))
    else {
        return true;
    };
    // A rest that accepts more keeps more of `k`'s keys.
    match (&brest, &hrest) {
        (_, None) => {}
        (Some(x), Some(y)) if kinds::covers(bm, x, hm, y) => {}
        _ => return true,
    }
    let in_k = |name: &str| kf.iter().find(|g| g.name == name);
    for f in &bf {
        let Some(g) = hf.iter().find(|g| g.name == f.name) else {
            // Gone from `h`: a value may now lack it (one `k` writes without it), or hold
            // anything there (a closed object ignores the key).
            let lacks = !f.optional && in_k(&f.name).is_none_or(|x| x.optional);
            let holds =
                f.optional && in_k(&f.name).is_some_and(|x| !kinds::covers(bm, &f.ty, km, &x.ty));
            if lacks || holds {
                return true;
            }
            continue;
        };
        if !f.optional && g.optional && in_k(&f.name).is_none_or(|x| x.optional) {
            return true;
        }
        if !kinds::covers(bm, &f.ty, hm, &g.ty)
            && in_k(&f.name).is_some_and(|x| {
                !kinds::covers(bm, &f.ty, km, &x.ty) && !kinds::disjoint(hm, &g.ty, km, &x.ty)
            })
        {
            return true;
        }
    }
    false
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

/// True when `t` is `unknown`, through aliases.
fn is_unknown(m: &Model, t: &Ty) -> bool {
    matches!(m.unalias_in(t).1.kind, TyKind::Unknown)
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

/// Whether two enum values travel as the same JSON value (an integer value's name does not
/// travel).
fn same_wire(a: &EnumValue, b: &EnumValue) -> bool {
    match (&a.value, &b.value) {
        (EnumLit::Str(x), EnumLit::Str(y)) => x == y,
        (EnumLit::Int { value: x, .. }, EnumLit::Int { value: y, .. }) => x == y,
        _ => false,
    }
}

/// An enum value in a finding's subject: `"idle"` (quoted), `2`.
fn wire_key(v: &EnumValue) -> String {
    match &v.value {
        EnumLit::Str(s) => format!("{s:?}"),
        EnumLit::Int { value, .. } => value.to_string(),
    }
}

/// An enum value in a finding's message: `"idle"`, `2` (`Warning`).
fn shown_value(v: &EnumValue) -> String {
    match &v.value {
        EnumLit::Str(s) => format!("{s:?}"),
        EnumLit::Int { name, value } => format!("{value} (`{name}`)"),
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

fn show_direction(d: Option<Direction>) -> &'static str {
    d.map(super::direction_str).unwrap_or("as it is reached")
}

fn show_table(t: &Option<crate::model::TableKey>) -> String {
    match t {
        Some(k) => format!("the payload named by `{}`", k.key),
        None => "any JSON value".into(),
    }
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
        TyKind::String(l, None) => format!("string{}", lim(l, "min", "max")),
        TyKind::String(l, Some(f)) => {
            let l = lim(l, "min", "max");
            let l = l
                .strip_prefix('(')
                .map(|r| format!(", {r}"))
                .unwrap_or(")".into());
            format!("string(format = {:?}{l}", f.name())
        }
        TyKind::Boolean => "boolean".into(),
        TyKind::Int(l, w) => format!("{}{}", w.name(), lim(l, "min", "max")),
        TyKind::Number(l) => format!("number{}", lim(l, "min", "max")),
        TyKind::Unknown => "unknown".into(),
        TyKind::Literal(Literal::String(s)) => format!("{s:?}"),
        TyKind::Literal(Literal::Bool(b)) => b.to_string(),
        TyKind::Literal(Literal::Int(i)) => i.to_string(),
        TyKind::Literal(Literal::Null) => "null".to_owned(),
        TyKind::Array(i, l) => format!("[{}]{}", describe(m, i), lim(l, "min", "max")),
        TyKind::Map(i) => format!("map<{}>", describe(m, i)),
        TyKind::Nullable(i) => format!("{} | null", describe(m, i)),
        TyKind::Ref(r) => match m.locate(r) {
            Some((_, d)) if d.synthetic => "an inline object".into(),
            Some((_, d)) => format!("`{}`", d.name),
            None => format!("`{}`", r.name),
        },
    }
}
