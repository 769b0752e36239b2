//! The event logs behind the session core: one contract, run against the memory log and the
//! SQLite log, and what only a durable log can do (reopened, everything acked is there).
#![cfg(feature = "sqlite")]

use std::path::PathBuf;

use contracts::connect::session::{
    Config, Durability, EventLog, Hub, Identity, LogEntry, MemoryLog, ReadError, Role, SqliteLog,
    TooFarBehind, Written,
};
use contracts::connect::{Participant, ParticipantKind, ServerEvent, ServerEventMessageNew};
use serde_json::json;

const WS: &str = "ws_1";

fn entry(seq: i64, space: &str, text: &str) -> LogEntry {
    LogEntry {
        seq,
        space_id: Some(space.to_owned()),
        event: ServerEvent::MessageNew(
            ServerEventMessageNew::new(
                seq,
                format!("msg_{seq}"),
                Participant::new("usr_mo", ParticipantKind::Person, "Mo"),
                text.to_owned(),
            )
            .v(1)
            .id(format!("evt_{seq}"))
            .ts(1)
            .workspace_id(WS.to_owned())
            .actor("usr_mo")
            .space_id(space.to_owned()),
        ),
    }
}

fn write(log: &mut dyn EventLog, writer: &str, key: &str, text: &str) -> Written {
    log.write(WS, writer, key, &mut |seq| entry(seq, "s", text))
        .expect("the write succeeds")
}

/// A fresh file in the target's temp dir, removed with its WAL when dropped.
struct TempDb(PathBuf);

impl TempDb {
    fn new(name: &str) -> TempDb {
        let dir = std::env::temp_dir().join(format!("connect-log-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDb(dir)
    }
    fn path(&self) -> PathBuf {
        self.0.join("events.sqlite3")
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What every log must do.
fn the_contract(log: &mut dyn EventLog) {
    assert_eq!(log.head(WS), Ok(0));
    assert_eq!(log.read(WS, 0, 10), Ok(Vec::new()));
    assert_eq!(log.read(WS, 1, 10), Err(ReadError::AheadOfHead { head: 0 }));
    assert_eq!(write(log, "a", "k1", "one"), Written::New(1));
    assert_eq!(write(log, "a", "k2", "two"), Written::New(2));
    // The same key from another writer is another event; a resend is a duplicate, unwritten.
    assert_eq!(write(log, "b", "k1", "three"), Written::New(3));
    assert_eq!(write(log, "a", "k1", "changed"), Written::Duplicate(1));
    assert_eq!(log.head(WS), Ok(3));
    assert_eq!(log.find_key(WS, "a", "k2"), Ok(Some(2)));
    assert_eq!(log.find_key(WS, "c", "k2"), Ok(None));
    let read = log.read(WS, 1, 10).unwrap();
    assert_eq!(read.iter().map(|e| e.seq).collect::<Vec<_>>(), [2, 3]);
    assert_eq!(read[0], entry(2, "s", "two"));
    assert_eq!(log.read(WS, 0, 2).unwrap().len(), 2);
    assert_eq!(log.read(WS, 3, 10), Ok(Vec::new()));
    assert_eq!(log.read(WS, 4, 10), Err(ReadError::AheadOfHead { head: 3 }));
    // Workspaces are apart.
    assert_eq!(log.head("ws_2"), Ok(0));
}

#[test]
fn the_memory_log_keeps_the_contract() {
    the_contract(&mut MemoryLog::default());
}

#[test]
fn the_sqlite_log_keeps_the_contract() {
    the_contract(&mut SqliteLog::in_memory().unwrap());
    let db = TempDb::new("contract");
    the_contract(&mut SqliteLog::open(&db.path(), Durability::Normal).unwrap());
}

#[test]
fn a_reopened_sqlite_log_holds_every_write_its_seqs_continue_and_keys_are_remembered() {
    let db = TempDb::new("reopen");
    {
        let mut log = SqliteLog::open(&db.path(), Durability::Full).unwrap();
        for i in 0..50 {
            write(&mut log, "a", &format!("k{i}"), "x");
        }
        // Dropped without a clean shutdown step: the commits are what counts.
    }
    let mut log = SqliteLog::open(&db.path(), Durability::Full).unwrap();
    assert_eq!(log.head(WS), Ok(50));
    assert_eq!(write(&mut log, "a", "k7", "x"), Written::Duplicate(8));
    assert_eq!(write(&mut log, "a", "k50", "x"), Written::New(51));
    let all = log.read(WS, 0, 100).unwrap();
    assert_eq!(
        all.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=51).collect::<Vec<_>>()
    );
}

#[test]
fn sqlite_retention_drops_the_oldest_and_keys_outlive_their_events() {
    let mut log = SqliteLog::in_memory().unwrap().retain(3).key_retain(5);
    for i in 0..8 {
        write(&mut log, "a", &format!("k{i}"), "x");
    }
    assert_eq!(log.len(WS), Ok(3));
    assert_eq!(log.key_count(WS), Ok(5));
    assert_eq!(
        log.read(WS, 1, 10),
        Err(ReadError::TooFarBehind(TooFarBehind { oldest_since: 5 }))
    );
    assert_eq!(log.read(WS, 5, 10).unwrap().len(), 3);
    // Seq 4's event is gone, its key is not: a resend is still a duplicate.
    assert_eq!(write(&mut log, "a", "k3", "x"), Written::Duplicate(4));
    assert_eq!(log.find_key(WS, "a", "k2"), Ok(None));
    // Never fewer keys than events.
    let log = SqliteLog::in_memory().unwrap().retain(4).key_retain(1);
    let mut log = log;
    for i in 0..6 {
        write(&mut log, "a", &format!("k{i}"), "x");
    }
    assert_eq!(log.key_count(WS), Ok(4));
}

#[test]
fn a_row_that_is_not_an_event_is_an_error_of_the_store_never_sent() {
    let db = TempDb::new("corrupt");
    {
        let mut log = SqliteLog::open(&db.path(), Durability::Normal).unwrap();
        write(&mut log, "a", "k1", "x");
    }
    // Another program writes to the file: the event's text is no longer an event.
    let db2 = rusqlite::Connection::open(db.path()).unwrap();
    db2.execute("UPDATE events SET event = '{\"type\":\"message.new\"}'", [])
        .unwrap();
    drop(db2);
    let log = SqliteLog::open(&db.path(), Durability::Normal).unwrap();
    assert!(matches!(log.read(WS, 0, 10), Err(ReadError::Log(_))));
}

#[test]
fn a_hub_over_sqlite_acks_what_a_reopened_hub_still_holds() {
    let db = TempDb::new("hub");
    let mo = Identity::person(WS, "usr_mo", "Mo", Role::Member);
    let hello = json!({ "frame": "hello", "protocol": { "min": 1, "max": 1 }, "client": { "name": "t", "version": "1" } }).to_string();
    let post = |key: &str| {
        json!({ "frame": "event", "event": { "type": "message.post", "space_id": "s", "text": "t", "idempotency_key": key } }).to_string()
    };
    let ack = |out: Vec<contracts::connect::session::Action>| -> serde_json::Value {
        match &out[0] {
            contracts::connect::session::Action::Send { frame, .. } => {
                serde_json::to_value(frame).unwrap()
            }
            other => panic!("{other:?}"),
        }
    };
    {
        let log = SqliteLog::open(&db.path(), Durability::Full).unwrap();
        let mut hub = Hub::new(Config::default(), log);
        let s = hub.open(mo.clone(), 0);
        hub.receive(s, &hello, 0);
        for k in ["a", "b", "c"] {
            assert_eq!(ack(hub.receive(s, &post(k), 0))["duplicate"], false);
        }
    }
    let log = SqliteLog::open(&db.path(), Durability::Full).unwrap();
    let mut hub = Hub::new(Config::default(), log);
    let s = hub.open(mo, 0);
    hub.receive(s, &hello, 0);
    let again = ack(hub.receive(s, &post("b"), 0));
    assert_eq!(
        (again["seq"].as_i64(), again["duplicate"].as_bool()),
        (Some(2), Some(true))
    );
    let next = ack(hub.receive(s, &post("d"), 0));
    assert_eq!(
        (next["seq"].as_i64(), next["duplicate"].as_bool()),
        (Some(4), Some(false))
    );
}

/// Group commit: frames of three writers handed to the hub as one group (a key twice among
/// them, a ping too) are written in one transaction and acked after its commit, each with
/// its own seq (the repeated key `duplicate` with the first's); a reopened log holds every
/// one, and a group on the memory log answers the same.
#[test]
fn a_group_of_writes_is_acked_once_committed_and_survives_a_reopen() {
    use contracts::connect::session::{Action, SocketId};
    use contracts::port::Incoming;
    fn run<L: EventLog>(log: L) -> Vec<(SocketId, serde_json::Value)> {
        let hello = json!({ "frame": "hello", "protocol": { "min": 1, "max": 1 }, "client": { "name": "t", "version": "1" } }).to_string();
        let post = |key: &str| {
            Incoming::Text(json!({ "frame": "event", "event": { "type": "message.post", "space_id": "s", "text": "t", "idempotency_key": key } }).to_string())
        };
        let mut hub = Hub::new(Config::default(), log);
        let sockets: Vec<SocketId> = ["usr_a", "usr_b", "usr_c"]
            .iter()
            .map(|p| {
                let s = hub.open(Identity::person(WS, p, p, Role::Member), 0);
                hub.receive(s, &hello, 0);
                s
            })
            .collect();
        let ping = Incoming::Text(json!({ "frame": "ping", "ts": 1 }).to_string());
        let group = vec![
            (sockets[0], post("a1")),
            (sockets[1], post("b1")),
            (sockets[2], ping),
            (sockets[0], post("a1")),
            (sockets[2], post("c1")),
            (sockets[1], post("b2")),
        ];
        hub.receive_group(&group, 1)
            .into_iter()
            .filter_map(|a| match a {
                Action::Send { to, frame } => Some((to, serde_json::to_value(frame).unwrap())),
                Action::Close { .. } => None,
            })
            .filter(|(_, f)| f["frame"] == "ack" || f["frame"] == "pong")
            .collect()
    }
    let db = TempDb::new("group");
    let answers = |out: &[(SocketId, serde_json::Value)]| -> Vec<(String, Option<i64>, bool)> {
        out.iter()
            .map(|(_, f)| {
                (
                    f["frame"].as_str().unwrap().to_owned(),
                    f["seq"].as_i64(),
                    f["duplicate"].as_bool().unwrap_or(false),
                )
            })
            .collect()
    };
    let log = SqliteLog::open(&db.path(), Durability::Full).unwrap();
    let grouped = answers(&run(log));
    let expected: Vec<(String, Option<i64>, bool)> = vec![
        ("ack".into(), Some(1), false),
        ("ack".into(), Some(2), false),
        ("pong".into(), None, false),
        ("ack".into(), Some(1), true),
        ("ack".into(), Some(3), false),
        ("ack".into(), Some(4), false),
    ];
    assert_eq!(grouped, expected);
    assert_eq!(answers(&run(MemoryLog::default())), expected);
    let mut reopened = SqliteLog::open(&db.path(), Durability::Full).unwrap();
    assert_eq!(reopened.head(WS).unwrap(), 4);
    assert_eq!(reopened.find_key(WS, "usr_c", "c1").unwrap(), Some(3));
    assert_eq!(write(&mut reopened, "usr_d", "d1", "t"), Written::New(5));
}

/// A memory log whose next group commit can be made to fail, as a disk that fills at the
/// commit does: none of the group is kept.
struct FailingCommit {
    log: MemoryLog,
    before: Option<MemoryLog>,
    fail_next: bool,
}

impl EventLog for FailingCommit {
    fn head(&self, workspace_id: &str) -> Result<i64, contracts::connect::session::LogError> {
        self.log.head(workspace_id)
    }

    fn find_key(
        &self,
        workspace_id: &str,
        writer: &str,
        key: &str,
    ) -> Result<Option<i64>, contracts::connect::session::LogError> {
        self.log.find_key(workspace_id, writer, key)
    }

    fn write(
        &mut self,
        workspace_id: &str,
        writer: &str,
        key: &str,
        make: &mut dyn FnMut(i64) -> LogEntry,
    ) -> Result<Written, contracts::connect::session::LogError> {
        self.log.write(workspace_id, writer, key, make)
    }

    fn begin_group(&mut self) -> Result<(), contracts::connect::session::LogError> {
        self.before = Some(self.log.clone());
        Ok(())
    }

    fn commit_group(&mut self) -> Result<(), contracts::connect::session::LogError> {
        let before = self.before.take();
        if std::mem::take(&mut self.fail_next) {
            self.log = before.expect("a group was begun");
            return Err(contracts::connect::session::LogError(
                "database or disk is full".into(),
            ));
        }
        Ok(())
    }

    fn read(
        &self,
        workspace_id: &str,
        since: i64,
        limit: usize,
    ) -> Result<Vec<LogEntry>, ReadError> {
        self.log.read(workspace_id, since, limit)
    }
}

/// A group whose commit fails (the disk filled under it) leaves memory as the log is: the
/// run it started is not under way, so the harness starts it again on a new connection (it
/// was wedged until a restart, refused as "under way"), and a person's post gets no receipt
/// naming a run the log never held. The group's writers were refused, not acked.
#[test]
fn a_group_whose_commit_fails_leaves_no_run_behind() {
    use contracts::connect::session::{Action, SocketId};
    use contracts::port::Incoming;
    let hello = json!({ "frame": "hello", "protocol": { "min": 1, "max": 1 }, "client": { "name": "t", "version": "1" } }).to_string();
    let run_start = || {
        Incoming::Text(json!({ "frame": "event", "event": { "type": "run.start", "space_id": "s", "idempotency_key": "run-a" } }).to_string())
    };
    let post = |key: &str| {
        Incoming::Text(json!({ "frame": "event", "event": { "type": "message.post", "space_id": "s", "text": "t", "idempotency_key": key } }).to_string())
    };
    let frames = |out: Vec<Action>, to: SocketId| -> Vec<serde_json::Value> {
        out.into_iter()
            .filter_map(|a| match a {
                Action::Send { to: t, frame } if t == to => {
                    Some(serde_json::to_value(frame).unwrap())
                }
                _ => None,
            })
            .collect()
    };
    let log = FailingCommit {
        log: MemoryLog::default(),
        before: None,
        fail_next: true,
    };
    let mut hub = Hub::new(Config::default(), log);
    let harness = Identity::harness(WS, "h_1", "Scout");
    let person = Identity::person(WS, "usr_mo", "Mo", Role::Member);
    let scout = hub.open(harness.clone(), 0);
    let mo = hub.open(person.clone(), 0);
    hub.receive(scout, &hello, 0);
    hub.receive(mo, &hello, 0);
    let failed = hub.receive_group(&[(scout, run_start()), (mo, post("m-0"))], 1);
    for socket in [scout, mo] {
        let told = frames(failed.clone(), socket);
        assert!(
            told.iter().all(|f| f["frame"] == "error"),
            "only refusals after a failed commit: {told:?}"
        );
        assert!(!told.is_empty(), "the writer is told");
    }

    let scout = hub.open(harness, 2);
    let mo = hub.open(person, 2);
    hub.receive(scout, &hello, 2);
    hub.receive(mo, &hello, 2);
    let again = frames(hub.receive_group(&[(scout, run_start())], 3), scout);
    assert_eq!(again[0]["frame"], "ack", "{again:?}");
    assert_eq!(
        (again[0]["seq"].as_i64(), again[0]["duplicate"].as_bool()),
        (Some(1), Some(false))
    );
    // The run the log holds now is the new one: a post is queued behind it.
    let out = hub.receive_group(&[(mo, post("m-1"))], 4);
    let receipts: Vec<_> = frames(out, mo)
        .into_iter()
        .filter(|f| f["frame"] == "receipt")
        .collect();
    assert_eq!(receipts.len(), 1);
    assert_eq!(receipts[0]["run_id"], "run_1");
}
