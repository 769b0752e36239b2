//! JSON frames over WebSocket (tokio-tungstenite), one text message each.
//!
//! tungstenite answers pings and close requests. The size limit is set as tungstenite's
//! `max_message_size` and `max_frame_size`, so an oversized message is refused from its frame
//! header, before its payload is read. The stream cannot go on past such a message: the port
//! delivers [`Incoming::TooLarge`], closes with code 1009 (message too big) and ends.
//!
//! A binary message is delivered as text (U+FFFD for what is not UTF-8), for the receiver to
//! refuse or accept like any other frame.

use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::error::CapacityError;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::hub::{Hub, hub_port};
use super::{
    DEFAULT_MAX_FRAME_SIZE, FramePort, FrameTooLarge, Incoming, Listener, Outgoing, SendError,
    Subscription,
};

/// The error of a WebSocket handshake.
pub type WebSocketError = tungstenite::Error;

/// How a [`WebSocketPort`] connects, accepts and limits frames.
#[derive(Clone, Debug)]
pub struct WebSocketOptions {
    max_frame_size: usize,
    path: Option<String>,
}

impl Default for WebSocketOptions {
    fn default() -> Self {
        WebSocketOptions {
            max_frame_size: DEFAULT_MAX_FRAME_SIZE,
            path: None,
        }
    }
}

impl WebSocketOptions {
    /// The largest message accepted or sent, in bytes.
    pub fn max_frame_size(mut self, bytes: usize) -> Self {
        self.max_frame_size = bytes;
        self
    }

    /// The only request path a server accepts, such as `/v1/ws`; others are answered 404.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// The tungstenite config that enforces these options, for a handshake made elsewhere.
    pub fn config(&self) -> WebSocketConfig {
        WebSocketConfig::default()
            .max_message_size(Some(self.max_frame_size))
            .max_frame_size(Some(self.max_frame_size))
    }
}

/// A port that passes JSON frames as WebSocket text messages.
///
/// Clones are the same port. Must be made within a Tokio runtime: reading and writing run on
/// tasks of their own. The connection closes on [`close`](Self::close), on the last drop, when
/// the peer closes, or on an error; then delivery ends and sending fails.
#[derive(Clone, Debug)]
pub struct WebSocketPort {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    hub: Arc<Hub>,
    writer: mpsc::UnboundedSender<Command>,
    max_frame_size: usize,
}

#[derive(Debug)]
enum Command {
    Text(String),
    Close(Option<CloseFrame>),
}

impl WebSocketPort {
    /// Connects to a `ws://` url as a client.
    pub async fn connect(url: &str, options: &WebSocketOptions) -> Result<Self, WebSocketError> {
        let (stream, _response) =
            tokio_tungstenite::connect_async_with_config(url, Some(options.config()), true).await?;
        Ok(Self::from_stream::<MaybeTlsStream<TcpStream>>(
            stream, options,
        ))
    }

    /// Accepts a connection as a server, refusing other paths than the configured one.
    pub async fn accept<S>(stream: S, options: &WebSocketOptions) -> Result<Self, WebSocketError>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let path = options.path.clone();
        // tungstenite's callback type fixes the error type.
        #[allow(clippy::result_large_err)]
        let check = move |request: &Request, response: Response| match &path {
            Some(path) if request.uri().path() != path => {
                let mut refusal = ErrorResponse::new(Some("no WebSocket here".to_owned()));
                *refusal.status_mut() = StatusCode::NOT_FOUND;
                Err(refusal)
            }
            _ => Ok(response),
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
    pub fn from_stream<S>(stream: WebSocketStream<S>, options: &WebSocketOptions) -> Self
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let limit = options.max_frame_size;
        let (sink, source) = stream.split();
        let hub = Hub::new();
        let (commands, queue) = mpsc::unbounded_channel();
        tokio::spawn(read_frames(
            source,
            hub.clone(),
            commands.downgrade(),
            limit,
        ));
        tokio::spawn(write_frames(sink, queue, hub.clone()));
        WebSocketPort {
            inner: Arc::new(Inner {
                hub,
                writer: commands,
                max_frame_size: limit,
            }),
        }
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
        // Queued behind every frame already sent, so those are written first.
        let _ = self.writer.send(Command::Close(None));
        self.hub.close();
    }
}

impl FramePort for WebSocketPort {
    fn send(&self, frame: Outgoing) -> Result<(), SendError> {
        // The connection is whole: once it stops delivering, it sends nothing either.
        if self.inner.hub.is_closed() {
            return Err(SendError::Closed);
        }
        let text = frame.into_text();
        if text.len() > self.inner.max_frame_size {
            return Err(SendError::TooLarge(FrameTooLarge {
                size: text.len(),
                limit: self.inner.max_frame_size,
            }));
        }
        self.inner
            .writer
            .send(Command::Text(text))
            .map_err(|_| SendError::Closed)
    }

    fn on_frame(&self, listener: Listener) -> Subscription {
        self.inner.hub.subscribe(listener)
    }
}

/// Reads messages and delivers frames until the connection ends or the port closes.
async fn read_frames<S>(
    mut source: futures_util::stream::SplitStream<WebSocketStream<S>>,
    hub: Arc<Hub>,
    writer: mpsc::WeakUnboundedSender<Command>,
    limit: usize,
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    loop {
        let message = tokio::select! {
            message = source.next() => message,
            () = hub.closed() => break,
        };
        let frame = match message {
            Some(Ok(Message::Text(text))) => Incoming::Text(text.as_str().to_owned()),
            Some(Ok(Message::Binary(bytes))) => {
                Incoming::Text(String::from_utf8_lossy(&bytes).into_owned())
            }
            // Reading on lets tungstenite send its answer to a close before the stream ends.
            Some(Ok(
                Message::Ping(_) | Message::Pong(_) | Message::Close(_) | Message::Frame(_),
            )) => {
                continue;
            }
            Some(Err(tungstenite::Error::Capacity(CapacityError::MessageTooLong {
                size, ..
            }))) => {
                let _ = hub
                    .deliver(Incoming::TooLarge(FrameTooLarge { size, limit }))
                    .await;
                if let Some(writer) = writer.upgrade() {
                    let _ = writer.send(Command::Close(Some(CloseFrame {
                        code: CloseCode::Size,
                        reason: "frame too large".into(),
                    })));
                }
                break;
            }
            None | Some(Err(_)) => break,
        };
        if !hub.deliver(frame).await {
            break;
        }
    }
    hub.close();
}

/// Writes queued frames until told to close, the port is gone, or the connection ends.
async fn write_frames<S>(
    mut sink: futures_util::stream::SplitSink<WebSocketStream<S>, Message>,
    mut queue: mpsc::UnboundedReceiver<Command>,
    hub: Arc<Hub>,
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    loop {
        let command = tokio::select! {
            // Frames queued before a close are written first.
            biased;
            command = queue.recv() => command,
            () = hub.closed() => break,
        };
        match command {
            Some(Command::Text(text)) => {
                if sink.send(Message::text(text)).await.is_err() {
                    break;
                }
            }
            Some(Command::Close(frame)) => {
                let _ = sink.send(Message::Close(frame)).await;
                break;
            }
            None => {
                let _ = sink.send(Message::Close(None)).await;
                break;
            }
        }
    }
    hub.close();
}
