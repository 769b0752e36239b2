//! The agent hub's SQLite store: the queue kept apart from the `info` events (each queued
//! message stored once, whatever the queue's depth) and put back on reopen, event for event;
//! several events stored as one change.
#![cfg(all(feature = "sqlite", feature = "tokio"))]

use contracts::agent::host::{ClientId, Hub, HubConfig, serve};
use contracts::agent::sqlite::SqliteStore;
use contracts::agent::{
    AttachResult, ChatAttachPayload, ChatEvent, ChatEventInfo, ChatEventItem, ChatInfo,
    ChatItemUser, ChatState, Dispatcher, Host, QueuedMessage, Seq, WireError,
};
use contracts::port::{FramePort, Outgoing, memory_pair};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

const CHAT: &str = "c1";
const LIMIT: Duration = Duration::from_secs(20);

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("agent.sqlite3")
}

/// A host that only attaches, for reading what a hub replays.
struct Attacher {
    hub: Arc<Hub>,
    client: ClientId,
}

impl Host for Attacher {
    async fn chat_attach(&self, payload: ChatAttachPayload) -> Result<AttachResult, WireError> {
        self.hub.attach(self.client, &payload)
    }
}

/// The chat.event frames a client attaching with `since` is replayed, as text.
async fn replayed(hub: &Arc<Hub>, since: Seq) -> Vec<String> {
    let (host_end, client_end) = memory_pair();
    let (client, queue) = hub.connect();
    let attacher = Attacher {
        hub: hub.clone(),
        client,
    };
    let serving = {
        let hub = hub.clone();
        tokio::spawn(async move {
            serve(&hub, client, queue, &host_end, &Dispatcher(&attacher)).await;
        })
    };
    let mut frames = client_end.receiver();
    let attach =
        json!({"id": "1", "type": "chat.attach", "payload": {"chatId": CHAT, "since": since}});
    client_end.send(Outgoing::Value(attach)).unwrap();
    let reply: Value = serde_json::from_str(
        &tokio::time::timeout(LIMIT, frames.recv())
            .await
            .unwrap()
            .unwrap()
            .to_text()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(reply["result"]["resumed"], true, "{reply}");
    let head = hub.seq(CHAT).unwrap();
    let mut out = Vec::new();
    for _ in since..head {
        let frame = tokio::time::timeout(LIMIT, frames.recv())
            .await
            .unwrap()
            .unwrap();
        out.push(frame.to_text().unwrap().into_owned());
    }
    serving.abort();
    out
}

fn message(n: usize) -> QueuedMessage {
    QueuedMessage::new(
        format!("q{n}"),
        format!("{n} {}", "x".repeat(200)),
        n as i64,
    )
}

fn info_event(info: ChatInfo) -> ChatEvent {
    ChatEventInfo::new(info).into()
}

/// 60 messages queued one by one, some taken off the front with their user item (one change
/// of three events), one from the middle: every stored event and queue row is small (the
/// queue of 40 messages would be 9 KB), and a hub reopened on the file replays the very same
/// frames and holds the same queue.
#[tokio::test]
async fn the_queue_is_stored_apart_and_put_back_event_for_event() {
    let path = tmp("agent-store-queue");
    let hub = Hub::open(HubConfig::default(), SqliteStore::open(&path).unwrap()).unwrap();
    let info = ChatInfo::new(CHAT, "t", ChatState::Running, "echo", 0, 0, [], []);
    hub.create_chat(info).unwrap();
    let first = hub.seq(CHAT).unwrap();
    for n in 0..60 {
        hub.update_info(CHAT, |info| info.queued.push(message(n)))
            .unwrap();
        if n % 3 == 2 {
            hub.publish_with(CHAT, |info| {
                let mut info = info.clone();
                let next = info.queued.remove(0);
                let user = ChatItemUser::new(format!("u{n}"), next.text, 0);
                Ok((
                    (),
                    vec![info_event(info.clone()), ChatEventItem::new(user).into()],
                ))
            })
            .unwrap();
        }
        if n == 30 {
            hub.update_info(CHAT, |info| {
                info.queued.remove(5);
            })
            .unwrap();
        }
    }
    let queue = hub.info(CHAT).unwrap().queued;
    assert_eq!(queue.len(), 39);
    let sent = replayed(&hub, first).await;
    drop(hub);

    let db = rusqlite::Connection::open(&path).unwrap();
    let largest: i64 = db
        .query_row("SELECT max(length(event)) FROM events", [], |r| r.get(0))
        .unwrap();
    assert!(largest < 1000, "an event of {largest} bytes is stored");
    let rows: i64 = db
        .query_row("SELECT count(*) FROM queued", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 60, "each queued message stored once");

    let hub = Hub::open(HubConfig::default(), SqliteStore::open(&path).unwrap()).unwrap();
    assert_eq!(hub.info(CHAT).unwrap().queued, queue);
    let again = replayed(&hub, first).await;
    assert_eq!(again.len(), sent.len());
    for (a, b) in again.iter().zip(&sent) {
        assert_eq!(a, b);
    }
}

/// Group commit: eight threads publish 200 deltas each, two of them to one chat, on a hub
/// that groups the events waiting while another caller stores: every publish is answered with
/// its seq, each chat's seqs are dense, and a hub reopened on the file holds every delta.
#[test]
fn events_published_at_once_are_stored_in_groups_and_all_survive() {
    use contracts::agent::{ChatEventDelta, ChatItem, ChatItemReply};
    let path = tmp("agent-store-group");
    let config = HubConfig {
        group_commit: true,
        ..HubConfig::default()
    };
    let hub = Hub::open(config.clone(), SqliteStore::open(&path).unwrap()).unwrap();
    let chats: Vec<String> = (0..7).map(|n| format!("g{n}")).collect();
    for chat_id in &chats {
        let info = ChatInfo::new(
            chat_id.clone(),
            "t",
            ChatState::Running,
            "echo",
            0,
            0,
            [],
            [],
        );
        hub.create_chat(info).unwrap();
        let reply = ChatItemReply::new("r", "", 0).streaming(true);
        hub.publish(chat_id, ChatEventItem::new(reply).into())
            .unwrap();
    }
    let firsts: Vec<Seq> = chats.iter().map(|c| hub.seq(c).unwrap()).collect();
    let writers: Vec<&String> = chats.iter().chain(std::iter::once(&chats[0])).collect();
    let answered: Vec<Vec<Seq>> = std::thread::scope(|scope| {
        let handles: Vec<_> = writers
            .iter()
            .map(|chat_id| {
                let hub = &hub;
                scope.spawn(move || {
                    (0..200)
                        .map(|_| {
                            hub.publish(chat_id, ChatEventDelta::new("r", "x").into())
                                .unwrap()
                        })
                        .collect::<Vec<Seq>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // Each chat's seqs are dense: its writers' answers together are first+1 ..= first+n.
    for (c, chat_id) in chats.iter().enumerate() {
        let mut seqs: Vec<Seq> = writers
            .iter()
            .zip(&answered)
            .filter(|(w, _)| **w == chat_id)
            .flat_map(|(_, seqs)| seqs.iter().copied())
            .collect();
        seqs.sort_unstable();
        let n = seqs.len() as i64;
        assert_eq!(seqs, (firsts[c] + 1..=firsts[c] + n).collect::<Vec<_>>());
    }
    drop(hub);
    let hub = Hub::open(config, SqliteStore::open(&path).unwrap()).unwrap();
    for (c, chat_id) in chats.iter().enumerate() {
        let deltas = if c == 0 { 400 } else { 200 };
        // One more: the reopened hub closes the reply left streaming.
        assert_eq!(hub.seq(chat_id), Some(firsts[c] + deltas + 1));
        let thread = hub.thread(chat_id).unwrap();
        match &thread.items[..] {
            [ChatItem::Reply(r)] => assert_eq!(r.text.len(), deltas as usize),
            other => panic!("{other:?}"),
        }
    }
}

/// A history cursor names the item it was made before. Items placed before that item until
/// the SQLite store numbers the thread again (20 halvings of the gap), or one item placed
/// before it in the memory store (whose positions are indices), move it: the cursor is then
/// `history-expired`, never the page before another item. Placed after it, the cursor still
/// pages back to the start.
#[test]
fn a_history_cursor_whose_item_moved_is_expired() {
    use contracts::agent::store::{MemoryStore, Store};
    use contracts::agent::{ChatHistoryPayload, ErrorCode};
    fn check(store: impl Store + 'static, moves: usize) {
        let hub = Hub::open(HubConfig::default(), store).unwrap();
        let info = ChatInfo::new(CHAT, "t", ChatState::Idle, "echo", 0, 0, [], []);
        hub.create_chat(info).unwrap();
        let user = |id: String, index: i64| -> ChatEvent {
            ChatEventItem::new(ChatItemUser::new(id, "hi", 0).history_index(index)).into()
        };
        for n in 0..10 {
            hub.publish(CHAT, user(format!("u{n}"), n * 1000)).unwrap();
        }
        let (client, _queue) = hub.connect();
        let attached = hub
            .attach(client, &ChatAttachPayload::new(CHAT).history_limit(3))
            .unwrap();
        let cursor = attached.history.unwrap().cursor.unwrap();
        let page = |cursor: &str| hub.history(&ChatHistoryPayload::new(CHAT, cursor).limit(100));
        // Placed after the cursor's item (u7): the cursor still reads u0..u6.
        hub.publish(CHAT, user("late".into(), 7500)).unwrap();
        let before: Vec<String> = page(&cursor)
            .unwrap()
            .items
            .iter()
            .map(|i| {
                serde_json::to_value(i).unwrap()["id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(before, (0..7).map(|n| format!("u{n}")).collect::<Vec<_>>());
        // Placed before it, each halving the room left between u6 and u7.
        for m in 0..moves {
            let index = 7000 - 1 - m as i64;
            hub.publish(CHAT, user(format!("between{m}"), index))
                .unwrap();
        }
        match page(&cursor) {
            Err(e) => assert_eq!(e.code, ErrorCode::HistoryExpired, "{e:?}"),
            Ok(page) => panic!("the page before another item: {:?}", page.items),
        }
    }
    check(SqliteStore::open(tmp("agent-store-renumber")).unwrap(), 21);
    check(MemoryStore::default(), 1);
}
