//! Where the [`Hub`](super::host::Hub) keeps what must outlive the process: every chat's
//! info, its chat.events with their seqs, its bookmarks and visuals, and the serials that make
//! ids and epochs unique across restarts.
//!
//! The hub calls the store under its lock, before it sends anything, so what a client was sent
//! is stored first: after a crash and a restart the hub rebuilds every thread by applying the
//! stored events again, its seqs continue, and a `since` resumes exactly. Cursors need no
//! storage: they name the chat's epoch, its last reset and a position (see the hub).
//!
//! - [`MemoryStore`]: in memory, for tests (its clones share the contents, so a test can start a
//!   second hub on what the first stored, as a restart would).
//! - `SqliteStore` (feature `sqlite`): one SQLite file (rusqlite, bundled), in WAL mode with
//!   `synchronous = NORMAL`: a commit survives the process being killed (not a power cut).
//!
//! A reset (chat.clear) carries the whole new thread, so a store may forget the events before
//! it: both stores do.
//!
//! # Queued messages
//!
//! A chat's queue (`info.queued`) travels whole in every `info` event, so a store that kept
//! each event as it is would write the whole queue again for every message queued: quadratic
//! in its depth. A store may keep the queue apart instead ([`StoredChat::queue`]): each queued
//! message once, with the seq of the event that queued it and of the one that took it off, and
//! the `info` and `reset` events with an empty `queued`. The hub puts the queue back into
//! every event it reads ([`QueueSpan::queue_at`]). `SqliteStore` does; the [`MemoryStore`]
//! keeps events whole.
//!
//! # Several events at once
//!
//! [`Store::append_all`] stores several events as one change (one transaction for SQLite):
//! the hub publishes a change made of several events (a queued message taken off the queue
//! and its user item) all or none, and the events published at once by several callers as one
//! group (group commit, [`HubConfig::group_commit`](super::host::HubConfig::group_commit)).

use super::{Bookmark, ChatEvent, ChatInfo, QueuedMessage, Seq, Visual};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A store that failed: the disk, the database, a row that does not read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the store failed: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

/// One chat as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredChat {
    pub chat_id: String,
    /// The epoch carried in the chat's seqs; its first seq is `epoch << 32`.
    pub epoch: i64,
    /// The info the chat was made with; the events change it.
    pub info: ChatInfo,
    /// The events since the last reset (that reset included), oldest first.
    pub events: Vec<(Seq, ChatEvent)>,
    /// The last seq given, even when its event was forgotten.
    pub seq: Seq,
    pub bookmarks: Vec<Bookmark>,
    pub visuals: Vec<Visual>,
    /// The queued messages kept apart from the events (see the [module docs](self)), in
    /// queue order: then every `info` and `reset` event above has an empty `queued`, to be
    /// filled from these. Empty when the store keeps the events whole.
    pub queue: Vec<QueueSpan>,
}

/// A queued message as a store keeps it apart from the `info` events: when it was queued and
/// when it left the queue.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSpan {
    /// The seq of the event that put it in the queue.
    pub added: Seq,
    /// The seq of the event that took it off, `None` while it is queued.
    pub removed: Option<Seq>,
    pub message: QueuedMessage,
}

impl QueueSpan {
    /// The queue as it was after the event at `seq`, from a chat's spans in queue order.
    pub fn queue_at(spans: &[QueueSpan], seq: Seq) -> Vec<QueuedMessage> {
        spans
            .iter()
            .filter(|s| s.added <= seq && s.removed.is_none_or(|r| r > seq))
            .map(|s| s.message.clone())
            .collect()
    }

    /// The queue now: every message not taken off.
    pub fn queue_now(spans: &[QueueSpan]) -> Vec<QueuedMessage> {
        spans
            .iter()
            .filter(|s| s.removed.is_none())
            .map(|s| s.message.clone())
            .collect()
    }
}

/// Everything a hub starts from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    /// How many times the store was opened, this time included: ids made in this life carry
    /// it, so they never repeat an earlier life's.
    pub life: u64,
    /// Every chat, in the order they were made.
    pub chats: Vec<StoredChat>,
}

/// What keeps a hub's chats. Every method is called under the hub's lock, in the order the
/// changes happened; an error is answered to the request that made the change, and nothing is
/// sent for it.
pub trait Store: Send {
    /// Everything stored, counting this as one more life. Called once, when the hub opens.
    fn load(&mut self) -> Result<Loaded, StoreError>;

    /// A number never answered before by this store, across restarts (chat ids and epochs).
    fn next_serial(&mut self) -> Result<u64, StoreError>;

    /// A new chat, without events.
    fn create_chat(&mut self, chat_id: &str, epoch: i64, info: &ChatInfo)
    -> Result<(), StoreError>;

    /// One more event of a chat, under its seq. After a reset the events before it may go.
    fn append(&mut self, chat_id: &str, seq: Seq, event: &ChatEvent) -> Result<(), StoreError>;

    /// Several events (of one chat or of several, each chat's in seq order) as one change:
    /// all stored or none (a store that cannot promise it says so). The hub stores a change of
    /// several events with it, and a group of events published at once (group commit: one
    /// transaction for SQLite). The default appends them one by one.
    fn append_all(&mut self, events: &[(&str, Seq, &ChatEvent)]) -> Result<(), StoreError> {
        for (chat_id, seq, event) in events {
            self.append(chat_id, *seq, event)?;
        }
        Ok(())
    }

    /// A chat's whole bookmark list.
    fn set_bookmarks(&mut self, chat_id: &str, bookmarks: &[Bookmark]) -> Result<(), StoreError>;

    /// A chat's whole visual list.
    fn set_visuals(&mut self, chat_id: &str, visuals: &[Visual]) -> Result<(), StoreError>;

    /// Forgets a chat.
    fn remove_chat(&mut self, chat_id: &str) -> Result<(), StoreError>;
}

/// A store in memory. Clones share the contents.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<Memory>>,
}

#[derive(Debug, Default)]
struct Memory {
    life: u64,
    serial: u64,
    /// Chats made so far: the order of the next one.
    made: u64,
    /// Chats by id, with the order they were made in.
    chats: BTreeMap<String, (u64, StoredChat)>,
}

impl MemoryStore {
    /// An empty store whose serials start at `first`: a hub on a fresh memory store after a
    /// restart gives different ids if `first` differs (a hub uses the clock).
    pub fn starting_at(first: u64) -> MemoryStore {
        let store = MemoryStore::default();
        store.lock().serial = first;
        store
    }

    fn lock(&self) -> MutexGuard<'_, Memory> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn chat(&self, chat_id: &str, change: impl FnOnce(&mut StoredChat)) -> Result<(), StoreError> {
        match self.lock().chats.get_mut(chat_id) {
            Some((_, chat)) => {
                change(chat);
                Ok(())
            }
            None => Err(StoreError(format!("no chat {chat_id:?} is stored"))),
        }
    }
}

impl Store for MemoryStore {
    fn load(&mut self) -> Result<Loaded, StoreError> {
        let mut m = self.lock();
        m.life += 1;
        let mut chats: Vec<_> = m.chats.values().cloned().collect();
        chats.sort_by_key(|(order, _)| *order);
        Ok(Loaded {
            life: m.life,
            chats: chats.into_iter().map(|(_, chat)| chat).collect(),
        })
    }

    fn next_serial(&mut self) -> Result<u64, StoreError> {
        let mut m = self.lock();
        m.serial += 1;
        Ok(m.serial)
    }

    fn create_chat(
        &mut self,
        chat_id: &str,
        epoch: i64,
        info: &ChatInfo,
    ) -> Result<(), StoreError> {
        let mut m = self.lock();
        m.made += 1;
        let order = m.made;
        m.chats.insert(
            chat_id.to_owned(),
            (
                order,
                StoredChat {
                    chat_id: chat_id.to_owned(),
                    epoch,
                    info: info.clone(),
                    events: Vec::new(),
                    seq: epoch << 32,
                    bookmarks: Vec::new(),
                    visuals: Vec::new(),
                    queue: Vec::new(),
                },
            ),
        );
        Ok(())
    }

    fn append(&mut self, chat_id: &str, seq: Seq, event: &ChatEvent) -> Result<(), StoreError> {
        self.chat(chat_id, |chat| {
            if matches!(event, ChatEvent::Reset(_)) {
                chat.events.clear();
            }
            chat.events.push((seq, event.clone()));
            chat.seq = seq;
        })
    }

    fn append_all(&mut self, events: &[(&str, Seq, &ChatEvent)]) -> Result<(), StoreError> {
        // Under one lock, every chat checked first: nobody sees half of it.
        let mut m = self.lock();
        if let Some((chat_id, _, _)) = events.iter().find(|(id, _, _)| !m.chats.contains_key(*id)) {
            return Err(StoreError(format!("no chat {chat_id:?} is stored")));
        }
        for (chat_id, seq, event) in events {
            if let Some((_, chat)) = m.chats.get_mut(*chat_id) {
                if matches!(event, ChatEvent::Reset(_)) {
                    chat.events.clear();
                }
                chat.events.push((*seq, (*event).clone()));
                chat.seq = *seq;
            }
        }
        Ok(())
    }

    fn set_bookmarks(&mut self, chat_id: &str, bookmarks: &[Bookmark]) -> Result<(), StoreError> {
        self.chat(chat_id, |chat| chat.bookmarks = bookmarks.to_vec())
    }

    fn set_visuals(&mut self, chat_id: &str, visuals: &[Visual]) -> Result<(), StoreError> {
        self.chat(chat_id, |chat| chat.visuals = visuals.to_vec())
    }

    fn remove_chat(&mut self, chat_id: &str) -> Result<(), StoreError> {
        self.lock().chats.remove(chat_id);
        Ok(())
    }
}
