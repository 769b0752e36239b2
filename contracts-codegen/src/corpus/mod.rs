//! corpus: cases derived from the model, so the shared corpus grows with the schema.
//!
//! [`derive()`] walks every table entry (request payloads and results, event payloads) and every
//! variant of the frame unions (`ClientFrame`, `ServerFrame` when they are tagged unions, as in
//! Agent Connect) and writes, for each, a minimal valid value built from the model, then one
//! case per rule of `docs/wire-semantics.md` that the value's shape is subject to:
//!
//! - every required field absent (refused), every optional field present (accepted);
//! - every field null (refused unless its type admits null);
//! - every field of the wrong JSON type (refused);
//! - every string, integer, number and array limit at each edge: `min`, `min - 1`, `max`,
//!   `max + 1` (strings count code points: the `max` edge and the `min - 1` edge are written
//!   with an astral character, two UTF-16 units each); an integer's safe range stands in for
//!   a bound it does not declare; an integer written as `1.0` (accepted) and `1.5` (refused);
//! - every enum with a value it does not list (refused unless the enum is open), every legacy
//!   value (accepted), every listed value once per enum; an integer enum's first value written
//!   `1.0` (accepted) and `1.5` (refused), an open one's integer edges;
//! - every tagged union with its tag absent or unknown (refused at the tag's path), every
//!   variant once;
//! - an extra unknown key on every object (accepted), and one of its fields written twice,
//!   the last valid (accepted) and the last invalid (refused): the last one wins.
//!
//! A refusal carries the paths its issues name in Zod's dotted form (`limits[0].resetsAt`),
//! except inside an untagged union, where Zod names the union itself and the case carries the
//! verdict only. The fields of a table entry's own type, or of a frame variant's, are all
//! mutated for every entry; a named type reached deeper (`ChatInfo`, `ChatItem`) has its
//! fields mutated once, at the first place the walk reaches it, so the output stays a few
//! thousand lines while covering every field of every type.
//!
//! The lines have the format of `tests/corpus/*.jsonl` (see `tests/corpus/README.md`); the
//! output is a pure function of the model.

mod accept;
pub mod examples;

use crate::analysis::Checked;
use crate::model::MAX_SAFE;
use crate::model::{
    Enum, EnumValue, Format, Limits, Literal, Model, Struct, TableKind, Ty, TyKind, TypeDef,
    TypeDefKind, TypeRef, Union, UnionTag, Width,
};
use examples::{Example, Hint, Subject};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The key added to objects to show that unknown keys are accepted.
pub const UNKNOWN_KEY: &str = "zzUnknownKey";

/// The character used to build strings at a length edge: one code point, two UTF-16 units,
/// four UTF-8 bytes, so a validator counting anything but code points gets the edge wrong.
pub const WIDE: char = '😀';

/// Where a refusal happens, as the corpus writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// The frame itself.
    Envelope,
    /// The payload, result or event checked by name against the table.
    Table,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Envelope => "envelope",
            Stage::Table => "table",
        }
    }
}

/// What a line checks: a JSON value (`input`), or exact text (`raw`) for what a value cannot
/// say (a duplicate key, `1e2`, a number beyond every range).
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    Json(Value),
    Raw(String),
}

impl Input {
    /// The input as JSON text.
    pub fn text(&self) -> String {
        match self {
            Input::Json(v) => serde_json::to_string(v).expect("a JSON value serialises"),
            Input::Raw(r) => r.clone(),
        }
    }
}

impl From<Value> for Input {
    fn from(v: Value) -> Input {
        Input::Json(v)
    }
}

/// One line of a corpus.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// What the input is checked as (`as`): agent `request`, `server`, `payload`, `result`,
    /// `event`; connect `client`, `server`.
    pub kind: String,
    /// The request or event name (`type`) for `payload`, `result` and `event`.
    pub type_name: Option<String>,
    pub input: Input,
    /// The expected verdict.
    pub ok: bool,
    /// For a refusal: where it happens.
    pub stage: Option<Stage>,
    /// For a refusal, when known: the paths the issues name, dotted; `[]` is the root.
    pub paths: Option<Vec<String>>,
    pub note: String,
}

impl Case {
    /// The case as one JSON line, keys in the corpus's order: `as`, `type`, `input` (or
    /// `raw`), `ok`, `stage`, `paths`, `note`.
    pub fn to_line(&self) -> String {
        let s = |v: &Value| serde_json::to_string(v).expect("a JSON value serialises");
        let mut out = format!("{{\"as\":{}", s(&json!(self.kind)));
        if let Some(t) = &self.type_name {
            let _ = write!(out, ",\"type\":{}", s(&json!(t)));
        }
        match &self.input {
            Input::Json(v) => {
                let _ = write!(out, ",\"input\":{}", s(v));
            }
            Input::Raw(r) => {
                let _ = write!(out, ",\"raw\":{}", s(&json!(r)));
            }
        }
        let _ = write!(out, ",\"ok\":{}", self.ok);
        if let Some(st) = self.stage {
            let _ = write!(out, ",\"stage\":\"{}\"", st.as_str());
        }
        if let Some(p) = &self.paths {
            let _ = write!(out, ",\"paths\":{}", s(&json!(p)));
        }
        let _ = write!(out, ",\"note\":{}}}", s(&json!(self.note)));
        out
    }
}

/// The cases as a JSON-lines document, one line each, with a trailing newline.
pub fn to_jsonl(cases: &[Case]) -> String {
    let mut out = String::new();
    for c in cases {
        out.push_str(&c.to_line());
        out.push('\n');
    }
    out
}

/// One step of a path into a value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// A path as Zod's `prettifyError` writes it: `a.b[0].c`, a key that is not a word
/// (`[A-Za-z0-9_$]+`) as `["x-y"]`; the root is the empty string.
fn dotted(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
            Seg::Key(k)
                if k.is_empty()
                    || !k
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') =>
            {
                let _ = write!(out, "[{}]", json!(k));
            }
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
        }
    }
    out
}

/// A path for a note: `the value` at the root.
fn shown(path: &[Seg]) -> String {
    if path.is_empty() {
        "the value".to_owned()
    } else {
        dotted(path)
    }
}

fn child(path: &[Seg], seg: Seg) -> Vec<Seg> {
    let mut p = path.to_vec();
    p.push(seg);
    p
}

/// `doc` with the slot at `path` set to `value`, or removed when `value` is `None`. Objects
/// and arrays on the way must exist.
fn with(doc: &Value, path: &[Seg], value: Option<Value>) -> Value {
    let mut doc = doc.clone();
    set_in(&mut doc, path, value);
    doc
}

fn set_in(doc: &mut Value, path: &[Seg], value: Option<Value>) {
    let Some((first, rest)) = path.split_first() else {
        if let Some(v) = value {
            *doc = v;
        }
        return;
    };
    match (first, doc) {
        (Seg::Key(k), Value::Object(o)) => {
            if rest.is_empty() {
                match value {
                    Some(v) => {
                        o.insert(k.clone(), v);
                    }
                    None => {
                        o.remove(k);
                    }
                }
            } else if let Some(inner) = o.get_mut(k) {
                set_in(inner, rest, value);
            }
        }
        (Seg::Index(i), Value::Array(a)) => {
            if let Some(inner) = a.get_mut(*i) {
                if rest.is_empty() {
                    match value {
                        Some(v) => *inner = v,
                        None => {
                            a.remove(*i);
                        }
                    }
                } else {
                    set_in(inner, rest, value);
                }
            }
        }
        _ => {}
    }
}

/// A string no generated value holds: it marks, in `doc` written as JSON, where raw text goes.
const HOLE: &str = "\u{0}hole\u{0}";

/// `doc` written as JSON with the slot at `path` written as `text` (the slot must exist, or
/// its object must).
fn raw_with(doc: &Value, path: &[Seg], text: &str) -> Input {
    let marked = with(doc, path, Some(json!(HOLE)));
    let hole = serde_json::to_string(HOLE).expect("a string serialises");
    let out = serde_json::to_string(&marked)
        .expect("a JSON value serialises")
        .replacen(&hole, text, 1);
    Input::Raw(out)
}

/// The JSON text of a value.
fn text(v: &Value) -> String {
    serde_json::to_string(v).expect("a JSON value serialises")
}

/// The JSON types a value can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum JsonType {
    Null,
    Boolean,
    Number,
    String,
    Array,
    Object,
}

/// What the walk is doing for one root (a table entry or a frame union).
struct Root {
    kind: String,
    type_name: Option<String>,
    /// The stage of every refusal.
    stage: Stage,
    /// What notes start with: `chat.history payload`, `client frame`.
    label: String,
    /// The root's type and the protocol it is written in, where a value is judged by it alone
    /// (not a frame, whose payload is the table's): a derived refusal it still accepts is
    /// recorded as accepted ([`accept`]).
    judged: Option<(String, Ty)>,
}

/// The walker: the model, and what it has already expanded.
struct Gen<'m> {
    model: &'m Checked,
    /// The example mode ([`crate::corpus::examples`]): values are readable, and only the examples
    /// (each root's value, each union variant, each entry's frame) are recorded.
    readable: bool,
    examples: Vec<Example>,
    /// Named structs and unions whose fields were already mutated below a root.
    expanded: BTreeSet<String>,
    /// Enums whose every value was already written.
    enums_listed: BTreeSet<String>,
    out: Vec<Case>,
    /// `(struct, field)` for every field mutated somewhere.
    covered: BTreeSet<(String, String)>,
}

/// Every case derived from `model`, in a deterministic order: the request table (each
/// request's payload, then its result), the event table, the request and event frames that
/// carry them, then the frame unions.
/// Last, one line per example ([`crate::corpus::examples`]): each holds readable values, so the
/// reference can show it as the frame that travels.
pub fn derive(model: &Checked) -> Vec<Case> {
    let mut cases = derive_covering(model).0;
    for e in derive_examples(model) {
        let same = |c: &Case| {
            c.kind == e.case.kind && c.type_name == e.case.type_name && c.input == e.case.input
        };
        if !cases.iter().any(same) {
            cases.push(e.case);
        }
    }
    cases
}

/// [`derive()`], and the `(struct, field)` pairs whose field the cases mutate.
fn derive_covering(model: &Checked) -> (Vec<Case>, BTreeSet<(String, String)>) {
    let mut g = Gen::new(model, false);
    g.walk();
    // The same input checked the same way twice says nothing new: keep the first.
    let mut seen = BTreeSet::new();
    let cases = g
        .out
        .into_iter()
        .filter(|c| seen.insert((c.kind.clone(), c.type_name.clone(), c.input.text())))
        .collect();
    (cases, g.covered)
}

/// The examples of `model` ([`crate::corpus::examples`]): the walk of [`derive()`] with readable
/// values, recording each root's value and each union variant where it first meets it. One
/// example per subject, the first.
pub(crate) fn derive_examples(model: &Checked) -> Vec<Example> {
    let mut g = Gen::new(model, true);
    g.walk();
    let mut out: Vec<Example> = Vec::new();
    for e in g.examples {
        if !out.iter().any(|x| x.subject == e.subject) {
            out.push(e);
        }
    }
    out
}

/// A readable example of `ty` ([`crate::corpus::examples::value`]).
pub(crate) fn readable_value(model: &Checked, ty: &Ty) -> Value {
    Gen::new(model, true).minimal(ty, 0)
}

impl<'m> Gen<'m> {
    fn new(model: &'m Checked, readable: bool) -> Gen<'m> {
        Gen {
            model,
            readable,
            examples: Vec::new(),
            expanded: BTreeSet::new(),
            enums_listed: BTreeSet::new(),
            out: Vec::new(),
            covered: BTreeSet::new(),
        }
    }

    /// Every root in order: the request table (each request's payload, then its result), the
    /// event table, the types outside the tables, the entry frames, then the frame unions.
    fn walk(&mut self) {
        let model = self.model;
        let g = self;
        for (owner, r) in model.all_requests() {
            let root = Root {
                kind: "payload".into(),
                type_name: Some(r.name.clone()),
                stage: Stage::Table,
                label: format!("{} payload", r.name),
                judged: Some((owner.name.clone(), r.payload.clone())),
            };
            g.root(&root, &r.payload);
            let root = Root {
                kind: "result".into(),
                type_name: Some(r.name.clone()),
                stage: Stage::Table,
                label: format!("{} result", r.name),
                judged: Some((owner.name.clone(), r.result.clone())),
            };
            g.root(&root, &r.result);
        }
        for (owner, e) in model.all_events() {
            let root = Root {
                kind: "event".into(),
                type_name: Some(e.name.clone()),
                stage: Stage::Table,
                label: format!("{} event", e.name),
                judged: Some((owner.name.clone(), e.payload.clone())),
            };
            g.root(&root, &e.payload);
        }
        // The types no table entry reaches, as bare values: the frames, and the contracts kept
        // outside the tables (`TaskChangedEvent`).
        for def in model.outside_tables() {
            let root = Root {
                kind: "type".into(),
                type_name: Some(def.name.clone()),
                stage: Stage::Table,
                label: format!("{} value", def.name),
                judged: Some((model.name.clone(), reference(def))),
            };
            g.root(&root, &reference(def));
        }
        g.frames();
        for (kind, name) in [("client", "ClientFrame"), ("server", "ServerFrame")] {
            let Some(def) = model.own_type(name) else {
                continue;
            };
            let TypeDefKind::Union(u) = &def.kind else {
                continue;
            };
            if u.tag == UnionTag::Untagged {
                continue;
            }
            let root = Root {
                kind: kind.into(),
                type_name: None,
                stage: Stage::Envelope,
                label: format!("{kind} frame"),
                judged: None,
            };
            g.root(&root, &reference(def));
        }
    }
}

/// A reference to `def`, a type of the model at hand, written where it is declared.
fn reference(def: &TypeDef) -> Ty {
    Ty {
        kind: TyKind::Ref(crate::model::TypeRef {
            name: def.name.clone(),
            protocol: None,
        }),
        loc: def.loc.clone(),
    }
}

impl<'m> Gen<'m> {
    fn push(
        &mut self,
        root: &Root,
        input: Input,
        refused: Option<&[Seg]>,
        exact: bool,
        note: String,
    ) {
        if self.readable {
            return;
        }
        // A refusal the schema does not make (another variant reads the broken value) is an
        // acceptance: every derived verdict is the schema's.
        // Raw text is read as `JSON.parse` reads it (a repeated key's last value wins).
        let value = match &input {
            Input::Json(v) => Some(v.clone()),
            Input::Raw(text) => serde_json::from_str::<Value>(text).ok(),
        };
        let (refused, note) = match (refused, &root.judged, value) {
            (Some(_), Some((owner, ty)), Some(v))
                if accept::accepts(self.model.named(owner), ty, &v) =>
            {
                (None, format!("{note} (the schema still accepts it)"))
            }
            _ => (refused, note),
        };
        let ok = refused.is_none();
        self.out.push(Case {
            kind: root.kind.clone(),
            type_name: root.type_name.clone(),
            input,
            ok,
            stage: if ok { None } else { Some(root.stage) },
            paths: match refused {
                Some(p) if exact => Some(if p.is_empty() {
                    Vec::new()
                } else {
                    vec![dotted(p)]
                }),
                _ => None,
            },
            note: format!("{}: {note}", root.label),
        });
    }

    fn accept(&mut self, root: &Root, input: impl Into<Input>, note: String) {
        self.push(root, input.into(), None, true, note);
    }

    /// In the example mode, records `doc` (a valid value of the root) as the example of
    /// `subject`, showing the value at `at`.
    fn example(&mut self, root: &Root, subject: Subject, doc: &Value, at: &[Seg], note: &str) {
        if !self.readable {
            return;
        }
        let shown = get(doc, at).cloned().unwrap_or(Value::Null);
        self.examples.push(Example {
            subject,
            shown,
            case: Case {
                kind: root.kind.clone(),
                type_name: root.type_name.clone(),
                input: Input::Json(doc.clone()),
                ok: true,
                stage: None,
                paths: None,
                note: format!("example: {}: {note}", root.label),
            },
        });
    }

    fn refuse(
        &mut self,
        root: &Root,
        input: impl Into<Input>,
        at: &[Seg],
        exact: bool,
        note: String,
    ) {
        self.push(root, input.into(), Some(at), exact, note);
    }

    /// Every case for one root value of type `ty`.
    fn root(&mut self, root: &Root, ty: &Ty) {
        let doc = self.minimal(ty, 0);
        self.accept(root, doc.clone(), "a minimal valid value".into());
        let name = root.type_name.clone().unwrap_or_default();
        let subject = match root.kind.as_str() {
            "payload" => Some(Subject::Payload(name)),
            "result" => Some(Subject::Result(name)),
            "event" => Some(Subject::Event(name)),
            "type" => Some(Subject::Type(name)),
            _ => None,
        };
        if let Some(subject) = subject {
            self.example(root, subject, &doc, &[], "the value");
        }
        let accepted = self.json_types(ty);
        if !accepted.contains(&JsonType::Null) {
            self.refuse(root, Value::Null, &[], true, "null".into());
        }
        self.slot(root, &doc, &[], ty, true, true);
    }

    /// The request and event frames of the agent protocol, one per table entry with its
    /// minimal payload, when the model has them (`Request` and `Event` structs): the name
    /// picks the table entry.
    fn frames(&mut self) {
        // The frames are the model's own or a base's (an app's requests travel in the
        // agent's `Request`).
        fn find<'a>(m: &'a Model, n: &str) -> Option<&'a TypeDef> {
            m.own_type(n)
                .or_else(|| m.bases.iter().find_map(|b| find(b, n)))
        }
        let model = self.model;
        let has = |n: &str| {
            matches!(
                find(model, n).map(|d| &d.kind),
                Some(TypeDefKind::Struct(_))
            )
        };
        if !has("Request") || !has("Event") {
            return;
        }
        let request = Root {
            kind: "request".into(),
            type_name: None,
            stage: Stage::Table,
            label: "request frame".into(),
            judged: None,
        };
        let requests: Vec<(&Model, String, Ty)> = self
            .model
            .all_requests()
            .into_iter()
            .map(|(owner, r)| (owner, r.name.clone(), r.payload.clone()))
            .collect();
        for (owner, name, payload) in &requests {
            // A base's entry is written in the base.
            let p = Gen::new(self.model.named(&owner.name), self.readable).minimal(payload, 0);
            let frame = json!({ "id": "1", "type": name, "payload": p });
            self.accept(
                &request,
                frame.clone(),
                format!("{name} with a minimal payload"),
            );
            let subject = Subject::EntryFrame {
                kind: "request".into(),
                name: name.clone(),
            };
            self.example(&request, subject, &frame, &[], name);
            // The first refusal the table derived for this payload, carried by a frame.
            let refused = self
                .out
                .iter()
                .find(|c| {
                    c.kind == "payload"
                        && c.type_name.as_deref() == Some(name)
                        && !c.ok
                        && matches!(c.input, Input::Json(_))
                        && c.paths.as_ref().is_some_and(|p| !p.is_empty())
                })
                .cloned();
            if let Some(Case {
                input: Input::Json(payload),
                paths,
                note,
                ..
            }) = refused
            {
                let note = note.split_once(": ").map_or("", |x| x.1).to_owned();
                self.out.push(Case {
                    kind: "request".into(),
                    type_name: None,
                    input: json!({ "id": "1", "type": name, "payload": payload }).into(),
                    ok: false,
                    stage: Some(Stage::Table),
                    paths,
                    note: format!("request frame: {name} with {note}"),
                });
            }
        }
        let server = Root {
            kind: "server".into(),
            type_name: None,
            stage: Stage::Table,
            label: "server frame".into(),
            judged: None,
        };
        let events: Vec<(&Model, String, Ty)> = self
            .model
            .all_events()
            .into_iter()
            .map(|(owner, e)| (owner, e.name.clone(), e.payload.clone()))
            .collect();
        for (owner, name, payload) in &events {
            let p = Gen::new(self.model.named(&owner.name), self.readable).minimal(payload, 0);
            let frame = json!({ "type": "event", "event": name, "payload": p });
            self.accept(
                &server,
                frame.clone(),
                format!("{name} event with a minimal payload"),
            );
            let subject = Subject::EntryFrame {
                kind: "server".into(),
                name: name.clone(),
            };
            self.example(&server, subject, &frame, &[], &format!("{name} event"));
        }
    }

    /// The definition a type expression names, following aliases; `None` for a primitive.
    fn def_of(&self, ty: &Ty) -> Option<&'m TypeDef> {
        match &self.model.unalias(ty).kind {
            TyKind::Ref(r) => self.model.resolve(r),
            _ => None,
        }
    }

    /// The smallest valid value of `ty`: required fields only, the first variant, the lower
    /// bounds, null for a nullable.
    fn minimal(&self, ty: &Ty, depth: usize) -> Value {
        self.minimal_hinted(ty, depth, Hint::default())
    }

    /// [`Self::minimal`], told what names the slot: in the example mode, a string, a number
    /// or an id is made from those names ([`crate::corpus::examples`]).
    fn minimal_hinted(&self, ty: &Ty, depth: usize, hint: Hint) -> Value {
        if depth > 32 {
            return Value::Null;
        }
        // A base's type (an app's `agent::ChatInfo`): its own references are written in the
        // base, so it is made there.
        if let TyKind::Ref(r) = &ty.kind
            && let Some(p) = &r.protocol
            && *p != self.model.name
            && let Some(base) = self.model.base(p)
        {
            let local = Ty {
                kind: TyKind::Ref(TypeRef {
                    name: r.name.clone(),
                    protocol: None,
                }),
                loc: ty.loc.clone(),
            };
            return Gen::new(base, self.readable).minimal_hinted(&local, depth, hint);
        }
        let mut hint = hint;
        if let TyKind::Ref(r) = &ty.kind
            && let Some(TypeDefKind::Alias(_)) = self.model.resolve(r).map(|d| &d.kind)
            && hint.alias.is_none()
        {
            hint.alias = Some(self.model.resolve(r).map_or("", |d| d.name.as_str()));
        }
        match &self.model.unalias(ty).kind {
            TyKind::String(l, Some(f)) => json!(format_value(*f, l, self.readable)),
            TyKind::String(l, None) if self.readable => json!(examples::string(&hint, l)),
            TyKind::String(l, None) => {
                let n = l.min.unwrap_or(0).max(1).min(l.max.unwrap_or(u64::MAX));
                json!("a".repeat(n as usize))
            }
            TyKind::Boolean => json!(false),
            TyKind::Int(l, _) if self.readable => json!(examples::int(&hint, l)),
            TyKind::Number(l) if self.readable => json!(examples::number(&hint, l)),
            TyKind::Int(l, _) | TyKind::Number(l) => json!(int_minimal(l.min, l.max)),
            TyKind::Unknown => Value::Null,
            TyKind::Literal(l) => literal(l),
            TyKind::Array(inner, l) => {
                let item = self.minimal_hinted(inner, depth + 1, hint);
                // An example shows one item where the limits allow, until deep down.
                let n = match l.min.unwrap_or(0) {
                    0 if self.readable && depth < 6 && l.max != Some(0) => 1,
                    n => n,
                };
                Value::Array(vec![item; n as usize])
            }
            TyKind::Map(inner) if self.readable && depth < 6 => {
                let key = hint.key.map_or("key".to_owned(), |k| {
                    examples::words(k).first().cloned().unwrap_or_default() + "-1"
                });
                json!({ key: self.minimal_hinted(inner, depth + 1, hint) })
            }
            TyKind::Map(_) => json!({}),
            TyKind::Nullable(inner) if self.readable && depth < 6 => {
                self.minimal_hinted(inner, depth + 1, hint)
            }
            TyKind::Nullable(_) => Value::Null,
            TyKind::Ref(r) => match self.model.resolve(r).map(|d| (d, &d.kind)) {
                Some((d, TypeDefKind::Struct(s))) => self.minimal_struct(&d.name, s, depth),
                Some((_, TypeDefKind::Enum(e))) => e
                    .values
                    .iter()
                    .find(|v| !v.meta.legacy && (!self.readable || v.meta.deprecated.is_none()))
                    .or(e.values.first())
                    .map_or(json!("a"), EnumValue::json),
                Some((_, TypeDefKind::Union(u))) => {
                    let first = if self.readable {
                        u.variants
                            .iter()
                            .find(|v| v.meta.deprecated.is_none())
                            .or(u.variants.first())
                    } else {
                        u.variants.first()
                    };
                    match first {
                        Some(v) => self.minimal_variant(u, v, depth),
                        None => Value::Null,
                    }
                }
                Some((_, TypeDefKind::Alias(inner))) => self.minimal_hinted(inner, depth + 1, hint),
                None => Value::Null,
            },
        }
    }

    fn minimal_struct(&self, name: &str, s: &Struct, depth: usize) -> Value {
        let mut o = Map::new();
        for f in &s.fields {
            if !f.optional {
                o.insert(f.name.clone(), self.minimal_field(name, f, depth + 1));
            }
        }
        // In the example mode, a `#[table]` payload is the first entry's, named by its key.
        if self.readable
            && let Some(frame) = self.model.analysis().frames.get(name)
        {
            let (f, key) = (&s.fields[frame.field], &s.fields[frame.key]);
            let entry = match frame.table {
                TableKind::Requests => self
                    .model
                    .all_requests()
                    .first()
                    .map(|(_, r)| (r.name.clone(), r.payload.clone())),
                TableKind::Events => self
                    .model
                    .all_events()
                    .first()
                    .map(|(_, e)| (e.name.clone(), e.payload.clone())),
            };
            if let Some((entry, payload)) = entry
                && depth < 6
            {
                o.insert(key.name.clone(), json!(entry));
                o.insert(f.name.clone(), self.minimal(&payload, depth + 1));
            }
        }
        Value::Object(o)
    }

    /// The minimal value of a field of the struct `owner`.
    fn minimal_field(&self, owner: &str, f: &crate::model::Field, depth: usize) -> Value {
        let hint = Hint {
            key: Some(&f.name),
            alias: None,
            owner: Some(owner),
        };
        self.minimal_hinted(&f.ty, depth, hint)
    }

    fn minimal_variant(&self, u: &Union, v: &crate::model::Variant, depth: usize) -> Value {
        let mut value = self.minimal(&v.ty, depth + 1);
        if let (UnionTag::Tagged { field, .. }, Some(tag), Value::Object(o)) =
            (&u.tag, &v.tag, &mut value)
        {
            o.insert(field.clone(), json!(tag));
        }
        value
    }

    /// The JSON types some value of `ty` has.
    fn json_types(&self, ty: &Ty) -> BTreeSet<JsonType> {
        let mut out = BTreeSet::new();
        self.json_types_into(ty, &mut out, 0);
        out
    }

    fn json_types_into(&self, ty: &Ty, out: &mut BTreeSet<JsonType>, depth: usize) {
        if depth > 32 {
            return;
        }
        match &self.model.unalias(ty).kind {
            TyKind::String(..) => {
                out.insert(JsonType::String);
            }
            TyKind::Boolean => {
                out.insert(JsonType::Boolean);
            }
            TyKind::Int(..) | TyKind::Number(_) => {
                out.insert(JsonType::Number);
            }
            TyKind::Unknown => {
                out.extend([
                    JsonType::Null,
                    JsonType::Boolean,
                    JsonType::Number,
                    JsonType::String,
                    JsonType::Array,
                    JsonType::Object,
                ]);
            }
            TyKind::Literal(l) => {
                out.insert(match l {
                    Literal::String(_) => JsonType::String,
                    Literal::Bool(_) => JsonType::Boolean,
                    Literal::Int(_) => JsonType::Number,
                    Literal::Null => JsonType::Null,
                });
            }
            TyKind::Array(..) => {
                out.insert(JsonType::Array);
            }
            TyKind::Map(_) => {
                out.insert(JsonType::Object);
            }
            TyKind::Nullable(inner) => {
                out.insert(JsonType::Null);
                self.json_types_into(inner, out, depth + 1);
            }
            TyKind::Ref(r) => match self.model.resolve(r).map(|d| &d.kind) {
                Some(TypeDefKind::Struct(_)) => {
                    out.insert(JsonType::Object);
                }
                Some(TypeDefKind::Enum(e)) => {
                    out.insert(if e.is_int() {
                        JsonType::Number
                    } else {
                        JsonType::String
                    });
                }
                Some(TypeDefKind::Union(u)) => {
                    for v in &u.variants {
                        self.json_types_into(&v.ty, out, depth + 1);
                    }
                }
                Some(TypeDefKind::Alias(inner)) => self.json_types_into(inner, out, depth + 1),
                None => {}
            },
        }
    }

    /// A value of a JSON type `ty` never has, if there is one.
    fn wrong_value(&self, ty: &Ty) -> Option<(Value, &'static str)> {
        let accepted = self.json_types(ty);
        [
            (JsonType::Number, json!(42), "a number"),
            (JsonType::String, json!("wrong"), "a string"),
            (JsonType::Boolean, json!(true), "a boolean"),
            (JsonType::Array, json!([]), "an array"),
            (JsonType::Object, json!({}), "an object"),
        ]
        .into_iter()
        .find(|(t, _, _)| !accepted.contains(t))
        .map(|(_, v, what)| (v, what))
    }

    /// The cases for the slot at `at` in `doc`, which holds a valid value of `ty`: its
    /// wrong type, its limits, its values, and the fields and variants inside it. `top`: the
    /// slot is a root or a root's own field, whose named type is expanded however often it
    /// is met. `exact`: no untagged union lies on the way, so Zod names the slot's own path.
    fn slot(&mut self, root: &Root, doc: &Value, at: &[Seg], ty: &Ty, top: bool, exact: bool) {
        let what = shown(at);
        if let Some((v, kind)) = self.wrong_value(ty) {
            self.refuse(
                root,
                with(doc, at, Some(v)),
                at,
                exact,
                format!("{what} is {kind}"),
            );
        }
        let model = self.model;
        let plain = model.unalias(ty);
        match &plain.kind {
            TyKind::String(l, Some(f)) => self.format_edges(root, doc, at, *f, l, exact),
            TyKind::String(l, None) => self.string_edges(root, doc, at, l.min, l.max, exact),
            TyKind::Int(l, Width::Safe) => self.int_edges(root, doc, at, l.min, l.max, exact),
            TyKind::Int(l, w) => self.wide_edges(root, doc, at, *w, l, exact),
            TyKind::Number(l) => self.number_edges(root, doc, at, l.min, l.max, exact),
            TyKind::Boolean | TyKind::Unknown => {}
            TyKind::Literal(l) => {
                let other = match l {
                    Literal::String(s) => json!(format!("{s}-other")),
                    Literal::Bool(b) => json!(!b),
                    Literal::Int(i) => json!(i + 1),
                    Literal::Null => json!(false),
                };
                self.refuse(
                    root,
                    with(doc, at, Some(other)),
                    at,
                    exact,
                    format!("{what} is another value than the literal"),
                );
            }
            TyKind::Array(inner, l) => {
                let item = self.minimal(inner, 0);
                for (n, ok, edge) in edges_u64(l.min, l.max) {
                    let v = Value::Array(vec![item.clone(); n as usize]);
                    let note = format!("{what} with {n} items ({edge})");
                    if ok {
                        self.accept(root, with(doc, at, Some(v)), note);
                    } else {
                        self.refuse(root, with(doc, at, Some(v)), at, exact, note);
                    }
                }
                if l.max != Some(0) {
                    let n = l.min.unwrap_or(0).max(1) as usize;
                    let doc = with(doc, at, Some(Value::Array(vec![item; n])));
                    self.accept(root, doc.clone(), format!("{what} with {n} item(s)"));
                    self.slot(root, &doc, &child(at, Seg::Index(0)), inner, top, exact);
                }
            }
            TyKind::Map(inner) => {
                let key = "k".to_owned();
                let doc = with(
                    doc,
                    at,
                    Some(json!({ key.clone(): self.minimal(inner, 0) })),
                );
                self.accept(root, doc.clone(), format!("{what} with one entry"));
                let at = child(at, Seg::Key(key));
                if !self.json_types(inner).contains(&JsonType::Null) {
                    self.refuse(
                        root,
                        with(&doc, &at, Some(Value::Null)),
                        &at,
                        exact,
                        format!("{} is null", shown(&at)),
                    );
                }
                self.slot(root, &doc, &at, inner, top, exact);
            }
            TyKind::Nullable(inner) => {
                let doc = with(doc, at, Some(self.minimal(inner, 0)));
                self.accept(root, doc.clone(), format!("{what} is not null"));
                self.slot(root, &doc, at, inner, top, exact);
            }
            TyKind::Ref(_) => {
                let Some(def) = self.def_of(ty) else { return };
                match &def.kind {
                    TypeDefKind::Struct(s) => {
                        if top || self.expanded.insert(def.name.clone()) {
                            self.fields(root, doc, at, &def.name, s, exact);
                        }
                    }
                    TypeDefKind::Enum(e) if e.is_int() => {
                        self.int_enum(root, doc, at, &def.name, e, exact);
                    }
                    TypeDefKind::Enum(e) => {
                        let unknown = "not-a-listed-value";
                        let note = format!("{what} is a value {} does not list", def.name);
                        if e.open {
                            self.accept(
                                root,
                                with(doc, at, Some(json!(unknown))),
                                note + " (open)",
                            );
                        } else {
                            self.refuse(root, with(doc, at, Some(json!(unknown))), at, exact, note);
                        }
                        let list_all = self.enums_listed.insert(def.name.clone());
                        for v in &e.values {
                            if v.meta.legacy || list_all {
                                let legacy = if v.meta.legacy { " (legacy)" } else { "" };
                                self.accept(
                                    root,
                                    with(doc, at, Some(v.json())),
                                    format!("{what} is {}{legacy}", v.shown()),
                                );
                            }
                        }
                    }
                    TypeDefKind::Union(u) => {
                        if top || self.expanded.insert(def.name.clone()) {
                            self.union(root, doc, at, &def.name, u, top, exact);
                        }
                    }
                    TypeDefKind::Alias(_) => {}
                }
            }
        }
    }

    /// The fields of an object at `at`.
    fn fields(
        &mut self,
        root: &Root,
        doc: &Value,
        at: &[Seg],
        name: &str,
        s: &'m Struct,
        exact: bool,
    ) {
        let owner = name;
        for f in &s.fields {
            self.covered.insert((name.to_owned(), f.name.clone()));
        }
        let what = shown(at);
        // An open object's other keys hold values of its rest's type; any other object's
        // are dropped, whatever they hold.
        let rest = s.rest.as_ref().and_then(|r| match &r.ty.kind {
            TyKind::Map(inner) => Some(&**inner),
            _ => None,
        });
        let unknown_at = child(at, Seg::Key(UNKNOWN_KEY.into()));
        let mut extra = doc.clone();
        if let Some(Value::Object(_)) = get(doc, at) {
            let value = rest.map_or(json!(1), |t| self.minimal(t, 0));
            extra = with(doc, &unknown_at, Some(value));
        }
        self.accept(root, extra, format!("{what} with an unknown key"));
        if let Some(t) = rest
            && let Some(Value::Object(_)) = get(doc, at)
            && let Some((wrong, _)) = self.wrong_value(t)
        {
            self.refuse(
                root,
                with(doc, &unknown_at, Some(wrong)),
                &unknown_at,
                exact,
                format!("{what} with an unknown key that is not its rest's type"),
            );
        }
        // A duplicate key: the last one wins, as JSON.parse has it.
        if let Some(f) = s.fields.iter().find(|f| self.wrong_value(&f.ty).is_some()) {
            let fat = child(at, Seg::Key(f.name.clone()));
            let name = dotted(&fat);
            let (wrong, _) = self.wrong_value(&f.ty).expect("found above");
            let valid = self.minimal(&f.ty, 0);
            let key = text(&json!(f.name));
            self.accept(
                root,
                raw_with(
                    doc,
                    &fat,
                    &format!("{},{key}:{}", text(&wrong), text(&valid)),
                ),
                format!("{name} twice, the last valid (the last one wins)"),
            );
            self.refuse(
                root,
                raw_with(
                    doc,
                    &fat,
                    &format!("{},{key}:{}", text(&valid), text(&wrong)),
                ),
                &fat,
                exact,
                format!("{name} twice, the last invalid (the last one wins)"),
            );
        }
        for f in &s.fields {
            let fat = child(at, Seg::Key(f.name.clone()));
            let name = dotted(&fat);
            let doc = if f.optional {
                self.accept(root, doc.clone(), format!("{name} absent (optional)"));
                let present = with(doc, &fat, Some(self.minimal_field(owner, f, 0)));
                self.accept(root, present.clone(), format!("{name} present"));
                if let Some(d) = &f.default {
                    self.accept(
                        root,
                        with(doc, &fat, Some(d.clone())),
                        format!("{name} at its default"),
                    );
                }
                present
            } else {
                self.refuse(
                    root,
                    with(doc, &fat, None),
                    &fat,
                    exact,
                    format!("{name} absent (required)"),
                );
                doc.clone()
            };
            let nullable = self.json_types(&f.ty).contains(&JsonType::Null);
            let null = with(&doc, &fat, Some(Value::Null));
            if nullable {
                self.accept(root, null, format!("{name} null (its type admits null)"));
            } else {
                let why = if f.optional {
                    " (optional is not nullable)"
                } else {
                    ""
                };
                self.refuse(root, null, &fat, exact, format!("{name} null{why}"));
            }
            self.slot(root, &doc, &fat, &f.ty, false, exact);
        }
    }

    /// A union at `at`: its tag absent or unknown, each variant, the fields inside each.
    #[allow(clippy::too_many_arguments)]
    fn union(
        &mut self,
        root: &Root,
        doc: &Value,
        at: &[Seg],
        name: &str,
        u: &'m Union,
        top: bool,
        exact: bool,
    ) {
        let what = shown(at);
        match &u.tag {
            UnionTag::Tagged { field, .. } => {
                let tag_at = child(at, Seg::Key(field.clone()));
                self.refuse(
                    root,
                    with(doc, &tag_at, None),
                    &tag_at,
                    exact,
                    format!("{name} without its tag {field:?}"),
                );
                self.refuse(
                    root,
                    with(doc, &tag_at, Some(json!("not-a-variant"))),
                    &tag_at,
                    exact,
                    format!("{name} with an unknown tag"),
                );
                if let Some(tag) = get(doc, &tag_at) {
                    let key = text(&json!(field));
                    self.accept(
                        root,
                        raw_with(
                            doc,
                            &tag_at,
                            &format!("\"not-a-variant\",{key}:{}", text(tag)),
                        ),
                        format!("{name} with its tag twice, the last known (the last one wins)"),
                    );
                    self.refuse(
                        root,
                        raw_with(
                            doc,
                            &tag_at,
                            &format!("{},{key}:\"not-a-variant\"", text(tag)),
                        ),
                        &tag_at,
                        exact,
                        format!("{name} with its tag twice, the last unknown (the last one wins)"),
                    );
                }
                for v in &u.variants {
                    let value = self.minimal_variant(u, v, 0);
                    let doc = with(doc, at, Some(value));
                    let tag = v.tag.clone().unwrap_or_default();
                    self.accept(root, doc.clone(), format!("{what} is a minimal {tag:?}"));
                    let frame = at.is_empty() && matches!(root.kind.as_str(), "client" | "server");
                    let subject = if frame {
                        Subject::Frame {
                            union: name.to_owned(),
                            tag: tag.clone(),
                        }
                    } else {
                        Subject::Variant {
                            union: name.to_owned(),
                            variant: tag.clone(),
                        }
                    };
                    self.example(root, subject, &doc, at, &format!("{what} is {tag:?}"));
                    let Some(def) = self.def_of(&v.ty) else {
                        continue;
                    };
                    if let TypeDefKind::Struct(s) = &def.kind
                        && (top || self.expanded.insert(def.name.clone()) || def.synthetic)
                    {
                        self.fields(root, &doc, at, &def.name, s, exact);
                    }
                }
            }
            UnionTag::Untagged => {
                for (i, v) in u.variants.iter().enumerate() {
                    let value = self.minimal(&v.ty, 0);
                    let doc = with(doc, at, Some(value));
                    self.accept(
                        root,
                        doc.clone(),
                        format!("{what} is variant {} of {name}", i + 1),
                    );
                    let variant = match &v.ty.kind {
                        TyKind::Ref(r) => r.name.clone(),
                        _ => format!("{}", i + 1),
                    };
                    let subject = Subject::Variant {
                        union: name.to_owned(),
                        variant: variant.clone(),
                    };
                    self.example(root, subject, &doc, at, &format!("{what} is {variant}"));
                    // Zod names the union, not the field, when no variant accepts.
                    self.slot(root, &doc, at, &v.ty, top, false);
                }
            }
        }
    }

    fn string_edges(
        &mut self,
        root: &Root,
        doc: &Value,
        at: &[Seg],
        min: Option<u64>,
        max: Option<u64>,
        exact: bool,
    ) {
        let what = shown(at);
        for (n, ok, edge) in edges_u64(min, max) {
            // The lower edge itself in ASCII; every other edge in astral characters, so
            // counting UTF-16 units or bytes gets it wrong.
            let (s, how) = if edge == "min" {
                ("a".repeat(n as usize), "")
            } else {
                (WIDE.to_string().repeat(n as usize), " astral")
            };
            let note = format!("{what} of {n}{how} characters ({edge})");
            let input = with(doc, at, Some(json!(s)));
            if ok {
                self.accept(root, input, note);
            } else {
                self.refuse(root, input, at, exact, note);
            }
        }
    }

    /// An integer enum's cases: a value it does not list (refused unless it is open), every
    /// listed value once per enum and every legacy one, its first value written `1.0`
    /// (accepted) and `1.5` (refused); an open one also reads as `int` does (its edges).
    fn int_enum(
        &mut self,
        root: &Root,
        doc: &Value,
        at: &[Seg],
        name: &str,
        e: &Enum,
        exact: bool,
    ) {
        let what = shown(at);
        let unlisted = e
            .ints()
            .max()
            .map_or(0, |m| m.saturating_add(1))
            .min(MAX_SAFE);
        let unlisted = if e.ints().any(|i| i == unlisted) {
            e.ints().min().map_or(0, |m| m - 1)
        } else {
            unlisted
        };
        let note = format!("{what} = {unlisted}, a value {name} does not list");
        let input = with(doc, at, Some(json!(unlisted)));
        if e.open {
            self.accept(root, input, note + " (open)");
            self.int_edges(root, doc, at, None, None, exact);
        } else {
            self.refuse(root, input, at, exact, note);
            if let Some(first) = e.ints().next() {
                self.accept(
                    root,
                    with(doc, at, Some(json!(first as f64))),
                    format!("{what} = {first}.0, a listed value written with a fraction"),
                );
                self.refuse(
                    root,
                    with(doc, at, Some(json!(first as f64 + 0.5))),
                    at,
                    exact,
                    format!("{what} = {}, not an integer", first as f64 + 0.5),
                );
            }
        }
        let list_all = self.enums_listed.insert(name.to_owned());
        for v in &e.values {
            if v.meta.legacy || list_all {
                let legacy = if v.meta.legacy { " (legacy)" } else { "" };
                self.accept(
                    root,
                    with(doc, at, Some(v.json())),
                    format!("{what} is {}{legacy}", v.shown()),
                );
            }
        }
    }

    /// A string with a format: values of it and values that are not, around its rule (the
    /// verdict of each computed by the rule and the lengths, as both sides judge it).
    fn format_edges(
        &mut self,
        root: &Root,
        doc: &Value,
        at: &[Seg],
        f: Format,
        l: &Limits<u64>,
        exact: bool,
    ) {
        let what = shown(at);
        let cases: &[&str] = match f {
            Format::Byte => &[
                "",
                "AAAA",
                "aGVsbG8=",
                "AA==",
                "AAA=",
                "+/+/",
                "A===",
                "AA=A",
                "AAA",
                "====",
                "AAAA\n",
                "AA-_",
                "AAA\u{e9}",
            ],
            Format::Uri => &[
                "a:",
                "urn:x",
                "https://example.com/a?b#c",
                "A+.-9:rest",
                "1a:",
                ":x",
                "a b:",
                "",
                "noscheme",
                "\u{e9}:x",
                "file:///tmp",
            ],
        };
        for s in cases {
            let n = s.chars().count() as u64;
            let ok = f.accepts(s) && l.min.is_none_or(|m| n >= m) && l.max.is_none_or(|m| n <= m);
            let input = with(doc, at, Some(json!(s)));
            let note = format!("{what} = {s:?} (format {})", f.name());
            if ok {
                self.accept(root, input, note);
            } else {
                self.refuse(root, input, at, exact, note);
            }
        }
    }

    /// An `int64` or a `uint64`: texts around the width's range, judged on the double
    /// `JSON.parse` gives (both sides' rule), and beyond 2^53, where JavaScript rounds.
    fn wide_edges(
        &mut self,
        root: &Root,
        doc: &Value,
        at: &[Seg],
        w: Width,
        l: &Limits<i64>,
        exact: bool,
    ) {
        let what = shown(at);
        let (lo, hi, cases): (f64, f64, &[&str]) = match w {
            Width::U64 => (
                0.0,
                18_446_744_073_709_551_616.0,
                &[
                    "0",
                    "-0",
                    "-1",
                    "1e2",
                    "1.5",
                    "9007199254740993",
                    "18446744073709549568",
                    "18446744073709551615",
                    "18446744073709551616",
                    "1e20",
                ],
            ),
            _ => (
                -9_223_372_036_854_775_808.0,
                9_223_372_036_854_775_808.0,
                &[
                    "0",
                    "-0",
                    "1e2",
                    "1.5",
                    "9007199254740993",
                    "-9007199254740993",
                    "9223372036854774784",
                    "9223372036854775807",
                    "9223372036854775808",
                    "-9223372036854775808",
                    "-9223372036854775809",
                    "-9223372036854777856",
                ],
            ),
        };
        for text in cases {
            let v: f64 = text.parse().unwrap_or(f64::NAN);
            let ok = v.fract() == 0.0
                && v >= lo
                && v < hi
                && l.min.is_none_or(|m| v >= m as f64)
                && l.max.is_none_or(|m| v <= m as f64);
            let input = raw_with(doc, at, text);
            let note = format!("{what} = {text} ({}, read as a double)", w.name());
            if ok {
                self.accept(root, input, note);
            } else {
                self.refuse(root, input, at, exact, note);
            }
        }
        self.beyond_every_range(root, doc, at, exact);
    }

    fn int_edges(
        &mut self,
        root: &Root,
        doc: &Value,
        at: &[Seg],
        min: Option<i64>,
        max: Option<i64>,
        exact: bool,
    ) {
        let what = shown(at);
        let lo = min.unwrap_or(-MAX_SAFE).max(-MAX_SAFE);
        let hi = max.unwrap_or(MAX_SAFE).min(MAX_SAFE);
        let lo_name = if min.is_some() {
            "min"
        } else {
            "the safe range's min"
        };
        let hi_name = if max.is_some() {
            "max"
        } else {
            "the safe range's max"
        };
        let cases = [
            (lo, true, lo_name.to_owned()),
            (lo - 1, false, format!("{lo_name} - 1")),
            (hi, true, hi_name.to_owned()),
            (hi + 1, false, format!("{hi_name} + 1")),
        ];
        for (n, ok, edge) in cases {
            let input = with(doc, at, Some(json!(n)));
            let note = format!("{what} = {n} ({edge})");
            if ok {
                self.accept(root, input, note);
            } else {
                self.refuse(root, input, at, exact, note);
            }
        }
        let m = int_minimal(min, max);
        self.accept(
            root,
            with(doc, at, Some(json!(m as f64))),
            format!("{what} = {m}.0 (an integral number written with a fraction)"),
        );
        let written = if (lo..=hi).contains(&100) {
            "1e2".to_owned()
        } else {
            format!("{m}E0")
        };
        self.accept(
            root,
            raw_with(doc, at, &written),
            format!("{what} = {written} (an integer written with an exponent)"),
        );
        if (lo..=hi).contains(&0) {
            self.accept(
                root,
                raw_with(doc, at, "-0"),
                format!("{what} = -0 (the integer 0)"),
            );
        }
        self.beyond_every_range(root, doc, at, exact);
        let frac = if m < hi {
            m as f64 + 0.5
        } else {
            m as f64 - 0.5
        };
        self.refuse(
            root,
            with(doc, at, Some(json!(frac))),
            at,
            exact,
            format!("{what} = {frac} (not an integer)"),
        );
    }

    /// `1e400`: a JSON number (`JSON.parse` reads it as Infinity) that no `int` or `number`
    /// holds. It is JSON, so it is refused where the value is checked, at the slot's path,
    /// not at the envelope as unreadable text.
    fn beyond_every_range(&mut self, root: &Root, doc: &Value, at: &[Seg], exact: bool) {
        self.refuse(
            root,
            raw_with(doc, at, "1e400"),
            at,
            exact,
            format!("{} = 1e400 (a JSON number beyond every range)", shown(at)),
        );
    }

    fn number_edges(
        &mut self,
        root: &Root,
        doc: &Value,
        at: &[Seg],
        min: Option<i64>,
        max: Option<i64>,
        exact: bool,
    ) {
        let what = shown(at);
        let mut cases = Vec::new();
        if let Some(lo) = min {
            cases.push((lo as f64, true, "min"));
            cases.push((lo as f64 - 1.0, false, "min - 1"));
            cases.push((lo as f64 - 0.5, false, "min - 0.5"));
        }
        if let Some(hi) = max {
            cases.push((hi as f64, true, "max"));
            cases.push((hi as f64 + 1.0, false, "max + 1"));
            cases.push((hi as f64 + 0.5, false, "max + 0.5"));
        }
        let m = int_minimal(min, max) as f64;
        let frac = if max.is_some_and(|hi| m + 0.5 > hi as f64) {
            m - 0.5
        } else {
            m + 0.5
        };
        cases.push((frac, true, "a fraction"));
        self.beyond_every_range(root, doc, at, exact);
        for (n, ok, edge) in cases {
            // Whole numbers are written as integers: `1` and `1.0` are one number.
            let v = if n.fract() == 0.0 {
                json!(n as i64)
            } else {
                json!(n)
            };
            let input = with(doc, at, Some(v));
            let note = format!("{what} = {n} ({edge})");
            if ok {
                self.accept(root, input, note);
            } else {
                self.refuse(root, input, at, exact, note);
            }
        }
    }
}

/// The value at `path`, if every step exists.
fn get<'v>(doc: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    let mut v = doc;
    for seg in path {
        v = match (seg, v) {
            (Seg::Key(k), Value::Object(o)) => o.get(k)?,
            (Seg::Index(i), Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

/// The smallest integer in the bounds that is as close to 0 as they allow.
fn int_minimal(min: Option<i64>, max: Option<i64>) -> i64 {
    let lo = min.unwrap_or(i64::MIN);
    let hi = max.unwrap_or(i64::MAX);
    0i64.clamp(lo, hi.max(lo))
}

/// Length or count edges: `(n, accepted, which)` for `min`, `min - 1`, `max`, `max + 1`.
fn edges_u64(min: Option<u64>, max: Option<u64>) -> Vec<(u64, bool, &'static str)> {
    let mut out = Vec::new();
    if let Some(lo) = min.filter(|&m| m > 0) {
        out.push((lo, true, "min"));
        out.push((lo - 1, false, "min - 1"));
    }
    if let Some(hi) = max {
        out.push((hi, true, "max"));
        out.push((hi + 1, false, "max + 1"));
    }
    out
}

fn literal(l: &Literal) -> Value {
    match l {
        Literal::String(s) => json!(s),
        Literal::Bool(b) => json!(b),
        Literal::Int(i) => json!(i),
        Literal::Null => Value::Null,
    }
}

/// A value of the format `f` within `l`: readable (`aGVsbG8=`, `https://example.com`) when
/// asked and it fits, else the shortest (`AAAA`, `a:`) padded to the lengths' minimum.
fn format_value(f: Format, l: &Limits<u64>, readable: bool) -> String {
    let fits = |s: &str| {
        let n = s.chars().count() as u64;
        l.min.is_none_or(|m| n >= m) && l.max.is_none_or(|m| n <= m)
    };
    let nice = match f {
        Format::Byte => "aGVsbG8=",
        Format::Uri => "https://example.com",
    };
    if readable && fits(nice) {
        return nice.to_owned();
    }
    let min = l.min.unwrap_or(0) as usize;
    match f {
        Format::Byte => "A".repeat(min.max(4).div_ceil(4) * 4),
        Format::Uri => format!("a:{}", "a".repeat(min.saturating_sub(2))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_dotted_as_zod_writes_them() {
        let p = [
            Seg::Key("limits".into()),
            Seg::Index(0),
            Seg::Key("resetsAt".into()),
        ];
        assert_eq!(dotted(&p), "limits[0].resetsAt");
        assert_eq!(
            dotted(&[Seg::Key("x-y".into()), Seg::Key("a".into())]),
            "[\"x-y\"].a"
        );
        assert_eq!(dotted(&[]), "");
    }

    /// Every named struct reachable from a root of the workspace's schemas, and every field of
    /// it, is mutated by some case; and the output is the same twice.
    #[test]
    fn every_field_of_every_reachable_type_is_covered() {
        use crate::load::{LoadOptions, load_dir};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
        for protocol in ["agent", "connect"] {
            let dir = root.join(protocol);
            if !dir.is_dir() {
                continue;
            }
            let model =
                Checked::new(load_dir(&dir, &LoadOptions::default()).expect("the schema loads"));
            let (cases, covered) = derive_covering(&model);
            assert_eq!(
                cases,
                derive_covering(&model).0,
                "{protocol}: derive is deterministic"
            );
            assert_eq!(
                derive(&model),
                derive(&model),
                "{protocol}: with the examples"
            );
            let mut pending: Vec<crate::model::TypeRef> = Vec::new();
            let mut note = |ty: &Ty| ty.each_ref(&mut |r| pending.push(r.clone()));
            for (_, r) in model.all_requests() {
                note(&r.payload);
                note(&r.result);
            }
            for (_, e) in model.all_events() {
                note(&e.payload);
            }
            for frame in ["ClientFrame", "ServerFrame"] {
                if let Some(d) = model.own_type(frame)
                    && matches!(&d.kind, TypeDefKind::Union(u) if u.tag != UnionTag::Untagged)
                {
                    pending.push(crate::model::TypeRef {
                        name: frame.into(),
                        protocol: None,
                    });
                }
            }
            let mut seen = BTreeSet::new();
            let mut missing = Vec::new();
            while let Some(r) = pending.pop() {
                let Some(def) = model.resolve(&r) else {
                    continue;
                };
                if !seen.insert(def.name.clone()) {
                    continue;
                }
                match &def.kind {
                    TypeDefKind::Alias(t) => t.each_ref(&mut |r| pending.push(r.clone())),
                    TypeDefKind::Struct(st) => {
                        for f in &st.fields {
                            if !covered.contains(&(def.name.clone(), f.name.clone())) {
                                missing.push(format!("{}.{}", def.name, f.name));
                            }
                            f.ty.each_ref(&mut |r| pending.push(r.clone()));
                        }
                    }
                    TypeDefKind::Union(u) => {
                        for v in &u.variants {
                            v.ty.each_ref(&mut |r| pending.push(r.clone()));
                        }
                    }
                    TypeDefKind::Enum(_) => {}
                }
            }
            assert!(
                missing.is_empty(),
                "{protocol}: fields no case mutates: {missing:?}"
            );
            assert!(
                seen.len() > 10,
                "{protocol}: the walk reached {} types",
                seen.len()
            );
        }
    }

    /// An integer enum's cases: every value, an unlisted one, a fraction, a string; an open
    /// one accepts the unlisted value and reads as `int`.
    #[test]
    fn integer_enums_get_their_cases() {
        use crate::load::{LoadOptions, load_files};
        use crate::model::SourceFile;
        let text = "enum Severity { Error = 1, Warning = 2 }\n\
                    #[open] enum Code { ParseError = -32700 }\n\
                    requests { \"go\": { severity: Severity, code: Code } -> {} }\n";
        let file = SourceFile {
            display: "api.contract".into(),
            absolute: "api.contract".into(),
            text: text.into(),
        };
        let model = load_files("demo", vec![file], &LoadOptions::default()).expect("it loads");
        let cases = derive(&Checked::new(model));
        // The verdict on the minimal payload with `field` set to `value`.
        let verdict = |field: &str, value: Value| {
            let mut want = json!({ "severity": 1, "code": -32700 });
            want[field] = value.clone();
            let found: Vec<bool> = cases
                .iter()
                .filter(|c| c.kind == "payload")
                .filter_map(|c| match &c.input {
                    Input::Json(v) if *v == want => Some(c.ok),
                    _ => None,
                })
                .collect();
            assert!(!found.is_empty(), "no case with {field} = {value}");
            assert!(found.iter().all(|ok| *ok == found[0]), "{field} = {value}");
            found[0]
        };
        assert!(verdict("severity", json!(1)));
        assert!(verdict("severity", json!(2)));
        assert!(verdict("severity", json!(1.0)));
        assert!(!verdict("severity", json!(3)));
        assert!(!verdict("severity", json!(1.5)));
        assert!(!verdict("severity", json!("wrong")));
        assert!(verdict("code", json!(-32700)));
        assert!(verdict("code", json!(-32699)));
        assert!(verdict("code", json!(MAX_SAFE)));
        assert!(!verdict("code", json!(MAX_SAFE + 1)));
        assert!(!verdict("code", json!(0.5)));
        assert!(!verdict("code", json!("wrong")));
    }

    #[test]
    fn edges() {
        assert_eq!(
            edges_u64(Some(1), Some(3)),
            vec![
                (1, true, "min"),
                (0, false, "min - 1"),
                (3, true, "max"),
                (4, false, "max + 1")
            ]
        );
        assert_eq!(int_minimal(Some(1), Some(100)), 1);
        assert_eq!(int_minimal(None, None), 0);
        assert_eq!(int_minimal(None, Some(-5)), -5);
    }
}
