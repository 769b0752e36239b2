//! Where the [`Hub`](super::host::Hub) keeps what must outlive the process: every chat's
//! info, its chat.events with their seqs, its thread's items, its bookmarks and visuals, and
//! the serials that make ids and epochs unique across restarts.
//!
//! The hub calls the store under its lock, before it sends anything, so what a client was sent
//! is stored first: after a crash and a restart every chat is there as it was, its seqs
//! continue, and a `since` resumes exactly. Cursors need no storage: they name the chat's
//! epoch, its last reset and a position the store gave (see the hub).
//!
//! - [`MemoryStore`]: in memory, for tests (its clones share the contents, so a test can start a
//!   second hub on what the first stored, as a restart would).
//! - `SqliteStore` (feature `sqlite`): one SQLite file (rusqlite, bundled), in WAL mode with
//!   `synchronous = NORMAL`: a commit survives the process being killed (not a power cut).
//!
//! A reset (chat.clear) carries the whole new thread, so a store may forget the events before
//! it: both stores do.
//!
//! # Threads read a page at a time
//!
//! The hub holds no thread: it reads the items a page needs ([`Store::items_before`], at
//! positions the store gives, in thread order), the item a host asks for ([`Store::item`]) and
//! the events a resumed attach replays ([`Store::events_after`]) from the store, so its memory
//! does not grow with the chats' text. A store applies each event to the thread as the
//! reducer does ([`Thread::apply`]): `item` inserts or replaces by id, placed by
//! `historyIndex`; `delta` appends text; `reset` replaces every item. What [`Store::load`]
//! gives is small: each chat's info now, its last seq and reset, and its live items (those that
//! wait on a person or still stream, [`is_live`]).
//!
//! # Queued messages
//!
//! A chat's queue (`info.queued`) travels whole in every `info` event, so a store that kept
//! each event as it is would write the whole queue again for every message queued: quadratic
//! in its depth. A store may keep the queue apart instead: each queued message once, with the
//! seq of the event that queued it and of the one that took it off, and the `info` and `reset`
//! events with an empty `queued`, put back when it reads them. `SqliteStore` does; the [`MemoryStore`] keeps events whole.
//! Either way, what a store answers carries the queue.
//!
//! # Several events at once
//!
//! [`Store::append_all`] stores several events as one change (one transaction for SQLite):
//! the hub publishes a change made of several events (a queued message taken off the queue
//! and its user item) all or none, and the events published at once by several callers as one
//! group (group commit, [`HubConfig::group_commit`](super::host::HubConfig::group_commit)).

use super::thread::{Thread, is_pending};
use super::{Bookmark, ChatEvent, ChatInfo, ChatItem, Seq, Visual};
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

/// One chat as [`Store::load`] gives it: what the hub keeps in memory, without the thread.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredChat {
    pub chat_id: String,
    /// The epoch carried in the chat's seqs; its first seq is `epoch << 32`.
    pub epoch: i64,
    /// The chat's info now: the one it was made with, as its events changed it (the queue
    /// included).
    pub info: ChatInfo,
    /// The last seq given, even when its event was forgotten.
    pub seq: Seq,
    /// The seq of the last reset, or the chat's first seq when it had none.
    pub reset_at: Seq,
    pub bookmarks: Vec<Bookmark>,
    pub visuals: Vec<Visual>,
    /// The thread's live items ([`is_live`]), in thread order.
    pub live: Vec<ChatItem>,
}

/// Whether an item is live: it waits on a person (a pending approval or question) or still
/// streams (a reply or a thought with `streaming: true`). The hub keeps these in memory: an
/// attach answers the pending ones, and a restart closes the streaming ones.
pub fn is_live(item: &ChatItem) -> bool {
    match item {
        ChatItem::Reply(r) => r.streaming == Some(true),
        ChatItem::Thought(t) => t.streaming == Some(true),
        _ => is_pending(item),
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
    /// Every chat (in the order they were made) without its thread, counting this as one more
    /// life. Called once, when the hub opens.
    fn load(&mut self) -> Result<Loaded, StoreError>;

    /// A number never answered before by this store, across restarts (chat ids and epochs).
    fn next_serial(&mut self) -> Result<u64, StoreError>;

    /// A new chat, without events.
    fn create_chat(&mut self, chat_id: &str, epoch: i64, info: &ChatInfo)
    -> Result<(), StoreError>;

    /// One more event of a chat, under its seq, applied to the chat's thread and info. After a
    /// reset the events before it may go.
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

    /// At most `limit` items of a chat's thread, the newest before the item at `before` (the
    /// thread's end when `None`), oldest first, each with its position: a number that grows
    /// along the thread, given back as `before` for the page before. A position may come to
    /// hold another item (an item placed before it, the thread numbered again): the hub's
    /// cursors check the item is still there. An item is as its events left it (deltas
    /// applied).
    fn items_before(
        &mut self,
        chat_id: &str,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<(i64, ChatItem)>, StoreError>;

    /// How many items of a chat's thread come before the item at `position`.
    fn count_before(&mut self, chat_id: &str, position: i64) -> Result<u64, StoreError>;

    /// The item with this id in a chat's thread, as its events left it.
    fn item(&mut self, chat_id: &str, item_id: &str) -> Result<Option<ChatItem>, StoreError>;

    /// A chat's events after the seq `after`, oldest first, when the store still holds every
    /// one of them (none was forgotten at a reset), there are at most `max_events` and their
    /// JSON is at most `max_bytes`; `None` otherwise.
    fn events_after(
        &mut self,
        chat_id: &str,
        after: Seq,
        max_events: usize,
        max_bytes: usize,
    ) -> Result<Option<Vec<(Seq, ChatEvent)>>, StoreError>;

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
    chats: BTreeMap<String, (u64, MemoryChat)>,
}

/// A chat in memory: its events since the last reset, and the thread and info they make.
#[derive(Debug)]
struct MemoryChat {
    epoch: i64,
    seq: Seq,
    reset_at: Seq,
    events: Vec<(Seq, ChatEvent)>,
    /// The info and the items, by the reducer; an item's position is its index.
    thread: Thread,
    bookmarks: Vec<Bookmark>,
    visuals: Vec<Visual>,
}

impl MemoryChat {
    fn append(&mut self, seq: Seq, event: &ChatEvent) {
        if matches!(event, ChatEvent::Reset(_)) {
            self.events.clear();
            self.reset_at = seq;
        }
        self.thread.apply(event);
        self.events.push((seq, event.clone()));
        self.seq = seq;
    }
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

    fn chat<R>(
        &self,
        chat_id: &str,
        read: impl FnOnce(&mut MemoryChat) -> R,
    ) -> Result<R, StoreError> {
        match self.lock().chats.get_mut(chat_id) {
            Some((_, chat)) => Ok(read(chat)),
            None => Err(StoreError(format!("no chat {chat_id:?} is stored"))),
        }
    }
}

impl Store for MemoryStore {
    fn load(&mut self) -> Result<Loaded, StoreError> {
        let mut m = self.lock();
        m.life += 1;
        let mut chats: Vec<_> = m.chats.iter().collect();
        chats.sort_by_key(|(_, (order, _))| *order);
        let chats = chats
            .into_iter()
            // A memory chat is made with its info, and every event keeps one.
            .filter_map(|(chat_id, (_, chat))| Some((chat_id, chat, chat.thread.info.clone()?)))
            .map(|(chat_id, chat, info)| StoredChat {
                chat_id: chat_id.clone(),
                epoch: chat.epoch,
                info,
                seq: chat.seq,
                reset_at: chat.reset_at,
                bookmarks: chat.bookmarks.clone(),
                visuals: chat.visuals.clone(),
                live: chat
                    .thread
                    .items
                    .iter()
                    .filter(|i| is_live(i))
                    .cloned()
                    .collect(),
            })
            .collect();
        Ok(Loaded {
            life: m.life,
            chats,
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
        let first = epoch << 32;
        m.chats.insert(
            chat_id.to_owned(),
            (
                order,
                MemoryChat {
                    epoch,
                    seq: first,
                    reset_at: first,
                    events: Vec::new(),
                    thread: Thread::from_snapshot(info.clone(), Vec::new()),
                    bookmarks: Vec::new(),
                    visuals: Vec::new(),
                },
            ),
        );
        Ok(())
    }

    fn append(&mut self, chat_id: &str, seq: Seq, event: &ChatEvent) -> Result<(), StoreError> {
        self.chat(chat_id, |chat| chat.append(seq, event))
    }

    fn append_all(&mut self, events: &[(&str, Seq, &ChatEvent)]) -> Result<(), StoreError> {
        // Under one lock, every chat checked first: nobody sees half of it.
        let mut m = self.lock();
        if let Some((chat_id, _, _)) = events.iter().find(|(id, _, _)| !m.chats.contains_key(*id)) {
            return Err(StoreError(format!("no chat {chat_id:?} is stored")));
        }
        for (chat_id, seq, event) in events {
            if let Some((_, chat)) = m.chats.get_mut(*chat_id) {
                chat.append(*seq, event);
            }
        }
        Ok(())
    }

    fn items_before(
        &mut self,
        chat_id: &str,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<(i64, ChatItem)>, StoreError> {
        self.chat(chat_id, |chat| {
            let items = &chat.thread.items;
            let end = before.map_or(items.len(), |b| (b.max(0) as usize).min(items.len()));
            let start = end.saturating_sub(limit);
            (start..end)
                .map(|at| (at as i64, items[at].clone()))
                .collect()
        })
    }

    fn count_before(&mut self, chat_id: &str, position: i64) -> Result<u64, StoreError> {
        self.chat(chat_id, |chat| {
            (position.max(0) as u64).min(chat.thread.items.len() as u64)
        })
    }

    fn item(&mut self, chat_id: &str, id: &str) -> Result<Option<ChatItem>, StoreError> {
        self.chat(chat_id, |chat| chat.thread.item(id).cloned())
    }

    fn events_after(
        &mut self,
        chat_id: &str,
        after: Seq,
        max_events: usize,
        max_bytes: usize,
    ) -> Result<Option<Vec<(Seq, ChatEvent)>>, StoreError> {
        self.chat(chat_id, |chat| {
            let oldest = chat.events.first().map_or(chat.seq + 1, |(seq, _)| *seq);
            if after + 1 < oldest {
                return None;
            }
            let from = chat.events.partition_point(|(seq, _)| *seq <= after);
            let events = &chat.events[from..];
            if events.len() > max_events {
                return None;
            }
            let mut bytes = 0;
            for (_, event) in events {
                bytes += serde_json::to_string(event).map_or(usize::MAX / 2, |t| t.len());
                if bytes > max_bytes {
                    return None;
                }
            }
            Some(events.to_vec())
        })
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
