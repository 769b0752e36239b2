//! The host binary on a real full disk: its data directory on a small tmpfs filled to the
//! last page while a turn streams. The turn stops without wedging the chat: sends are refused
//! with an error naming the cause (never acked), reads go on, the disk error is logged once,
//! and when space returns the turn's end is stored by itself (its reply closed, a notice, the
//! chat `failed`) and sends are answered again, no restart. A host started on the full disk
//! serves reads, says it is read-only, and takes sends once space returns. Every acked
//! message is in the thread after all that and a restart. Skips where a tmpfs cannot be
//! mounted (not root), unless `CI` is set.

use contracts::agent::client::{Client, ClientError};
use contracts::agent::{
    ChatAttachPayload, ChatCreatePayload, ChatHistoryPayload, ChatInfo, ChatItem, ChatListPayload,
    ChatSendPayload, ChatState, ErrorCode, NoticeLevel, requests,
};
use contracts::port::{WebSocketOptions, WebSocketPort};
use std::future::Future;
use std::path::Path;
use std::time::Duration;
use test_support::{SmallDisk, Watched, start_watched};

const LIMIT: Duration = Duration::from_secs(30);
/// How long a line the server logs may take to reach the test (stderr is read by a thread).
const LOG_WAIT: Duration = Duration::from_secs(10);

async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("timed out waiting for the host")
}

/// The host on `data` with its log on stderr, and its url with the token it wrote there.
fn host(data: &Path, delta_delay_ms: &str) -> (Watched, String) {
    let data_arg = data.display().to_string();
    let args = [
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        &data_arg,
        "--delta-delay-ms",
        delta_delay_ms,
    ];
    let server = start_watched(env!("CARGO_BIN_EXE_agent-host"), &args, None);
    let token = std::fs::read_to_string(data.join("token")).expect("the token file");
    let url = format!("{}/?token={}", server.url, token.trim());
    (server, url)
}

async fn connect(url: &str) -> Client {
    let port = within(WebSocketPort::connect(url, &WebSocketOptions::default()))
        .await
        .unwrap();
    Client::new(port)
}

/// The chat's info from chat.list (a read).
async fn info(client: &Client, chat_id: &str) -> ChatInfo {
    within(client.request::<requests::ChatList>(ChatListPayload::new()))
        .await
        .expect("chat.list is served")
        .chats
        .into_iter()
        .find(|c| c.chat_id == chat_id)
        .expect("the chat is listed")
}

/// Polls chat.list (at most `LIMIT`) until `done` holds for the chat's info.
async fn until(client: &Client, chat_id: &str, done: impl Fn(&ChatInfo) -> bool) -> ChatInfo {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let info = info(client, chat_id).await;
        if done(&info) {
            return info;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the chat stays {:?} with {} queued",
            info.state,
            info.queued.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A send: `Ok` when acked, the host's error when refused.
async fn send(
    client: &Client,
    chat_id: &str,
    text: &str,
) -> Result<bool, contracts::agent::WireError> {
    match within(client.request::<requests::ChatSend>(ChatSendPayload::new(chat_id, text))).await {
        Ok(result) => Ok(result.queued),
        Err(ClientError::Host(e)) => Err(e),
        Err(e) => panic!("chat.send failed on the wire: {e:?}"),
    }
}

/// A send refused because the disk is full: the error names the cause.
async fn refused(client: &Client, chat_id: &str, text: &str) {
    let e = send(client, chat_id, text)
        .await
        .expect_err("refused on a full disk");
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("the disk is full"), "{}", e.message);
}

/// The whole thread by attach and history pages (a read; bounded: 100 pages).
async fn whole_thread(client: &Client, chat_id: &str) -> Vec<ChatItem> {
    let attach = ChatAttachPayload::new(chat_id).history_limit(100);
    let first = within(client.request::<requests::ChatAttach>(attach))
        .await
        .expect("chat.attach is served");
    let mut items = first.items;
    let mut cursor = first.history.and_then(|h| h.cursor);
    for _ in 0..100 {
        let Some(at) = cursor.take() else { break };
        let page = within(
            client
                .request::<requests::ChatHistory>(ChatHistoryPayload::new(chat_id, at).limit(100)),
        )
        .await
        .expect("chat.history is served");
        let mut older = page.items;
        older.extend(items);
        items = older;
        cursor = page.history.cursor;
    }
    items
}

/// The texts of the thread's user items, in order.
fn users(items: &[ChatItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            ChatItem::User(u) => Some(u.text.clone()),
            _ => None,
        })
        .collect()
}

/// Waits (bounded) until the streaming reply stops growing: the turn could not store a delta
/// (a delta is due every 40 ms; it stayed the same for two reads 500 ms apart).
async fn until_stopped(client: &Client, chat_id: &str) {
    let reply = async || {
        whole_thread(client, chat_id)
            .await
            .iter()
            .rev()
            .find_map(|i| match i {
                ChatItem::Reply(r) if r.streaming == Some(true) => Some(r.text.clone()),
                _ => None,
            })
    };
    let mut last = reply().await;
    let mut same = 0;
    for _ in 0..60 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = reply().await;
        assert!(now.is_some(), "the reply is still open");
        same = if now == last { same + 1 } else { 0 };
        if same == 2 {
            return;
        }
        last = now;
    }
    panic!("the reply kept growing on a full disk");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_stops_a_turn_visibly_serves_reads_and_resumes_by_itself() {
    let Some(disk) = SmallDisk::mount(&std::env::temp_dir(), "agent-host-full-disk", 8) else {
        return;
    };
    let data = disk.path().join("data");
    let (server, url) = host(&data, "40");
    let client = connect(&url).await;
    let chat_id = within(client.request::<requests::ChatCreate>(ChatCreatePayload::new()))
        .await
        .unwrap()
        .chat_id;
    let mut acked = Vec::new();
    for n in 0..5 {
        let text = format!("before {n}");
        send(&client, &chat_id, &text).await.expect("acked");
        acked.push(text);
        until(&client, &chat_id, |i| i.state == ChatState::Idle).await;
    }

    // A long turn streams (a delta every 40 ms); the disk fills under it.
    let long: String = (0..400).map(|n| format!("w{n} ")).collect();
    send(&client, &chat_id, &long).await.expect("acked");
    acked.push(long.clone());
    tokio::time::sleep(Duration::from_millis(200)).await;
    disk.fill();
    // Sends are refused, naming the cause, while reads go on: never queued forever.
    for n in 0..10 {
        refused(&client, &chat_id, &format!("while full {n}")).await;
    }
    let during = whole_thread(&client, &chat_id).await;
    assert_eq!(
        users(&during),
        acked,
        "only acked messages are in the thread"
    );
    let log = server.said("the store cannot write", LOG_WAIT);
    assert_eq!(
        log.matches("the store cannot write").count(),
        1,
        "the disk error is logged once:\n{log}"
    );

    // Space returns: the stopped turn ends visibly by itself, and sends are answered again.
    until_stopped(&client, &chat_id).await;
    disk.free();
    let stopped = until(&client, &chat_id, |i| i.state == ChatState::Failed).await;
    assert!(stopped.queued.is_empty());
    let items = whole_thread(&client, &chat_id).await;
    assert!(
        items.iter().any(|i| matches!(i, ChatItem::Notice(n)
            if n.level == NoticeLevel::Error && n.text.contains("the disk is full"))),
        "a notice says why the turn stopped"
    );
    assert!(
        !items
            .iter()
            .any(|i| matches!(i, ChatItem::Reply(r) if r.streaming == Some(true))),
        "no reply left streaming"
    );
    send(&client, &chat_id, "after space returned")
        .await
        .expect("acked");
    acked.push("after space returned".to_owned());
    until(&client, &chat_id, |i| i.state == ChatState::Idle).await;
    server.said("the store takes changes again", LOG_WAIT);
    drop(client);
    drop(server);

    // Started on the full disk: reads are served, the log says read-only, sends are refused
    // until space returns, then answered, no restart.
    disk.fill();
    let (server, url) = host(&data, "0");
    server.said("the store opened read-only", LOG_WAIT);
    let client = connect(&url).await;
    assert_eq!(users(&whole_thread(&client, &chat_id).await), acked);
    refused(&client, &chat_id, "restarted full").await;
    disk.free();
    send(&client, &chat_id, "restarted free")
        .await
        .expect("acked");
    acked.push("restarted free".to_owned());
    until(&client, &chat_id, |i| i.state == ChatState::Idle).await;
    drop(client);
    drop(server);

    // After a restart: every acked message, once, in order; each answered but the one the
    // full disk stopped.
    let (_server, url) = host(&data, "0");
    let client = connect(&url).await;
    let items = whole_thread(&client, &chat_id).await;
    assert_eq!(users(&items), acked);
    for text in acked.iter().filter(|t| **t != long) {
        let answer = format!("echo: {text}");
        assert!(
            items.iter().any(
                |i| matches!(i, ChatItem::Reply(r) if r.text == answer && r.streaming == Some(false))
            ),
            "{text} is answered"
        );
    }
}
