//! examples: one readable example of every table entry, frame and union variant.
//!
//! The examples are the derived corpus's valid values written for a person: the walk of
//! [`crate::corpus`] runs once more in its example mode, where a string is made from the name
//! of its field or its alias (`chatId: ChatId` is `"chat-1"`, `displayName` is
//! `"display name"`, `createdAt: Timestamp` is a time in 2026) instead of `"a"`. What it
//! records is the value at each root (a request's payload and result, an event's payload, a
//! frame variant) and every union variant at the first place the walk reaches it, each as the
//! corpus [`Case`] that carries it. `cargo xtask codegen` appends those cases to
//! `tests/corpus/derived/<protocol>.jsonl`, so the three validators check every example the
//! reference shows; the reference (`emit::docs`) and the flows ([`crate::flows`])
//! show them.
//!
//! Everything here is a pure function of the model and the names in it.

use crate::analysis::Checked;
use crate::corpus::{self, Case};
use crate::model::{Limits, TableKind, Ty, TyKind, TypeDefKind};
use serde_json::{Value, json};

/// A time every example uses: 2026-01-01T00:00:00Z, in milliseconds.
pub const EXAMPLE_MILLIS: i64 = 1_767_225_600_000;

/// What an example shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Subject {
    /// A request's payload (`chat.attach`).
    Payload(String),
    /// A request's result.
    Result(String),
    /// An event's payload.
    Event(String),
    /// A type no table entry reaches, as a bare value (`TaskChangedEvent`, `Request`).
    Type(String),
    /// A variant of a frame union checked as a frame (`ClientFrame` "hello").
    Frame { union: String, tag: String },
    /// A request or event frame of the agent's kind, with its entry's payload (`request` or
    /// `server`, the entry's name).
    EntryFrame { kind: String, name: String },
    /// A variant of a union somewhere inside a root: the union's name and the variant's tag
    /// (a tagged union) or its type's name (an untagged one).
    Variant { union: String, variant: String },
}

/// One example: what it shows, the value shown, and the corpus line that checks it.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    pub subject: Subject,
    /// The value a reader sees: the whole root, or the variant's value inside it.
    pub shown: Value,
    /// The line of the derived corpus that carries it (the whole root, as checked).
    pub case: Case,
}

/// Every example of a model, in the corpus walk's order.
pub fn examples(model: &Checked) -> Vec<Example> {
    corpus::derive_examples(model)
}

/// The corpus lines of the examples a page of `model` shows: those of its own entries, frames
/// and types (an app's page shows its own; its bases' are on their pages), each once. What an
/// app writes beside its reference (`generate::Outputs::examples`) so its validators check
/// every example the page shows.
pub fn own_cases(model: &Checked) -> Vec<Case> {
    let request = |n: &str| model.requests.iter().any(|r| r.name == n);
    let event = |n: &str| model.events.iter().any(|e| e.name == n);
    let own_type = |n: &str| model.own_type(n).is_some();
    let mut out: Vec<Case> = Vec::new();
    for e in examples(model) {
        let own = match &e.subject {
            Subject::Payload(n) | Subject::Result(n) => request(n),
            Subject::Event(n) => event(n),
            Subject::Type(n) => own_type(n),
            Subject::Frame { union, .. } | Subject::Variant { union, .. } => own_type(union),
            Subject::EntryFrame { kind, name } if kind == "request" => request(name),
            Subject::EntryFrame { name, .. } => event(name),
        };
        if own && !out.contains(&e.case) {
            out.push(e.case);
        }
    }
    out
}

/// A readable example of one type expression, as written in `model`.
pub fn value(model: &Checked, ty: &Ty) -> Value {
    corpus::readable_value(model, ty)
}

/// The example of a request's payload (`None`: no such request in the composed table).
pub fn payload(model: &Checked, name: &str) -> Option<Value> {
    let (_, r) = model
        .all_requests()
        .into_iter()
        .find(|(_, r)| r.name == name)?;
    Some(value(model, &r.payload))
}

/// The example of a request's result.
pub fn result(model: &Checked, name: &str) -> Option<Value> {
    let (_, r) = model
        .all_requests()
        .into_iter()
        .find(|(_, r)| r.name == name)?;
    Some(value(model, &r.result))
}

/// The example of an event's payload.
pub fn event(model: &Checked, name: &str) -> Option<Value> {
    let (_, e) = model
        .all_events()
        .into_iter()
        .find(|(_, e)| e.name == name)?;
    Some(value(model, &e.payload))
}

/// The struct whose `#[table]` field carries an entry of `table` (the agent's `Request` for
/// requests, `Event` for events), with the field and the key naming the entry.
pub fn table_frame(model: &Checked, table: TableKind) -> Option<(String, String, String)> {
    let mut models = vec![model];
    models.extend(model.each_base());
    for m in models {
        for t in &m.types {
            let (TypeDefKind::Struct(s), Some(frame)) = (&t.kind, m.analysis().frames.get(&t.name))
            else {
                continue;
            };
            if frame.table == table {
                let (field, key) = (&s.fields[frame.field].name, &s.fields[frame.key].name);
                return Some((t.name.clone(), field.clone(), key.clone()));
            }
        }
    }
    None
}

/// The frame that carries an entry of `table` called `name` with `payload` (a request frame
/// `{ id, type, payload }`, an event frame `{ type: "event", event, payload }`), when the
/// protocol has such a frame; `id` goes in a field called `id` when there is one.
pub fn entry_frame(
    model: &Checked,
    table: TableKind,
    name: &str,
    payload: Value,
    id: &str,
) -> Option<Value> {
    let (ty, field, key) = table_frame(model, table)?;
    let mut frame = type_value(model, &ty)?;
    let o = frame.as_object_mut()?;
    o.insert(key, json!(name));
    o.insert(field, payload);
    if o.contains_key("id") {
        o.insert("id".into(), json!(id));
    }
    Some(frame)
}

/// The example of the named type (this model's or a base's).
pub fn type_value(model: &Checked, name: &str) -> Option<Value> {
    let mut models = vec![model];
    models.extend(model.each_base());
    for m in models {
        if let Some(def) = m.own_type(name) {
            let ty = Ty {
                kind: TyKind::Ref(crate::model::TypeRef {
                    name: def.name.clone(),
                    protocol: Some(m.name.clone()),
                }),
                loc: def.loc.clone(),
            };
            return Some(value(model, &ty));
        }
    }
    None
}

/// A success reply to the request `id` with `result`, from the protocol's `ReplyOk` frame.
pub fn reply_ok(model: &Checked, id: &str, result: Value) -> Option<Value> {
    let mut frame = type_value(model, "ReplyOk")?;
    let o = frame.as_object_mut()?;
    o.insert("id".into(), json!(id));
    o.insert("result".into(), result);
    Some(frame)
}

/// A failure reply to the request `id` with an error code and its message, from the
/// protocol's `ReplyError` frame.
pub fn reply_error(model: &Checked, id: &str, code: &str, message: &str) -> Option<Value> {
    let mut frame = type_value(model, "ReplyError")?;
    let o = frame.as_object_mut()?;
    o.insert("id".into(), json!(id));
    o.insert("error".into(), json!({ "code": code, "message": message }));
    Some(frame)
}

/// What names a value: its field's key, the alias it was written as, the struct it is in.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hint<'a> {
    pub key: Option<&'a str>,
    pub alias: Option<&'a str>,
    pub owner: Option<&'a str>,
}

/// The lowercase words of a name: `displayName`, `display_name` and `display-name` are
/// `["display", "name"]`.
pub fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The words of an id's name, without its `id`: `toolUseId` is `["tool", "use"]`.
fn id_words(name: &str) -> Option<Vec<String>> {
    let mut w = words(name);
    if w.len() > 1 && w.last().is_some_and(|l| l == "id") {
        w.pop();
        Some(w)
    } else {
        None
    }
}

/// Whether the name says the value is a time.
fn is_time(name: &str) -> bool {
    let w = words(name);
    matches!(
        w.last().map(String::as_str),
        Some("at" | "timestamp" | "millis" | "ts")
    )
}

/// A readable string for a slot, within its length limits (counted in code points).
pub fn string(hint: &Hint, limits: &Limits<u64>) -> String {
    let base = string_for(hint);
    fit(&base, limits.min.unwrap_or(0), limits.max)
}

fn string_for(hint: &Hint) -> String {
    let names = [hint.alias, hint.key].into_iter().flatten();
    for n in names.clone() {
        if let Some(w) = id_words(n) {
            return format!("{}-1", w.join("-"));
        }
    }
    if let Some(k) = hint.key {
        if k == "id" {
            let owner = hint.owner.map(words).unwrap_or_default();
            let owner: Vec<String> = owner
                .into_iter()
                .filter(|w| !matches!(w.as_str(), "payload" | "result"))
                .collect();
            if !owner.is_empty() {
                return format!("{}-1", owner.join("-"));
            }
            return "1".into();
        }
        if is_time(k) {
            return "2026-01-01T00:00:00Z".into();
        }
        let w = words(k);
        match w.last().map(String::as_str) {
            Some("url") => return "https://example.com/".into(),
            Some("path" | "cwd" | "dir" | "directory") => return "/home/dana/project".into(),
            _ => {}
        }
        if !w.is_empty() {
            return w.join(" ");
        }
    }
    if let Some(a) = hint.alias {
        let w = words(a);
        if !w.is_empty() {
            return w.join(" ");
        }
    }
    "text".into()
}

/// `s` cut to at most `max` code points, or grown to at least `min` by repeating it.
fn fit(s: &str, min: u64, max: Option<u64>) -> String {
    let mut out = s.to_owned();
    while (out.chars().count() as u64) < min {
        out.push(' ');
        out.push_str(s);
    }
    if let Some(max) = max {
        out = out.chars().take(max as usize).collect();
        out = out.trim_end().to_owned();
        while (out.chars().count() as u64) < min {
            out.push('x');
        }
    }
    out
}

/// A readable integer for a slot, within its bounds.
pub fn int(hint: &Hint, limits: &Limits<i64>) -> i64 {
    let lo = limits.min.unwrap_or(-crate::model::MAX_SAFE);
    let hi = limits.max.unwrap_or(crate::model::MAX_SAFE).max(lo);
    let time = [hint.alias, hint.key].into_iter().flatten().any(is_time);
    let want = if time { EXAMPLE_MILLIS } else { 1 };
    want.clamp(lo, hi)
}

/// A readable number for a slot, within its bounds.
pub fn number(hint: &Hint, limits: &Limits<i64>) -> f64 {
    let n = int(hint, limits) as f64;
    let lo = limits.min.map_or(f64::MIN, |m| m as f64);
    let hi = limits.max.map_or(f64::MAX, |m| m as f64);
    if n + 0.5 <= hi && n + 0.5 >= lo && n < 1e12 {
        n + 0.5
    } else {
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_words_and_ids() {
        assert_eq!(words("displayName"), ["display", "name"]);
        assert_eq!(words("space_id"), ["space", "id"]);
        assert_eq!(words("HTTPServer"), ["httpserver"]);
        let h = Hint {
            key: Some("chatId"),
            ..Hint::default()
        };
        assert_eq!(string(&h, &Limits::none()), "chat-1");
        let h = Hint {
            key: Some("id"),
            alias: None,
            owner: Some("Bookmark"),
        };
        assert_eq!(string(&h, &Limits::none()), "bookmark-1");
        let h = Hint {
            key: Some("text"),
            ..Hint::default()
        };
        assert_eq!(string(&h, &Limits::none()), "text");
    }

    #[test]
    fn strings_fit_their_limits() {
        let h = Hint {
            key: Some("ab"),
            ..Hint::default()
        };
        let l = Limits {
            min: Some(5),
            max: Some(6),
        };
        let s = string(&h, &l);
        assert!((5..=6).contains(&s.chars().count()), "{s:?}");
        let l = Limits {
            min: None,
            max: Some(1),
        };
        assert_eq!(string(&h, &l), "a");
    }

    #[test]
    fn times_and_numbers_stay_in_bounds() {
        let h = Hint {
            key: Some("createdAt"),
            ..Hint::default()
        };
        assert_eq!(int(&h, &Limits::none()), EXAMPLE_MILLIS);
        let l = Limits {
            min: Some(1),
            max: Some(100),
        };
        assert_eq!(int(&h, &l), 100);
        assert_eq!(int(&Hint::default(), &l), 1);
        assert_eq!(number(&Hint::default(), &l), 1.5);
    }

    /// Every request, event and union variant of the workspace's schemas has an example,
    /// and no example string is the corpus's filler.
    #[test]
    fn every_entry_and_variant_has_a_readable_example() {
        use crate::load::{LoadOptions, load_dir};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
        for protocol in ["agent", "connect"] {
            let model =
                Checked::new(load_dir(&root.join(protocol), &LoadOptions::default()).unwrap());
            let all = examples(&model);
            if std::env::var_os("SHOW_EXAMPLES").is_some() {
                for e in &all {
                    eprintln!("{:?}\n  {}\n  {}", e.subject, e.shown, e.case.to_line());
                }
            }
            let has = |s: &Subject| all.iter().any(|e| &e.subject == s);
            for r in &model.requests {
                assert!(has(&Subject::Payload(r.name.clone())), "{}", r.name);
                assert!(has(&Subject::Result(r.name.clone())), "{}", r.name);
            }
            for e in &model.events {
                assert!(has(&Subject::Event(e.name.clone())), "{}", e.name);
            }
            for t in &model.types {
                let TypeDefKind::Union(u) = &t.kind else {
                    continue;
                };
                for (i, v) in u.variants.iter().enumerate() {
                    let variant = v.tag.clone().unwrap_or_else(|| match &v.ty.kind {
                        TyKind::Ref(r) => r.name.clone(),
                        _ => format!("{}", i + 1),
                    });
                    let frame = Subject::Frame {
                        union: t.name.clone(),
                        tag: variant.clone(),
                    };
                    let inside = Subject::Variant {
                        union: t.name.clone(),
                        variant,
                    };
                    assert!(has(&frame) || has(&inside), "{protocol}: {inside:?}");
                }
            }
            for e in &all {
                let text = e.case.input.text();
                assert!(!text.contains("\"aa"), "{protocol}: filler in {text}");
            }
        }
    }
}
