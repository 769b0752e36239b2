//! The durable event log: SQLite (rusqlite, bundled), one file per server (feature `sqlite`).
//!
//! # What is promised
//!
//! A write is one transaction: the key looked up, the workspace's next seq taken, the event
//! and its key stored, the head moved, retention applied, then `COMMIT`. [`EventLog::write`]
//! answers only after the commit returned, so every ack a hub sends names a committed write.
//! The database runs in WAL mode; [`Durability`] says when a commit reaches the disk:
//!
//! - [`Durability::Full`] (the default, `PRAGMA synchronous = FULL`): the WAL is fsynced at
//!   every commit. An acked event survives `kill -9`, an OS crash and a power cut.
//! - [`Durability::Normal`] (`synchronous = NORMAL`): the WAL is fsynced at checkpoints only.
//!   An acked event survives `kill -9` (the WAL is in the OS's page cache), but the newest
//!   commits may be lost on an OS crash or a power cut.
//!
//! `docs/benchmarks.md` measures what each costs in acks per second.
//!
//! # Group commit
//!
//! Between [`begin_group`](EventLog::begin_group) and
//! [`commit_group`](EventLog::commit_group) the writes share one transaction (`BEGIN
//! IMMEDIATE`), each in a savepoint of its own (a duplicate or a failed write rolls back only
//! itself), and the group is one `COMMIT`: one fsync for all of them with `Durability::Full`.
//! The hub acks none of them before that commit ([`Hub::receive_group`](super::Hub::receive_group)).
//!
//! # Tables
//!
//! `workspaces` (head and the highest seq dropped per workspace), `events` (by workspace and
//! seq; the event as JSON text, read back through the generated parser) and `keys` (writer and
//! idempotency key to seq). Nothing is dropped unless a retention is set: with
//! [`retain`](SqliteLog::retain) the newest N events of a workspace are kept, with
//! [`key_retain`](SqliteLog::key_retain) the newest N keys (never fewer than the events kept).
//! Each write stores one key and one seq, so "the newest N keys" are those with a seq above
//! `head - N`, deleted in the same transaction.
//!
//! # A full disk
//!
//! A write the disk refuses (full, over quota) fails whole, rolled back, with an error that
//! names the cause, so it is not acked; reads go on, and the next write tries again. The log
//! opens on a full disk too, read-only (`crate::storage`): what opening writes (the tables
//! on a new file, WAL mode, the schema version) waits for the first write that gets through,
//! and a file without tables reads as an empty log meanwhile.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::log::{EventLog, LogEntry, LogError, ReadError, Seq, TooFarBehind, Written};
use crate::connect::ServerEvent;
use crate::storage;

/// When a commit reaches the disk: [`SqliteLog`]'s promises, one per setting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// `synchronous = FULL`: fsync at every commit. Survives a power cut.
    #[default]
    Full,
    /// `synchronous = NORMAL`: fsync at checkpoints. Survives `kill -9`, not a power cut.
    Normal,
}

impl Durability {
    /// `full` or `normal`.
    pub fn from_name(name: &str) -> Option<Durability> {
        match name {
            "full" => Some(Durability::Full),
            "normal" => Some(Durability::Normal),
            _ => None,
        }
    }

    fn pragma(self) -> &'static str {
        match self {
            Durability::Full => "FULL",
            Durability::Normal => "NORMAL",
        }
    }
}

/// The pragmas a log's connection runs with (they write nothing).
fn pragmas(durability: Durability) -> String {
    format!(
        "PRAGMA synchronous = {}; PRAGMA foreign_keys = ON;",
        durability.pragma()
    )
}

/// The version of the tables below, in `PRAGMA user_version`.
const SCHEMA_VERSION: i64 = 1;

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS workspaces (
    workspace_id TEXT PRIMARY KEY,
    head INTEGER NOT NULL,
    dropped_through INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    workspace_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    space_id TEXT,
    event TEXT NOT NULL,
    PRIMARY KEY (workspace_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS keys (
    workspace_id TEXT NOT NULL,
    writer TEXT NOT NULL,
    key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, writer, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS keys_by_seq ON keys (workspace_id, seq);
";

/// An event log in one SQLite file: a write is one transaction, acked only once committed
/// ([`Durability`] says when a commit reaches the disk).
#[derive(Debug)]
pub struct SqliteLog {
    db: Connection,
    retain: Option<i64>,
    key_retain: Option<i64>,
    /// A group's transaction is open.
    grouped: bool,
    /// What opening could not write (a full disk), written before the first write.
    setup_pending: bool,
    /// The file has no tables yet (made on a full disk): it reads as an empty log.
    empty: bool,
}

/// A SQLite error as the log answers it: a full disk says so ([`storage::describe`]).
fn failed(e: rusqlite::Error) -> LogError {
    LogError(storage::describe(&e))
}

impl SqliteLog {
    /// Opens (or makes) the log in the file `path`, with the promise `durability`. On a full
    /// disk it opens read-only: it serves reads, and what opening could not write is written
    /// at the first write that gets through. A file that cannot be read, or of a newer
    /// version, is an error.
    pub fn open(path: &Path, durability: Durability) -> Result<SqliteLog, LogError> {
        let opened = storage::open(path, &pragmas(durability))
            .map_err(|e| LogError(format!("{}: {}", path.display(), storage::describe(&e))))?;
        let mut log = SqliteLog::on(opened.db)?;
        let refused = match log.setup() {
            Ok(()) => opened.refused,
            Err(e) if storage::is_write_fault(&e) => {
                log.setup_pending = true;
                log.empty = !storage::has_table(&log.db, "events").map_err(failed)?;
                Some(storage::describe(&e))
            }
            Err(e) => return Err(failed(e)),
        };
        if let Some(why) = refused {
            tracing::warn!(
                path = %path.display(),
                error = %why,
                "the event log opened read-only: serving what it holds, refusing writes until the disk takes them again"
            );
        }
        Ok(log)
    }

    /// A log in memory, for tests and benchmarks: nothing survives the process.
    pub fn in_memory() -> Result<SqliteLog, LogError> {
        let db = Connection::open_in_memory().map_err(failed)?;
        db.execute_batch(&pragmas(Durability::Full))
            .map_err(failed)?;
        let log = SqliteLog::on(db)?;
        log.setup().map_err(failed)?;
        Ok(log)
    }

    /// A log on an open database, after its version is checked (a read).
    fn on(db: Connection) -> Result<SqliteLog, LogError> {
        let version: i64 = db
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(failed)?;
        if version > SCHEMA_VERSION {
            return Err(LogError(format!(
                "the database is of version {version}; this server reads version {SCHEMA_VERSION} and older"
            )));
        }
        Ok(SqliteLog {
            db,
            retain: None,
            key_retain: None,
            grouped: false,
            setup_pending: false,
            empty: false,
        })
    }

    /// WAL mode, the tables, the version: a write (one page), so on a full disk it fails,
    /// and the log knows it opened read-only.
    fn setup(&self) -> rusqlite::Result<()> {
        storage::ensure_wal(&self.db)?;
        self.db.execute_batch(TABLES)?;
        self.db
            .execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))
    }

    /// Before a write: what opening could not write, written now.
    fn prepare(&mut self) -> Result<(), LogError> {
        if self.setup_pending {
            self.setup().map_err(failed)?;
            self.setup_pending = false;
            self.empty = false;
        }
        Ok(())
    }

    /// Keeps only the newest `events` events of each workspace (at least one); older ones are
    /// deleted in the transaction that writes past them. Unset: every event is kept.
    pub fn retain(mut self, events: u64) -> SqliteLog {
        self.retain = Some(i64::try_from(events.max(1)).unwrap_or(i64::MAX));
        self.key_retain = self.key_retain.map(|k| k.max(self.retain.unwrap_or(k)));
        self
    }

    /// Remembers only the newest `keys` idempotency keys of each workspace, never fewer than
    /// the events kept. Unset: every key is remembered.
    pub fn key_retain(mut self, keys: u64) -> SqliteLog {
        let keys = i64::try_from(keys).unwrap_or(i64::MAX);
        self.key_retain = Some(self.retain.map_or(keys, |r| keys.max(r)));
        self
    }

    /// How many events `workspace_id` holds now.
    pub fn len(&self, workspace_id: &str) -> Result<u64, LogError> {
        if self.empty {
            return Ok(0);
        }
        self.count(
            "SELECT count(*) FROM events WHERE workspace_id = ?1",
            workspace_id,
        )
    }

    /// How many idempotency keys `workspace_id` remembers now.
    pub fn key_count(&self, workspace_id: &str) -> Result<u64, LogError> {
        if self.empty {
            return Ok(0);
        }
        self.count(
            "SELECT count(*) FROM keys WHERE workspace_id = ?1",
            workspace_id,
        )
    }

    fn count(&self, sql: &str, workspace_id: &str) -> Result<u64, LogError> {
        let n: i64 = self
            .db
            .query_row(sql, [workspace_id], |r| r.get(0))
            .map_err(failed)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// The head and the highest seq dropped, (0, 0) for a workspace never written.
    fn bounds(db: &Connection, workspace_id: &str) -> Result<(Seq, Seq), LogError> {
        let row = db
            .query_row(
                "SELECT head, dropped_through FROM workspaces WHERE workspace_id = ?1",
                [workspace_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(failed)?;
        Ok(row.unwrap_or((0, 0)))
    }
}

/// One write in `db`'s open transaction or savepoint: the key looked up (a duplicate writes
/// nothing), the next seq taken, the event and its key stored, retention applied, the head
/// moved. The caller commits.
fn write_in(
    db: &Connection,
    workspace_id: &str,
    writer: &str,
    key: &str,
    make: &mut dyn FnMut(Seq) -> LogEntry,
    retain: Option<i64>,
    key_retain: Option<i64>,
) -> Result<Written, LogError> {
    let known: Option<Seq> = db
        .query_row(
            "SELECT seq FROM keys WHERE workspace_id = ?1 AND writer = ?2 AND key = ?3",
            params![workspace_id, writer, key],
            |r| r.get(0),
        )
        .optional()
        .map_err(failed)?;
    if let Some(seq) = known {
        return Ok(Written::Duplicate(seq));
    }
    let (head, mut dropped_through) = SqliteLog::bounds(db, workspace_id)?;
    let seq = head + 1;
    let entry = make(seq);
    let text = serde_json::to_string(&entry.event).map_err(|e| LogError(e.to_string()))?;
    db.prepare_cached(
        "INSERT INTO events (workspace_id, seq, space_id, event) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut insert| insert.execute(params![workspace_id, seq, entry.space_id, text]))
    .map_err(failed)?;
    db.prepare_cached("INSERT INTO keys (workspace_id, writer, key, seq) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut insert| insert.execute(params![workspace_id, writer, key, seq]))
        .map_err(failed)?;
    if let Some(retain) = retain
        && seq - retain > dropped_through
    {
        dropped_through = seq - retain;
        db.execute(
            "DELETE FROM events WHERE workspace_id = ?1 AND seq <= ?2",
            params![workspace_id, dropped_through],
        )
        .map_err(failed)?;
    }
    if let Some(keys) = key_retain {
        db.execute(
            "DELETE FROM keys WHERE workspace_id = ?1 AND seq <= ?2",
            params![workspace_id, seq - keys],
        )
        .map_err(failed)?;
    }
    db.prepare_cached(
        "INSERT INTO workspaces (workspace_id, head, dropped_through) VALUES (?1, ?2, ?3)
         ON CONFLICT (workspace_id) DO UPDATE SET head = ?2, dropped_through = ?3",
    )
    .and_then(|mut upsert| upsert.execute(params![workspace_id, seq, dropped_through]))
    .map_err(failed)?;
    Ok(Written::New(seq))
}

impl EventLog for SqliteLog {
    fn head(&self, workspace_id: &str) -> Result<Seq, LogError> {
        if self.empty {
            return Ok(0);
        }
        Ok(SqliteLog::bounds(&self.db, workspace_id)?.0)
    }

    fn find_key(
        &self,
        workspace_id: &str,
        writer: &str,
        key: &str,
    ) -> Result<Option<Seq>, LogError> {
        if self.empty {
            return Ok(None);
        }
        self.db
            .query_row(
                "SELECT seq FROM keys WHERE workspace_id = ?1 AND writer = ?2 AND key = ?3",
                params![workspace_id, writer, key],
                |r| r.get(0),
            )
            .optional()
            .map_err(failed)
    }

    fn write(
        &mut self,
        workspace_id: &str,
        writer: &str,
        key: &str,
        make: &mut dyn FnMut(Seq) -> LogEntry,
    ) -> Result<Written, LogError> {
        self.prepare()?;
        let (retain, key_retain) = (self.retain, self.key_retain);
        if self.grouped {
            // In the group's transaction; its COMMIT is the ack point.
            let sp = self.db.savepoint().map_err(failed)?;
            let written = write_in(&sp, workspace_id, writer, key, make, retain, key_retain)?;
            if let Written::New(_) = written {
                sp.commit().map_err(failed)?;
            }
            return Ok(written);
        }
        // IMMEDIATE: the write lock is taken at BEGIN, so no other writer of the file can take
        // the same seq between the read of the head and the insert.
        let tx = self
            .db
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed)?;
        let written = write_in(&tx, workspace_id, writer, key, make, retain, key_retain)?;
        if let Written::New(_) = written {
            // The ack point: the commit has returned (and, with Durability::Full, been fsynced).
            tx.commit().map_err(failed)?;
        }
        // A duplicate wrote nothing; dropping the transaction rolls it back.
        Ok(written)
    }

    fn begin_group(&mut self) -> Result<(), LogError> {
        self.prepare()?;
        if !self.grouped {
            self.db.execute_batch("BEGIN IMMEDIATE").map_err(failed)?;
            self.grouped = true;
        }
        Ok(())
    }

    fn commit_group(&mut self) -> Result<(), LogError> {
        if !self.grouped {
            return Ok(());
        }
        self.grouped = false;
        if let Err(e) = self.db.execute_batch("COMMIT") {
            // Whatever SQLite kept of the transaction goes: none of the group is stored.
            let _ = self.db.execute_batch("ROLLBACK");
            return Err(failed(e));
        }
        Ok(())
    }

    fn read(
        &self,
        workspace_id: &str,
        since: Seq,
        limit: usize,
    ) -> Result<Vec<LogEntry>, ReadError> {
        let (head, dropped_through) = if self.empty {
            (0, 0)
        } else {
            SqliteLog::bounds(&self.db, workspace_id)?
        };
        if since > head {
            return Err(ReadError::AheadOfHead { head });
        }
        if since < dropped_through {
            return Err(ReadError::TooFarBehind(TooFarBehind {
                oldest_since: dropped_through,
            }));
        }
        if self.empty {
            return Ok(Vec::new());
        }
        let mut query = self
            .db
            .prepare_cached(
                "SELECT seq, space_id, event FROM events
                 WHERE workspace_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
            )
            .map_err(failed)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = query
            .query_map(params![workspace_id, since, limit], |r| {
                Ok((
                    r.get::<_, Seq>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .map_err(failed)?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, space_id, text) = row.map_err(failed)?;
            // Read back through the generated parser: a row that is not a valid event is an
            // error of the store, never a frame sent as it is.
            let event = crate::wire::from_str::<ServerEvent>(&text).map_err(|e| {
                LogError(format!("event {seq} of {workspace_id} does not parse: {e}"))
            })?;
            out.push(LogEntry {
                seq,
                space_id,
                event,
            });
        }
        Ok(out)
    }
}
