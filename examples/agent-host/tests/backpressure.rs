//! The host binary under a client that sends faster than it is answered: its memory from
//! `/proc/PID/status`. Every loop is bounded and every wait has a time limit.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Value, json};
use test_support::{KillOnDrop, memory, start};
use tokio::io::AsyncWriteExt;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::Role;

const LIMIT: Duration = Duration::from_secs(120);

/// The binary on a free port, its chats in memory: the process and its url with the client
/// token it wrote to `data/token`.
fn host(name: &str) -> (KillOnDrop, String) {
    let data = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&data);
    let args = ["--addr", "127.0.0.1:0", "--memory", "--data-dir"];
    let mut args: Vec<&str> = args.to_vec();
    let dir = data.display().to_string();
    args.push(&dir);
    let (server, url) = start(env!("CARGO_BIN_EXE_agent-host"), &args);
    let token = std::fs::read_to_string(data.join("token")).expect("the token file");
    (server, format!("{url}/?token={}", token.trim()))
}

/// One masked client text frame with `text`, as a client sends it (the mask key zero, so the
/// bytes are the text's: the test writes at the speed of its socket, not of a masking loop).
fn raw_frame(text: &str) -> Vec<u8> {
    let len = text.len();
    let mut frame = vec![0x81];
    match len {
        0..=125 => frame.push(0x80 | len as u8),
        126..=65535 => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(len as u16).to_be_bytes());
        }
        _ => {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(len as u64).to_be_bytes());
        }
    }
    frame.extend_from_slice(&[0; 4]);
    frame.extend_from_slice(text.as_bytes());
    frame
}

/// Up to 25,600 `accounts.refresh` requests of 4 KiB (100 MiB; whitespace makes up the size),
/// written as fast as the socket takes them for at most 10 seconds, the replies read on a task
/// of their own. A refresh waits on the fake CLIs (0.2 s), so the host answers far slower than
/// the client writes: it runs at most 64 requests (and 2 MiB of them) at once and reads no
/// further meanwhile, so its peak memory grows by a few MiB; every request sent is answered
/// once. Before, it read every frame at once into an unbounded channel and ran them all
/// together (tens of MiB here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_faster_than_the_host_answers_is_read_as_fast_as_it_is_answered() {
    const REQUESTS: usize = 25_600;
    const SIZE: usize = 4 * 1024;
    let (server, url) = host("agent-host-backpressure");
    let pid = server.0.id();
    let addr = url
        .strip_prefix("ws://")
        .and_then(|rest| rest.split(['/', '?']).next())
        .unwrap()
        .to_owned();
    let stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let (ws, _) = tokio_tungstenite::client_async(&url, stream).await.unwrap();
    // Frames go out as raw bytes; the replies are read as WebSocket messages (what the client
    // would write back, pongs, goes nowhere).
    let (read, mut write) = ws.into_inner().into_split();
    let mut replies_in = tokio_tungstenite::WebSocketStream::from_raw_socket(
        tokio::io::join(read, tokio::io::sink()),
        Role::Client,
        None,
    )
    .await;
    let (sent_tx, sent_rx) = tokio::sync::oneshot::channel::<usize>();
    let replies = tokio::spawn(async move {
        let mut ids = BTreeSet::new();
        let mut sent_rx = sent_rx;
        let mut sent = None;
        while sent.is_none_or(|sent| ids.len() < sent) {
            let message = tokio::select! {
                message = tokio::time::timeout(LIMIT, replies_in.next()) => message,
                Ok(n) = &mut sent_rx, if sent.is_none() => {
                    sent = Some(n);
                    continue;
                }
            };
            let Ok(Some(Ok(message))) = message else {
                break;
            };
            let Message::Text(text) = message else {
                continue;
            };
            let frame: Value = serde_json::from_str(&text).unwrap();
            if let Some(id) = frame["id"].as_str() {
                assert!(frame.get("result").is_some(), "refused: {text}");
                assert!(ids.insert(id.to_owned()), "{id} answered twice");
            }
        }
        (sent, ids.len())
    });
    let before = memory(pid, "VmRSS");
    let started = Instant::now();
    let mut sent = 0;
    while sent < REQUESTS && started.elapsed() < Duration::from_secs(10) {
        let request =
            json!({ "id": format!("r{sent}"), "type": "accounts.refresh", "payload": {} });
        let mut text = request.to_string();
        // Inside the object, so the frame stays one JSON value.
        text.pop();
        text.extend(std::iter::repeat_n(
            ' ',
            SIZE.saturating_sub(text.len() + 1),
        ));
        text.push('}');
        tokio::time::timeout(LIMIT, write.write_all(&raw_frame(&text)))
            .await
            .expect("the host reads on")
            .unwrap();
        sent += 1;
    }
    let _ = sent_tx.send(sent);
    let (told, answered) = replies.await.unwrap();
    assert_eq!(
        (told, answered),
        (Some(sent), sent),
        "every request answered"
    );
    let grown = memory(pid, "VmHWM").saturating_sub(before);
    eprintln!(
        "{sent} requests of 4 KiB ({} MiB): peak {} KiB over {} KiB before",
        (sent * SIZE) >> 20,
        grown >> 10,
        before >> 10
    );
    assert!(
        grown < 16 << 20,
        "the host's peak grew by {} KiB while {} MiB were written to it",
        grown >> 10,
        (sent * SIZE) >> 20
    );
}
