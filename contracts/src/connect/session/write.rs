//! Writes: a client event checked, turned into the server's event, stored once per key, acked,
//! and sent live.
//!
//! The order is the promise: a resend of a remembered key is acked `duplicate: true` before any
//! other check (its first write passed them); then who may write it and what it names (a run
//! under way, a change the harness was sent); then whether its frame could ever be sent; then
//! the log's write, which is durable before it answers; only then the ack, the receipt of a
//! mid-run message and the live frames.
//!
//! # Runs
//!
//! The spec names runs but not how they start, so the reference server holds the least a
//! `receipt` needs: a harness writes `run.start` in a space (one run at a time per space) and
//! `run.finish` when done. A `message.post` to a space while its run is under way is a mid-run
//! message: acked, then answered with a `receipt`, `steered` when it names the run (`run_id`),
//! `queued` otherwise. Runs are held in memory: a restarted server has none under way, and a
//! harness starts again.

use super::harness::Pending;
use super::{
    Ack, ClientEvent, ErrorCode, EventLog, Hub, Identity, LogEntry, LogError, Millis, Seq,
    ServerEvent, ServerFrame, ServerFrameEvent, ServerFrameEvents, SocketId, Written, refuse,
    replay::json_len, send,
};
use crate::connect::{
    Receipt, ReceiptOutcome, ServerEventAgentCopied, ServerEventContextCopied,
    ServerEventContextRefused, ServerEventMessageNew, ServerEventRunFinished,
    ServerEventRunStarted,
};

/// A run under way in a space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Run {
    pub(super) run_id: String,
    pub(super) harness_id: String,
}

/// What a write changes beside the log, once it is written.
enum After {
    Nothing,
    /// A mid-run message: the writer gets a receipt.
    Receipt {
        run_id: String,
        outcome: ReceiptOutcome,
    },
    /// A run starts in this space.
    RunStarted {
        space_id: String,
    },
    /// The run of this space is done.
    RunFinished {
        space_id: String,
    },
    /// A change the harness was sent is answered; `keep` while a compaction goes on.
    Answered {
        id: String,
        keep: bool,
    },
}

/// Why a write is refused before it is written.
type Refusal = (ErrorCode, String);

impl<L: EventLog> Hub<L> {
    pub(super) fn write(
        &mut self,
        socket: SocketId,
        event: ClientEvent,
        now: Millis,
    ) -> Vec<Action> {
        let Some(s) = self.sockets.get(&socket) else {
            return Vec::new();
        };
        let identity = s.identity.clone();
        let workspace_id = identity.workspace_id.clone();
        let writer = identity.participant_id().to_owned();
        let key = event_key(&event).to_owned();
        // A resend is answered as its first write was, whatever changed since.
        match self.log.find_key(&workspace_id, &writer, &key) {
            Ok(Some(seq)) => return ack(socket, key, seq, true),
            Ok(None) => {}
            Err(e) => return refuse(socket, ErrorCode::Internal, e.to_string(), Some(key)),
        }
        let after = match self.check(&identity, &event) {
            Ok(after) => after,
            Err((code, message)) => return refuse(socket, code, message, Some(key)),
        };
        let make = |seq: Seq| entry_of(&identity, &event, &after, seq, now);
        // Refused before it is written: an event whose frame, at the widest seq, is over what
        // the port may send could be acked but never reach a subscriber.
        let size = json_len(&ServerFrame::Events(ServerFrameEvents {
            events: vec![make(Seq::MAX).event],
        }));
        if size > self.config.max_frame_bytes {
            let message = format!(
                "the event would travel as a frame of up to {size} bytes, over the {}-byte limit of a frame",
                self.config.max_frame_bytes
            );
            return refuse(socket, ErrorCode::InvalidEvent, message, Some(key));
        }
        let mut written = None;
        let mut record = |seq: Seq| {
            let entry = make(seq);
            written = Some(entry.clone());
            entry
        };
        let outcome = self.log.write(&workspace_id, &writer, &key, &mut record);
        let seq = match self.noted(outcome) {
            Ok(Written::New(seq)) => seq,
            // Written by another hub on the same store between the look-up and the write.
            Ok(Written::Duplicate(seq)) => return ack(socket, key, seq, true),
            // Not acked (a full disk, say: the error names the cause): the writer resends
            // under the same key, and it is tried again then.
            Err(e) => return refuse(socket, ErrorCode::Internal, e.to_string(), Some(key)),
        };
        let Some(entry) = written else {
            return ack(socket, key, seq, false);
        };
        let mut out = ack(socket, key.clone(), seq, false);
        self.apply_after(&workspace_id, &identity, after, seq, key, socket, &mut out);
        // Live events are always single event frames, to live subscriptions only: a replay
        // under way reaches this event in the log.
        for (id, s) in &self.sockets {
            if s.identity.workspace_id == workspace_id
                && s.protocol.is_some()
                && s.hears_live(&entry)
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

    /// A log write's answer, and the log's health: the first failure of an episode (a full
    /// disk, say) is logged with its error, and the first success after it, so an operator
    /// reads one line per episode, not one per frame. Each write is tried, so writes resume by
    /// themselves once the log takes them.
    pub(super) fn noted<T>(&mut self, result: Result<T, LogError>) -> Result<T, LogError> {
        match &result {
            Ok(_) => {
                if std::mem::take(&mut self.log_failing) {
                    #[cfg(feature = "tracing")]
                    tracing::info!("the event log takes writes again");
                }
            }
            Err(_e) => {
                if !std::mem::replace(&mut self.log_failing, true) {
                    #[cfg(feature = "tracing")]
                    tracing::warn!(
                        error = %_e,
                        "the event log cannot write: writes are refused (not acked) until it can, reads go on"
                    );
                }
            }
        }
        result
    }

    /// Who may write `event` and whether what it names stands.
    fn check(&self, identity: &Identity, event: &ClientEvent) -> Result<After, Refusal> {
        let workspace_id = identity.workspace_id.as_str();
        let harness = || {
            identity.harness_id().ok_or_else(|| {
                let message = format!("only a harness writes {}", event.tag());
                (ErrorCode::Forbidden, message)
            })
        };
        let run_in = |space_id: &str| {
            self.runs
                .get(&(workspace_id.to_owned(), space_id.to_owned()))
        };
        match event {
            ClientEvent::MessagePost(post) => {
                let run = run_in(&post.space_id);
                match (&post.run_id, run) {
                    (Some(named), Some(run)) if *named == run.run_id => Ok(After::Receipt {
                        run_id: run.run_id.clone(),
                        outcome: ReceiptOutcome::Steered,
                    }),
                    (Some(named), _) => Err((
                        ErrorCode::NotFound,
                        format!("no run {named} is under way in space {}", post.space_id),
                    )),
                    (None, Some(run)) => Ok(After::Receipt {
                        run_id: run.run_id.clone(),
                        outcome: ReceiptOutcome::Queued,
                    }),
                    (None, None) => Ok(After::Nothing),
                }
            }
            ClientEvent::RunStart(start) => {
                harness()?;
                if let Some(run) = run_in(&start.space_id) {
                    let message = format!(
                        "run {} is under way in space {}: one run at a time",
                        run.run_id, start.space_id
                    );
                    return Err((ErrorCode::InvalidEvent, message));
                }
                Ok(After::RunStarted {
                    space_id: start.space_id.clone(),
                })
            }
            ClientEvent::RunFinish(finish) => {
                let harness_id = harness()?;
                let found = self
                    .runs
                    .iter()
                    .find(|((w, _), run)| w == workspace_id && run.run_id == finish.run_id);
                match found {
                    Some((_, run)) if run.harness_id != harness_id => Err((
                        ErrorCode::Forbidden,
                        format!("run {} is {}'s", finish.run_id, run.harness_id),
                    )),
                    Some(((_, space_id), _)) => Ok(After::RunFinished {
                        space_id: space_id.clone(),
                    }),
                    None => Err((
                        ErrorCode::NotFound,
                        format!("no run {} is under way", finish.run_id),
                    )),
                }
            }
            ClientEvent::ContextCopy(copy) => {
                self.answer(workspace_id, harness()?, &copy.edit_id, false)
            }
            ClientEvent::ContextRefuse(refusal) => {
                self.answer(workspace_id, harness()?, &refusal.edit_id, false)
            }
            ClientEvent::AgentCopy(copy) => {
                let started = copy.compaction == Some(crate::connect::Compaction::Started);
                self.answer(workspace_id, harness()?, &copy.change_id, started)
            }
        }
    }

    /// An answer names a change this harness was sent and has not answered yet.
    fn answer(
        &self,
        workspace_id: &str,
        harness_id: &str,
        id: &str,
        keep: bool,
    ) -> Result<After, Refusal> {
        match self.pending.get(&(workspace_id.to_owned(), id.to_owned())) {
            Some(Pending { harness_id: h, .. }) if h == harness_id => Ok(After::Answered {
                id: id.to_owned(),
                keep,
            }),
            Some(_) => Err((
                ErrorCode::Forbidden,
                format!("{id} was sent to another harness"),
            )),
            None => Err((
                ErrorCode::NotFound,
                format!("{id} names no change or edit this harness was sent and has not answered"),
            )),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_after(
        &mut self,
        workspace_id: &str,
        identity: &Identity,
        after: After,
        seq: Seq,
        key: String,
        socket: SocketId,
        out: &mut Vec<Action>,
    ) {
        match after {
            After::Nothing => {}
            After::Receipt { run_id, outcome } => out.push(Action::Send {
                to: socket,
                frame: ServerFrame::Receipt(Receipt::new(key, run_id, outcome)),
            }),
            After::RunStarted { space_id } => {
                let run = Run {
                    run_id: run_id(seq),
                    harness_id: identity.participant_id().to_owned(),
                };
                self.runs_mut()
                    .insert((workspace_id.to_owned(), space_id), run);
            }
            After::RunFinished { space_id } => {
                self.runs_mut().remove(&(workspace_id.to_owned(), space_id));
            }
            After::Answered { id, keep } => {
                if !keep {
                    self.pending_mut().remove(&(workspace_id.to_owned(), id));
                }
            }
        }
    }
}

use super::Action;

fn ack(socket: SocketId, key: String, seq: Seq, duplicate: bool) -> Vec<Action> {
    send(socket, ServerFrame::Ack(Ack::new(key, seq, duplicate)))
}

/// A run's id: the seq of its `run.started`.
fn run_id(seq: Seq) -> String {
    format!("run_{seq}")
}

/// The writer's own key of an event.
pub(super) fn event_key(event: &ClientEvent) -> &str {
    match event {
        ClientEvent::MessagePost(e) => &e.idempotency_key,
        ClientEvent::RunStart(e) => &e.idempotency_key,
        ClientEvent::RunFinish(e) => &e.idempotency_key,
        ClientEvent::ContextCopy(e) => &e.idempotency_key,
        ClientEvent::ContextRefuse(e) => &e.idempotency_key,
        ClientEvent::AgentCopy(e) => &e.idempotency_key,
    }
}

/// The server's event for a client's, at `seq`, with the envelope filled in.
fn entry_of(
    identity: &Identity,
    event: &ClientEvent,
    after: &After,
    seq: Seq,
    now: Millis,
) -> LogEntry {
    let v = Some(1);
    let id = Some(format!("evt_{seq}"));
    let ts = Some(now.max(0));
    let workspace_id = Some(identity.workspace_id.clone());
    let actor = Some(identity.participant_id().to_owned());
    let (space_id, event) = match event {
        ClientEvent::MessagePost(post) => {
            let run_id = match after {
                After::Receipt {
                    run_id,
                    outcome: ReceiptOutcome::Steered,
                } => Some(run_id.clone()),
                _ => None,
            };
            (
                Some(post.space_id.clone()),
                ServerEvent::MessageNew(ServerEventMessageNew {
                    seq,
                    v,
                    id,
                    ts,
                    workspace_id,
                    actor,
                    space_id: Some(post.space_id.clone()),
                    run_id,
                    message_id: format!("msg_{seq}"),
                    from: identity.participant(),
                    text: post.text.clone(),
                    idempotency_key: Some(post.idempotency_key.clone()),
                }),
            )
        }
        ClientEvent::RunStart(start) => (
            Some(start.space_id.clone()),
            ServerEvent::RunStarted(ServerEventRunStarted {
                seq,
                v,
                id,
                ts,
                workspace_id,
                actor,
                space_id: start.space_id.clone(),
                run_id: run_id(seq),
                idempotency_key: Some(start.idempotency_key.clone()),
            }),
        ),
        ClientEvent::RunFinish(finish) => {
            let space_id = match after {
                After::RunFinished { space_id } => space_id.clone(),
                _ => String::new(),
            };
            (
                Some(space_id.clone()),
                ServerEvent::RunFinished(ServerEventRunFinished {
                    seq,
                    v,
                    id,
                    ts,
                    workspace_id,
                    actor,
                    space_id,
                    run_id: finish.run_id.clone(),
                    idempotency_key: Some(finish.idempotency_key.clone()),
                }),
            )
        }
        ClientEvent::ContextCopy(copy) => (
            None,
            ServerEvent::ContextCopied(ServerEventContextCopied {
                seq,
                v,
                id,
                ts,
                workspace_id,
                actor,
                edit_id: copy.edit_id.clone(),
                agent_id: copy.agent_id.clone(),
                name: copy.name.clone(),
                text: copy.text.clone(),
                hash: copy.hash.clone(),
                idempotency_key: Some(copy.idempotency_key.clone()),
            }),
        ),
        ClientEvent::ContextRefuse(refusal) => (
            None,
            ServerEvent::ContextRefused(ServerEventContextRefused {
                seq,
                v,
                id,
                ts,
                workspace_id,
                actor,
                edit_id: refusal.edit_id.clone(),
                reason: refusal.reason.clone(),
                idempotency_key: Some(refusal.idempotency_key.clone()),
            }),
        ),
        ClientEvent::AgentCopy(copy) => (
            None,
            ServerEvent::AgentCopied(ServerEventAgentCopied {
                seq,
                v,
                id,
                ts,
                workspace_id,
                actor,
                change_id: copy.change_id.clone(),
                agent_id: copy.agent_id.clone(),
                model: copy.model.clone(),
                effort: copy.effort.clone(),
                heartbeat: copy.heartbeat.clone(),
                compact_at: copy.compact_at,
                compaction: copy.compaction,
                idempotency_key: Some(copy.idempotency_key.clone()),
            }),
        ),
    };
    LogEntry {
        seq,
        space_id,
        event,
    }
}
