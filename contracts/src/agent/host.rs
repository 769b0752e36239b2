//! Host machinery: the [`Hub`] that knows every chat and every connected client, and
//! [`serve`], the loop that runs one connection over any [`FramePort`].
//!
//! The hub keeps, per chat, its info, its live items (those that wait on a person or still
//! stream), a `seq` that grows with every chat.event, a window of the latest events bounded by
//! count and by bytes (none for an idle chat), the bookmarks and the visuals. The thread itself
//! stays in the [`Store`]: an attach, a history page and a replay read what they need from it
//! (see "Memory per chat"). It routes what a host publishes as the spec says: chat.status
//! to every client; chat.event, chat.bookmarks, chat.visuals and chat.subagentChanged only to
//! the clients attached to that chat; usage.changed only to clients that called
//! usage.subscribe; accounts.changed and usage.limitsChanged to every client.
//!
//! # Durable, restart-safe
//!
//! Every change goes to a [`Store`] under the hub's lock before anything is sent for it
//! ([`Hub::open`]; [`Hub::new`] uses a [`MemoryStore`]). On open the hub rebuilds each thread
//! from the stored events, its seqs continue, and a reply left streaming by a crash is closed
//! (an `item` event with `streaming: false`). Chat ids and the ids a host makes with
//! [`Hub::life`] never repeat across restarts.
//!
//! A chat's seqs carry its epoch: the first seq is `epoch << 32` and each chat.event adds one.
//! Epochs come from the store's serial, so two chats (or two lives of a host that lost its
//! store) do not share one. A `since` of another epoch, above the chat's seq, or older than the
//! log is answered with a snapshot (`resumed: false`), never `resumed`.
//!
//! # Frames never too large
//!
//! The size limit is [`HubConfig::limits`], the same [`Limits`] the ports get. An event whose
//! chat.event frame (or chat.status frame) could not be sent within the limit, less
//! [`ENVELOPE_RESERVE`], is refused where it is made: [`Hub::publish`] answers
//! `frame-too-large` naming the limit, and nothing is stored or sent. Attach snapshots and
//! history pages are cut to fit: fewer items than asked, with `history` set so the client pages
//! back for the rest. [`serve`] answers a request frame over the limit with `frame-too-large`
//! before the port closes, and a reply over the limit with `frame-too-large` instead.
//!
//! # Memory per client
//!
//! Frames for a client go through [`serve`] into its port at once; the port's queue is bounded
//! by bytes (`Limits::max_queued_bytes`) and closes a client that falls behind as a slow
//! consumer (it resumes with `since`). chat.status is whole state, so it is sent coalesced per
//! chat: a newer one replaces the one still waiting. A resumed attach replays at most half the
//! queue bound; a `since` further behind gets a snapshot.
//!
//! # Memory per chat
//!
//! What the hub holds of a chat is bounded whatever its thread's length: the info (bounded by
//! the schema, and by the frame limit), the live items, and the window of recent events
//! ([`HubConfig::window_events`], [`HubConfig::window_bytes`]), dropped when the chat goes idle.
//! An attach reads its page of items from the store ([`Store::items_before`]), a replay the
//! events the window no longer holds ([`Store::events_after`]), so memory does not grow with
//! the chats' text. chat.list answers a page of infos that fits a frame ([`Hub::chat_page`]).
//!
//! # Attach and replay
//!
//! [`Hub::attach`] answers a client that sends `since` with `resumed` and every later event in
//! order when the store still holds them all and they are few enough to replay
//! ([`HubConfig::log_capacity`], [`HubConfig::log_bytes`], half the queue bound), and with a
//! fresh snapshot otherwise. The events go
//! out after the attach reply: the hub holds a client's frames while one of its attaches runs
//! and [`serve`] releases them once the reply is sent, so a client never sees a chat.event
//! before the attach that makes it meaningful. A client attached already gets no event twice:
//! the replay starts after the last seq already queued for it, what was queued before the
//! attach began goes out before its reply, and a snapshot drops the held events it holds, so
//! no event at or below a snapshot's seq follows it. Other requests run concurrently and hold
//! nothing.
//!
//! # Logs
//!
//! [`serve`] logs (with `tracing`) each request refused or failed with its type and code, the
//! message only of an `internal` one, and never a payload. A store that fails (a full disk) is
//! logged once per episode, when it begins and when it ends; the requests it refuses meanwhile
//! without the message.
//!
//! # A full disk
//!
//! A change the store refuses is answered `internal` with the store's error (which names the
//! cause) and changes nothing: nothing is applied or sent. Reads go on (what they read of the
//! store writes nothing). Each
//! change tries the store again, so changes are taken again by themselves once it can; a hub
//! opens on a store that cannot write (serving reads), and [`Hub::close_interrupted`] closes
//! the replies a restart cut short once it can.
//!
//! History cursors name the chat's last reset, a position and a tag of the item there (a hash of
//! its id), so they need no table and survive a restart. A cursor dies with a reset (chat.clear),
//! and when its position no longer holds its item (the store numbered the thread again, or an
//! item was placed before it where positions are indices): then it is `history-expired`, never
//! the page before another item.

use super::store::{MemoryStore, Store, StoreError, StoredChat, is_live};
use super::thread::{Thread, history_index, is_pending, item_id};
use super::{
    AttachResult, Bookmark, ChatAttachPayload, ChatEvent, ChatEventEvent, ChatEventItem,
    ChatHistoryPayload, ChatHistoryResult, ChatInfo, ChatItem, ChatListPayload, ChatListResult,
    ChatState, ChatStatusEvent, ErrorCode, HistoryPosition, Seq, Visual, WireError, events,
};
use crate::port::{FramePort, FrameReceiver, Incoming, Limits, Outgoing, SendError};
use crate::wire::{Event as _, Refused, Request as _, TableError};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;

/// Bytes every page and event leaves free under the size limit for a reply's envelope and its
/// id (a request id longer than about this gets `frame-too-large` for a page cut to fit).
pub const ENVELOPE_RESERVE: usize = 1024;

/// The longest chat id the hub takes, in bytes: a chat.list cursor names a chat by its id.
pub const MAX_CHAT_ID: usize = 200;

/// The bits of a seq below its epoch.
pub const EPOCH_SHIFT: u32 = 32;

/// The largest epoch: seqs stay below 2^53, so JavaScript reads them exactly.
const EPOCH_MAX: u64 = (1 << (53 - EPOCH_SHIFT)) - 1;

/// The epoch a seq carries.
pub fn seq_epoch(seq: Seq) -> i64 {
    seq >> EPOCH_SHIFT
}

/// A connected client, as the hub knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientId(u64);

/// How much the hub keeps and how large its frames may be.
#[derive(Clone, Debug)]
pub struct HubConfig {
    /// The most events a resumed attach replays (read from the store when the window no
    /// longer holds them); a `since` further behind gets a snapshot.
    pub log_capacity: usize,
    /// The most bytes of chat.event frames a resumed attach replays (and never more than half
    /// the queue bound); a `since` further behind gets a snapshot.
    pub log_bytes: usize,
    /// Events of a chat kept in memory while it is not idle, so a client that reconnects soon
    /// is answered without reading the store.
    pub window_events: usize,
    /// Bytes of chat.event frames of a chat kept in memory while it is not idle.
    pub window_bytes: usize,
    /// Items in an attach snapshot when the client gives no `historyLimit`.
    pub default_history_limit: usize,
    /// The frame size limit and the ports' queue bound: give the ports the same value.
    pub limits: Limits,
    /// Events published while the hub is busy (another caller storing) are stored together,
    /// one change for all of them (group commit: one SQLite transaction), each still stored
    /// before it is sent or [`Hub::publish`] answers. Off by default: on SQLite with
    /// `synchronous = NORMAL` a commit is cheap beside the rest of a publish, and grouping
    /// measured no gain in writes and longer waits for readers (`docs/benchmarks.md`).
    pub group_commit: bool,
}

impl Default for HubConfig {
    fn default() -> Self {
        HubConfig {
            log_capacity: 1000,
            log_bytes: 8 * 1024 * 1024,
            window_events: 256,
            window_bytes: 256 * 1024,
            default_history_limit: 50,
            limits: Limits::default(),
            group_commit: false,
        }
    }
}

/// Every chat and every connected client.
pub struct Hub {
    config: HubConfig,
    state: Mutex<State>,
    /// Events published and not yet taken by a holder of the state's lock (group commit).
    inbox: Mutex<Vec<Publishing>>,
}

/// An event waiting in the inbox, and where its answer goes.
struct Publishing {
    chat_id: String,
    event: ChatEvent,
    answer: Arc<Mutex<Option<Result<Seq, WireError>>>>,
}

struct State {
    life: u64,
    next_client: u64,
    clients: HashMap<ClientId, Client>,
    chats: BTreeMap<String, Chat>,
    store: Box<dyn Store>,
    /// The last change the store was given failed: an episode (a full disk, say) logged once.
    store_failing: bool,
    /// The replies and thoughts a restart found streaming and the store has not closed yet
    /// (chat id, item id): closed by [`Hub::close_interrupted`].
    interrupted: Vec<(String, String)>,
}

impl State {
    /// A store call's answer, and the store's health: the first failure of an episode is
    /// logged with its error, and the first success after it; a failure is answered as the
    /// request's error (`internal`, naming the cause). Each change is tried, so changes are
    /// taken again by themselves once the store takes them.
    fn stored<T>(&mut self, result: Result<T, StoreError>) -> Result<T, WireError> {
        match result {
            Ok(value) => {
                if std::mem::take(&mut self.store_failing) {
                    tracing::info!("the store takes changes again");
                }
                Ok(value)
            }
            Err(error) => {
                if !std::mem::replace(&mut self.store_failing, true) {
                    tracing::warn!(
                        error = %error,
                        "the store cannot write: changes are refused until it can, reads go on"
                    );
                }
                Err(WireError::from(error))
            }
        }
    }
}

/// A frame on its way to one client, with the key a newer frame replaces it by.
#[derive(Debug)]
struct ClientFrame {
    text: String,
    key: Option<String>,
    /// The chat and seq of a chat.event frame.
    event: Option<(String, Seq)>,
}

/// The frames the hub has for one client, as [`serve`] takes them.
#[derive(Debug)]
pub struct ClientQueue(mpsc::UnboundedReceiver<ClientFrame>);

struct Client {
    out: mpsc::UnboundedSender<ClientFrame>,
    /// Chats attached, with the last seq queued for this client.
    attached: HashMap<String, Seq>,
    usage: bool,
    /// How many of the client's attaches are in flight; frames wait in `held` until none is.
    holds: usize,
    held: Vec<ClientFrame>,
}

impl Client {
    /// Sends a frame, or keeps it while an attach of this client is in flight.
    fn deliver(&mut self, frame: ClientFrame) {
        if self.holds > 0 {
            if let Some(key) = &frame.key {
                self.held.retain(|held| held.key.as_ref() != Some(key));
            }
            self.held.push(frame);
        } else {
            let _ = self.out.send(frame);
        }
    }
}

struct Chat {
    epoch: i64,
    /// The seq of the last reset, or the chat's first seq: what a cursor is valid for.
    reset_at: Seq,
    info: ChatInfo,
    /// The live items ([`is_live`]), by the reducer, in thread order (no info).
    live: Thread,
    seq: Seq,
    /// The window: the latest chat.event frames, with their seqs, and their bytes; empty while
    /// the chat is idle.
    log: VecDeque<(Seq, String)>,
    log_bytes: usize,
    bookmarks: Vec<Bookmark>,
    visuals: Vec<Visual>,
}

/// Whether an item is a reply or a thought still streaming.
fn streaming(item: &ChatItem) -> bool {
    match item {
        ChatItem::Reply(r) => r.streaming == Some(true),
        ChatItem::Thought(t) => t.streaming == Some(true),
        _ => false,
    }
}

/// Refuses an info over the schema's bounds (a `cwd` of more than 4096 characters, say) with
/// `invalid-payload`, naming the field and the bound: for a host to call on an info made from
/// a request (chat.create), whose fields take longer values on the wire than `ChatInfo` holds.
pub fn check_info(info: &ChatInfo) -> Result<(), WireError> {
    let text = serde_json::to_string(info)
        .map_err(|e| WireError::new(ErrorCode::Internal, e.to_string()))?;
    match crate::wire::from_str::<ChatInfo>(&text) {
        Ok(_) => Ok(()),
        Err(e) => Err(WireError::new(
            ErrorCode::InvalidPayload,
            format!("the chat's info would be over the schema's bounds: {e}"),
        )),
    }
}

/// A read of the store that failed (a row that does not read back): logged, answered
/// `internal`.
fn read_failed(error: StoreError) -> WireError {
    tracing::warn!(error = %error, "a read of the store failed");
    WireError::from(error)
}

/// `unknown-chat`, naming the chat.
fn unknown_chat(chat_id: &str) -> WireError {
    WireError::unknown_chat(format!("no chat is called {chat_id:?}"))
}

/// `frame-too-large` for `what`, of `size` bytes, over `limit`.
fn too_large(what: &str, size: usize, limit: usize) -> WireError {
    WireError::new(
        ErrorCode::FrameTooLarge,
        format!("{what} would be {size} bytes, over the limit of {limit} bytes"),
    )
}

/// The key chat.status frames of one chat are coalesced by.
fn status_key(chat_id: &str) -> String {
    format!("{}\u{0}{chat_id}", events::ChatStatus::NAME)
}

impl Hub {
    /// A hub on a fresh [`MemoryStore`] (its serials start from the clock, so ids differ from
    /// an earlier run's).
    pub fn new(config: HubConfig) -> Arc<Hub> {
        let first = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        Hub::open(config, MemoryStore::starting_at(first))
            .expect("a fresh memory store always loads")
    }

    /// A hub on what `store` holds: every chat as it was, seqs continuing (its thread stays in
    /// the store). A reply or thought left streaming (the host stopped mid-turn) is closed with
    /// an `item` event, stored and numbered like any other; when the store cannot write (a full
    /// disk), the hub opens all the same, serving reads, and [`Hub::close_interrupted`] closes
    /// them once it can.
    pub fn open(config: HubConfig, store: impl Store + 'static) -> Result<Arc<Hub>, StoreError> {
        let mut store: Box<dyn Store> = Box::new(store);
        let loaded = store.load()?;
        let mut chats = BTreeMap::new();
        for stored in loaded.chats {
            chats.insert(stored.chat_id.clone(), Chat::load(stored));
        }
        let interrupted = chats
            .iter()
            .flat_map(|(chat_id, chat)| {
                chat.live
                    .items
                    .iter()
                    .filter(|item| streaming(item))
                    .map(move |item| (chat_id.clone(), item_id(item).to_owned()))
            })
            .collect();
        let hub = Arc::new(Hub {
            inbox: Mutex::new(Vec::new()),
            config,
            state: Mutex::new(State {
                life: loaded.life,
                next_client: 0,
                clients: HashMap::new(),
                chats,
                store,
                store_failing: false,
                interrupted,
            }),
        });
        if let Err(e) = hub.close_interrupted() {
            tracing::warn!(
                error = %e.message,
                "replies a restart cut short stay open until the store takes changes"
            );
        }
        Ok(hub)
    }

    /// Closes every reply and thought a restart found streaming ([`Hub::open`] does, and
    /// again, when the store could not write then, whoever calls this). Each is an `item`
    /// event with `streaming: false`; the ones stored are not closed again. An error: some
    /// are still open.
    pub fn close_interrupted(&self) -> Result<(), WireError> {
        let mut s = self.lock();
        while let Some((chat_id, item_id)) = s.interrupted.first().cloned() {
            let item = s
                .chats
                .get(&chat_id)
                .and_then(|chat| chat.live.item(&item_id))
                .filter(|item| streaming(item))
                .cloned();
            if let Some(mut item) = item {
                match &mut item {
                    ChatItem::Reply(r) => r.streaming = Some(false),
                    ChatItem::Thought(t) => t.streaming = Some(false),
                    _ => {}
                }
                self.publish_locked(&mut s, &chat_id, ChatEvent::Item(ChatEventItem { item }))?;
            }
            s.interrupted.remove(0);
        }
        Ok(())
    }

    /// Whether replies a restart cut short wait to be closed ([`Hub::close_interrupted`]).
    pub fn has_interrupted(&self) -> bool {
        !self.lock().interrupted.is_empty()
    }

    /// Whether the last change the store was given failed (a full disk, say): the hub
    /// refuses changes it cannot store, and serves reads.
    pub fn store_failing(&self) -> bool {
        self.lock().store_failing
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many times the store was opened, this time included: ids a host makes carry it so
    /// they never repeat an earlier life's.
    pub fn life(&self) -> u64 {
        self.lock().life
    }

    /// Registers a client; its frames wait in the answered queue for [`serve`].
    pub fn connect(&self) -> (ClientId, ClientQueue) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut s = self.lock();
        s.next_client += 1;
        let id = ClientId(s.next_client);
        s.clients.insert(
            id,
            Client {
                out: tx,
                attached: HashMap::new(),
                usage: false,
                holds: 0,
                held: Vec::new(),
            },
        );
        (id, ClientQueue(rx))
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

    /// A chat id never given before by this hub's store, across restarts.
    pub fn new_chat_id(&self) -> Result<String, WireError> {
        let mut s = self.lock();
        let serial = s.store.next_serial();
        let serial = s.stored(serial)?;
        Ok(format!("c{serial}"))
    }

    /// A new chat with this info and an empty thread; every client hears chat.status.
    pub fn create_chat(&self, info: ChatInfo) -> Result<(), WireError> {
        let mut s = self.lock();
        let chat_id = info.chat_id.clone();
        if s.chats.contains_key(&chat_id) {
            return Err(WireError::new(
                ErrorCode::Internal,
                format!("a chat is called {chat_id:?} already"),
            ));
        }
        if chat_id.len() > MAX_CHAT_ID {
            return Err(WireError::new(
                ErrorCode::Internal,
                format!(
                    "a chat id is at most {MAX_CHAT_ID} bytes (a chat.list cursor names one); this one is {}",
                    chat_id.len()
                ),
            ));
        }
        let status = ChatStatusEvent::new(chat_id.clone(), info.clone());
        let frame = super::event_frame_checked(events::ChatStatus::NAME, &status)?;
        // Room for a chat.list page's envelope too, so every info fits a page of its own.
        let room = self
            .config
            .limits
            .max_frame_size
            .saturating_sub(ENVELOPE_RESERVE);
        if frame.len() > room {
            return Err(too_large("the chat's chat.status", frame.len(), room));
        }
        let serial = s.store.next_serial();
        let serial = s.stored(serial)?;
        let epoch = (serial % EPOCH_MAX + 1) as i64;
        let created = s.store.create_chat(&chat_id, epoch, &info);
        s.stored(created)?;
        let seq = epoch << EPOCH_SHIFT;
        s.chats.insert(
            chat_id.clone(),
            Chat {
                epoch,
                reset_at: seq,
                info,
                live: Thread::default(),
                seq,
                log: VecDeque::new(),
                log_bytes: 0,
                bookmarks: Vec::new(),
                visuals: Vec::new(),
            },
        );
        send_all(&mut s, |_| true, &frame, Some(status_key(&chat_id)));
        Ok(())
    }

    /// Forgets a chat; its attached clients are detached.
    pub fn remove_chat(&self, chat_id: &str) -> Result<(), WireError> {
        let mut s = self.lock();
        let removed = s.store.remove_chat(chat_id);
        s.stored(removed)?;
        s.chats.remove(chat_id);
        for c in s.clients.values_mut() {
            c.attached.remove(chat_id);
        }
        Ok(())
    }

    /// Every chat's info, in id order (all of them: chat.list answers [`Hub::chat_page`]).
    pub fn chats(&self) -> Vec<ChatInfo> {
        self.lock().chats.values().map(|c| c.info.clone()).collect()
    }

    /// chat.list: the chats after the payload's cursor, in id order, at most its `limit`, as
    /// many as fit a frame; `cursor` set when more follow. Every chat's info fits a page of its
    /// own (chat.status is refused over the limit less [`ENVELOPE_RESERVE`]), so a client that
    /// follows the cursors reads every chat, however many there are. An unknown cursor (its chat
    /// killed meanwhile) reads on from where that chat was.
    pub fn chat_page(&self, payload: &ChatListPayload) -> Result<ChatListResult, WireError> {
        let s = self.lock();
        let room = self
            .config
            .limits
            .max_frame_size
            .saturating_sub(ENVELOPE_RESERVE);
        let limit = payload.limit.map_or(usize::MAX, |l| l as usize);
        let after = payload.cursor.as_deref();
        let widest = "c".repeat(MAX_CHAT_ID);
        let mut result = ChatListResult::new(Vec::new()).cursor(widest);
        let mut left = room.saturating_sub(json_len(&result));
        let range = match after {
            Some(after) => s
                .chats
                .range::<str, _>((std::ops::Bound::Excluded(after), std::ops::Bound::Unbounded)),
            None => s.chats.range::<str, _>(..),
        };
        let mut more = None;
        for (chat_id, chat) in range {
            // The info and the comma before it.
            let size = json_len(&chat.info) + 1;
            if result.chats.len() == limit || size > left {
                more = result.chats.last().map(|info| info.chat_id.clone());
                if more.is_none() {
                    return Err(too_large(
                        &format!("the chat.list page of chat {chat_id:?}"),
                        size,
                        room,
                    ));
                }
                break;
            }
            left -= size;
            result.chats.push(chat.info.clone());
        }
        result.cursor = more;
        Ok(result)
    }

    /// A chat's info.
    pub fn info(&self, chat_id: &str) -> Option<ChatInfo> {
        self.lock().chats.get(chat_id).map(|c| c.info.clone())
    }

    /// A copy of a chat's whole thread, read from the store: for tests and tools, not for a
    /// path that serves clients (a page is what [`Hub::attach`] and [`Hub::history`] read).
    pub fn thread(&self, chat_id: &str) -> Option<Thread> {
        let mut s = self.lock();
        let info = s.chats.get(chat_id)?.info.clone();
        let items = s.store.items_before(chat_id, None, usize::MAX).ok()?;
        Some(Thread::from_snapshot(
            info,
            items.into_iter().map(|(_, item)| item).collect(),
        ))
    }

    /// The item with this id in a chat's thread, read from the store; `unknown-chat` for a
    /// chat the hub does not know.
    pub fn item(&self, chat_id: &str, item_id: &str) -> Result<Option<ChatItem>, WireError> {
        let mut s = self.lock();
        if !s.chats.contains_key(chat_id) {
            return Err(unknown_chat(chat_id));
        }
        s.store.item(chat_id, item_id).map_err(read_failed)
    }

    /// The newest `count` items of a chat's thread, oldest first, read from the store.
    pub fn latest_items(&self, chat_id: &str, count: usize) -> Result<Vec<ChatItem>, WireError> {
        let mut s = self.lock();
        if !s.chats.contains_key(chat_id) {
            return Err(unknown_chat(chat_id));
        }
        let items = s
            .store
            .items_before(chat_id, None, count)
            .map_err(read_failed)?;
        Ok(items.into_iter().map(|(_, item)| item).collect())
    }

    /// Whether `event` could be published to the chat: `frame-too-large` when its frame could
    /// never be sent. Nothing changes.
    pub fn check_event(&self, chat_id: &str, event: &ChatEvent) -> Result<(), WireError> {
        let s = self.lock();
        let chat = s.chats.get(chat_id).ok_or_else(|| unknown_chat(chat_id))?;
        let frame = checked_chat_event_frame(chat_id, chat.seq + 1, event)?;
        self.check_frames(chat_id, event, &frame)
    }

    /// Refuses an event whose chat.event frame leaves no room for a page's envelope, or whose
    /// chat.status frame is over the limit.
    fn check_frames(&self, chat_id: &str, event: &ChatEvent, frame: &str) -> Result<(), WireError> {
        let limit = self.config.limits.max_frame_size;
        let room = limit.saturating_sub(ENVELOPE_RESERVE);
        if frame.len() > room {
            return Err(too_large(
                &format!(
                    "the chat.event (which must fit the frame limit of {limit} bytes less {ENVELOPE_RESERVE} for a page's envelope)"
                ),
                frame.len(),
                room,
            ));
        }
        if let Some(status) = status_of(chat_id, event) {
            let status = super::event_frame_checked(events::ChatStatus::NAME, &status)?;
            if status.len() > limit {
                return Err(too_large("the chat.status", status.len(), limit));
            }
        }
        Ok(())
    }

    /// Applies an event to a chat, stores it under the next seq and sends it as chat.event to
    /// every attached client. An `info` or `reset` also goes out as chat.status to every
    /// client. Answers the event's seq; an event too large for a frame is refused with
    /// `frame-too-large`, and one a client would refuse (an empty id, a number out of its
    /// range) with `internal` naming the field and its limit; either changes nothing.
    ///
    /// With [`HubConfig::group_commit`], an event published while another caller holds the
    /// hub waits in an inbox; the next holder stores every event waiting there as one change
    /// (one transaction), then applies and sends them, so a group costs one commit. Each
    /// event is still stored before it is sent and before this answers; when the group's
    /// change fails, every event of it is answered with the failure and nothing is sent.
    pub fn publish(&self, chat_id: &str, event: ChatEvent) -> Result<Seq, WireError> {
        if !self.config.group_commit {
            return self.publish_locked(&mut self.lock(), chat_id, event);
        }
        let answer = Arc::new(Mutex::new(None));
        lock_inbox(&self.inbox).push(Publishing {
            chat_id: chat_id.to_owned(),
            event,
            answer: answer.clone(),
        });
        {
            let mut s = self.lock();
            // Empty when the holder before took this event with its group.
            let group = std::mem::take(&mut *lock_inbox(&self.inbox));
            if !group.is_empty() {
                self.publish_group(&mut s, group);
            }
        }
        let answered = answer.lock().unwrap_or_else(|e| e.into_inner()).take();
        answered.unwrap_or_else(|| {
            Err(WireError::new(
                ErrorCode::Internal,
                "the event was never answered",
            ))
        })
    }

    /// Publishes a group of events from the inbox as one change: each checked and numbered
    /// (nothing changed yet), all stored at once, then applied and sent in order.
    fn publish_group(&self, s: &mut State, mut group: Vec<Publishing>) {
        let answer = |p: &Publishing, result: Result<Seq, WireError>| {
            *p.answer.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        };
        if group.len() == 1 {
            let Publishing {
                chat_id,
                event,
                answer: slot,
            } = group.remove(0);
            let result = self.publish_locked(s, &chat_id, event);
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            return;
        }
        // Checked and numbered, nothing changed yet: (index in the group, seq, frame).
        let mut next: HashMap<&str, Seq> = HashMap::new();
        let mut staged = Vec::with_capacity(group.len());
        for (i, p) in group.iter().enumerate() {
            let Some(chat) = s.chats.get(&p.chat_id) else {
                answer(p, Err(unknown_chat(&p.chat_id)));
                continue;
            };
            let seq = next.get(p.chat_id.as_str()).copied().unwrap_or(chat.seq) + 1;
            let checked = checked_chat_event_frame(&p.chat_id, seq, &p.event).and_then(|frame| {
                self.check_frames(&p.chat_id, &p.event, &frame)
                    .map(|()| frame)
            });
            match checked {
                Ok(frame) => {
                    next.insert(&p.chat_id, seq);
                    staged.push((i, seq, frame));
                }
                Err(e) => answer(p, Err(e)),
            }
        }
        let events: Vec<(&str, Seq, &ChatEvent)> = staged
            .iter()
            .map(|(i, seq, _)| (group[*i].chat_id.as_str(), *seq, &group[*i].event))
            .collect();
        let stored = match &events[..] {
            [] => return,
            [(chat_id, seq, event)] => s.store.append(chat_id, *seq, event),
            _ => s.store.append_all(&events),
        };
        if let Err(e) = s.stored(stored) {
            for (i, _, _) in &staged {
                answer(
                    &group[*i],
                    Err(WireError::new(e.code.clone(), e.message.clone())),
                );
            }
            return;
        }
        let mut group: Vec<Option<Publishing>> = group.into_iter().map(Some).collect();
        for (i, seq, frame) in staged {
            if let Some(p) = group[i].take() {
                self.deliver_event(s, &p.chat_id, seq, p.event, frame);
                *p.answer.lock().unwrap_or_else(|e| e.into_inner()) = Some(Ok(seq));
            }
        }
    }

    fn publish_locked(
        &self,
        s: &mut State,
        chat_id: &str,
        event: ChatEvent,
    ) -> Result<Seq, WireError> {
        self.publish_all_locked(s, chat_id, vec![event])
    }

    /// Publishes several events to a chat as one change: each checked as [`Hub::publish`]
    /// checks one, stored all or none ([`Store::append_all`]: one transaction on SQLite), then
    /// applied and sent in order. Answers the last one's seq (the chat's seq when there are
    /// none).
    pub fn publish_all(&self, chat_id: &str, events: Vec<ChatEvent>) -> Result<Seq, WireError> {
        self.publish_all_locked(&mut self.lock(), chat_id, events)
    }

    fn publish_all_locked(
        &self,
        s: &mut State,
        chat_id: &str,
        events: Vec<ChatEvent>,
    ) -> Result<Seq, WireError> {
        let State { chats, store, .. } = s;
        let chat = chats.get(chat_id).ok_or_else(|| unknown_chat(chat_id))?;
        let mut made = Vec::with_capacity(events.len());
        let mut frames = Vec::with_capacity(events.len());
        for (seq, event) in (chat.seq + 1..).zip(events) {
            let frame = checked_chat_event_frame(chat_id, seq, &event)?;
            self.check_frames(chat_id, &event, &frame)?;
            made.push((seq, event));
            frames.push(frame);
        }
        let stored = match &made[..] {
            [] => return Ok(chat.seq),
            [(seq, event)] => store.append(chat_id, *seq, event),
            _ => store.append_all(
                &made
                    .iter()
                    .map(|(seq, event)| (chat_id, *seq, event))
                    .collect::<Vec<_>>(),
            ),
        };
        s.stored(stored)?;
        for ((seq, event), frame) in made.into_iter().zip(frames) {
            self.deliver_event(s, chat_id, seq, event, frame);
        }
        Ok(s.chats.get(chat_id).map_or(0, |c| c.seq))
    }

    /// Applies a stored event to its chat and sends it: chat.event to the attached clients,
    /// and the chat.status an `info` or `reset` makes to every client.
    fn deliver_event(
        &self,
        s: &mut State,
        chat_id: &str,
        seq: Seq,
        event: ChatEvent,
        frame: String,
    ) {
        let status = status_of(chat_id, &event);
        let State { chats, clients, .. } = s;
        if let Some(chat) = chats.get_mut(chat_id) {
            chat.apply(seq, event, frame.clone(), &self.config);
        }
        for c in clients.values_mut() {
            if let Some(last) = c.attached.get_mut(chat_id) {
                *last = seq;
                c.deliver(ClientFrame {
                    text: frame.clone(),
                    key: None,
                    event: Some((chat_id.to_owned(), seq)),
                });
            }
        }
        if let Some(status) = status {
            let text = super::event_frame(events::ChatStatus::NAME, &status);
            send_all(s, |_| true, &text, Some(status_key(chat_id)));
        }
    }

    /// Changes a chat's info under the hub's lock and publishes it (an `info` event and
    /// chat.status): no other change comes between the read and the write. `change` must not
    /// call the hub. Answers what `change` answered.
    pub fn update_info<R>(
        &self,
        chat_id: &str,
        change: impl FnOnce(&mut ChatInfo) -> R,
    ) -> Result<R, WireError> {
        let mut s = self.lock();
        let mut info = s
            .chats
            .get(chat_id)
            .map(|c| c.info.clone())
            .ok_or_else(|| unknown_chat(chat_id))?;
        let answer = change(&mut info);
        self.publish_locked(
            &mut s,
            chat_id,
            ChatEvent::Info(super::ChatEventInfo { info }),
        )?;
        Ok(answer)
    }

    /// A change of several events made from a chat's info under the hub's lock, published as
    /// one ([`Hub::publish_all`]: stored all or none): no other change comes between the read
    /// and the write. `make` must not call the hub; what it refuses changes nothing. Answers
    /// what `make` answered.
    pub fn publish_with<R>(
        &self,
        chat_id: &str,
        make: impl FnOnce(&ChatInfo) -> Result<(R, Vec<ChatEvent>), WireError>,
    ) -> Result<R, WireError> {
        let mut s = self.lock();
        let info = s
            .chats
            .get(chat_id)
            .map(|c| &c.info)
            .ok_or_else(|| unknown_chat(chat_id))?;
        let (answer, events) = make(info)?;
        self.publish_all_locked(&mut s, chat_id, events)?;
        Ok(answer)
    }

    /// Replaces a chat's info (an `info` event) and tells every client.
    pub fn set_info(&self, info: ChatInfo) -> Result<Seq, WireError> {
        let chat_id = info.chat_id.clone();
        self.publish(&chat_id, ChatEvent::Info(super::ChatEventInfo { info }))
    }

    /// Changes a chat's bookmarks under the hub's lock; attached clients hear chat.bookmarks.
    /// `change` may refuse (then nothing changes) and must not call the hub.
    pub fn update_bookmarks<R>(
        &self,
        chat_id: &str,
        change: impl FnOnce(&mut Vec<Bookmark>) -> Result<R, WireError>,
    ) -> Result<R, WireError> {
        let mut s = self.lock();
        let chat = s.chats.get(chat_id).ok_or_else(|| unknown_chat(chat_id))?;
        let mut bookmarks = chat.bookmarks.clone();
        let answer = change(&mut bookmarks)?;
        let payload = super::ChatBookmarksEvent::new(chat_id, bookmarks);
        let frame = super::event_frame_checked(events::ChatBookmarks::NAME, &payload)?;
        let limit = self.config.limits.max_frame_size;
        if frame.len() > limit {
            return Err(too_large("the chat.bookmarks", frame.len(), limit));
        }
        let stored = s.store.set_bookmarks(chat_id, &payload.bookmarks);
        s.stored(stored)?;
        if let Some(chat) = s.chats.get_mut(chat_id) {
            chat.bookmarks = payload.bookmarks;
        }
        send_all(&mut s, |c| c.attached.contains_key(chat_id), &frame, None);
        Ok(answer)
    }

    /// Replaces a chat's bookmarks; attached clients hear chat.bookmarks.
    pub fn set_bookmarks(&self, chat_id: &str, bookmarks: Vec<Bookmark>) -> Result<(), WireError> {
        self.update_bookmarks(chat_id, |b| {
            *b = bookmarks;
            Ok(())
        })
    }

    /// A chat's bookmarks.
    pub fn bookmarks(&self, chat_id: &str) -> Result<Vec<Bookmark>, WireError> {
        self.lock()
            .chats
            .get(chat_id)
            .map(|c| c.bookmarks.clone())
            .ok_or_else(|| unknown_chat(chat_id))
    }

    /// Changes a chat's visuals under the hub's lock; attached clients hear chat.visuals.
    /// `change` may refuse (then nothing changes) and must not call the hub.
    pub fn update_visuals<R>(
        &self,
        chat_id: &str,
        change: impl FnOnce(&mut Vec<Visual>) -> Result<R, WireError>,
    ) -> Result<R, WireError> {
        let mut s = self.lock();
        let chat = s.chats.get(chat_id).ok_or_else(|| unknown_chat(chat_id))?;
        let mut visuals = chat.visuals.clone();
        let answer = change(&mut visuals)?;
        let payload = super::ChatVisualsEvent::new(chat_id, visuals);
        let frame = super::event_frame_checked(events::ChatVisuals::NAME, &payload)?;
        let limit = self.config.limits.max_frame_size;
        if frame.len() > limit {
            return Err(too_large("the chat.visuals", frame.len(), limit));
        }
        let stored = s.store.set_visuals(chat_id, &payload.visuals);
        s.stored(stored)?;
        if let Some(chat) = s.chats.get_mut(chat_id) {
            chat.visuals = payload.visuals;
        }
        send_all(&mut s, |c| c.attached.contains_key(chat_id), &frame, None);
        Ok(answer)
    }

    /// Replaces a chat's visuals; attached clients hear chat.visuals.
    pub fn set_visuals(&self, chat_id: &str, visuals: Vec<Visual>) -> Result<(), WireError> {
        self.update_visuals(chat_id, |v| {
            *v = visuals;
            Ok(())
        })
    }

    /// A chat's visuals.
    pub fn visuals(&self, chat_id: &str) -> Result<Vec<Visual>, WireError> {
        self.lock()
            .chats
            .get(chat_id)
            .map(|c| c.visuals.clone())
            .ok_or_else(|| unknown_chat(chat_id))
    }

    /// Tells a chat's attached clients to ask for the watched subagent page again.
    pub fn subagent_changed(&self, chat_id: &str, tool_use_id: &str) -> Result<(), WireError> {
        let payload = super::ChatSubagentChangedEvent::new(chat_id, tool_use_id);
        self.send_event(
            |c| c.attached.contains_key(chat_id),
            events::ChatSubagentChanged::NAME,
            &payload,
        )
    }

    /// An event of any table (an app's own, say) to every client; `frame-too-large` when its
    /// frame is over the limit (then nobody gets it). An agent event is checked as a client
    /// reads it (`event_frame_checked`: `internal` naming the field and its limit, and nobody
    /// gets it); an app's own is checked by [`Hub::broadcast_event`], which knows its table.
    pub fn broadcast<P: Serialize>(&self, event: &str, payload: &P) -> Result<(), WireError> {
        self.send_event(|_| true, event, payload)
    }

    /// An event of any table to every client, its payload checked first as a client reads it
    /// (`E::parse_payload`): `internal` naming the field and its limit when a client would
    /// refuse it, `frame-too-large` when its frame is over the limit; then nobody gets it.
    pub fn broadcast_event<E: crate::wire::Event>(
        &self,
        payload: &E::Payload,
    ) -> Result<(), WireError> {
        let raw = crate::__private::to_raw::<_, WireError>(payload)?;
        if let Err(e) = E::parse_payload(raw.get()) {
            return Err(WireError::new(
                ErrorCode::Internal,
                format!(
                    "the {} event is not valid, so it was not sent: {e}",
                    E::NAME
                ),
            ));
        }
        self.send_event(|_| true, E::NAME, &crate::wire::RawJson(raw))
    }

    /// The whole account snapshot, to every client.
    pub fn accounts_changed(&self, snapshot: &super::AccountSnapshot) -> Result<(), WireError> {
        self.send_event(|_| true, events::AccountsChanged::NAME, snapshot)
    }

    /// The whole plan limit snapshot, to every client.
    pub fn limits_changed(&self, limits: &super::PlanLimits) -> Result<(), WireError> {
        self.send_event(|_| true, events::UsageLimitsChanged::NAME, limits)
    }

    /// usage.changed, to the clients that called usage.subscribe.
    pub fn usage_changed(&self, scanned_at: super::Timestamp) -> Result<(), WireError> {
        self.send_event(
            |c| c.usage,
            events::UsageChanged::NAME,
            &super::UsageChangedEvent::new(scanned_at),
        )
    }

    fn send_event<P: Serialize>(
        &self,
        to: impl Fn(&Client) -> bool,
        event: &str,
        payload: &P,
    ) -> Result<(), WireError> {
        let text = super::event_frame_checked(event, payload)?;
        let limit = self.config.limits.max_frame_size;
        if text.len() > limit {
            return Err(too_large(&format!("the {event} event"), text.len(), limit));
        }
        send_all(&mut self.lock(), to, &text, None);
        Ok(())
    }

    /// usage.subscribe (`true`) and usage.unsubscribe (`false`) for a client.
    pub fn subscribe_usage(&self, client: ClientId, on: bool) {
        if let Some(c) = self.lock().clients.get_mut(&client) {
            c.usage = on;
        }
    }

    /// chat.attach for a client: registers it as attached and answers a snapshot (with
    /// `resumed: false` when `since` was given), or, when `since` is of the chat's epoch and
    /// the window or the store holds every event after it (few enough to replay), `resumed`
    /// with an empty `items`, queueing those events (held until the reply is out; none the
    /// client was already sent).
    pub fn attach(
        &self,
        client: ClientId,
        payload: &ChatAttachPayload,
    ) -> Result<AttachResult, WireError> {
        let mut s = self.lock();
        let State {
            clients,
            chats,
            store,
            ..
        } = &mut *s;
        let chat_id = payload.chat_id.as_str();
        let chat = chats.get(chat_id).ok_or_else(|| unknown_chat(chat_id))?;
        let info = chat.info.clone();
        let c = clients
            .get_mut(&client)
            .ok_or_else(|| WireError::new(ErrorCode::Internal, "client is gone"))?;
        let queued = c.attached.get(chat_id).copied();
        if let Some(since) = payload.since
            && let Some(missed) = self.replay_after(&mut **store, chat_id, chat, since, queued)?
        {
            for (seq, frame) in missed {
                c.deliver(ClientFrame {
                    text: frame,
                    key: None,
                    event: Some((chat_id.to_owned(), seq)),
                });
            }
            c.attached.insert(chat_id.to_owned(), chat.seq);
            return Ok(AttachResult::new(info, Vec::new())
                .bookmarks(chat.bookmarks.clone())
                .visuals(chat.visuals.clone())
                .seq(chat.seq)
                .resumed(true));
        }
        c.attached.insert(chat_id.to_owned(), chat.seq);
        // The snapshot holds every event up to its seq: those still held for the client (made
        // while this attach waited for the lock) would apply twice after it.
        c.held.retain(
            |held| !matches!(&held.event, Some((id, seq)) if id == chat_id && *seq <= chat.seq),
        );
        let pending: Vec<ChatItem> = chat
            .live
            .items
            .iter()
            .filter(|i| is_pending(i))
            .cloned()
            .collect();
        let mut result = AttachResult::new(info, Vec::new())
            .history(widest_position())
            .pending(pending)
            .bookmarks(chat.bookmarks.clone())
            .visuals(chat.visuals.clone())
            .seq(chat.seq);
        // Said outright when `since` was sent: an empty `items` alone would read as resumed.
        result.resumed = payload.since.map(|_| false);
        let limit = payload
            .history_limit
            .map_or(self.config.default_history_limit, |l| l as usize);
        let (items, history) =
            self.page(&mut **store, chat_id, chat, None, limit, json_len(&result))?;
        result.items = items;
        result.history = Some(history);
        Ok(result)
    }

    /// The chat.event frames after `since` to replay to a client, when `since` is of this
    /// chat's epoch and not ahead of it, and the window (else the store) holds every event after
    /// it, few enough ([`HubConfig::log_capacity`], [`HubConfig::log_bytes`], half the queue
    /// bound); `None` otherwise. Frames up to `queued` (already queued for this client) are
    /// left out.
    fn replay_after(
        &self,
        store: &mut dyn Store,
        chat_id: &str,
        chat: &Chat,
        since: Seq,
        queued: Option<Seq>,
    ) -> Result<Option<Vec<(Seq, String)>>, WireError> {
        if seq_epoch(since) != chat.epoch || since > chat.seq {
            return Ok(None);
        }
        let budget = self
            .config
            .log_bytes
            .min(self.config.limits.queue_bound() / 2);
        if chat.seq - since > self.config.log_capacity as i64 {
            return Ok(None);
        }
        let from = queued.map_or(since, |queued| queued.max(since));
        let oldest = chat.log.front().map_or(chat.seq + 1, |(seq, _)| *seq);
        // The window holds every event from its oldest on; the store says when it no longer
        // holds one (forgotten at a reset).
        let events: Vec<(Seq, String)> = if from + 1 >= oldest {
            chat.log
                .iter()
                .filter(|(seq, _)| *seq > from)
                .cloned()
                .collect()
        } else {
            // Older than the window: from the store, made frames again (they were checked when
            // they were published).
            let stored = store
                .events_after(chat_id, from, self.config.log_capacity, budget)
                .map_err(read_failed)?;
            let Some(stored) = stored else {
                return Ok(None);
            };
            stored
                .iter()
                .map(|(seq, event)| (*seq, chat_event_frame(chat_id, *seq, event)))
                .collect::<Vec<_>>()
        };
        let bytes: usize = events.iter().map(|(_, frame)| frame.len()).sum();
        Ok((bytes <= budget).then_some(events))
    }

    /// A page of a chat's thread before the item at `before` (the end when `None`): at most
    /// `limit` items, as many as fit beside the rest of the reply (`around` bytes), and where
    /// it starts. `frame-too-large` when not even one fits.
    fn page(
        &self,
        store: &mut dyn Store,
        chat_id: &str,
        chat: &Chat,
        before: Option<i64>,
        limit: usize,
        around: usize,
    ) -> Result<(Vec<ChatItem>, HistoryPosition), WireError> {
        let room = self
            .config
            .limits
            .max_frame_size
            .saturating_sub(ENVELOPE_RESERVE);
        let Some(mut left) = room.checked_sub(around) else {
            return Err(too_large("the page without its items", around, room));
        };
        // One more than asked: whether any comes before the page.
        let mut found = store
            .items_before(chat_id, before, limit.saturating_add(1))
            .map_err(read_failed)?;
        let mut start = found.len();
        while start > found.len().saturating_sub(limit) {
            // The item and the comma before it.
            let size = json_len(&found[start - 1].1) + 1;
            if size > left {
                break;
            }
            left -= size;
            start -= 1;
        }
        if start == found.len() && limit > 0 && !found.is_empty() {
            let size = json_len(&found[start - 1].1);
            return Err(too_large("the page's newest item", around + size, room));
        }
        let page: Vec<(i64, ChatItem)> = found.split_off(start);
        let Some((first, first_item)) = page.first() else {
            return Ok((Vec::new(), HistoryPosition::new(0, None)));
        };
        let index = match history_index(first_item) {
            Some(index) => index,
            None => store.count_before(chat_id, *first).map_err(read_failed)? as i64,
        };
        let cursor = (!found.is_empty())
            .then(|| format!("{}.{first}.{}", chat.reset_at, tag(item_id(first_item))));
        let position = HistoryPosition::new(index, cursor);
        Ok((page.into_iter().map(|(_, item)| item).collect(), position))
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
            .is_some_and(|c| c.attached.contains_key(chat_id))
    }

    /// chat.history: the page before an opaque cursor, cut to fit the size limit;
    /// `history-expired` when the cursor is from before the chat's last reset, of another
    /// chat, or not one of this hub's.
    pub fn history(&self, payload: &ChatHistoryPayload) -> Result<ChatHistoryResult, WireError> {
        let mut s = self.lock();
        let State { chats, store, .. } = &mut *s;
        let chat = chats
            .get(&payload.chat_id)
            .ok_or_else(|| unknown_chat(&payload.chat_id))?;
        let expired = || {
            WireError::new(
                ErrorCode::HistoryExpired,
                "this cursor is not one of this chat's since its last reset; attach again",
            )
        };
        let mut parts = payload.cursor.splitn(3, '.');
        let (Some(reset_at), Some(before), Some(item_tag)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(expired());
        };
        let reset_at: Seq = reset_at.parse().map_err(|_| expired())?;
        let before: i64 = before.parse().map_err(|_| expired())?;
        if reset_at != chat.reset_at || seq_epoch(reset_at) != chat.epoch {
            return Err(expired());
        }
        // The item the cursor was made before must still be at its position.
        let at = before
            .checked_add(1)
            .map(|next| store.items_before(&payload.chat_id, Some(next), 1))
            .transpose()
            .map_err(read_failed)?
            .unwrap_or_default();
        match at.first() {
            Some((position, item)) if *position == before && tag(item_id(item)) == item_tag => {}
            _ => return Err(expired()),
        }
        let limit = payload
            .limit
            .map_or(self.config.default_history_limit, |l| l as usize);
        let result = ChatHistoryResult::new(Vec::new(), widest_position());
        let (items, history) = self.page(
            &mut **store,
            &payload.chat_id,
            chat,
            Some(before),
            limit,
            json_len(&result),
        )?;
        Ok(ChatHistoryResult::new(items, history))
    }
}

impl Chat {
    /// A chat as the store gave it: no window yet.
    fn load(stored: StoredChat) -> Chat {
        Chat {
            epoch: stored.epoch,
            reset_at: stored.reset_at,
            info: stored.info,
            live: Thread {
                info: None,
                items: stored.live,
            },
            seq: stored.seq,
            log: VecDeque::new(),
            log_bytes: 0,
            bookmarks: stored.bookmarks,
            visuals: stored.visuals,
        }
    }

    /// Applies a stored event: the info, the live items, the seq, the window (trimmed to its
    /// bounds, and emptied when the chat goes idle).
    fn apply(&mut self, seq: Seq, event: ChatEvent, frame: String, config: &HubConfig) {
        match &event {
            ChatEvent::Info(e) => self.info = ChatInfo::clone(&e.info),
            ChatEvent::Reset(e) => {
                self.reset_at = seq;
                self.info = ChatInfo::clone(&e.info);
            }
            _ => {}
        }
        if !matches!(event, ChatEvent::Info(_)) {
            self.live.apply(&event);
            self.live.items.retain(is_live);
        }
        self.seq = seq;
        if matches!(self.info.state, ChatState::Idle | ChatState::Failed) {
            self.log.clear();
            self.log_bytes = 0;
            return;
        }
        self.log_bytes += frame.len();
        self.log.push_back((seq, frame));
        while self.log.len() > config.window_events || self.log_bytes > config.window_bytes {
            match self.log.pop_front() {
                Some((_, frame)) => self.log_bytes -= frame.len(),
                None => break,
            }
        }
    }
}

/// A position as large as any this hub writes, to measure a page's frame before its items.
fn widest_position() -> HistoryPosition {
    let cursor = format!("{}.{}.{}", i64::MAX, i64::MIN, tag(""));
    HistoryPosition::new(i64::MAX, Some(cursor))
}

/// A history cursor's tag of the item it was made before: 64-bit FNV-1a of its id, in hex (16
/// digits; stable across builds, unlike std's hasher).
fn tag(item_id: &str) -> String {
    let hash = item_id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// A value's size as compact JSON.
fn json_len<T: Serialize>(value: &T) -> usize {
    serde_json::to_string(value).map_or(usize::MAX / 4, |text| text.len())
}

/// The chat.event frame of an event, checked as a client reads it (`event_frame_checked`).
fn checked_chat_event_frame(
    chat_id: &str,
    seq: Seq,
    event: &ChatEvent,
) -> Result<String, WireError> {
    super::event_frame_checked(
        events::ChatEvent::NAME,
        &ChatEventEvent::new(chat_id, event.clone()).seq(seq),
    )
}

/// The chat.event frame of an event, unchecked: for the events a store gives back, checked
/// when they were published.
fn chat_event_frame(chat_id: &str, seq: Seq, event: &ChatEvent) -> String {
    super::event_frame(
        events::ChatEvent::NAME,
        &ChatEventEvent::new(chat_id, event.clone()).seq(seq),
    )
}

/// The chat.status an `info` or `reset` event makes.
fn status_of(chat_id: &str, event: &ChatEvent) -> Option<ChatStatusEvent> {
    let info = match event {
        ChatEvent::Info(e) => &e.info,
        ChatEvent::Reset(e) => &e.info,
        _ => return None,
    };
    Some(ChatStatusEvent::new(chat_id, info.clone()))
}

/// Locks the inbox; a panic elsewhere while it was held leaves it usable.
fn lock_inbox(inbox: &Mutex<Vec<Publishing>>) -> MutexGuard<'_, Vec<Publishing>> {
    inbox.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sends a frame to every client `to` picks (held while an attach of theirs runs).
fn send_all(s: &mut State, to: impl Fn(&Client) -> bool, text: &str, key: Option<String>) {
    for c in s.clients.values_mut().filter(|c| to(c)) {
        c.deliver(ClientFrame {
            text: text.to_owned(),
            key: key.clone(),
            event: None,
        });
    }
}

/// Whether a refused send ends the connection: the port is closed (the peer, a policy such as
/// a slow consumer's, or shutdown). A frame the port refuses for its size is dropped instead.
fn ends(sent: &Result<(), SendError>) -> bool {
    matches!(sent, Err(SendError::Closed | SendError::SlowConsumer(_)))
}

/// Runs one connection until the port ends. Requests run concurrently, so a slow one (an
/// accounts.refresh that waits on every CLI) holds up neither the others nor the events; each
/// reply goes out as soon as it is ready, with the request's id. While a chat.attach runs, the
/// client's event frames are held and go out after its reply. `host` is the dispatcher for
/// this connection (it usually holds the hub and the client id).
///
/// A request frame over the size limit is answered at once with `frame-too-large` (null id:
/// it was not read), before the port closes; a reply over the limit is answered with
/// `frame-too-large` and the request's id instead. Only the port ending ends the loop.
///
/// At most 64 requests run at once, and only while their frames come to less than
/// the limits' `max_inbound_bytes`: further frames wait in the port, which stops reading (the
/// client meets TCP's backpressure), so a client that sends faster than it is answered costs
/// a bounded amount.
pub async fn serve<D: super::AgentDispatch, P: FramePort + ?Sized>(
    hub: &Hub,
    client: ClientId,
    mut outgoing: ClientQueue,
    port: &P,
    host: &D,
) {
    let limit = hub.config().limits.max_frame_size;
    let inbound = hub.config().limits.max_inbound_bytes;
    let mut incoming = FrameReceiver::new(port);
    let mut running = FuturesUnordered::new();
    // The bytes of the frames of the requests running.
    let mut running_bytes = 0usize;
    loop {
        let room = running.is_empty() || (running.len() < MAX_RUNNING && running_bytes < inbound);
        tokio::select! {
            frame = incoming.recv(), if room => {
                let Some(frame) = frame else { break };
                if let Incoming::TooLarge(e) = &frame {
                    tracing::info!(
                        client = client.0,
                        size = e.size,
                        limit = e.limit,
                        code = ErrorCode::FrameTooLarge.as_str(),
                        "request refused"
                    );
                    let error = WireError::new(
                        ErrorCode::FrameTooLarge,
                        format!("{e}; the request was not read"),
                    );
                    if ends(&port.send(Outgoing::Text(super::error_frame(None, &error)))) {
                        break;
                    }
                    continue;
                }
                let bytes = frame.as_text().map_or(0, str::len);
                running_bytes += bytes;
                running.push(async move { (bytes, answer(hub, client, host, frame).await) });
            }
            Some((bytes, (id, reply, held))) = running.next(), if !running.is_empty() => {
                running_bytes -= bytes;
                // What was queued for the client before its attach began goes out before the
                // reply (what came after is held), so no event older than the reply's seq
                // follows a snapshot.
                if held {
                    let mut ended = false;
                    while let Ok(frame) = outgoing.0.try_recv() {
                        if ends(&forward(port, frame)) {
                            ended = true;
                            break;
                        }
                    }
                    if ended {
                        hub.release(client);
                        break;
                    }
                }
                let reply = if reply.len() > limit {
                    let error = too_large("the reply", reply.len(), limit);
                    tracing::warn!(client = client.0, size = reply.len(), limit, "reply over the limit");
                    super::error_frame(id.as_deref(), &error)
                } else {
                    reply
                };
                let sent = port.send(Outgoing::Text(reply));
                if held {
                    hub.release(client);
                }
                if ends(&sent) {
                    break;
                }
            }
            frame = outgoing.0.recv() => {
                let Some(frame) = frame else { break };
                if ends(&forward(port, frame)) {
                    break;
                }
            }
        }
    }
    hub.disconnect(client);
}

/// The most requests of one connection that run at once (as the JSON-RPC connection's
/// default `max_in_flight`); the next waits until one is answered.
const MAX_RUNNING: usize = 64;

/// Sends a frame the hub queued for the client, coalesced by its key when it has one.
fn forward<P: FramePort + ?Sized>(port: &P, frame: ClientFrame) -> Result<(), SendError> {
    let text = Outgoing::Text(frame.text);
    match &frame.key {
        Some(key) => port.send_coalesced(key, text),
        None => port.send(text),
    }
}

/// The reply to one incoming frame with its request's id (none for an unreadable frame), and
/// whether the client's frames were held for it (a chat.attach).
async fn answer<D: super::AgentDispatch>(
    hub: &Hub,
    client: ClientId,
    host: &D,
    frame: Incoming,
) -> (Option<String>, String, bool) {
    let text = match &frame {
        Incoming::Text(text) => std::borrow::Cow::Borrowed(text.as_str()),
        Incoming::Value(value) => std::borrow::Cow::Owned(value.to_string()),
        Incoming::TooLarge(e) => {
            let error = WireError::new(ErrorCode::FrameTooLarge, e.to_string());
            return (None, super::error_frame(None, &error), false);
        }
    };
    let request = match super::parse_request_typed::<D::Payload>(&text) {
        Ok(request) => request,
        Err(refused) => {
            // A name the table knows is logged; an unknown one is the client's text.
            let (request, code) = match &refused {
                Refused::Envelope(_) => (None, ErrorCode::UnreadableFrame),
                Refused::Table(_, e @ TableError::Invalid { name, .. }) => (
                    Some(*name),
                    crate::__private::table_refusal::<WireError>(e).code,
                ),
                Refused::Table(_, e) => {
                    (None, crate::__private::table_refusal::<WireError>(e).code)
                }
            };
            tracing::info!(
                client = client.0,
                request,
                code = code.as_str(),
                "request refused"
            );
            return (None, super::frames::refusal_frame(&refused), false);
        }
    };
    let held = request.r#type == super::requests::ChatAttach::METHOD;
    if held {
        hub.hold(client);
    }
    let reply = match host.dispatch_payload(request.payload).await {
        Ok(result) => super::reply_frame(&request.id, result),
        Err(error) => {
            log_failure(client, &request.r#type, &error, hub.store_failing());
            super::error_frame(Some(&request.id), &error)
        }
    };
    (Some(request.id.to_string()), reply, held)
}

/// Logs a request the host answered with a failure: its type and code, and the message of an
/// `internal` one, never a payload. While the store fails (a full disk), its refusals are
/// logged without the message: the store's error was logged once, when it began failing.
fn log_failure(client: ClientId, request: &str, error: &WireError, store_failing: bool) {
    if error.code == ErrorCode::Internal && !store_failing {
        tracing::warn!(
            client = client.0,
            request,
            code = error.code.as_str(),
            error = %error.message,
            "request failed"
        );
    } else {
        tracing::info!(
            client = client.0,
            request,
            code = error.code.as_str(),
            "request refused"
        );
    }
}
