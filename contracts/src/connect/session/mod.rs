//! The sans-IO core of an Agent Connect server: frames in, frames out.
//!
//! A [`Hub`] holds every open socket of a server and the [`EventLog`]. It owns no socket and
//! reads no clock: a server calls [`Hub::open`] when a connection is made (with the identity
//! its token names), [`Hub::receive`] with every frame that arrives, [`Hub::tick`] now and
//! then, [`Hub::notify`] when something "now or never" happens, and [`Hub::close`] when a
//! connection ends. Each answers the [`Action`]s to carry out: frames to send, sockets to
//! close. Time is passed in as milliseconds since the Unix epoch.
//!
//! # The rules it enforces
//!
//! - Hello negotiates the highest version in both ranges; none fits: `protocol_unsupported`
//!   and the socket is closed. A name in `accepts` the server does not know is ignored. A
//!   harness's context budget is 40 lines and 16,000 characters unless it says otherwise. The
//!   answer is a hello naming the token's participant and its one harness; a `harnesses` list
//!   or a `since` in a hello is ignored.
//! - Subscribe is by workspace or by space (exactly one), optionally from `since`. A replay
//!   goes out in `events` pages of at most 500 events and at most [`Config::max_frame_bytes`],
//!   in seq order, to a socket that accepts `events`, and as single `event` frames otherwise;
//!   it is paced ([`Hub::pump`], [`Config::replay_budget`]), and live events of its scope wait
//!   until it caught up. `since` older than the log holds is `too_far_behind`; ahead of its
//!   head, `not_found` (see [Cursors](self#cursors)). Live events are always single `event`
//!   frames. A socket holds at most [`Config::max_subscriptions`] scopes (a subscribe to a
//!   scope it holds replaces that one); a subscribe to one more is refused with
//!   `rate_limited`, and what it holds stays. Each subscribe costs O(log n) (`subs.rs`).
//! - An event is written once per idempotency key: a resend is acked with `duplicate: true`
//!   and the seq it was written at, for as long as the log remembers the key (a
//!   [`MemoryLog`] remembers the newest ten keys per event it keeps, a `SqliteLog` every key
//!   unless told otherwise). An event frame without its own key is `invalid_frame`; an event
//!   its type refuses, or whose frame would be over [`Config::max_frame_bytes`], is
//!   `invalid_event`; a log that fails is `internal`, and nothing is acked. An error names
//!   the key at fault when there was one.
//! - Harness-only events (`run.start`, `run.finish`, `context.copy`, `context.refuse`,
//!   `agent.copy`) from anyone else are `forbidden`; an answer naming a change the harness was
//!   not sent is `not_found`. A post to a space with a run under way is answered with a
//!   `receipt` after its ack (`write.rs` has the minimal runs).
//! - Gated frames go only to sockets whose hello accepted them: presence to a person's socket
//!   and never a guest's, join to an owner's or admin's, restart, context.edit, model.change,
//!   heartbeat.change and the context_window frames to the harness's own. They are now or
//!   never: not in the log, so a reconnect never hears them. Presence carries `trouble`
//!   ([`Hub::set_trouble`]) and `restarting` while a person's restart request
//!   ([`Hub::request_restart`]) stands, until the harness reconnects.
//! - A ping goes to every socket that said hello every 20 seconds; a ping is answered with a
//!   pong echoing its timestamp, after the replay under way if there is one: a ping sent after
//!   a subscribe is answered once its replay caught up, so its pong marks the replay's end.
//!   Pings during a replay are answered by one pong, the last one's (a pong answers every
//!   ping before it), so a socket that pings without reading holds one pong, not one a ping.
//!
//! # Cursors
//!
//! A `since` is checked when it is subscribed with: older than the log holds is
//! `too_far_behind` (the message names the oldest `since` served); ahead of the log's head is
//! `not_found`: the seq it names is not in this log (a log that lost its tail, a cursor from
//! another server), so the client drops its cursor and resumes from `since: 0`, keeping the
//! events it has by their ids. Not `too_far_behind`, whose "resume later" would skip what is
//! new; not `invalid_frame`, since the frame is well formed.

mod harness;
mod log;
mod replay;
#[cfg(feature = "sqlite")]
mod sqlite;
mod subs;
mod write;

pub use harness::JOIN_WAITING;

pub use log::{EventLog, LogEntry, LogError, MemoryLog, ReadError, Seq, TooFarBehind, Written};
#[cfg(feature = "sqlite")]
pub use sqlite::{Durability, SqliteLog};

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{
    Ack, ClientEvent, ClientFrame, ContextEdit, ContextWindowChange, ContextWindowCompact,
    ErrorCode, ErrorFrame, HeartbeatChange, Hello, HelloContext, HelloReply, JoinRequest,
    ModelChange, Participant, ParticipantKind, Ping, Presence, PresenceState, Restart, ServerEvent,
    ServerFrame, ServerFrameEvent, ServerFrameEvents, ServerFrameJoin, Subscribe,
    parse_client_frame,
};
use crate::port::{DEFAULT_MAX_FRAME_SIZE, Incoming};
use crate::wire::{ParseError, Seg};

/// Milliseconds since the Unix epoch, as the caller's clock reads them.
pub type Millis = i64;

/// How a hub behaves; [`Config::default`] is the spec's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The lowest protocol version this server speaks.
    pub protocol_min: i64,
    /// The highest protocol version this server speaks.
    pub protocol_max: i64,
    /// How often a socket is pinged, in milliseconds (20 seconds).
    pub ping_every: Millis,
    /// A socket silent this long is closed; `None` keeps it open.
    pub idle_timeout: Option<Millis>,
    /// The most events in one `events` page (500).
    pub page_size: usize,
    /// The largest frame the port may send, in bytes: a page never exceeds it, and an event
    /// whose frame would is refused before it is written ([`DEFAULT_MAX_FRAME_SIZE`]).
    pub max_frame_bytes: usize,
    /// How many bytes of replay one [`Hub::subscribe`](Hub::receive) or [`Hub::pump`] answers
    /// at most (at least one frame). A server that paces a replay by its socket's room pumps
    /// again once the socket drained.
    pub replay_budget: usize,
    /// The most scopes (the workspace, spaces) one socket subscribes to at once
    /// ([`DEFAULT_MAX_SUBSCRIPTIONS`]); a subscribe to one more is refused with
    /// `rate_limited`.
    pub max_subscriptions: usize,
}

/// How many scopes a socket subscribes to at most unless configured: 1,000 (the workspace
/// covers every space, for a client that would want more).
pub const DEFAULT_MAX_SUBSCRIPTIONS: usize = 1000;

impl Default for Config {
    fn default() -> Self {
        Config {
            protocol_min: 1,
            protocol_max: 1,
            ping_every: 20_000,
            idle_timeout: Some(60_000),
            page_size: 500,
            max_frame_bytes: DEFAULT_MAX_FRAME_SIZE,
            replay_budget: 4 * DEFAULT_MAX_FRAME_SIZE,
            max_subscriptions: DEFAULT_MAX_SUBSCRIPTIONS,
        }
    }
}

/// A person's role in a workspace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Owns the workspace: hears join requests.
    Owner,
    /// Runs the workspace: hears join requests.
    Admin,
    /// A member.
    Member,
    /// A person with a guest's link: never hears presence.
    Guest,
}

impl Role {
    /// The role named `owner`, `admin`, `member` or `guest`.
    pub fn from_name(name: &str) -> Option<Role> {
        match name {
            "owner" => Some(Role::Owner),
            "admin" => Some(Role::Admin),
            "member" => Some(Role::Member),
            "guest" => Some(Role::Guest),
            _ => None,
        }
    }
}

/// Whom a token names: one harness, or one person with a role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Principal {
    /// A harness: the token's one harness.
    Harness {
        /// The harness's id.
        harness_id: String,
    },
    /// A person.
    Person {
        /// The person's participant id.
        person_id: String,
        /// Their role in the workspace.
        role: Role,
    },
}

/// What a server learned from a connection's token: whose it is, in which workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The workspace the token belongs to.
    pub workspace_id: String,
    /// The name others see.
    pub display_name: String,
    /// The harness or person.
    pub principal: Principal,
}

impl Identity {
    /// A harness's identity.
    pub fn harness(workspace_id: &str, harness_id: &str, display_name: &str) -> Identity {
        Identity {
            workspace_id: workspace_id.to_owned(),
            display_name: display_name.to_owned(),
            principal: Principal::Harness {
                harness_id: harness_id.to_owned(),
            },
        }
    }

    /// A person's identity.
    pub fn person(workspace_id: &str, person_id: &str, display_name: &str, role: Role) -> Identity {
        Identity {
            workspace_id: workspace_id.to_owned(),
            display_name: display_name.to_owned(),
            principal: Principal::Person {
                person_id: person_id.to_owned(),
                role,
            },
        }
    }

    /// The participant id: the harness's or the person's.
    pub fn participant_id(&self) -> &str {
        match &self.principal {
            Principal::Harness { harness_id } => harness_id,
            Principal::Person { person_id, .. } => person_id,
        }
    }

    /// The token's one harness, if it is a harness's.
    pub fn harness_id(&self) -> Option<&str> {
        match &self.principal {
            Principal::Harness { harness_id } => Some(harness_id),
            Principal::Person { .. } => None,
        }
    }

    /// The person's role, if it is a person's.
    pub fn role(&self) -> Option<Role> {
        match &self.principal {
            Principal::Harness { .. } => None,
            Principal::Person { role, .. } => Some(*role),
        }
    }

    /// The participant as frames name it.
    pub fn participant(&self) -> Participant {
        let kind = match &self.principal {
            Principal::Harness { .. } => ParticipantKind::Harness,
            Principal::Person {
                role: Role::Guest, ..
            } => ParticipantKind::Guest,
            Principal::Person { .. } => ParticipantKind::Person,
        };
        Participant::new(self.participant_id(), kind, self.display_name.clone())
    }
}

/// How much of a room a harness is handed with a question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextBudget {
    /// Lines (40 unless the hello says otherwise).
    pub lines: i64,
    /// Characters (16,000 unless the hello says otherwise).
    pub chars: i64,
}

impl Default for ContextBudget {
    /// The schema's defaults: an empty `context` reads as 40 lines and 16,000 characters.
    fn default() -> Self {
        match crate::wire::from_str::<HelloContext>("{}") {
            Ok(c) => ContextBudget::from(c),
            // Only if the schema stopped defaulting a field: the spec's numbers.
            Err(_) => ContextBudget {
                lines: 40,
                chars: 16_000,
            },
        }
    }
}

impl From<HelloContext> for ContextBudget {
    fn from(c: HelloContext) -> Self {
        ContextBudget {
            lines: c.lines,
            chars: c.chars,
        }
    }
}

/// Every `accepts` name a server frame can be gated by, from the schema's `#[accepts]`.
pub const KNOWN_ACCEPTS: &[&str] = ServerFrame::ACCEPTS;

/// The `accepts` name that gates a server frame, if it is beyond the base set.
pub fn gate(frame: &ServerFrame) -> Option<&'static str> {
    frame.accepts()
}

/// The `accepts` name that gates the server frame tagged `tag` (the schema's `#[accepts]`).
pub fn gate_of(tag: &str) -> Option<&'static str> {
    ServerFrame::accepts_of(tag)
}

/// A socket of a hub.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SocketId(u64);

impl SocketId {
    /// The number behind the id, for logs.
    pub fn get(self) -> u64 {
        self.0
    }
}

/// What a server must do for a hub.
// A frame goes to a port at once; boxing it would cost an allocation per frame for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Send `frame` to the socket `to`.
    Send {
        /// The socket.
        to: SocketId,
        /// The frame.
        frame: ServerFrame,
    },
    /// Close the socket (after sending what was queued before). The hub has forgotten it.
    Close {
        /// The socket.
        socket: SocketId,
    },
}

/// Something that happened that sockets hear now or never: it is not written to the log.
#[derive(Clone, Debug, PartialEq)]
pub enum Notice {
    /// A harness's state changed: to people's sockets that accept `presence`, never guests'.
    Presence(Presence),
    /// A join request is waiting or changed: to owners' and admins' sockets that accept `join`.
    Join(JoinRequest),
    /// A person asks a harness to restart: to that harness's sockets that accept `restart`.
    Restart {
        /// The harness asked.
        harness_id: String,
        /// Who asked, and when.
        restart: Restart,
    },
    /// To the harness's sockets that accept `context`.
    ContextEdit(ContextEdit),
    /// To the harness's sockets that accept `models`.
    ModelChange(ModelChange),
    /// To the harness's sockets that accept `heartbeats`.
    HeartbeatChange(HeartbeatChange),
    /// To the harness's sockets that accept `context_windows`.
    ContextWindowCompact(ContextWindowCompact),
    /// To the harness's sockets that accept `context_windows`.
    ContextWindowChange(ContextWindowChange),
}

/// What one socket streams.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Scope {
    Workspace,
    Space(String),
}

impl Scope {
    fn covers(&self, entry: &LogEntry) -> bool {
        match self {
            Scope::Workspace => true,
            Scope::Space(space) => entry.space_id.as_deref() == Some(space),
        }
    }
}

/// Whom a notice is for, before its `accepts` gate.
enum Audience {
    /// People's sockets, never guests'.
    People,
    /// Owners' and admins' sockets.
    OwnersAndAdmins,
    /// The sockets of one harness.
    Harness(String),
}

impl Audience {
    fn hears(&self, s: &Socket) -> bool {
        match self {
            Audience::People => s.is_person(),
            Audience::OwnersAndAdmins => s.is_owner_or_admin(),
            Audience::Harness(h) => s.is_harness(h),
        }
    }
}

#[derive(Debug)]
struct Socket {
    identity: Identity,
    /// The protocol chosen by hello; `None` until then.
    protocol: Option<i64>,
    accepts: BTreeSet<&'static str>,
    context: ContextBudget,
    /// What it subscribed to: each live, or replaying from a cursor.
    subs: subs::Subs,
    /// The pong held while a replay is under way: sent once it caught up, so a ping round trip
    /// marks the end of a replay. One at most: a later ping's pong replaces it.
    held: Option<ServerFrame>,
    last_ping: Millis,
    last_heard: Millis,
}

impl Socket {
    /// Whether a live event goes to this socket: a live subscription covers it.
    fn hears_live(&self, entry: &LogEntry) -> bool {
        self.subs.hears_live(entry.space_id.as_deref())
    }

    fn accepts(&self, name: &str) -> bool {
        self.accepts.contains(name)
    }

    fn is_person(&self) -> bool {
        matches!(
            self.identity.role(),
            Some(Role::Owner | Role::Admin | Role::Member)
        )
    }

    fn is_owner_or_admin(&self) -> bool {
        matches!(self.identity.role(), Some(Role::Owner | Role::Admin))
    }

    fn is_harness(&self, harness_id: &str) -> bool {
        self.identity.harness_id() == Some(harness_id)
    }
}

/// Every socket of a server and its event log; see the [module docs](self).
#[derive(Debug)]
pub struct Hub<L: EventLog = MemoryLog> {
    config: Config,
    log: L,
    sockets: BTreeMap<SocketId, Socket>,
    next_id: u64,
    /// Each harness's presence, by (workspace, harness id).
    harnesses: BTreeMap<(String, String), harness::HarnessState>,
    /// The run under way in each (workspace, space).
    runs: BTreeMap<(String, String), write::Run>,
    /// Changes and edits sent to a harness and not answered, by (workspace, id).
    pending: harness::PendingChanges,
    /// Join requests waiting, by (workspace, request id).
    joins: BTreeMap<(String, String), JoinRequest>,
    /// The log's last write failed (a full disk, say): an episode, logged once, during which
    /// writes are made one at a time (no group) and refused one by one.
    log_failing: bool,
    /// While a group is written: what it changed in memory, as it was before (see
    /// [`Hub::receive_group`]).
    undo: Option<Undo>,
}

/// The runs and pending changes as they were before a group first changed them: put back
/// when the group's commit fails, so memory says what the log holds. Each is copied once a
/// group, on its first change (most groups change neither).
#[derive(Debug, Default)]
struct Undo {
    runs: Option<BTreeMap<(String, String), write::Run>>,
    pending: Option<harness::PendingChanges>,
}

impl Hub<MemoryLog> {
    /// A hub with the spec's settings and an in-memory log.
    pub fn in_memory() -> Self {
        Hub::new(Config::default(), MemoryLog::default())
    }
}

impl<L: EventLog> Hub<L> {
    /// A hub over `log`.
    pub fn new(config: Config, log: L) -> Self {
        Hub {
            config,
            log,
            sockets: BTreeMap::new(),
            next_id: 1,
            harnesses: BTreeMap::new(),
            runs: BTreeMap::new(),
            pending: harness::PendingChanges::default(),
            joins: BTreeMap::new(),
            log_failing: false,
            undo: None,
        }
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The event log.
    pub fn log(&self) -> &L {
        &self.log
    }

    /// A connection was made with a token naming `identity`. Nothing is sent until hello.
    pub fn open(&mut self, identity: Identity, now: Millis) -> SocketId {
        let id = SocketId(self.next_id);
        self.next_id += 1;
        let socket = Socket {
            identity,
            protocol: None,
            accepts: BTreeSet::new(),
            context: ContextBudget::default(),
            subs: subs::Subs::default(),
            held: None,
            last_ping: now,
            last_heard: now,
        };
        self.sockets.insert(id, socket);
        id
    }

    /// A connection ended. A harness's last socket going tells people it left.
    pub fn close(&mut self, socket: SocketId, now: Millis) -> Vec<Action> {
        let mut out = Vec::new();
        self.forget(socket, now, &mut out);
        out
    }

    /// The protocol version hello chose, once it did.
    pub fn protocol(&self, socket: SocketId) -> Option<i64> {
        self.sockets.get(&socket).and_then(|s| s.protocol)
    }

    /// The `accepts` names of a socket's hello that this server knows.
    pub fn accepts(&self, socket: SocketId) -> Option<Vec<&'static str>> {
        self.sockets
            .get(&socket)
            .map(|s| s.accepts.iter().copied().collect())
    }

    /// How much of a room the socket is handed with a question.
    pub fn context(&self, socket: SocketId) -> Option<ContextBudget> {
        self.sockets.get(&socket).map(|s| s.context)
    }

    /// Whose a socket is.
    pub fn identity(&self, socket: SocketId) -> Option<&Identity> {
        self.sockets.get(&socket).map(|s| &s.identity)
    }

    /// The open sockets.
    pub fn sockets(&self) -> impl Iterator<Item = SocketId> + '_ {
        self.sockets.keys().copied()
    }

    /// A frame arrived as a port delivers it: text, an in-memory value, or a refusal.
    pub fn receive_incoming(
        &mut self,
        socket: SocketId,
        frame: &Incoming,
        now: Millis,
    ) -> Vec<Action> {
        match frame.to_text() {
            Some(text) => self.receive(socket, &text, now),
            None => {
                let message = match frame {
                    Incoming::TooLarge(too_large) => too_large.to_string(),
                    _ => "the frame was refused".to_owned(),
                };
                self.touch(socket, now);
                let out = refuse(socket, ErrorCode::InvalidFrame, message, None);
                log_refusals(socket, "unread", &out, self.log_failing);
                out
            }
        }
    }

    /// Frames that arrived together, handled as one group (group commit): the log's writes
    /// they make are one group ([`EventLog::begin_group`]) committed once, after the last, and
    /// what they answer (acks, receipts, live events, pongs) is answered only after that
    /// commit, so every ack still names a durable write. When the commit fails nothing of the
    /// group is stored: every socket an answer was for is told `internal` and closed (a client
    /// resends under its keys), and the runs the group started or finished in memory stay so.
    /// A log without groups (the memory log) answers as [`receive_incoming`](Self::receive_incoming)
    /// one frame at a time.
    pub fn receive_group(&mut self, frames: &[(SocketId, Incoming)], now: Millis) -> Vec<Action> {
        if frames.len() == 1 || self.log_failing || self.log.begin_group().is_err() {
            // Nothing to group, or no group to be had (the log failing: a full disk), so each
            // write commits as it is made, and a failure refuses that write alone.
            let mut out = Vec::new();
            for (socket, frame) in frames {
                out.extend(self.receive_incoming(*socket, frame, now));
            }
            return out;
        }
        let mut out = Vec::new();
        self.undo = Some(Undo::default());
        for (socket, frame) in frames {
            out.extend(self.receive_incoming(*socket, frame, now));
        }
        let committed = self.log.commit_group();
        let undo = self.undo.take().unwrap_or_default();
        match self.noted(committed) {
            Ok(()) => out,
            Err(e) => {
                // None of the group is stored: the runs it started or ended and the changes
                // it answered or sent are as they were.
                if let Some(runs) = undo.runs {
                    self.runs = runs;
                }
                if let Some(pending) = undo.pending {
                    self.pending = pending;
                }
                #[cfg(feature = "tracing")]
                tracing::info!(frames = frames.len(), "a group of writes failed");
                let mut told = BTreeSet::new();
                told.extend(frames.iter().map(|(socket, _)| *socket));
                told.extend(out.iter().filter_map(|action| match action {
                    Action::Send { to, .. } => Some(*to),
                    Action::Close { .. } => None,
                }));
                let mut failed = Vec::new();
                for socket in told {
                    if !self.sockets.contains_key(&socket) {
                        continue;
                    }
                    failed.extend(refuse(socket, ErrorCode::Internal, e.to_string(), None));
                    failed.push(Action::Close { socket });
                    self.forget(socket, now, &mut failed);
                }
                failed
            }
        }
    }

    /// A frame arrived as JSON text: parses it and answers what to do.
    pub fn receive(&mut self, socket: SocketId, text: &str, now: Millis) -> Vec<Action> {
        if !self.touch(socket, now) {
            return Vec::new();
        }
        let (name, out) = match parse_client_frame(text) {
            Ok(frame) => (frame_name(&frame), self.handle(socket, frame, now)),
            Err(error) => {
                let (code, key) = classify(text, &error);
                ("invalid", refuse(socket, code, error.to_string(), key))
            }
        };
        log_refusals(socket, name, &out, self.log_failing);
        out
    }

    /// A frame arrived, already parsed.
    pub fn handle(&mut self, socket: SocketId, frame: ClientFrame, now: Millis) -> Vec<Action> {
        if !self.touch(socket, now) {
            return Vec::new();
        }
        match frame {
            ClientFrame::Hello(hello) => self.hello(socket, hello, now),
            ClientFrame::Ping(ping) => {
                let pong = ServerFrame::Pong(Ping::new(ping.ts));
                match self.sockets.get_mut(&socket) {
                    Some(s) if s.subs.replaying() => {
                        s.held = Some(pong);
                        Vec::new()
                    }
                    _ => send(socket, pong),
                }
            }
            ClientFrame::Pong(_) => Vec::new(),
            ClientFrame::Subscribe(subscribe) => match self.ready(socket) {
                Some(()) => self.subscribe(socket, subscribe),
                None => not_ready(socket, None),
            },
            ClientFrame::Event(frame) => {
                let key = write::event_key(&frame.event).to_owned();
                match self.ready(socket) {
                    Some(()) => self.write(socket, frame.event, now),
                    None => not_ready(socket, Some(key)),
                }
            }
        }
    }

    /// Time passed: pings sockets due one, closes sockets silent too long.
    pub fn tick(&mut self, now: Millis) -> Vec<Action> {
        let mut out = Vec::new();
        let idle: Vec<SocketId> = match self.config.idle_timeout {
            Some(limit) => self
                .sockets
                .iter()
                .filter(|(_, s)| now.saturating_sub(s.last_heard) >= limit)
                .map(|(id, _)| *id)
                .collect(),
            None => Vec::new(),
        };
        for id in idle {
            out.push(Action::Close { socket: id });
            self.forget(id, now, &mut out);
        }
        // A socket is pinged only once it said hello: before, it has no protocol to ping in.
        for (id, s) in &mut self.sockets {
            if s.protocol.is_some() && now.saturating_sub(s.last_ping) >= self.config.ping_every {
                s.last_ping = now;
                out.push(Action::Send {
                    to: *id,
                    frame: ServerFrame::Ping(Ping::new(now.max(0))),
                });
            }
        }
        out
    }

    /// Something happened that sockets hear now or never. Answers the frames to send: one to
    /// every socket of `workspace_id` the notice is for and whose hello accepted it.
    pub fn notify(&mut self, workspace_id: &str, notice: Notice) -> Vec<Action> {
        let (frame, audience) = match notice {
            Notice::Presence(p) => (ServerFrame::Presence(p), Audience::People),
            Notice::Join(request) => (
                ServerFrame::Join(ServerFrameJoin { request }),
                Audience::OwnersAndAdmins,
            ),
            Notice::Restart {
                harness_id,
                restart,
            } => (ServerFrame::Restart(restart), Audience::Harness(harness_id)),
            Notice::ContextEdit(f) => {
                let h = Audience::Harness(f.harness_id.clone());
                (ServerFrame::ContextEdit(f), h)
            }
            Notice::ModelChange(f) => {
                let h = Audience::Harness(f.harness_id.clone());
                (ServerFrame::ModelChange(f), h)
            }
            Notice::HeartbeatChange(f) => {
                let h = Audience::Harness(f.harness_id.clone());
                (ServerFrame::HeartbeatChange(f), h)
            }
            Notice::ContextWindowCompact(f) => {
                let h = Audience::Harness(f.harness_id.clone());
                (ServerFrame::ContextWindowCompact(f), h)
            }
            Notice::ContextWindowChange(f) => {
                let h = Audience::Harness(f.harness_id.clone());
                (ServerFrame::ContextWindowChange(f), h)
            }
        };
        let gate = gate(&frame);
        let out: Vec<Action> = self
            .sockets
            .iter()
            .filter(|(_, s)| s.protocol.is_some() && s.identity.workspace_id == workspace_id)
            .filter(|(_, s)| gate.is_none_or(|g| s.accepts(g)) && audience.hears(s))
            .map(|(id, _)| Action::Send {
                to: *id,
                frame: frame.clone(),
            })
            .collect();
        // A change a harness heard waits for its answer; one nobody heard never gets one.
        if let (Some(id), Audience::Harness(harness_id)) = (answered_by(&frame), &audience)
            && !out.is_empty()
        {
            let pending = harness::Pending {
                harness_id: harness_id.clone(),
            };
            self.pending_mut()
                .insert((workspace_id.to_owned(), id.to_owned()), pending);
        }
        out
    }

    /// The runs, to change: copied first when a group changes them for the first time.
    fn runs_mut(&mut self) -> &mut BTreeMap<(String, String), write::Run> {
        if let Some(undo) = &mut self.undo
            && undo.runs.is_none()
        {
            undo.runs = Some(self.runs.clone());
        }
        &mut self.runs
    }

    /// The pending changes, to change: copied first when a group changes them for the first
    /// time.
    fn pending_mut(&mut self) -> &mut harness::PendingChanges {
        if let Some(undo) = &mut self.undo
            && undo.pending.is_none()
        {
            undo.pending = Some(self.pending.clone());
        }
        &mut self.pending
    }

    /// Records that a socket was heard from; false when the hub does not know it.
    fn touch(&mut self, socket: SocketId, now: Millis) -> bool {
        match self.sockets.get_mut(&socket) {
            Some(s) => {
                s.last_heard = s.last_heard.max(now);
                true
            }
            None => false,
        }
    }

    fn ready(&self, socket: SocketId) -> Option<()> {
        self.sockets.get(&socket).and_then(|s| s.protocol).map(drop)
    }

    fn hello(&mut self, socket: SocketId, hello: Hello, now: Millis) -> Vec<Action> {
        let Some(s) = self.sockets.get_mut(&socket) else {
            return Vec::new();
        };
        if s.protocol.is_some() {
            return refuse(
                socket,
                ErrorCode::InvalidFrame,
                "hello was already said on this connection",
                None,
            );
        }
        let low = hello.protocol.min.max(self.config.protocol_min);
        let high = hello.protocol.max.min(self.config.protocol_max);
        if low > high {
            let message = format!(
                "this server speaks protocol {}..={}, the client {}..={}",
                self.config.protocol_min,
                self.config.protocol_max,
                hello.protocol.min,
                hello.protocol.max
            );
            let mut out = refuse(socket, ErrorCode::ProtocolUnsupported, message, None);
            out.push(Action::Close { socket });
            self.forget(socket, now, &mut Vec::new());
            return out;
        }
        s.protocol = Some(high);
        // Names this server does not know are ignored, not refused.
        let accepts = hello.accepts.unwrap_or_default();
        s.accepts = KNOWN_ACCEPTS
            .iter()
            .copied()
            .filter(|k| accepts.iter().any(|a| a == k))
            .collect();
        if let Some(context) = hello.context {
            s.context = ContextBudget::from(context);
        }
        let reply = HelloReply::new(
            high,
            s.identity.participant(),
            s.identity.harness_id().map(str::to_owned),
        );
        let mut out = send(socket, ServerFrame::Hello(reply));
        // The first socket of a harness: people hear that it is here.
        let identity = s.identity.clone();
        if let Some(harness_id) = identity.harness_id()
            && self.harness_sockets(&identity.workspace_id, harness_id) == 1
        {
            out.extend(self.set_connected(&identity.workspace_id, harness_id, true, now));
        }
        out
    }

    fn harness_sockets(&self, workspace_id: &str, harness_id: &str) -> usize {
        self.sockets
            .values()
            .filter(|s| {
                s.protocol.is_some()
                    && s.identity.workspace_id == workspace_id
                    && s.is_harness(harness_id)
            })
            .count()
    }

    /// Forgets a socket; a harness's last ready socket going tells people it left.
    fn forget(&mut self, socket: SocketId, now: Millis, out: &mut Vec<Action>) {
        let Some(s) = self.sockets.remove(&socket) else {
            return;
        };
        if s.protocol.is_some()
            && let Some(harness_id) = s.identity.harness_id()
            && self.harness_sockets(&s.identity.workspace_id, harness_id) == 0
        {
            out.extend(self.set_connected(&s.identity.workspace_id, harness_id, false, now));
        }
    }
}

/// The id a harness's answer names, for a frame that asks for one.
fn answered_by(frame: &ServerFrame) -> Option<&str> {
    match frame {
        ServerFrame::ContextEdit(f) => Some(&f.edit_id),
        ServerFrame::ModelChange(f) => Some(&f.change_id),
        ServerFrame::HeartbeatChange(f) => Some(&f.change_id),
        ServerFrame::ContextWindowCompact(f) => Some(&f.change_id),
        ServerFrame::ContextWindowChange(f) => Some(&f.change_id),
        _ => None,
    }
}

/// A client frame's name, as its `frame` tag says it.
fn frame_name(frame: &ClientFrame) -> &'static str {
    match frame {
        ClientFrame::Hello(_) => "hello",
        ClientFrame::Ping(_) => "ping",
        ClientFrame::Pong(_) => "pong",
        ClientFrame::Subscribe(_) => "subscribe",
        ClientFrame::Event(_) => "event",
    }
}

/// Logs the refusals a frame from `socket` was answered with, for the operator: the frame's
/// name and the code, and the message of an `internal` one (a log that failed: the disk).
/// Never a payload or a message that quotes one.
#[cfg(feature = "tracing")]
fn log_refusals(socket: SocketId, frame: &str, out: &[Action], log_failing: bool) {
    for action in out {
        let Action::Send {
            to,
            frame: ServerFrame::Error(error),
        } = action
        else {
            continue;
        };
        if *to != socket {
            continue;
        }
        // While the log fails its refusals are told without the error, logged once by
        // `Hub::noted` when the episode began.
        if error.code == ErrorCode::Internal && !log_failing {
            tracing::warn!(
                socket = socket.0,
                frame,
                code = error.code.as_str(),
                error = %error.message,
                "frame failed"
            );
        } else {
            tracing::info!(
                socket = socket.0,
                frame,
                code = error.code.as_str(),
                "frame refused"
            );
        }
    }
}

/// Without `tracing`, nothing is logged.
#[cfg(not(feature = "tracing"))]
fn log_refusals(_: SocketId, _: &str, _: &[Action], _: bool) {}

fn send(to: SocketId, frame: ServerFrame) -> Vec<Action> {
    vec![Action::Send { to, frame }]
}

/// An error frame for `socket`, naming the key at fault when there was one.
fn refuse(
    socket: SocketId,
    code: ErrorCode,
    message: impl Into<String>,
    key: Option<String>,
) -> Vec<Action> {
    send(socket, error_frame(code, message, key))
}

fn not_ready(socket: SocketId, key: Option<String>) -> Vec<Action> {
    refuse(
        socket,
        ErrorCode::InvalidFrame,
        "the first frame on a connection is hello",
        key,
    )
}

/// An error frame. A key that is not a valid idempotency key is left out.
pub fn error_frame(
    code: ErrorCode,
    message: impl Into<String>,
    key: Option<String>,
) -> ServerFrame {
    let mut frame = ErrorFrame::new(code, message);
    frame.idempotency_key = key;
    // The schema says what a valid key is: a frame that does not parse back loses its key.
    let valid = serde_json::to_string(&frame)
        .is_ok_and(|t| crate::wire::from_str::<ErrorFrame>(&t).is_ok());
    if !valid {
        frame.idempotency_key = None;
    }
    ServerFrame::Error(frame)
}

/// Why a client frame was refused: `invalid_frame`, or `invalid_event` when only the event
/// inside an event frame is wrong. An event without its own key is `invalid_frame`. Answers
/// the event's key too, when it has a usable one.
fn classify(text: &str, error: &ParseError) -> (ErrorCode, Option<String>) {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return (ErrorCode::InvalidFrame, None);
    };
    let is_event_frame = value.get("frame").and_then(Value::as_str) == Some("event")
        && value.get("event").is_some_and(Value::is_object);
    if !is_event_frame {
        return (ErrorCode::InvalidFrame, None);
    }
    let key = value
        .pointer("/event/idempotency_key")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let issues = error.issues();
    let at = |path: &[Seg], name: &str| matches!(path.first(), Some(Seg::Key(k)) if k == name);
    let key_missing = issues.iter().any(|i| {
        let path = i.path();
        path.len() == 2
            && at(path, "event")
            && matches!(&path[1], Seg::Key(k) if k == "idempotency_key")
    });
    let inside_event = !issues.is_empty()
        && issues
            .iter()
            .all(|i| i.path().len() >= 2 && at(i.path(), "event"));
    let code = if key_missing || !inside_event {
        ErrorCode::InvalidFrame
    } else {
        ErrorCode::InvalidEvent
    };
    (code, key)
}
