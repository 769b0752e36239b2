//! The server binary under clients that ask more than it should hold: a writer faster than
//! the server handles, pings during a replay the client does not read, tens of thousands of
//! subscribes. Memory is read from `/proc/PID/status`, CPU time from `/proc/PID/stat`; every
//! loop is bounded and every wait has a time limit.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::{Client, post, server};
use contracts::connect::{ErrorCode, ServerFrame, parse_server_frame};
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use test_support::{cpu_ticks, memory};
use tokio_tungstenite::tungstenite::Message;

const WS: &str = "ws_demo";
const LIMIT: Duration = Duration::from_secs(120);

/// A raw WebSocket client with `token` that said hello (accepting `events`), over a socket
/// that buffers little, so what the server writes to it and it does not read stays with the
/// server.
async fn raw_client(
    url: &str,
    token: &str,
) -> tokio_tungstenite::WebSocketStream<tokio::net::TcpStream> {
    let addr = common::host_of(url).parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    let (mut ws, _) = tokio_tungstenite::client_async(format!("{url}?token={token}"), stream)
        .await
        .unwrap();
    let hello = json!({
        "frame": "hello", "protocol": { "min": 1, "max": 1 },
        "client": { "name": "backpressure", "version": "1" }, "accepts": ["events"],
    });
    ws.send(Message::text(hello.to_string())).await.unwrap();
    loop {
        let Some(Ok(Message::Text(text))) = ws.next().await else {
            panic!("no hello")
        };
        if matches!(parse_server_frame(&text), Ok(ServerFrame::Hello(_))) {
            return ws;
        }
    }
}

/// 12,800 events of 8 KB (100 MB) written as fast as the socket takes them, the acks read on
/// a task of their own: the server reads them only as fast as it handles them (its port stops
/// reading while what it read and did not handle is over the inbound bound, 2 MiB), so its
/// peak memory grows by a few MiB, not by what the writer sent; every event is acked once.
/// Before the bound, the frames waited in an unbounded channel: the peak grew with the
/// writer's lead over the hub.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_faster_than_the_server_is_read_as_fast_as_it_is_handled() {
    const EVENTS: usize = 12_800;
    let (server, url) = server(&["--log", "memory", "--retain", "200"]);
    let pid = server.0.id();
    let ws = raw_client(&url, "mo-token").await;
    let (mut sink, mut stream) = ws.split();
    let acks = tokio::spawn(async move {
        let mut keys = BTreeSet::new();
        while keys.len() < EVENTS {
            let Ok(Some(Ok(message))) = tokio::time::timeout(LIMIT, stream.next()).await else {
                break;
            };
            if let Message::Text(text) = message
                && let Ok(ServerFrame::Ack(ack)) = parse_server_frame(&text)
            {
                assert!(!ack.duplicate);
                assert!(keys.insert(ack.idempotency_key), "acked twice");
            }
        }
        keys.len()
    });
    let before = memory(pid, "VmRSS");
    let text = "b".repeat(8 * 1024);
    for i in 0..EVENTS {
        let frame = post("spc_1", &text, &format!("bp-{i}")).to_string();
        tokio::time::timeout(LIMIT, sink.send(Message::text(frame)))
            .await
            .expect("the server reads on")
            .unwrap();
    }
    assert_eq!(acks.await.unwrap(), EVENTS, "every event acked");
    let peak = memory(pid, "VmHWM");
    let grown = peak.saturating_sub(before);
    eprintln!(
        "100 MB written: peak {} KiB over {} KiB before",
        grown >> 10,
        before >> 10
    );
    // Measured: about 3 MiB (the log's last 200 events, buffers); with the channel
    // unbounded, tens of MiB.
    assert!(
        grown < 16 << 20,
        "the server's peak grew by {} KiB while 100 MB were written to it",
        grown >> 10
    );
}

/// A reader subscribes from the start of 10 MB of events and does not read: the replay waits
/// for its socket. It then sends 200,000 `ping` frames and WebSocket pings carrying 125 bytes:
/// the server holds one pong of each kind for it (the last `ping`'s; and it reads the socket
/// no further until the WebSocket pong went out), so its memory stays flat. Once the reader
/// reads, every event arrives in order, then one pong, the last ping's. Before, the server
/// held a pong for every ping (tens of MiB here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pings_during_an_unread_replay_hold_one_pong() {
    const EVENTS: usize = 1000;
    const PINGS: i64 = 200_000;
    let queue = (2 * 1024 * 1024).to_string();
    let (server, url) = server(&["--log", "memory", "--queue-bytes", &queue]);
    let pid = server.0.id();
    let mut w = Client::hello(&url, "mo-token", &[]).await;
    let text = "r".repeat(10_000);
    for i in 0..EVENTS {
        w.send(post("spc_1", &text, &format!("replay-{i}")));
    }
    for _ in 0..EVENTS {
        assert!(matches!(w.answer().await, ServerFrame::Ack(_)));
    }
    let mut reader = raw_client(&url, "dana-token").await;
    let subscribe = json!({ "frame": "subscribe", "workspace_id": WS, "since": 0 });
    reader
        .send(Message::text(subscribe.to_string()))
        .await
        .unwrap();
    let before = memory(pid, "VmRSS");
    for ts in 1..=PINGS {
        let ping = json!({ "frame": "ping", "ts": ts }).to_string();
        tokio::time::timeout(LIMIT, reader.send(Message::text(ping)))
            .await
            .expect("the server reads ping frames on")
            .unwrap();
    }
    // WebSocket pings: once the server cannot write a pong, it reads no further, and these
    // sends stop going out (each waits at most two seconds before the loop ends).
    let payload = vec![7u8; 125];
    let mut sent = 0;
    for _ in 0..200_000 {
        let send = reader.send(Message::Ping(payload.clone().into()));
        match tokio::time::timeout(Duration::from_secs(2), send).await {
            Ok(result) => {
                result.unwrap();
                sent += 1;
            }
            Err(_) => break,
        }
    }
    let grown = memory(pid, "VmHWM").saturating_sub(before);
    eprintln!(
        "{PINGS} ping frames and {sent} WebSocket pings during an unread replay: peak {} KiB over {} KiB before",
        grown >> 10,
        before >> 10
    );
    assert!(
        grown < 16 << 20,
        "the server's peak grew by {} KiB while pings went unanswered",
        grown >> 10
    );
    // The reader reads: the whole replay in order, then the one pong.
    let mut seqs = Vec::new();
    let pong = loop {
        let message = tokio::time::timeout(LIMIT, reader.next())
            .await
            .expect("the replay goes on")
            .expect("the connection stays up")
            .unwrap();
        let Message::Text(text) = message else {
            continue;
        };
        match parse_server_frame(&text).unwrap() {
            ServerFrame::Events(page) => seqs.extend(
                page.events
                    .iter()
                    .map(|e| serde_json::to_value(e).unwrap()["seq"].as_i64().unwrap()),
            ),
            ServerFrame::Pong(pong) => break pong.ts,
            ServerFrame::Ping(_) => {}
            other => panic!("unexpected {other:?}"),
        }
    };
    assert_eq!(seqs, (1..=EVENTS as i64).collect::<Vec<_>>());
    assert_eq!(pong, PINGS, "one pong, the last ping's");
}

/// 80,000 subscribes to distinct spaces on one socket: the first 1,000 (the cap) are taken,
/// every other one is refused with `rate_limited`, and each costs about the same: the CPU time
/// of the last 60,000 is at most eight times that of the first 20,000 (linear: three). Before,
/// every subscribe searched the socket's list of subscriptions, so the last 60,000 cost
/// fifteen times the first 20,000, and took seconds of CPU even in a release build.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribes_past_the_cap_are_refused_and_each_costs_the_same() {
    const CAP: usize = 1000;
    let (server, url) = server(&["--log", "memory"]);
    let pid = server.0.id();
    let client = Client::hello(&url, "dana-token", &[]).await;
    let Client { port, mut frames } = client;
    // Frames are read on a task of their own: refusals until the pong of each round.
    let (round_ends, mut ended) = tokio::sync::mpsc::unbounded_channel();
    let (heard_live, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let reading = tokio::spawn(async move {
        let mut refused = 0usize;
        loop {
            let Ok(Some(frame)) = tokio::time::timeout(LIMIT, frames.recv()).await else {
                return refused;
            };
            let text = frame.as_text().expect("text").to_owned();
            match parse_server_frame(&text).unwrap() {
                ServerFrame::Error(e) => {
                    assert_eq!(e.code, ErrorCode::RateLimited, "{}", e.message);
                    refused += 1;
                }
                ServerFrame::Pong(p) => {
                    let _ = round_ends.send((p.ts, refused));
                }
                ServerFrame::Event(e) => {
                    let event = serde_json::to_value(&e.event).unwrap();
                    let _ = heard_live.send(event["space_id"].as_str().unwrap().to_owned());
                }
                ServerFrame::Ping(_) => {}
                other => panic!("unexpected {other:?}"),
            }
        }
    });
    let mut rounds = Vec::new();
    let mut next = 0usize;
    for (ts, count) in [(1, 20_000usize), (2, 60_000)] {
        let start = cpu_ticks(pid);
        for _ in 0..count {
            let subscribe = json!({ "frame": "subscribe", "space_id": format!("spc_{next}") });
            contracts::port::FramePortExt::send_json(&port, &subscribe).unwrap();
            next += 1;
        }
        contracts::port::FramePortExt::send_json(&port, &json!({ "frame": "ping", "ts": ts }))
            .unwrap();
        let (pong, refused) = tokio::time::timeout(LIMIT, ended.recv())
            .await
            .expect("the round is answered")
            .unwrap();
        assert_eq!(pong, ts);
        let ticks = cpu_ticks(pid) - start;
        eprintln!("{count} subscribes: {ticks} ticks of CPU");
        rounds.push((ticks, refused));
    }
    let (first, second) = (rounds[0].0, rounds[1].0);
    assert!(
        second <= 8 * first.max(10),
        "the last 60,000 subscribes cost {second} ticks, the first 20,000 {first}"
    );
    assert_eq!(
        rounds[1].1,
        80_000 - CAP,
        "every subscribe past the cap refused"
    );
    // The subscriptions taken work, the refused ones were not taken: of two posts, the one
    // to a space within the cap is heard live.
    let mut w = Client::hello(&url, "mo-token", &[]).await;
    for (space, key) in [("spc_5000", "cap-1"), ("spc_7", "cap-2")] {
        assert!(matches!(
            w.post(space, "heard", key).await,
            ServerFrame::Ack(_)
        ));
    }
    let space = tokio::time::timeout(LIMIT, heard.recv()).await.unwrap();
    assert_eq!(space.as_deref(), Some("spc_7"));
    drop(w);
    drop(port);
    reading.abort();
}
