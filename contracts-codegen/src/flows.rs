//! flows: sequences of frames, declared beside a schema, drawn in the reference.
//!
//! A protocol's directory may hold `*.flows` files. Each flow is a story a reader should
//! understand at a glance (attach and replay, a reconnect with `since`, Agent Connect's hello):
//!
//! ```text
//! /// Reconnect with since
//! /// The client kept the last seq it applied and sends it again.
//! flow reconnect {
//!     client chat.attach { "since": 41 }
//!     /// The host still holds every event after 41.
//!     host reply { "resumed": true, "items": [] }
//!     host chat.event { "seq": 42 }
//! }
//! ```
//!
//! The doc comment before `flow` is its title (first line) and description; one inside is a
//! note over the step after it. A step is `<actor> <frame> [<JSON object>]`, one a line:
//!
//! - `client <request>`: a request frame of the named table entry, its payload the entry's
//!   example ([`crate::corpus::examples`]) with the object merged in; ids count from `"1"`;
//! - `host reply`: a success answering the latest request not yet answered, its result the
//!   request's example result with the object merged in;
//! - `host error <code>`: a failure answering it, its message the code's own doc comment;
//! - `host <event>`: an event frame of the named event, its payload merged the same way;
//! - `client <tag>` / `server <tag>`: a variant of the protocol's `ClientFrame` or
//!   `ServerFrame` tagged union (Agent Connect), the object merged into the frame.
//!
//! Merging is deep for objects; an array in the object replaces the example's, each of its
//! objects merged onto the example's first item. Every frame of every flow becomes a line of
//! the derived corpus ([`cases`]), so the three validators check each one; the reference draws
//! the flow as a Mermaid sequence diagram and lists its frames (`emit::docs`).
//! Every word of a diagram is the schema's: the entry names, the codes, and the flows file's
//! own doc comments.

use crate::analysis::Checked;
use crate::corpus::examples;
use crate::corpus::{Case, Input};
use crate::diag::Diagnostics;
use crate::model::{Loc, SourceFile, TableKind, Ty, TyKind, TypeDefKind, UnionTag};
use serde_json::{Value, json};
use std::sync::Arc;

/// Who sends a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Actor {
    Client,
    /// The other end: `host` (the agent protocol) or `server` (Agent Connect), as written.
    Server(String),
}

impl Actor {
    /// The participant's name in a diagram: `Client`, `Host`, `Server`.
    pub fn name(&self) -> String {
        match self {
            Actor::Client => "Client".into(),
            Actor::Server(s) => {
                let mut c = s.chars();
                c.next()
                    .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                    .unwrap_or_default()
            }
        }
    }
}

/// What one step sends, resolved against the model.
#[derive(Clone, Debug, PartialEq)]
pub enum Sent {
    /// A request of the table, with its id.
    Request { name: String, id: String },
    /// A success answering the request `name` sent with `id`.
    Reply { name: String, id: String },
    /// A failure answering it, with its code.
    Error {
        name: String,
        id: String,
        code: String,
    },
    /// An event of the table.
    Event { name: String },
    /// A variant of a frame union (`ClientFrame` `"hello"`).
    Frame { union: String, tag: String },
}

/// One frame of a flow.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub from: Actor,
    pub sent: Sent,
    /// The note over this step, from the doc comment before it.
    pub note: String,
    /// The whole frame as it travels.
    pub frame: Value,
    /// A success's result alone, checked by its request's name.
    pub result: Option<Value>,
    pub loc: Loc,
}

/// A flow: its name (an anchor), title, description and steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub name: String,
    pub title: String,
    pub description: String,
    pub steps: Vec<Step>,
    pub loc: Loc,
}

/// Reads every `*.flows` file of a schema directory, in path order, against its model.
/// Answers the flows, or every mistake rendered as `path:line:col: error: ...`. No files: no
/// flows. `display` is how paths are shown (`schema/agent`).
pub fn load(dir: &std::path::Path, display: &str, model: &Checked) -> Result<Vec<Flow>, String> {
    let mut paths: Vec<_> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "flows"))
            .collect(),
        Err(e) => return Err(format!("{display}: {e}")),
    };
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let file = SourceFile {
            display: Arc::from(format!("{display}/{name}")),
            absolute: path.clone(),
            text,
        };
        out.extend(parse(model, &file)?);
    }
    Ok(out)
}

/// Parses one flows file against its model.
pub fn parse(model: &Checked, file: &SourceFile) -> Result<Vec<Flow>, String> {
    let mut diags = Diagnostics::default();
    let mut flows = Vec::new();
    let mut docs: Vec<String> = Vec::new();
    let mut current: Option<(Flow, Vec<(String, String)>)> = None;
    let loc = |line: usize, col: usize| Loc {
        file: file.display.clone(),
        line: line as u32 + 1,
        col: col as u32 + 1,
    };
    for (n, raw) in file.text.lines().enumerate() {
        let indent = raw.len() - raw.trim_start().len();
        let line = raw.trim();
        if line.is_empty() || (line.starts_with("//") && !line.starts_with("///")) {
            continue;
        }
        if let Some(doc) = line.strip_prefix("///") {
            docs.push(doc.strip_prefix(' ').unwrap_or(doc).to_owned());
            continue;
        }
        if let Some(rest) = line.strip_prefix("flow ") {
            if current.is_some() {
                diags.error(
                    &loc(n, indent),
                    "a flow inside a flow: close the first with `}`",
                );
                continue;
            }
            let name = rest.trim().trim_end_matches('{').trim();
            if !rest.trim().ends_with('{') || name.is_empty() || name.contains(' ') {
                diags.error(&loc(n, indent), "expected `flow <name> {`");
                continue;
            }
            let title = docs.first().cloned().unwrap_or_else(|| name.to_owned());
            let description = docs.iter().skip(1).cloned().collect::<Vec<_>>().join("\n");
            docs.clear();
            let flow = Flow {
                name: name.to_owned(),
                title,
                description,
                steps: Vec::new(),
                loc: loc(n, indent),
            };
            current = Some((flow, Vec::new()));
            continue;
        }
        if line == "}" {
            match current.take() {
                Some((flow, _)) => flows.push(flow),
                None => {
                    diags.error(&loc(n, indent), "`}` without a flow");
                }
            }
            docs.clear();
            continue;
        }
        let Some((flow, pending)) = current.as_mut() else {
            diags.error(&loc(n, indent), "expected `flow <name> {`");
            continue;
        };
        let note = std::mem::take(&mut docs).join(" ");
        match step(model, flow.steps.len(), pending, line, note, &|c| {
            loc(n, indent + c)
        }) {
            Ok(s) => flow.steps.push(s),
            Err((col, message)) => {
                diags.error(&loc(n, indent + col), message);
            }
        }
    }
    if let Some((flow, _)) = current {
        diags.error(&flow.loc, "this flow is never closed with `}`");
    }
    if diags.has_errors() {
        return Err(diags.render(std::slice::from_ref(file)));
    }
    Ok(flows)
}

/// One step line, resolved: `pending` holds the requests not yet answered (name, id).
fn step(
    model: &Checked,
    index: usize,
    pending: &mut Vec<(String, String)>,
    line: &str,
    note: String,
    at: &dyn Fn(usize) -> Loc,
) -> Result<Step, (usize, String)> {
    let (head, json_at) = match line.find('{') {
        Some(i) => (&line[..i], Some(i)),
        None => (line, None),
    };
    let overrides = match json_at {
        Some(i) => match serde_json::from_str::<Value>(&line[i..]) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => return Err((i, "expected a JSON object".into())),
            Err(e) => return Err((i + e.column().saturating_sub(1), format!("not JSON: {e}"))),
        },
        None => json!({}),
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    let word_at = |k: usize| {
        let mut pos = 0;
        for (i, w) in head.split_whitespace().enumerate() {
            pos = head[pos..].find(w).map_or(pos, |p| pos + p);
            if i == k {
                return pos;
            }
            pos += w.len();
        }
        pos
    };
    let (from, what) = match words.as_slice() {
        ["client", what, ..] => (Actor::Client, *what),
        [actor @ ("host" | "server"), what, ..] => (Actor::Server((*actor).to_owned()), *what),
        [other, ..] => {
            return Err((
                0,
                format!("unknown sender `{other}`: expected `client`, `host` or `server`"),
            ));
        }
        [] => return Err((0, "expected `<client|host|server> <frame>`".into())),
    };
    let extra = |k: usize| -> Result<(), (usize, String)> {
        match words.get(k) {
            Some(w) => Err((word_at(k), format!("unexpected `{w}`"))),
            None => Ok(()),
        }
    };
    let request = model
        .all_requests()
        .into_iter()
        .any(|(_, r)| r.name == what);
    let event = model.all_events().into_iter().any(|(_, e)| e.name == what);
    let (sent, frame, result) = match (&from, what) {
        (Actor::Client, name) if request => {
            extra(2)?;
            let id = format!("{}", index + 1);
            let ty = &entry_request(model, name).payload;
            let payload = merged_as(model, ty, examples::value(model, ty), &overrides);
            let frame = examples::entry_frame(model, TableKind::Requests, name, payload, &id)
                .ok_or((word_at(1), "this protocol has no request frame".to_owned()))?;
            pending.push((name.to_owned(), id.clone()));
            (
                Sent::Request {
                    name: name.to_owned(),
                    id,
                },
                frame,
                None,
            )
        }
        (Actor::Server(_), "reply") => {
            extra(2)?;
            let (name, id) = pending
                .pop()
                .ok_or((word_at(1), "no request is waiting for a reply".to_owned()))?;
            let ty = &entry_request(model, &name).result;
            let result = merged_as(model, ty, examples::value(model, ty), &overrides);
            let frame = examples::reply_ok(model, &id, result.clone())
                .ok_or((word_at(1), "this protocol has no ReplyOk frame".to_owned()))?;
            (Sent::Reply { name, id }, frame, Some(result))
        }
        (Actor::Server(_), "error") => {
            let code = words
                .get(2)
                .ok_or((word_at(1), "expected `error <code>`".to_owned()))?;
            extra(3)?;
            let message = error_doc(model, code).ok_or((
                word_at(2),
                format!("`{code}` is not an error code of the protocol"),
            ))?;
            let (name, id) = pending
                .pop()
                .ok_or((word_at(1), "no request is waiting for a reply".to_owned()))?;
            let frame = examples::reply_error(model, &id, code, &message).ok_or((
                word_at(1),
                "this protocol has no ReplyError frame".to_owned(),
            ))?;
            let frame = merged(frame, &overrides);
            (
                Sent::Error {
                    name,
                    id,
                    code: (*code).to_owned(),
                },
                frame,
                None,
            )
        }
        (Actor::Server(_), name) if event => {
            extra(2)?;
            let ty = model
                .all_events()
                .into_iter()
                .find(|(_, e)| e.name == name)
                .map(|(_, e)| e.payload.clone())
                .expect("an event of the table");
            let payload = merged_as(model, &ty, examples::value(model, &ty), &overrides);
            let frame = examples::entry_frame(model, TableKind::Events, name, payload, "")
                .ok_or((word_at(1), "this protocol has no event frame".to_owned()))?;
            (
                Sent::Event {
                    name: name.to_owned(),
                },
                frame,
                None,
            )
        }
        (_, tag) => {
            extra(2)?;
            let union = if from == Actor::Client {
                "ClientFrame"
            } else {
                "ServerFrame"
            };
            let frame = frame_variant(model, union, tag, &overrides).ok_or_else(|| {
                let what = if from == Actor::Client {
                    "a request or a client frame"
                } else {
                    "`reply`, `error`, an event or a server frame"
                };
                (
                    word_at(1),
                    format!("unknown frame `{tag}`: expected {what}"),
                )
            })?;
            (
                Sent::Frame {
                    union: union.to_owned(),
                    tag: tag.to_owned(),
                },
                frame,
                None,
            )
        }
    };
    Ok(Step {
        from,
        sent,
        note,
        frame,
        result,
        loc: at(0),
    })
}

/// The doc comment of an error code (any enum of the protocol that lists it), one line.
fn error_doc(model: &Checked, code: &str) -> Option<String> {
    let mut models = vec![model];
    models.extend(model.each_base());
    for m in models {
        for t in &m.types {
            if let TypeDefKind::Enum(e) = &t.kind
                && t.name.ends_with("ErrorCode")
                && let Some(v) = e.values.iter().find(|v| v.as_str() == Some(code))
            {
                let text = v.docs.text().replace('\n', " ");
                return Some(if text.trim().is_empty() {
                    code.to_owned()
                } else {
                    text.trim().to_owned()
                });
            }
        }
    }
    None
}

/// The example of a tagged frame union's variant with `over` merged in, its tag set.
fn frame_variant(model: &Checked, union: &str, tag: &str, over: &Value) -> Option<Value> {
    let def = model.own_type(union)?;
    let TypeDefKind::Union(u) = &def.kind else {
        return None;
    };
    let UnionTag::Tagged { field, .. } = &u.tag else {
        return None;
    };
    let v = u.variants.iter().find(|v| v.tag.as_deref() == Some(tag))?;
    let mut value = merged_as(model, &v.ty, examples::value(model, &v.ty), over);
    value.as_object_mut()?.insert(field.clone(), json!(tag));
    Some(value)
}

/// The request called `name` in the composed table (the caller knows it is there).
fn entry_request<'m>(model: &'m Checked, name: &str) -> &'m crate::model::Request {
    model
        .all_requests()
        .into_iter()
        .find(|(_, r)| r.name == name)
        .map(|(_, r)| r)
        .expect("a request of the table")
}

/// `base`, a value of `ty`, with `over` merged in, led by the type: a struct key by key, a
/// tagged union's object that names another tag starts from that variant's example, an
/// array's items each from the item type's example, anything else replaced.
pub fn merged_as(model: &Checked, ty: &Ty, base: Value, over: &Value) -> Value {
    let plain = model.unalias(ty);
    match (&plain.kind, over) {
        (TyKind::Nullable(_), Value::Null) => Value::Null,
        (TyKind::Nullable(inner), _) => {
            let base = if base.is_null() {
                examples::value(model, inner)
            } else {
                base
            };
            merged_as(model, inner, base, over)
        }
        (TyKind::Array(inner, _), Value::Array(items)) => Value::Array(
            items
                .iter()
                .map(|i| merged_as(model, inner, examples::value(model, inner), i))
                .collect(),
        ),
        (TyKind::Map(inner), Value::Object(o)) => {
            let mut b = match base {
                Value::Object(b) => b,
                _ => serde_json::Map::new(),
            };
            b.clear();
            for (k, v) in o {
                b.insert(
                    k.clone(),
                    merged_as(model, inner, examples::value(model, inner), v),
                );
            }
            Value::Object(b)
        }
        (TyKind::Ref(r), Value::Object(o)) => match model.resolve(r).map(|d| &d.kind) {
            Some(TypeDefKind::Struct(st)) => {
                let mut b = match base {
                    Value::Object(b) => b,
                    _ => serde_json::Map::new(),
                };
                for (k, v) in o {
                    let old = b.remove(k).unwrap_or(Value::Null);
                    let new = match st.fields.iter().find(|f| &f.name == k) {
                        Some(f) => {
                            let old = if old.is_null() && !v.is_null() {
                                examples::value(model, &f.ty)
                            } else {
                                old
                            };
                            merged_as(model, &f.ty, old, v)
                        }
                        None => merged(old, v),
                    };
                    b.insert(k.clone(), new);
                }
                Value::Object(b)
            }
            Some(TypeDefKind::Union(u)) => {
                let variant = match &u.tag {
                    UnionTag::Tagged { field, .. } => {
                        let want = o
                            .get(field)
                            .and_then(Value::as_str)
                            .or_else(|| base.get(field).and_then(Value::as_str));
                        u.variants
                            .iter()
                            .find(|v| v.tag.as_deref() == want)
                            .map(|v| (field.clone(), v))
                    }
                    UnionTag::Untagged => None,
                };
                match variant {
                    Some((field, v)) => {
                        let same = base.get(&field) == o.get(&field) || !o.contains_key(&field);
                        let start = if same {
                            base
                        } else {
                            examples::value(model, &v.ty)
                        };
                        let mut out = merged_as(model, &v.ty, start, over);
                        if let (Some(tag), Some(obj)) = (&v.tag, out.as_object_mut()) {
                            obj.insert(field, json!(tag));
                        }
                        out
                    }
                    None => merged(base, over),
                }
            }
            _ => merged(base, over),
        },
        _ => merged(base, over),
    }
}

/// `base` with `over` merged in, untyped: objects key by key, anything else replaced.
pub fn merged(base: Value, over: &Value) -> Value {
    match (base, over) {
        (Value::Object(mut b), Value::Object(o)) => {
            for (k, v) in o {
                let old = b.remove(k).unwrap_or(Value::Null);
                b.insert(k.clone(), merged(old, v));
            }
            Value::Object(b)
        }
        (_, v) => v.clone(),
    }
}

/// The corpus lines that check every frame of every flow: a request as `request`, a server
/// frame as `server` (and a success's result by its request's name as `result`), a client
/// frame as `client`.
pub fn cases(flows: &[Flow]) -> Vec<Case> {
    let mut out = Vec::new();
    for f in flows {
        for (i, s) in f.steps.iter().enumerate() {
            let kind = match (&s.from, &s.sent) {
                (_, Sent::Request { .. }) => "request",
                (Actor::Client, _) => "client",
                (Actor::Server(_), _) => "server",
            };
            let note = format!("flow {}: step {}", f.name, i + 1);
            out.push(Case {
                kind: kind.into(),
                type_name: None,
                input: Input::Json(s.frame.clone()),
                ok: true,
                stage: None,
                paths: None,
                note: note.clone(),
            });
            if let (Sent::Reply { name, .. }, Some(result)) = (&s.sent, &s.result) {
                out.push(Case {
                    kind: "result".into(),
                    type_name: Some(name.clone()),
                    input: Input::Json(result.clone()),
                    ok: true,
                    stage: None,
                    paths: None,
                    note: format!("{note}: the result"),
                });
            }
        }
    }
    out
}

/// What a diagram's arrow says of a step.
pub fn label(s: &Step) -> String {
    match &s.sent {
        Sent::Request { name, id } => format!("{name} (id {id})"),
        Sent::Reply { id, .. } => format!("ok (id {id})"),
        Sent::Error { id, code, .. } => format!("{code} (id {id})"),
        Sent::Event { name } => format!("event {name}"),
        Sent::Frame { tag, .. } => tag.clone(),
    }
}

/// The flow as a Mermaid sequence diagram (without the fence).
pub fn mermaid(f: &Flow) -> String {
    let mut actors: Vec<String> = vec!["Client".into()];
    for s in &f.steps {
        let n = s.from.name();
        if !actors.contains(&n) {
            actors.push(n);
        }
    }
    if actors.len() == 1 {
        actors.push("Server".into());
    }
    let mut out = String::from("sequenceDiagram\n");
    for a in &actors {
        out.push_str(&format!("    participant {a}\n"));
    }
    for (i, s) in f.steps.iter().enumerate() {
        let from = s.from.name();
        let to = actors
            .iter()
            .find(|a| **a != from)
            .cloned()
            .unwrap_or_default();
        if !s.note.is_empty() {
            out.push_str(&format!(
                "    Note over {},{}: {}\n",
                actors[0],
                actors[1],
                clean(&s.note)
            ));
        }
        let arrow = if s.from == Actor::Client {
            "->>"
        } else {
            "-->>"
        };
        out.push_str(&format!(
            "    {from}{arrow}{to}: {}. {}\n",
            i + 1,
            clean(&label(s))
        ));
    }
    out
}

/// Text a Mermaid message or note holds as it is: no `;` or `#` (Mermaid's own syntax), no
/// line breaks.
fn clean(s: &str) -> String {
    s.replace([';', '#'], ",").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{LoadOptions, load_dir};

    fn agent() -> Checked {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/agent");
        Checked::new(load_dir(&dir, &LoadOptions::default()).expect("the agent schema loads"))
    }

    fn file(text: &str) -> SourceFile {
        SourceFile {
            display: Arc::from("test.flows"),
            absolute: "test.flows".into(),
            text: text.to_owned(),
        }
    }

    #[test]
    fn a_flow_becomes_frames_merged_by_type() {
        let model = agent();
        let text = "/// Reconnect\n/// Again.\nflow r {\n    client chat.attach { \"since\": 4 }\n    /// Resumed.\n    host reply { \"resumed\": true, \"items\": [] }\n    host chat.event { \"event\": { \"type\": \"delta\", \"text\": \"Hi\" } }\n}\n";
        let flows = parse(&model, &file(text)).unwrap();
        let f = &flows[0];
        assert_eq!((f.name.as_str(), f.title.as_str()), ("r", "Reconnect"));
        assert_eq!(f.steps.len(), 3);
        assert_eq!(f.steps[0].frame["payload"]["since"], 4);
        assert_eq!(f.steps[0].frame["payload"]["chatId"], "chat-1");
        assert_eq!(f.steps[1].frame["id"], f.steps[0].frame["id"]);
        assert_eq!(f.steps[1].note, "Resumed.");
        // The delta starts from the delta variant's example: no `item` key left over.
        let event = &f.steps[2].frame["payload"]["event"];
        assert_eq!(event["type"], "delta");
        assert!(event.get("item").is_none(), "{event}");
        assert!(event.get("itemId").is_some(), "{event}");
        assert_eq!(
            cases(&flows).len(),
            4,
            "three frames and the reply's result"
        );
        let diagram = mermaid(f);
        assert!(
            diagram.contains("Client->>Host: 1. chat.attach (id 1)"),
            "{diagram}"
        );
        assert!(
            diagram.contains("Note over Client,Host: Resumed."),
            "{diagram}"
        );
    }

    #[test]
    fn every_mistake_is_reported_with_its_place() {
        let model = agent();
        let text = "flow bad {\n    client chat.atach {}\n    host reply\n    client chat.list { nope }\n    host error no-such-code\n    robot chat.list\n}\nflow open {\n";
        let e = parse(&model, &file(text)).unwrap_err();
        for want in [
            "test.flows:2:12: error: unknown frame `chat.atach`",
            "test.flows:3:10: error: no request is waiting for a reply",
            "test.flows:4:24: error: not JSON",
            "test.flows:5:16: error: `no-such-code` is not an error code",
            "test.flows:6:5: error: unknown sender `robot`",
            "test.flows:8:1: error: this flow is never closed",
        ] {
            assert!(e.contains(want), "missing {want:?} in:\n{e}");
        }
    }
}
