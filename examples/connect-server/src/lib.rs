//! A reference Agent Connect server: WebSocket on `/v1/ws`, `GET /v1/join` and the admin
//! routes on the same listener, built on the sans-IO [`Hub`].
//!
//! Each connection's token comes from its request: `Authorization: Bearer TOKEN`, or the
//! `token` query parameter when there is no such header (browsers cannot set headers on a
//! WebSocket). A WebSocket without a known token is answered with an `unauthorized` error frame
//! and closed.
//!
//! Connections are accepted by [`contracts::port::listen()`]: accept errors (out of file
//! descriptors) are waited out, at most [`Settings::listen`]'s cap are served at once (more
//! are answered 503), and a request head and WebSocket upgrade must come within its handshake
//! timeout.
//!
//! The hub, every socket's [`WebSocketPort`] and a ticker (pings, idle sockets) share one
//! lock that is never held across an await: the hub answers at once (a durable log has
//! committed before it answers), and sending on a port only queues.
//!
//! # Group commit
//!
//! With [`Settings::group_commit`] (the default) a socket puts each frame it receives in a
//! shared inbox and, if no other socket is draining the inbox, becomes its drainer: it takes
//! the state's lock and hands the hub every frame waiting there as one group
//! ([`Hub::receive_group`]), again until the inbox is empty. A socket that finds a drainer at
//! work goes back to reading: the drainer looks at the inbox again when it stops. (Only a
//! drainer is trusted with that look: the state's lock is also held a moment by the ticker, a
//! replay's pump or a socket's own checks, which never look at the inbox.) So while one
//! drainer commits (an fsync with the SQLite log's `Durability::Full`), the other sockets go
//! on reading and their frames gather, and the next group writes them all in one transaction. Every ack and live event of a group goes out after its commit. A
//! socket's frames are handled in the order it read them (the inbox is in order); a frame
//! still in the inbox when its socket closes is dropped with it, unacked. A socket whose
//! frames in the inbox reach [`Limits::max_inbound_bytes`] takes no more until a drainer
//! hands them to the hub: its port then stops reading (below), and its peer waits.
//!
//! # Memory per socket
//!
//! What a socket reads is bounded too: its port reads no further while the frames it read and
//! the server has not handled reach [`Limits::max_inbound_bytes`] (the port's queue, then the
//! inbox), so a client that writes faster than the server handles meets TCP's backpressure.
//! A socket subscribes to at most [`Config::max_subscriptions`] scopes.
//!
//! Each port's outgoing queue is bounded by bytes ([`Limits::max_queued_bytes`], one
//! [`Limits`] with the hub's frame limit). A frame that would go past it closes the socket as a
//! slow consumer: the port drops what it held and closes with WebSocket code 1008 and the
//! reason, and the client reconnects and resumes with `since`. A replay is sent a page at a
//! time, only while the queue has room for a page and one more frame, so a reader catching up
//! never fills it by itself. Every frame the hub asks for is queued or its failure handled: a
//! closed or slow socket is forgotten (the hub told), a frame over the limit (which the hub
//! never makes) closes the socket with an `internal` error.

pub mod admin;
pub mod http;
pub mod tokens;

use std::collections::{HashMap, VecDeque};
use std::io;
use std::mem;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use contracts::connect::ErrorCode;
use contracts::connect::session::{
    Action, Config, EventLog, Hub, MemoryLog, SocketId, error_frame,
};
use contracts::port::{
    FramePortExt, Incoming, Limits, ListenOptions, SendError, WebSocketOptions, WebSocketPort,
};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;

pub use tokens::TokenTable;

/// The path the WebSocket speaks on.
pub const PATH: &str = "/v1/ws";

/// How often a socket whose replay waits for room looks at its queue again.
const ROOM_POLL: Duration = Duration::from_millis(5);

/// Milliseconds since the Unix epoch: the clock the hub is given.
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// How a server behaves: the hub's [`Config`] and the ports' [`Limits`], one frame size for
/// both.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The hub's settings; its `max_frame_bytes` is the ports' `max_frame_size`.
    pub config: Config,
    /// The most bytes of frames a socket's queue holds before it is closed as a slow consumer.
    pub queue_bytes: usize,
    /// The most bytes of frames a socket has read and the hub not yet handled before its port
    /// stops reading.
    pub inbound_bytes: usize,
    /// The cap on connections and the handshake timeout.
    pub listen: ListenOptions,
    /// Frames that arrive while the hub is busy are handled as one group, their writes made
    /// durable by one commit (see the [crate docs](crate)); `false`: one commit per write.
    pub group_commit: bool,
}

impl Settings {
    /// The limits the ports are given.
    pub fn limits(&self) -> Limits {
        Limits {
            max_frame_size: self.config.max_frame_bytes,
            max_queued_bytes: self.queue_bytes,
            max_inbound_bytes: self.inbound_bytes,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        let limits = Limits::default();
        let config = Config {
            max_frame_bytes: limits.max_frame_size,
            // A replay is pumped a frame at a time as the queue drains.
            replay_budget: limits.max_frame_size,
            ..Config::default()
        };
        Settings {
            config,
            queue_bytes: limits.max_queued_bytes,
            inbound_bytes: limits.max_inbound_bytes,
            listen: ListenOptions::default(),
            group_commit: true,
        }
    }
}

/// The hub and each of its sockets' ports.
pub struct State<L: EventLog> {
    /// The session core.
    pub hub: Hub<L>,
    ports: HashMap<SocketId, WebSocketPort>,
}

impl<L: EventLog> State<L> {
    /// Carries out what the hub asked: frames to send, sockets to close, and what a failed
    /// send leads to (a slow or closed socket forgotten, the hub told, whose answers are
    /// carried out too). Answers how many frames were queued.
    pub fn apply(&mut self, actions: Vec<Action>) -> usize {
        let mut work: VecDeque<Action> = actions.into();
        let mut queued = 0;
        while let Some(action) = work.pop_front() {
            match action {
                Action::Send { to, frame } => {
                    let Some(port) = self.ports.get(&to) else {
                        continue;
                    };
                    match port.send_json(&frame) {
                        Ok(()) => queued += 1,
                        // The port closed itself, telling the peer why (1008 for a slow one).
                        Err(SendError::Closed | SendError::SlowConsumer(_)) => {
                            self.forget(to, &mut work)
                        }
                        // The hub never makes such a frame; if it did, the peer hears why.
                        Err(e) => {
                            let refusal = error_frame(
                                ErrorCode::Internal,
                                format!("a frame was not sent: {e}"),
                                None,
                            );
                            let _ = port.send_json(&refusal);
                            self.forget(to, &mut work);
                        }
                    }
                }
                Action::Close { socket } => {
                    if let Some(port) = self.ports.remove(&socket) {
                        port.close();
                    }
                }
            }
        }
        queued
    }

    /// A socket is gone for good: its port closed, the hub told (a harness leaving is
    /// presence for the others).
    fn forget(&mut self, socket: SocketId, work: &mut VecDeque<Action>) {
        if let Some(port) = self.ports.remove(&socket) {
            port.close();
            work.extend(self.hub.close(socket, now_millis()));
        }
    }
}

/// Frames read by the sockets and not yet handed to the hub, in the order read, and the bytes
/// of each socket's among them.
#[derive(Default)]
struct Inbox {
    frames: Vec<(SocketId, Incoming)>,
    bytes: HashMap<SocketId, usize>,
}

impl Inbox {
    fn push(&mut self, socket: SocketId, frame: Incoming) {
        let bytes = frame.as_text().map_or(0, str::len);
        *self.bytes.entry(socket).or_default() += bytes;
        self.frames.push((socket, frame));
    }

    /// Every frame waiting, as one group: the inbox is empty after.
    fn take(&mut self) -> Vec<(SocketId, Incoming)> {
        self.bytes.clear();
        mem::take(&mut self.frames)
    }

    fn bytes_of(&self, socket: SocketId) -> usize {
        self.bytes.get(&socket).copied().unwrap_or(0)
    }
}

/// A server: a token table and a hub over an event log.
pub struct Server<L: EventLog = MemoryLog> {
    tokens: TokenTable,
    state: Arc<Mutex<State<L>>>,
    /// Frames received and not yet handed to the hub (group commit).
    inbox: Mutex<Inbox>,
    /// Held by the one task that hands the inbox to the hub (see [`Server::drain_inbox`]).
    draining: Mutex<()>,
    /// Told each time a group leaves the inbox.
    drained: Notify,
    settings: Settings,
    options: WebSocketOptions,
}

impl Server<MemoryLog> {
    /// A server with the default settings and an in-memory log.
    pub fn new(tokens: TokenTable) -> Self {
        Server::with_log(tokens, Settings::default(), MemoryLog::default())
    }
}

impl<L: EventLog + Send + 'static> Server<L> {
    /// A server over any event log.
    pub fn with_log(tokens: TokenTable, settings: Settings, log: L) -> Self {
        let state = State {
            hub: Hub::new(settings.config.clone(), log),
            ports: HashMap::new(),
        };
        let options = WebSocketOptions::default()
            .path(PATH)
            .limits(settings.limits());
        Server {
            tokens,
            state: Arc::new(Mutex::new(state)),
            inbox: Mutex::new(Inbox::default()),
            draining: Mutex::new(()),
            drained: Notify::new(),
            settings,
            options,
        }
    }

    /// Accepts connections on `listener` until the task is dropped (it never returns: accept
    /// errors are waited out).
    pub async fn serve(self, listener: TcpListener) {
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
        let shaking = Arc::clone(&server);
        let listen = server.settings.listen.clone();
        contracts::port::listen(
            listener,
            &listen,
            move |stream| {
                let server = Arc::clone(&shaking);
                async move {
                    let (head, conn) = http::read_head(stream).await?;
                    if head.upgrade {
                        let (port, token) = server.upgrade(conn).await?;
                        Some(Accepted::WebSocket(port, token))
                    } else {
                        Some(Accepted::Http(head, conn))
                    }
                }
            },
            move |accepted| {
                let server = Arc::clone(&server);
                async move {
                    match accepted {
                        Accepted::WebSocket(port, token) => server.socket(port, token).await,
                        // An error here is the peer gone mid-answer: no one is left to tell.
                        Accepted::Http(head, mut conn) => {
                            let _ = server.http(&mut conn, &head).await;
                        }
                    }
                }
            },
        )
        .await;
    }

    /// A WebSocket from its upgrade to its end.
    async fn socket(&self, port: WebSocketPort, token: Option<String>) {
        let Some(identity) = token.as_deref().and_then(|t| self.tokens.get(t)).cloned() else {
            // Whether a token came, never which.
            tracing::info!(
                code = ErrorCode::Unauthorized.as_str(),
                token = if token.is_some() { "unknown" } else { "none" },
                "connection refused"
            );
            let refusal = error_frame(
                ErrorCode::Unauthorized,
                "no known token: send Authorization: Bearer TOKEN or ?token=TOKEN",
                None,
            );
            // Closed either way: a refusal the port cannot take changes nothing.
            let _ = port.send_json(&refusal);
            port.close();
            return;
        };
        // Listen before the hub knows the socket, so no frame is missed.
        let mut frames = port.receiver();
        let socket = {
            let mut state = lock(&self.state);
            let participant = identity.participant_id().to_owned();
            let socket = state.hub.open(identity, now_millis());
            tracing::debug!(socket = socket.get(), participant, "connection opened");
            state.ports.insert(socket, port.clone());
            socket
        };
        // A replay page is pumped while a whole page and one more frame fit in the queue.
        let frame_limit = self.settings.config.max_frame_bytes;
        let pump_at = self
            .settings
            .limits()
            .queue_bound()
            .saturating_sub(self.settings.config.replay_budget.max(1) + frame_limit);
        // With group commit the state is never waited for here while another task holds it
        // (it may be committing): what is not known then is looked at again in ROOM_POLL.
        let mut replaying = false;
        let mut unsure = false;
        let inbound = self.settings.inbound_bytes;
        loop {
            // Enabled before the inbox is looked at, so a group taken after that is not missed.
            let drained = self.drained.notified();
            tokio::pin!(drained);
            drained.as_mut().enable();
            // This socket's frames in the inbox reach the bound: it reads on once they left.
            let backlog =
                self.settings.group_commit && lock(&self.inbox).bytes_of(socket) >= inbound;
            if self.settings.group_commit {
                match try_lock(&self.state) {
                    Some(state) => {
                        replaying = state.hub.replaying(socket);
                        unsure = false;
                    }
                    None => unsure = true,
                }
            } else {
                replaying = lock(&self.state).hub.replaying(socket);
            }
            let room = replaying && port.queued_bytes() <= pump_at;
            tokio::select! {
                frame = frames.recv(), if !backlog => {
                    let Some(frame) = frame else { break };
                    if !self.settings.group_commit {
                        let mut state = lock(&self.state);
                        let actions = state.hub.receive_incoming(socket, &frame, now_millis());
                        state.apply(actions);
                        continue;
                    }
                    lock(&self.inbox).push(socket, frame);
                    // Not handled yet (the drainer will): whether it starts a replay is seen
                    // in ROOM_POLL.
                    unsure |= !self.drain_inbox();
                }
                () = std::future::ready(()), if room => {
                    let mut state = lock(&self.state);
                    let actions = state.hub.pump(socket);
                    state.apply(actions);
                }
                () = tokio::time::sleep(ROOM_POLL), if (replaying && !room) || unsure => {}
                () = &mut drained, if backlog => {}
            }
        }
        let mut state = lock(&self.state);
        if state.ports.remove(&socket).is_some() {
            let actions = state.hub.close(socket, now_millis());
            state.apply(actions);
        }
    }

    /// Hands the hub every frame in the inbox, a group at a time, unless another task is the
    /// drainer: that one looks at the inbox again once it stops, so a frame put there before
    /// the drainer was found at work is always handled. Waiting to be the drainer here would
    /// hold a runtime thread while the drainer commits, and the frames of the other sockets,
    /// which make the next group, could not be read meanwhile. The state's lock is waited
    /// for: only a drainer holds it for a commit, others for a moment.
    /// Answers whether this task emptied the inbox (else the drainer it found will).
    fn drain_inbox(&self) -> bool {
        loop {
            let Some(drainer) = try_lock(&self.draining) else {
                return false;
            };
            {
                let mut state = lock(&self.state);
                loop {
                    let group = lock(&self.inbox).take();
                    if group.is_empty() {
                        break;
                    }
                    self.drained.notify_waiters();
                    let actions = state.hub.receive_group(&group, now_millis());
                    state.apply(actions);
                }
            }
            drop(drainer);
            // A frame put in the inbox while this task drained, by a task that found it at
            // work, is this task's to hand over.
            if lock(&self.inbox).frames.is_empty() {
                return true;
            }
        }
    }

    /// A request that is not a WebSocket: `GET /v1/join` and the admin routes.
    async fn http(&self, stream: &mut http::Conn, head: &http::Head) -> io::Result<()> {
        let body = match http::read_body(stream, head).await? {
            Ok(body) => body,
            Err(message) => {
                return http::respond(stream, 400, &serde_json::json!({ "error": message })).await;
            }
        };
        let token = tokens::token_of(head.authorization.as_deref(), head.query.as_deref());
        let identity = token.as_deref().and_then(|t| self.tokens.get(t));
        let (status, answer) = {
            let mut state = lock(&self.state);
            admin::route(&mut state, identity, head, &body, now_millis())
        };
        http::respond(stream, status, &answer).await
    }

    /// The WebSocket handshake: only `/v1/ws`, and the request's token.
    async fn upgrade(&self, stream: http::Conn) -> Option<(WebSocketPort, Option<String>)> {
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

/// A connection whose handshake is done.
enum Accepted {
    /// A WebSocket on `/v1/ws` and the token of its request.
    WebSocket(WebSocketPort, Option<String>),
    /// A plain HTTP request.
    Http(http::Head, http::Conn),
}

/// The lock if it is free now; a panic elsewhere while it was held leaves it usable.
fn try_lock<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match m.try_lock() {
        Ok(guard) => Some(guard),
        Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// Locks the state; a panic elsewhere while it was held leaves it usable.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod drain_tests;
