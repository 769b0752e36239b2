//! The agent client machinery (`contracts::agent::client`) against a scripted host over the
//! in-memory port pair: the host's side is raw frames written by the test, so the cases a real
//! hub never produces (replies with unknown ids, garbage, events before the attach reply) are
//! covered too. The echo host over a real socket is tested in `examples/agent-host/tests`.

use contracts::agent::client::{Attached, ChatThread, Client, ClientError, ProblemKind};
use contracts::agent::{ChatListPayload, ChatListResult, ErrorCode, EventPayload, requests};
use contracts::port::{FramePort, FrameReceiver, MemoryPort, Outgoing, memory_pair};
use serde_json::{Value, json};
use std::future::Future;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(20);

async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f).await.expect("timed out")
}

/// The host's end: reads requests, writes whatever the test says.
struct Script {
    port: MemoryPort,
    frames: FrameReceiver,
}

impl Script {
    fn new(port: MemoryPort) -> Script {
        let frames = port.receiver();
        Script { port, frames }
    }

    /// The next request, as JSON.
    async fn request(&mut self) -> Value {
        let frame = within(self.frames.recv()).await.expect("the client left");
        serde_json::from_str(&frame.to_text().unwrap()).unwrap()
    }

    fn send(&self, frame: Value) {
        self.port.send(Outgoing::Value(frame)).unwrap();
    }

    fn send_text(&self, text: &str) {
        self.port.send(Outgoing::Text(text.to_owned())).unwrap();
    }
}

fn info(chat_id: &str, state: &str) -> Value {
    json!({ "chatId": chat_id, "title": "t", "state": state, "provider": "echo", "createdAt": 0, "updatedAt": 0, "queued": [], "requests": [] })
}

fn user(id: &str, text: &str) -> Value {
    json!({ "kind": "user", "id": id, "text": text, "createdAt": 0 })
}

fn chat_event(chat_id: &str, seq: i64, event: Value) -> Value {
    json!({ "type": "event", "event": "chat.event", "payload": { "chatId": chat_id, "seq": seq, "event": event } })
}

fn item_event(chat_id: &str, seq: i64, id: &str, text: &str) -> Value {
    chat_event(
        chat_id,
        seq,
        json!({ "type": "item", "item": user(id, text) }),
    )
}

fn reply_event(chat_id: &str, seq: i64, id: &str, text: &str) -> Value {
    let item =
        json!({ "kind": "reply", "id": id, "text": text, "streaming": true, "createdAt": 0 });
    chat_event(chat_id, seq, json!({ "type": "item", "item": item }))
}

fn texts(thread: &ChatThread) -> Vec<String> {
    thread
        .thread()
        .items
        .iter()
        .map(|i| match i {
            contracts::agent::ChatItem::User(u) => u.text.clone(),
            contracts::agent::ChatItem::Reply(r) => r.text.clone(),
            other => panic!("unexpected item {other:?}"),
        })
        .collect()
}

/// Replies are matched by id whatever their order; a reply with an unknown id is ignored;
/// garbage and an unreadable-frame failure are reported, never a panic; the client goes on.
#[tokio::test]
async fn replies_are_matched_by_id_and_bad_frames_are_reported() {
    let (client_end, host_end) = memory_pair();
    let client = Client::new(client_end);
    let mut problems = client.problems();
    let mut host = Script::new(host_end);

    let first = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .request::<requests::ChatList>(ChatListPayload::new())
                .await
        }
    });
    let a = host.request().await;
    let second = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .request::<requests::ChatList>(ChatListPayload::new())
                .await
        }
    });
    let b = host.request().await;
    assert_eq!(a["type"], "chat.list");
    assert_ne!(a["id"], b["id"]);

    host.send(json!({ "id": "nobody-asked", "ok": true, "result": { "chats": [] } }));
    host.send_text("not json at all");
    host.send(json!({ "id": null, "ok": false, "error": { "code": "unreadable-frame", "message": "what?" } }));
    host.send(json!({ "type": "event", "event": "chat.status", "payload": { "chatId": "" } }));
    host.send(json!({ "type": "event", "event": "some.futureEvent", "payload": {} }));
    // Answered in the other order.
    host.send(
        json!({ "id": b["id"], "ok": false, "error": { "code": "internal", "message": "no" } }),
    );
    host.send(json!({ "id": a["id"], "ok": true, "result": { "chats": [] } }));

    assert_eq!(
        within(first).await.unwrap().unwrap(),
        ChatListResult::new(vec![])
    );
    match within(second).await.unwrap() {
        Err(ClientError::Host(e)) => assert_eq!(e.code, ErrorCode::Internal),
        other => panic!("expected the host's error, got {other:?}"),
    }
    let mut reported = Vec::new();
    for _ in 0..4 {
        reported.push(within(problems.recv()).await.unwrap());
    }
    assert!(
        reported[0].message.starts_with("not a server frame"),
        "{reported:?}"
    );
    assert_eq!(reported[0].frame.as_deref(), Some("not json at all"));
    assert!(reported[1].message.contains("what?"));
    assert!(
        reported[2].message.contains("chatId"),
        "a bad event payload names the path: {reported:?}"
    );
    let kinds: Vec<ProblemKind> = reported.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [
            ProblemKind::NotAFrame,
            ProblemKind::UnreadableRequest,
            ProblemKind::InvalidEvent,
            ProblemKind::UnknownEvent
        ]
    );
    // An event no table of the client knows is reported with its frame, never dropped silently.
    assert!(
        reported[3].message.contains("\"some.futureEvent\""),
        "{reported:?}"
    );
    assert!(
        reported[3]
            .frame
            .as_deref()
            .unwrap()
            .contains("some.futureEvent")
    );
    assert!(problems.try_recv().is_err(), "nothing else: {reported:?}");

    // A result that breaks the table is the client's error, not a panic.
    let bad = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .request::<requests::ChatList>(ChatListPayload::new())
                .await
        }
    });
    let c = host.request().await;
    host.send(json!({ "id": c["id"], "ok": true, "result": { "chats": "nope" } }));
    assert!(matches!(
        within(bad).await.unwrap(),
        Err(ClientError::InvalidResult(_))
    ));
}

/// When the port ends, a waiting request fails with Closed and so does every later one.
#[tokio::test]
async fn a_closed_port_fails_waiting_and_later_requests() {
    let (client_end, host_end) = memory_pair();
    let client = Client::new(client_end);
    let mut host = Script::new(host_end);
    let mut events = client.subscribe();
    let waiting = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .request::<requests::ChatList>(ChatListPayload::new())
                .await
        }
    });
    host.request().await;
    host.port.close();
    assert!(matches!(
        within(waiting).await.unwrap(),
        Err(ClientError::Closed)
    ));
    assert!(
        within(events.recv()).await.is_none(),
        "the event receiver ends with the port"
    );
    assert!(client.is_closed());
    assert!(matches!(
        client
            .request::<requests::ChatList>(ChatListPayload::new())
            .await,
        Err(ClientError::Closed)
    ));
}

/// Events that arrive while an attach is in flight are applied after the reply, those at or
/// below the reply's seq dropped; a later snapshot replaces the thread; a `resumed` reply
/// keeps it and the replayed events apply in order.
#[tokio::test]
async fn chat_thread_holds_events_around_an_attach() {
    let (client_end, host_end) = memory_pair();
    let client = Client::new(client_end);
    let mut host = Script::new(host_end);
    let mut thread = ChatThread::new(&client, "c1");

    let attaching = tokio::spawn(async move {
        let attached = thread.attach().await;
        (thread, attached)
    });
    let request = host.request().await;
    assert_eq!(request["type"], "chat.attach");
    assert_eq!(
        request["payload"],
        json!({ "chatId": "c1" }),
        "no since on the first attach"
    );
    // Before the reply: one event the snapshot already holds, one after it, one of another chat.
    host.send(item_event("c1", 2, "u2", "two"));
    host.send(reply_event("c1", 3, "r3", "three"));
    host.send(item_event("other", 9, "x", "not mine"));
    host.send(json!({ "id": request["id"], "ok": true, "result": {
        "info": info("c1", "idle"), "items": [user("u1", "one"), user("u2", "two")], "seq": 2
    }}));
    let (mut thread, attached) = within(attaching).await.unwrap();
    assert_eq!(attached.unwrap(), Attached::Snapshot);
    assert_eq!(texts(&thread), ["one", "two"]);
    assert_eq!(thread.drain(), 3);
    assert_eq!(
        texts(&thread),
        ["one", "two", "three"],
        "seq 2 dropped, seq 3 applied, the other chat ignored"
    );
    assert_eq!(thread.seq(), Some(3));

    // A delta, then a reconnect over a new pair that resumes.
    host.send(chat_event(
        "c1",
        4,
        json!({ "type": "delta", "itemId": "r3", "text": "!" }),
    ));
    assert!(matches!(
        within(thread.next_event()).await,
        Some(EventPayload::ChatEvent(_))
    ));
    drop(host);
    let (client_end, host_end) = memory_pair();
    let client = Client::new(client_end);
    let mut host = Script::new(host_end);
    let resuming = tokio::spawn(async move {
        let attached = thread.reconnect(&client).await;
        (thread, attached)
    });
    let request = host.request().await;
    assert_eq!(request["payload"], json!({ "chatId": "c1", "since": 4 }));
    host.send(json!({ "id": request["id"], "ok": true, "result": {
        "info": info("c1", "running"), "items": [], "seq": 6, "resumed": true
    }}));
    host.send(item_event("c1", 5, "u5", "five"));
    host.send(item_event("c1", 6, "u6", "six"));
    let (mut thread, attached) = within(resuming).await.unwrap();
    assert_eq!(attached.unwrap(), Attached::Resumed);
    assert_eq!(
        thread.seq(),
        Some(4),
        "the thread keeps its own seq until the replay applies"
    );
    while thread.seq() != Some(6) {
        within(thread.next_event()).await.unwrap();
    }
    assert_eq!(texts(&thread), ["one", "two", "three!", "five", "six"]);

    // A snapshot on the next attach replaces the thread, never appends to it.
    let attaching = tokio::spawn(async move {
        let attached = thread.attach().await;
        (thread, attached)
    });
    let request = host.request().await;
    assert_eq!(request["payload"]["since"], 6);
    host.send(json!({ "id": request["id"], "ok": true, "result": {
        "info": info("c1", "idle"), "items": [user("u6", "six")], "seq": 40,
        "history": { "start": 5, "cursor": "h1" }
    }}));
    let (thread, attached) = within(attaching).await.unwrap();
    assert_eq!(attached.unwrap(), Attached::Snapshot);
    assert_eq!(texts(&thread), ["six"]);
    assert_eq!(thread.seq(), Some(40));
    assert_eq!(
        thread.history().and_then(|h| h.cursor.as_deref()),
        Some("h1")
    );
}

/// A host that predates the `resumed` flag resumes as the spec words it, with an empty
/// `items` after a `since`: the thread is kept. `resumed: false` is a snapshot, empty or not,
/// and so is an empty `items` with a seq below the `since` (a chat that started over).
#[tokio::test]
async fn chat_thread_reads_an_empty_items_after_since_as_resumed_without_the_flag() {
    let (client_end, host_end) = memory_pair();
    let client = Client::new(client_end);
    let mut host = Script::new(host_end);
    let mut thread = ChatThread::new(&client, "c1");
    let mut answers = [
        json!({ "info": info("c1", "idle"), "items": [user("u1", "one")], "seq": 2 }),
        json!({ "info": info("c1", "idle"), "items": [], "seq": 2 }),
        json!({ "info": info("c1", "idle"), "items": [], "seq": 9, "resumed": false }),
        // No flag and a seq below the `since`: a chat that started over, a snapshot.
        json!({ "info": info("c1", "idle"), "items": [], "seq": 0 }),
    ]
    .into_iter();
    let mut outcomes = Vec::new();
    for _ in 0..4 {
        let attaching = tokio::spawn(async move {
            let attached = thread.attach().await;
            (thread, attached)
        });
        let request = host.request().await;
        host.send(json!({ "id": request["id"], "ok": true, "result": answers.next().unwrap() }));
        let (t, attached) = within(attaching).await.unwrap();
        thread = t;
        outcomes.push((
            request["payload"].clone(),
            attached.unwrap(),
            texts(&thread),
        ));
    }
    assert_eq!(
        outcomes,
        [
            (
                json!({ "chatId": "c1" }),
                Attached::Snapshot,
                vec!["one".to_owned()]
            ),
            (
                json!({ "chatId": "c1", "since": 2 }),
                Attached::Resumed,
                vec!["one".to_owned()]
            ),
            (
                json!({ "chatId": "c1", "since": 2 }),
                Attached::Snapshot,
                vec![]
            ),
            (
                json!({ "chatId": "c1", "since": 9 }),
                Attached::Snapshot,
                vec![]
            ),
        ]
    );
    assert_eq!(thread.seq(), Some(0));
}
