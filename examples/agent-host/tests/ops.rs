//! What an operator and a client rely on, tried on the binary as deployed: a re-attach while
//! attached never makes a connection receive a seq again, and the log (text, or JSON lines
//! with `--log-format json`) says what was refused, never a token. Every loop is bounded.

use contracts::port::{
    FramePort, FramePortExt, FrameReceiver, Incoming, Outgoing, WebSocketOptions, WebSocketPort,
};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use test_support::{Watched, start_watched};

const LIMIT: Duration = Duration::from_secs(30);

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The binary in memory on a free port, its token file in `data`: the process (stderr
/// watched) and the token.
fn host(data: &std::path::Path, extra: &[&str]) -> (Watched, String) {
    let mut args = vec![
        "--addr",
        "127.0.0.1:0",
        "--memory",
        "--data-dir",
        data.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let watched = start_watched(env!("CARGO_BIN_EXE_agent-host"), &args, None);
    let token = std::fs::read_to_string(data.join("token")).expect("the token file");
    (watched, token.trim().to_owned())
}

/// A raw client: frames as JSON values.
struct Raw {
    port: WebSocketPort,
    frames: FrameReceiver,
    next: u64,
}

impl Raw {
    async fn connect(url: &str) -> Raw {
        let options = WebSocketOptions::default();
        let port = tokio::time::timeout(LIMIT, WebSocketPort::connect(url, &options))
            .await
            .expect("connects in time")
            .expect("connects");
        let frames = port.receiver();
        Raw {
            port,
            frames,
            next: 0,
        }
    }

    /// Sends a request; answers its id.
    fn send(&mut self, method: &str, payload: Value) -> String {
        self.next += 1;
        let id = format!("r{}", self.next);
        let frame = json!({"id": id, "type": method, "payload": payload});
        self.port.send(Outgoing::Text(frame.to_string())).unwrap();
        id
    }

    /// The next frame, within the limit; `None` when the connection ended.
    async fn frame(&mut self) -> Option<Value> {
        let frame = tokio::time::timeout(LIMIT, self.frames.recv())
            .await
            .expect("a frame in time")?;
        let Incoming::Text(text) = frame else {
            panic!("not text: {frame:?}")
        };
        Some(serde_json::from_str(&text).unwrap())
    }

    /// Sends a request and answers its reply, skipping everything else.
    async fn request(&mut self, method: &str, payload: Value) -> Value {
        let id = self.send(method, payload);
        loop {
            let frame = self.frame().await.expect("the connection stays up");
            if frame.get("event").is_none() && frame["id"] == id.as_str() {
                return frame;
            }
        }
    }
}

/// One connection re-attaches, again and again, to the chat it is attached to while replies
/// stream into it (with its last seq as `since`, an older `since`, and none): the chat.event
/// seqs it receives strictly increase, and after a snapshot (not `resumed`) none is at or
/// below the snapshot's seq, so nothing is applied twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reattach_while_attached_never_repeats_a_seq() {
    let data = tmp("agent-host-ops-reattach");
    let (watched, token) = host(&data, &["--delta-delay-ms", "0"]);
    let url = format!("{}/?token={token}", watched.url);
    let mut raw = Raw::connect(&url).await;
    let created = raw
        .request("chat.create", json!({"title": "reattach"}))
        .await;
    let chat_id = created["result"]["chatId"].as_str().unwrap().to_owned();
    let attached = raw.request("chat.attach", json!({"chatId": chat_id})).await;
    let first_seq = attached["result"]["seq"].as_i64().unwrap();
    const MESSAGES: usize = 12;
    let words: Vec<String> = (0..250).map(|i| format!("w{i}")).collect();
    let text = words.join(" ");
    for _ in 0..MESSAGES {
        raw.send("chat.send", json!({"chatId": chat_id, "text": text}));
    }
    let mut last: Option<i64> = None;
    let mut floor = first_seq;
    let mut attaches: Vec<(String, &str)> = Vec::new();
    let mut events = 0usize;
    let mut replies = 0usize;
    let mut snapshots = 0usize;
    let mut resumed = 0usize;
    let deadline = Instant::now() + Duration::from_secs(60);
    let finished = format!("echo: {text}");
    while (replies < MESSAGES || !attaches.is_empty()) && Instant::now() < deadline {
        let frame = raw.frame().await.expect("the connection stays up");
        if frame["event"] == "chat.event" {
            let payload = &frame["payload"];
            let seq = payload["seq"].as_i64().unwrap();
            assert!(
                last.is_none_or(|last| seq > last),
                "seq {seq} after {last:?}: received again"
            );
            assert!(
                seq > floor,
                "seq {seq} at or below a snapshot's seq {floor}"
            );
            last = Some(seq);
            events += 1;
            let event = &payload["event"];
            if event["type"] == "item"
                && event["item"]["kind"] == "reply"
                && event["item"]["streaming"] == false
                && event["item"]["text"] == finished.as_str()
            {
                replies += 1;
            }
            // A re-attach every 40 events, in turn with the last seq, an older one and none.
            if events.is_multiple_of(40) {
                let (payload, how) = match (events / 40) % 3 {
                    0 => (json!({"chatId": chat_id, "since": seq}), "since the last"),
                    1 => (
                        json!({"chatId": chat_id, "since": first_seq}),
                        "since an older",
                    ),
                    _ => (json!({"chatId": chat_id}), "without since"),
                };
                attaches.push((raw.send("chat.attach", payload), how));
            }
        } else if let Some(at) = attaches
            .iter()
            .position(|(id, _)| frame["id"] == id.as_str())
        {
            let (_, how) = attaches.remove(at);
            let result = &frame["result"];
            assert!(result.is_object(), "the attach {how} failed: {frame}");
            if result["resumed"] == true {
                resumed += 1;
            } else {
                snapshots += 1;
                floor = floor.max(result["seq"].as_i64().unwrap());
            }
        }
    }
    assert_eq!(replies, MESSAGES, "every reply streamed in time");
    assert!(events > 2_000, "{events} events");
    assert!(attaches.is_empty(), "every attach is answered in time");
    eprintln!("{events} events, {snapshots} snapshots, {resumed} resumed");
    assert!(snapshots >= 5 && resumed >= 5, "{snapshots} {resumed}");
}

/// The log of the binary: the start, a request refused with its code, an upgrade refused
/// with its status; as text by default and as JSON lines with `--log-format json`; never the
/// token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_says_what_was_refused_and_never_the_token() {
    for format in ["text", "json"] {
        let data = tmp(&format!("agent-host-ops-log-{format}"));
        let (watched, token) = host(&data, &["--log-format", format]);
        let url = format!("{}/?token={token}", watched.url);
        let mut raw = Raw::connect(&url).await;
        let unknown = raw
            .request("chat.nonsense", json!({"secret": "s3cret"}))
            .await;
        assert_eq!(unknown["error"]["code"], "unknown-request");
        let missing = raw
            .request("chat.attach", json!({"chatId": "c404", "x": "s3cret"}))
            .await;
        assert_eq!(missing["error"]["code"], "unknown-chat");
        raw.port.send_json(&json!({"not": "a frame"})).unwrap();
        let wrong = format!("{}/?token=not-the-token", watched.url);
        let refused = WebSocketPort::connect(&wrong, &WebSocketOptions::default()).await;
        assert!(refused.is_err());
        watched.said("upgrade refused", Duration::from_secs(10));
        let said = watched.said("unreadable-frame", Duration::from_secs(10));
        assert!(!said.contains(&token), "the token in the log:\n{said}");
        assert!(!said.contains("not-the-token"), "{said}");
        assert!(!said.contains("s3cret"), "{said}");
        match format {
            "text" => {
                for needle in [
                    "listening",
                    "request refused",
                    "code=\"unknown-request\"",
                    "request=\"chat.attach\"",
                    "code=\"unknown-chat\"",
                    "code=\"unreadable-frame\"",
                    "upgrade refused",
                    "status=401",
                    "peer=127.0.0.1:",
                ] {
                    assert!(said.contains(needle), "no {needle:?} in:\n{said}");
                }
            }
            _ => {
                let lines: Vec<Value> = said
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
                    .collect();
                let find = |message: &str, key: &str, value: Value| {
                    lines
                        .iter()
                        .find(|l| l["message"] == message && l[key] == value)
                        .unwrap_or_else(|| panic!("no {message} with {key}={value}: {said}"))
                };
                find("listening", "level", json!("INFO"));
                let attach = find("request refused", "code", json!("unknown-chat"));
                assert_eq!(attach["request"], "chat.attach");
                assert!(attach["span"]["peer"].is_string(), "{attach}");
                find("request refused", "code", json!("unknown-request"));
                find("request refused", "code", json!("unreadable-frame"));
                find("upgrade refused", "status", json!(401));
            }
        }
    }
}
