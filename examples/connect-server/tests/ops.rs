//! What an operator relies on, tried on the binary as deployed: RFC 6455 close codes for a
//! peer that breaks the protocol, a token table that gives one id to two participants refused
//! at startup, admin notices that say who asked and when, and a log (JSON lines with
//! `--log-format json`) of starts, refusals with their code, slow consumers cut and accept
//! errors that never shows a token. Every loop is bounded.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Client, host_of, http, post};
use contracts::connect::ServerFrame;
use futures_util::SinkExt;
use serde_json::{Value, json};
use test_support::{KillOnDrop, Watched, start_watched};
use tokio_tungstenite::tungstenite::Message;

/// The tokens the tests present; none may show in a log.
const TOKENS: &[&str] = &[
    "dana-token",
    "mo-token",
    "scout-token",
    "gus-token",
    "wrong-token",
];

fn server(args: &[&str], nofile: Option<u32>) -> Watched {
    let mut all = vec!["--addr", "127.0.0.1:0", "--log", "memory"];
    all.extend_from_slice(args);
    start_watched(env!("CARGO_BIN_EXE_connect-server"), &all, nofile)
}

/// A raw WebSocket upgraded with `token`: the stream, past the 101 answer.
fn raw_socket(host: &str, token: &str) -> TcpStream {
    let mut stream = TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let request = format!(
        "GET /v1/ws?token={token} HTTP/1.1\r\nhost: {host}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 4096 {
        stream
            .read_exact(&mut byte)
            .expect("the upgrade is answered");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    stream
}

/// A client frame: FIN, `first` (reserved bits and opcode) and the payload, masked or not.
fn frame(first: u8, payload: &[u8], masked: bool) -> Vec<u8> {
    assert!(payload.len() < 126);
    let mut out = vec![0x80 | first];
    let mask = [0x37, 0xfa, 0x21, 0x3d];
    if masked {
        out.push(0x80 | payload.len() as u8);
        out.extend_from_slice(&mask);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    } else {
        out.push(payload.len() as u8);
        out.extend_from_slice(payload);
    }
    out
}

/// Reads server frames until a close: its code, or `None` when the connection ended without
/// one (or nothing came within 5 s).
fn close_code(stream: &mut TcpStream) -> Option<u16> {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        let mut head = [0u8; 2];
        stream.read_exact(&mut head).ok()?;
        let mut len = u64::from(head[1] & 0x7f);
        if len == 126 {
            let mut ext = [0u8; 2];
            stream.read_exact(&mut ext).ok()?;
            len = u64::from(u16::from_be_bytes(ext));
        } else if len == 127 {
            let mut ext = [0u8; 8];
            stream.read_exact(&mut ext).ok()?;
            len = u64::from_be_bytes(ext);
        }
        let mut payload = vec![0u8; usize::try_from(len).ok()?];
        stream.read_exact(&mut payload).ok()?;
        if head[0] & 0x0f == 0x8 {
            return (payload.len() >= 2).then(|| u16::from_be_bytes([payload[0], payload[1]]));
        }
    }
    None
}

/// Invalid UTF-8 in a text message is closed with 1007; a reserved bit without an extension
/// and an unmasked client frame with 1002 (RFC 6455 §5.1, §5.2, §8.1, §7.4.1). The server
/// stays up and logs each, without the payload.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_breaks_the_protocol_hears_1002_or_1007() {
    let mut watched = server(&[], None);
    let host = host_of(&watched.url);
    let secret = "payload-not-for-the-log";
    let mut bad_utf8 = secret.as_bytes().to_vec();
    bad_utf8.extend_from_slice(&[0xc3, 0x28, 0xff]);
    let cases: [(&str, Vec<u8>, u16); 3] = [
        ("invalid UTF-8", frame(0x1, &bad_utf8, true), 1007),
        ("RSV1 set", frame(0x40 | 0x1, secret.as_bytes(), true), 1002),
        ("unmasked", frame(0x1, secret.as_bytes(), false), 1002),
    ];
    for (what, bytes, code) in cases {
        let mut stream = raw_socket(&host, "dana-token");
        stream.write_all(&bytes).unwrap();
        assert_eq!(close_code(&mut stream), Some(code), "{what}");
    }
    assert!(watched.server.0.try_wait().unwrap().is_none());
    Client::hello(&watched.url, "dana-token", &[]).await;
    let log = watched.said("protocol error from the peer", Duration::from_secs(10));
    assert!(log.contains("not UTF-8"), "{log}");
    assert!(!log.contains(secret), "{log}");
    watched.server.0.kill().unwrap();
}

/// The server's stderr as JSON lines: every line must parse.
fn json_lines(said: &str) -> Vec<Value> {
    said.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

/// The first line whose message is `message`.
fn line<'a>(lines: &'a [Value], message: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["message"] == message)
        .unwrap_or_else(|| panic!("no {message:?} line in {lines:#?}"))
}

/// With `--log-format json` every line on stderr is a JSON object: the start, refusals with
/// their code and the connection's peer, a slow consumer cut with its numbers. No token
/// presented (right or wrong) shows anywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_json_log_says_what_happened_and_never_a_token() {
    let queue = (256 * 1024).to_string();
    let watched = server(&["--log-format", "json", "--queue-bytes", &queue], None);
    let url = watched.url.clone();
    // Refusals: an invalid frame, a frame before hello, a wrong token.
    let mut dana = Client::hello(&url, "dana-token", &[]).await;
    dana.send(json!({ "frame": "nonsense", "secret": "payload-not-for-the-log" }));
    assert!(matches!(dana.answer().await, ServerFrame::Error(_)));
    let early = Client::connect(&url, "mo-token").await;
    early.send(post("spc_1", "payload-not-for-the-log", "k-early"));
    let mut wrong = Client::connect(&url, "wrong-token").await;
    assert!(matches!(wrong.next().await, Some(ServerFrame::Error(_))));
    // A slow consumer: a reader that subscribes, then never reads, while events pour in.
    let (mut stalled, _) = tokio_tungstenite::connect_async(format!("{url}?token=gus-token"))
        .await
        .expect("connects");
    let hello = r#"{"frame":"hello","protocol":{"min":1,"max":1},"client":{"name":"stalled","version":"1"}}"#;
    stalled.send(Message::text(hello)).await.unwrap();
    stalled
        .send(Message::text(
            r#"{"frame":"subscribe","workspace_id":"ws_demo"}"#,
        ))
        .await
        .unwrap();
    let mut writer = Client::hello(&url, "mo-token", &[]).await;
    let text = "z".repeat(10_000);
    for round in 0..40 {
        for i in 0..100 {
            writer.send(post("spc_1", &text, &format!("w-{round}-{i}")));
        }
        for _ in 0..100 {
            assert!(matches!(writer.answer().await, ServerFrame::Ack(_)));
        }
        if watched.stderr().contains("slow consumer cut") {
            break;
        }
    }
    let said = watched.said("slow consumer cut", Duration::from_secs(10));
    watched.said("connection refused", Duration::from_secs(10));
    for token in TOKENS {
        assert!(!said.contains(token), "{token} in the log:\n{said}");
    }
    assert!(!said.contains("payload-not-for-the-log"), "{said}");
    let lines = json_lines(&said);
    let listening = line(&lines, "listening");
    assert_eq!(listening["level"], "INFO");
    assert_eq!(listening["addr"], host_of(&url));
    line(&lines, "connect-server starting");
    let refused: Vec<&Value> = lines
        .iter()
        .filter(|l| l["message"] == "frame refused")
        .collect();
    let invalid = refused
        .iter()
        .find(|l| l["frame"] == "invalid")
        .expect("the invalid frame is logged");
    assert_eq!(invalid["code"], "invalid_frame");
    assert!(invalid["span"]["peer"].as_str().is_some(), "{invalid}");
    assert!(
        refused
            .iter()
            .any(|l| l["frame"] == "event" && l["code"] == "invalid_frame"),
        "the event before hello: {refused:#?}"
    );
    assert_eq!(line(&lines, "connection refused")["code"], "unauthorized");
    let cut = line(&lines, "slow consumer cut");
    assert_eq!(cut["level"], "WARN");
    assert_eq!(cut["close_code"], 1008);
    // The bound is the queue's: at least one frame of the 1 MiB limit.
    let limit = cut["limit"].as_u64().unwrap();
    assert!(limit >= 256 * 1024, "{cut}");
    assert!(cut["queued"].as_u64().unwrap() > limit, "{cut}");
    assert!(cut["span"]["peer"].as_str().is_some(), "{cut}");
}

/// Out of file descriptors, the JSON log has the accept error and the wait, and the server
/// serves again once descriptors are free.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accept_error_is_a_json_line_with_the_error() {
    let watched = server(
        &["--log-format", "json", "--handshake-timeout-ms", "60000"],
        Some(64),
    );
    let host = host_of(&watched.url);
    let idle: Vec<TcpStream> = (0..150)
        .map(|_| TcpStream::connect(&host).unwrap())
        .collect();
    let said = watched.said("accept failed", Duration::from_secs(10));
    drop(idle);
    let lines = json_lines(&said);
    let failed = line(&lines, "accept failed");
    assert_eq!(failed["level"], "WARN");
    let error = failed["error"].as_str().unwrap();
    assert!(error.contains("Too many open files"), "{failed}");
    assert!(failed["retry_ms"].as_u64().unwrap() >= 5, "{failed}");
    for _ in 0..60 {
        let hello = tokio::time::timeout(
            Duration::from_secs(3),
            Client::try_hello(&watched.url, "dana-token", &[]),
        );
        if let Ok(Some(_)) = hello.await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no client was served after the descriptors came back");
}

/// A token table giving one id to a harness and a person (whose idempotency keys would then
/// collide) is refused at startup: a clear error naming the id, never a token, and exit 2.
#[test]
fn a_token_table_that_gives_one_id_to_two_participants_is_refused() {
    let tables: [&[&str]; 2] = [
        &["secret-a=harness:h1:Scout", "secret-b=person:h1:Dana:owner"],
        &[
            "secret-a=person:u1:Dana:owner",
            "secret-b=person:u1:Mo:member",
        ],
    ];
    for table in tables {
        let mut args = vec!["--addr", "127.0.0.1:0", "--log", "memory"];
        for spec in table {
            args.extend(["--token", spec]);
        }
        let child = Command::new(env!("CARGO_BIN_EXE_connect-server"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut server = KillOnDrop(child);
        let status = test_support::wait(&mut server.0, Duration::from_secs(10))
            .expect("the server exits at once");
        let mut said = String::new();
        let mut out = String::new();
        server
            .0
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut said)
            .unwrap();
        server
            .0
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(status.code(), Some(2), "{said}");
        assert!(said.contains("collide"), "{said}");
        assert!(!said.contains("secret-"), "{said}");
        assert!(!out.contains("listening"), "{out}");
    }
    // One participant with two tokens (two devices) is fine.
    let watched = server(
        &[
            "--token",
            "secret-a=harness:h1:Scout",
            "--token",
            "secret-b=harness:h1:Scout",
        ],
        None,
    );
    assert!(watched.url.starts_with("ws://"));
}

/// `POST /v1/admin/notify` sends the frame with `asked_by` the caller's id and `asked_at` the
/// server's clock, whatever the body says, and takes a body without them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_notify_says_who_asked_and_when() {
    let watched = server(&[], None);
    let host = host_of(&watched.url);
    let mut scout = Client::hello(&watched.url, "scout-token", &["models"]).await;
    let forged = json!({ "frame": "model.change", "change_id": "chg_1", "harness_id": "h_scout",
        "agent_id": "ag_1", "model": null, "effort": "high", "asked_by": "usr_mallory", "asked_at": 1 });
    let bare = json!({ "frame": "model.change", "change_id": "chg_2", "harness_id": "h_scout",
        "agent_id": "ag_1", "model": "large", "effort": null });
    for (body, change_id) in [(forged, "chg_1"), (bare, "chg_2")] {
        let before = now_millis();
        let (status, answer) = http(
            &host,
            "POST",
            "/v1/admin/notify",
            Some("dana-token"),
            &body.to_string(),
        );
        assert_eq!(
            (status, answer["sent"].as_i64()),
            (200, Some(1)),
            "{answer}"
        );
        let after = now_millis();
        let change = loop {
            match scout.next().await.expect("the harness stays connected") {
                ServerFrame::ModelChange(m) => break m,
                _ => continue,
            }
        };
        assert_eq!(change.change_id, change_id);
        assert_eq!(change.asked_by, "usr_dana");
        assert!(
            (before..=after).contains(&change.asked_at),
            "{} not in {before}..={after}",
            change.asked_at
        );
    }
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
