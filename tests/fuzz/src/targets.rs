//! The entry points and the invariants checked on every input.
//!
//! A [`Target`] is one parse entry point of one protocol, named as the corpus names it
//! (`as`, `type`): the agent's frames, bare payloads, results, events and types; the Agent
//! Connect frames; the documents app's frames and bare values through its composed tables.
//! [`check`] runs every path that must agree on an input and answers the verdict, or what
//! broke:
//!
//! - one pass (`parse_*_typed`) gives the two stages' verdict, stage and message, and the same
//!   value; the typed form with the payload's view gives it too, made owned;
//! - the borrowed view (`parse_*_ref`, `from_str_ref`) made owned equals the owned parse, or
//!   both refuse with one message;
//! - a valid value serialises and parses back equal (the frame, and its payload by name).
//!
//! A panic and an input slower than [`SLOW`] are caught by the caller ([`crate::run`]).

use contracts::agent;
use contracts::connect;
use contracts::verdict::{Stage, Verdict};
use contracts::wire::{self, ByName, DecodeRef, Refused, TableError};
use documents_app::documents;
use std::fmt::Debug;
use std::time::Duration;

/// No input may take longer than this to check (every path of [`check`] together). Debug
/// builds on a busy machine included: a slow input is one that is orders of magnitude off.
pub const SLOW: Duration = Duration::from_secs(2);

/// One parse entry point: a protocol and a kind as the corpus names them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// `agent`, `connect` or `documents`.
    pub protocol: &'static str,
    /// The corpus's `as`: `request`, `server`, `payload`, `result`, `event`, `type`,
    /// `client`.
    pub kind: String,
    /// The corpus's `type`: a table entry's name, or a type's.
    pub ty: Option<String>,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.protocol, self.kind)?;
        if let Some(t) = &self.ty {
            write!(f, " {t}")?;
        }
        Ok(())
    }
}

/// What an outcome is compared on: the value's debug form, or the stage and message.
type Outcome = Result<String, (Stage, String)>;

fn refused<V>(r: Refused<V>) -> (Stage, String) {
    match r {
        Refused::Envelope(e) => (Stage::Envelope, e.to_string()),
        Refused::Table(_, e) => table_error(e),
    }
}

/// A table's refusal as the verdict words it.
fn table_error(e: TableError) -> (Stage, String) {
    match e {
        TableError::UnknownName(name) => (Stage::Table, contracts::verdict::no_table_entry(&name)),
        TableError::Invalid { error, .. } if error.is_syntax() => {
            (Stage::Envelope, error.to_string())
        }
        TableError::Invalid { error, .. } => (Stage::Table, error.to_string()),
    }
}

/// Two outcomes that must be equal.
fn same(what: &str, a: &Outcome, b: &Outcome) -> Result<(), String> {
    if a == b {
        Ok(())
    } else {
        Err(format!("{what} differ:\n  {a:?}\n  {b:?}"))
    }
}

/// The verdict of an outcome: a table refusal of text that is not JSON is the envelope's.
fn verdict_of(o: &Outcome) -> Verdict {
    match o {
        Ok(_) => Verdict::accepted(),
        Err((stage, message)) => Verdict::refused_with(*stage, message.clone()),
    }
}

/// A valid value serialised and parsed back must be equal.
fn round_trip<T: serde::Serialize + PartialEq + Debug, E: std::fmt::Display>(
    what: &str,
    value: &T,
    parse: impl Fn(&str) -> Result<T, E>,
) -> Result<(), String> {
    let text = serde_json::to_string(value).map_err(|e| format!("{what}: not serialised: {e}"))?;
    match parse(&text) {
        Ok(back) if &back == value => Ok(()),
        Ok(back) => Err(format!(
            "{what} parsed back differs:\n  {value:?}\n  {back:?}\n  from {text}"
        )),
        Err(e) => Err(format!(
            "{what} refused when parsed back: {e}\n  from {text}"
        )),
    }
}

/// Checks every invariant of `target` on `text`: the verdict, or what broke.
pub fn check(target: &Target, text: &str) -> Result<Verdict, String> {
    let ty = target.ty.as_deref().unwrap_or("");
    match (target.protocol, target.kind.as_str()) {
        ("agent", "request") => {
            let v = request::<agent::RequestPayload, agent::RequestPayloadRef<'_>>(text)?;
            same_verdict(v, agent::verdict(agent::Kind::Request, None, text))
        }
        ("agent", "server") => {
            let v = server::<agent::EventPayload, agent::EventPayloadRef<'_>>(text)?;
            same_verdict(v, agent::verdict(agent::Kind::Server, None, text))
        }
        ("agent", "payload") => by_name::<agent::RequestPayload>(ty, text),
        ("agent", "result") => by_name::<agent::RequestResult>(ty, text),
        ("agent", "event") => by_name::<agent::EventPayload>(ty, text),
        ("agent", "type") => match agent::check_type(ty, text) {
            None => Err(format!("no type {ty:?}")),
            Some(Ok(())) => Ok(Verdict::accepted()),
            Some(Err(e)) if e.is_syntax() => Ok(Verdict::refused(Stage::Envelope, &e)),
            Some(Err(e)) => Ok(Verdict::refused(Stage::Table, &e)),
        },
        ("connect", "client") => {
            whole::<connect::ClientFrame, connect::ClientFrameRef<'_>>(text)?;
            Ok(connect::verdict(connect::Side::Client, text))
        }
        ("connect", "server") => {
            whole::<connect::ServerFrame, connect::ServerFrameRef<'_>>(text)?;
            Ok(connect::verdict(connect::Side::Server, text))
        }
        ("documents", "request") => {
            request::<documents::RequestPayload, documents::RequestPayloadRef<'_>>(text)
        }
        ("documents", "server") => {
            server::<documents::EventPayload, documents::EventPayloadRef<'_>>(text)
        }
        ("documents", "payload") => by_name::<documents::RequestPayload>(ty, text),
        ("documents", "result") => by_name::<documents::RequestResult>(ty, text),
        ("documents", "event") => by_name::<documents::EventPayload>(ty, text),
        _ => Err(format!("no entry point {target}")),
    }
}

/// The invariants' verdict must be the one `cargo xtask validate` prints.
fn same_verdict(
    ours: Verdict,
    theirs: Result<Verdict, agent::UnknownType>,
) -> Result<Verdict, String> {
    let theirs = theirs.map_err(|e| e.to_string())?;
    if ours.ok == theirs.ok && ours.stage == theirs.stage && ours.message == theirs.message {
        Ok(theirs)
    } else {
        Err(format!(
            "the verdict differs from the two stages':\n  {}\n  {}",
            theirs.to_line(),
            ours.to_line()
        ))
    }
}

/// A request frame through every path: one pass (owned and viewed payload), two stages,
/// the envelope owned and borrowed; valid values parsed back.
fn request<'t, E, R>(text: &'t str) -> Result<Verdict, String>
where
    E: ByName<'t> + serde::Serialize + PartialEq + Debug,
    R: ByName<'t> + Own<E>,
{
    let typed: Outcome = agent::parse_request_typed::<E>(text)
        .map(|r| format!("{:?} {:?}", r.id, r.payload))
        .map_err(refused);
    let viewed: Outcome = agent::parse_request_typed::<R>(text)
        .map(|r| format!("{:?} {:?}", r.id, r.payload.own()))
        .map_err(refused);
    let envelope = agent::parse_request_ref(text);
    let two: Outcome = match &envelope {
        Err(e) => Err((Stage::Envelope, e.to_string())),
        Ok(r) => E::parse_named(&r.r#type, r.payload.get())
            .map(|p| format!("{:?} {:?}", r.id, p))
            .map_err(table_error),
    };
    same("one pass and two stages", &typed, &two)?;
    same(
        "one pass with the payload's view and two stages",
        &viewed,
        &two,
    )?;
    let owned = agent::parse_request(text);
    let view = envelope.map(|r| r.into_owned());
    match (&owned, &view) {
        (Ok(a), Ok(b)) if a == b => {}
        (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
        _ => {
            return Err(format!(
                "the envelope's view and the owned envelope differ:\n  {owned:?}\n  {view:?}"
            ));
        }
    }
    if let Ok(frame) = &owned {
        round_trip("the request frame", frame, agent::parse_request)?;
        if let Ok(p) = E::parse_named(&frame.r#type, frame.payload.get()) {
            round_trip("the payload", &p, |s| E::parse_named(&frame.r#type, s))?;
        }
    }
    Ok(verdict_of(&two))
}

/// A server frame through every path, as [`request`].
fn server<'t, E, R>(text: &'t str) -> Result<Verdict, String>
where
    E: ByName<'t> + serde::Serialize + PartialEq + Debug,
    R: ByName<'t> + Own<E>,
{
    use agent::{ServerFrame, ServerFrameRef, ServerFrameTyped};
    let typed: Outcome = agent::parse_server_frame_typed::<E>(text)
        .map(|f| match f {
            ServerFrameTyped::Event(e) => format!("event {:?}", e.payload),
            ServerFrameTyped::ReplyOk(r) => format!("{:?}", ServerFrame::ReplyOk(r.into_owned())),
            ServerFrameTyped::ReplyError(r) => format!("{:?}", ServerFrame::ReplyError(r)),
        })
        .map_err(refused);
    let viewed: Outcome = agent::parse_server_frame_typed::<R>(text)
        .map(|f| match f {
            ServerFrameTyped::Event(e) => format!("event {:?}", e.payload.own()),
            ServerFrameTyped::ReplyOk(r) => format!("{:?}", ServerFrame::ReplyOk(r.into_owned())),
            ServerFrameTyped::ReplyError(r) => format!("{:?}", ServerFrame::ReplyError(r)),
        })
        .map_err(refused);
    let envelope = agent::parse_server_frame_ref(text);
    let two: Outcome = match &envelope {
        Err(e) => Err((Stage::Envelope, e.to_string())),
        Ok(ServerFrameRef::Event(e)) => E::parse_named(&e.event, e.payload.get())
            .map(|p| format!("event {p:?}"))
            .map_err(table_error),
        Ok(_) => agent::parse_server_frame_ref(text)
            .map(|f| format!("{:?}", f.into_owned()))
            .map_err(|e| (Stage::Envelope, e.to_string())),
    };
    same("one pass and two stages", &typed, &two)?;
    same(
        "one pass with the payload's view and two stages",
        &viewed,
        &two,
    )?;
    let owned = agent::parse_server_frame(text);
    let view = envelope.map(|r| r.into_owned());
    match (&owned, &view) {
        (Ok(a), Ok(b)) if a == b => {}
        (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
        _ => {
            return Err(format!(
                "the frame's view and the owned frame differ:\n  {owned:?}\n  {view:?}"
            ));
        }
    }
    if let Ok(frame) = &owned {
        round_trip("the server frame", frame, agent::parse_server_frame)?;
        if let ServerFrame::Event(e) = frame
            && let Ok(p) = E::parse_named(&e.event, e.payload.get())
        {
            round_trip("the event payload", &p, |s| E::parse_named(&e.event, s))?;
        }
    }
    Ok(verdict_of(&two))
}

/// A bare value by its entry's name; a valid one parsed back.
fn by_name<E>(name: &str, text: &str) -> Result<Verdict, String>
where
    E: for<'a> ByName<'a> + serde::Serialize + PartialEq + Debug,
{
    let got = E::parse_named(name, text);
    if let Ok(v) = &got {
        round_trip("the value", v, |s| E::parse_named(name, s))?;
    }
    Ok(match got {
        Ok(_) => Verdict::accepted(),
        Err(TableError::UnknownName(n)) => return Err(format!("no table entry {n:?}")),
        Err(TableError::Invalid { error, .. }) if error.is_syntax() => {
            Verdict::refused(Stage::Envelope, &error)
        }
        Err(TableError::Invalid { error, .. }) => Verdict::refused(Stage::Table, &error),
    })
}

/// A whole frame with no table (Agent Connect): its view made owned is the owned parse; a
/// valid one parsed back.
fn whole<'t, T, R>(text: &'t str) -> Result<(), String>
where
    T: wire::Decode + serde::Serialize + PartialEq + Debug,
    R: DecodeRef<'t, Owned = T>,
{
    let owned = wire::from_str::<T>(text);
    let view = wire::from_str_ref::<R>(text).map(DecodeRef::into_owned);
    match (&owned, &view) {
        (Ok(a), Ok(b)) if a == b => {}
        (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
        _ => {
            return Err(format!(
                "the view and the owned frame differ:\n  {owned:?}\n  {view:?}"
            ));
        }
    }
    if let Ok(v) = &owned {
        round_trip("the frame", v, wire::from_str::<T>)?;
    }
    Ok(())
}

/// A by-name view made owned.
pub trait Own<E> {
    fn own(self) -> E;
}

macro_rules! own {
    ($($view:ty => $owned:ty),* $(,)?) => {
        $(impl Own<$owned> for $view {
            fn own(self) -> $owned {
                self.into_owned()
            }
        })*
    };
}

own! {
    agent::RequestPayloadRef<'_> => agent::RequestPayload,
    agent::EventPayloadRef<'_> => agent::EventPayload,
    documents::RequestPayloadRef<'_> => documents::RequestPayload,
    documents::EventPayloadRef<'_> => documents::EventPayload,
}
