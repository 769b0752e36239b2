//! Host machinery: the [`Hub`] that knows every chat and every connected client, and
//! [`serve`], the loop that runs one connection over any [`FramePort`].
//!
//! The hub keeps, per chat, the thread (through the same reducer the client uses), a `seq`
//! that grows with every chat.event, a bounded log of the latest events, the bookmarks and the
//! visuals. It routes what a host publishes as the spec says: chat.status to every client;
//! chat.event, chat.bookmarks, chat.visuals and chat.subagentChanged only to the clients
//! attached to that chat; usage.changed only to clients that called usage.subscribe;
//! accounts.changed and usage.limitsChanged to every client.
//!
//! Attach and replay: [`Hub::attach`] answers a client that sends `since` with `resumed` and
//! every later event in order when the log still holds them all, and with a fresh snapshot
//! otherwise. The events go out after the attach reply: the hub holds a client's frames while
//! one of its attaches runs and [`serve`] releases them once the reply is sent, so a client
//! never sees a chat.event before the attach that makes it meaningful. Other requests run
//! concurrently and hold nothing.

use super::thread::{Thread, history_index, is_pending};
use super::{
    AttachResult, Bookmark, ChatAttachPayload, ChatEvent, ChatEventEvent, ChatHistoryPayload,
    ChatHistoryResult, ChatInfo, ChatItem, ChatStatusEvent, ErrorCode, HistoryPosition, Seq,
    Visual, WireError, events,
};
use crate::port::{FramePort, FrameReceiver, Incoming, Outgoing};
use crate::wire::{Event as _, Request as _};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;

/// A connected client, as the hub knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientId(u64);

/// How much the hub keeps.
#[derive(Clone, Debug)]
pub struct HubConfig {
    /// Events kept per chat for replay; an older `since` gets a snapshot.
    pub log_capacity: usize,
    /// Items in an attach snapshot when the client gives no `historyLimit`.
    pub default_history_limit: usize,
    /// History cursors remembered; an older one is refused with `history-expired`.
    pub cursor_capacity: usize,
}

impl Default for HubConfig {
    fn default() -> Self {
        HubConfig {
            log_capacity: 1000,
            default_history_limit: 50,
            cursor_capacity: 4096,
        }
    }
}

/// Every chat and every connected client.
pub struct Hub {
    config: HubConfig,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next_client: u64,
    next_cursor: u64,
    clients: HashMap<ClientId, Client>,
    chats: BTreeMap<String, Chat>,
    /// Opaque cursor -> (chat, index of the first item after the page it starts).
    cursors: HashMap<String, (String, usize)>,
    cursor_order: VecDeque<String>,
}

struct Client {
    out: mpsc::UnboundedSender<Outgoing>,
    attached: HashSet<String>,
    usage: bool,
    /// How many of the client's attaches are in flight; frames wait in `held` until none is.
    holds: usize,
    held: Vec<Outgoing>,
}

impl Client {
    /// Sends a frame, or keeps it while an attach of this client is in flight.
    fn deliver(&mut self, frame: Outgoing) {
        if self.holds > 0 {
            self.held.push(frame);
        } else {
            let _ = self.out.send(frame);
        }
    }
}

struct Chat {
    thread: Thread,
    seq: Seq,
    log: VecDeque<(Seq, ChatEvent)>,
    bookmarks: Vec<Bookmark>,
    visuals: Vec<Visual>,
}

impl Hub {
    pub fn new(config: HubConfig) -> Arc<Hub> {
        Arc::new(Hub {
            config,
            state: Mutex::new(State::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a client; frames for it arrive on the receiver.
    pub fn connect(&self) -> (ClientId, mpsc::UnboundedReceiver<Outgoing>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut s = self.lock();
        s.next_client += 1;
        let id = ClientId(s.next_client);
        s.clients.insert(
            id,
            Client {
                out: tx,
                attached: HashSet::new(),
                usage: false,
                holds: 0,
                held: Vec::new(),
            },
        );
        (id, rx)
    }

    /// Forgets a client.
    pub fn disconnect(&self, client: ClientId) {
        self.lock().clients.remove(&client);
    }

    /// Starts holding a client's frames (while one of its attaches runs). Holds nest: each
    /// needs its own [`release`](Self::release).
    pub fn hold(&self, client: ClientId) {
        if let Some(c) = self.lock().clients.get_mut(&client) {
            c.holds += 1;
        }
    }

    /// Ends one hold; when none is left, sends the frames held for the client, in order.
    pub fn release(&self, client: ClientId) {
        if let Some(c) = self.lock().clients.get_mut(&client) {
            c.holds = c.holds.saturating_sub(1);
            if c.holds == 0 {
                for frame in std::mem::take(&mut c.held) {
                    let _ = c.out.send(frame);
                }
            }
        }
    }

    /// How much this hub keeps.
    pub fn config(&self) -> &HubConfig {
        &self.config
    }

    /// The chat's last seq.
    pub fn seq(&self, chat_id: &str) -> Option<Seq> {
        self.lock().chats.get(chat_id).map(|c| c.seq)
    }

    /// A new chat with this info and an empty thread; every client hears chat.status.
    pub fn create_chat(&self, info: ChatInfo) {
        let mut s = self.lock();
        let chat_id = info.chat_id.clone();
        s.chats.insert(
            chat_id.clone(),
            Chat {
                thread: Thread::from_snapshot(info.clone(), Vec::new()),
                seq: 0,
                log: VecDeque::new(),
                bookmarks: Vec::new(),
                visuals: Vec::new(),
            },
        );
        broadcast(
            &mut s,
            |_| true,
            events::ChatStatus::NAME,
            &ChatStatusEvent {
                chat_id,
                info: Box::new(info),
            },
        );
    }

    /// Forgets a chat; its attached clients are detached.
    pub fn remove_chat(&self, chat_id: &str) {
        let mut s = self.lock();
        s.chats.remove(chat_id);
        for c in s.clients.values_mut() {
            c.attached.remove(chat_id);
        }
    }

    /// Every chat's info, in id order.
    pub fn chats(&self) -> Vec<ChatInfo> {
        self.lock()
            .chats
            .values()
            .filter_map(|c| c.thread.info.clone())
            .collect()
    }

    /// A chat's info.
    pub fn info(&self, chat_id: &str) -> Option<ChatInfo> {
        self.lock()
            .chats
            .get(chat_id)
            .and_then(|c| c.thread.info.clone())
    }

    /// A copy of a chat's thread.
    pub fn thread(&self, chat_id: &str) -> Option<Thread> {
        self.lock().chats.get(chat_id).map(|c| c.thread.clone())
    }

    /// Applies an event to a chat, logs it under the next seq and sends it as chat.event to
    /// every attached client. An `info` or `reset` also goes out as chat.status to every
    /// client. Answers the event's seq.
    pub fn publish(&self, chat_id: &str, event: ChatEvent) -> Result<Seq, WireError> {
        let mut s = self.lock();
        let capacity = self.config.log_capacity;
        let chat = s
            .chats
            .get_mut(chat_id)
            .ok_or_else(|| WireError::unknown_chat(chat_id))?;
        chat.thread.apply(&event);
        chat.seq += 1;
        let seq = chat.seq;
        chat.log.push_back((seq, event.clone()));
        while chat.log.len() > capacity {
            chat.log.pop_front();
        }
        let status = matches!(event, ChatEvent::Info(_) | ChatEvent::Reset(_))
            .then(|| chat.thread.info.clone())
            .flatten();
        let frame = ChatEventEvent {
            chat_id: chat_id.to_owned(),
            event,
            seq: Some(seq),
        };
        broadcast(
            &mut s,
            |c| c.attached.contains(chat_id),
            events::ChatEvent::NAME,
            &frame,
        );
        if let Some(info) = status {
            broadcast(
                &mut s,
                |_| true,
                events::ChatStatus::NAME,
                &ChatStatusEvent {
                    chat_id: chat_id.to_owned(),
                    info: Box::new(info),
                },
            );
        }
        Ok(seq)
    }

    /// Replaces a chat's info (an `info` event) and tells every client.
    pub fn set_info(&self, info: ChatInfo) -> Result<Seq, WireError> {
        let chat_id = info.chat_id.clone();
        self.publish(
            &chat_id,
            ChatEvent::Info(super::ChatEventInfo {
                info: Box::new(info),
            }),
        )
    }

    /// Replaces a chat's bookmarks; attached clients hear chat.bookmarks.
    pub fn set_bookmarks(&self, chat_id: &str, bookmarks: Vec<Bookmark>) -> Result<(), WireError> {
        let mut s = self.lock();
        let chat = s
            .chats
            .get_mut(chat_id)
            .ok_or_else(|| WireError::unknown_chat(chat_id))?;
        chat.bookmarks = bookmarks.clone();
        let payload = super::ChatBookmarksEvent {
            chat_id: chat_id.to_owned(),
            bookmarks,
        };
        broadcast(
            &mut s,
            |c| c.attached.contains(chat_id),
            events::ChatBookmarks::NAME,
            &payload,
        );
        Ok(())
    }

    /// A chat's bookmarks.
    pub fn bookmarks(&self, chat_id: &str) -> Result<Vec<Bookmark>, WireError> {
        self.lock()
            .chats
            .get(chat_id)
            .map(|c| c.bookmarks.clone())
            .ok_or_else(|| WireError::unknown_chat(chat_id))
    }

    /// Replaces a chat's visuals; attached clients hear chat.visuals.
    pub fn set_visuals(&self, chat_id: &str, visuals: Vec<Visual>) -> Result<(), WireError> {
        let mut s = self.lock();
        let chat = s
            .chats
            .get_mut(chat_id)
            .ok_or_else(|| WireError::unknown_chat(chat_id))?;
        chat.visuals = visuals.clone();
        let payload = super::ChatVisualsEvent {
            chat_id: chat_id.to_owned(),
            visuals,
        };
        broadcast(
            &mut s,
            |c| c.attached.contains(chat_id),
            events::ChatVisuals::NAME,
            &payload,
        );
        Ok(())
    }

    /// A chat's visuals.
    pub fn visuals(&self, chat_id: &str) -> Result<Vec<Visual>, WireError> {
        self.lock()
            .chats
            .get(chat_id)
            .map(|c| c.visuals.clone())
            .ok_or_else(|| WireError::unknown_chat(chat_id))
    }

    /// Tells a chat's attached clients to ask for the watched subagent page again.
    pub fn subagent_changed(&self, chat_id: &str, tool_use_id: &str) {
        let payload = super::ChatSubagentChangedEvent {
            chat_id: chat_id.to_owned(),
            tool_use_id: tool_use_id.to_owned(),
        };
        broadcast(
            &mut self.lock(),
            |c| c.attached.contains(chat_id),
            events::ChatSubagentChanged::NAME,
            &payload,
        );
    }

    /// An event of any table (an app's own, say) to every client.
    pub fn broadcast<P: Serialize>(&self, event: &str, payload: &P) {
        broadcast(&mut self.lock(), |_| true, event, payload);
    }

    /// The whole account snapshot, to every client.
    pub fn accounts_changed(&self, snapshot: &super::AccountSnapshot) {
        broadcast(
            &mut self.lock(),
            |_| true,
            events::AccountsChanged::NAME,
            snapshot,
        );
    }

    /// The whole plan limit snapshot, to every client.
    pub fn limits_changed(&self, limits: &super::PlanLimits) {
        broadcast(
            &mut self.lock(),
            |_| true,
            events::UsageLimitsChanged::NAME,
            limits,
        );
    }

    /// usage.changed, to the clients that called usage.subscribe.
    pub fn usage_changed(&self, scanned_at: super::Timestamp) {
        broadcast(
            &mut self.lock(),
            |c| c.usage,
            events::UsageChanged::NAME,
            &super::UsageChangedEvent { scanned_at },
        );
    }

    /// usage.subscribe (`true`) and usage.unsubscribe (`false`) for a client.
    pub fn subscribe_usage(&self, client: ClientId, on: bool) {
        if let Some(c) = self.lock().clients.get_mut(&client) {
            c.usage = on;
        }
    }

    /// chat.attach for a client: registers it as attached and answers a snapshot (with
    /// `resumed: false` when `since` was given), or, when `since` is given and the log holds
    /// every event after it, `resumed` with an empty `items`, queueing those events (held
    /// until the reply is out).
    pub fn attach(
        &self,
        client: ClientId,
        payload: &ChatAttachPayload,
    ) -> Result<AttachResult, WireError> {
        let mut s = self.lock();
        let State { clients, chats, .. } = &mut *s;
        let chat_id = payload.chat_id.as_str();
        let chat = chats
            .get(chat_id)
            .ok_or_else(|| WireError::unknown_chat(chat_id))?;
        let info = chat
            .thread
            .info
            .clone()
            .ok_or_else(|| WireError::unknown_chat(chat_id))?;
        let c = clients
            .get_mut(&client)
            .ok_or_else(|| WireError::new(ErrorCode::Internal, "client is gone"))?;
        c.attached.insert(chat_id.to_owned());
        if let Some(since) = payload.since
            && let Some(missed) = replay_after(chat, since)
        {
            for (seq, event) in missed {
                let frame = ChatEventEvent {
                    chat_id: chat_id.to_owned(),
                    event,
                    seq: Some(seq),
                };
                c.deliver(Outgoing::Text(super::event_frame(
                    events::ChatEvent::NAME,
                    &frame,
                )));
            }
            return Ok(AttachResult {
                info: Box::new(info),
                items: Vec::new(),
                history: None,
                pending: None,
                bookmarks: Some(chat.bookmarks.clone()),
                visuals: Some(chat.visuals.clone()),
                seq: Some(chat.seq),
                resumed: Some(true),
            });
        }
        let limit = payload
            .history_limit
            .map_or(self.config.default_history_limit, |l| l as usize);
        let end = chat.thread.items.len();
        let start = end.saturating_sub(limit);
        let items = chat.thread.items[start..].to_vec();
        let pending: Vec<ChatItem> = chat
            .thread
            .items
            .iter()
            .filter(|i| is_pending(i))
            .cloned()
            .collect();
        let (bookmarks, visuals, seq) = (chat.bookmarks.clone(), chat.visuals.clone(), chat.seq);
        let history = Some(position(
            &mut s,
            self.config.cursor_capacity,
            chat_id,
            start,
            &items,
        ));
        Ok(AttachResult {
            info: Box::new(info),
            items,
            history,
            pending: Some(pending),
            bookmarks: Some(bookmarks),
            visuals: Some(visuals),
            seq: Some(seq),
            // Said outright when `since` was sent: an empty `items` alone would read as resumed.
            resumed: payload.since.map(|_| false),
        })
    }

    /// chat.detach for a client.
    pub fn detach(&self, client: ClientId, chat_id: &str) {
        if let Some(c) = self.lock().clients.get_mut(&client) {
            c.attached.remove(chat_id);
        }
    }

    /// Whether a client is attached to a chat.
    pub fn is_attached(&self, client: ClientId, chat_id: &str) -> bool {
        self.lock()
            .clients
            .get(&client)
            .is_some_and(|c| c.attached.contains(chat_id))
    }

    /// chat.history: the page before an opaque cursor, `history-expired` when the cursor is no
    /// longer known.
    pub fn history(&self, payload: &ChatHistoryPayload) -> Result<ChatHistoryResult, WireError> {
        let mut s = self.lock();
        let Some((chat_id, end)) = s.cursors.get(&payload.cursor).cloned() else {
            return Err(WireError::new(
                ErrorCode::HistoryExpired,
                "this cursor is no longer known; attach again",
            ));
        };
        if chat_id != payload.chat_id {
            return Err(WireError::new(
                ErrorCode::HistoryExpired,
                "this cursor belongs to another chat; attach again",
            ));
        }
        let chat = s
            .chats
            .get(&chat_id)
            .ok_or_else(|| WireError::unknown_chat(&chat_id))?;
        let end = end.min(chat.thread.items.len());
        let limit = payload
            .limit
            .map_or(self.config.default_history_limit, |l| l as usize);
        let start = end.saturating_sub(limit);
        let items = chat.thread.items[start..end].to_vec();
        let history = position(&mut s, self.config.cursor_capacity, &chat_id, start, &items);
        Ok(ChatHistoryResult { items, history })
    }
}

/// Every logged event after `since`, when the log still holds them all; `None` otherwise.
fn replay_after(chat: &Chat, since: Seq) -> Option<Vec<(Seq, ChatEvent)>> {
    if since > chat.seq || since < 0 {
        return None;
    }
    let oldest = chat.log.front().map_or(chat.seq + 1, |(seq, _)| *seq);
    if since + 1 < oldest {
        return None;
    }
    Some(
        chat.log
            .iter()
            .filter(|(seq, _)| *seq > since)
            .cloned()
            .collect(),
    )
}

/// Where a page starts, with a new cursor for the page before it (null at the thread's start).
fn position(
    s: &mut State,
    capacity: usize,
    chat_id: &str,
    start: usize,
    items: &[ChatItem],
) -> HistoryPosition {
    let first = items
        .first()
        .and_then(history_index)
        .unwrap_or(start as i64);
    let cursor = (start > 0).then(|| {
        s.next_cursor += 1;
        let cursor = format!("h{}.{}", s.next_cursor, start);
        s.cursors
            .insert(cursor.clone(), (chat_id.to_owned(), start));
        s.cursor_order.push_back(cursor.clone());
        while s.cursor_order.len() > capacity {
            if let Some(old) = s.cursor_order.pop_front() {
                s.cursors.remove(&old);
            }
        }
        cursor
    });
    HistoryPosition {
        start: first,
        cursor,
    }
}

/// Sends an event frame to every client `to` picks (held while an attach of theirs runs).
fn broadcast<P: Serialize>(s: &mut State, to: impl Fn(&Client) -> bool, event: &str, payload: &P) {
    let text = super::event_frame(event, payload);
    for c in s.clients.values_mut().filter(|c| to(c)) {
        c.deliver(Outgoing::Text(text.clone()));
    }
}

/// Runs one connection until the port ends. Requests run concurrently, so a slow one (an
/// accounts.refresh that waits on every CLI) holds up neither the others nor the events; each
/// reply goes out as soon as it is ready, with the request's id. While a chat.attach runs, the
/// client's event frames are held and go out after its reply. `host` is the dispatcher for
/// this connection (it usually holds the hub and the client id).
pub async fn serve<D: super::Dispatch, P: FramePort + ?Sized>(
    hub: &Hub,
    client: ClientId,
    mut outgoing: mpsc::UnboundedReceiver<Outgoing>,
    port: &P,
    host: &D,
) {
    let mut incoming = FrameReceiver::new(port);
    let mut running = FuturesUnordered::new();
    loop {
        tokio::select! {
            frame = incoming.recv() => {
                let Some(frame) = frame else { break };
                running.push(answer(hub, client, host, frame));
            }
            Some((reply, held)) = running.next(), if !running.is_empty() => {
                let sent = port.send(Outgoing::Text(reply));
                if held {
                    hub.release(client);
                }
                if sent.is_err() {
                    break;
                }
            }
            frame = outgoing.recv() => {
                let Some(frame) = frame else { break };
                if port.send(frame).is_err() {
                    break;
                }
            }
        }
    }
    hub.disconnect(client);
}

/// The reply to one incoming frame, and whether the client's frames were held for it (a
/// chat.attach). An unreadable frame is answered with a null id.
async fn answer<D: super::Dispatch>(
    hub: &Hub,
    client: ClientId,
    host: &D,
    frame: Incoming,
) -> (String, bool) {
    let text = match &frame {
        Incoming::Text(text) => std::borrow::Cow::Borrowed(text.as_str()),
        Incoming::Value(value) => std::borrow::Cow::Owned(value.to_string()),
        Incoming::TooLarge(e) => {
            return (
                super::error_frame(
                    None,
                    &WireError::new(ErrorCode::UnreadableFrame, e.to_string()),
                ),
                false,
            );
        }
    };
    let request = match super::parse_request_typed::<D::Payload>(&text) {
        Ok(request) => request,
        Err(refused) => return (super::frames::refusal_frame(&refused), false),
    };
    let held = request.r#type == super::requests::ChatAttach::METHOD;
    if held {
        hub.hold(client);
    }
    let reply = match host.dispatch_payload(request.payload).await {
        Ok(result) => super::reply_frame(&request.id, result),
        Err(error) => super::error_frame(Some(&request.id), &error),
    };
    (reply, held)
}
