//! The thread a page at a time: the SQLite store answers the same pages, items, replays and
//! loads as the memory store (which keeps every thread whole, by the reducer) for the same
//! events: items placed between others until the positions are numbered again, deltas, items
//! replaced, live items, queues kept apart, a reset; and a file of the older format (events
//! only) is brought up to date when it is opened.
#![cfg(feature = "sqlite")]

use contracts::agent::sqlite::SqliteStore;
use contracts::agent::store::{MemoryStore, Store};
use contracts::agent::thread::{Thread, item_id};
use contracts::agent::{ChatEvent, ChatInfo, ChatItem, Seq};
use serde_json::{Value, json};
use std::path::PathBuf;

const CHAT: &str = "c1";
const EPOCH: i64 = 7;

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("agent.sqlite3")
}

fn info(state: &str, queued: &[&str]) -> Value {
    let queued: Vec<Value> = queued
        .iter()
        .map(|q| json!({ "queuedId": q, "text": format!("text of {q}"), "queuedAt": 1 }))
        .collect();
    json!({
        "chatId": CHAT, "title": "t", "state": state, "provider": "echo",
        "createdAt": 1, "updatedAt": 2, "queued": queued, "requests": [],
    })
}

fn event(value: Value) -> ChatEvent {
    contracts::wire::from_str(&value.to_string()).unwrap()
}

fn user(id: &str, index: Option<i64>) -> ChatEvent {
    let mut item =
        json!({ "kind": "user", "id": id, "text": format!("said {id}"), "createdAt": 1 });
    if let Some(index) = index {
        item["historyIndex"] = json!(index);
    }
    event(json!({ "type": "item", "item": item }))
}

fn reply(id: &str, index: i64, text: &str, streaming: bool) -> ChatEvent {
    event(json!({ "type": "item", "item": {
        "kind": "reply", "id": id, "historyIndex": index, "text": text,
        "streaming": streaming, "createdAt": 1,
    }}))
}

fn approval(id: &str, index: i64, state: &str) -> ChatEvent {
    event(json!({ "type": "item", "item": {
        "kind": "approval", "id": id, "historyIndex": index, "toolUseId": format!("t{id}"),
        "tool": "bash", "summary": "ls", "input": { "cmd": "ls" }, "state": state,
    }}))
}

fn delta(id: &str, text: &str) -> ChatEvent {
    event(json!({ "type": "delta", "itemId": id, "text": text }))
}

fn info_event(state: &str, queued: &[&str]) -> ChatEvent {
    event(json!({ "type": "info", "info": info(state, queued) }))
}

/// The events of a chat's life: appends, items placed between others (30 between the same
/// two neighbours, more than the positions' room), streaming replies and their deltas, an
/// approval allowed, a queue that grows and shrinks; a reset; more of the same after it.
fn script() -> Vec<ChatEvent> {
    let mut events = Vec::new();
    for round in 0..2 {
        let base = round * 1000;
        for n in 0..12 {
            events.push(user(&format!("u{round}.{n}"), Some(base + 100 * n)));
            let r = format!("r{round}.{n}");
            events.push(reply(&r, base + 100 * n + 50, "", true));
            for word in ["one ", "two ", "three"] {
                events.push(delta(&r, word));
            }
            if n % 3 != 0 {
                events.push(reply(&r, base + 100 * n + 50, "one two three", false));
            }
            let queue: Vec<String> = (0..n % 4).map(|q| format!("q{round}.{n}.{q}")).collect();
            let queue: Vec<&str> = queue.iter().map(String::as_str).collect();
            events.push(info_event("running", &queue));
        }
        // Between u.1 (100) and its reply (150), each one before the last placed: 30 halvings.
        for k in 0..30 {
            events.push(user(&format!("between{round}.{k}"), Some(base + 149 - k)));
        }
        // No historyIndex: at the end.
        events.push(user(&format!("plain{round}"), None));
        events.push(approval(&format!("a{round}"), base + 2000, "pending"));
        events.push(approval(&format!("b{round}"), base + 2001, "pending"));
        events.push(approval(&format!("a{round}"), base + 2000, "allowed"));
        events.push(delta(
            &format!("plain{round}"),
            " (no change: a user item does not grow)",
        ));
        events.push(info_event("idle", &[]));
        if round == 0 {
            let kept = json!({ "kind": "user", "id": "kept", "historyIndex": 0, "text": "kept", "createdAt": 1 });
            events.push(event(
                json!({ "type": "reset", "info": info("idle", &["qr"]), "items": [kept] }),
            ));
        }
    }
    events
}

fn make(store: &mut dyn Store) {
    store.load().unwrap();
    let info: ChatInfo = contracts::wire::from_str(&info("idle", &[]).to_string()).unwrap();
    store.create_chat(CHAT, EPOCH, &info).unwrap();
}

/// Every item, read back a page at a time from the end (pages of `size`).
fn paged(store: &mut dyn Store, size: usize) -> Vec<ChatItem> {
    let mut before = None;
    let mut pages = Vec::new();
    loop {
        let page = store.items_before(CHAT, before, size).unwrap();
        let Some((first, _)) = page.first() else {
            break;
        };
        assert!(page.windows(2).all(|w| w[0].0 < w[1].0), "positions grow");
        before = Some(*first);
        assert_eq!(store.count_before(CHAT, *first).unwrap(), {
            let all = store.items_before(CHAT, Some(*first), usize::MAX).unwrap();
            all.len() as u64
        });
        pages.push(page);
    }
    pages
        .into_iter()
        .rev()
        .flatten()
        .map(|(_, item)| item)
        .collect()
}

/// What both stores must agree on after each event, and the reducer's thread.
fn compare(memory: &mut MemoryStore, sqlite: &mut SqliteStore, reference: &Thread, seq: Seq) {
    let whole: Vec<ChatItem> = sqlite
        .items_before(CHAT, None, usize::MAX)
        .unwrap()
        .into_iter()
        .map(|(_, item)| item)
        .collect();
    assert_eq!(
        whole, reference.items,
        "at seq {seq}: the thread, by the reducer"
    );
    assert_eq!(paged(sqlite, 4), reference.items, "at seq {seq}: paged");
    assert_eq!(
        paged(memory, 5),
        reference.items,
        "at seq {seq}: memory, paged"
    );
    for item in reference.items.iter().step_by(7) {
        assert_eq!(
            sqlite.item(CHAT, item_id(item)).unwrap().as_ref(),
            Some(item),
            "at seq {seq}"
        );
    }
    assert_eq!(sqlite.item(CHAT, "nothing").unwrap(), None);
    let first = EPOCH << 32;
    for after in [first, seq - 40, seq - 3, seq - 1, seq] {
        assert_eq!(
            sqlite.events_after(CHAT, after, 1000, 1 << 20).unwrap(),
            memory.events_after(CHAT, after, 1000, 1 << 20).unwrap(),
            "at seq {seq}: events after {after}"
        );
    }
    assert_eq!(
        sqlite.events_after(CHAT, seq - 5, 4, 1 << 20).unwrap(),
        None,
        "more than asked"
    );
    assert_eq!(
        sqlite.events_after(CHAT, seq - 5, 100, 10).unwrap(),
        None,
        "over the bytes asked"
    );
}

#[test]
fn sqlite_pages_the_thread_as_the_memory_store_holds_it() {
    let path = tmp("agent-paging");
    let mut sqlite = SqliteStore::open(&path).unwrap();
    let mut memory = MemoryStore::default();
    make(&mut sqlite);
    make(&mut memory);
    let mut reference = Thread::default();
    let mut seq = EPOCH << 32;
    for event in script() {
        seq += 1;
        sqlite.append(CHAT, seq, &event).unwrap();
        memory.append(CHAT, seq, &event).unwrap();
        reference.apply(&event);
        compare(&mut memory, &mut sqlite, &reference, seq);
    }
    // After the reset, what came before it is gone: a replay from before it cannot resume.
    assert_eq!(
        sqlite
            .events_after(CHAT, EPOCH << 32, 10_000, 1 << 30)
            .unwrap(),
        None
    );
    // A reopened file loads what the memory store loads: info (queue put back), last seq and
    // reset, the live items (a reply still streaming, an approval still pending).
    drop(sqlite);
    let mut reopened = SqliteStore::open(&path).unwrap();
    let loaded = reopened.load().unwrap();
    let expected = memory.load().unwrap();
    assert_eq!(loaded.chats, expected.chats);
    let chat = &loaded.chats[0];
    assert_eq!(chat.seq, seq);
    assert!(chat.reset_at > EPOCH << 32);
    assert_eq!(chat.live.len(), 5, "{:#?}", chat.live);
}

#[test]
fn an_older_file_is_brought_up_to_date_when_opened() {
    let path = tmp("agent-paging-upgrade");
    let events = script();
    // The older format: no items, no delta_of, no reset_at; info events without their queue.
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
             CREATE TABLE chats (chat_id TEXT PRIMARY KEY, made INTEGER NOT NULL,
                 epoch INTEGER NOT NULL, info TEXT NOT NULL, seq INTEGER NOT NULL,
                 bookmarks TEXT NOT NULL DEFAULT '[]', visuals TEXT NOT NULL DEFAULT '[]');
             CREATE TABLE events (chat_id TEXT NOT NULL, seq INTEGER NOT NULL,
                 event TEXT NOT NULL, PRIMARY KEY (chat_id, seq)) WITHOUT ROWID;",
        )
        .unwrap();
        db.execute(
            "INSERT INTO chats (chat_id, made, epoch, info, seq) VALUES (?1, 1, ?2, ?3, ?4)",
            rusqlite::params![
                CHAT,
                EPOCH,
                info("idle", &[]).to_string(),
                (EPOCH << 32) + events.len() as i64
            ],
        )
        .unwrap();
        let mut seq = EPOCH << 32;
        for event in &events {
            seq += 1;
            if matches!(event, ChatEvent::Reset(_)) {
                db.execute("DELETE FROM events", []).unwrap();
            }
            let mut value = serde_json::to_value(event).unwrap();
            if let Some(queued) = value.pointer_mut("/info/queued") {
                *queued = json!([]);
            }
            db.execute(
                "INSERT INTO events (chat_id, seq, event) VALUES (?1, ?2, ?3)",
                rusqlite::params![CHAT, seq, value.to_string()],
            )
            .unwrap();
        }
    }
    let mut upgraded = SqliteStore::open(&path).unwrap();
    let mut reference = Thread::default();
    for event in &events {
        reference.apply(event);
    }
    assert_eq!(paged(&mut upgraded, 3), reference.items);
    let loaded = upgraded.load().unwrap();
    let chat = &loaded.chats[0];
    assert_eq!(Some(&chat.info), reference.info.as_ref());
    assert!(chat.reset_at > EPOCH << 32);
    assert_eq!(chat.live.len(), 5);
    // Opened again: nothing to do, the same answers.
    drop(upgraded);
    let mut again = SqliteStore::open(&path).unwrap();
    assert_eq!(paged(&mut again, 7), reference.items);
}

/// A chat's info stored before the schema bounded its strings (a 300-character title, a
/// 5,000-character cwd, a model name of 300) is read with each cut to its bound, and the rest
/// of the chat as it was: the store opens, where it refused to load at all. A value that is
/// wrong in another way is still an error that names it.
#[test]
fn an_info_stored_before_its_bounds_is_read_cut_to_them() {
    let path = tmp("agent-paging-bounds");
    let long = info("idle", &[]);
    {
        let mut store = SqliteStore::open(&path).unwrap();
        let made: ChatInfo = contracts::wire::from_str(&long.to_string()).unwrap();
        store.create_chat(CHAT, EPOCH, &made).unwrap();
    }
    let mut stored = long.clone();
    stored["title"] = json!("é".repeat(300));
    stored["cwd"] = json!("/".repeat(5000));
    stored["model"] = json!("m".repeat(300));
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute("UPDATE chats SET info = ?1", [stored.to_string()])
        .unwrap();
    let loaded = SqliteStore::open(&path).unwrap().load().unwrap();
    let info = serde_json::to_value(&loaded.chats[0].info).unwrap();
    assert_eq!(info["title"], json!("é".repeat(200)));
    assert_eq!(info["cwd"], json!("/".repeat(4096)));
    assert_eq!(info["model"], json!("m".repeat(256)));
    assert_eq!(
        (&info["provider"], &info["state"]),
        (&json!("echo"), &json!("idle"))
    );

    let mut wrong = stored;
    wrong["state"] = json!("sleeping");
    db.execute("UPDATE chats SET info = ?1", [wrong.to_string()])
        .unwrap();
    let refused = SqliteStore::open(&path).unwrap().load().unwrap_err();
    assert!(refused.to_string().contains("state"), "{refused}");
}
