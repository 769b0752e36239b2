//! [`SqliteStore`]: the hub's [`Store`] in one SQLite file (rusqlite, bundled; feature
//! `sqlite`).
//!
//! Four tables: `meta` (the life and serial counters), `chats` (id, epoch, the info it was
//! made with, bookmarks, visuals, its last seq), `events` (chat id, seq, the event as JSON)
//! and `queued` (each queued message once, with the seqs that queued it and took it off).
//! Each change is one statement or one transaction ([`Store::append_all`]: several events in
//! one). The database is in WAL mode with `synchronous = NORMAL`: a commit is in the log
//! before the hub sends the event, so it survives the process being killed; a power cut may
//! lose the last commits. A reset deletes the chat's events before it, and the messages that
//! had left the queue by then.
//!
//! An `info` or `reset` event is stored with an empty `queued`; what changed in the queue is
//! written to `queued` in the same transaction: a row for each message added, the seq of the
//! event on each one taken off. So a queued message costs the same to store whatever the
//! queue's depth (the module docs of [`store`](super::store) say why it matters). A queue
//! whose order changed other than by adding at the end and taking off anywhere is written
//! again whole (nothing in the hub does that).
//!
//! # A full disk
//!
//! A write the disk refuses (full, over quota) fails whole, its transaction rolled back, with
//! an error that names the cause; reads go on, and the next write tries again. The store opens
//! on a full disk too, read-only (`crate::storage`): what opening writes (the tables on a new
//! file, WAL mode, the count of lives) waits for the first write that gets through.

use super::store::{Loaded, QueueSpan, Store, StoreError, StoredChat};
use super::{Bookmark, ChatEvent, ChatInfo, QueuedMessage, Seq, Visual};
use crate::storage;
use rusqlite::{Connection, Transaction, params};
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

/// Reads a stored JSON array back, each element through the generated decoder.
fn read_list<T: crate::wire::Decode>(what: &str, text: &str) -> Result<Vec<T>, StoreError> {
    let items: Vec<&serde_json::value::RawValue> = serde_json::from_str(text)
        .map_err(|e| StoreError(format!("a stored {what} list does not read: {e}")))?;
    items.iter().map(|item| read(what, item.get())).collect()
}

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS chats (
        chat_id TEXT PRIMARY KEY,
        made INTEGER NOT NULL,
        epoch INTEGER NOT NULL,
        info TEXT NOT NULL,
        seq INTEGER NOT NULL,
        bookmarks TEXT NOT NULL DEFAULT '[]',
        visuals TEXT NOT NULL DEFAULT '[]'
    );
    CREATE TABLE IF NOT EXISTS events (
        chat_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (chat_id, seq)
    ) WITHOUT ROWID;
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
    tx.prepare_cached("INSERT INTO events (chat_id, seq, event) VALUES (?1, ?2, ?3)")
        .and_then(|mut insert| insert.execute(params![chat_id, seq, text]))
        .map_err(failed)?;
    if let Some(queue) = queue_of(event) {
        store_queue(tx, chat_id, seq, queue)?;
    }
    let changed = tx
        .prepare_cached("UPDATE chats SET seq = ?2 WHERE chat_id = ?1")
        .and_then(|mut update| update.execute(params![chat_id, seq]))
        .map_err(failed)?;
    if changed == 0 {
        return Err(StoreError(format!("no chat {chat_id:?} is stored")));
    }
    Ok(())
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
        let db = Connection::open_in_memory().map_err(failed)?;
        db.execute_batch(SCHEMA).map_err(failed)?;
        Ok(SqliteStore {
            db,
            setup_pending: false,
            life_unstored: None,
            refused: None,
        })
    }

    /// WAL mode and the tables: writes nothing when they are there already.
    fn setup(&self) -> rusqlite::Result<()> {
        storage::ensure_wal(&self.db)?;
        self.db.execute_batch(SCHEMA)
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
                "SELECT chat_id, epoch, info, seq, bookmarks, visuals FROM chats ORDER BY made",
            )
            .map_err(failed)?;
        let found = rows
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, String>(5)?,
                ))
            })
            .map_err(failed)?;
        let mut events = self
            .db
            .prepare("SELECT seq, event FROM events WHERE chat_id = ?1 ORDER BY seq")
            .map_err(failed)?;
        let mut queued = self
            .db
            .prepare(
                "SELECT added, removed, message FROM queued WHERE chat_id = ?1
                 ORDER BY added, position",
            )
            .map_err(failed)?;
        for row in found {
            let (chat_id, epoch, info, seq, bookmarks, visuals) = row.map_err(failed)?;
            let mut chat = StoredChat {
                chat_id: chat_id.clone(),
                epoch,
                info: read("chat info", &info)?,
                events: Vec::new(),
                seq,
                bookmarks: read_list::<Bookmark>("bookmark", &bookmarks)?,
                visuals: read_list::<Visual>("visual", &visuals)?,
                queue: Vec::new(),
            };
            let stored = events
                .query_map(params![chat_id], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
                })
                .map_err(failed)?;
            for event in stored {
                let (seq, event) = event.map_err(failed)?;
                chat.events
                    .push((seq, read::<ChatEvent>("chat event", &event)?));
            }
            let spans = queued
                .query_map(params![chat.chat_id], |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, Option<i64>>(1)?,
                        row.get::<_, String>(2)?,
                    ))
                })
                .map_err(failed)?;
            for span in spans {
                let (added, removed, message) = span.map_err(failed)?;
                chat.queue.push(QueueSpan {
                    added,
                    removed,
                    message: read("queued message", &message)?,
                });
            }
            chats.push(chat);
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
                "INSERT INTO chats (chat_id, made, epoch, info, seq) VALUES (?1, ?2, ?3, ?4, ?5)",
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
        tx.execute("DELETE FROM chats WHERE chat_id = ?1", params![chat_id])
            .map_err(failed)?;
        tx.commit().map_err(failed)
    }
}
