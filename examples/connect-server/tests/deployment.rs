//! The server binary as a deployment runs it, on a SQLite data directory: killed with
//! SIGKILL in a burst of writes and restarted, replays of large events across pages, a reader
//! that never reads, many writers with the same keys. Every loop is bounded.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{Client, DataDir, post, rss, server};
use contracts::connect::{ErrorCode, ServerFrame};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

const WS: &str = "ws_demo";

fn key_of(event: &Value) -> String {
    event["idempotency_key"].as_str().unwrap().to_owned()
}

/// Every event once per key, seqs 1..=n with no gap.
fn check_log(events: &[Value]) -> BTreeMap<String, i64> {
    let mut by_key = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["seq"].as_i64(), Some(i as i64 + 1), "seqs have no gap");
        assert!(
            by_key.insert(key_of(e), i as i64 + 1).is_none(),
            "{} is written twice",
            key_of(e)
        );
    }
    by_key
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_in_a_burst_of_writes_loses_no_acked_event_and_writes_no_key_twice() {
    // Both promises survive a killed process: `full` fsyncs every commit, `normal` leaves the
    // WAL in the OS's page cache.
    for sync in ["full", "normal"] {
        kill_9_in_a_burst(sync).await;
    }
}

async fn kill_9_in_a_burst(sync: &str) {
    let data = DataDir::new(&format!("kill9-{sync}"));
    let (mut first, url) = server(&["--data-dir", &data.arg(), "--sync", sync]);
    // Four writers, each with its own keys, writing without waiting for acks.
    let mut acked: BTreeMap<String, i64> = BTreeMap::new();
    let mut writers = Vec::new();
    let heard = Arc::new(AtomicUsize::new(0));
    for (w, token) in ["scout-token", "dana-token", "mo-token", "gus-token"]
        .iter()
        .enumerate()
    {
        let url = url.clone();
        let token = (*token).to_owned();
        let heard = Arc::clone(&heard);
        writers.push(tokio::spawn(async move {
            let mut acks = Vec::new();
            // A writer still saying hello when the kill lands has nothing acked.
            let Some(mut c) = Client::try_hello(&url, &token, &[]).await else {
                return acks;
            };
            for i in 0..400 {
                if !c.try_send(post("spc_1", "burst", &format!("w{w}-{i}"))) {
                    break;
                }
            }
            // Acks until the server dies.
            while let Ok(Some(f)) = tokio::time::timeout(Duration::from_secs(20), c.next()).await {
                if let ServerFrame::Ack(a) = f {
                    heard.fetch_add(1, Ordering::SeqCst);
                    acks.push((a.idempotency_key, a.seq, a.duplicate));
                    if acks.len() == 400 {
                        break;
                    }
                }
            }
            acks
        }));
    }
    // Kill in the middle of the burst: once some acks are out (at most 30 s), not all.
    for _ in 0..3000 {
        if heard.load(Ordering::SeqCst) >= 40 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    for w in writers {
        for (key, seq, duplicate) in w.await.unwrap() {
            assert!(!duplicate);
            assert!(acked.insert(key, seq).is_none());
        }
    }
    assert!(
        !acked.is_empty(),
        "the server acked nothing before it was killed"
    );
    let (_second, url) = server(&["--data-dir", &data.arg(), "--sync", sync]);
    let mut reader = Client::hello(&url, "dana-token", &["events"]).await;
    let (events, _) = reader.replay(WS, 0).await;
    let stored = check_log(&events);
    // Every acked event is there, at the seq it was acked with; some unacked ones may be too.
    for (key, seq) in &acked {
        assert_eq!(stored.get(key), Some(seq), "{sync}: acked {key} at {seq}");
    }
    // Every writer resends everything: acked keys are duplicates with their first seq, and
    // none is written twice; the seqs continue after the head.
    let head = events.len() as i64;
    for (w, token) in ["scout-token", "dana-token", "mo-token", "gus-token"]
        .iter()
        .enumerate()
    {
        let mut c = Client::hello(&url, token, &[]).await;
        for i in 0..400 {
            let key = format!("w{w}-{i}");
            let ServerFrame::Ack(a) = c.post("spc_1", "burst", &key).await else {
                panic!("resend of {key} refused")
            };
            match stored.get(&key) {
                Some(seq) => assert_eq!((a.seq, a.duplicate), (*seq, true), "{key}"),
                None => assert!(!a.duplicate && a.seq > head, "{key}: {a:?}"),
            }
        }
    }
    // A fresh reader: the first one heard the resends live.
    let mut reader = Client::hello(&url, "dana-token", &["events"]).await;
    let (events, _) = reader.replay(WS, 0).await;
    assert_eq!(check_log(&events).len(), 1600);
}

#[tokio::test]
async fn large_events_replay_across_pages_that_fit_and_a_too_large_one_is_refused_before_its_ack() {
    let data = DataDir::new("pages");
    let (_server, url) = server(&["--data-dir", &data.arg(), "--sync", "normal"]);
    let mut w = Client::hello(&url, "mo-token", &[]).await;
    let text = "x".repeat(5_000);
    for i in 0..600 {
        w.send(post("spc_1", &text, &format!("big-{i}")));
    }
    for _ in 0..600 {
        assert!(matches!(w.answer().await, ServerFrame::Ack(_)));
    }
    // Just under the port's limit as the client sends it, over it as the server would.
    let huge = "y".repeat(1024 * 1024 - 200);
    let ServerFrame::Error(e) = w.post("spc_1", &huge, "huge").await else {
        panic!("a too large event was acked")
    };
    assert_eq!(
        (e.code, e.idempotency_key.as_deref()),
        (ErrorCode::InvalidEvent, Some("huge"))
    );
    for (accepts, since) in [(&["events"][..], 0), (&["events"][..], 250), (&[][..], 590)] {
        let mut r = Client::hello(&url, "dana-token", accepts).await;
        let (events, frames) = r.replay(WS, since).await;
        let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
        assert_eq!(seqs, ((since + 1)..=600).collect::<Vec<_>>());
        for f in &frames {
            let len = serde_json::to_string(f).unwrap().len();
            assert!(len <= 1024 * 1024, "a frame of {len} bytes");
            if let ServerFrame::Events(p) = f {
                assert!(p.events.len() <= 500);
            }
        }
        if accepts.is_empty() {
            assert!(frames.iter().all(|f| matches!(f, ServerFrame::Event(_))));
        } else {
            assert!(
                frames.len() > 1,
                "600 events of 5 KB are more than one page"
            );
        }
    }
}

/// Writes `count` messages keyed from `from`, then reads their acks.
async fn write_n(w: &mut Client, text: &str, from: usize, count: usize) {
    for i in from..from + count {
        w.send(post("spc_1", text, &format!("flat-{i}")));
    }
    for _ in 0..count {
        assert!(matches!(w.answer().await, ServerFrame::Ack(_)));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_that_never_reads_is_closed_and_the_server_stays_flat() {
    let data = DataDir::new("slow");
    let queue = (2 * 1024 * 1024).to_string();
    let (server, url) = server(&[
        "--data-dir",
        &data.arg(),
        "--sync",
        "normal",
        "--queue-bytes",
        &queue,
    ]);
    let mut w = Client::hello(&url, "mo-token", &[]).await;
    let text = "z".repeat(10_000);
    write_n(&mut w, &text, 0, 300).await;
    // The reader says hello and subscribes, then never reads another byte: a raw stream that
    // is not polled, so the server's writes meet a full TCP window.
    let (mut stalled, _) = tokio_tungstenite::connect_async(format!("{url}?token=dana-token"))
        .await
        .expect("connects");
    let hello = r#"{"frame":"hello","protocol":{"min":1,"max":1},"client":{"name":"stalled","version":"1"},"accepts":["events"]}"#;
    stalled.send(Message::text(hello)).await.unwrap();
    stalled
        .send(Message::text(format!(
            r#"{{"frame":"subscribe","workspace_id":"{WS}"}}"#
        )))
        .await
        .unwrap();
    let before = rss(&server);
    // 3,000 events of 10 KB: 30 MB the reader would have to hold.
    for round in 1..=10 {
        write_n(&mut w, &text, round * 300, 300).await;
    }
    let after = rss(&server);
    if let (Some(before), Some(after)) = (before, after) {
        let grown = after.saturating_sub(before);
        assert!(grown < 24 * 1024 * 1024, "the server grew by {grown} bytes");
    }
    // The reader was closed as a slow consumer: reading now finds what the TCP buffers held,
    // then the end. (The port sends a close 1008 with the reason, but a peer whose window is
    // full cannot take even that: the connection is dropped after a second.)
    let ended = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(Ok(_)) = stalled.next().await {}
    })
    .await;
    assert!(ended.is_ok(), "the slow reader was never closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_writers_with_the_same_keys_store_each_key_once() {
    let data = DataDir::new("dups");
    let (_server, url) = server(&["--data-dir", &data.arg(), "--sync", "normal"]);
    let mut tasks = Vec::new();
    for w in 0..6u64 {
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            // Six sockets of one participant, each sending the same 50 keys in its own order.
            let mut c = Client::hello(&url, "scout-token", &[]).await;
            let mut keys: Vec<u64> = (0..50).collect();
            keys.rotate_left((w * 7 % 50) as usize);
            let mut acks = Vec::new();
            for k in keys {
                let ServerFrame::Ack(a) = c.post("spc_1", "same", &format!("dup-{k}")).await else {
                    panic!("refused")
                };
                acks.push((a.idempotency_key, a.seq, a.duplicate));
            }
            acks
        }));
    }
    let mut seq_of: BTreeMap<String, i64> = BTreeMap::new();
    let mut fresh: BTreeSet<String> = BTreeSet::new();
    for t in tasks {
        for (key, seq, duplicate) in t.await.unwrap() {
            assert_eq!(
                *seq_of.entry(key.clone()).or_insert(seq),
                seq,
                "{key} acked at two seqs"
            );
            if !duplicate {
                assert!(fresh.insert(key.clone()), "{key} acked as new twice");
            }
        }
    }
    assert_eq!(fresh.len(), 50);
    let mut r = Client::hello(&url, "dana-token", &["events"]).await;
    let (events, _) = r.replay(WS, 0).await;
    assert_eq!(check_log(&events), seq_of);
}
