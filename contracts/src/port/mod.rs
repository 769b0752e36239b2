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
//! - Reading waits for the consumer: the byte ports stop reading their stream while the frames
//!   received and not yet taken are over a bound in bytes ([`Limits::max_inbound_bytes`]), so a
//!   peer that sends faster than the consumer takes meets TCP's backpressure and costs at most
//!   the bound. A `FrameReceiver` holds a frame's bytes until `recv` takes it; a listener
//!   holds them only while it runs. Each port waits for its own consumer alone.
//! - Sending never waits, as `send` returns nothing in the spec: frames queue in front of the
//!   port's writer task. The byte ports bound that queue by bytes ([`Limits`]): a send that
//!   would go over it is refused with [`SendError::SlowConsumer`] and the port closes, telling
//!   the peer why ([`CloseReason::SlowConsumer`]), so one peer that does not read costs at most
//!   the bound. The in-memory pair does not bound its queue (both ends are in one process).
//! - [`FramePort::send_coalesced`] sends a frame that replaces the one with the same key still
//!   waiting in the queue (whole-state frames such as a status: a peer that is behind gets the
//!   newest only, so what it costs does not grow with how far behind it is).
//! - A port that ends says why: `close_reason` on the byte ports answers a [`CloseReason`]
//!   (the peer, a close here, a slow consumer, an idle timeout, a frame too large, an error).
//! - When a port stops delivering for good (the peer left, an error, a close), it drops every
//!   listener. So a listener that owns a channel sender tells its receiver that the port ended:
//!   that is how `FrameReceiver::recv` answers `None`.
//! - A frame over the size limit ([`DEFAULT_MAX_FRAME_SIZE`] unless configured) is refused
//!   without buffering all of it and reported as [`Incoming::TooLarge`]; the port still sends
//!   for a while after it (a WebSocket cannot read on past it), so the receiver can answer
//!   with a failure before the connection closes. Bad input never panics and never stops a
//!   port; a broken peer ends it cleanly.
//! - One [`Limits`] value is the setting a server shares between its ports and whatever
//!   makes its frames (the agent `Hub` cuts its pages to the same `max_frame_size`).
//!
//! # Using the limits (a server)
//!
//! ```no_run
//! # async fn run(stream: tokio::net::TcpStream) -> Result<(), Box<dyn std::error::Error>> {
//! use contracts::port::{CloseReason, FramePort, Limits, Outgoing, WebSocketOptions, WebSocketPort};
//! use std::time::Duration;
//!
//! let limits = Limits { max_frame_size: 1 << 20, max_queued_bytes: 8 << 20, ..Limits::default() };
//! let options = WebSocketOptions::default()
//!     .limits(limits)
//!     .heartbeat(Duration::from_secs(15))
//!     .idle_timeout(Duration::from_secs(45));
//! let port = WebSocketPort::accept(stream, &options).await?;
//! // A status frame that replaces the one for the same chat still waiting.
//! port.send_coalesced("status:c1", Outgoing::Text(r#"{"type":"x"}"#.into()))?;
//! port.closed().await;
//! if let Some(CloseReason::SlowConsumer(full)) = port.close_reason() {
//!     eprintln!("dropped a slow client: {full}");
//! }
//! # Ok(()) }
//! ```
//!
//! # Ports
//!
//! - `memory_pair` (feature `tokio`): two connected ends in one process.
//! - `WebSocketPort` (feature `websocket`): JSON text messages over WebSocket.
//! - `NdjsonPort` (feature `ndjson`): one JSON frame per line over any byte stream.
//!
//! A server accepts with `listen` (feature `tokio`): accept errors waited out, a cap on
//! connections, a handshake timeout. `Access` (feature `websocket`) is who may open a
//! WebSocket: a client token and the browser origins allowed.
//!
//! With feature `tokio`, `FrameReceiver` turns any port's frames into an async stream.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(feature = "websocket")]
mod access;
#[cfg(feature = "tokio")]
mod hub;
// The byte ports' inbound bound.
#[cfg(feature = "tokio")]
mod inbound;
#[cfg(feature = "tokio")]
pub mod listen;
#[cfg(feature = "tokio")]
mod memory;
#[cfg(feature = "ndjson")]
mod ndjson;
// The byte ports' outgoing queue.
#[cfg(any(feature = "websocket", feature = "ndjson"))]
mod queue;
#[cfg(feature = "tokio")]
mod receiver;
#[cfg(feature = "websocket")]
mod websocket;

#[cfg(feature = "websocket")]
pub use access::{Access, Refusal};
#[cfg(feature = "tokio")]
pub use listen::{ListenOptions, listen};
#[cfg(feature = "tokio")]
pub use memory::{MemoryPort, memory_pair};
#[cfg(feature = "ndjson")]
pub use ndjson::{NdjsonOptions, NdjsonPort};
#[cfg(feature = "tokio")]
pub use receiver::FrameReceiver;
#[cfg(feature = "websocket")]
pub use websocket::{READ_BUFFER, WebSocketError, WebSocketOptions, WebSocketPort};

/// The size limit of one frame when none is configured: 1 MiB of JSON text.
pub const DEFAULT_MAX_FRAME_SIZE: usize = 1024 * 1024;

/// The bound of a port's outgoing queue when none is configured: 8 MiB of frames not yet
/// written, eight frames of the largest size.
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 8 * 1024 * 1024;

/// The bound of the frames a port has received and its consumer not yet taken, when none is
/// configured: 2 MiB, two frames of the largest size.
pub const DEFAULT_MAX_INBOUND_BYTES: usize = 2 * 1024 * 1024;

/// The limits a server shares between its ports and what makes its frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest frame accepted or sent, in bytes of JSON text.
    pub max_frame_size: usize,
    /// The most bytes of frames a port queues for its peer before it closes as a slow
    /// consumer's. At least `max_frame_size`, so one frame of the largest size always fits.
    pub max_queued_bytes: usize,
    /// The most bytes of frames received and not yet taken by the consumer before a byte port
    /// stops reading its stream (it reads on once the consumer takes some). One frame is
    /// always read, whatever its size; a server's connection loop bounds the requests it
    /// runs at once by the same figure.
    pub max_inbound_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frame_size: DEFAULT_MAX_FRAME_SIZE,
            max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
            max_inbound_bytes: DEFAULT_MAX_INBOUND_BYTES,
        }
    }
}

impl Limits {
    /// The queue bound in force: never below the frame size limit.
    pub fn queue_bound(&self) -> usize {
        self.max_queued_bytes.max(self.max_frame_size)
    }
}

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

    /// Sends a frame that replaces the frame sent with the same `key` that is still waiting
    /// to be written (whole-state frames: the peer needs only the newest). The newer frame
    /// goes after every frame sent before it. A port without a queue sends it as
    /// [`send`](Self::send) does.
    fn send_coalesced(&self, key: &str, frame: Outgoing) -> Result<(), SendError> {
        let _ = key;
        self.send(frame)
    }

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

    fn send_coalesced(&self, key: &str, frame: Outgoing) -> Result<(), SendError> {
        (**self).send_coalesced(key, frame)
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

    fn send_coalesced(&self, key: &str, frame: Outgoing) -> Result<(), SendError> {
        (**self).send_coalesced(key, frame)
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

/// A port's outgoing queue over its bound: the peer does not read fast enough.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueFull {
    /// The bytes the queue would have held with the refused frame.
    pub queued: usize,
    /// The bound in bytes.
    pub limit: usize,
}

impl fmt::Display for QueueFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "slow consumer: {} bytes queued, the limit is {} bytes",
            self.queued, self.limit
        )
    }
}

impl std::error::Error for QueueFull {}

/// Why a port stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CloseReason {
    /// Closed here: `close` or the last drop.
    Closed,
    /// The peer closed, or the connection ended from its side.
    Peer,
    /// The outgoing queue went over its bound (the peer told: WebSocket close 1008).
    SlowConsumer(QueueFull),
    /// Nothing came from the peer (not even a pong) for this long (WebSocket close 1001).
    Idle(std::time::Duration),
    /// The peer sent a frame over the limit (WebSocket close 1009).
    TooLarge(FrameTooLarge),
    /// The peer broke the WebSocket protocol: an unmasked client frame, a reserved bit set
    /// without an extension, a bad opcode (WebSocket close 1002).
    Protocol(String),
    /// The peer sent a text message that is not UTF-8 (WebSocket close 1007).
    InvalidData(String),
    /// The transport failed.
    Error(String),
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CloseReason::Closed => f.write_str("closed here"),
            CloseReason::Peer => f.write_str("closed by the peer"),
            CloseReason::SlowConsumer(full) => full.fmt(f),
            CloseReason::Idle(after) => {
                write!(f, "idle: nothing heard for {} ms", after.as_millis())
            }
            CloseReason::TooLarge(too_large) => too_large.fmt(f),
            CloseReason::Protocol(error) => write!(f, "protocol error: {error}"),
            CloseReason::InvalidData(error) => write!(f, "invalid data: {error}"),
            CloseReason::Error(error) => write!(f, "transport error: {error}"),
        }
    }
}

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
    /// The outgoing queue went over its bound: the frame was dropped and the port closed.
    SlowConsumer(QueueFull),
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
            SendError::SlowConsumer(full) => full.fmt(f),
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
            SendError::SlowConsumer(full) => Some(full),
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
