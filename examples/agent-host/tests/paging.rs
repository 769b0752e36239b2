//! The binary on its SQLite store with a lot of chat text and many chats: its memory does not
//! grow with the text (threads stay in the store, read a page at a time), a replay from a
//! chat's first seq still answers every event in order, and chat.list answers every chat a
//! page at a time however large their infos, refusing a `cwd` over the schema's bound.
//!
//! Every loop is bounded and every wait has a time limit; memory is the process's `VmRSS`
//! from `/proc`.

use contracts::agent::client::Client;
use contracts::agent::host::EPOCH_SHIFT;
use contracts::agent::thread::Thread;
use contracts::agent::{
    ChatAttachPayload, ChatCreatePayload, ChatHistoryPayload, ChatItem, ChatListPayload,
    ChatListResult, ChatSendPayload, ChatState, ErrorCode, EventPayload, requests,
};
use contracts::port::{Limits, WebSocketOptions, WebSocketPort};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;
use test_support::{KillOnDrop, start};

const LIMIT: Duration = Duration::from_secs(60);

async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("timed out waiting for the host")
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The binary on a free port with its data in `data`, replies unpaced: the process and its url
/// with the client token. `AGENT_HOST_BIN` names another build to measure (an older one, for
/// the figures in docs/benchmarks.md); this one's by default.
fn host(data: &std::path::Path) -> (KillOnDrop, String) {
    let program = std::env::var("AGENT_HOST_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_agent-host").to_owned());
    let args = [
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        data.to_str().unwrap(),
        "--delta-delay-ms",
        "0",
    ];
    let (server, url) = start(&program, &args);
    let token = std::fs::read_to_string(data.join("token")).expect("the token file");
    (server, format!("{url}/?token={}", token.trim()))
}

async fn connect(url: &str) -> Client {
    let port = within(WebSocketPort::connect(url, &WebSocketOptions::default()))
        .await
        .unwrap();
    Client::new(port)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The process's resident memory, from /proc.
fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("VmRSS in /proc/PID/status");
    kib * 1024
}

const CHATS: usize = 32;
const ROUNDS: usize = 32;
/// A message of 16 KiB in words of 1 KiB: its echo is as long, in 17 deltas.
const WORD: usize = 1024;
const WORDS: usize = 16;

fn message(chat: usize, round: usize) -> String {
    let word = format!("{chat:02}.{round:02}-").repeat(WORD / 6);
    vec![word; WORDS].join(" ")
}

/// One message to every chat, and back when each is idle again (its chat.status says so).
async fn round(
    client: &Client,
    status: &mut tokio::sync::mpsc::UnboundedReceiver<EventPayload>,
    chats: &[String],
    round: usize,
) {
    for (n, chat_id) in chats.iter().enumerate() {
        let queued = within(
            client.request::<requests::ChatSend>(ChatSendPayload::new(chat_id, message(n, round))),
        )
        .await
        .unwrap()
        .queued;
        assert!(!queued, "each chat was idle");
    }
    let mut running: BTreeSet<&String> = chats.iter().collect();
    while !running.is_empty() {
        let event = within(status.recv())
            .await
            .expect("the connection stays up");
        if let EventPayload::ChatStatus(s) = event
            && s.info.state == ChatState::Idle
            && s.info
                .usage
                .is_some_and(|u| u.input_tokens == (WORDS * (round + 1)) as i64)
        {
            running.remove(&s.chat_id);
        }
    }
}

/// 32 MiB of chat text (32 chats, 32 messages of 16 KiB each and their echoes) grow the
/// host's memory by a small part of it, not by the text: the threads are in the store. Then a
/// client attaching with a chat's first seq as `since` is replayed every event in order (from
/// the store: the chat is idle and holds no window), and the thread those events make is the
/// one a snapshot and its history pages read.
#[test]
fn thirty_two_mib_of_chat_text_stay_in_the_store() {
    let data = tmp("agent-host-paging-text");
    let (server, url) = host(&data);
    let pid = server.0.id();
    runtime().block_on(async {
        let client = connect(&url).await;
        let mut status = client.subscribe();
        let mut chats = Vec::new();
        for _ in 0..CHATS {
            let payload = ChatCreatePayload::new().title("text");
            chats.push(
                within(client.request::<requests::ChatCreate>(payload))
                    .await
                    .unwrap()
                    .chat_id,
            );
        }
        // Two rounds first, so what every turn allocates once is there before the count.
        round(&client, &mut status, &chats, 0).await;
        round(&client, &mut status, &chats, 1).await;
        let before = rss_bytes(pid);
        for r in 2..ROUNDS {
            round(&client, &mut status, &chats, r).await;
        }
        let after = rss_bytes(pid);
        let text = (CHATS * (ROUNDS - 2) * 2 * WORDS * WORD) as u64;
        let grew = after.saturating_sub(before);
        eprintln!(
            "chat text {} KiB: RSS {} KiB before, {} KiB after, +{} KiB ({:.3} of the text)",
            text >> 10,
            before >> 10,
            after >> 10,
            grew >> 10,
            grew as f64 / text as f64
        );
        assert!(
            grew < text / 8,
            "RSS grew by {} KiB for {} KiB of chat text",
            grew >> 10,
            text >> 10
        );

        // A fresh connection replays the first chat from its first seq.
        let chat_id = &chats[0];
        let reader = connect(&url).await;
        let snapshot =
            within(reader.request::<requests::ChatAttach>(ChatAttachPayload::new(chat_id.clone())))
                .await
                .unwrap();
        let last = snapshot.seq.unwrap();
        let first = (last >> EPOCH_SHIFT) << EPOCH_SHIFT;
        let replayer = connect(&url).await;
        let mut events = replayer.subscribe();
        let resumed =
            within(replayer.request::<requests::ChatAttach>(
                ChatAttachPayload::new(chat_id.clone()).since(first),
            ))
            .await
            .unwrap();
        assert_eq!(resumed.resumed, Some(true), "replayed, not a snapshot");
        let mut replayed = Thread::from_snapshot(resumed.info.clone(), Vec::new());
        let mut seqs = Vec::new();
        while seqs.last() != Some(&last) {
            if let EventPayload::ChatEvent(e) = within(events.recv()).await.unwrap() {
                seqs.push(e.seq.unwrap());
                replayed.apply(&e.event);
            }
        }
        assert_eq!(
            seqs,
            (first + 1..=last).collect::<Vec<_>>(),
            "every event, in order"
        );
        assert_eq!(replayed.items.len(), 2 * ROUNDS);

        // The snapshot and the history pages before it read the same thread from the store.
        let mut items: Vec<ChatItem> = snapshot.items;
        let mut cursor = snapshot.history.and_then(|h| h.cursor);
        let mut pages = 0;
        while let Some(c) = cursor {
            pages += 1;
            assert!(pages <= 2 * ROUNDS, "the history pages end");
            let page = within(reader.request::<requests::ChatHistory>(
                ChatHistoryPayload::new(chat_id.clone(), c).limit(7),
            ))
            .await
            .unwrap();
            items.splice(0..0, page.items);
            cursor = page.history.cursor;
        }
        assert_eq!(items, replayed.items, "the pages read the replayed thread");
    });
    drop(server);
}

/// Every chat.list page, following the cursors from the first: the chats, and each page's
/// frame size.
async fn every_page(client: &Client, limit: Option<i64>) -> (Vec<String>, Vec<usize>) {
    let mut ids = Vec::new();
    let mut sizes = Vec::new();
    let mut cursor = None;
    for _ in 0..1000 {
        let mut payload = ChatListPayload::new();
        payload.cursor = cursor;
        payload.limit = limit;
        let page: ChatListResult = within(client.request::<requests::ChatList>(payload))
            .await
            .unwrap();
        sizes.push(serde_json::to_string(&page).unwrap().len());
        ids.extend(page.chats.iter().map(|c| c.chat_id.clone()));
        cursor = page.cursor;
        if cursor.is_none() {
            return (ids, sizes);
        }
    }
    panic!("chat.list never reached its last page");
}

/// 300 chats whose `cwd` is as long as the schema allows (4096 characters of two bytes: their
/// infos, 2.5 MB together, over the 1 MiB frame limit): chat.list still answers, a page at a time,
/// each within the limit, and following the cursors reads every chat once, in order; a client
/// that sends no cursor (as one from before paging) gets the first page. A `cwd` of 4097
/// characters is refused with `invalid-payload` naming the bound, and so is one of 600 KB,
/// which no longer makes chat.list fail for everyone.
#[test]
fn chat_list_answers_every_chat_a_page_at_a_time() {
    let data = tmp("agent-host-paging-list");
    let (server, url) = host(&data);
    runtime().block_on(async {
        let client = connect(&url).await;
        let cwd = |n: usize, len: usize| {
            let head = format!("/home/someone/{n:03}/");
            format!("{head}{}", "é".repeat(len - head.chars().count()))
        };
        // 300,000 characters of two bytes each: 600 KB.
        for len in [4097, 300_000] {
            let refused = within(
                client.request::<requests::ChatCreate>(ChatCreatePayload::new().cwd(cwd(0, len))),
            )
            .await
            .unwrap_err();
            let error = refused
                .wire()
                .unwrap_or_else(|| panic!("not the host's refusal: {refused}"));
            assert_eq!(error.code, ErrorCode::InvalidPayload, "{error:?}");
            assert!(error.message.contains("4096"), "{}", error.message);
        }
        let mut made = BTreeMap::new();
        for n in 0..300 {
            let created = within(
                client.request::<requests::ChatCreate>(
                    ChatCreatePayload::new()
                        .title(format!("chat {n}"))
                        .cwd(cwd(n, 4096)),
                ),
            )
            .await
            .unwrap();
            assert_eq!(
                created.info.cwd.as_ref().map(|c| c.chars().count()),
                Some(4096)
            );
            made.insert(created.chat_id, n);
        }
        let limit = Limits::default().max_frame_size;
        let (ids, sizes) = every_page(&client, None).await;
        eprintln!(
            "chat.list pages of 300 chats: {} bytes each",
            sizes
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert!(sizes.len() >= 2, "paged: {sizes:?}");
        assert!(sizes.iter().all(|s| *s < limit), "{sizes:?}");
        assert_eq!(
            ids,
            made.keys().cloned().collect::<Vec<_>>(),
            "every chat once, in order"
        );
        let (ids, sizes) = every_page(&client, Some(7)).await;
        assert_eq!(sizes.len(), 300usize.div_ceil(7));
        assert_eq!(ids.len(), 300);
        // A client from before paging sends `{}`: the first page, which fits.
        let old = within(client.request_raw(
            "chat.list",
            contracts::wire::RawJson::from_value(&serde_json::json!({})).unwrap(),
        ))
        .await
        .unwrap();
        assert!(old.get().len() < limit);
        let old: serde_json::Value = serde_json::from_str(old.get()).unwrap();
        assert!(!old["chats"].as_array().unwrap().is_empty());
        assert!(old["cursor"].is_string(), "and can tell more follow");
    });
    drop(server);
}
