//! Frames: the envelope stage (`parse_request`, `parse_server_frame`, and their borrowed forms
//! `parse_request_ref`, `parse_server_frame_ref`), the frame-level dispatcher that turns any
//! incoming frame into its reply, the writers of outgoing frames, and the verdict
//! `cargo xtask validate` prints.

use super::{
    ErrorCode, Event, EventPayload, ReplyError, ReplyOk, Request, RequestPayload, RequestRef,
    RequestResult, ServerFrame, ServerFrameRef, WireError,
};
use crate::__private::{HostError, RawValue};
use crate::verdict::{Stage, Verdict};
use crate::wire::{self, ParseError, RawJson, TableError};
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

/// A host of a request table as the frame machinery calls it: every protocol with requests
/// generates one, `Dispatcher(&host)`, whose `dispatch` routes every name of its tables (an
/// app's and its bases').
pub trait Dispatch: Sync {
    /// Parses the payload by the request's name and answers the host's result as raw JSON.
    fn dispatch(
        &self,
        name: &str,
        payload: &RawValue,
    ) -> impl Future<Output = Result<Box<RawValue>, WireError>> + Send;
}

/// Answers any incoming frame with the reply frame, as JSON text. An unreadable frame gets a
/// failure with a null id; an unknown name, an invalid payload and a request the host does not
/// do get a failure with the request's id. Nothing here ends the connection.
pub async fn dispatch_frame<D: Dispatch + ?Sized>(host: &D, text: &str) -> String {
    let request = match parse_request_ref(text) {
        Ok(r) => r,
        Err(e) => {
            return error_frame(
                None,
                &WireError {
                    code: ErrorCode::UnreadableFrame,
                    message: e.to_string(),
                },
            );
        }
    };
    match host.dispatch(&request.r#type, &request.payload).await {
        Ok(result) => reply_frame(&request.id, result),
        Err(error) => error_frame(Some(&request.id), &error),
    }
}

/// A success frame `{ id, ok: true, result }` as JSON text.
pub fn reply_frame(id: &str, result: Box<RawValue>) -> String {
    to_text(&ReplyOk {
        id: id.to_owned(),
        result: RawJson(result),
    })
}

/// A failure frame `{ id, ok: false, error }` as JSON text; `None` for an unreadable request.
pub fn error_frame(id: Option<&str>, error: &WireError) -> String {
    to_text(&ReplyError {
        id: id.map(str::to_owned),
        error: error.clone(),
    })
}

/// An event frame `{ type: 'event', event, payload }` as JSON text.
pub fn event_frame<P: Serialize>(event: &str, payload: &P) -> String {
    let payload = RawJson::from_value(payload).unwrap_or_else(|_| RawJson::null());
    to_text(&Event {
        event: event.to_owned(),
        payload,
    })
}

fn to_text<T: Serialize>(frame: &T) -> String {
    // Generated types always serialise: their maps have string keys.
    serde_json::to_string(frame).unwrap_or_default()
}

/// The agent protocol's `WireError` is what a generated host refuses with.
impl HostError for WireError {
    fn unsupported(method: &str) -> Self {
        WireError {
            code: ErrorCode::ChatUnsupported,
            message: format!("{method} is not supported by this host"),
        }
    }
    fn unknown_request(name: &str) -> Self {
        WireError {
            code: ErrorCode::UnknownRequest,
            message: format!("no request is called {name:?}"),
        }
    }
    fn invalid_payload(_name: &str, error: &ParseError) -> Self {
        WireError {
            code: ErrorCode::InvalidPayload,
            message: error.to_string(),
        }
    }
    fn internal(message: String) -> Self {
        WireError {
            code: ErrorCode::Internal,
            message,
        }
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
            _ => {
                return Err(format!(
                    "unknown kind {s:?}: expected request, server, payload, result or event"
                ));
            }
        })
    }
}

/// `--type NAME` names no request (for payload and result) or no event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownType(pub String);

impl std::fmt::Display for UnknownType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no table entry is called {:?}", self.0)
    }
}

impl std::error::Error for UnknownType {}

/// The verdict on one input line. `type_name` is required for the bare kinds and must name a
/// table entry (checked before any input is read, so a usage error is not a verdict).
pub fn verdict(kind: Kind, type_name: Option<&str>, text: &str) -> Result<Verdict, UnknownType> {
    let known = |names: &[&str], name: Option<&str>| match name {
        Some(n) if names.contains(&n) => Ok(n.to_owned()),
        other => Err(UnknownType(other.unwrap_or("").to_owned())),
    };
    Ok(match kind {
        Kind::Request => match parse_request_ref(text) {
            Err(e) => Verdict::refused(Stage::Envelope, &e),
            Ok(r) => table(RequestPayload::parse(&r.r#type, r.payload.get()).map(drop)),
        },
        Kind::Server => match parse_server_frame_ref(text) {
            Err(e) => Verdict::refused(Stage::Envelope, &e),
            Ok(ServerFrameRef::Event(e)) => {
                table(EventPayload::parse(&e.event, e.payload.get()).map(drop))
            }
            Ok(_) => Verdict::accepted(),
        },
        Kind::Payload => {
            let name = known(super::REQUEST_NAMES, type_name)?;
            table(RequestPayload::parse(&name, text).map(drop))
        }
        Kind::Result => {
            let name = known(super::REQUEST_NAMES, type_name)?;
            table(RequestResult::parse(&name, text).map(drop))
        }
        Kind::Event => {
            let name = known(super::EVENT_NAMES, type_name)?;
            table(EventPayload::parse(&name, text).map(drop))
        }
    })
}

/// The verdict of the table stage. A bare value that is not JSON is refused at the envelope.
fn table(outcome: Result<(), TableError>) -> Verdict {
    match outcome {
        Ok(()) => Verdict::accepted(),
        Err(TableError::UnknownName(name)) => {
            Verdict::refused_with(Stage::Table, format!("no table entry is called {name:?}"))
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
