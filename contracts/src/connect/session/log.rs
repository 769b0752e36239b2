//! The event log behind a hub: a small trait, and the in-memory log a server starts with.
//!
//! A write is one call, [`EventLog::write`]: the key is looked up, the seq given, the event
//! and its key stored, all at once. Whatever the log answers `Ok` for is what a hub acks, so
//! a durable log must have made the write durable before it returns (the ack point).

use std::collections::{HashMap, VecDeque};
use std::fmt;

use crate::connect::ServerEvent;

/// A position in a workspace's log. The first event written is 1.
pub type Seq = i64;

/// One event as the log keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct LogEntry {
    /// Where it sits in its workspace's log.
    pub seq: Seq,
    /// The space it belongs to, for subscriptions by space.
    pub space_id: Option<String>,
    /// The event as subscribers receive it.
    pub event: ServerEvent,
}

/// What a write did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// The event was stored at this seq.
    New(Seq),
    /// The writer's key was already stored, at this seq: nothing was written.
    Duplicate(Seq),
}

impl Written {
    /// The seq the event sits at, new or not.
    pub fn seq(self) -> Seq {
        match self {
            Written::New(seq) | Written::Duplicate(seq) => seq,
        }
    }
}

/// The store failed: a write answered with it was not made, a read has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogError(pub String);

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the event log failed: {}", self.0)
    }
}

impl std::error::Error for LogError {}

/// `since` is older than the log holds: history after it was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooFarBehind {
    /// The oldest `since` the log can still replay from.
    pub oldest_since: Seq,
}

/// Why a read has no events to answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Events after `since` were dropped.
    TooFarBehind(TooFarBehind),
    /// `since` is past the newest event: a log that lost its tail, or a cursor from another
    /// server. Nothing the log will ever hold continues it.
    AheadOfHead {
        /// The newest seq the log holds (0: none).
        head: Seq,
    },
    /// The store failed.
    Log(LogError),
}

impl From<LogError> for ReadError {
    fn from(e: LogError) -> Self {
        ReadError::Log(e)
    }
}

/// Where a hub writes events and reads them back.
///
/// Events are kept per workspace, in seq order, with no gap. Each write names the writer's
/// idempotency key, so a resend finds the seq it was written at, for as long as the log
/// remembers the key. Frames that are "now or never" (presence, restart, join,
/// context.edit, ...) never reach the log.
pub trait EventLog {
    /// The newest seq of `workspace_id` (0: nothing written).
    fn head(&self, workspace_id: &str) -> Result<Seq, LogError>;

    /// The seq of the event `writer` wrote under `key` in `workspace_id`, if it is remembered.
    fn find_key(
        &self,
        workspace_id: &str,
        writer: &str,
        key: &str,
    ) -> Result<Option<Seq>, LogError>;

    /// Writes one event under `writer`'s `key`, as one step: a remembered key answers
    /// [`Written::Duplicate`] and writes nothing; otherwise `make` is called with the next seq
    /// and its entry is stored with the key. Answers only once the write is as safe as the
    /// log promises: a hub acks what this answers.
    fn write(
        &mut self,
        workspace_id: &str,
        writer: &str,
        key: &str,
        make: &mut dyn FnMut(Seq) -> LogEntry,
    ) -> Result<Written, LogError>;

    /// Starts a group of writes made durable together (group commit): until
    /// [`commit_group`](EventLog::commit_group), each [`write`](EventLog::write) is made but
    /// not yet durable, so nothing it answered may be acked or sent before the commit. Reads
    /// see the group's writes. The default does nothing: each write is durable when it
    /// answers, and the commit has nothing to do.
    fn begin_group(&mut self) -> Result<(), LogError> {
        Ok(())
    }

    /// Makes every write of the group durable at once. An error: none of them is stored
    /// (the seqs they took are given again).
    fn commit_group(&mut self) -> Result<(), LogError> {
        Ok(())
    }

    /// Up to `limit` entries after `since`, in seq order: empty when `since` is the head.
    fn read(
        &self,
        workspace_id: &str,
        since: Seq,
        limit: usize,
    ) -> Result<Vec<LogEntry>, ReadError>;
}

/// An in-memory log that keeps the newest `retain` events of each workspace.
///
/// Idempotency keys outlive the events they name: a workspace keeps the newest `key_retain`
/// keys (ten times `retain` unless [`with_key_retain`](Self::with_key_retain) says otherwise,
/// and never fewer than `retain`), so a resend long after its event was dropped is still
/// answered as a duplicate, never written twice, while a writer that makes up a new key for
/// every event cannot grow the log without bound.
#[derive(Clone, Debug)]
pub struct MemoryLog {
    retain: usize,
    key_retain: usize,
    workspaces: HashMap<String, Workspace>,
}

#[derive(Clone, Debug, Default)]
struct Workspace {
    entries: VecDeque<LogEntry>,
    /// The highest seq dropped for retention (0: nothing dropped).
    dropped_through: Seq,
    /// The highest seq written (0: nothing written).
    head: Seq,
    /// Writer, then key, to the seq written: looked up by `&str`, with no allocation.
    keys: HashMap<String, HashMap<String, Seq>>,
    /// The keys in the order they were written, the oldest first: the next to forget.
    key_order: VecDeque<(String, String)>,
}

impl MemoryLog {
    /// The number of events a workspace keeps when none is given.
    pub const DEFAULT_RETAIN: usize = 10_000;

    /// How many idempotency keys a workspace keeps per event it keeps, unless told otherwise.
    pub const KEYS_PER_EVENT: usize = 10;

    /// A log that keeps the newest `retain` events of each workspace (at least one), and the
    /// newest `retain` × [`KEYS_PER_EVENT`](Self::KEYS_PER_EVENT) idempotency keys.
    pub fn new(retain: usize) -> MemoryLog {
        let retain = retain.max(1);
        MemoryLog {
            retain,
            key_retain: retain.saturating_mul(Self::KEYS_PER_EVENT),
            workspaces: HashMap::new(),
        }
    }

    /// The same log, keeping the newest `keys` idempotency keys of each workspace; never fewer
    /// than the events it keeps, so every event the log holds is still found by its key.
    pub fn with_key_retain(mut self, keys: usize) -> MemoryLog {
        self.key_retain = keys.max(self.retain);
        self
    }

    /// How many events `workspace_id` holds now.
    pub fn len(&self, workspace_id: &str) -> usize {
        self.workspaces
            .get(workspace_id)
            .map_or(0, |w| w.entries.len())
    }

    /// How many idempotency keys `workspace_id` remembers now.
    pub fn key_count(&self, workspace_id: &str) -> usize {
        self.workspaces
            .get(workspace_id)
            .map_or(0, |w| w.key_order.len())
    }

    /// Whether `workspace_id` holds no events.
    pub fn is_empty(&self, workspace_id: &str) -> bool {
        self.len(workspace_id) == 0
    }

    /// The entries `workspace_id` holds now, oldest first.
    pub fn entries(&self, workspace_id: &str) -> impl Iterator<Item = &LogEntry> {
        self.workspaces
            .get(workspace_id)
            .into_iter()
            .flat_map(|w| w.entries.iter())
    }
}

impl Default for MemoryLog {
    fn default() -> Self {
        MemoryLog::new(MemoryLog::DEFAULT_RETAIN)
    }
}

impl EventLog for MemoryLog {
    fn head(&self, workspace_id: &str) -> Result<Seq, LogError> {
        Ok(self.workspaces.get(workspace_id).map_or(0, |w| w.head))
    }

    fn find_key(
        &self,
        workspace_id: &str,
        writer: &str,
        key: &str,
    ) -> Result<Option<Seq>, LogError> {
        let Some(w) = self.workspaces.get(workspace_id) else {
            return Ok(None);
        };
        Ok(w.keys.get(writer).and_then(|k| k.get(key)).copied())
    }

    fn write(
        &mut self,
        workspace_id: &str,
        writer: &str,
        key: &str,
        make: &mut dyn FnMut(Seq) -> LogEntry,
    ) -> Result<Written, LogError> {
        if let Some(seq) = self.find_key(workspace_id, writer, key)? {
            return Ok(Written::Duplicate(seq));
        }
        let w = self.workspaces.entry(workspace_id.to_owned()).or_default();
        let seq = w.head + 1;
        let mut entry = make(seq);
        entry.seq = seq;
        w.head = seq;
        w.keys
            .entry(writer.to_owned())
            .or_default()
            .insert(key.to_owned(), seq);
        w.key_order.push_back((writer.to_owned(), key.to_owned()));
        w.entries.push_back(entry);
        while w.entries.len() > self.retain {
            if let Some(dropped) = w.entries.pop_front() {
                w.dropped_through = dropped.seq;
            }
        }
        while w.key_order.len() > self.key_retain {
            let Some((writer, key)) = w.key_order.pop_front() else {
                break;
            };
            if let Some(keys) = w.keys.get_mut(&writer) {
                keys.remove(&key);
                if keys.is_empty() {
                    w.keys.remove(&writer);
                }
            }
        }
        Ok(Written::New(seq))
    }

    fn read(
        &self,
        workspace_id: &str,
        since: Seq,
        limit: usize,
    ) -> Result<Vec<LogEntry>, ReadError> {
        let Some(w) = self.workspaces.get(workspace_id) else {
            return match since {
                ..=0 => Ok(Vec::new()),
                _ => Err(ReadError::AheadOfHead { head: 0 }),
            };
        };
        if since > w.head {
            return Err(ReadError::AheadOfHead { head: w.head });
        }
        if since < w.dropped_through {
            return Err(ReadError::TooFarBehind(TooFarBehind {
                oldest_since: w.dropped_through,
            }));
        }
        let start = w.entries.partition_point(|e| e.seq <= since);
        Ok(w.entries.iter().skip(start).take(limit).cloned().collect())
    }
}
