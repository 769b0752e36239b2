//! The frame ports: each passes frames both ways, stops on unsubscribe, refuses what is too
//! large without stopping, and hands garbage on as text for the receiver to judge. The byte
//! ports bound their outgoing queue and close a slow consumer with the reason; the WebSocket
//! port answers a frame too large before it closes, pings, and closes an idle peer. The byte
//! ports read no further while their receiver holds the inbound bound, and the WebSocket port
//! none while a pong waits to be written.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use contracts::port::{
    CloseReason, DEFAULT_MAX_FRAME_SIZE, FramePort, FramePortExt, FrameReceiver, FrameTooLarge,
    Incoming, NdjsonOptions, NdjsonPort, Outgoing, QueueFull, SendError, WebSocketOptions,
    WebSocketPort, memory_pair,
};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{self, Message};

const WAIT: Duration = Duration::from_secs(5);

/// The next frame, failing the test rather than hanging.
async fn next(receiver: &mut FrameReceiver) -> Option<Incoming> {
    tokio::time::timeout(WAIT, receiver.recv())
        .await
        .expect("no frame within 5 seconds")
}

async fn next_value(receiver: &mut FrameReceiver) -> Value {
    let frame = next(receiver).await.expect("the port ended");
    frame.decode().expect("a JSON frame")
}

/// Frames go from `a` to `b` and back, in order.
async fn passes_frames_both_ways(a: &impl FramePort, b: &impl FramePort) {
    let mut at_a = FrameReceiver::new(a);
    let mut at_b = FrameReceiver::new(b);
    let request = json!({ "id": "1", "type": "chat.list", "payload": {} });
    let reply = json!({ "id": "1", "ok": true, "result": { "chats": [] } });
    a.send_json(&request).unwrap();
    a.send(Outgoing::Text(
        r#"{"id":"2","type":"chat.list","payload":{}}"#.into(),
    ))
    .unwrap();
    assert_eq!(next_value(&mut at_b).await, request);
    assert_eq!(next_value(&mut at_b).await["id"], "2");
    b.send_json(&reply).unwrap();
    assert_eq!(next_value(&mut at_a).await, reply);
}

/// A listener that was unsubscribed sees no more frames, while another one still does.
async fn unsubscribe_stops_delivery(a: &impl FramePort, b: &impl FramePort) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let subscription = b.listen(move |frame| sink.lock().unwrap().push(frame));
    let mut witness = FrameReceiver::new(b);

    a.send_json(&json!(1)).unwrap();
    assert_eq!(next_value(&mut witness).await, json!(1));
    subscription.unsubscribe();
    a.send_json(&json!(2)).unwrap();
    assert_eq!(next_value(&mut witness).await, json!(2));

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].decode::<Value>().unwrap(), json!(1));
}

// The in-memory pair.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_pair_passes_frames_both_ways() {
    let (a, b) = memory_pair();
    passes_frames_both_ways(&a, &b).await;
}

#[tokio::test]
async fn memory_pair_passes_values_as_values_and_text_as_text() {
    let (a, b) = memory_pair();
    let mut at_b = b.receiver();
    a.send_json(&json!({ "n": 1 })).unwrap();
    a.send(Outgoing::from("not json")).unwrap();
    assert_eq!(
        next(&mut at_b).await,
        Some(Incoming::Value(json!({ "n": 1 })))
    );
    assert_eq!(
        next(&mut at_b).await,
        Some(Incoming::Text("not json".into()))
    );
}

#[tokio::test]
async fn memory_pair_unsubscribe_stops_delivery() {
    let (a, b) = memory_pair();
    unsubscribe_stops_delivery(&a, &b).await;
}

#[tokio::test]
async fn frames_sent_before_anyone_listens_wait() {
    let (a, b) = memory_pair();
    a.send_json(&json!("early")).unwrap();
    tokio::task::yield_now().await;
    let mut at_b = b.receiver();
    assert_eq!(next_value(&mut at_b).await, json!("early"));
}

#[tokio::test]
async fn every_listener_gets_every_frame() {
    let (a, b) = memory_pair();
    let mut first = b.receiver();
    let mut second = b.receiver();
    a.send_json(&json!("both")).unwrap();
    assert_eq!(next_value(&mut first).await, json!("both"));
    assert_eq!(next_value(&mut second).await, json!("both"));
}

#[tokio::test]
async fn a_panicking_listener_does_not_stop_the_port() {
    let (a, b) = memory_pair();
    b.listen(|_| panic!("a listener's bug")).detach();
    let mut at_b = b.receiver();
    a.send_json(&json!(1)).unwrap();
    a.send_json(&json!(2)).unwrap();
    assert_eq!(next_value(&mut at_b).await, json!(1));
    assert_eq!(next_value(&mut at_b).await, json!(2));
}

#[tokio::test]
async fn closing_one_end_ends_the_other() {
    let (a, b) = memory_pair();
    let mut at_a = a.receiver();
    let mut at_b = b.receiver();
    a.close();
    assert!(a.is_closed());
    assert_eq!(next(&mut at_a).await, None);
    assert_eq!(next(&mut at_b).await, None);
    tokio::time::timeout(WAIT, b.closed()).await.unwrap();
    assert!(matches!(a.send_json(&json!(1)), Err(SendError::Closed)));
    assert!(matches!(b.send_json(&json!(1)), Err(SendError::Closed)));
    // A closed port answers a subscription that never delivers.
    let mut late = b.receiver();
    assert_eq!(next(&mut late).await, None);
}

#[tokio::test]
async fn dropping_one_end_ends_the_other() {
    let (a, b) = memory_pair();
    let mut at_b = b.receiver();
    a.send_json(&json!("last")).unwrap();
    drop(a);
    assert_eq!(next_value(&mut at_b).await, json!("last"));
    assert_eq!(next(&mut at_b).await, None);
}

#[tokio::test]
async fn a_receiver_closed_here_still_answers_what_arrived() {
    let (a, b) = memory_pair();
    let mut at_b = b.receiver();
    a.send_json(&json!(1)).unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    at_b.close();
    a.send_json(&json!(2)).unwrap();
    assert_eq!(next_value(&mut at_b).await, json!(1));
    assert_eq!(next(&mut at_b).await, None);
}

#[tokio::test]
async fn ports_work_as_trait_objects() {
    let (a, b) = memory_pair();
    let a: Arc<dyn FramePort> = Arc::new(a);
    let b: Box<dyn FramePort> = Box::new(b);
    passes_frames_both_ways(&a, &b).await;
}

// Newline-delimited JSON.

fn ndjson_pair(options: &NdjsonOptions) -> (NdjsonPort, NdjsonPort) {
    let (left, right) = tokio::io::duplex(64 * 1024);
    (
        NdjsonPort::new(left, options),
        NdjsonPort::new(right, options),
    )
}

/// A port over one end of a pipe, and the raw other end.
fn ndjson_raw(options: &NdjsonOptions) -> (NdjsonPort, tokio::io::DuplexStream) {
    let (left, right) = tokio::io::duplex(64 * 1024);
    (NdjsonPort::new(left, options), right)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ndjson_passes_frames_both_ways() {
    let (a, b) = ndjson_pair(&NdjsonOptions::default());
    passes_frames_both_ways(&a, &b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ndjson_over_tcp() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (client, accepted) = tokio::join!(TcpStream::connect(address), listener.accept());
    let options = NdjsonOptions::default();
    let a = NdjsonPort::new(client.unwrap(), &options);
    let b = NdjsonPort::new(accepted.unwrap().0, &options);
    passes_frames_both_ways(&a, &b).await;
}

#[tokio::test]
async fn ndjson_unsubscribe_stops_delivery() {
    let (a, b) = ndjson_pair(&NdjsonOptions::default());
    unsubscribe_stops_delivery(&a, &b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ndjson_refuses_an_over_long_line_and_reads_on() {
    let (port, mut raw) = ndjson_raw(&NdjsonOptions::default());
    let mut frames = port.receiver();
    // Far over the limit, so it must stream through the read buffer.
    let long = format!("\"{}\"", "x".repeat(2 * DEFAULT_MAX_FRAME_SIZE));
    let writer = tokio::spawn(async move {
        raw.write_all(long.as_bytes()).await.unwrap();
        raw.write_all(b"\n{\"after\":true}\n").await.unwrap();
        raw
    });
    assert_eq!(
        next(&mut frames).await,
        Some(Incoming::TooLarge(FrameTooLarge {
            size: 2 * DEFAULT_MAX_FRAME_SIZE + 2,
            limit: DEFAULT_MAX_FRAME_SIZE,
        }))
    );
    assert_eq!(next_value(&mut frames).await, json!({ "after": true }));
    drop(writer.await.unwrap());
}

#[tokio::test]
async fn ndjson_limit_is_inclusive_and_configurable() {
    let options = NdjsonOptions::default().max_frame_size(8);
    let (port, mut raw) = ndjson_raw(&options);
    let mut frames = port.receiver();
    raw.write_all(b"\"123456\"\n\"1234567\"\r\n\"12345\"\n")
        .await
        .unwrap();
    assert_eq!(next_value(&mut frames).await, json!("123456"));
    assert_eq!(
        next(&mut frames).await,
        Some(Incoming::TooLarge(FrameTooLarge { size: 9, limit: 8 }))
    );
    assert_eq!(next_value(&mut frames).await, json!("12345"));

    // Sending holds to the same limit.
    assert!(matches!(
        port.send_json(&json!("1234567")),
        Err(SendError::TooLarge(FrameTooLarge { size: 9, limit: 8 }))
    ));
    port.send_json(&json!("123456")).unwrap();
}

#[tokio::test]
async fn ndjson_hands_garbage_on_as_text() {
    let (port, mut raw) = ndjson_raw(&NdjsonOptions::default());
    let mut frames = port.receiver();
    raw.write_all(b"not json at all\n\n   \n{\"a\":\xff}\r\n\xef\xbb\xbf[1]\n{\"id\":\"3\"")
        .await
        .unwrap();
    drop(raw);
    assert_eq!(
        next(&mut frames).await,
        Some(Incoming::Text("not json at all".into()))
    );
    // Blank lines are skipped; bytes that are not UTF-8 become U+FFFD.
    assert_eq!(
        next(&mut frames).await,
        Some(Incoming::Text("{\"a\":\u{fffd}}".into()))
    );
    // A leading byte order mark is dropped, as `TextDecoder` drops it.
    assert_eq!(next(&mut frames).await, Some(Incoming::Text("[1]".into())));
    // The last line may end without a line break.
    assert_eq!(
        next(&mut frames).await,
        Some(Incoming::Text("{\"id\":\"3\"".into()))
    );
    assert_eq!(next(&mut frames).await, None);
}

#[tokio::test]
async fn ndjson_writes_one_compact_line_per_frame() {
    let (port, raw) = ndjson_raw(&NdjsonOptions::default());
    port.send(Outgoing::Value(json!({ "text": "two\nlines" })))
        .unwrap();
    port.send_json(&json!([1, 2])).unwrap();
    assert!(matches!(
        port.send(Outgoing::Text("{\n}".into())),
        Err(SendError::LineBreak)
    ));
    let mut lines = BufReader::new(raw).lines();
    assert_eq!(
        lines.next_line().await.unwrap().unwrap(),
        r#"{"text":"two\nlines"}"#
    );
    assert_eq!(lines.next_line().await.unwrap().unwrap(), "[1,2]");
}

#[tokio::test]
async fn ndjson_still_sends_after_its_input_ends() {
    let (input, mut feed) = tokio::io::duplex(1024);
    let (output, drain) = tokio::io::duplex(1024);
    let port = NdjsonPort::from_parts(input, output, &NdjsonOptions::default());
    let mut frames = port.receiver();
    feed.write_all(b"{\"id\":\"1\"}\n").await.unwrap();
    drop(feed);
    assert_eq!(next_value(&mut frames).await, json!({ "id": "1" }));
    assert_eq!(next(&mut frames).await, None);
    assert!(port.is_closed());

    // The reply to the last request still goes out, then closing ends the output.
    port.send_json(&json!({ "id": "1", "ok": true, "result": {} }))
        .unwrap();
    port.close();
    let mut lines = BufReader::new(drain).lines();
    assert_eq!(
        lines.next_line().await.unwrap().unwrap(),
        r#"{"id":"1","ok":true,"result":{}}"#
    );
    assert_eq!(lines.next_line().await.unwrap(), None);
}

// WebSocket.

/// A server port on `/v1/ws` and a client port connected to it.
async fn websocket_pair(options: &WebSocketOptions) -> (WebSocketPort, WebSocketPort) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/v1/ws", listener.local_addr().unwrap());
    let server_options = options.clone().path("/v1/ws");
    let server = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        WebSocketPort::accept(stream, &server_options)
            .await
            .unwrap()
    });
    let client = WebSocketPort::connect(&url, options).await.unwrap();
    (server.await.unwrap(), client)
}

/// A server port on `/v1/ws` and a raw tungstenite client connected to it.
async fn websocket_raw(
    options: &WebSocketOptions,
) -> (
    WebSocketPort,
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/v1/ws", listener.local_addr().unwrap());
    let server_options = options.clone().path("/v1/ws");
    let server = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        WebSocketPort::accept(stream, &server_options)
            .await
            .unwrap()
    });
    let (client, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    (server.await.unwrap(), client)
}

/// The next message that is not a ping or pong.
async fn next_message<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(
    client: &mut tokio_tungstenite::WebSocketStream<S>,
) -> Option<Result<Message, tungstenite::Error>> {
    tokio::time::timeout(WAIT, client.next())
        .await
        .expect("no message within 5 seconds")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_passes_frames_both_ways() {
    let (server, client) = websocket_pair(&WebSocketOptions::default()).await;
    passes_frames_both_ways(&client, &server).await;
}

#[tokio::test]
async fn websocket_unsubscribe_stops_delivery() {
    let (server, client) = websocket_pair(&WebSocketOptions::default()).await;
    unsubscribe_stops_delivery(&client, &server).await;
}

#[tokio::test]
async fn websocket_refuses_other_paths() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/elsewhere", listener.local_addr().unwrap());
    let server = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let options = WebSocketOptions::default().path("/v1/ws");
        WebSocketPort::accept(stream, &options).await.is_err()
    });
    let error = WebSocketPort::connect(&url, &WebSocketOptions::default())
        .await
        .unwrap_err();
    match error {
        tungstenite::Error::Http(response) => assert_eq!(response.status(), 404),
        other => panic!("expected a 404, got {other}"),
    }
    assert!(server.await.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_refuses_an_oversized_message_and_closes_with_1009() {
    let options = WebSocketOptions::default().max_frame_size(1024);
    let (server, mut client) = websocket_raw(&options).await;
    let mut frames = server.receiver();

    client.send(Message::text("\"fits\"")).await.unwrap();
    assert_eq!(next_value(&mut frames).await, json!("fits"));

    client
        .send(Message::text(format!("\"{}\"", "x".repeat(2000))))
        .await
        .unwrap();
    assert_eq!(
        next(&mut frames).await,
        Some(Incoming::TooLarge(FrameTooLarge {
            size: 2002,
            limit: 1024,
        }))
    );
    assert_eq!(next(&mut frames).await, None);
    match next_message(&mut client).await {
        Some(Ok(Message::Close(Some(close)))) => assert_eq!(close.code, CloseCode::Size),
        other => panic!("expected a close with 1009, got {other:?}"),
    }
}

#[tokio::test]
async fn websocket_refuses_to_send_an_oversized_message() {
    let options = WebSocketOptions::default().max_frame_size(16);
    let (server, client) = websocket_pair(&options).await;
    assert!(matches!(
        client.send_json(&json!("a string of more than sixteen bytes")),
        Err(SendError::TooLarge(FrameTooLarge {
            size: 37,
            limit: 16
        }))
    ));
    let mut frames = server.receiver();
    client.send_json(&json!("short")).unwrap();
    assert_eq!(next_value(&mut frames).await, json!("short"));
}

#[tokio::test]
async fn websocket_answers_pings() {
    let (server, mut client) = websocket_raw(&WebSocketOptions::default()).await;
    let _frames = server.receiver();
    client.send(Message::Ping("beat".into())).await.unwrap();
    match next_message(&mut client).await {
        Some(Ok(Message::Pong(payload))) => assert_eq!(&payload[..], b"beat"),
        other => panic!("expected a pong, got {other:?}"),
    }
}

#[tokio::test]
async fn websocket_hands_garbage_on_as_text() {
    let (server, mut client) = websocket_raw(&WebSocketOptions::default()).await;
    let mut frames = server.receiver();
    client.send(Message::text("{oops")).await.unwrap();
    client
        .send(Message::binary(b"{\"bin\":1}".to_vec()))
        .await
        .unwrap();
    assert_eq!(
        next(&mut frames).await,
        Some(Incoming::Text("{oops".into()))
    );
    assert_eq!(
        next(&mut frames).await,
        Some(Incoming::Text("{\"bin\":1}".into()))
    );
    // A leading byte order mark is dropped, as a browser's WebSocket drops it; one only.
    client.send(Message::text("\u{feff}[1]")).await.unwrap();
    client
        .send(Message::binary("\u{feff}\u{feff}[2]".as_bytes().to_vec()))
        .await
        .unwrap();
    assert_eq!(next(&mut frames).await, Some(Incoming::Text("[1]".into())));
    assert_eq!(
        next(&mut frames).await,
        Some(Incoming::Text("\u{feff}[2]".into()))
    );
}

#[tokio::test]
async fn websocket_peer_close_ends_the_port() {
    let (server, mut client) = websocket_raw(&WebSocketOptions::default()).await;
    let mut frames = server.receiver();
    client.send(Message::text("1")).await.unwrap();
    client.close(None).await.unwrap();
    assert_eq!(next_value(&mut frames).await, json!(1));
    assert_eq!(next(&mut frames).await, None);
    tokio::time::timeout(WAIT, server.closed()).await.unwrap();
    // The close handshake was answered.
    assert!(matches!(
        next_message(&mut client).await,
        Some(Ok(Message::Close(_))) | None
    ));
    // A port that stopped delivering sends nothing either.
    assert!(matches!(
        server.send_json(&json!(1)),
        Err(SendError::Closed)
    ));
}

#[tokio::test]
async fn websocket_close_here_sends_queued_frames_then_closes() {
    let (server, mut client) = websocket_raw(&WebSocketOptions::default()).await;
    server.send_json(&json!("bye")).unwrap();
    server.close();
    match next_message(&mut client).await {
        Some(Ok(Message::Text(text))) => assert_eq!(text.as_str(), "\"bye\""),
        other => panic!("expected the queued frame, got {other:?}"),
    }
    assert!(matches!(
        next_message(&mut client).await,
        Some(Ok(Message::Close(_)))
    ));
}

#[tokio::test]
async fn a_broken_connection_ends_the_port() {
    let (server, client) = websocket_raw(&WebSocketOptions::default()).await;
    let mut frames = server.receiver();
    // Drop the TCP connection without a close handshake.
    drop(client);
    assert_eq!(next(&mut frames).await, None);
}

/// A server port and a raw client over a socket that buffers little, so a client that does
/// not read pushes back on the server soon.
async fn websocket_raw_small_buffer(
    options: &WebSocketOptions,
) -> (WebSocketPort, tokio_tungstenite::WebSocketStream<TcpStream>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server_options = options.clone();
    let server = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        WebSocketPort::accept(stream, &server_options)
            .await
            .unwrap()
    });
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    let (client, _) = tokio_tungstenite::client_async(format!("ws://{addr}/"), stream)
        .await
        .unwrap();
    (server.await.unwrap(), client)
}

/// A server port and a raw client over an in-memory pipe that holds `buffer` bytes each way:
/// with no socket, a test on a paused clock knows when both ends wait ([`settle`]).
async fn websocket_duplex(
    options: &WebSocketOptions,
    buffer: usize,
) -> (
    WebSocketPort,
    tokio_tungstenite::WebSocketStream<tokio::io::DuplexStream>,
) {
    let (here, there) = tokio::io::duplex(buffer);
    let server_options = options.clone();
    let server =
        tokio::spawn(async move { WebSocketPort::accept(here, &server_options).await.unwrap() });
    let (client, _) = tokio_tungstenite::client_async("ws://localhost/", there)
        .await
        .unwrap();
    (server.await.unwrap(), client)
}

/// Returns once every task of the test's runtime waits. The runtime is a current-thread one
/// on a paused clock (`start_paused`), over in-memory pipes: tokio moves a paused clock on only
/// when no task can run, so the sleep ends once the ports read and wrote all they would.
async fn settle() {
    tokio::time::sleep(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_answers_after_an_oversized_message_then_closes_with_1009() {
    let options = WebSocketOptions::default().max_frame_size(1024);
    let (server, mut client) = websocket_raw(&options).await;
    let mut frames = server.receiver();
    client
        .send(Message::text(format!("\"{}\"", "x".repeat(2000))))
        .await
        .unwrap();
    assert!(matches!(
        next(&mut frames).await,
        Some(Incoming::TooLarge(_))
    ));
    assert_eq!(next(&mut frames).await, None);
    // Delivery ended, but the answer still goes out, before the close.
    server.send_json(&json!("refused")).unwrap();
    server.close();
    match next_message(&mut client).await {
        Some(Ok(Message::Text(text))) => assert_eq!(text.as_str(), "\"refused\""),
        other => panic!("expected the answer first, got {other:?}"),
    }
    match next_message(&mut client).await {
        Some(Ok(Message::Close(Some(close)))) => assert_eq!(close.code, CloseCode::Size),
        other => panic!("expected a close with 1009, got {other:?}"),
    }
    assert!(matches!(
        server.close_reason(),
        Some(CloseReason::TooLarge(FrameTooLarge {
            size: 2002,
            limit: 1024
        }))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_closes_a_slow_consumer_with_the_reason() {
    let options = WebSocketOptions::default()
        .max_frame_size(64 * 1024)
        .max_queued_bytes(256 * 1024);
    let (server, mut client) = websocket_raw_small_buffer(&options).await;
    let frame = format!("\"{}\"", "x".repeat(16 * 1024));
    // The client reads nothing: the socket fills, then the queue. Bounded: at most 4096
    // frames (64 MiB) before the test fails.
    let mut sent = 0;
    let refused = loop {
        assert!(sent < 4096, "the queue never filled");
        tokio::time::sleep(Duration::from_micros(200)).await;
        match server.send(Outgoing::Text(frame.clone())) {
            Ok(()) => sent += 1,
            Err(error) => break error,
        }
    };
    let SendError::SlowConsumer(full) = refused else {
        panic!("expected a slow consumer, got {refused:?}");
    };
    assert_eq!(full.limit, 256 * 1024);
    assert!(full.queued > full.limit);
    assert_eq!(server.close_reason(), Some(CloseReason::SlowConsumer(full)));
    assert!(server.queued_bytes() == 0, "the queue was dropped");
    assert!(matches!(
        server.send(Outgoing::Text("1".into())),
        Err(SendError::Closed)
    ));
    // Reading now, the client gets what the socket held, then the close with the reason.
    let close = loop {
        match next_message(&mut client).await {
            Some(Ok(Message::Text(_))) => {}
            Some(Ok(Message::Close(close))) => break close,
            other => panic!("expected frames then a close, got {other:?}"),
        }
    };
    let close = close.expect("a close frame with a reason");
    assert_eq!(close.code, CloseCode::Policy);
    assert!(
        close.reason.starts_with("slow consumer"),
        "{}",
        close.reason
    );
    tokio::time::timeout(WAIT, server.closed()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_coalesced_frames_replace_the_waiting_one() {
    let options = WebSocketOptions::default().max_queued_bytes(8 * 1024 * 1024);
    let (server, mut client) = websocket_raw_small_buffer(&options).await;
    let filler = format!("\"{}\"", "f".repeat(64 * 1024));
    // Fill the socket so frames stay queued, then send 100 statuses for one key.
    for _ in 0..64 {
        server.send(Outgoing::Text(filler.clone())).unwrap();
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    for n in 0..100 {
        server
            .send_coalesced("status", Outgoing::Text(format!("{{\"status\":{n}}}")))
            .unwrap();
    }
    server.send_json(&json!("end")).unwrap();
    let mut statuses = Vec::new();
    loop {
        match next_message(&mut client).await {
            Some(Ok(Message::Text(text))) if text.as_str() == "\"end\"" => break,
            Some(Ok(Message::Text(text))) if text.as_str().starts_with("{") => {
                statuses.push(text.as_str().to_owned());
            }
            Some(Ok(Message::Text(_))) => {}
            other => panic!("expected frames, got {other:?}"),
        }
    }
    // The newest always arrives; the ones still queued when it came were dropped.
    assert_eq!(statuses.last().map(String::as_str), Some("{\"status\":99}"));
    assert!(statuses.len() < 10, "{} statuses arrived", statuses.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_pings_and_closes_an_idle_peer() {
    let options = WebSocketOptions::default()
        .heartbeat(Duration::from_millis(50))
        .idle_timeout(Duration::from_millis(300));
    // A client that does not read never answers the pings.
    let (server, mut client) = websocket_raw(&options).await;
    tokio::time::timeout(WAIT, server.closed()).await.unwrap();
    assert_eq!(
        server.close_reason(),
        Some(CloseReason::Idle(Duration::from_millis(300)))
    );
    let mut pings = 0;
    loop {
        match next_message(&mut client).await {
            Some(Ok(Message::Ping(_))) => pings += 1,
            Some(Ok(Message::Close(close))) => {
                assert_eq!(close.expect("a close frame").code, CloseCode::Away);
                break;
            }
            // The server is gone: answering a ping late fails.
            Some(Err(tungstenite::Error::Io(_))) | None => break,
            other => panic!("expected pings then a close, got {other:?}"),
        }
    }
    assert!(pings >= 2, "{pings} pings");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_a_peer_that_answers_pings_stays() {
    let options = WebSocketOptions::default()
        .heartbeat(Duration::from_millis(30))
        .idle_timeout(Duration::from_millis(200));
    let (server, client) = websocket_pair(&options).await;
    // The client port reads, so tungstenite answers every ping.
    let _frames = client.receiver();
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(!server.is_closed(), "closed: {:?}", server.close_reason());
    let mut at_client = client.receiver();
    server.send_json(&json!("still here")).unwrap();
    assert_eq!(next_value(&mut at_client).await, json!("still here"));
}

#[tokio::test]
async fn ndjson_stops_a_slow_consumer() {
    let options = NdjsonOptions::default()
        .max_frame_size(1024)
        .max_queued_bytes(4096);
    // A pipe of 64 bytes that nobody reads.
    let (near, _far) = tokio::io::duplex(64);
    let port = NdjsonPort::new(near, &options);
    let frame = format!("\"{}\"", "x".repeat(500));
    let mut refused = None;
    for _ in 0..100 {
        if let Err(error) = port.send(Outgoing::Text(frame.clone())) {
            refused = Some(error);
            break;
        }
        tokio::task::yield_now().await;
    }
    let Some(SendError::SlowConsumer(QueueFull { limit: 4096, .. })) = refused else {
        panic!("expected a slow consumer, got {refused:?}");
    };
    assert!(matches!(
        port.close_reason(),
        Some(CloseReason::SlowConsumer(_))
    ));
}

/// Takes every frame waiting in `frames` without waiting. On a current-thread runtime the
/// port's task does not run meanwhile, so this is what it had read.
fn waiting(frames: &mut FrameReceiver) -> Vec<Incoming> {
    std::iter::from_fn(|| frames.try_recv()).collect()
}

/// The number in a frame `{"n":N,...}`.
fn n_of(frame: &Incoming) -> u64 {
    frame.decode::<Value>().unwrap()["n"].as_u64().unwrap()
}

/// What both byte ports' read-ahead tests check: `frames` is a port's receiver, bound to 16
/// KiB of frames not taken, and `writer` writes it 1,000 frames `{"n":N,...}` of 1 KiB, over a
/// pipe that holds far less than 1 MB. Once everything waits the port has read up to the bound
/// (16 frames, and one more) and the writer waits for the pipe; taken, every frame comes, in
/// order: none was lost while reading waited.
async fn reads_up_to_the_bound_then_all_in_order<W>(
    frames: &mut FrameReceiver,
    writer: tokio::task::JoinHandle<W>,
) {
    settle().await;
    let first = waiting(frames);
    assert!(
        (16..=17).contains(&first.len()),
        "{} frames read ahead",
        first.len()
    );
    assert!(!writer.is_finished(), "the pipe took 1 MB");
    let mut n = 0;
    for frame in &first {
        assert_eq!(n_of(frame), n);
        n += 1;
    }
    while n < 1000 {
        let frame = next(frames).await.expect("a frame");
        assert_eq!(n_of(&frame), n);
        n += 1;
    }
    let _writer = tokio::time::timeout(WAIT, writer).await.unwrap().unwrap();
}

/// One frame of the read-ahead tests: 1 KiB with its number.
fn numbered(n: u64) -> String {
    format!("{{\"n\":{n},\"pad\":\"{}\"}}", "x".repeat(1000))
}

#[tokio::test(start_paused = true)]
async fn ndjson_reads_no_further_while_its_receiver_holds_the_bound() {
    let options = NdjsonOptions::default().max_inbound_bytes(16 * 1024);
    let (port, mut raw) = ndjson_raw(&options);
    let mut frames = port.receiver();
    let writer = tokio::spawn(async move {
        for n in 0..1000 {
            let line = numbered(n) + "\n";
            raw.write_all(line.as_bytes()).await.unwrap();
        }
        raw
    });
    reads_up_to_the_bound_then_all_in_order(&mut frames, writer).await;
}

#[tokio::test(start_paused = true)]
async fn websocket_reads_no_further_while_its_receiver_holds_the_bound() {
    let options = WebSocketOptions::default().max_inbound_bytes(16 * 1024);
    let (server, client) = websocket_duplex(&options, 64 * 1024).await;
    let mut frames = server.receiver();
    let (mut sink, _stream) = client.split();
    let writer = tokio::spawn(async move {
        for n in 0..1000 {
            sink.send(Message::text(numbered(n))).await.unwrap();
        }
        sink
    });
    reads_up_to_the_bound_then_all_in_order(&mut frames, writer).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_takes_nothing_holds_up_its_own_port_only() {
    let options = WebSocketOptions::default().max_inbound_bytes(1024);
    let (stuck, stuck_client) = websocket_pair(&options).await;
    let _stuck_frames = stuck.receiver();
    for n in 0..100 {
        stuck_client
            .send_json(&json!({ "n": n, "pad": "y".repeat(500) }))
            .unwrap();
    }
    let (a, b) = websocket_pair(&options).await;
    passes_frames_both_ways(&a, &b).await;
}

/// A peer that pings while it does not read what the port writes: the port writes each pong
/// before it reads on, so behind a pong that cannot go out nothing more is read (and no more
/// pongs pile up); once the peer reads, the pong goes out and reading goes on.
#[tokio::test(start_paused = true)]
async fn websocket_reads_no_further_until_its_pong_is_written() {
    let (server, mut client) = websocket_duplex(&WebSocketOptions::default(), 4096).await;
    let mut frames = server.receiver();
    // 6 MiB for a peer that does not read: more than the pipe holds, less than the queue.
    let big = format!("\"{}\"", "z".repeat(1024 * 1024 - 16));
    for _ in 0..6 {
        server.send(Outgoing::Text(big.clone())).unwrap();
    }
    settle().await;
    client
        .send(Message::Ping(b"latest".to_vec().into()))
        .await
        .unwrap();
    client.send(Message::text(r#"{"n":1}"#)).await.unwrap();
    settle().await;
    assert!(
        waiting(&mut frames).is_empty(),
        "read on with a pong waiting"
    );
    // The peer reads: the six frames, the pong; then the frame after the ping arrives.
    let mut pongs = 0;
    let mut texts = 0;
    while texts < 6 || pongs < 1 {
        match next_message(&mut client).await.unwrap().unwrap() {
            Message::Text(_) => texts += 1,
            Message::Pong(payload) => {
                assert_eq!(&payload[..], b"latest");
                pongs += 1;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    let frame = next(&mut frames).await.expect("the frame after the ping");
    assert_eq!(n_of(&frame), 1);
}
