//! A reference Agent Connect server: WebSocket on `/v1/ws`, built on the sans-IO
//! [`Hub`].
//!
//! Each connection's token comes from its upgrade request: `Authorization: Bearer TOKEN`, or
//! the `token` query parameter when there is no such header (browsers cannot set headers on a
//! WebSocket). A connection without a known token is answered with an `unauthorized` error
//! frame and closed. The hub, every connection's port and a ticker (pings, idle sockets) share
//! one lock that is never held across an await: the hub answers at once, and sending on a
//! port only queues.

pub mod tokens;

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use contracts::connect::ErrorCode;
use contracts::connect::session::{
    Action, Config, EventLog, Hub, MemoryLog, SocketId, error_frame,
};
use contracts::port::{FramePortExt, WebSocketOptions, WebSocketPort};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;

pub use tokens::TokenTable;

/// The path the server speaks on.
pub const PATH: &str = "/v1/ws";

/// Milliseconds since the Unix epoch: the clock the hub is given.
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The hub and the port of each of its sockets.
struct State<L: EventLog> {
    hub: Hub<L>,
    ports: HashMap<SocketId, WebSocketPort>,
}

impl<L: EventLog> State<L> {
    /// Carries out what the hub asked: frames to send, sockets to close.
    fn apply(&mut self, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Send { to, frame } => {
                    if let Some(port) = self.ports.get(&to) {
                        // A closed port: its connection task forgets the socket.
                        let _ = port.send_json(&frame);
                    }
                }
                Action::Close { socket } => {
                    if let Some(port) = self.ports.remove(&socket) {
                        port.close();
                    }
                }
            }
        }
    }
}

/// A server: a token table and a hub over an event log.
pub struct Server<L: EventLog = MemoryLog> {
    tokens: TokenTable,
    state: Arc<Mutex<State<L>>>,
    options: WebSocketOptions,
}

impl Server<MemoryLog> {
    /// A server with the spec's settings and an in-memory log.
    pub fn new(tokens: TokenTable) -> Self {
        Server::with_log(tokens, Config::default(), MemoryLog::default())
    }
}

impl<L: EventLog + Send + 'static> Server<L> {
    /// A server over any event log.
    pub fn with_log(tokens: TokenTable, config: Config, log: L) -> Self {
        let state = State {
            hub: Hub::new(config, log),
            ports: HashMap::new(),
        };
        Server {
            tokens,
            state: Arc::new(Mutex::new(state)),
            options: WebSocketOptions::default().path(PATH),
        }
    }

    /// Accepts connections on `listener` until the task is dropped.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        let server = Arc::new(self);
        let ticker = Arc::downgrade(&server.state);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(1));
            loop {
                every.tick().await;
                let Some(state) = ticker.upgrade() else { break };
                let mut state = lock(&state);
                let actions = state.hub.tick(now_millis());
                state.apply(actions);
            }
        });
        loop {
            let (stream, _) = listener.accept().await?;
            let server = Arc::clone(&server);
            tokio::spawn(async move { server.connection(stream).await });
        }
    }

    /// One connection, from its upgrade to its end.
    async fn connection(&self, stream: TcpStream) {
        let Some((port, token)) = self.upgrade(stream).await else {
            return;
        };
        let Some(identity) = token.as_deref().and_then(|t| self.tokens.get(t)).cloned() else {
            let refusal = error_frame(
                ErrorCode::Unauthorized,
                "no known token: send Authorization: Bearer TOKEN or ?token=TOKEN",
                None,
            );
            let _ = port.send_json(&refusal);
            port.close();
            return;
        };
        // Listen before the hub knows the socket, so no frame is missed.
        let mut frames = port.receiver();
        let socket = {
            let mut state = lock(&self.state);
            let socket = state.hub.open(identity, now_millis());
            state.ports.insert(socket, port.clone());
            socket
        };
        while let Some(frame) = frames.recv().await {
            let mut state = lock(&self.state);
            let actions = state.hub.receive_incoming(socket, &frame, now_millis());
            state.apply(actions);
        }
        let mut state = lock(&self.state);
        state.ports.remove(&socket);
        let actions = state.hub.close(socket, now_millis());
        state.apply(actions);
    }

    /// The WebSocket handshake: only `/v1/ws`, and the request's token.
    async fn upgrade(&self, stream: TcpStream) -> Option<(WebSocketPort, Option<String>)> {
        let mut token = None;
        #[allow(clippy::result_large_err)] // tungstenite's callback type fixes the error type.
        let check = |request: &Request, response: Response| {
            if request.uri().path() != PATH {
                let mut refusal =
                    ErrorResponse::new(Some(format!("no WebSocket here: use {PATH}")));
                *refusal.status_mut() = StatusCode::NOT_FOUND;
                return Err(refusal);
            }
            let authorization = request
                .headers()
                .get("authorization")
                .and_then(|v| v.to_str().ok());
            token = tokens::token_of(authorization, request.uri().query());
            Ok(response)
        };
        let config = Some(self.options.config());
        let stream = tokio_tungstenite::accept_hdr_async_with_config(stream, check, config)
            .await
            .ok()?;
        Some((WebSocketPort::from_stream(stream, &self.options), token))
    }
}

/// Locks the state; a panic elsewhere while it was held leaves it usable.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
