//! The echo host as a deployment uses it: many clients sending at once, clients that never
//! read, messages at and over the size limit, `kill -9` in the middle of a turn and a restart
//! on the SQLite store, reconnects with a current and a stale `since`.
//!
//! Every loop is bounded and every wait has a time limit. The tests that start the binary
//! measure what a real process does (its memory from `/proc`, its state after SIGKILL).

use agent_host::{EchoAgent, LoginMode, Options};
use contracts::agent::client::{Attached, ChatThread, Client};
use contracts::agent::host::{HubConfig, seq_epoch};
use contracts::agent::{
    ChatAttachPayload, ChatCreatePayload, ChatEvent, ChatHistoryPayload, ChatInfo, ChatItem,
    ChatListPayload, ChatSendPayload, ChatState, ErrorCode, EventPayload, requests,
};
use contracts::port::{
    FramePort, FrameReceiver, Incoming, Limits, Outgoing, WebSocketOptions, WebSocketPort,
};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use test_support::{KillOnDrop, start};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

const LIMIT: Duration = Duration::from_secs(30);

async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("timed out waiting for the host")
}

fn options(hub: HubConfig) -> Options {
    Options {
        hub,
        delta_delay: Duration::ZERO,
        login: LoginMode::Manual,
        cli_delay: Duration::from_millis(1),
        ..Options::default()
    }
}

/// An echo host in this process, in memory, on a free port.
async fn start_here(options: Options) -> (Arc<EchoAgent>, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let agent = EchoAgent::new(options);
    let serving = agent.clone();
    tokio::spawn(async move { serving.serve(listener).await });
    (agent, url)
}

async fn connect(url: &str) -> Client {
    let port = within(WebSocketPort::connect(url, &WebSocketOptions::default()))
        .await
        .unwrap();
    let client = Client::new(port);
    within(client.request::<requests::ChatList>(ChatListPayload::new()))
        .await
        .unwrap();
    client
}

async fn create(client: &Client) -> String {
    let payload = ChatCreatePayload::new().title("load");
    within(client.request::<requests::ChatCreate>(payload))
        .await
        .unwrap()
        .chat_id
}

fn send_payload(chat_id: &str, text: &str) -> ChatSendPayload {
    ChatSendPayload::new(chat_id, text)
}

/// Applies events until the reply to `text` is whole and the chat idle.
async fn until_replied(thread: &mut ChatThread, text: &str) {
    let answer = format!("echo: {text}");
    loop {
        let done = thread.thread().info.as_ref().is_some_and(|i| i.state == ChatState::Idle)
            && thread.thread().items.iter().any(|i| {
                matches!(i, ChatItem::Reply(r) if r.text == answer && r.streaming == Some(false))
            });
        if done {
            return;
        }
        within(thread.next_event())
            .await
            .expect("the connection ended");
    }
}

/// A raw client: frames as text, to see their sizes and send what the typed client would
/// refuse to.
struct Raw {
    port: WebSocketPort,
    frames: FrameReceiver,
    next: u64,
}

impl Raw {
    async fn connect(url: &str) -> Raw {
        let options = WebSocketOptions::default().max_frame_size(64 << 20);
        let port = within(WebSocketPort::connect(url, &options)).await.unwrap();
        let frames = port.receiver();
        Raw {
            port,
            frames,
            next: 0,
        }
    }

    /// Sends a request and answers the text of its reply, skipping events.
    async fn request(&mut self, method: &str, payload: Value) -> String {
        self.next += 1;
        let id = format!("r{}", self.next);
        let frame = json!({"id": id, "type": method, "payload": payload});
        self.port.send(Outgoing::Text(frame.to_string())).unwrap();
        self.reply(Some(&id)).await
    }

    /// The next reply with this id (`None`: a null id), skipping everything else.
    async fn reply(&mut self, id: Option<&str>) -> String {
        loop {
            let Some(Incoming::Text(text)) = within(self.frames.recv()).await else {
                panic!("the connection ended before the reply");
            };
            let value: Value = serde_json::from_str(&text).unwrap();
            if value.get("event").is_none() && value["id"].as_str() == id {
                return text;
            }
        }
    }
}

/// 8 clients send 25 messages each into one chat, all at once: every message is answered, the
/// queue ends empty, the usage counts every turn, and the thread holds each message and its
/// answer once, in historyIndex order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_senders_leave_an_exact_final_state() {
    const CLIENTS: usize = 8;
    const EACH: usize = 25;
    const TOTAL: i64 = (CLIENTS * EACH) as i64;
    let (agent, url) = start_here(options(HubConfig::default())).await;
    let watcher = connect(&url).await;
    let chat_id = create(&watcher).await;
    let mut statuses = watcher.subscribe();
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(connect(&url).await);
    }
    let mut sent = BTreeSet::new();
    let mut sends = Vec::new();
    for (c, client) in clients.iter().enumerate() {
        for n in 0..EACH {
            let text = format!("m{c}x{n}");
            sent.insert(text.clone());
            let client = client.clone();
            let payload = send_payload(&chat_id, &text);
            sends.push(async move { client.request::<requests::ChatSend>(payload).await });
        }
    }
    for result in within(futures_util::future::join_all(sends)).await {
        result.expect("every send is accepted");
    }
    // The last status: idle, nothing queued, every turn counted.
    loop {
        if let EventPayload::ChatStatus(s) = within(statuses.recv()).await.unwrap()
            && s.chat_id == chat_id
            && s.info.state == ChatState::Idle
            && s.info
                .usage
                .as_ref()
                .is_some_and(|u| u.input_tokens == TOTAL)
        {
            break;
        }
    }
    let info = agent.hub().info(&chat_id).unwrap();
    assert_eq!(info.state, ChatState::Idle);
    assert!(
        info.queued.is_empty(),
        "answered messages left queued: {:?}",
        info.queued
    );
    let usage = info.usage.unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens),
        (TOTAL, 2 * TOTAL)
    );
    let thread = agent.hub().thread(&chat_id).unwrap();
    let users: Vec<&str> = thread
        .items
        .iter()
        .filter_map(|i| match i {
            ChatItem::User(u) => Some(u.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(users.len(), sent.len());
    assert_eq!(
        users.iter().map(|t| t.to_string()).collect::<BTreeSet<_>>(),
        sent
    );
    let replies: Vec<_> = thread
        .items
        .iter()
        .filter_map(|i| match i {
            ChatItem::Reply(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(replies.len(), sent.len());
    assert!(replies.iter().all(|r| r.streaming == Some(false)));
    // Each message is followed by its answer, and the indexes run 0, 1, 2...
    for (at, pair) in thread.items.chunks(2).enumerate() {
        match pair {
            [ChatItem::User(u), ChatItem::Reply(r)] => {
                assert_eq!(r.text, format!("echo: {}", u.text));
                assert_eq!(u.history_index, Some(2 * at as i64));
                assert_eq!(r.history_index, Some(2 * at as i64 + 1));
            }
            other => panic!("not a message and its answer: {other:?}"),
        }
    }
}

/// With a 64 KiB limit: a request of exactly the limit is read (and refused for the item it
/// would make, naming the limit); one byte more is answered `frame-too-large` with a null id
/// before the close (1009). Snapshots and pages are cut to fit, and paging back gives every
/// item once. Another attached client is never disconnected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_at_and_over_the_limit() {
    const MAX: usize = 64 * 1024;
    let hub = HubConfig {
        limits: Limits {
            max_frame_size: MAX,
            max_queued_bytes: 4 << 20,
            ..Limits::default()
        },
        ..HubConfig::default()
    };
    let (agent, url) = start_here(options(hub)).await;
    let client = connect(&url).await;
    let chat_id = create(&client).await;
    let mut bystander = ChatThread::new(&client, &chat_id);
    within(bystander.attach()).await.unwrap();

    // Three turns of 20 000 bytes: each item fits, six do not fit one frame.
    for n in 0..3 {
        let big = format!("{n}{}", "y".repeat(20_000));
        within(client.request::<requests::ChatSend>(send_payload(&chat_id, &big)))
            .await
            .unwrap();
        until_replied(&mut bystander, &big).await;
    }
    let mut raw = Raw::connect(&url).await;
    let reply = raw.request("chat.attach", json!({"chatId": chat_id})).await;
    assert!(reply.len() <= MAX, "the snapshot is {} bytes", reply.len());
    let value: Value = serde_json::from_str(&reply).unwrap();
    let mut items = value["result"]["items"].as_array().unwrap().clone();
    assert!((1..6).contains(&items.len()), "{} items", items.len());
    let mut cursor = value["result"]["history"]["cursor"].clone();
    for _ in 0..6 {
        let Some(at) = cursor.as_str() else { break };
        let page = raw
            .request("chat.history", json!({"chatId": chat_id, "cursor": at}))
            .await;
        assert!(page.len() <= MAX, "a page is {} bytes", page.len());
        let page: Value = serde_json::from_str(&page).unwrap();
        let mut older = page["result"]["items"].as_array().unwrap().clone();
        assert!(!older.is_empty());
        older.append(&mut items);
        items = older;
        cursor = page["result"]["history"]["cursor"].clone();
    }
    assert!(cursor.is_null(), "paging back ends at the thread's start");
    let ids: Vec<&str> = items.iter().map(|i| i["id"].as_str().unwrap()).collect();
    let expected: Vec<String> = agent
        .hub()
        .thread(&chat_id)
        .unwrap()
        .items
        .iter()
        .map(|i| contracts::agent::thread::item_id(i).to_owned())
        .collect();
    assert_eq!(ids, expected, "every item once, in order");

    // A request of exactly the limit is read: refused for the item it would make.
    let seq = agent.hub().seq(&chat_id).unwrap();
    let head =
        format!(r#"{{"id":"at","type":"chat.send","payload":{{"chatId":"{chat_id}","text":""#);
    let tail = r#""}}"#;
    let at_limit = format!("{head}{}{tail}", "z".repeat(MAX - head.len() - tail.len()));
    assert_eq!(at_limit.len(), MAX);
    raw.port.send(Outgoing::Text(at_limit)).unwrap();
    let refused: Value = serde_json::from_str(&raw.reply(Some("at")).await).unwrap();
    assert_eq!(refused["error"]["code"], "frame-too-large");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains(&(MAX - 1024).to_string()), "{message}");
    assert_eq!(
        agent.hub().seq(&chat_id),
        Some(seq),
        "nothing was published"
    );

    // The bystander is still attached and served.
    within(client.request::<requests::ChatList>(ChatListPayload::new()))
        .await
        .unwrap();
    within(client.request::<requests::ChatSend>(send_payload(&chat_id, "small")))
        .await
        .unwrap();
    until_replied(&mut bystander, "small").await;

    // One byte over the limit: answered before the close, which says why.
    let (mut socket, _) = tokio_tungstenite::connect_async(url.as_str())
        .await
        .unwrap();
    socket
        .send(Message::text("x".repeat(MAX + 1)))
        .await
        .unwrap();
    let mut answered = false;
    let close = loop {
        match within(socket.next()).await {
            Some(Ok(Message::Text(text))) => {
                let value: Value = serde_json::from_str(text.as_str()).unwrap();
                assert_eq!(value["id"], Value::Null);
                assert_eq!(value["error"]["code"], "frame-too-large");
                answered = true;
            }
            Some(Ok(Message::Close(close))) => break close,
            Some(Ok(_)) => {}
            other => panic!("expected the answer then a close, got {other:?}"),
        }
    };
    assert!(answered, "the frame over the limit was answered");
    assert_eq!(close.unwrap().code, CloseCode::Size);
    assert_eq!(ErrorCode::FrameTooLarge.as_str(), "frame-too-large");
}

/// The agent-host binary's resident memory, from /proc.
fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("VmRSS in /proc/PID/status");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a number of kB");
    kib * 1024
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A raw WebSocket client over a socket that buffers little; it attaches and never reads.
async fn never_reading(
    url: &str,
    chat_id: &str,
) -> tokio_tungstenite::WebSocketStream<tokio::net::TcpStream> {
    let addr = url
        .strip_prefix("ws://")
        .and_then(|rest| rest.split(['/', '?']).next())
        .unwrap()
        .parse()
        .unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    let (mut ws, _) = tokio_tungstenite::client_async(url, stream).await.unwrap();
    let attach = json!({"id": "1", "type": "chat.attach", "payload": {"chatId": chat_id}});
    ws.send(Message::text(attach.to_string())).await.unwrap();
    ws
}

/// Twelve attached clients never read while another one talks for 450 turns: each is closed
/// as a slow consumer once 256 KiB wait for it, and the host's memory stays flat (under half
/// of what the queues would have held without the bound). The host
/// runs as deployed, on its SQLite store (the events on disk, the threads in memory: 8 KB a
/// turn here). Without the bound the last 300 turns would queue about 45 MiB for them.
#[test]
fn clients_that_never_read_are_closed_and_memory_stays_flat() {
    let data = tmp("agent-host-flat");
    let (server, url) = host(
        &data,
        &["--delta-delay-ms", "0", "--max-queued-bytes", "262144"],
    );
    let pid = server.0.id();
    runtime().block_on(async {
        let client = connect(&url).await;
        let chat_id = create(&client).await;
        let mut thread = ChatThread::new(&client, &chat_id);
        within(thread.attach()).await.unwrap();
        let mut slow = Vec::new();
        for _ in 0..12 {
            slow.push(never_reading(&url, &chat_id).await);
        }
        let text = "w".repeat(4000);
        let turn = |n: usize| {
            let text = format!("{text}{n}");
            let client = client.clone();
            let chat_id = chat_id.clone();
            async move {
                within(client.request::<requests::ChatSend>(send_payload(&chat_id, &text)))
                    .await
                    .unwrap();
                text
            }
        };
        // Warm up until the replay log is at its bound (1000 events, 7 a turn).
        for n in 0..150 {
            let text = turn(n).await;
            until_replied(&mut thread, &text).await;
        }
        let before = rss_bytes(pid);
        for n in 150..450 {
            let text = turn(n).await;
            until_replied(&mut thread, &text).await;
        }
        let after = rss_bytes(pid);
        let grown = after.saturating_sub(before);
        // Measured: about 12 MiB (the threads, SQLite's cache, the allocator); with the bound
        // lifted (`--max-queued-bytes 1073741824`) about 44 MiB.
        assert!(
            grown < 24 << 20,
            "the host grew by {} KiB over 300 turns ({} -> {} KiB)",
            grown >> 10,
            before >> 10,
            after >> 10
        );
        // Each slow client was closed: after what its socket held comes the close (1008, with
        // the reason) or, when the close could not be written in time, the connection's end.
        for mut ws in slow {
            loop {
                match within(ws.next()).await {
                    Some(Ok(Message::Close(close))) => {
                        let close = close.expect("a close frame");
                        assert_eq!(close.code, CloseCode::Policy);
                        assert!(
                            close.reason.starts_with("slow consumer"),
                            "{}",
                            close.reason
                        );
                        break;
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => break,
                }
            }
        }
    });
    drop(server);
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The binary on a free port with its data in `data`: the process and its url with the client
/// token it wrote to `data/token` (a new one at every start) as the `token` parameter.
fn host(data: &std::path::Path, extra: &[&str]) -> (KillOnDrop, String) {
    let mut args = vec![
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        data.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (server, url) = start(env!("CARGO_BIN_EXE_agent-host"), &args);
    let token = std::fs::read_to_string(data.join("token")).expect("the token file");
    (server, format!("{url}/?token={}", token.trim()))
}

/// `kill -9` in the middle of a reply, then a restart on the same data directory: the chat is
/// there, every event the host had sent too, the seqs go on, `since` resumes exactly, the cut
/// reply is closed and the chat idle; new ids never collide with the old ones, and a `since`
/// of another chat is answered with a snapshot.
#[test]
fn kill_9_mid_turn_and_restart_on_sqlite() {
    let data = tmp("agent-host-kill9");
    let (mut server, url) = host(&data, &["--delta-delay-ms", "100"]);
    let rt = runtime();
    let (mut thread, chat_id, seen) = rt.block_on(async {
        let client = connect(&url).await;
        let chat_id = create(&client).await;
        let mut thread = ChatThread::new(&client, &chat_id);
        within(thread.attach()).await.unwrap();
        let text = "one two three four five six seven eight nine ten";
        within(client.request::<requests::ChatSend>(send_payload(&chat_id, text)))
            .await
            .unwrap();
        // Three deltas in: the reply is streaming.
        let mut deltas = 0;
        while deltas < 3 {
            if let Some(EventPayload::ChatEvent(e)) = within(thread.next_event()).await
                && matches!(e.event, ChatEvent::Delta(_))
            {
                deltas += 1;
            }
        }
        let seen = thread.seq().unwrap();
        (thread, chat_id, seen)
    });
    // SIGKILL: no shutdown code runs.
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    let before = thread.thread().clone();
    assert!(matches!(before.items.last(), Some(ChatItem::Reply(r)) if r.streaming == Some(true)));

    let (_server, url) = host(&data, &["--delta-delay-ms", "0"]);
    rt.block_on(async {
        let client = connect(&url).await;
        let list = within(client.request::<requests::ChatList>(ChatListPayload::new()))
            .await
            .unwrap();
        let info = list
            .chats
            .iter()
            .find(|c| c.chat_id == chat_id)
            .expect("the chat survived");
        assert_eq!(info.state, ChatState::Idle, "the cut turn's chat is idle");
        assert!(info.queued.is_empty());

        // The kept thread resumes from its since: what it missed follows, numbered on.
        let mut seqs = Vec::new();
        let mut events = client.subscribe();
        assert_eq!(
            within(thread.reconnect(&client)).await.unwrap(),
            Attached::Resumed
        );
        let last = loop {
            let closed = thread
                .thread()
                .items
                .iter()
                .any(|i| matches!(i, ChatItem::Reply(r) if r.streaming == Some(false)));
            if closed
                && thread
                    .thread()
                    .info
                    .as_ref()
                    .is_some_and(|i| i.state == ChatState::Idle)
            {
                break thread.seq().unwrap();
            }
            if let Some(EventPayload::ChatEvent(e)) = within(thread.next_event()).await {
                seqs.push(e.seq.unwrap());
            }
        };
        while let Ok(EventPayload::ChatEvent(e)) = events.try_recv() {
            let _ = e;
        }
        assert!(last > seen);
        assert_eq!(
            seqs,
            (seen + 1..=last).collect::<Vec<_>>(),
            "seqs go on from the since"
        );
        // The resumed thread is the host's, event for event: a fresh snapshot agrees.
        let mut fresh = ChatThread::new(&client, &chat_id);
        assert_eq!(within(fresh.attach()).await.unwrap(), Attached::Snapshot);
        assert_eq!(fresh.thread().items, thread.thread().items);
        // Everything the client had seen before the kill is still there.
        match (&before.items[..], &thread.thread().items[..]) {
            (
                [ChatItem::User(u0), ChatItem::Reply(r0)],
                [ChatItem::User(u1), ChatItem::Reply(r1)],
            ) => {
                assert_eq!(u0, u1);
                assert!(
                    r1.text.starts_with(&r0.text),
                    "{:?} then {:?}",
                    r0.text,
                    r1.text
                );
                assert_eq!(r1.streaming, Some(false));
            }
            other => panic!("unexpected threads: {other:?}"),
        }

        // A new chat: another id, another epoch.
        let other = create(&client).await;
        assert_ne!(other, chat_id);
        let attach = |since| ChatAttachPayload::new(other.clone()).since(since);
        let first = within(client.request::<requests::ChatAttach>(attach(0)))
            .await
            .unwrap();
        let other_seq = first.seq.unwrap();
        assert_ne!(seq_epoch(other_seq), seq_epoch(last));
        // A since of the first chat, above this one's seq: a snapshot, never resumed.
        let stale = within(client.request::<requests::ChatAttach>(attach(last)))
            .await
            .unwrap();
        assert_eq!(stale.resumed, Some(false));
        let current = within(client.request::<requests::ChatAttach>(attach(other_seq)))
            .await
            .unwrap();
        assert_eq!(current.resumed, Some(true));

        // The chat goes on; its new items do not collide with the old ones.
        within(client.request::<requests::ChatSend>(send_payload(&chat_id, "after")))
            .await
            .unwrap();
        until_replied(&mut thread, "after").await;
        let ids: BTreeSet<_> = thread
            .thread()
            .items
            .iter()
            .map(contracts::agent::thread::item_id)
            .collect();
        assert_eq!(ids.len(), 4, "{:?}", thread.thread().items);
    });
}

/// A host that keeps nothing (`--memory`) and restarts: the old chat is unknown, a new one
/// has another id and epoch, and the Rust client takes the old thread's since to a snapshot.
#[test]
fn a_restart_without_a_store_never_resumes() {
    let data = tmp("agent-host-memory");
    let (mut server, url) = host(&data, &["--memory", "--delta-delay-ms", "0"]);
    let rt = runtime();
    let (old, seq) = rt.block_on(async {
        let client = connect(&url).await;
        let chat_id = create(&client).await;
        let mut thread = ChatThread::new(&client, &chat_id);
        within(thread.attach()).await.unwrap();
        within(client.request::<requests::ChatSend>(send_payload(&chat_id, "hi")))
            .await
            .unwrap();
        until_replied(&mut thread, "hi").await;
        (chat_id, thread.seq().unwrap())
    });
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    let (_server, url) = host(&data, &["--memory", "--delta-delay-ms", "0"]);
    rt.block_on(async {
        let client = connect(&url).await;
        let gone = client
            .request::<requests::ChatAttach>(ChatAttachPayload::new(old.clone()).since(seq))
            .await
            .unwrap_err();
        assert_eq!(
            gone.wire().map(|e| e.code.clone()),
            Some(ErrorCode::UnknownChat)
        );
        let new = create(&client).await;
        assert_ne!(new, old, "chat ids never repeat across restarts");
        let attached =
            within(client.request::<requests::ChatAttach>(ChatAttachPayload::new(new).since(seq)))
                .await
                .unwrap();
        assert_eq!(attached.resumed, Some(false));
        assert_ne!(seq_epoch(attached.seq.unwrap()), seq_epoch(seq));
    });
}

/// Every user item of a chat and the finished replies, by paging its whole history back
/// (bounded: at most 100 pages).
async fn whole_thread(client: &Client, chat_id: &str) -> Vec<ChatItem> {
    let attach = ChatAttachPayload::new(chat_id).history_limit(100);
    let first = within(client.request::<requests::ChatAttach>(attach))
        .await
        .unwrap();
    let mut items = first.items;
    let mut cursor = first.history.and_then(|h| h.cursor);
    for _ in 0..100 {
        let Some(at) = cursor.take() else { break };
        let page = within(
            client
                .request::<requests::ChatHistory>(ChatHistoryPayload::new(chat_id, at).limit(100)),
        )
        .await
        .unwrap();
        let mut older = page.items;
        older.extend(items);
        items = older;
        cursor = page.history.cursor;
    }
    assert!(cursor.is_none(), "the history pages back to its start");
    items
}

/// Polls chat.list until the chat is idle with nothing queued (bounded by the time limit).
async fn until_all_answered(client: &Client, chat_id: &str) -> ChatInfo {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let list = within(client.request::<requests::ChatList>(ChatListPayload::new()))
            .await
            .unwrap();
        let info = list
            .chats
            .into_iter()
            .find(|c| c.chat_id == chat_id)
            .expect("the chat survived");
        if info.state == ChatState::Idle && info.queued.is_empty() {
            return info;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still {:?} with {} queued",
            info.state,
            info.queued.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `kill -9` while messages queue and turns answer them, then a restart: every message the
/// host acked (`queued: true` or `false`) is answered after the restart, exactly once and in
/// the order sent, and so is nothing that was never sent. Messages sent after the kill
/// (their requests failed) may or may not have been stored; none is answered twice.
#[test]
fn every_acked_message_is_answered_after_kill_9_mid_queue() {
    let data = tmp("agent-host-kill9-queue");
    let (mut server, url) = host(&data, &["--delta-delay-ms", "10"]);
    let rt = runtime();
    let (chat_id, acked, queued, sender) = rt.block_on(async {
        let client = connect(&url).await;
        let chat_id = create(&client).await;
        let acked = Arc::new(std::sync::Mutex::new(Vec::new()));
        let queued = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let sender = {
            let (client, chat_id, acked, queued) = (
                client.clone(),
                chat_id.clone(),
                acked.clone(),
                queued.clone(),
            );
            tokio::spawn(async move {
                for n in 0..200 {
                    let text = format!("m{n} one two three");
                    let sent = client.request::<requests::ChatSend>(send_payload(&chat_id, &text));
                    match tokio::time::timeout(LIMIT, sent).await {
                        Ok(Ok(result)) => {
                            if result.queued {
                                queued.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            }
                            acked.lock().unwrap().push(text);
                        }
                        _ => return,
                    }
                    // Slower than the sends alone, so turns answer some while more queue.
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            })
        };
        // Kill once 80 are acked: some answered, most queued, more in flight.
        for _ in 0..3000 {
            if acked.lock().unwrap().len() >= 80 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        (chat_id, acked, queued, sender)
    });
    // SIGKILL: no shutdown code runs.
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    rt.block_on(async {
        let _ = tokio::time::timeout(LIMIT, sender).await;
    });
    let acked = acked.lock().unwrap().clone();
    let queued = queued.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        acked.len() >= 80,
        "only {} acked before the kill",
        acked.len()
    );
    assert!(
        queued > 20,
        "only {queued} of the acked messages were queued"
    );

    let (_server, url) = host(&data, &["--delta-delay-ms", "0"]);
    rt.block_on(async {
        let client = connect(&url).await;
        until_all_answered(&client, &chat_id).await;
        let items = whole_thread(&client, &chat_id).await;
        let users: Vec<&str> = items
            .iter()
            .filter_map(|i| match i {
                ChatItem::User(u) => Some(u.text.as_str()),
                _ => None,
            })
            .collect();
        // The acked messages, in order, then perhaps some sent as the host died.
        assert_eq!(
            &users[..acked.len().min(users.len())],
            &acked.iter().map(String::as_str).collect::<Vec<_>>()[..],
            "every acked message is in the thread, in order ({} acked, {} in the thread)",
            acked.len(),
            users.len()
        );
        let sent: BTreeSet<String> = (0..200).map(|n| format!("m{n} one two three")).collect();
        eprintln!(
            "{} acked ({queued} queued) before the kill; {} answered after the restart",
            acked.len(),
            users.len()
        );
        let unique: BTreeSet<&str> = users.iter().copied().collect();
        assert_eq!(unique.len(), users.len(), "no message twice");
        assert!(users.iter().all(|u| sent.contains(*u)));
        // Each is answered: a finished reply to every message, but the one whose reply the
        // kill cut (closed where it stopped).
        let mut cut = 0;
        for user in &users {
            let answer = format!("echo: {user}");
            let whole = items.iter().any(|i| {
                matches!(i, ChatItem::Reply(r) if r.text == answer && r.streaming == Some(false))
            });
            if !whole {
                cut += 1;
            }
        }
        assert!(cut <= 1, "{cut} messages without a whole reply");
        assert!(
            items
                .iter()
                .all(|i| !matches!(i, ChatItem::Reply(r) if r.streaming == Some(true))),
            "no reply left streaming"
        );
    });
}

/// Bytes a process caused to be written to storage, from `/proc/PID/io`.
fn write_bytes(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap();
    io.lines()
        .find_map(|l| l.strip_prefix("write_bytes: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("write_bytes in /proc/PID/io")
}

/// 400 messages of 1000 bytes queue behind a turn that never ends (400 KB of sends): storing
/// each costs the same at any depth of the queue (the last hundred, behind 300 queued, cost
/// at most twice the first hundred; the whole queue rewritten each time, as the host did
/// before, wrote about 100 MiB), all of it under 32 MiB (`write_bytes` of the host process,
/// from `/proc`: SQLite writes whole 4 KiB pages to its WAL, and again at a checkpoint; about
/// 3.5 MiB a hundred here).
#[test]
fn a_queued_message_costs_the_same_to_store_at_any_depth() {
    let data = tmp("agent-host-queue-cost");
    let (server, url) = host(&data, &["--delta-delay-ms", "600000"]);
    let pid = server.0.id();
    runtime().block_on(async {
        let client = connect(&url).await;
        let chat_id = create(&client).await;
        let send = |text: String| {
            let client = client.clone();
            let chat_id = chat_id.clone();
            async move {
                within(client.request::<requests::ChatSend>(send_payload(&chat_id, &text)))
                    .await
                    .unwrap()
                    .queued
            }
        };
        assert!(!send("a turn that never ends".to_owned()).await);
        let mut marks = vec![write_bytes(pid)];
        for hundred in 0..4 {
            for n in 0..100 {
                let text = format!("{hundred}.{n} {}", "q".repeat(1000));
                assert!(send(text).await, "queued behind the running turn");
            }
            marks.push(write_bytes(pid));
        }
        let costs: Vec<u64> = marks.windows(2).map(|w| w[1] - w[0]).collect();
        let total: u64 = costs.iter().sum();
        eprintln!(
            "bytes written per hundred queued messages: {costs:?} ({} KiB in all)",
            total >> 10
        );
        assert!(
            costs[3] <= 2 * costs[0].max(64 << 10),
            "the last hundred cost {} KiB, the first {} KiB",
            costs[3] >> 10,
            costs[0] >> 10
        );
        assert!(total < 32 << 20, "{} KiB written", total >> 10);
        let list = within(client.request::<requests::ChatList>(ChatListPayload::new()))
            .await
            .unwrap();
        assert_eq!(list.chats[0].queued.len(), 400);
    });
    drop(server);
}
