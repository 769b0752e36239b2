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
//!   goes out in `events` pages of at most 500, in seq order, to a socket that accepts
//!   `events`, and as single `event` frames otherwise. `since` older than the log holds is
//!   answered `too_far_behind`. Live events are always single `event` frames.
//! - An event is written once per idempotency key: a resend is acked with `duplicate: true`
//!   and the seq it was written at, for as long as the log remembers the key (a
//!   [`MemoryLog`] remembers the newest ten keys per event it keeps). An event frame without
//!   its own key is `invalid_frame`; an event its type refuses is `invalid_event`. An error names the key at fault when there
//!   was one.
//! - Gated frames go only to sockets whose hello accepted them: presence to a person's socket
//!   and never a guest's, join to an owner's or admin's, restart, context.edit, model.change,
//!   heartbeat.change and the context_window frames to the harness's own. They are now or
//!   never: not in the log, so a reconnect never hears them.
//! - A ping goes to every socket every 20 seconds; a ping is answered with a pong echoing its
//!   timestamp.

mod log;

pub use log::{EventLog, LogEntry, MemoryLog, Seq, TooFarBehind};

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{
    Ack, ClientEvent, ClientFrame, ContextEdit, ContextWindowChange, ContextWindowCompact,
    ErrorCode, ErrorFrame, HeartbeatChange, Hello, HelloContext, HelloReply, JoinRequest,
    ModelChange, Participant, ParticipantKind, Ping, Presence, PresenceState, Restart, ServerEvent,
    ServerEventMessageNew, ServerFrame, ServerFrameEvent, ServerFrameEvents, ServerFrameJoin,
    Subscribe, parse_client_frame,
};
use crate::port::Incoming;
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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            protocol_min: 1,
            protocol_max: 1,
            ping_every: 20_000,
            idle_timeout: Some(60_000),
            page_size: 500,
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
        Participant {
            participant_id: self.participant_id().to_owned(),
            kind,
            display_name: self.display_name.clone(),
        }
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
    scopes: BTreeSet<Scope>,
    last_ping: Millis,
    last_heard: Millis,
}

impl Socket {
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
            scopes: BTreeSet::new(),
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
                refuse(socket, ErrorCode::InvalidFrame, message, None)
            }
        }
    }

    /// A frame arrived as JSON text: parses it and answers what to do.
    pub fn receive(&mut self, socket: SocketId, text: &str, now: Millis) -> Vec<Action> {
        if !self.touch(socket, now) {
            return Vec::new();
        }
        match parse_client_frame(text) {
            Ok(frame) => self.handle(socket, frame, now),
            Err(error) => {
                let (code, key) = classify(text, &error);
                refuse(socket, code, error.to_string(), key)
            }
        }
    }

    /// A frame arrived, already parsed.
    pub fn handle(&mut self, socket: SocketId, frame: ClientFrame, now: Millis) -> Vec<Action> {
        if !self.touch(socket, now) {
            return Vec::new();
        }
        match frame {
            ClientFrame::Hello(hello) => self.hello(socket, hello, now),
            ClientFrame::Ping(Ping { ts }) => send(socket, ServerFrame::Pong(Ping { ts })),
            ClientFrame::Pong(_) => Vec::new(),
            ClientFrame::Subscribe(subscribe) => match self.ready(socket) {
                Some(()) => self.subscribe(socket, subscribe),
                None => not_ready(socket, None),
            },
            ClientFrame::Event(frame) => {
                let key = event_key(&frame.event).to_owned();
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
        for (id, s) in &mut self.sockets {
            if now.saturating_sub(s.last_ping) >= self.config.ping_every {
                s.last_ping = now;
                out.push(Action::Send {
                    to: *id,
                    frame: ServerFrame::Ping(Ping { ts: now.max(0) }),
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
                ServerFrame::Join(ServerFrameJoin {
                    request: Box::new(request),
                }),
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
        self.sockets
            .iter()
            .filter(|(_, s)| s.protocol.is_some() && s.identity.workspace_id == workspace_id)
            .filter(|(_, s)| gate.is_none_or(|g| s.accepts(g)) && audience.hears(s))
            .map(|(id, _)| Action::Send {
                to: *id,
                frame: frame.clone(),
            })
            .collect()
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
        let reply = HelloReply {
            protocol: high,
            participant: s.identity.participant(),
            harness_id: s.identity.harness_id().map(str::to_owned),
        };
        let mut out = send(socket, ServerFrame::Hello(reply));
        // The first socket of a harness: people hear that it is here.
        let identity = s.identity.clone();
        if let Some(harness_id) = identity.harness_id()
            && self.harness_sockets(&identity.workspace_id, harness_id) == 1
        {
            out.extend(self.presence(&identity.workspace_id, harness_id, true, now));
        }
        out
    }

    fn subscribe(&mut self, socket: SocketId, subscribe: Subscribe) -> Vec<Action> {
        let Some(s) = self.sockets.get(&socket) else {
            return Vec::new();
        };
        let scope = match (subscribe.workspace_id, subscribe.space_id) {
            (Some(w), None) if w == s.identity.workspace_id => Scope::Workspace,
            (Some(w), None) => {
                let message = format!("the token is not for workspace {w}");
                return refuse(socket, ErrorCode::Forbidden, message, None);
            }
            (None, Some(space)) => Scope::Space(space),
            _ => {
                let message = "subscribe names a workspace_id or a space_id, exactly one";
                return refuse(socket, ErrorCode::InvalidFrame, message, None);
            }
        };
        let mut out = Vec::new();
        if let Some(since) = subscribe.since {
            match self.replay(&s.identity.workspace_id, &scope, since) {
                Ok(events) => {
                    if s.accepts("events") {
                        for page in events.chunks(self.config.page_size.max(1)) {
                            let events = page.iter().map(|e| e.event.clone()).collect();
                            out.push(Action::Send {
                                to: socket,
                                frame: ServerFrame::Events(ServerFrameEvents { events }),
                            });
                        }
                    } else {
                        for e in events {
                            out.push(Action::Send {
                                to: socket,
                                frame: ServerFrame::Event(ServerFrameEvent { event: e.event }),
                            });
                        }
                    }
                }
                Err(TooFarBehind { oldest_since }) => {
                    let message = format!(
                        "since {since} is older than the log holds; resume with since {oldest_since} or later"
                    );
                    return refuse(socket, ErrorCode::TooFarBehind, message, None);
                }
            }
        }
        if let Some(s) = self.sockets.get_mut(&socket) {
            s.scopes.insert(scope);
        }
        out
    }

    /// Every event of `scope` after `since`, in seq order.
    fn replay(
        &self,
        workspace_id: &str,
        scope: &Scope,
        since: Seq,
    ) -> Result<Vec<LogEntry>, TooFarBehind> {
        let mut events = Vec::new();
        let mut cursor = since;
        loop {
            let batch = self
                .log
                .read(workspace_id, cursor, self.config.page_size.max(1))?;
            let Some(last) = batch.last() else { break };
            cursor = last.seq;
            events.extend(batch.into_iter().filter(|e| scope.covers(e)));
        }
        Ok(events)
    }

    fn write(&mut self, socket: SocketId, event: ClientEvent, now: Millis) -> Vec<Action> {
        let Some(s) = self.sockets.get(&socket) else {
            return Vec::new();
        };
        let identity = s.identity.clone();
        let workspace_id = identity.workspace_id.as_str();
        let writer = identity.participant_id();
        let key = event_key(&event).to_owned();
        if let Some(seq) = self.log.find_key(workspace_id, writer, &key) {
            return send(
                socket,
                ServerFrame::Ack(Ack {
                    idempotency_key: key,
                    seq,
                    duplicate: true,
                }),
            );
        }
        let seq = self.log.next_seq(workspace_id);
        let entry = match event {
            ClientEvent::MessagePost(post) => LogEntry {
                seq,
                space_id: Some(post.space_id.clone()),
                event: ServerEvent::MessageNew(Box::new(ServerEventMessageNew {
                    seq,
                    v: Some(1),
                    id: Some(format!("evt_{seq}")),
                    ts: Some(now.max(0)),
                    workspace_id: Some(workspace_id.to_owned()),
                    actor: Some(writer.to_owned()),
                    space_id: Some(post.space_id),
                    message_id: format!("msg_{seq}"),
                    from: identity.participant(),
                    text: post.text,
                    idempotency_key: Some(post.idempotency_key),
                })),
            },
        };
        self.log.append(workspace_id, writer, &key, entry.clone());
        let mut out = send(
            socket,
            ServerFrame::Ack(Ack {
                idempotency_key: key,
                seq,
                duplicate: false,
            }),
        );
        // Live events are always single event frames.
        for (id, s) in &self.sockets {
            if s.identity.workspace_id == workspace_id
                && s.scopes.iter().any(|scope| scope.covers(&entry))
            {
                out.push(Action::Send {
                    to: *id,
                    frame: ServerFrame::Event(ServerFrameEvent {
                        event: entry.event.clone(),
                    }),
                });
            }
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

    fn presence(
        &mut self,
        workspace_id: &str,
        harness_id: &str,
        connected: bool,
        now: Millis,
    ) -> Vec<Action> {
        let presence = Presence {
            participant_id: harness_id.to_owned(),
            state: PresenceState {
                connected,
                since: now.max(0),
                trouble: None,
                restarting: None,
            },
        };
        self.notify(workspace_id, Notice::Presence(presence))
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
            out.extend(self.presence(&s.identity.workspace_id, harness_id, false, now));
        }
    }
}

fn event_key(event: &ClientEvent) -> &str {
    match event {
        ClientEvent::MessagePost(post) => &post.idempotency_key,
    }
}

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
    let frame = ErrorFrame {
        code,
        message: message.into(),
        idempotency_key: key,
    };
    // The schema says what a valid key is: a frame that does not parse back loses its key.
    let valid = serde_json::to_string(&frame)
        .is_ok_and(|t| crate::wire::from_str::<ErrorFrame>(&t).is_ok());
    ServerFrame::Error(if valid {
        frame
    } else {
        ErrorFrame {
            idempotency_key: None,
            ..frame
        }
    })
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
