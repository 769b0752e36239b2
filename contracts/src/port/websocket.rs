//! JSON frames over WebSocket (tokio-tungstenite), one text message each.
//!
//! tungstenite answers pings and close requests. On a server's port (accepted, or
//! [`WebSocketPort::from_stream`]) a pong it queued is written before the port reads on: a peer
//! that pings and does not read what this side writes is not read either, so at most one pong
//! waits for it (RFC 6455 lets a pong answer the latest ping only), where tungstenite alone
//! would buffer one per ping for as long as the peer does not read. A client's port reads on:
//! were both sides to wait for their pongs while each one's writes wait for the other to read,
//! neither would read again.
//! The size limit is set as tungstenite's
//! `max_message_size` and `max_frame_size`, so an oversized message is refused from its frame
//! header, before its payload is read. The stream cannot go on past such a message: the port
//! delivers [`Incoming::TooLarge`] and stops delivering, but keeps sending for
//! [`WebSocketOptions::linger`] (or until closed here), so the receiver can answer with a
//! failure; then it closes with code 1009 (message too big).
//!
//! Messages read and not yet taken are bounded by bytes ([`Limits::max_inbound_bytes`]): over
//! it the port reads no further until the consumer takes some (see the [port docs](super)).
//!
//! Frames wait in a queue bounded by bytes ([`Limits::max_queued_bytes`]); over it the port
//! closes at once with code 1008 and the reason (a slow consumer). The frames waiting when the
//! writer comes are written and flushed together (one write for a burst); a lone frame goes
//! out at once. With
//! [`WebSocketOptions::heartbeat`] the port pings the peer at that interval; with
//! [`WebSocketOptions::idle_timeout`] it closes with code 1001 when nothing (no frame, no
//! pong) came for that long. [`WebSocketPort::close_reason`] says why the port ended.
//!
//! A binary message is delivered as text (U+FFFD for what is not UTF-8), for the receiver to
//! refuse or accept like any other frame.
//!
//! A server given an [`Access`] ([`WebSocketOptions::access`]) checks the token and the
//! `Origin` of each upgrade request and answers 401 or 403 before the upgrade; a client given
//! [`WebSocketOptions::bearer`] sends its token as `Authorization: Bearer`.
//!
//! Each socket's read buffer starts at [`READ_BUFFER`] bytes (tungstenite's default is 128
//! KiB, zero-filled on the first read) and grows only for a message that needs it, so an
//! idle socket costs little.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::error::CapacityError;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_tungstenite::tungstenite::http::header::{AUTHORIZATION, HeaderValue};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tracing::Instrument;

use super::access::{Access, Secret};
use super::hub::{Hub, hub_port};
use super::queue::{Next, OutQueue};
use super::{
    CloseReason, FramePort, FrameTooLarge, Incoming, Limits, Listener, Outgoing, SendError,
    Subscription,
};

/// How long a close frame may take to go out before the connection is dropped anyway.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// The read buffer a socket starts with, in bytes: a message larger than it grows it.
pub const READ_BUFFER: usize = 4 * 1024;

/// The error of a WebSocket handshake.
pub type WebSocketError = tungstenite::Error;

/// How a [`WebSocketPort`] connects, accepts, limits frames and watches its peer.
#[derive(Clone, Debug)]
pub struct WebSocketOptions {
    limits: Limits,
    path: Option<String>,
    heartbeat: Option<Duration>,
    idle_timeout: Option<Duration>,
    linger: Duration,
    access: Option<Access>,
    bearer: Option<Secret>,
}

impl Default for WebSocketOptions {
    fn default() -> Self {
        WebSocketOptions {
            limits: Limits::default(),
            path: None,
            heartbeat: None,
            idle_timeout: None,
            linger: Duration::from_secs(2),
            access: None,
            bearer: None,
        }
    }
}

impl WebSocketOptions {
    /// The size limit and the queue bound, as one setting shared with what makes the frames.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The largest message accepted or sent, in bytes.
    pub fn max_frame_size(mut self, bytes: usize) -> Self {
        self.limits.max_frame_size = bytes;
        self
    }

    /// The most bytes queued for the peer before the port closes as a slow consumer's.
    pub fn max_queued_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_queued_bytes = bytes;
        self
    }

    /// The most bytes of messages read and not yet taken before the port stops reading.
    pub fn max_inbound_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_inbound_bytes = bytes;
        self
    }

    /// Pings the peer at this interval (tungstenite answers the peer's own pings always).
    pub fn heartbeat(mut self, every: Duration) -> Self {
        self.heartbeat = Some(every);
        self
    }

    /// Closes (1001) when nothing came from the peer, pongs included, for this long.
    pub fn idle_timeout(mut self, after: Duration) -> Self {
        self.idle_timeout = Some(after);
        self
    }

    /// How long the port keeps sending after the peer sent a frame over the limit.
    pub fn linger(mut self, after: Duration) -> Self {
        self.linger = after;
        self
    }

    /// The only request path a server accepts, such as `/v1/ws`; others are answered 404.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// A server admits only the requests `access` lets in (401 or 403 before the upgrade).
    pub fn access(mut self, access: Access) -> Self {
        self.access = Some(access);
        self
    }

    /// A client sends `token` as `Authorization: Bearer TOKEN` in its upgrade request.
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(Secret(token.into().into()));
        self
    }

    /// The limits in force.
    pub fn get_limits(&self) -> Limits {
        self.limits
    }

    /// The tungstenite config that enforces these options, for a handshake made elsewhere.
    pub fn config(&self) -> WebSocketConfig {
        WebSocketConfig::default()
            .read_buffer_size(READ_BUFFER)
            .max_message_size(Some(self.limits.max_frame_size))
            .max_frame_size(Some(self.limits.max_frame_size))
    }
}

/// A port that passes JSON frames as WebSocket text messages.
///
/// Clones are the same port. Must be made within a Tokio runtime: reading and writing run on
/// tasks of their own. The connection closes on [`close`](Self::close), on the last drop, when
/// the peer closes, on an error, a slow consumer or an idle timeout; then delivery ends and
/// sending fails.
#[derive(Clone, Debug)]
pub struct WebSocketPort {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    hub: Arc<Hub>,
    queue: Arc<OutQueue>,
    max_frame_size: usize,
}

impl WebSocketPort {
    /// Connects to a `ws://` url as a client.
    pub async fn connect(url: &str, options: &WebSocketOptions) -> Result<Self, WebSocketError> {
        let mut request = url.into_client_request()?;
        if let Some(token) = &options.bearer {
            let value = HeaderValue::from_str(&format!("Bearer {}", token.0))
                .map_err(|e| WebSocketError::HttpFormat(e.into()))?;
            request.headers_mut().insert(AUTHORIZATION, value);
        }
        let (stream, _response) =
            tokio_tungstenite::connect_async_with_config(request, Some(options.config()), true)
                .await?;
        // A client reads on while its pong waits: a server that holds its own reads for its
        // pong (as this port's does) would otherwise wait on a client that waits on it.
        Ok(Self::over::<MaybeTlsStream<TcpStream>>(
            stream, options, false,
        ))
    }

    /// Accepts a connection as a server, refusing other paths than the configured one (404) and
    /// what the configured [`Access`] does not admit (401, 403).
    ///
    /// A `TcpStream` should have `TCP_NODELAY` set, as [`listen`](super::listen()) does: with
    /// Nagle's algorithm the last frames of a burst wait for the peer's delayed ACK (40 ms).
    pub async fn accept<S>(stream: S, options: &WebSocketOptions) -> Result<Self, WebSocketError>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let path = options.path.clone();
        let access = options.access.clone();
        // tungstenite's callback type fixes the error type.
        #[allow(clippy::result_large_err)]
        let check = move |request: &Request, response: Response| {
            if let Some(path) = &path
                && request.uri().path() != path
            {
                let mut refusal = ErrorResponse::new(Some("no WebSocket here".to_owned()));
                *refusal.status_mut() = StatusCode::NOT_FOUND;
                return Err(refusal);
            }
            if let Some(access) = &access {
                access.check(request).map_err(|refusal| {
                    tracing::info!(
                        status = refusal.status().as_u16(),
                        path = request.uri().path(),
                        "upgrade refused"
                    );
                    refusal.response()
                })?;
            }
            Ok(response)
        };
        let stream =
            tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(options.config()))
                .await?;
        Ok(Self::from_stream(stream, options))
    }

    /// A port over a stream whose handshake is done.
    ///
    /// The stream must have been made with [`WebSocketOptions::config`] for the size limit to
    /// hold on reading; this port enforces it on sending only.
    /// As a server's port does, it reads on after a ping only once the pong is written.
    pub fn from_stream<S>(stream: WebSocketStream<S>, options: &WebSocketOptions) -> Self
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        Self::over(stream, options, true)
    }

    /// A port over a stream whose handshake is done; `pong_first`: after a ping, read on only
    /// once its pong is written (a server's side: a peer that pings and does not read gets
    /// one pong waiting, not one per ping).
    fn over<S>(stream: WebSocketStream<S>, options: &WebSocketOptions, pong_first: bool) -> Self
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let limits = options.limits;
        let (sink, source) = stream.split();
        let hub = Hub::bounded(limits.max_inbound_bytes);
        let queue = Arc::new(OutQueue::new(limits.queue_bound()));
        let heard = Arc::new(Heard::new());
        // The reader asks the writer to write the pong of a ping it read.
        let (pongs, pongs_asked) = mpsc::channel(1);
        // The tasks log in the span of whoever made the port (a connection's, with its peer).
        let span = tracing::Span::current();
        tokio::spawn(
            read_frames(
                source,
                hub.clone(),
                queue.clone(),
                heard.clone(),
                pong_first.then_some(pongs),
                limits.max_frame_size,
                options.linger,
            )
            .instrument(span.clone()),
        );
        tokio::spawn(
            write_frames(
                sink,
                queue.clone(),
                hub.clone(),
                heard,
                pongs_asked,
                options.heartbeat,
                options.idle_timeout,
            )
            .instrument(span),
        );
        WebSocketPort {
            inner: Arc::new(Inner {
                hub,
                queue,
                max_frame_size: limits.max_frame_size,
            }),
        }
    }

    /// Why the port ended (or is ending), once it did.
    pub fn close_reason(&self) -> Option<CloseReason> {
        self.inner.queue.reason()
    }

    /// Bytes of frames waiting to be written.
    pub fn queued_bytes(&self) -> usize {
        self.inner.queue.queued_bytes()
    }
}

hub_port! {
    port: WebSocketPort,
    inner: Inner,
    this: "port",
    close: "Stops delivery, writes the frames already sent, then closes the connection.",
}

impl Inner {
    fn close(&self) {
        // After every frame already sent, so those are written first.
        self.queue.close(CloseReason::Closed, true);
        self.hub.close();
    }

    fn push(&self, frame: Outgoing, key: Option<&str>) -> Result<(), SendError> {
        // The connection is whole: once it stops sending, nothing is queued.
        if !self.queue.is_open() {
            return Err(SendError::Closed);
        }
        let text = frame.into_text();
        if text.len() > self.max_frame_size {
            return Err(SendError::TooLarge(FrameTooLarge {
                size: text.len(),
                limit: self.max_frame_size,
            }));
        }
        self.queue.push(text, key)
    }
}

impl FramePort for WebSocketPort {
    fn send(&self, frame: Outgoing) -> Result<(), SendError> {
        self.inner.push(frame, None)
    }

    fn send_coalesced(&self, key: &str, frame: Outgoing) -> Result<(), SendError> {
        self.inner.push(frame, Some(key))
    }

    fn on_frame(&self, listener: Listener) -> Subscription {
        self.inner.hub.subscribe(listener)
    }
}

/// When the peer was last heard from, in milliseconds since the port was made.
#[derive(Debug)]
struct Heard {
    start: Instant,
    at: AtomicU64,
}

impl Heard {
    fn new() -> Self {
        Heard {
            start: Instant::now(),
            at: AtomicU64::new(0),
        }
    }

    fn now(&self) {
        self.at
            .store(self.start.elapsed().as_millis() as u64, Ordering::Relaxed);
    }

    fn silent_for(&self) -> Duration {
        let at = Duration::from_millis(self.at.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(at)
    }
}

/// A request to the writer: write what tungstenite queued (a pong), then say so.
type PongAsk = oneshot::Sender<()>;

/// Reads messages and delivers frames until the connection ends or the port closes. After a
/// ping it reads on only once the writer wrote the pong (given `pongs`: a server's port), and
/// after a frame only once the consumer holds at most the inbound bound.
async fn read_frames<S>(
    mut source: futures_util::stream::SplitStream<WebSocketStream<S>>,
    hub: Arc<Hub>,
    queue: Arc<OutQueue>,
    heard: Arc<Heard>,
    pongs: Option<mpsc::Sender<PongAsk>>,
    limit: usize,
    linger: Duration,
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    loop {
        let message = tokio::select! {
            message = source.next() => message,
            () = hub.closed() => break,
            _ = queue.aborted() => break,
        };
        heard.now();
        let frame = match message {
            // Read as a browser's WebSocket reads a message (UTF-8 decode): a leading byte
            // order mark dropped, U+FFFD for what is not UTF-8.
            Some(Ok(Message::Text(text))) => {
                Incoming::Text(crate::wire::text_of_bytes(text.as_bytes()).into_owned())
            }
            Some(Ok(Message::Binary(bytes))) => {
                Incoming::Text(crate::wire::text_of_bytes(&bytes).into_owned())
            }
            Some(Ok(Message::Ping(_))) => {
                if let Some(pongs) = &pongs
                    && !pong_written(pongs, &hub, &queue).await
                {
                    break;
                }
                continue;
            }
            // Reading on lets tungstenite send its answer to a close before the stream ends.
            Some(Ok(Message::Pong(_) | Message::Close(_) | Message::Frame(_))) => {
                continue;
            }
            Some(Err(tungstenite::Error::Capacity(CapacityError::MessageTooLong {
                size, ..
            }))) => {
                let too_large = FrameTooLarge { size, limit };
                queue.note(CloseReason::TooLarge(too_large));
                let _ = hub.deliver(Incoming::TooLarge(too_large)).await;
                hub.close();
                // Sending goes on a while, for the receiver's answer; then the close (1009).
                tokio::select! {
                    () = tokio::time::sleep(linger) => {}
                    _ = queue.aborted() => {}
                }
                queue.close(CloseReason::TooLarge(too_large), true);
                return;
            }
            None => {
                queue.close(CloseReason::Peer, false);
                break;
            }
            Some(Err(error)) => {
                queue.close(read_failure(&error), false);
                break;
            }
        };
        if !hub.deliver(frame).await {
            break;
        }
        // The wait for the consumer was ours, not the peer's silence.
        heard.now();
    }
    hub.close();
}

/// Asks the writer to write the pong tungstenite queued for a ping and waits until it did;
/// false when the port ends first.
async fn pong_written(pongs: &mpsc::Sender<PongAsk>, hub: &Hub, queue: &OutQueue) -> bool {
    let (written, done) = oneshot::channel();
    let asked = async { pongs.send(written).await.is_ok() && done.await.is_ok() };
    tokio::select! {
        asked = asked => asked,
        () = hub.closed() => false,
        _ = queue.aborted() => false,
    }
}

/// Why a read error ends the port. RFC 6455 §7.4.1 has a close code for a broken protocol
/// (1002) and for text that is not UTF-8 (1007); the others end the connection without one.
fn read_failure(error: &tungstenite::Error) -> CloseReason {
    use tungstenite::error::ProtocolError;
    match error {
        tungstenite::Error::Utf8(e) => CloseReason::InvalidData(e.clone()),
        // The connection is gone or closing: no close frame can go out.
        tungstenite::Error::Protocol(
            ProtocolError::ResetWithoutClosingHandshake
            | ProtocolError::ReceivedAfterClosing
            | ProtocolError::SendAfterClosing,
        ) => CloseReason::Error(error.to_string()),
        tungstenite::Error::Protocol(e) => CloseReason::Protocol(e.to_string()),
        _ => CloseReason::Error(error.to_string()),
    }
}

/// The close frame that tells the peer `reason`; `None` when nothing is to be sent.
fn close_frame(reason: &CloseReason) -> Option<Option<CloseFrame>> {
    let frame = |code, reason: String| {
        Some(Some(CloseFrame {
            code,
            reason: short(reason).into(),
        }))
    };
    match reason {
        CloseReason::Closed => Some(None),
        CloseReason::SlowConsumer(full) => frame(CloseCode::Policy, full.to_string()),
        CloseReason::Idle(_) => frame(CloseCode::Away, reason.to_string()),
        CloseReason::TooLarge(_) => frame(CloseCode::Size, "frame too large".to_owned()),
        CloseReason::Protocol(_) => frame(CloseCode::Protocol, reason.to_string()),
        CloseReason::InvalidData(_) => frame(CloseCode::Invalid, reason.to_string()),
        CloseReason::Peer | CloseReason::Error(_) => None,
        // A reason added later closes without saying why.
        #[allow(unreachable_patterns)]
        _ => Some(None),
    }
}

/// A close reason cut to the 123 bytes a close frame holds, at a character boundary.
fn short(mut text: String) -> String {
    const MAX: usize = 123;
    if text.len() > MAX {
        let mut end = MAX;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// Logs why a port ended, for the operator: the peer's address is the connection's span.
fn log_end(reason: &CloseReason) {
    match reason {
        CloseReason::SlowConsumer(full) => tracing::warn!(
            close_code = 1008,
            queued = full.queued,
            limit = full.limit,
            "slow consumer cut"
        ),
        CloseReason::Protocol(error) => {
            tracing::warn!(close_code = 1002, error = %error, "protocol error from the peer")
        }
        CloseReason::InvalidData(error) => {
            tracing::warn!(close_code = 1007, error = %error, "text that is not UTF-8 from the peer")
        }
        CloseReason::TooLarge(too_large) => tracing::info!(
            close_code = 1009,
            size = too_large.size,
            limit = too_large.limit,
            "frame over the limit"
        ),
        CloseReason::Idle(after) => tracing::info!(
            close_code = 1001,
            idle_ms = after.as_millis() as u64,
            "idle peer closed"
        ),
        CloseReason::Error(error) => tracing::info!(error = %error, "connection failed"),
        _ => tracing::debug!(reason = %reason, "connection closed"),
    }
}

/// The most bytes of frames put in one write.
const BATCH_BYTES: usize = 64 * 1024;

/// `first` and the frames that wait behind it already, up to [`BATCH_BYTES`]: written and
/// flushed together, one write for a burst. Nothing waits for more: a lone frame is flushed
/// at once.
fn batch(queue: &OutQueue, first: String) -> Vec<Message> {
    let mut bytes = first.len();
    let mut batch = vec![Message::text(first)];
    while bytes < BATCH_BYTES
        && let Some(text) = queue.try_frame()
    {
        bytes += text.len();
        batch.push(Message::text(text));
    }
    batch
}

/// Runs a write (a send, a flush) unless the queue aborts first; answers whether it was done.
/// A failed write closes the queue.
async fn unless_aborted(
    queue: &OutQueue,
    write: impl Future<Output = Result<(), tungstenite::Error>>,
) -> bool {
    tokio::select! {
        biased;
        _ = queue.aborted() => false,
        written = write => match written {
            Ok(()) => true,
            Err(error) => {
                queue.close(CloseReason::Error(error.to_string()), false);
                false
            }
        },
    }
}

/// Writes queued frames and the pongs the reader asks for, pings and checks the peer is alive,
/// until the queue closes.
async fn write_frames<S>(
    mut sink: futures_util::stream::SplitSink<WebSocketStream<S>, Message>,
    queue: Arc<OutQueue>,
    hub: Arc<Hub>,
    heard: Arc<Heard>,
    mut pongs: mpsc::Receiver<PongAsk>,
    heartbeat: Option<Duration>,
    idle_timeout: Option<Duration>,
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let period = match (heartbeat, idle_timeout) {
        (Some(beat), Some(idle)) => Some(beat.min(idle / 2)),
        (Some(beat), None) => Some(beat),
        (None, Some(idle)) => Some(idle / 2),
        (None, None) => None,
    }
    .map(|period| period.max(Duration::from_millis(1)));
    let mut ticks = period.map(|period| {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks
    });
    loop {
        let tick = async {
            match &mut ticks {
                Some(ticks) => {
                    ticks.tick().await;
                }
                None => std::future::pending().await,
            }
        };
        let next = tokio::select! {
            biased;
            reason = queue.aborted() => Next::Close(reason),
            Some(asked) = pongs.recv() => {
                // A flush writes what tungstenite queued: the pong.
                if unless_aborted(&queue, sink.flush()).await {
                    let _ = asked.send(());
                }
                continue;
            }
            next = queue.next() => next,
            () = tick => {
                if let Some(idle) = idle_timeout
                    && heard.silent_for() > idle
                {
                    queue.close(CloseReason::Idle(idle), false);
                    continue;
                }
                if heartbeat.is_some() {
                    let _ = unless_aborted(&queue, sink.send(Message::Ping(Default::default()))).await;
                }
                continue;
            }
        };
        match next {
            Next::Frame(text) => {
                // The frames already waiting go with it: one write and one flush for a burst.
                let mut batch = futures_util::stream::iter(batch(&queue, text).into_iter().map(Ok));
                let _ = unless_aborted(&queue, sink.send_all(&mut batch)).await;
            }
            Next::Close(reason) => {
                log_end(&reason);
                if let Some(frame) = close_frame(&reason) {
                    let _ =
                        tokio::time::timeout(CLOSE_TIMEOUT, sink.send(Message::Close(frame))).await;
                }
                break;
            }
        }
    }
    hub.close();
}
