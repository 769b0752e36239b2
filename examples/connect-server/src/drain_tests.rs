//! The inbox is drained whoever held the state's lock when a frame came: a frame that arrives
//! while the lock is held a moment by a task that is not draining (the ticker, a replay's
//! pump, another socket's checks) is still handled once the lock is free.

use std::sync::{Arc, mpsc};
use std::time::Duration;

use contracts::connect::{ServerFrame, parse_server_frame};
use contracts::port::{FramePortExt, FrameReceiver, Incoming, WebSocketOptions, WebSocketPort};
use serde_json::json;

use super::{Server, TokenTable, lock};

async fn next(frames: &mut FrameReceiver) -> ServerFrame {
    let frame = tokio::time::timeout(Duration::from_secs(10), frames.recv())
        .await
        .expect("a frame in time")
        .expect("the connection stays up");
    let Incoming::Text(text) = frame else {
        panic!("expected text, got {frame:?}")
    };
    parse_server_frame(&text).expect("a valid frame")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_that_comes_while_the_state_is_held_by_another_task_is_answered() {
    let server = Server::new(TokenTable::demo());
    let state = Arc::clone(&server.state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "ws://{}{}?token=scout-token",
        listener.local_addr().unwrap(),
        super::PATH
    );
    tokio::spawn(server.serve(listener));
    let port = WebSocketPort::connect(&url, &WebSocketOptions::default())
        .await
        .expect("connects");
    let mut frames = port.receiver();
    port.send_json(&json!({
        "frame": "hello", "protocol": { "min": 1, "max": 1 },
        "client": { "name": "t", "version": "1" },
    }))
    .unwrap();
    assert!(matches!(next(&mut frames).await, ServerFrame::Hello(_)));
    for round in 0..5 {
        // Another task holds the state while the ping is read and put in the inbox.
        let (held, is_held) = mpsc::channel();
        let state = Arc::clone(&state);
        let holder = std::thread::spawn(move || {
            let _state = lock(&state);
            held.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(300));
        });
        is_held.recv().unwrap();
        port.send_json(&json!({ "frame": "ping", "ts": round }))
            .unwrap();
        let pong = next(&mut frames).await;
        assert!(
            matches!(&pong, ServerFrame::Pong(p) if p.ts == round),
            "round {round}: {pong:?}"
        );
        holder.join().unwrap();
    }
}
