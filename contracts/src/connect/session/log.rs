//! The event log behind a hub: a small trait, and the in-memory log a server starts with.

use std::collections::{HashMap, VecDeque};

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

/// `since` is older than the log holds: history after it was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooFarBehind {
    /// The oldest `since` the log can still replay from.
    pub oldest_since: Seq,
}

/// Where a hub writes events and reads them back.
///
/// Events are kept per workspace, in seq order. Each write names the writer's idempotency key,
/// so a resend finds the seq it was written at. Frames that are "now or never" (presence,
/// restart, join, context.edit, ...) never reach the log.
pub trait EventLog {
    /// The seq the next event of `workspace_id` will get.
    fn next_seq(&self, workspace_id: &str) -> Seq;

    /// The seq of the event `writer` wrote under `key` in `workspace_id`, if there is one.
    fn find_key(&self, workspace_id: &str, writer: &str, key: &str) -> Option<Seq>;

    /// Appends an entry whose seq is [`next_seq`](Self::next_seq), under `writer`'s `key`.
    fn append(&mut self, workspace_id: &str, writer: &str, key: &str, entry: LogEntry);

    /// Up to `limit` entries after `since`, in seq order; or [`TooFarBehind`] when events
    /// after `since` were dropped.
    fn read(
        &self,
        workspace_id: &str,
        since: Seq,
        limit: usize,
    ) -> Result<Vec<LogEntry>, TooFarBehind>;
}

/// An in-memory log that keeps the newest `retain` events of each workspace.
///
/// Idempotency keys outlive the events they name, so a resend long after its event was
/// dropped is still answered as a duplicate, never written twice.
#[derive(Debug)]
pub struct MemoryLog {
    retain: usize,
    workspaces: HashMap<String, Workspace>,
}

#[derive(Debug, Default)]
struct Workspace {
    entries: VecDeque<LogEntry>,
    /// The highest seq dropped for retention (0: nothing dropped).
    dropped_through: Seq,
    /// The highest seq written (0: nothing written).
    head: Seq,
    /// (writer, key) to the seq written.
    keys: HashMap<(String, String), Seq>,
}

impl MemoryLog {
    /// The number of events a workspace keeps when none is given.
    pub const DEFAULT_RETAIN: usize = 10_000;

    /// A log that keeps the newest `retain` events of each workspace (at least one).
    pub fn new(retain: usize) -> MemoryLog {
        MemoryLog {
            retain: retain.max(1),
            workspaces: HashMap::new(),
        }
    }

    /// How many events `workspace_id` holds now.
    pub fn len(&self, workspace_id: &str) -> usize {
        self.workspaces
            .get(workspace_id)
            .map_or(0, |w| w.entries.len())
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
    fn next_seq(&self, workspace_id: &str) -> Seq {
        self.workspaces.get(workspace_id).map_or(0, |w| w.head) + 1
    }

    fn find_key(&self, workspace_id: &str, writer: &str, key: &str) -> Option<Seq> {
        let w = self.workspaces.get(workspace_id)?;
        w.keys.get(&(writer.to_owned(), key.to_owned())).copied()
    }

    fn append(&mut self, workspace_id: &str, writer: &str, key: &str, entry: LogEntry) {
        let w = self.workspaces.entry(workspace_id.to_owned()).or_default();
        w.head = w.head.max(entry.seq);
        w.keys
            .insert((writer.to_owned(), key.to_owned()), entry.seq);
        w.entries.push_back(entry);
        while w.entries.len() > self.retain {
            if let Some(dropped) = w.entries.pop_front() {
                w.dropped_through = dropped.seq;
            }
        }
    }

    fn read(
        &self,
        workspace_id: &str,
        since: Seq,
        limit: usize,
    ) -> Result<Vec<LogEntry>, TooFarBehind> {
        let Some(w) = self.workspaces.get(workspace_id) else {
            return Ok(Vec::new());
        };
        if since < w.dropped_through {
            return Err(TooFarBehind {
                oldest_since: w.dropped_through,
            });
        }
        let start = w.entries.partition_point(|e| e.seq <= since);
        Ok(w.entries.iter().skip(start).take(limit).cloned().collect())
    }
}
