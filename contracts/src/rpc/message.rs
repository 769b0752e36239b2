//! JSON-RPC 2.0 messages as a connection reads and writes them: the request [`Id`], the
//! [`ErrorObject`], the reading of one incoming frame into a [`Message`] (or the refusal a
//! peer answers, -32700 or -32600), and the writing of each kind of outgoing frame.
//!
//! The envelope is read loosely typed on purpose: `params`, `result` and `error` stay raw
//! JSON, so the generated side's table is what judges a request's params, and one reading
//! serves every protocol.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::fmt;

/// JSON-RPC's "Parse error": the frame is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request": the JSON is not a request object (a batch included).
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "Method not found".
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC's "Invalid params".
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC's "Internal error".
pub const INTERNAL_ERROR: i64 = -32603;
/// The code a connection answers a request with when too many wait to be served (in the
/// range JSON-RPC leaves to implementations, -32000 to -32099).
pub const OVERLOADED: i64 = -32000;
/// The code of a request cancelled by its caller and answered all the same (ACP's and LSP's
/// "Request cancelled").
pub const REQUEST_CANCELLED: i64 = -32800;

/// A request's id: a string or an integer (JSON-RPC allows `null` and fractions; MCP does not,
/// and neither does this connection).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    /// An integer id, as this connection numbers its own requests.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => n.fmt(f),
            // As JSON writes it (and `JSON.stringify`): the same text on every side.
            Id::String(s) => f.write_str(&serde_json::to_string(s).map_err(|_| fmt::Error)?),
        }
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(n)
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::String(s.to_owned())
    }
}

impl From<String> for Id {
    fn from(s: String) -> Self {
        Id::String(s)
    }
}

/// A JSON-RPC error object: what the other side answered a failed request with, or what a
/// connection refuses a message with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error's code: JSON-RPC's (-32700, -32600 to -32603) or the protocol's.
    pub code: i64,
    /// A short description.
    pub message: String,
    /// More about the error, as the sender defines it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl ErrorObject {
    /// An error object without data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

/// One incoming frame, read.
#[derive(Debug)]
pub(crate) enum Message {
    /// A request: answer it.
    Request {
        id: Id,
        method: String,
        params: Box<RawValue>,
    },
    /// A notification: hear it.
    Notification {
        method: String,
        params: Box<RawValue>,
    },
    /// A response to one of our requests (`id` is `None` when the other side could not read
    /// our request's id: `null`).
    Response {
        id: Option<Id>,
        outcome: Result<Box<RawValue>, Answer>,
    },
}

/// Why a response is not a result.
#[derive(Debug)]
pub(crate) enum Answer {
    /// The other side's error object.
    Error(ErrorObject),
    /// The response breaks JSON-RPC: what is wrong.
    Invalid(String),
}

/// A frame refused before it reached a handler: the error response to send, with the
/// request's id when it could be read.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub(crate) id: Option<Id>,
    pub(crate) error: ErrorObject,
}

impl Refusal {
    fn new(id: Option<Id>, code: i64, message: impl Into<String>) -> Self {
        Refusal {
            id,
            error: ErrorObject::new(code, message),
        }
    }

    /// An invalid request (-32600).
    pub(crate) fn invalid(id: Option<Id>, message: impl Into<String>) -> Self {
        Refusal::new(id, INVALID_REQUEST, message)
    }
}

/// What a connection answers text that is not JSON, on every side (the parser's own words
/// differ from one language to another, so none are given).
pub(crate) const NOT_JSON: &str = "parse error: the message is not JSON text";

/// The largest integer a request id may be (and its negative the smallest): JavaScript's
/// `Number.MAX_SAFE_INTEGER`, so that an id reads back the same on every side.
const MAX_SAFE_ID: f64 = 9_007_199_254_740_991.0;

/// The first character of a JSON value's text.
fn first(raw: &RawValue) -> u8 {
    raw.get().bytes().next().unwrap_or(b' ')
}

/// Reads one frame's text: a request, a notification or a response, or the refusal to answer.
///
/// The checks run in this order, each with its own words, as the TypeScript runtime's
/// `readMessage` runs them (`bindings/agent-contracts/src/runtime/message.ts`): JSON, a batch,
/// an object; then for a message with a `method`: `jsonrpc`, no `result` or `error`, `method`
/// a string, `params` an object or an array, the id. A key given twice counts once, the last
/// (as `JSON.parse` reads it).
pub(crate) fn read(text: &str) -> Result<Message, Refusal> {
    let value: &RawValue =
        serde_json::from_str(text).map_err(|_| Refusal::new(None, PARSE_ERROR, NOT_JSON))?;
    match first(value) {
        b'{' => {}
        b'[' => {
            return Err(Refusal::invalid(
                None,
                "invalid request: a batch (a JSON array of messages) is not supported; send each message on its own",
            ));
        }
        _ => {
            return Err(Refusal::invalid(
                None,
                "invalid request: a message is a JSON object",
            ));
        }
    }
    let mut members: BTreeMap<String, Box<RawValue>> =
        serde_json::from_str(value.get()).map_err(|_| Refusal::new(None, PARSE_ERROR, NOT_JSON))?;
    // The id, if it can be read: a refusal of the request names it.
    let id = members.remove("id").map(|raw| read_id(&raw));
    let readable_id = id.as_ref().and_then(|id| id.as_ref().ok().cloned());
    let version_ok = members
        .get("jsonrpc")
        .is_some_and(|v| serde_json::from_str::<&str>(v.get()).ok() == Some("2.0"));
    let (result, error) = (members.remove("result"), members.remove("error"));

    let Some(method) = members.remove("method") else {
        return read_response(result, error, id, version_ok);
    };
    if !version_ok {
        return Err(Refusal::invalid(
            readable_id,
            "invalid request: \"jsonrpc\" must be \"2.0\"",
        ));
    }
    if result.is_some() || error.is_some() {
        return Err(Refusal::invalid(
            readable_id,
            "invalid request: a request has no \"result\" or \"error\"",
        ));
    }
    let method: String = serde_json::from_str(method.get()).map_err(|_| {
        Refusal::invalid(
            readable_id.clone(),
            "invalid request: \"method\" must be a string",
        )
    })?;
    let params = match members.remove("params") {
        None => empty_object(),
        Some(p) if matches!(first(&p), b'{' | b'[') => p,
        Some(_) => {
            return Err(Refusal::invalid(
                readable_id,
                "invalid request: \"params\" must be an object or an array",
            ));
        }
    };
    match id {
        None => Ok(Message::Notification { method, params }),
        Some(Ok(id)) => Ok(Message::Request { id, method, params }),
        Some(Err(why)) => Err(Refusal::invalid(
            None,
            format!("invalid request: a request's \"id\" is a string or an integer, not {why}"),
        )),
    }
}

/// A message without a method: a response, or nothing this connection reads.
fn read_response(
    result: Option<Box<RawValue>>,
    error: Option<Box<RawValue>>,
    id: Option<Result<Id, &'static str>>,
    version_ok: bool,
) -> Result<Message, Refusal> {
    if result.is_none() && error.is_none() {
        return Err(Refusal::invalid(
            id.and_then(Result::ok),
            "invalid request: a message has a \"method\" (a request or a notification) or a \"result\" or \"error\" (a response)",
        ));
    }
    // No readable id (`null`): the other side could not read the id of something we sent.
    let id = id.and_then(Result::ok);
    let outcome = match (result, error) {
        _ if !version_ok => Err(Answer::Invalid(
            "the response's \"jsonrpc\" is not \"2.0\"".into(),
        )),
        (Some(result), None) => Ok(result),
        (None, Some(error)) => match serde_json::from_str::<ErrorObject>(error.get()) {
            Ok(error) => Err(Answer::Error(error)),
            Err(e) => Err(Answer::Invalid(format!(
                "the response's error is not a JSON-RPC error object: {e}"
            ))),
        },
        _ => Err(Answer::Invalid(
            "a response has \"result\" or \"error\", not both".into(),
        )),
    };
    Ok(Message::Response { id, outcome })
}

/// A request id: a string, or an integer within JavaScript's safe range (`1.0` and `1e2` are
/// integers, as `JSON.parse` reads them); otherwise what it is instead.
fn read_id(raw: &RawValue) -> Result<Id, &'static str> {
    let text = raw.get();
    match first(raw) {
        b'"' => serde_json::from_str(text)
            .map(Id::String)
            .map_err(|_| "a string JSON cannot hold"),
        b'n' => Err("null"),
        b't' | b'f' => Err("a boolean"),
        b'[' => Err("an array"),
        b'{' => Err("an object"),
        _ => {
            let n: f64 = text.parse().map_err(|_| "a number")?;
            if n.abs() > MAX_SAFE_ID {
                Err("an integer beyond 2^53 - 1 (JavaScript's safe integers)")
            } else if n.fract() != 0.0 {
                Err("a fraction")
            } else {
                // Exact: an integer within the safe range.
                #[allow(clippy::cast_possible_truncation)]
                Ok(Id::Number(n as i64))
            }
        }
    }
}

/// `{}`: the params of a message that has none.
pub(crate) fn empty_object() -> Box<RawValue> {
    RawValue::from_string("{}".to_owned()).expect("`{}` is JSON")
}

#[derive(Serialize)]
struct Out<'a, R: ?Sized, E: ?Sized> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Option<&'a Id>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a R>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a E>,
}

impl<'a> Out<'a, RawValue, ()> {
    fn new() -> Self {
        Out {
            jsonrpc: "2.0",
            id: None,
            method: None,
            params: None,
            result: None,
            error: None,
        }
    }
}

/// One line of JSON text: the frame as serde writes it, with any line break (which JSON has
/// only between tokens, never in a string) made a space, so raw params written with line
/// breaks still fit a line-delimited port.
fn text<T: Serialize>(frame: &T) -> Result<String, serde_json::Error> {
    let text = serde_json::to_string(frame)?;
    Ok(if text.contains(['\n', '\r']) {
        text.replace(['\n', '\r'], " ")
    } else {
        text
    })
}

/// A request frame.
pub(crate) fn request(id: &Id, method: &str, params: &RawValue) -> String {
    let frame = Out {
        id: Some(Some(id)),
        method: Some(method),
        params: Some(params),
        ..Out::new()
    };
    text(&frame).expect("raw JSON and strings always serialise")
}

/// A notification frame.
pub(crate) fn notification(method: &str, params: &RawValue) -> String {
    let frame = Out {
        method: Some(method),
        params: Some(params),
        ..Out::new()
    };
    text(&frame).expect("raw JSON and strings always serialise")
}

/// A result response frame.
pub(crate) fn result(id: &Id, result: &RawValue) -> String {
    let frame = Out {
        id: Some(Some(id)),
        result: Some(result),
        ..Out::new()
    };
    text(&frame).expect("raw JSON and strings always serialise")
}

/// An error response frame; `id` is `None` (written `null`) when the request's id could not
/// be read. Fails only when `error`'s own serialisation does.
pub(crate) fn error<E: Serialize + ?Sized>(
    id: Option<&Id>,
    error: &E,
) -> Result<String, serde_json::Error> {
    error_frame(Some(id), error)
}

/// An error response frame with no `id` member at all (MCP's answer to a message whose id
/// cannot be read: its error response's id is optional and never `null`).
pub(crate) fn error_without_id<E: Serialize + ?Sized>(
    error: &E,
) -> Result<String, serde_json::Error> {
    error_frame(None, error)
}

fn error_frame<E: Serialize + ?Sized>(
    id: Option<Option<&Id>>,
    error: &E,
) -> Result<String, serde_json::Error> {
    let frame = Out::<RawValue, E> {
        jsonrpc: "2.0",
        id,
        method: None,
        params: None,
        result: None,
        error: Some(error),
    };
    text(&frame)
}

/// A refusal's error response frame: with the request's id when it was read, else with
/// `"id": null` when `null_id` (JSON-RPC 2.0, ACP) or no id ([`Options::null_id`]).
///
/// [`Options::null_id`]: super::Options::null_id
pub(crate) fn refusal(refusal: &Refusal, null_id: bool) -> String {
    match (&refusal.id, null_id) {
        (None, false) => error_without_id(&refusal.error),
        (id, _) => error(id.as_ref(), &refusal.error),
    }
    .expect("an error object always serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> (Option<Id>, i64, String) {
        match read(text) {
            Err(r) => (r.id, r.error.code, r.error.message),
            Ok(m) => panic!("read {m:?}"),
        }
    }

    #[test]
    fn reads_each_kind() {
        match read(r#"{"jsonrpc":"2.0","id":"a","method":"m"}"#).unwrap() {
            Message::Request { id, method, params } => {
                assert_eq!((id, method.as_str(), params.get()), ("a".into(), "m", "{}"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read(r#"{"jsonrpc":"2.0","method":"n","params":[1]}"#).unwrap(),
            Message::Notification { .. }
        ));
        match read(r#"{"jsonrpc":"2.0","id":3,"result":null}"#).unwrap() {
            Message::Response { id, outcome } => {
                assert_eq!(id, Some(Id::Number(3)));
                assert_eq!(outcome.unwrap().get(), "null");
            }
            other => panic!("{other:?}"),
        }
        match read(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#).unwrap()
        {
            Message::Response {
                id: None,
                outcome: Err(Answer::Error(e)),
            } => assert_eq!(e.code, PARSE_ERROR),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn refuses_with_json_rpc_codes() {
        assert_eq!(refused("{").1, PARSE_ERROR);
        assert_eq!(refused("[]").1, INVALID_REQUEST);
        assert_eq!(refused("7").1, INVALID_REQUEST);
        assert_eq!(refused("{}").1, INVALID_REQUEST);
        let (id, code, _) = refused(r#"{"jsonrpc":"1.0","id":5,"method":"m"}"#);
        assert_eq!((id, code), (Some(Id::Number(5)), INVALID_REQUEST));
        let (id, code, message) = refused(r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#);
        assert_eq!((id, code), (None, INVALID_REQUEST));
        assert!(message.ends_with("not a fraction"), "{message}");
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#).1,
            INVALID_REQUEST
        );
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":1,"method":7}"#).0,
            Some(Id::Number(1))
        );
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":3}"#).1,
            INVALID_REQUEST
        );
    }

    #[test]
    fn ids_are_read_as_json_parse_reads_them() {
        let id =
            |text: &str| match read(&format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"m"}}"#)) {
                Ok(Message::Request { id, .. }) => Ok(id),
                Ok(m) => panic!("read {m:?}"),
                Err(r) => Err(r.error.message),
            };
        assert_eq!(id("1.0"), Ok(Id::Number(1)));
        assert_eq!(id("1e2"), Ok(Id::Number(100)));
        assert_eq!(id("-0"), Ok(Id::Number(0)));
        assert_eq!(
            id("9007199254740991"),
            Ok(Id::Number(9_007_199_254_740_991))
        );
        assert_eq!(id(r#""\u0041""#), Ok(Id::from("A")));
        for (text, what) in [
            ("9007199254740992", "an integer beyond"),
            ("1e400", "an integer beyond"),
            ("0.5", "a fraction"),
            ("true", "a boolean"),
            ("[1]", "an array"),
            ("{}", "an object"),
            ("null", "null"),
        ] {
            let message = id(text).unwrap_err();
            assert!(
                message.contains(&format!("not {what}")),
                "{text}: {message}"
            );
        }
        // A key given twice: the last counts, as `JSON.parse` reads it.
        assert!(matches!(
            read(r#"{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#),
            Ok(Message::Request {
                id: Id::Number(2),
                ..
            })
        ));
    }

    #[test]
    fn an_unreadable_id_is_null_or_absent_as_the_protocol_says() {
        let refused = Refusal::invalid(None, "x");
        assert_eq!(
            refusal(&refused, true),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#
        );
        assert_eq!(
            refusal(&refused, false),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}"#
        );
        let named = Refusal::invalid(Some(Id::from("a")), "x");
        assert_eq!(
            refusal(&named, false),
            r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"x"}}"#
        );
    }

    #[test]
    fn writes_frames_on_one_line() {
        let params = RawValue::from_string("{\n  \"a\": \"b\\nc\"\n}".into()).unwrap();
        let frame = request(&Id::Number(1), "m", &params);
        assert_eq!(
            frame,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{   "a": "b\nc" }}"#
        );
        let e = error(None, &ErrorObject::new(-32700, "x")).unwrap();
        assert_eq!(
            e,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#
        );
    }
}
