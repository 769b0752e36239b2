//! The request and event tables' traits, the errors of parse-by-name, and the hooks a host's
//! dispatcher refuses with.

use super::drive::{ParseError, parse_with};
use super::issue::Cx;
use super::scan::Scanner;
use super::source::{Read, Src};
use serde::Serialize;
use std::any::Any;
use std::fmt;

/// A request of a table, lsp-types style: its wire name, payload and result.
pub trait Request: 'static {
    /// The wire name (`chat.history`).
    const METHOD: &'static str;
    /// What the client sends.
    type Payload: fmt::Debug + Clone + Serialize + Send + 'static;
    /// What the host answers.
    type Result: fmt::Debug + Clone + Serialize + Send + 'static;
    /// Parses and validates a payload: the fast reader, then the decoder when it is not sure.
    /// Provided, so the fast reader is compiled only in a crate that calls it.
    fn parse_payload(json: &str) -> Result<Self::Payload, ParseError> {
        parse_with(json, Self::scan_payload, Self::decode_payload)
    }
    /// Parses and validates a result, as [`Request::parse_payload`] does a payload.
    fn parse_result(json: &str) -> Result<Self::Result, ParseError> {
        parse_with(json, Self::scan_result, Self::decode_result)
    }
    /// Decodes and validates a payload from a frame being read (see `wire::typed`).
    fn decode_payload(src: &mut dyn Src<'_>, cx: &mut Cx) -> Read<Option<Self::Payload>>;
    /// Decodes and validates a result from a frame being read.
    fn decode_result(src: &mut dyn Src<'_>, cx: &mut Cx) -> Read<Option<Self::Result>>;
    /// Reads a plain, valid payload with the fast reader (`wire::scan`); `None` when not sure.
    fn scan_payload(r: &mut Scanner<'_>) -> Option<Self::Payload>;
    /// Reads a plain, valid result with the fast reader; `None` when not sure.
    fn scan_result(r: &mut Scanner<'_>) -> Option<Self::Result>;
}

/// An event of a table: its wire name and payload.
pub trait Event: 'static {
    /// The wire name (`chat.status`).
    const NAME: &'static str;
    /// What the event carries.
    type Payload: fmt::Debug + Clone + Serialize + Send + 'static;
    /// Parses and validates a payload: the fast reader, then the decoder when it is not sure.
    /// Provided, so the fast reader is compiled only in a crate that calls it.
    fn parse_payload(json: &str) -> Result<Self::Payload, ParseError> {
        parse_with(json, Self::scan_payload, Self::decode_payload)
    }
    /// Decodes and validates a payload from a frame being read (see `wire::typed`).
    fn decode_payload(src: &mut dyn Src<'_>, cx: &mut Cx) -> Read<Option<Self::Payload>>;
    /// Reads a plain, valid payload with the fast reader (`wire::scan`); `None` when not sure.
    fn scan_payload(r: &mut Scanner<'_>) -> Option<Self::Payload>;
}

/// A value of a table's by-name enum (`EventPayload`, `RequestPayload`): the entry's name and
/// its value. A reader that knows only a base's entries finds them in an app's table so: the
/// agent's `ChatThread` reads `chat.event` out of an app's `EventPayload` by
/// `event.get::<events::ChatEvent>()`, with no copy.
pub trait Entry: fmt::Debug + Clone + Send + 'static {
    /// The entry's wire name (`chat.event`).
    fn entry_name(&self) -> &'static str;
    /// The entry's value, to look at by its type.
    fn value(&self) -> &(dyn Any + Send);
    /// The payload of event `E` when this is that event.
    fn get<E: Event>(&self) -> Option<&E::Payload> {
        if self.entry_name() == E::NAME {
            self.value().downcast_ref()
        } else {
            None
        }
    }
}

/// Why a value could not be parsed by name.
#[derive(Debug)]
pub enum TableError {
    /// No table entry has this name.
    UnknownName(String),
    /// The entry exists; the value is not valid for it.
    Invalid {
        /// The entry's name.
        name: &'static str,
        /// The prettified issues (or the JSON syntax error).
        error: ParseError,
    },
}

impl TableError {
    /// Whether the name is unknown to the table.
    pub fn is_unknown_name(&self) -> bool {
        matches!(self, TableError::UnknownName(_))
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::UnknownName(name) => write!(f, "unknown name: {name}"),
            TableError::Invalid { error, .. } => error.fmt(f),
        }
    }
}

impl std::error::Error for TableError {}

/// The error a host answers with: what a generated dispatcher makes when it refuses.
/// The agent protocol's `WireError` implements it.
pub trait HostError: Sized {
    /// The host does not do this request.
    fn unsupported(method: &str) -> Self;
    /// No table entry has this name.
    fn unknown_request(name: &str) -> Self;
    /// The payload is not valid for the request.
    fn invalid_payload(name: &str, error: &ParseError) -> Self;
    /// The result could not be written (never expected).
    fn internal(message: String) -> Self;
}

/// What a generated typed caller (`ClientCalls`, `HostCalls`) sends through: a connection
/// that calls a method of the other side and answers its raw result, and sends a
/// notification. A JSON-RPC connection implements it; so does a test's loopback to the
/// other side's dispatcher.
pub trait Call: Sync {
    /// Why a call failed on the way or at the other side (its error, a closed connection).
    type Error: Send;
    /// Sends request `method` with `params` and answers the other side's result, unchecked.
    fn call_raw(
        &self,
        method: &'static str,
        params: Box<serde_json::value::RawValue>,
    ) -> impl std::future::Future<Output = Result<Box<serde_json::value::RawValue>, Self::Error>> + Send;
    /// Sends notification `method` with `params`; nothing is answered.
    fn notify_raw(
        &self,
        method: &'static str,
        params: Box<serde_json::value::RawValue>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send;
}

/// Why a typed call failed: the connection's or the other side's error, a payload that could
/// not be written, or a result the request's table refused (the other side broke the
/// contract; the message names the field and the rule).
#[derive(Debug)]
pub enum CallError<E> {
    /// The connection's or the other side's error.
    Call(E),
    /// The payload could not be written as JSON.
    Encode(serde_json::Error),
    /// The result is not what the request's table says.
    InvalidResult {
        /// The request's name.
        method: &'static str,
        /// The issues, as the validators print them.
        error: ParseError,
    },
}

impl<E: fmt::Display> fmt::Display for CallError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Call(e) => e.fmt(f),
            CallError::Encode(e) => write!(f, "the payload could not be written: {e}"),
            CallError::InvalidResult { method, error } => {
                write!(f, "the result of {method} is not valid: {error}")
            }
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for CallError<E> {}

/// Sends request `R` through `call` and reads its result by the table: the typed caller's
/// one body.
pub async fn call_typed<R: Request, C: Call + ?Sized>(
    call: &C,
    payload: &R::Payload,
) -> Result<R::Result, CallError<C::Error>> {
    let params = serde_json::value::to_raw_value(payload).map_err(CallError::Encode)?;
    let raw = call
        .call_raw(R::METHOD, params)
        .await
        .map_err(CallError::Call)?;
    R::parse_result(raw.get()).map_err(|error| CallError::InvalidResult {
        method: R::METHOD,
        error,
    })
}

/// Sends event `E` through `call`: the typed caller's body for a notification.
pub async fn notify_typed<E: Event, C: Call + ?Sized>(
    call: &C,
    payload: &E::Payload,
) -> Result<(), CallError<C::Error>> {
    let params = serde_json::value::to_raw_value(payload).map_err(CallError::Encode)?;
    call.notify_raw(E::NAME, params)
        .await
        .map_err(CallError::Call)
}

/// A request whose host may send partial results before its result (LSP's `partialResult`,
/// `#[partial = "T"]`): their type, read as the table reads a result.
pub trait PartialResult: Request {
    /// One part of the result.
    type Partial: fmt::Debug + Clone + Serialize + Send + 'static;
    /// Parses and validates a partial result.
    fn parse_partial(json: &str) -> Result<Self::Partial, ParseError>;
}

/// A request whose failures carry typed data (LSP's `errorData`, `#[error_data = "T"]`): the
/// `data` of an error answering it, read as the table reads a result.
pub trait ErrorData: Request {
    /// What a failure's `data` holds.
    type Data: fmt::Debug + Clone + Serialize + Send + 'static;
    /// Parses and validates a failure's data.
    fn parse_error_data(json: &str) -> Result<Self::Data, ParseError>;
}
