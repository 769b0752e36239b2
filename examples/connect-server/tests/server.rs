//! The reference server in process, spoken to with the WebSocket port: tokens, the path, and
//! bad frames.

use std::time::Duration;

use connect_server::{Server, TokenTable};
use contracts::connect::{ErrorCode, ServerFrame, parse_server_frame};
use contracts::port::{
    FramePort, FramePortExt, FrameReceiver, Incoming, WebSocketOptions, WebSocketPort,
};
use serde_json::json;

async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(Server::new(TokenTable::demo()).serve(listener));
    format!("ws://{addr}")
}

async fn next(frames: &mut FrameReceiver) -> Option<ServerFrame> {
    let frame = tokio::time::timeout(Duration::from_secs(5), frames.recv())
        .await
        .expect("a frame in time")?;
    let Incoming::Text(text) = frame else {
        panic!("expected text, got {frame:?}")
    };
    Some(
        parse_server_frame(&text)
            .unwrap_or_else(|e| panic!("the server sent an invalid frame: {e}\n{text}")),
    )
}

async fn connect(url: &str) -> (WebSocketPort, FrameReceiver) {
    let port = WebSocketPort::connect(url, &WebSocketOptions::default())
        .await
        .expect("connects");
    let frames = port.receiver();
    (port, frames)
}

fn hello() -> serde_json::Value {
    json!({ "frame": "hello", "protocol": { "min": 1, "max": 1 }, "client": { "name": "t", "version": "1" } })
}

#[tokio::test]
async fn a_token_in_the_query_is_the_connections_identity() {
    let base = start().await;
    let (port, mut frames) = connect(&format!("{base}/v1/ws?token=scout-token")).await;
    port.send_json(&hello()).unwrap();
    let Some(ServerFrame::Hello(reply)) = next(&mut frames).await else {
        panic!("expected hello")
    };
    assert_eq!(reply.harness_id.as_deref(), Some("h_scout"));
    port.send_json(&json!({ "frame": "ping", "ts": 5 }))
        .unwrap();
    assert!(matches!(next(&mut frames).await, Some(ServerFrame::Pong(p)) if p.ts == 5));
}

#[tokio::test]
async fn no_known_token_is_unauthorized_and_closed() {
    let base = start().await;
    for url in [format!("{base}/v1/ws"), format!("{base}/v1/ws?token=nope")] {
        let (port, mut frames) = connect(&url).await;
        let Some(ServerFrame::Error(e)) = next(&mut frames).await else {
            panic!("expected an error")
        };
        assert_eq!(e.code, ErrorCode::Unauthorized);
        assert!(next(&mut frames).await.is_none(), "the connection closes");
        drop(port);
    }
}

#[tokio::test]
async fn another_path_is_refused() {
    let base = start().await;
    assert!(
        WebSocketPort::connect(
            &format!("{base}/ws?token=scout-token"),
            &WebSocketOptions::default()
        )
        .await
        .is_err()
    );
}

#[tokio::test]
async fn a_bad_frame_is_answered_and_the_connection_goes_on() {
    let base = start().await;
    let (port, mut frames) = connect(&format!("{base}/v1/ws?token=dana-token")).await;
    port.send("{\"frame\":".into()).unwrap();
    let Some(ServerFrame::Error(e)) = next(&mut frames).await else {
        panic!("expected an error")
    };
    assert_eq!(e.code, ErrorCode::InvalidFrame);
    port.send_json(&hello()).unwrap();
    assert!(matches!(
        next(&mut frames).await,
        Some(ServerFrame::Hello(_))
    ));
    let post = json!({ "frame": "event", "event": { "type": "message.post", "space_id": "s", "text": "t", "idempotency_key": "k" } });
    port.send_json(&post).unwrap();
    assert!(
        matches!(next(&mut frames).await, Some(ServerFrame::Ack(a)) if a.seq == 1 && !a.duplicate)
    );
}
