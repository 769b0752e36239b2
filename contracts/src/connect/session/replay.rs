//! Replays: a subscribe's `since` checked, and the log read back in pages that always fit.
//!
//! A replay is paced: each [`Hub::pump`] answers at most [`Config::replay_budget`] bytes, so a
//! server sends the next pages only when its socket has room, and a slow reader never makes the
//! server hold its whole history. While a subscription replays, live events of its scope are not
//! sent: they are in the log, and the replay reaches them in seq order.

use super::{
    Action, ErrorCode, EventLog, Hub, ReadError, Scope, Seq, ServerEvent, ServerFrame,
    ServerFrameEvent, ServerFrameEvents, Socket, SocketId, Subscribe, TooFarBehind, error_frame,
    log_refusals, refuse,
};

impl<L: EventLog> Hub<L> {
    pub(super) fn subscribe(&mut self, socket: SocketId, subscribe: Subscribe) -> Vec<Action> {
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
        let cap = self.config.max_subscriptions;
        if !s.subs.contains(&scope) && s.subs.len() >= cap {
            let message = format!(
                "subscribe refused: this socket holds {cap} subscriptions, the most it may; \
                 subscribe to the workspace to hear every space"
            );
            return refuse(socket, ErrorCode::RateLimited, message, None);
        }
        if let Some(since) = subscribe.since {
            // The cursor is checked now, so a subscribe the log cannot honour is refused at
            // once and never answered with silence.
            if let Err(e) = self.log.read(&s.identity.workspace_id, since, 0) {
                return refuse_read(socket, since, e);
            }
        }
        if let Some(s) = self.sockets.get_mut(&socket) {
            s.subs.subscribe(scope, subscribe.since);
        }
        self.pump(socket)
    }

    /// Whether a replay is under way on `socket`: [`pump`](Self::pump) has more to send.
    pub fn replaying(&self, socket: SocketId) -> bool {
        self.sockets
            .get(&socket)
            .is_some_and(|s| s.subs.replaying())
    }

    /// The next frames of the socket's replays: at most [`Config::replay_budget`] bytes, at
    /// least one frame when one is due. An `events` page holds at most [`Config::page_size`]
    /// events and [`Config::max_frame_bytes`] bytes, in seq order; a socket that does not
    /// accept `events` gets single `event` frames. A replay that caught up with the log's head
    /// turns its subscription live, in the same call, so no event falls between the two.
    /// Empty when no replay is due. [`subscribe`](Self::receive) answers the first call; a
    /// server that paces replays calls this again each time the socket has room.
    ///
    /// [`Config::replay_budget`]: super::Config::replay_budget
    /// [`Config::page_size`]: super::Config::page_size
    /// [`Config::max_frame_bytes`]: super::Config::max_frame_bytes
    pub fn pump(&mut self, socket: SocketId) -> Vec<Action> {
        let mut out = Vec::new();
        let mut spent = 0usize;
        while spent < self.config.replay_budget.max(1) {
            let Some(s) = self.sockets.get(&socket) else {
                break;
            };
            let Some((scope, cursor)) = s.subs.next_replay() else {
                break;
            };
            let batch = self.next_batch(s, &scope, cursor);
            match batch {
                Ok(Batch::Frames {
                    frames,
                    bytes,
                    through,
                    done,
                }) => {
                    spent += bytes.max(1);
                    out.extend(
                        frames
                            .into_iter()
                            .map(|frame| Action::Send { to: socket, frame }),
                    );
                    // These frames reached the head: the subscription is live from here.
                    self.set_replay(socket, &scope, (!done).then_some(through));
                }
                Ok(Batch::CaughtUp) => self.set_replay(socket, &scope, None),
                Err(e) => {
                    // The replay cannot go on: the socket hears why, and the subscription ends.
                    out.extend(refuse_read(socket, cursor, e));
                    if let Some(s) = self.sockets.get_mut(&socket) {
                        s.subs.remove(&scope);
                    }
                }
            }
        }
        // Caught up: the pong held behind the replay goes now.
        if let Some(s) = self.sockets.get_mut(&socket)
            && !s.subs.replaying()
            && let Some(frame) = s.held.take()
        {
            out.push(Action::Send { to: socket, frame });
        }
        log_refusals(socket, "replay", &out, self.log_failing);
        out
    }

    fn set_replay(&mut self, socket: SocketId, scope: &Scope, replay: Option<Seq>) {
        if let Some(s) = self.sockets.get_mut(&socket) {
            s.subs.set_replay(scope, replay);
        }
    }

    /// One page (or, for a socket without `events`, a page's worth of single frames) of
    /// `scope` after `cursor`, or [`Batch::CaughtUp`] at the head.
    fn next_batch(&self, s: &Socket, scope: &Scope, cursor: Seq) -> Result<Batch, ReadError> {
        let workspace_id = &s.identity.workspace_id;
        let pages = s.accepts("events");
        let limit = self.config.max_frame_bytes;
        let page_size = self.config.page_size.max(1);
        let mut cursor = cursor;
        let mut events: Vec<ServerEvent> = Vec::new();
        let mut frames = Vec::new();
        let mut bytes = page_overhead();
        loop {
            let batch = self.log.read(workspace_id, cursor, page_size)?;
            if batch.is_empty() {
                break;
            }
            for entry in batch {
                if !scope.covers(&entry) {
                    cursor = entry.seq;
                    continue;
                }
                if pages {
                    let size = json_len(&entry.event);
                    let grown = bytes + size + usize::from(!events.is_empty());
                    if !events.is_empty() && (grown > limit || events.len() >= page_size) {
                        return Ok(Batch::page(events, bytes, cursor));
                    }
                    if events.is_empty() && grown > limit {
                        // Only an event written under a larger limit: it can never be sent.
                        return Ok(Batch::too_large(entry.seq, grown, limit));
                    }
                    bytes = grown;
                    events.push(entry.event);
                } else {
                    let frame = ServerFrame::Event(ServerFrameEvent { event: entry.event });
                    let size = json_len(&frame);
                    if size > limit {
                        if frames.is_empty() {
                            return Ok(Batch::too_large(entry.seq, size, limit));
                        }
                        return Ok(Batch::singles(frames, cursor));
                    }
                    if !frames.is_empty() && (bytes + size > limit || frames.len() >= page_size) {
                        return Ok(Batch::singles(frames, cursor));
                    }
                    bytes += size;
                    frames.push(frame);
                }
                cursor = entry.seq;
            }
        }
        // The log has nothing after `cursor`: what was gathered reaches the head.
        Ok(match (pages, events.is_empty(), frames.is_empty()) {
            (true, false, _) => Batch::page(events, bytes, cursor).at_head(),
            (false, _, false) => Batch::singles(frames, cursor).at_head(),
            _ => Batch::CaughtUp,
        })
    }
}

/// What one step of a replay answers.
enum Batch {
    /// Frames to send, their size, the last seq they cover, and whether that is the head.
    Frames {
        frames: Vec<ServerFrame>,
        bytes: usize,
        through: Seq,
        done: bool,
    },
    /// The replay reached the head.
    CaughtUp,
}

impl Batch {
    fn page(events: Vec<ServerEvent>, bytes: usize, through: Seq) -> Batch {
        Batch::Frames {
            frames: vec![ServerFrame::Events(ServerFrameEvents { events })],
            bytes,
            through,
            done: false,
        }
    }

    fn singles(frames: Vec<ServerFrame>, through: Seq) -> Batch {
        let bytes = frames.iter().map(json_len).sum();
        Batch::Frames {
            frames,
            bytes,
            through,
            done: false,
        }
    }

    /// The same frames, known to reach the log's head.
    fn at_head(self) -> Batch {
        match self {
            Batch::Frames {
                frames,
                bytes,
                through,
                ..
            } => Batch::Frames {
                frames,
                bytes,
                through,
                done: true,
            },
            caught_up => caught_up,
        }
    }

    /// An event in the log too large for any frame: the socket is told, and the replay goes
    /// on after it.
    fn too_large(seq: Seq, size: usize, limit: usize) -> Batch {
        let message = format!(
            "event {seq} travels as a frame of {size} bytes, over the {limit}-byte limit of a frame: it is skipped"
        );
        Batch::Frames {
            frames: vec![error_frame(ErrorCode::Internal, message, None)],
            bytes: 1,
            through: seq,
            done: false,
        }
    }
}

/// The length of a value's JSON text, as the port sends it.
pub(super) fn json_len<T: serde::Serialize>(value: &T) -> usize {
    serde_json::to_string(value).map_or(usize::MAX / 2, |t| t.len())
}

/// The bytes of an `events` page around its events: `{"frame":"events","events":[]}`.
fn page_overhead() -> usize {
    json_len(&ServerFrame::Events(ServerFrameEvents {
        events: Vec::new(),
    }))
}

/// The error frame for a `since` the log cannot honour.
///
/// - Older than the log holds: `too_far_behind`, the one code that is not a mistake: resume
///   with a later `since` (the message names the oldest one served).
/// - Ahead of the head: `not_found`. The seq the cursor names is not in this log (a log that
///   lost its tail, or a cursor from another server), so no `since` the client holds is
///   right: it drops its cursor and resumes from the start (`since: 0`), keeping the events
///   it has by their ids. Not `too_far_behind`: resuming "later" would skip what is new.
/// - The store failed: `internal`.
fn refuse_read(socket: SocketId, since: Seq, e: ReadError) -> Vec<Action> {
    let (code, message) = match e {
        ReadError::TooFarBehind(TooFarBehind { oldest_since }) => (
            ErrorCode::TooFarBehind,
            format!(
                "since {since} is older than the log holds; resume with since {oldest_since} or later"
            ),
        ),
        ReadError::AheadOfHead { head } => (
            ErrorCode::NotFound,
            format!(
                "since {since} is ahead of the log, whose newest seq is {head}: this log never held it; drop the cursor and resume with since 0"
            ),
        ),
        ReadError::Log(e) => (ErrorCode::Internal, e.to_string()),
    };
    refuse(socket, code, message, None)
}
