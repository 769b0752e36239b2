//! What the SQLite stores (the agent hub's `SqliteStore`, the Agent Connect `SqliteLog`) do
//! when the disk refuses writes: a full disk (`SQLITE_FULL`, ENOSPC), a quota (EDQUOT, which
//! SQLite answers as an I/O error on write), a file system gone read-only.
//!
//! Such a store is read-only while it lasts: a write fails whole (its transaction rolls back,
//! so nothing half-done stays and nothing is answered as stored), its error names the cause
//! ([`describe`]), reads go on, and the next write simply tries again, so writes resume by
//! themselves once space returns.
//!
//! Opening needs no free space when the database exists ([`open`]): a WAL database whose
//! shared-memory index (`-shm`) cannot be made on a full disk is opened in exclusive locking
//! mode instead, which keeps that index in the process's memory. What a store writes when it
//! opens (its tables, a version, a counter) is left for its first write when the disk refuses
//! it then.

use rusqlite::Connection;
use rusqlite::ffi::ErrorCode;
use std::path::Path;

/// Whether `error` is the disk refusing a write (full, over quota, read-only, an I/O error):
/// a condition that may pass, after which the same write succeeds.
pub(crate) fn is_write_fault(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(
            ErrorCode::DiskFull
                | ErrorCode::SystemIoFailure
                | ErrorCode::ReadOnly
                | ErrorCode::CannotOpen
        )
    )
}

/// An error as a store answers it: a write fault says what it is, that nothing was stored and
/// that writes resume by themselves; any other error is SQLite's message.
pub(crate) fn describe(error: &rusqlite::Error) -> String {
    let cause = match error.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => "the disk is full",
        Some(ErrorCode::SystemIoFailure) => "the disk refused the write (an I/O error or a quota)",
        Some(ErrorCode::ReadOnly) => "the database cannot be written (read-only)",
        Some(ErrorCode::CannotOpen) => "a database file cannot be made",
        _ => return error.to_string(),
    };
    format!(
        "{cause} ({error}): nothing was stored; reads go on, and writes resume by themselves once space returns"
    )
}

/// A database opened by [`open`].
pub(crate) struct Opened {
    pub db: Connection,
    /// Why it was opened in exclusive locking mode (the disk refused to make the WAL's
    /// shared-memory index), `None` when it opened as usual.
    pub refused: Option<String>,
}

/// Opens (or makes) the database at `path` in WAL mode, then runs `pragmas` (which must write
/// nothing). On a full disk an existing database still opens, for reads: when the WAL cannot
/// be set up, the file is opened again in exclusive locking mode (the WAL index in memory, no
/// `-shm` to make; other processes cannot open the file meanwhile), and a database that does
/// not exist yet opens empty, in its old journal mode, until its first write.
pub(crate) fn open(path: &Path, pragmas: &str) -> rusqlite::Result<Opened> {
    let db = Connection::open(path)?;
    // journal_mode answers a row, so it is read, not executed.
    match db.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
        Ok(_) => {
            db.execute_batch(pragmas)?;
            Ok(Opened { db, refused: None })
        }
        Err(e) if is_write_fault(&e) => {
            drop(db);
            let db = Connection::open(path)?;
            // Before the first read: then SQLite never makes the shared-memory index.
            db.execute_batch("PRAGMA locking_mode = EXCLUSIVE")?;
            db.execute_batch(pragmas)?;
            // Read now, so a file that cannot be read fails here, not at the first query.
            db.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                r.get::<_, i64>(0)
            })?;
            Ok(Opened {
                db,
                refused: Some(describe(&e)),
            })
        }
        Err(e) => Err(e),
    }
}

/// Sets WAL mode on a database that [`open`] left in its old journal mode (made on a full
/// disk); nothing when it is in WAL mode already.
pub(crate) fn ensure_wal(db: &Connection) -> rusqlite::Result<()> {
    let mode: String = db.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        let _: String = db.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    }
    Ok(())
}

/// Whether the database holds a table called `name`.
pub(crate) fn has_table(db: &Connection, name: &str) -> rusqlite::Result<bool> {
    db.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}
