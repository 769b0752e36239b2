//! Frames: the envelope stage (`parse_request`, `parse_server_frame`, and their borrowed forms
//! `parse_request_ref`, `parse_server_frame_ref`), the frame-level dispatcher that turns any
//! incoming frame into its reply, the writers of outgoing frames, and the verdict
//! `cargo xtask validate` prints.

use super::{
    ErrorCode, Event, EventPayload, ReplyError, ReplyOk, Request, RequestPayload, RequestRef,
    RequestResult, RequestTyped, ServerFrame, ServerFrameRef, ServerFrameTyped, WireError,
};
use crate::__private::{HostError, RawValue};
use crate::verdict::{Stage, Verdict};
use crate::wire::{self, ByName, Dispatch, ParseError, RawJson, Refused, TableError};
use serde::Serialize;

/// Parses a request frame `{ id, type, payload }`. The payload is left unchecked: a request
/// whose name no table knows still parses. Never panics.
pub fn parse_request(text: &str) -> Result<Request, ParseError> {
    wire::from_str::<Request>(text)
}

/// Parses a request frame as [`parse_request`] does, with the same verdict and messages, into
/// a view that borrows `id`, `type` and `payload` from `text` (when `text` lends them: a
/// string with escapes is owned). The dispatcher's envelope stage: nothing is copied.
pub fn parse_request_ref(text: &str) -> Result<RequestRef<'_>, ParseError> {
    wire::from_str_ref::<RequestRef<'_>>(text)
}

/// Parses a server frame: a success, a failure or an event, tried in that order. Payloads
/// and results are left unchecked. Never panics.
pub fn parse_server_frame(text: &str) -> Result<ServerFrame, ParseError> {
    wire::from_str::<ServerFrame>(text)
}

/// Parses a server frame as [`parse_server_frame`] does, with the same verdict and messages,
/// into a view whose success and event borrow their strings and raw values from `text` (when
/// `text` lends them). The client's and the verdict's envelope stage: nothing is copied.
pub fn parse_server_frame_ref(text: &str) -> Result<ServerFrameRef<'_>, ParseError> {
    wire::from_str_ref::<ServerFrameRef<'_>>(text)
}

/// Parses a request frame and its payload, the payload by the frame's `type` through the
/// request table `E` (this protocol's [`RequestPayload`], or an app's that extends it): in one
/// pass when `type` comes before `payload`, as every writer puts them (see `wire::typed`).
/// The verdict and the messages are [`parse_request_ref`]'s, then the table's:
/// `Refused::Envelope` for the frame, `Refused::Table` (with the frame) for an unknown name or
/// an invalid payload. The dispatcher's path. Never panics.
pub fn parse_request_typed<'a, E: ByName<'a>>(
    text: &'a str,
) -> Result<RequestTyped<'a, E>, Refused<RequestRef<'a>>> {
    wire::from_str_typed(text)
}

/// Parses a server frame and, for an event, its payload by the event's name through the event
/// table `E` (this protocol's [`EventPayload`], or an app's): in one pass when the frame is an
/// event whose `event` comes before its `payload` (see the generated [`ServerFrameTyped`]). The
/// verdict and the messages are [`parse_server_frame_ref`]'s, then the table's. The client's
/// path. Never panics.
pub fn parse_server_frame_typed<'a, E: ByName<'a>>(
    text: &'a str,
) -> Result<ServerFrameTyped<'a, E>, Refused<ServerFrameRef<'a>>> {
    wire::from_str_union_typed(text)
}

/// The agent's frames answer with the agent's error: a [`Dispatch`] whose failures are
/// [`WireError`]s (every agent host, and an app's on the agent protocol).
pub trait AgentDispatch: Dispatch<Error = WireError> {}

impl<D: Dispatch<Error = WireError> + ?Sized> AgentDispatch for D {}

/// Answers any incoming frame with the reply frame, as JSON text. An unreadable frame gets a
/// failure with a null id; an unknown name, an invalid payload and a request the host does not
/// do get a failure with the request's id. Nothing here ends the connection.
pub async fn dispatch_frame<D: AgentDispatch + ?Sized>(host: &D, text: &str) -> String {
    match parse_request_typed::<D::Payload>(text) {
        Ok(request) => match host.dispatch_payload(request.payload).await {
            Ok(result) => reply_frame(&request.id, result),
            Err(error) => error_frame(Some(&request.id), &error),
        },
        Err(refused) => refusal_frame(&refused),
    }
}

/// The failure frame for a request refused before it reached the host.
pub(crate) fn refusal_frame(refused: &Refused<RequestRef<'_>>) -> String {
    match refused {
        Refused::Envelope(e) => error_frame(
            None,
            &WireError::new(ErrorCode::UnreadableFrame, e.to_string()),
        ),
        Refused::Table(request, e) => {
            error_frame(Some(&request.id), &crate::__private::table_refusal(e))
        }
    }
}

/// A success frame `{ id, ok: true, result }` as JSON text.
pub fn reply_frame(id: &str, result: Box<RawValue>) -> String {
    to_text(&ReplyOk::new(id, RawJson(result)))
}

/// A failure frame `{ id, ok: false, error }` as JSON text; `None` for an unreadable request.
pub fn error_frame(id: Option<&str>, error: &WireError) -> String {
    to_text(&ReplyError::new(id.map(str::to_owned), error.clone()))
}

/// An event frame `{ type: 'event', event, payload }` as JSON text.
pub fn event_frame<P: Serialize>(event: &str, payload: &P) -> String {
    let payload = RawJson::from_value(payload).unwrap_or_else(|_| RawJson::null());
    to_text(&Event::new(event, payload))
}

/// An event frame as [`event_frame`] writes it, its payload checked first as a client will
/// read it, by the event's name through this protocol's [`EventPayload`] table: a payload the
/// client would refuse (an empty `chatId`, a limit out of range) is answered as an `internal`
/// failure naming the event, the field and the limit, and no frame is made. A name the table
/// does not know (an app's own event) is written unchecked: its table is the app's.
pub fn event_frame_checked<P: Serialize>(event: &str, payload: &P) -> Result<String, WireError> {
    let payload = RawJson::from_value(payload)
        .map_err(|e| WireError::internal(format!("the {event} event could not be written: {e}")))?;
    match EventPayload::read_named(event, payload.get()) {
        Err(TableError::Invalid { error, .. }) => Err(WireError::internal(format!(
            "the {event} event is not valid, so it was not sent: {error}"
        ))),
        Ok(_) | Err(TableError::UnknownName(_)) => Ok(to_text(&Event::new(event, payload))),
    }
}

fn to_text<T: Serialize>(frame: &T) -> String {
    // Generated types always serialise: their maps have string keys.
    serde_json::to_string(frame).unwrap_or_default()
}

// `WireError`'s `Display` (`code: message`), `std::error::Error` and a constructor per code
// (`WireError::unknown_chat(msg)`) are generated from the schema (`#[error]`); an app's own
// codes come as `<App>::WireErrorExt` (`#[extends]`). The conversions below let `?` raise a
// host's common failures as a reply. A failure of the host itself, never of the request: the
// dispatcher has already checked the payload, so a serde_json or IO error here is `internal`.

/// `internal`: the host could not write or read JSON of its own.
impl From<serde_json::Error> for WireError {
    fn from(error: serde_json::Error) -> Self {
        WireError::internal(error.to_string())
    }
}

/// `internal`: an IO failure of the host (a file, a socket of its own).
impl From<std::io::Error> for WireError {
    fn from(error: std::io::Error) -> Self {
        WireError::internal(error.to_string())
    }
}

/// `unknown-request` or `invalid-payload`, as the dispatcher refuses: for a host that reads a
/// nested payload by name itself (`RequestPayload::parse`).
impl From<TableError> for WireError {
    fn from(error: TableError) -> Self {
        crate::__private::table_refusal(&error)
    }
}

/// `internal`: the hub's store could not write or read.
impl From<super::store::StoreError> for WireError {
    fn from(error: super::store::StoreError) -> Self {
        WireError::internal(error.0)
    }
}

/// The agent protocol's `WireError` is what a generated host refuses with.
impl HostError for WireError {
    fn unsupported(method: &str) -> Self {
        WireError::new(
            ErrorCode::ChatUnsupported,
            format!("{method} is not supported by this host"),
        )
    }
    fn unknown_request(name: &str) -> Self {
        WireError::new(
            ErrorCode::UnknownRequest,
            format!("no request is called {name:?}"),
        )
    }
    fn invalid_payload(_name: &str, error: &ParseError) -> Self {
        WireError::new(ErrorCode::InvalidPayload, error.to_string())
    }
    fn internal(message: String) -> Self {
        WireError::new(ErrorCode::Internal, message)
    }
}

/// What `validate --as KIND` checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A request frame, then its payload by name.
    Request,
    /// A server frame, then an event's payload by name.
    Server,
    /// A bare request payload of `--type NAME`.
    Payload,
    /// A bare result of `--type NAME`.
    Result,
    /// A bare event payload of `--type NAME`.
    Event,
    /// A bare value of the named type `--type NAME`: any struct, enum or union of the protocol
    /// or its bases (a frame, `ChatInfo`, `TaskChangedEvent`); see `check_type`.
    Type,
}

impl std::str::FromStr for Kind {
    type Err = String;
    fn from_str(s: &str) -> Result<Kind, String> {
        Ok(match s {
            "request" => Kind::Request,
            "server" => Kind::Server,
            "payload" => Kind::Payload,
            "result" => Kind::Result,
            "event" => Kind::Event,
            "type" => Kind::Type,
            _ => {
                return Err(format!(
                    "unknown kind {s:?}: expected request, server, payload, result, event or type"
                ));
            }
        })
    }
}

/// `--type NAME` names no request (for payload and result), no event, or (for type) no
/// struct, enum or union; the kind it was given for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownType(pub String, pub Kind);

impl std::fmt::Display for UnknownType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Kind::Type => f.write_str(&crate::verdict::no_named_type(&self.0)),
            _ => f.write_str(&crate::verdict::no_table_entry(&self.0)),
        }
    }
}

impl std::error::Error for UnknownType {}

/// A protocol on the agent's frames as a verdict reads it: its request and event tables (the
/// agent's own, [`AgentTables`], or an app's, which hold the agent's entries beside its own),
/// their names, and the types no table entry reaches. Every item is one `protocol!`
/// generates: an app's validator implements it in a few lines over its protocol's module
/// (`cargo xtask validate` writes that validator for an app, see `contracts-xtask`).
pub trait Tables {
    /// The request table's payloads by name (the module's `RequestPayload`).
    type Request: for<'a> ByName<'a>;
    /// The request table's results by name (`RequestResult`).
    type Result: for<'a> ByName<'a>;
    /// The event table's payloads by name (`EventPayload`).
    type Event: for<'a> ByName<'a>;
    /// Every request name (`REQUEST_NAMES`).
    const REQUEST_NAMES: &'static [&'static str];
    /// Every event name (`EVENT_NAMES`).
    const EVENT_NAMES: &'static [&'static str];
    /// The protocol's own types no table entry reaches (`check_type`); the agent's frames
    /// and types outside its tables are tried after them.
    fn check_type(name: &str, json: &str) -> Option<Result<(), ParseError>>;
}

/// The agent protocol's own tables.
#[derive(Debug, Clone, Copy)]
pub struct AgentTables;

impl Tables for AgentTables {
    type Request = RequestPayload;
    type Result = RequestResult;
    type Event = EventPayload;
    const REQUEST_NAMES: &'static [&'static str] = super::REQUEST_NAMES;
    const EVENT_NAMES: &'static [&'static str] = super::EVENT_NAMES;
    fn check_type(name: &str, json: &str) -> Option<Result<(), ParseError>> {
        super::check_type(name, json)
    }
}

/// The verdict on one input line over the agent's tables ([`verdict_in`] of [`AgentTables`]).
pub fn verdict(kind: Kind, type_name: Option<&str>, text: &str) -> Result<Verdict, UnknownType> {
    verdict_in::<AgentTables>(kind, type_name, text)
}

/// The verdict on one input line over the tables `T` (an app's composed tables). `type_name`
/// is required for the bare kinds and must name a table entry (checked before any input is
/// read, so a usage error is not a verdict).
pub fn verdict_in<T: Tables>(
    kind: Kind,
    type_name: Option<&str>,
    text: &str,
) -> Result<Verdict, UnknownType> {
    let known = |names: &[&str], name: Option<&str>| match name {
        Some(n) if names.contains(&n) => Ok(n.to_owned()),
        other => Err(UnknownType(other.unwrap_or("").to_owned(), kind)),
    };
    Ok(match kind {
        Kind::Request => match parse_request_typed::<T::Request>(text) {
            Err(Refused::Envelope(e)) => Verdict::refused(Stage::Envelope, &e),
            Err(Refused::Table(_, e)) => table(Err(e)),
            Ok(_) => Verdict::accepted(),
        },
        Kind::Server => match parse_server_frame_typed::<T::Event>(text) {
            Err(Refused::Envelope(e)) => Verdict::refused(Stage::Envelope, &e),
            Err(Refused::Table(_, e)) => table(Err(e)),
            Ok(_) => Verdict::accepted(),
        },
        Kind::Payload => {
            let name = known(T::REQUEST_NAMES, type_name)?;
            table(T::Request::read_named(&name, text).map(drop))
        }
        Kind::Result => {
            let name = known(T::REQUEST_NAMES, type_name)?;
            table(T::Result::read_named(&name, text).map(drop))
        }
        Kind::Event => {
            let name = known(T::EVENT_NAMES, type_name)?;
            table(T::Event::read_named(&name, text).map(drop))
        }
        Kind::Type => {
            let name = type_name.unwrap_or_default();
            let checked = T::check_type(name, text).or_else(|| super::check_type(name, text));
            match checked {
                None => return Err(UnknownType(name.to_owned(), kind)),
                Some(Ok(())) => Verdict::accepted(),
                Some(Err(e)) if e.is_syntax() => Verdict::refused(Stage::Envelope, &e),
                Some(Err(e)) => Verdict::refused(Stage::Table, &e),
            }
        }
    })
}

/// The verdict of the table stage. A bare value that is not JSON is refused at the envelope.
fn table(outcome: Result<(), TableError>) -> Verdict {
    match outcome {
        Ok(()) => Verdict::accepted(),
        Err(TableError::UnknownName(name)) => {
            Verdict::refused_with(Stage::Table, crate::verdict::no_table_entry(&name))
        }
        Err(TableError::Invalid { error, .. }) if error.is_syntax() => {
            Verdict::refused(Stage::Envelope, &error)
        }
        Err(TableError::Invalid { error, .. }) => Verdict::refused(Stage::Table, &error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{EventPayloadRef, EventTyped, RequestPayloadRef};
    use crate::wire::ObjectTyped;
    use std::borrow::Cow;

    #[test]
    fn the_borrowed_envelope_has_the_owned_verdict_and_messages() {
        let cases = [
            r#"{"id":"1","type":"chat.list","payload":{}}"#,
            r#"{"id":"1","type":"chat.list","payload":null,"extra":[1,{"a":2}]}"#,
            r#"{"id":"\u0031","type":"chat\u002elist","payload":"\u00e9"}"#,
            r#"{"id":"","type":"","payload":1}"#,
            r#"{"id":1,"type":null}"#,
            r#"{"id":"1","id":"","type":"t","payload":1}"#,
            r#"{"id":"","id":"1","type":"t","payload":1}"#,
            r#"{"id":"1","type":"t","payload":1e400}"#,
            r#"{"id":1e400,"type":"t","payload":1}"#,
            r#"{"id":"\ud800","type":"t","payload":"\udc00"}"#,
            r#"{"id":"1","type":"t","payload":1"#,
            r#"[]"#,
            r#""x""#,
            r#"{}"#,
            "not json",
        ];
        for case in cases {
            let owned = parse_request(case).map_err(|e| e.to_string());
            let view = parse_request_ref(case)
                .map(RequestRef::into_owned)
                .map_err(|e| e.to_string());
            assert_eq!(view, owned, "{case}");
        }
    }

    #[test]
    fn the_borrowed_server_frame_has_the_owned_verdict_and_messages() {
        let cases = [
            r#"{"id":"1","ok":true,"result":{"a":[1,2]}}"#,
            r#"{"id":"1","ok":true,"result":null,"extra":1}"#,
            r#"{"id":"\u0031","ok":true,"result":"\u00e9"}"#,
            r#"{"id":"","ok":true,"result":1}"#,
            r#"{"id":"1","ok":true}"#,
            r#"{"id":"1","ok":false,"error":{"code":"internal","message":"m"}}"#,
            r#"{"id":null,"ok":false,"error":{"code":"unreadable_frame","message":"m"}}"#,
            r#"{"id":"1","ok":false,"error":{"code":"nope","message":"m"}}"#,
            r#"{"id":"1","ok":false,"error":{"code":1}}"#,
            r#"{"id":"","ok":false,"error":{"code":"internal","message":"m"}}"#,
            r#"{"id":"1","ok":false}"#,
            r#"{"id":"1","ok":"yes","result":1}"#,
            r#"{"type":"event","event":"chat.status","payload":{"x":1}}"#,
            r#"{"type":"event","event":"","payload":1}"#,
            r#"{"type":"event","event":"e"}"#,
            r#"{"type":"ev\u0065nt","event":"e","payload":1}"#,
            r#"{"type":"event","ev\u0065nt":"e","payload":1}"#,
            r#"{"type":"event","event":"e\"q","payload":[]}"#,
            r#"{"type":"event","event":"e","payload":1e400}"#,
            r#"{"type":"event","event":"\ud800","payload":1}"#,
            r#"{"type":"other","event":"e","payload":1}"#,
            r#"{"type":"event","ok":true,"id":"1","result":2,"event":"e","payload":1}"#,
            r#"{"type":"event","ok":true,"id":"","result":2,"event":"e","payload":1}"#,
            r#"{"type":"event","event":"e","event":"","payload":1}"#,
            r#"{"type":"event","event":"e","payload":1"#,
            r#"[]"#,
            r#""x""#,
            r#"{}"#,
            "not json",
        ];
        for case in cases {
            let owned = parse_server_frame(case).map_err(|e| e.to_string());
            let view = parse_server_frame_ref(case)
                .map(ServerFrameRef::into_owned)
                .map_err(|e| e.to_string());
            assert_eq!(view, owned, "{case}");
        }
        let text = r#"{"type":"event","event":"chat.status","payload":{"a": 1}}"#;
        let Ok(ServerFrameRef::Event(e)) = parse_server_frame_ref(text) else {
            panic!("an event");
        };
        assert!(matches!(e.event, Cow::Borrowed("chat.status")));
        assert!(matches!(e.payload, Cow::Borrowed(_)));
    }

    /// The two stages' outcome, for comparing with the typed parse.
    type Outcome<T> = Result<T, (&'static str, String)>;

    fn refused<V>(r: Refused<V>) -> (&'static str, String) {
        match r {
            Refused::Envelope(e) => ("envelope", e.to_string()),
            Refused::Table(_, e) => ("table", e.to_string()),
        }
    }

    /// The two stages, by the decoder alone (the fast reader off): the authority every other
    /// path is compared with.
    fn request_in_two_stages(text: &str) -> Outcome<(String, RequestPayload)> {
        wire::without_scanner(|| {
            let r = parse_request_ref(text).map_err(|e| ("envelope", e.to_string()))?;
            match RequestPayload::parse(&r.r#type, r.payload.get()) {
                Ok(p) => Ok((r.id.into_owned(), p)),
                Err(e) => Err(("table", e.to_string())),
            }
        })
    }

    fn request_typed(text: &str) -> Outcome<(String, RequestPayload)> {
        parse_request_typed::<RequestPayload>(text)
            .map(|r| (r.id.into_owned(), r.payload))
            .map_err(refused)
    }

    /// The typed request with its payload's view, made owned to compare.
    fn request_view(text: &str) -> Outcome<(String, RequestPayload)> {
        parse_request_typed::<RequestPayloadRef>(text)
            .map(|r| (r.id.into_owned(), r.payload.into_owned()))
            .map_err(refused)
    }

    /// A server frame as the paths compared give it: an event's payload, or the whole frame
    /// (a reply), owned.
    #[derive(Debug, PartialEq)]
    enum Got {
        Event(EventPayload),
        Other(ServerFrame),
    }

    fn event_in_two_stages(text: &str) -> Outcome<Got> {
        wire::without_scanner(|| {
            match parse_server_frame_ref(text).map_err(|e| ("envelope", e.to_string()))? {
                ServerFrameRef::Event(e) => match EventPayload::parse(&e.event, e.payload.get()) {
                    Ok(p) => Ok(Got::Event(p)),
                    Err(e) => Err(("table", e.to_string())),
                },
                other => Ok(Got::Other(other.into_owned())),
            }
        })
    }

    fn event_typed(text: &str) -> Outcome<Got> {
        Ok(
            match parse_server_frame_typed::<EventPayload>(text).map_err(refused)? {
                ServerFrameTyped::Event(e) => Got::Event(e.payload),
                ServerFrameTyped::ReplyOk(r) => Got::Other(ServerFrame::ReplyOk(r.into_owned())),
                ServerFrameTyped::ReplyError(r) => Got::Other(ServerFrame::ReplyError(r)),
            },
        )
    }

    /// The typed server frame with its event payload's view, made owned to compare.
    fn event_view(text: &str) -> Outcome<Got> {
        Ok(
            match parse_server_frame_typed::<EventPayloadRef>(text).map_err(refused)? {
                ServerFrameTyped::Event(e) => Got::Event(e.payload.into_owned()),
                ServerFrameTyped::ReplyOk(r) => Got::Other(ServerFrame::ReplyOk(r.into_owned())),
                ServerFrameTyped::ReplyError(r) => Got::Other(ServerFrame::ReplyError(r)),
            },
        )
    }

    /// The typed paths, owned and viewed, against the two stages by the decoder alone.
    fn typed_frames_agree(text: &str) {
        let request = request_in_two_stages(text);
        assert_eq!(request_typed(text), request, "{text}");
        assert_eq!(request_view(text), request, "{text}");
        let event = event_in_two_stages(text);
        assert_eq!(event_typed(text), event, "{text}");
        assert_eq!(event_view(text), event, "{text}");
    }

    /// A server frame by the fast readers of the union's view and of the owned union, each
    /// compared with the decoder's value; whether either answered.
    fn server_frame_scans_agree(text: &str) -> bool {
        let owned = wire::without_scanner(|| parse_server_frame(text).ok());
        let view =
            crate::__private::scan_str(text, <ServerFrameRef<'_> as wire::DecodeRef<'_>>::scan);
        if let Some(v) = &view {
            assert_eq!(
                Some(v.clone().into_owned()),
                owned,
                "the view's fast reader: {text}"
            );
        }
        let fast = crate::__private::scan_str(text, <ServerFrame as wire::Decode>::scan);
        if let Some(v) = &fast {
            assert_eq!(Some(v), owned.as_ref(), "the owned fast reader: {text}");
        }
        assert_eq!(
            parse_server_frame(text).map_err(|e| e.to_string()),
            wire::without_scanner(|| parse_server_frame(text)).map_err(|e| e.to_string()),
            "{text}"
        );
        view.is_some() || fast.is_some()
    }

    #[test]
    fn the_typed_request_has_the_two_stage_verdict_and_messages() {
        let cases = [
            r#"{"id":"1","type":"chat.list","payload":{}}"#,
            r#"{"id":"1","payload":{},"type":"chat.list"}"#,
            r#"{"id":"1","type":"chat.list","payload":{},"type":"chat.nope"}"#,
            r#"{"id":"1","type":"chat.nope","payload":{},"type":"chat.list"}"#,
            r#"{"id":"1","type":"chat.send","payload":{"chatId":"c","text":"hi"},"type":"chat.list"}"#,
            r#"{"id":"1","type":"chat.list","payload":{},"type":"chat\u002elist"}"#,
            r#"{"id":"1","type":"chat.send","payload":{"chatId":"c"}}"#,
            r#"{"id":"1","type":"chat.send","payload":{"chatId":"c","text":"hi","text":1}}"#,
            r#"{"id":"1","type":"chat.nope","payload":{}}"#,
            r#"{"id":"1","type":"chat.list","payload":{},"extra":1}"#,
            r#"{"id":"1","type":"chat.list","payload":1,"payload":{}}"#,
            r#"{"id":"1","type":"chat.list","payload":{},"payload":1}"#,
            r#"{"id":"","type":"chat.list","payload":{}}"#,
            r#"{"id":"1","type":"","payload":{}}"#,
            r#"{"id":"1","type":1,"payload":{}}"#,
            r#"{"id":"1","type":"chat.list"}"#,
            r#"{"id":"1","type":"chat.list","payload":1e400}"#,
            r#"{"id":"1","type":"chat.list","payload":{"x":1e400}}"#,
            r#"{"id":"1","type":"chat.send","payload":{"chatId":"\ud800","text":"hi"}}"#,
            r#"{"id":"1","type":"chat.list","payload":{}"#,
            r#"[]"#,
            "not json",
        ];
        for case in cases {
            assert_eq!(request_typed(case), request_in_two_stages(case), "{case}");
        }
    }

    #[test]
    fn the_typed_server_frame_has_the_two_stage_verdict_and_messages() {
        let cases = [
            r#"{"type":"event","event":"usage.changed","payload":{"scannedAt":"2026-01-01"}}"#,
            r#"{"type":"event","payload":{"scannedAt":"2026-01-01"},"event":"usage.changed"}"#,
            r#"{"type":"event","event":"usage.changed","payload":{"scannedAt":1}}"#,
            r#"{"type":"event","event":"usage.changed","payload":{"scannedAt":"x"},"event":"nope"}"#,
            r#"{"type":"event","event":"nope","payload":{}}"#,
            r#"{"type":"event","event":"usage.changed","payload":{"scannedAt":"x"},"ok":true}"#,
            r#"{"type":"event","ok":true,"id":"1","result":2,"event":"e","payload":1}"#,
            r#"{"type":"event","event":"usage.changed","payload":{"scannedAt":"x"},"extra":1}"#,
            r#"{"id":"1","ok":true,"result":{"a":[1,2]}}"#,
            r#"{"id":"1","ok":false,"error":{"code":"internal","message":"m"}}"#,
            r#"{"type":"event","event":"usage.changed","payload":{"scannedAt":"x"}"#,
            r#"{"type":"event","event":"","payload":{}}"#,
            // A whole reply merged into a valid event: the union takes the reply.
            r#"{"type":"event","event":"chat.event","payload":{"chatId":"c","event":{"type":"delta","itemId":"i","text":"t"}},"id":"1","ok":true,"result":null}"#,
            r#"{"type":"event","event":"chat.event","payload":{"chatId":"c","event":{"type":"delta","itemId":"i","text":"t"}},"ok":false,"id":null,"error":{"code":"internal","message":"m"}}"#,
            // A tagged union's duplicate tag: agreeing, then disagreeing (the read starts over).
            r#"{"type":"event","event":"chat.event","payload":{"chatId":"c","event":{"type":"delta","itemId":"i","text":"t","type":"delta"}}}"#,
            r#"{"type":"event","event":"chat.event","payload":{"chatId":"c","event":{"type":"delta","itemId":"i","text":"t","type":"reset","items":[]}}}"#,
            r#"{"type":"event","event":"chat.event","payload":{"chatId":"c","event":{"type":"reset","items":[],"type":"delta","itemId":"i","text":"t"}}}"#,
            "not json",
        ];
        for case in cases {
            assert_eq!(event_typed(case), event_in_two_stages(case), "{case}");
        }
    }

    #[test]
    fn the_one_pass_read_leaves_a_frame_with_a_key_of_its_own_to_the_two_stages() {
        let extra = r#"{"id":"1","type":"chat.list","payload":{},"extra":1}"#;
        assert!(crate::__private::read_typed_once::<RequestTyped<'_>>(extra).is_none());
        assert!(parse_request_typed::<RequestPayload>(extra).is_ok());
        let reply = r#"{"type":"event","event":"chat.event","payload":{"chatId":"c","event":{"type":"delta","itemId":"i","text":"t"}},"id":"1","ok":true,"result":null}"#;
        assert!(crate::__private::read_typed_once::<EventTyped<'_>>(reply).is_none());
        assert!(matches!(
            parse_server_frame_typed::<EventPayload>(reply),
            Ok(ServerFrameTyped::ReplyOk(_))
        ));
    }

    #[test]
    fn the_benchmark_frames_are_read_in_one_pass() {
        // The frames the benchmark reads: each one takes the one-pass path and gives the
        // two stages' value.
        let requests = include_str!("../../benches/data/requests.jsonl");
        for line in requests.lines() {
            let once = crate::__private::read_typed_once::<RequestTyped<'_>>(line);
            assert!(once.is_some(), "{line}");
            let fast =
                crate::__private::scan_str(line, <RequestTyped<'_> as ObjectTyped<'_>>::scan);
            assert!(fast.is_some(), "the fast reader: {line}");
            // The payload's view too, borrowing: what the bench's `generated` line reads.
            let view = crate::__private::scan_str(
                line,
                <RequestTyped<'_, RequestPayloadRef> as ObjectTyped<'_>>::scan,
            );
            assert!(view.is_some(), "the view's fast reader: {line}");
            assert_eq!(request_typed(line), request_in_two_stages(line), "{line}");
            assert_eq!(request_view(line), request_in_two_stages(line), "{line}");
        }
        let events = include_str!("../../benches/data/server.jsonl");
        for line in events.lines() {
            let once = crate::__private::read_typed_once::<EventTyped<'_>>(line);
            assert!(once.is_some(), "{line}");
            let fast = crate::__private::scan_str(line, <EventTyped<'_> as ObjectTyped<'_>>::scan);
            assert!(fast.is_some(), "the fast reader: {line}");
            let view = crate::__private::scan_str(
                line,
                <EventTyped<'_, EventPayloadRef> as ObjectTyped<'_>>::scan,
            );
            assert!(view.is_some(), "the view's fast reader: {line}");
            assert_eq!(event_typed(line), event_in_two_stages(line), "{line}");
            assert_eq!(event_view(line), event_in_two_stages(line), "{line}");
        }
        // The replies the bench reads: the union's fast reader answers for each.
        let replies = include_str!("../../benches/data/replies.jsonl");
        for line in replies.lines() {
            assert!(server_frame_scans_agree(line), "the fast reader: {line}");
            assert_eq!(event_typed(line), event_in_two_stages(line), "{line}");
        }
    }

    /// A JSON object's entries in their order, values kept as text.
    struct Ordered(Vec<(String, Box<RawValue>)>);

    impl<'de> serde::Deserialize<'de> for Ordered {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Ordered;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Ordered, A::Error> {
                    let mut entries = Vec::new();
                    while let Some(entry) = map.next_entry()? {
                        entries.push(entry);
                    }
                    Ok(Ordered(entries))
                }
            }
            d.deserialize_map(V)
        }
    }

    fn object_text(entries: &[(String, String)]) -> String {
        let body: Vec<String> = entries
            .iter()
            .map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap()))
            .collect();
        format!("{{{}}}", body.join(","))
    }

    /// Variations of a frame, its order kept: each key removed, of another type, moved last;
    /// duplicate and reply keys; other names; the payload's own keys removed or nulled.
    fn mutations(text: &str) -> Vec<String> {
        let Ordered(entries) = serde_json::from_str(text).unwrap();
        let entries: Vec<(String, String)> = entries
            .into_iter()
            .map(|(k, v)| (k, v.get().to_owned()))
            .collect();
        let mut out = vec![
            format!("[{text}]"),
            "null".to_owned(),
            "\"frame\"".to_owned(),
            "1".to_owned(),
        ];
        for i in 0..entries.len() {
            let mut removed = entries.clone();
            let moved = removed.remove(i);
            out.push(object_text(&removed));
            removed.push(moved);
            out.push(object_text(&removed));
            for v in ["null", "1", "\"\"", "\"x\"", "{}", "[]", "true"] {
                let mut changed = entries.clone();
                changed[i].1 = v.to_owned();
                out.push(object_text(&changed));
            }
            if entries[i].0 == "payload" && entries[i].1.starts_with('{') {
                let Ordered(inner) = serde_json::from_str(&entries[i].1).unwrap();
                for j in 0..inner.len() {
                    for v in [None, Some("null"), Some("\"\"")] {
                        let mut inner: Vec<(String, String)> = inner
                            .iter()
                            .map(|(k, v)| (k.clone(), v.get().to_owned()))
                            .collect();
                        match v {
                            None => drop(inner.remove(j)),
                            Some(v) => inner[j].1 = v.to_owned(),
                        }
                        let mut changed = entries.clone();
                        changed[i].1 = object_text(&inner);
                        out.push(object_text(&changed));
                    }
                }
            }
        }
        let extras = [
            ("ok", "true"),
            ("ok", "false"),
            ("extra", "1"),
            ("type", "\"event\""),
            ("type", "\"chat.list\""),
            ("event", "\"chat.status\""),
            ("payload", "{}"),
            ("id", "\"\""),
        ];
        for (k, v) in extras {
            let mut changed = entries.clone();
            changed.push((k.to_owned(), v.to_owned()));
            out.push(object_text(&changed));
        }
        for name in ["no.such", "", "chat.send", "chat.status", "usage.changed"] {
            for key in ["type", "event"] {
                let mut changed = entries.clone();
                for e in &mut changed {
                    if e.0 == key {
                        e.1 = serde_json::to_string(name).unwrap();
                    }
                }
                out.push(object_text(&changed));
            }
        }
        out
    }

    #[test]
    fn typed_frames_give_the_two_stages_answer_on_mutations_of_the_benchmark_frames() {
        let mut n = 0;
        for file in [
            include_str!("../../benches/data/requests.jsonl"),
            include_str!("../../benches/data/server.jsonl"),
        ] {
            for line in file.lines() {
                for m in mutations(line) {
                    n += 1;
                    typed_frames_agree(&m);
                    server_frame_scans_agree(&m);
                }
            }
        }
        assert!(n > 1000, "{n} mutations");
        // Replies, which the union's fast reader reads as the variant its literals leave.
        let replies = [
            r#"{"id":"7","ok":true,"result":{"chats":[{"chatId":"c","n":[1,2.5,null]}]}}"#,
            r#"{"id":null,"ok":false,"error":{"code":"internal","message":"m\n"}}"#,
            r#"{"ok":false,"id":"7","error":{"code":"unknown-chat","message":"gone"}}"#,
        ];
        let mut answered = 0;
        for line in replies {
            assert!(server_frame_scans_agree(line), "{line}");
            for m in mutations(line) {
                assert_eq!(event_typed(&m), event_in_two_stages(&m), "{m}");
                assert_eq!(event_view(&m), event_in_two_stages(&m), "{m}");
                answered += usize::from(server_frame_scans_agree(&m));
            }
        }
        assert!(
            answered > 10,
            "the union's fast reader answered {answered} mutated replies"
        );
        // A reply the fast reader is not sure of (a duplicate key) whose keys are also a
        // valid event: the decoder takes the reply, so the union's fast reader must not read
        // on to the event.
        let unsure = [
            r#"{"type":"event","event":"usage.changed","payload":{},"id":"1","ok":true,"result":1,"id":"2"}"#,
            r#"{"type":"event","event":"usage.changed","payload":{},"id":null,"ok":false,"error":{"code":"internal","message":"m","code":"internal"}}"#,
        ];
        for line in unsure {
            assert!(!server_frame_scans_agree(line), "{line}");
            assert!(
                matches!(event_in_two_stages(line), Ok(Got::Other(_))),
                "{line}"
            );
        }
    }

    /// A deterministic generator (xorshift64), so a failure names its input and repeats.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// The text with a few characters deleted, repeated or replaced by JSON punctuation,
    /// digits, escapes or letters.
    fn scramble(text: &str, rng: &mut Rng) -> String {
        const PIECES: [&str; 16] = [
            "{", "}", "[", "]", "\"", ",", ":", "\\", "\\u00", "0", "-1", "1e400", "null", "true",
            "x", "\u{e9}",
        ];
        let mut chars: Vec<char> = text.chars().collect();
        for _ in 0..1 + rng.below(3) {
            if chars.is_empty() {
                break;
            }
            let at = rng.below(chars.len());
            match rng.below(3) {
                0 => {
                    let len = 1 + rng.below(8).min(chars.len() - at - 1);
                    chars.drain(at..at + len.min(chars.len() - at));
                }
                1 => {
                    let len = 1 + rng.below(12).min(chars.len() - at - 1);
                    let copy: Vec<char> = chars[at..(at + len).min(chars.len())].to_vec();
                    chars.splice(at..at, copy);
                }
                _ => {
                    let piece = PIECES[rng.below(PIECES.len())];
                    chars.splice(at..(at + 1).min(chars.len()), piece.chars());
                }
            }
        }
        chars.into_iter().collect()
    }

    #[test]
    fn typed_frames_give_the_two_stages_answer_on_scrambled_text() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for file in [
            include_str!("../../benches/data/requests.jsonl"),
            include_str!("../../benches/data/server.jsonl"),
        ] {
            for line in file.lines() {
                for _ in 0..1000 {
                    let m = scramble(line, &mut rng);
                    typed_frames_agree(&m);
                    server_frame_scans_agree(&m);
                }
            }
        }
    }

    /// A bare value parsed by a table's entry `name`, with the fast reader and by the decoder
    /// alone: the same outcome. Whether the decoder accepts, and whether the fast reader
    /// answered.
    fn table_agrees<E: for<'a> ByName<'a> + PartialEq + std::fmt::Debug>(
        name: &str,
        t: &str,
    ) -> (bool, bool) {
        let slow = E::parse_named(name, t).map_err(|e| e.to_string());
        let got = E::read_named(name, t).map_err(|e| e.to_string());
        assert_eq!(got, slow, "{name} {t}");
        let fast = crate::__private::scan_str(t, |r| E::scan_named(name, r));
        if let Some(v) = &fast {
            assert_eq!(Ok(v), slow.as_ref(), "the fast reader: {name} {t}");
        }
        (slow.is_ok(), fast.is_some())
    }

    /// A bare value parsed by a table's entry `name` as the by-name view `V` and as the owned
    /// enum `E`: the same outcome and value (`into`), and the view's fast reader answering
    /// where the owned enum's does, with the same value.
    fn view_table_agrees<'t, V: ByName<'t>, E: for<'a> ByName<'a> + PartialEq + std::fmt::Debug>(
        name: &str,
        t: &'t str,
        into: impl Fn(V) -> E,
    ) {
        let owned = E::parse_named(name, t).map_err(|e| e.to_string());
        let view = V::read_named(name, t).map(&into).map_err(|e| e.to_string());
        assert_eq!(view, owned, "{name} {t}");
        let fast = crate::__private::scan_str(t, |r| V::scan_named(name, r)).map(&into);
        if let Some(v) = &fast {
            assert_eq!(Ok(v), owned.as_ref(), "the view's fast reader: {name} {t}");
        }
        let fast_owned = crate::__private::scan_str(t, |r| E::scan_named(name, r));
        assert_eq!(fast.is_some(), fast_owned.is_some(), "{name} {t}");
    }

    /// A corpus line with the fast reader and by the decoder alone: the same outcome. Whether
    /// the decoder accepts, and whether the fast reader answered (`None` for a type outside
    /// the tables, whose fast reader is not reachable by name: only the outcomes compare).
    fn agrees(kind: &str, name: &str, t: &str) -> Option<(bool, bool)> {
        if kind == "type" {
            let check = |t: &str| {
                crate::agent::check_type(name, t)
                    .unwrap_or_else(|| panic!("no type {name}"))
                    .map_err(|e| e.to_string())
            };
            assert_eq!(check(t), wire::without_scanner(|| check(t)), "{name} {t}");
            if let Some((ok, _)) = crate::agent::check_type_view(name, t) {
                assert_eq!(ok, check(t).is_ok(), "{name} {t}");
            }
            return None;
        }
        Some(match kind {
            "request" => {
                let slow = request_in_two_stages(t);
                typed_frames_agree(t);
                let fast =
                    crate::__private::scan_str(t, <RequestTyped<'_> as ObjectTyped<'_>>::scan);
                let view = crate::__private::scan_str(
                    t,
                    <RequestTyped<'_, RequestPayloadRef> as ObjectTyped<'_>>::scan,
                );
                assert_eq!(view.is_some(), fast.is_some(), "{t}");
                (slow.is_ok(), fast.is_some())
            }
            "server" => {
                let slow = event_in_two_stages(t);
                typed_frames_agree(t);
                let fast = crate::__private::scan_str(t, <EventTyped<'_> as ObjectTyped<'_>>::scan);
                let view = crate::__private::scan_str(
                    t,
                    <EventTyped<'_, EventPayloadRef> as ObjectTyped<'_>>::scan,
                );
                assert_eq!(view.is_some(), fast.is_some(), "{t}");
                let union = server_frame_scans_agree(t);
                (slow.is_ok(), fast.is_some() || union)
            }
            "payload" => {
                view_table_agrees::<RequestPayloadRef, RequestPayload>(
                    name,
                    t,
                    RequestPayloadRef::into_owned,
                );
                table_agrees::<RequestPayload>(name, t)
            }
            "result" => table_agrees::<RequestResult>(name, t),
            "event" => {
                view_table_agrees::<EventPayloadRef, EventPayload>(
                    name,
                    t,
                    EventPayloadRef::into_owned,
                );
                table_agrees::<EventPayload>(name, t)
            }
            other => panic!("unknown kind {other}"),
        })
    }

    /// The same JSON written other ways: keys sorted (a tag or a name no longer first),
    /// pretty-printed, and with an unknown key first or last in every object.
    fn reshaped(text: &str) -> Vec<String> {
        fn add_key(v: &mut serde_json::Value, key: &str) {
            match v {
                serde_json::Value::Object(m) => {
                    m.values_mut().for_each(|x| add_key(x, key));
                    let extra = serde_json::json!({ "a": [1, "x\n", null, true, -2.5e3, {}] });
                    m.insert(key.to_owned(), extra);
                }
                serde_json::Value::Array(a) => a.iter_mut().for_each(|x| add_key(x, key)),
                _ => {}
            }
        }
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            return Vec::new();
        };
        let mut out = vec![value.to_string(), format!("{value:#}")];
        // The keys sort: `!` before every letter, `~` after.
        for key in ["!zz", "~zz"] {
            let mut v = value.clone();
            add_key(&mut v, key);
            out.push(v.to_string());
        }
        out
    }

    #[test]
    fn the_fast_reader_gives_the_decoders_answer_on_the_corpus() {
        // How many lines the fast reader answered, and how many the decoder accepts.
        let (mut answered, mut accepted) = (0, 0);
        // The same for the valid lines written other ways.
        let (mut answered_reshaped, mut reshaped_lines) = (0, 0);
        for file in [
            include_str!("../../../tests/corpus/agent.jsonl"),
            include_str!("../../../tests/corpus/derived/agent.jsonl"),
        ] {
            for (kind, name, text) in crate::verdict::corpus_lines(file) {
                let name = name.as_deref().unwrap_or("");
                let Some((ok, fast)) = agrees(&kind, name, &text) else {
                    reshaped(&text)
                        .iter()
                        .for_each(|t| _ = agrees(&kind, name, t));
                    continue;
                };
                accepted += usize::from(ok);
                answered += usize::from(fast);
                if ok {
                    for t in reshaped(&text) {
                        reshaped_lines += 1;
                        answered_reshaped +=
                            usize::from(agrees(&kind, name, &t).is_some_and(|a| a.1));
                    }
                }
            }
        }
        // Most valid lines are plain; many others test on purpose what the fast reader leaves
        // to the decoder (duplicate keys, `1.0` or `-0` for an int, escapes, replies).
        assert!(
            answered * 2 >= accepted,
            "the fast reader answered {answered} of {accepted} valid lines"
        );
        // Sorted keys put a request's payload before its name, and a frame takes no key of
        // its own: those are left to the decoder; tags out of place and unknown keys in a
        // payload are not.
        assert!(
            answered_reshaped * 2 >= reshaped_lines,
            "the fast reader answered {answered_reshaped} of {reshaped_lines} reshaped lines"
        );
    }

    #[test]
    fn a_number_beyond_a_double_in_an_unknown_value_is_kept_as_written() {
        // `1e400` in an `unknown` field and under an unknown key: JavaScript reads Infinity in
        // both and Zod accepts; the value keeps its text whether the tag comes first (streamed)
        // or last (buffered), with the fast reader or the decoder alone.
        let item = |tag_first: bool| {
            let fields =
                r#""id":"t","toolUseId":"u","name":"n","input":1e400,"status":"done","x":1e400"#;
            if tag_first {
                format!(r#"{{"kind":"tool",{fields}}}"#)
            } else {
                format!(r#"{{{fields},"kind":"tool"}}"#)
            }
        };
        let mut values = Vec::new();
        for tag_first in [true, false] {
            let text = item(tag_first);
            let fast = wire::from_str::<super::super::ChatItem>(&text).expect("valid");
            let slow = wire::without_scanner(|| wire::from_str::<super::super::ChatItem>(&text))
                .expect("valid");
            assert_eq!(fast, slow, "{text}");
            let super::super::ChatItem::Tool(tool) = &fast else {
                panic!("a tool item: {fast:?}");
            };
            assert_eq!(tool.input.get(), "1e400", "{text}");
            values.push(fast);
            let frame = format!(
                r#"{{"type":"event","event":"chat.event","payload":{{"chatId":"c","event":{{"type":"item","item":{text}}}}}}}"#
            );
            assert_eq!(event_typed(&frame), event_in_two_stages(&frame), "{frame}");
            assert!(event_typed(&frame).is_ok(), "{frame}");
        }
        assert_eq!(values[0], values[1]);
    }

    #[test]
    fn the_borrowed_envelope_borrows_what_it_can() {
        let text = r#"{"id":"req-1","type":"chat.list","payload":{"a": [1, 2]}}"#;
        let r = parse_request_ref(text).unwrap();
        assert!(matches!(r.id, Cow::Borrowed("req-1")));
        assert!(matches!(r.r#type, Cow::Borrowed("chat.list")));
        assert!(matches!(r.payload, Cow::Borrowed(_)));
        assert_eq!(r.payload.get(), r#"{"a": [1, 2]}"#);
        let r = parse_request_ref(r#"{"id":"r\"1","type":"t","payload":1}"#).unwrap();
        assert!(matches!(r.id, Cow::Owned(ref s) if s == "r\"1"));
    }
}
