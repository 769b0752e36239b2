//! [`SqliteStore`]: the hub's [`Store`] in one SQLite file (rusqlite, bundled; feature
//! `sqlite`).
//!
//! Five tables: `meta` (the life and serial counters), `chats` (id, epoch, its info now,
//! bookmarks, visuals, its last seq and last reset), `events` (chat id, seq, the event as JSON,
//! and for a delta the item it grows), `items` (each item of each thread once, at a position,
//! as of the last event that made it whole) and `queued` (each queued message once, with the
//! seqs that queued it and took it off). Each change is one statement or one transaction
//! ([`Store::append_all`]: several events in one). The database is in WAL mode with
//! `synchronous = NORMAL`: a commit is in the log before the hub sends the event, so it
//! survives the process being killed; a power cut may lose the last commits. A reset deletes
//! the chat's events and items before it, and the messages that had left the queue by then.
//!
//! # The thread, a page at a time
//!
//! An `item` event writes its item's row (a new one placed as the reducer places it: before
//! the first item with a greater `historyIndex`, else at the end); a `delta` writes only its
//! event, marked with the item it grows, and whoever reads the item applies the deltas after
//! the row's seq. So a streamed reply costs its text once (and once more in the `item` event
//! that ends it), never again per delta. Positions leave gaps, so an item placed between two
//! others takes one; when none is left the chat's positions are numbered again.
//!
//! # Queued messages
//!
//! An `info` or `reset` event is stored with an empty `queued`; what changed in the queue is
//! written to `queued` in the same transaction: a row for each message added, the seq of the
//! event on each one taken off. So a queued message costs the same to store whatever the
//! queue's depth (the module docs of [`store`](super::store) say why it matters). A queue
//! whose order changed other than by adding at the end and taking off anywhere is written
//! again whole (nothing in the hub does that). What is read back has its queue put back.
//!
//! # Older files
//!
//! A file written before items were kept apart (`user_version` 0) is brought up to date when
//! it is opened, in one transaction: each chat's events are read once, in order, and its
//! items, info and last reset written.
//!
//! # A full disk
//!
//! A write the disk refuses (full, over quota) fails whole, its transaction rolled back, with
//! an error that names the cause; reads go on, and the next write tries again. The store opens
//! on a full disk too, read-only (`crate::storage`): what opening writes (the tables on a new
//! file, WAL mode, the count of lives) waits for the first write that gets through.

use super::store::{Loaded, Store, StoreError, StoredChat, is_live};
use super::thread::{Thread, history_index, item_id};
use super::{Bookmark, ChatEvent, ChatInfo, ChatItem, QueuedMessage, Seq, Visual};
use crate::storage;
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;
use std::collections::HashSet;
use std::path::Path;

/// A store in one SQLite file.
pub struct SqliteStore {
    db: Connection,
    /// The tables or WAL mode could not be made when it opened (a full disk): made before the
    /// first write.
    setup_pending: bool,
    /// This life's number, when the disk refused to store it at [`Store::load`]: stored
    /// before the first write, so a later life never repeats it.
    life_unstored: Option<u64>,
    /// Why the store opened read-only, said once in the log by [`Store::load`].
    refused: Option<String>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.db.path())
            .finish()
    }
}

/// A SQLite error as the store answers it: a full disk says so ([`storage::describe`]).
fn failed(error: rusqlite::Error) -> StoreError {
    StoreError(storage::describe(&error))
}

fn json<T: Serialize + ?Sized>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError(e.to_string()))
}

/// Reads a stored JSON column back through the generated decoder.
fn read<T: crate::wire::Decode>(what: &str, text: &str) -> Result<T, StoreError> {
    crate::wire::from_str(text)
        .map_err(|e| StoreError(format!("a stored {what} does not read: {e}")))
}

/// A chat's info as stored. One stored before the schema bounded its strings (a title over
/// 200 characters, a longer `cwd`) is read with each such string cut to its bound, at a
/// character, and the cut logged: the chat is served on, where refusing it would refuse the
/// whole store. Anything else that does not read is an error.
fn read_info(chat_id: &str, text: &str) -> Result<ChatInfo, StoreError> {
    let mut error = match crate::wire::from_str::<ChatInfo>(text) {
        Ok(info) => return Ok(info),
        Err(e) => e,
    };
    let refused =
        |e: &crate::wire::ParseError| StoreError(format!("a stored chat info does not read: {e}"));
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(text) else {
        return Err(refused(&error));
    };
    let mut cut = Vec::new();
    // A refusal names a few issues at a time: cut those, and read again.
    loop {
        let before = cut.len();
        for issue in error.issues() {
            let bound = crate::wire::string_bound_of(issue.message());
            let at = issue
                .path()
                .iter()
                .try_fold(&mut value, |v, seg| match seg {
                    crate::wire::Seg::Key(k) => v.get_mut(k.as_ref()),
                    crate::wire::Seg::Index(i) => v.get_mut(*i),
                });
            if let (Some(bound), Some(serde_json::Value::String(text))) = (bound, at)
                && let Some((end, _)) = text.char_indices().nth(bound)
            {
                text.truncate(end);
                cut.push(issue.path_string());
            }
        }
        if cut.len() == before {
            return Err(refused(&error));
        }
        match crate::wire::from_str::<ChatInfo>(&value.to_string()) {
            Ok(info) => {
                tracing::warn!(
                    chat_id,
                    fields = ?cut,
                    "a stored chat info was over the schema's bounds: read with those strings cut to them"
                );
                return Ok(info);
            }
            Err(e) => error = e,
        }
    }
}

/// Reads a stored JSON array back, each element through the generated decoder.
fn read_list<T: crate::wire::Decode>(what: &str, text: &str) -> Result<Vec<T>, StoreError> {
    let items: Vec<&serde_json::value::RawValue> = serde_json::from_str(text)
        .map_err(|e| StoreError(format!("a stored {what} list does not read: {e}")))?;
    items.iter().map(|item| read(what, item.get())).collect()
}

/// The file's format, in `PRAGMA user_version`: 1 keeps items apart (0 did not).
const FORMAT: i64 = 1;

const TABLES: &str = "
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS chats (
        chat_id TEXT PRIMARY KEY,
        made INTEGER NOT NULL,
        epoch INTEGER NOT NULL,
        info TEXT NOT NULL,
        seq INTEGER NOT NULL,
        bookmarks TEXT NOT NULL DEFAULT '[]',
        visuals TEXT NOT NULL DEFAULT '[]',
        reset_at INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS events (
        chat_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        delta_of TEXT,
        PRIMARY KEY (chat_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS items (
        chat_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        item_id TEXT NOT NULL,
        history_index INTEGER,
        seq INTEGER NOT NULL,
        live INTEGER NOT NULL,
        item TEXT NOT NULL,
        PRIMARY KEY (chat_id, position),
        UNIQUE (chat_id, item_id)
    );
    CREATE TABLE IF NOT EXISTS queued (
        chat_id TEXT NOT NULL,
        added INTEGER NOT NULL,
        position INTEGER NOT NULL,
        queued_id TEXT NOT NULL,
        removed INTEGER,
        message TEXT NOT NULL,
        PRIMARY KEY (chat_id, added, position)
    ) WITHOUT ROWID;
";

/// Made after an older file's tables have their new columns.
const INDEXES: &str = "
    CREATE INDEX IF NOT EXISTS events_deltas ON events (chat_id, delta_of, seq)
        WHERE delta_of IS NOT NULL;
    CREATE INDEX IF NOT EXISTS items_by_history ON items (chat_id, history_index)
        WHERE history_index IS NOT NULL;
    CREATE INDEX IF NOT EXISTS items_live ON items (chat_id, position) WHERE live;
    CREATE INDEX IF NOT EXISTS queued_now ON queued (chat_id, added, position)
        WHERE removed IS NULL;
";

/// The room between two items' positions, and the first position: an item placed between
/// two others halves the room, so 20 land between two neighbours before the chat's positions
/// are numbered again, and as many before the first.
const GAP: i64 = 1 << 20;
const FIRST: i64 = 1 << 40;

/// Adds one to the counter `key` in `meta` and answers its new value, in a transaction whose
/// commit is checked: an `INSERT .. RETURNING` read with `query_row` answers its row before
/// the commit, and a commit that fails then (a full disk) would go unseen.
fn bump(db: &mut Connection, key: &str) -> rusqlite::Result<i64> {
    let tx = db.transaction()?;
    tx.execute(
        "INSERT INTO meta (key, value) VALUES (?1, 1)
         ON CONFLICT (key) DO UPDATE SET value = value + 1",
        params![key],
    )?;
    let value = tx.query_row(
        "SELECT value FROM meta WHERE key = ?1",
        params![key],
        |row| row.get(0),
    )?;
    tx.commit()?;
    Ok(value)
}

/// The queue a stored `info` or `reset` event carries, which is stored apart.
fn queue_of(event: &ChatEvent) -> Option<&Vec<QueuedMessage>> {
    match event {
        ChatEvent::Info(e) => Some(&e.info.queued),
        ChatEvent::Reset(e) => Some(&e.info.queued),
        _ => None,
    }
}

/// The event as stored: its info's `queued` left empty.
fn without_queue(event: &ChatEvent) -> Result<String, StoreError> {
    match event {
        ChatEvent::Info(e) if !e.info.queued.is_empty() => {
            let mut e = e.clone();
            e.info.queued.clear();
            json(&ChatEvent::Info(e))
        }
        ChatEvent::Reset(e) if !e.info.queued.is_empty() => {
            let mut e = e.clone();
            e.info.queued.clear();
            json(&ChatEvent::Reset(e))
        }
        _ => json(event),
    }
}

/// Stores one event in `tx`: the row, the queue's changes, the chat's seq.
fn store_event(
    tx: &Transaction<'_>,
    chat_id: &str,
    seq: Seq,
    event: &ChatEvent,
) -> Result<(), StoreError> {
    if matches!(event, ChatEvent::Reset(_)) {
        tx.execute(
            "DELETE FROM events WHERE chat_id = ?1 AND seq < ?2",
            params![chat_id, seq],
        )
        .map_err(failed)?;
        tx.execute(
            "DELETE FROM queued WHERE chat_id = ?1 AND removed <= ?2",
            params![chat_id, seq],
        )
        .map_err(failed)?;
    }
    let text = without_queue(event)?;
    let delta_of = match event {
        ChatEvent::Delta(e) => Some(e.item_id.as_str()),
        _ => None,
    };
    tx.prepare_cached("INSERT INTO events (chat_id, seq, event, delta_of) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut insert| insert.execute(params![chat_id, seq, text, delta_of]))
        .map_err(failed)?;
    if let Some(queue) = queue_of(event) {
        store_queue(tx, chat_id, seq, queue)?;
    }
    apply_event(tx, chat_id, seq, event)?;

    let changed = tx
        .prepare_cached("UPDATE chats SET seq = ?2 WHERE chat_id = ?1")
        .and_then(|mut update| update.execute(params![chat_id, seq]))
        .map_err(failed)?;
    if changed == 0 {
        return Err(StoreError(format!("no chat {chat_id:?} is stored")));
    }
    Ok(())
}

/// Applies a stored event to the chat's thread and info: an `item` writes its row, an `info`
/// the chat's info, a `reset` both (every row before it gone). A delta changes no row.
fn apply_event(
    tx: &Transaction<'_>,
    chat_id: &str,
    seq: Seq,
    event: &ChatEvent,
) -> Result<(), StoreError> {
    match event {
        ChatEvent::Item(e) => upsert_item(tx, chat_id, seq, &e.item),
        ChatEvent::Delta(_) => Ok(()),
        ChatEvent::Info(e) => set_info(tx, chat_id, &e.info, None),
        ChatEvent::Reset(e) => {
            tx.execute("DELETE FROM items WHERE chat_id = ?1", params![chat_id])
                .map_err(failed)?;
            for (at, item) in (0..).zip(&e.items) {
                insert_item(tx, chat_id, FIRST + at * GAP, seq, item)?;
            }
            set_info(tx, chat_id, &e.info, Some(seq))
        }
    }
}

/// The chat's info now (without its queue, kept apart), and its last reset.
fn set_info(
    tx: &Transaction<'_>,
    chat_id: &str,
    info: &ChatInfo,
    reset_at: Option<Seq>,
) -> Result<(), StoreError> {
    let mut info = info.clone();
    info.queued.clear();
    let info = json(&info)?;
    tx.prepare_cached(
        "UPDATE chats SET info = ?2, reset_at = coalesce(?3, reset_at) WHERE chat_id = ?1",
    )
    .and_then(|mut update| update.execute(params![chat_id, info, reset_at]))
    .map_err(failed)?;
    Ok(())
}

fn insert_item(
    tx: &Transaction<'_>,
    chat_id: &str,
    position: i64,
    seq: Seq,
    item: &ChatItem,
) -> Result<(), StoreError> {
    let text = json(item)?;
    tx.prepare_cached(
        "INSERT INTO items (chat_id, position, item_id, history_index, seq, live, item)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )
    .and_then(|mut insert| {
        insert.execute(params![
            chat_id,
            position,
            item_id(item),
            history_index(item),
            seq,
            is_live(item),
            text
        ])
    })
    .map_err(failed)?;
    Ok(())
}

/// An `item` event: replaces the row of the item with this id, or inserts one where the
/// reducer would ([`Thread::upsert`]).
fn upsert_item(
    tx: &Transaction<'_>,
    chat_id: &str,
    seq: Seq,
    item: &ChatItem,
) -> Result<(), StoreError> {
    let text = json(item)?;
    let replaced = tx
        .prepare_cached(
            "UPDATE items SET history_index = ?3, seq = ?4, live = ?5, item = ?6
             WHERE chat_id = ?1 AND item_id = ?2",
        )
        .and_then(|mut update| {
            update.execute(params![
                chat_id,
                item_id(item),
                history_index(item),
                seq,
                is_live(item),
                &text
            ])
        })
        .map_err(failed)?;
    if replaced > 0 {
        return Ok(());
    }
    let position = match place(tx, chat_id, item)? {
        Some(position) => position,
        None => {
            renumber(tx, chat_id)?;
            place(tx, chat_id, item)?
                .ok_or_else(|| StoreError("no position is left after renumbering".into()))?
        }
    };
    insert_item(tx, chat_id, position, seq, item)
}

/// Where a new item goes: before the first item with a greater `historyIndex`, else at the
/// end; `None` when no position is free there.
fn place(tx: &Transaction<'_>, chat_id: &str, item: &ChatItem) -> Result<Option<i64>, StoreError> {
    let query = |sql: &str, value: i64| -> Result<Option<i64>, StoreError> {
        tx.prepare_cached(sql)
            .and_then(|mut q| q.query_row(params![chat_id, value], |r| r.get(0)))
            .map_err(failed)
    };
    let next = match history_index(item) {
        Some(h) => query(
            "SELECT min(position) FROM items WHERE chat_id = ?1 AND history_index > ?2",
            h,
        )?,
        None => None,
    };
    let Some(next) = next else {
        let last = query(
            "SELECT max(position) FROM items WHERE chat_id = ?1 AND position < ?2",
            i64::MAX,
        )?;
        return Ok(Some(last.map_or(FIRST, |last| last + GAP)));
    };
    let before = query(
        "SELECT max(position) FROM items WHERE chat_id = ?1 AND position < ?2",
        next,
    )?;
    let low = before.unwrap_or(next - 2 * GAP).max(0);
    Ok((next - low >= 2).then(|| low + (next - low) / 2))
}

/// Numbers a chat's items again, `GAP` apart from `FIRST`, in their order. (A history cursor
/// made before names a position that may hold another item now: the hub answers it
/// `history-expired`.)
fn renumber(tx: &Transaction<'_>, chat_id: &str) -> Result<(), StoreError> {
    // Through negative positions, so no two rows ever share one.
    tx.execute(
        "UPDATE items SET position = -1 - position WHERE chat_id = ?1",
        params![chat_id],
    )
    .map_err(failed)?;
    let positions: Vec<i64> = tx
        .prepare("SELECT position FROM items WHERE chat_id = ?1 ORDER BY position DESC")
        .and_then(|mut q| {
            q.query_map(params![chat_id], |r| r.get(0))?
                .collect::<Result<_, _>>()
        })
        .map_err(failed)?;
    let mut update = tx
        .prepare("UPDATE items SET position = ?3 WHERE chat_id = ?1 AND position = ?2")
        .map_err(failed)?;
    for (at, old) in (0..).zip(positions) {
        update
            .execute(params![chat_id, old, FIRST + at * GAP])
            .map_err(failed)?;
    }
    Ok(())
}

/// An item as stored at `seq`, with the deltas stored after it applied (by the reducer).
fn grown(db: &Connection, chat_id: &str, seq: Seq, item: &str) -> Result<ChatItem, StoreError> {
    let item: ChatItem = read("thread item", item)?;
    let mut deltas = db
        .prepare_cached(
            "SELECT event FROM events WHERE chat_id = ?1 AND delta_of = ?2 AND seq > ?3
             ORDER BY seq",
        )
        .map_err(failed)?;
    let mut rows = deltas
        .query(params![chat_id, item_id(&item), seq])
        .map_err(failed)?;
    let mut thread = Thread {
        info: None,
        items: vec![item],
    };
    while let Some(row) = rows.next().map_err(failed)? {
        let event: String = row.get(0).map_err(failed)?;
        thread.apply(&read::<ChatEvent>("chat event", &event)?);
    }
    Ok(thread.items.remove(0))
}

/// The queue as it was after the event at `seq`: the messages added by then and not yet taken
/// off.
fn queue_at(db: &Connection, chat_id: &str, seq: Seq) -> Result<Vec<QueuedMessage>, StoreError> {
    let mut q = db
        .prepare_cached(
            "SELECT message FROM queued WHERE chat_id = ?1 AND added <= ?2
             AND (removed IS NULL OR removed > ?2) ORDER BY added, position",
        )
        .map_err(failed)?;
    let messages: Vec<String> = q
        .query_map(params![chat_id, seq], |r| r.get(0))
        .and_then(Iterator::collect)
        .map_err(failed)?;
    messages.iter().map(|m| read("queued message", m)).collect()
}

/// A stored event with its queue put back.
fn with_queue(
    db: &Connection,
    chat_id: &str,
    seq: Seq,
    mut event: ChatEvent,
) -> Result<ChatEvent, StoreError> {
    match &mut event {
        ChatEvent::Info(e) => e.info.queued = queue_at(db, chat_id, seq)?,
        ChatEvent::Reset(e) => e.info.queued = queue_at(db, chat_id, seq)?,
        _ => {}
    }
    Ok(event)
}

/// Whether `table` has `column`.
fn has_column(db: &Connection, table: &str, column: &str) -> Result<bool, StoreError> {
    let mut q = db
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .map_err(failed)?;
    let names: Vec<String> = q
        .query_map([], |r| r.get(0))
        .and_then(Iterator::collect)
        .map_err(failed)?;
    Ok(names.iter().any(|n| n == column))
}

/// Brings a file of format 0 up to date: the new columns, then each chat's items, info and
/// last reset from its events, read once in order. A stored row that does not read is an error
/// of its own (`UserFunctionError`), so a write the disk refuses is still seen as one.
fn upgrade(db: &mut Connection) -> rusqlite::Result<()> {
    let unreadable = |e: StoreError| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    };
    let tx = db.transaction()?;
    if !has_column(&tx, "events", "delta_of").map_err(unreadable)? {
        tx.execute_batch("ALTER TABLE events ADD COLUMN delta_of TEXT")?;
    }
    if !has_column(&tx, "chats", "reset_at").map_err(unreadable)? {
        tx.execute_batch("ALTER TABLE chats ADD COLUMN reset_at INTEGER NOT NULL DEFAULT 0")?;
    }
    tx.execute_batch(
        "DELETE FROM items;
         UPDATE chats SET reset_at = epoch << 32;
         UPDATE events SET delta_of = json_extract(event, '$.itemId')
             WHERE json_extract(event, '$.type') = 'delta';",
    )?;
    let chats: Vec<String> = tx
        .prepare("SELECT chat_id FROM chats")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for chat_id in chats {
        let mut events =
            tx.prepare("SELECT seq, event FROM events WHERE chat_id = ?1 ORDER BY seq")?;
        let mut rows = events.query(params![chat_id])?;
        while let Some(row) = rows.next()? {
            let seq: Seq = row.get(0)?;
            let event: String = row.get(1)?;
            let event = read("chat event", &event).map_err(unreadable)?;
            apply_event(&tx, &chat_id, seq, &event).map_err(unreadable)?;
        }
    }
    tx.pragma_update(None, "user_version", FORMAT)?;
    tx.commit()
}

/// Writes what changed between the stored queue and `queue`, the queue after the event at
/// `seq`: the messages gone marked removed at `seq`, the new ones added at `seq`.
fn store_queue(
    tx: &Transaction<'_>,
    chat_id: &str,
    seq: Seq,
    queue: &[QueuedMessage],
) -> Result<(), StoreError> {
    let mut now = tx
        .prepare_cached(
            "SELECT added, position, message FROM queued
             WHERE chat_id = ?1 AND removed IS NULL ORDER BY added, position",
        )
        .map_err(failed)?;
    let stored: Vec<(i64, i64, String)> = now
        .query_map(params![chat_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .and_then(Iterator::collect)
        .map_err(failed)?;
    let texts: Vec<String> = queue.iter().map(json).collect::<Result<_, _>>()?;
    let queued: HashSet<&str> = texts.iter().map(String::as_str).collect();
    // The stored messages still queued, in order, must be the queue's first ones: else the
    // queue is written again whole.
    let kept: Vec<&(i64, i64, String)> = stored
        .iter()
        .filter(|(_, _, text)| queued.contains(text.as_str()))
        .collect();
    let in_order = kept.len() <= texts.len()
        && kept
            .iter()
            .zip(&texts)
            .all(|((_, _, stored), text)| stored == text);
    let (gone, new): (Vec<&(i64, i64, String)>, &[String]) = if in_order {
        let gone = stored
            .iter()
            .filter(|(_, _, text)| !queued.contains(text.as_str()))
            .collect();
        (gone, &texts[kept.len()..])
    } else {
        (stored.iter().collect(), &texts[..])
    };
    let mut remove = tx
        .prepare_cached(
            "UPDATE queued SET removed = ?4 WHERE chat_id = ?1 AND added = ?2 AND position = ?3",
        )
        .map_err(failed)?;
    for (added, position, _) in gone {
        remove
            .execute(params![chat_id, added, position, seq])
            .map_err(failed)?;
    }
    let mut add = tx
        .prepare_cached(
            "INSERT INTO queued (chat_id, added, position, queued_id, message)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .map_err(failed)?;
    let first = queue.len() - new.len();
    for (position, text) in new.iter().enumerate() {
        add.execute(params![
            chat_id,
            seq,
            position as i64,
            queue[first + position].queued_id,
            text
        ])
        .map_err(failed)?;
    }
    Ok(())
}

impl SqliteStore {
    /// Opens (or makes) the database at `path`. On a full disk it opens read-only (see the
    /// [module docs](self)); a database that cannot be read is an error.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let opened =
            storage::open(path.as_ref(), "PRAGMA synchronous = NORMAL;").map_err(failed)?;
        let mut store = SqliteStore {
            db: opened.db,
            setup_pending: false,
            life_unstored: None,
            refused: opened.refused,
        };
        match store.setup() {
            Ok(()) => {}
            Err(e) if storage::is_write_fault(&e) => {
                store.setup_pending = true;
                store.refused.get_or_insert_with(|| storage::describe(&e));
            }
            Err(e) => return Err(failed(e)),
        }
        Ok(store)
    }

    /// An in-memory database, for tests of the SQL.
    pub fn open_in_memory() -> Result<SqliteStore, StoreError> {
        let mut store = SqliteStore {
            db: Connection::open_in_memory().map_err(failed)?,
            setup_pending: false,
            life_unstored: None,
            refused: None,
        };
        store.setup().map_err(failed)?;
        Ok(store)
    }

    /// WAL mode, the tables (a file of an older format brought up to date, see the
    /// [module docs](self)) and their indexes: writes nothing when they are there already.
    fn setup(&mut self) -> rusqlite::Result<()> {
        storage::ensure_wal(&self.db)?;
        let old = storage::has_table(&self.db, "chats")?;
        let format: i64 = self
            .db
            .pragma_query_value(None, "user_version", |r| r.get(0))?;
        self.db.execute_batch(TABLES)?;
        if format < FORMAT {
            if old {
                upgrade(&mut self.db)?;
            } else {
                self.db.pragma_update(None, "user_version", FORMAT)?;
            }
        }
        self.db.execute_batch(INDEXES)
    }

    /// Before a write: what opening could not write, written now.
    fn prepare(&mut self) -> Result<(), StoreError> {
        if self.setup_pending {
            self.setup().map_err(failed)?;
            self.setup_pending = false;
        }
        if let Some(life) = self.life_unstored {
            self.db
                .execute(
                    "INSERT INTO meta (key, value) VALUES ('life', ?1)
                     ON CONFLICT (key) DO UPDATE SET value = max(value, ?1)",
                    params![life as i64],
                )
                .map_err(failed)?;
            self.life_unstored = None;
        }
        Ok(())
    }

    /// This life's number: one more than the stored count, stored now, or, when the disk
    /// refuses, at the first write ([`SqliteStore::prepare`]).
    fn new_life(&mut self) -> Result<u64, StoreError> {
        if !self.setup_pending {
            match bump(&mut self.db, "life") {
                Ok(life) => return Ok(life as u64),
                Err(e) if storage::is_write_fault(&e) => {
                    self.refused.get_or_insert_with(|| storage::describe(&e));
                }
                Err(e) => return Err(failed(e)),
            }
        }
        let stored: i64 = if storage::has_table(&self.db, "meta").map_err(failed)? {
            self.db
                .query_row(
                    "SELECT coalesce(max(value), 0) FROM meta WHERE key = 'life'",
                    [],
                    |row| row.get(0),
                )
                .map_err(failed)?
        } else {
            0
        };
        let life = stored as u64 + 1;
        self.life_unstored = Some(life);
        Ok(life)
    }

    /// Adds one to a counter in `meta` and answers it.
    fn count(&mut self, key: &str) -> Result<u64, StoreError> {
        self.prepare()?;
        let value = bump(&mut self.db, key).map_err(failed)?;
        Ok(value as u64)
    }

    fn update(&mut self, sql: &str, chat_id: &str, value: &str) -> Result<(), StoreError> {
        self.prepare()?;
        let changed = self
            .db
            .execute(sql, params![chat_id, value])
            .map_err(failed)?;
        if changed == 0 {
            return Err(StoreError(format!("no chat {chat_id:?} is stored")));
        }
        Ok(())
    }
}

impl Store for SqliteStore {
    fn load(&mut self) -> Result<Loaded, StoreError> {
        let life = self.new_life()?;
        if let Some(why) = &self.refused {
            tracing::warn!(
                path = ?self.db.path(),
                error = %why,
                "the store opened read-only: serving what it holds, refusing changes until the disk takes writes again"
            );
        }
        let mut chats = Vec::new();
        if !storage::has_table(&self.db, "chats").map_err(failed)? {
            // A new file the disk refused to make the tables in: nothing stored yet.
            return Ok(Loaded { life, chats });
        }
        let mut rows = self
            .db
            .prepare(
                "SELECT chat_id, epoch, info, seq, reset_at, bookmarks, visuals FROM chats
                 ORDER BY made",
            )
            .map_err(failed)?;
        let found = rows
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, i64>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, String>(6)?,
                ))
            })
            .map_err(failed)?;
        let mut queued = self
            .db
            .prepare(
                "SELECT message FROM queued WHERE chat_id = ?1 AND removed IS NULL
                 ORDER BY added, position",
            )
            .map_err(failed)?;
        let mut live = self
            .db
            .prepare("SELECT seq, item FROM items WHERE chat_id = ?1 AND live ORDER BY position")
            .map_err(failed)?;
        for row in found {
            let (chat_id, epoch, info, seq, reset_at, bookmarks, visuals) = row.map_err(failed)?;
            let mut info = read_info(&chat_id, &info)?;
            info.queued = queued
                .query_map(params![chat_id], |r| r.get::<_, String>(0))
                .and_then(Iterator::collect::<Result<Vec<_>, _>>)
                .map_err(failed)?
                .iter()
                .map(|m| read("queued message", m))
                .collect::<Result<_, _>>()?;
            let items: Vec<(i64, String)> = live
                .query_map(params![chat_id], |r| Ok((r.get(0)?, r.get(1)?)))
                .and_then(Iterator::collect)
                .map_err(failed)?;
            let live = items
                .iter()
                .map(|(seq, item)| grown(&self.db, &chat_id, *seq, item))
                .collect::<Result<_, _>>()?;
            chats.push(StoredChat {
                chat_id,
                epoch,
                info,
                seq,
                reset_at,
                bookmarks: read_list::<Bookmark>("bookmark", &bookmarks)?,
                visuals: read_list::<Visual>("visual", &visuals)?,
                live,
            });
        }
        Ok(Loaded { life, chats })
    }

    fn next_serial(&mut self) -> Result<u64, StoreError> {
        self.count("serial")
    }

    fn create_chat(
        &mut self,
        chat_id: &str,
        epoch: i64,
        info: &ChatInfo,
    ) -> Result<(), StoreError> {
        let made = self.count("made")?;
        self.db
            .execute(
                "INSERT INTO chats (chat_id, made, epoch, info, seq, reset_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![chat_id, made as i64, epoch, json(info)?, epoch << 32],
            )
            .map_err(failed)?;
        Ok(())
    }

    fn append(&mut self, chat_id: &str, seq: Seq, event: &ChatEvent) -> Result<(), StoreError> {
        self.prepare()?;
        let tx = self.db.transaction().map_err(failed)?;
        store_event(&tx, chat_id, seq, event)?;
        tx.commit().map_err(failed)
    }

    fn append_all(&mut self, events: &[(&str, Seq, &ChatEvent)]) -> Result<(), StoreError> {
        // One transaction: one commit for all of them (group commit), or none stored.
        self.prepare()?;
        let tx = self.db.transaction().map_err(failed)?;
        for (chat_id, seq, event) in events {
            store_event(&tx, chat_id, *seq, event)?;
        }
        tx.commit().map_err(failed)
    }

    fn items_before(
        &mut self,
        chat_id: &str,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<(i64, ChatItem)>, StoreError> {
        let rows: Vec<(i64, i64, String)> = self
            .db
            .prepare_cached(
                "SELECT position, seq, item FROM items WHERE chat_id = ?1 AND position < ?2
                 ORDER BY position DESC LIMIT ?3",
            )
            .and_then(|mut q| {
                q.query_map(
                    params![
                        chat_id,
                        before.unwrap_or(i64::MAX),
                        limit.min(i64::MAX as usize) as i64
                    ],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )?
                .collect()
            })
            .map_err(failed)?;
        rows.iter()
            .rev()
            .map(|(position, seq, item)| Ok((*position, grown(&self.db, chat_id, *seq, item)?)))
            .collect()
    }

    fn count_before(&mut self, chat_id: &str, position: i64) -> Result<u64, StoreError> {
        let count: i64 = self
            .db
            .prepare_cached("SELECT count(*) FROM items WHERE chat_id = ?1 AND position < ?2")
            .and_then(|mut q| q.query_row(params![chat_id, position], |r| r.get(0)))
            .map_err(failed)?;
        Ok(count as u64)
    }

    fn item(&mut self, chat_id: &str, id: &str) -> Result<Option<ChatItem>, StoreError> {
        let row: Option<(i64, String)> = self
            .db
            .prepare_cached("SELECT seq, item FROM items WHERE chat_id = ?1 AND item_id = ?2")
            .and_then(|mut q| {
                q.query_row(params![chat_id, id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .map_err(failed)?;
        row.map(|(seq, item)| grown(&self.db, chat_id, seq, &item))
            .transpose()
    }

    fn events_after(
        &mut self,
        chat_id: &str,
        after: Seq,
        max_events: usize,
        max_bytes: usize,
    ) -> Result<Option<Vec<(Seq, ChatEvent)>>, StoreError> {
        // The oldest event held, or the next seq when none is.
        let oldest: Option<i64> = self
            .db
            .prepare_cached(
                "SELECT coalesce((SELECT min(seq) FROM events WHERE chat_id = ?1), seq + 1)
                 FROM chats WHERE chat_id = ?1",
            )
            .and_then(|mut q| q.query_row(params![chat_id], |r| r.get(0)).optional())
            .map_err(failed)?;
        let Some(oldest) = oldest else {
            return Err(StoreError(format!("no chat {chat_id:?} is stored")));
        };
        if after + 1 < oldest {
            return Ok(None);
        }
        let mut q = self
            .db
            .prepare_cached(
                "SELECT seq, event FROM events WHERE chat_id = ?1 AND seq > ?2 ORDER BY seq
                 LIMIT ?3",
            )
            .map_err(failed)?;
        let mut rows = q
            .query(params![chat_id, after, max_events.saturating_add(1) as i64])
            .map_err(failed)?;
        let mut found = Vec::new();
        let mut bytes = 0usize;
        while let Some(row) = rows.next().map_err(failed)? {
            let seq: Seq = row.get(0).map_err(failed)?;
            let text: String = row.get(1).map_err(failed)?;
            bytes += text.len();
            if found.len() == max_events || bytes > max_bytes {
                return Ok(None);
            }
            found.push((seq, text));
        }
        found
            .into_iter()
            .map(|(seq, text)| {
                let event = read::<ChatEvent>("chat event", &text)?;
                Ok((seq, with_queue(&self.db, chat_id, seq, event)?))
            })
            .collect::<Result<_, _>>()
            .map(Some)
    }

    fn set_bookmarks(&mut self, chat_id: &str, bookmarks: &[Bookmark]) -> Result<(), StoreError> {
        self.update(
            "UPDATE chats SET bookmarks = ?2 WHERE chat_id = ?1",
            chat_id,
            &json(bookmarks)?,
        )
    }

    fn set_visuals(&mut self, chat_id: &str, visuals: &[Visual]) -> Result<(), StoreError> {
        self.update(
            "UPDATE chats SET visuals = ?2 WHERE chat_id = ?1",
            chat_id,
            &json(visuals)?,
        )
    }

    fn remove_chat(&mut self, chat_id: &str) -> Result<(), StoreError> {
        self.prepare()?;
        let tx = self.db.transaction().map_err(failed)?;
        tx.execute("DELETE FROM events WHERE chat_id = ?1", params![chat_id])
            .map_err(failed)?;
        tx.execute("DELETE FROM queued WHERE chat_id = ?1", params![chat_id])
            .map_err(failed)?;
        tx.execute("DELETE FROM items WHERE chat_id = ?1", params![chat_id])
            .map_err(failed)?;
        tx.execute("DELETE FROM chats WHERE chat_id = ?1", params![chat_id])
            .map_err(failed)?;
        tx.commit().map_err(failed)
    }
}
