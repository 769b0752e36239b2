//! Frame ports: two ends that pass frames (the spec's `FramePort`).
//!
//! A port moves frames and nothing else. It knows nothing of the protocol on top, nor of
//! connecting, timeouts or who is at the other end; the concrete ports decide those.
//!
//! # Choices
//!
//! - Frames go out as [`Outgoing`]: JSON text or a [`serde_json::Value`]. A byte port serialises
//!   a value; the in-memory port passes either as it is, as a `MessagePort` clones.
//! - Frames come in as [`Incoming`], unchecked: raw text off the wire (even garbage), a value
//!   handed over in memory, or a refusal of a frame that was too large. The receiver validates
//!   every frame with the generated parse functions; a port never judges a frame's shape.
//! - [`FramePort::on_frame`] takes a listener and answers a [`Subscription`] that stops it, on
//!   drop or by [`Subscription::unsubscribe`]. Listeners run on the port's own task, one frame at
//!   a time, in order; they should be quick and hand real work elsewhere. A listener that panics
//!   is caught and stays subscribed.
//! - Frames wait in the transport while nobody listens, so none is lost between making a port
//!   and subscribing to it (as a `MessagePort` queues until started).
//!   A socket is not read meanwhile, so its pings wait too: subscribe soon after making a port.
//! - Sending never waits: frames queue without bound in front of the port's writer task, as
//!   `send` returns nothing in the spec. A host that must bound its memory per client watches
//!   its own queue.
//! - When a port stops delivering for good (the peer left, an error, a close), it drops every
//!   listener. So a listener that owns a channel sender tells its receiver that the port ended:
//!   that is how `FrameReceiver::recv` answers `None`.
//! - A frame over the size limit ([`DEFAULT_MAX_FRAME_SIZE`] unless configured) is refused
//!   without buffering all of it and reported as [`Incoming::TooLarge`]. Bad input never panics
//!   and never stops a port; a broken peer ends it cleanly.
//!
//! # Ports
//!
//! - `memory_pair` (feature `tokio`): two connected ends in one process.
//! - `WebSocketPort` (feature `websocket`): JSON text messages over WebSocket.
//! - `NdjsonPort` (feature `ndjson`): one JSON frame per line over any byte stream.
//!
//! With feature `tokio`, `FrameReceiver` turns any port's frames into an async stream.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(feature = "tokio")]
mod hub;
#[cfg(feature = "tokio")]
mod memory;
#[cfg(feature = "ndjson")]
mod ndjson;
#[cfg(feature = "tokio")]
mod receiver;
#[cfg(feature = "websocket")]
mod websocket;

#[cfg(feature = "tokio")]
pub use memory::{MemoryPort, memory_pair};
#[cfg(feature = "ndjson")]
pub use ndjson::{NdjsonOptions, NdjsonPort};
#[cfg(feature = "tokio")]
pub use receiver::FrameReceiver;
#[cfg(feature = "websocket")]
pub use websocket::{WebSocketError, WebSocketOptions, WebSocketPort};

/// The size limit of one frame when none is configured: 1 MiB of JSON text.
pub const DEFAULT_MAX_FRAME_SIZE: usize = 1024 * 1024;

/// Two ends that pass frames.
///
/// Implementations must be cheap to call from any thread. When a port stops delivering for
/// good, it drops its listeners, so a listener that owns resources (a channel sender) lets go
/// of them.
pub trait FramePort: Send + Sync {
    /// Sends one frame to the other end.
    ///
    /// The frame is queued, not yet written, when this returns. An error means the frame was
    /// not queued: the port is closed or the frame breaks a limit of this port.
    fn send(&self, frame: Outgoing) -> Result<(), SendError>;

    /// Calls `listener` with every frame that arrives until the answered subscription stops.
    fn on_frame(&self, listener: Listener) -> Subscription;

    /// The form of frame this port moves without converting it.
    ///
    /// [`FramePortExt::send_json`] uses it to encode a frame once, in the right form.
    fn encoding(&self) -> Encoding {
        Encoding::Text
    }
}

/// A listener of incoming frames, as [`FramePort::on_frame`] takes it.
pub type Listener = Box<dyn FnMut(Incoming) + Send + 'static>;

impl<P: FramePort + ?Sized> FramePort for Arc<P> {
    fn send(&self, frame: Outgoing) -> Result<(), SendError> {
        (**self).send(frame)
    }

    fn on_frame(&self, listener: Listener) -> Subscription {
        (**self).on_frame(listener)
    }

    fn encoding(&self) -> Encoding {
        (**self).encoding()
    }
}

impl<P: FramePort + ?Sized> FramePort for Box<P> {
    fn send(&self, frame: Outgoing) -> Result<(), SendError> {
        (**self).send(frame)
    }

    fn on_frame(&self, listener: Listener) -> Subscription {
        (**self).on_frame(listener)
    }

    fn encoding(&self) -> Encoding {
        (**self).encoding()
    }
}

/// Conveniences over any [`FramePort`], trait objects included.
pub trait FramePortExt: FramePort {
    /// Encodes `frame` in the port's own form and sends it.
    fn send_json<T: Serialize + ?Sized>(&self, frame: &T) -> Result<(), SendError> {
        let frame = Outgoing::encode(frame, self.encoding()).map_err(SendError::Encode)?;
        self.send(frame)
    }

    /// Calls `listener` with every frame until the answered subscription stops.
    ///
    /// The same as [`FramePort::on_frame`] without boxing by hand.
    fn listen<F>(&self, listener: F) -> Subscription
    where
        F: FnMut(Incoming) + Send + 'static,
    {
        self.on_frame(Box::new(listener))
    }
}

impl<P: FramePort + ?Sized> FramePortExt for P {}

/// The form in which a port moves frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// JSON text: byte streams and sockets.
    Text,
    /// [`serde_json::Value`]s, never serialised: the in-memory pair.
    Value,
}

/// A frame on its way out.
#[derive(Clone, Debug, PartialEq)]
pub enum Outgoing {
    /// JSON text, sent as it is. A port that writes lines refuses text with a line break.
    Text(String),
    /// A JSON value. A byte port serialises it compactly.
    Value(Value),
}

impl Outgoing {
    /// Encodes a serialisable frame in the given form.
    pub fn encode<T: Serialize + ?Sized>(
        frame: &T,
        encoding: Encoding,
    ) -> Result<Self, serde_json::Error> {
        match encoding {
            Encoding::Text => serde_json::to_string(frame).map(Outgoing::Text),
            Encoding::Value => serde_json::to_value(frame).map(Outgoing::Value),
        }
    }

    /// The frame as JSON text, serialising a value.
    pub fn into_text(self) -> String {
        match self {
            Outgoing::Text(text) => text,
            Outgoing::Value(value) => value.to_string(),
        }
    }
}

impl From<String> for Outgoing {
    fn from(text: String) -> Self {
        Outgoing::Text(text)
    }
}

impl From<&str> for Outgoing {
    fn from(text: &str) -> Self {
        Outgoing::Text(text.to_owned())
    }
}

impl From<Value> for Outgoing {
    fn from(value: Value) -> Self {
        Outgoing::Value(value)
    }
}

/// What a port delivers to its listeners: a frame, unchecked, or a refusal.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// JSON text as it arrived. It may be anything, garbage included.
    ///
    /// Bytes that are not UTF-8 arrive with U+FFFD in their place, as a `TextDecoder` reads
    /// them.
    Text(String),
    /// A value handed over in memory. Its shape is unchecked.
    Value(Value),
    /// A frame refused for its size; its bytes were discarded, not buffered.
    TooLarge(FrameTooLarge),
}

impl Incoming {
    /// The frame's text, if it arrived as text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Incoming::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The frame as JSON text, serialising a value; `None` for a refused frame.
    pub fn to_text(&self) -> Option<Cow<'_, str>> {
        match self {
            Incoming::Text(text) => Some(Cow::Borrowed(text)),
            Incoming::Value(value) => Some(Cow::Owned(value.to_string())),
            Incoming::TooLarge(_) => None,
        }
    }

    /// Deserialises the frame into `T`, borrowing from it where `T` borrows.
    ///
    /// This checks only what `T`'s serde implementation checks. The generated parse functions
    /// are the validating path for protocol frames.
    pub fn decode<'a, T: Deserialize<'a>>(&'a self) -> Result<T, DecodeError> {
        match self {
            Incoming::Text(text) => serde_json::from_str(text).map_err(DecodeError::Json),
            Incoming::Value(value) => T::deserialize(value).map_err(DecodeError::Json),
            Incoming::TooLarge(too_large) => Err(DecodeError::TooLarge(*too_large)),
        }
    }
}

/// A frame larger than the port's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameTooLarge {
    /// The frame's size in bytes, as far as it was known: at least `limit + 1`.
    pub size: usize,
    /// The port's limit in bytes.
    pub limit: usize,
}

impl fmt::Display for FrameTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "frame too large: {} bytes, the limit is {} bytes",
            self.size, self.limit
        )
    }
}

impl std::error::Error for FrameTooLarge {}

/// Why [`Incoming::decode`] failed.
#[derive(Debug)]
pub enum DecodeError {
    /// The frame was refused for its size.
    TooLarge(FrameTooLarge),
    /// The frame is not JSON of the expected shape.
    Json(serde_json::Error),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::TooLarge(too_large) => too_large.fmt(f),
            DecodeError::Json(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecodeError::TooLarge(too_large) => Some(too_large),
            DecodeError::Json(error) => Some(error),
        }
    }
}

/// Why a frame was not sent.
#[derive(Debug)]
#[non_exhaustive]
pub enum SendError {
    /// The port is closed: the peer left, the transport failed, or it was closed here.
    Closed,
    /// The frame is larger than the port's limit, so the peer would refuse it.
    TooLarge(FrameTooLarge),
    /// Text for a line-delimited port holds a line break.
    LineBreak,
    /// The frame could not be serialised.
    Encode(serde_json::Error),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Closed => f.write_str("the port is closed"),
            SendError::TooLarge(too_large) => too_large.fmt(f),
            SendError::LineBreak => {
                f.write_str("a frame for a line-delimited port holds a line break")
            }
            SendError::Encode(error) => write!(f, "the frame could not be serialised: {error}"),
        }
    }
}

impl std::error::Error for SendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SendError::TooLarge(too_large) => Some(too_large),
            SendError::Encode(error) => Some(error),
            _ => None,
        }
    }
}

/// What stops a listener: on drop, or by [`Subscription::unsubscribe`].
///
/// Once either returns, no new call of the listener starts. A call already running on the
/// port's task may still finish.
#[must_use = "dropping a subscription stops the listener at once"]
pub struct Subscription {
    stop: Option<Box<dyn FnOnce() + Send + 'static>>,
}

impl Subscription {
    /// A subscription that runs `stop` when it ends. For implementors of [`FramePort`].
    pub fn new(stop: impl FnOnce() + Send + 'static) -> Self {
        Subscription {
            stop: Some(Box::new(stop)),
        }
    }

    /// A subscription with nothing to stop, as a closed port answers.
    pub fn noop() -> Self {
        Subscription { stop: None }
    }

    /// Stops the listener.
    pub fn unsubscribe(mut self) {
        self.stop_now();
    }

    /// Keeps the listener for as long as the port delivers, dropping this handle.
    pub fn detach(mut self) {
        self.stop = None;
    }

    fn stop_now(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop();
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.stop_now();
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("active", &self.stop.is_some())
            .finish()
    }
}
