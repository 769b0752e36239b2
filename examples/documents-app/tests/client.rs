//! The typed Rust client over the documents app's tables, end to end over a WebSocket: the
//! app's requests by its request types, its own event delivered typed, an event no table
//! knows reported to `problems()`, the app's error code read back, and a `ChatThread` over
//! the same client.

use contracts::agent::client::{Attached, ChatThread, Client, ClientError, ProblemKind};
use contracts::agent::{self, ChatCreatePayload, ChatEvent, requests as agent_requests};
use contracts::port::{WebSocketOptions, WebSocketPort};
use documents_app::documents::{
    DocumentReadPayload, DocumentWritePayload, DocumentsErrorCode, EventPayload, requests,
};
use documents_app::{App, PATH, listen};
use serde_json::json;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

async fn within<T>(f: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(5), f)
        .await
        .expect("within 5s")
}

async fn start() -> (Arc<App>, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = App::new();
    tokio::spawn(listen(app.clone(), listener));
    (app, format!("ws://{addr}{PATH}"))
}

async fn port(url: &str) -> WebSocketPort {
    WebSocketPort::connect(url, &WebSocketOptions::default())
        .await
        .expect("the host accepts")
}

#[tokio::test]
async fn an_apps_client_gets_its_requests_and_events_typed_and_reports_unknown_events() {
    let (app, url) = start().await;
    let client = Client::<EventPayload>::typed(port(&url).await);
    let mut events = client.subscribe();
    let mut problems = client.problems();

    // The app's requests, by the app's request types.
    let written = client
        .request::<requests::DocumentWrite>(DocumentWritePayload::new("d1", "hello"))
        .await
        .unwrap();
    assert_eq!(written, agent::Empty::new());
    match within(events.recv()).await.unwrap() {
        EventPayload::DocumentChanged(e) => assert_eq!(e.id, "d1"),
        other => panic!("the app's own event, typed: got {other:?}"),
    }
    let read = client
        .request::<requests::DocumentRead>(DocumentReadPayload::new("d1"))
        .await
        .unwrap();
    assert_eq!(read.text, "hello");

    // The app's own error code, read back from the reply.
    match client
        .request::<requests::DocumentRead>(DocumentReadPayload::new("nope"))
        .await
    {
        Err(ClientError::Host(e)) => assert_eq!(e.code, DocumentsErrorCode::UnknownDocument),
        other => panic!("expected the app's refusal, got {other:?}"),
    }

    // An event no table knows: reported with its frame, never delivered, never dropped silently.
    app.hub
        .broadcast("document.deleted", &json!({ "id": "d1" }))
        .unwrap();
    let problem = within(problems.recv()).await.unwrap();
    assert_eq!(problem.kind, ProblemKind::UnknownEvent);
    assert!(
        problem.message.contains("\"document.deleted\""),
        "{problem:?}"
    );
    assert!(problem.frame.unwrap().contains("document.deleted"));
    // The agent's own events still arrive, as the app's table holds them.
    let created = client
        .request::<agent_requests::ChatCreate>(ChatCreatePayload::new().title("t"))
        .await
        .unwrap();
    match within(events.recv()).await.unwrap() {
        EventPayload::ChatStatus(e) => assert_eq!(e.chat_id, created.chat_id),
        other => panic!("the agent's chat.status, typed: got {other:?}"),
    }
    assert!(
        events.try_recv().is_err(),
        "document.deleted was not delivered"
    );
}

/// The agent's client over the app's host: the app's event is not in its table, so it is
/// reported (before, it was dropped silently).
#[tokio::test]
async fn the_agents_client_reports_an_apps_event_it_does_not_know() {
    let (app, url) = start().await;
    let client = Client::new(port(&url).await);
    let mut problems = client.problems();
    let mut events = client.subscribe();
    app.documents.write("d1", "x");
    let problem = within(problems.recv()).await.unwrap();
    assert_eq!(problem.kind, ProblemKind::UnknownEvent);
    assert!(
        problem.message.contains("\"document.changed\""),
        "{problem:?}"
    );
    assert!(events.try_recv().is_err());
}

/// `ChatThread` works over an app's client: it finds the agent's chat.event in the app's table.
#[tokio::test]
async fn a_chat_thread_over_an_apps_client() {
    let (app, url) = start().await;
    let client = Client::<EventPayload>::typed(port(&url).await);
    let created = client
        .request::<agent_requests::ChatCreate>(ChatCreatePayload::new())
        .await
        .unwrap();
    let mut thread = ChatThread::new(&client, &created.chat_id);
    assert_eq!(within(thread.attach()).await.unwrap(), Attached::Snapshot);
    let event: ChatEvent = contracts::wire::from_str(
        &json!({ "type": "item", "item": { "kind": "user", "id": "u1", "text": "hi", "createdAt": 0 } })
            .to_string(),
    )
    .unwrap();
    let seq = app.hub.publish(&created.chat_id, event).unwrap();
    // The app's own events pass by the thread, which applies only its chat's.
    app.documents.write("d1", "x");
    let mut applied = false;
    while !applied {
        let next = within(thread.next_event())
            .await
            .expect("the connection is open");
        applied = matches!(next, EventPayload::ChatEvent(_));
    }
    assert_eq!(thread.seq(), Some(seq));
    assert_eq!(thread.thread().items.len(), 1);
    assert!(matches!(
        &thread.thread().items[0],
        agent::ChatItem::User(u) if u.text == "hi"
    ));
}
