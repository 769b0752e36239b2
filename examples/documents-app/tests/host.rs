//! The documents app's host over a real WebSocket, driven from Rust: agent requests and app
//! requests on one connection, agent events and app events to every client, and every result
//! and event checked against the app's tables (`documents::RequestResult::parse`,
//! `documents::EventPayload::parse`).

use contracts::agent::{self, ServerFrame};
use contracts::port::{
    FramePort, FrameReceiver, Incoming, Outgoing, WebSocketOptions, WebSocketPort,
};
use documents_app::documents::{self, DocumentsErrorCode, EventPayload, RequestResult};
use documents_app::{App, PATH, listen};
use serde_json::{Value, json};
use std::time::Duration;

/// A test client: sends requests by name and reads every frame, checked by the tables.
struct Client {
    port: WebSocketPort,
    frames: FrameReceiver,
    next: u64,
}

/// A frame as the client read it.
#[derive(Debug)]
enum Frame {
    Ok(String, RequestResult),
    Refused(Option<String>, agent::WireError),
    Event(EventPayload),
}

impl Client {
    async fn connect(url: &str) -> Client {
        let port = WebSocketPort::connect(url, &WebSocketOptions::default())
            .await
            .expect("the host accepts");
        let frames = port.receiver();
        Client {
            port,
            frames,
            next: 0,
        }
    }

    /// Sends a request and answers its id.
    fn send(&mut self, name: &str, payload: Value) -> String {
        self.next += 1;
        let id = self.next.to_string();
        let frame = json!({ "id": id, "type": name, "payload": payload });
        self.port
            .send(Outgoing::Text(frame.to_string()))
            .expect("sent");
        id
    }

    /// The next frame, within two seconds.
    async fn frame(&mut self, pending: &[(String, String)]) -> Frame {
        let incoming = tokio::time::timeout(Duration::from_secs(2), self.frames.recv())
            .await
            .expect("a frame within 2s")
            .expect("the connection is open");
        let Incoming::Text(text) = incoming else {
            panic!("a text frame: {incoming:?}");
        };
        match agent::parse_server_frame(&text).expect("a server frame") {
            ServerFrame::ReplyOk(ok) => {
                let name = &pending
                    .iter()
                    .find(|(id, _)| *id == ok.id)
                    .expect("a reply to a request sent")
                    .1;
                let result = RequestResult::parse(name, ok.result.get())
                    .unwrap_or_else(|e| panic!("{name}'s result: {e}"));
                Frame::Ok(ok.id, result)
            }
            ServerFrame::ReplyError(e) => Frame::Refused(e.id, e.error),
            ServerFrame::Event(e) => Frame::Event(
                EventPayload::parse(&e.event, e.payload.get())
                    .unwrap_or_else(|err| panic!("{}'s payload: {err}", e.event)),
            ),
        }
    }

    /// Sends a request and answers its reply, keeping the events that came first.
    async fn request(
        &mut self,
        name: &str,
        payload: Value,
        events: &mut Vec<EventPayload>,
    ) -> Result<RequestResult, agent::WireError> {
        let id = self.send(name, payload);
        let pending = [(id.clone(), name.to_owned())];
        loop {
            match self.frame(&pending).await {
                Frame::Ok(got, result) if got == id => return Ok(result),
                Frame::Refused(Some(got), error) if got == id => return Err(error),
                Frame::Event(e) => events.push(e),
                other => panic!("unexpected frame: {other:?}"),
            }
        }
    }
}

async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(listen(App::new(), listener));
    format!("ws://{addr}{PATH}")
}

#[tokio::test]
async fn agent_and_app_requests_and_events_over_one_websocket() {
    let url = start().await;
    let mut a = Client::connect(&url).await;
    let mut b = Client::connect(&url).await;
    let (mut a_events, mut b_events) = (Vec::new(), Vec::new());

    // An agent request; chat.status goes to every client.
    let Ok(RequestResult::ChatCreate(created)) = a
        .request("chat.create", json!({ "title": "Docs" }), &mut a_events)
        .await
    else {
        panic!("chat.create answers ChatCreated");
    };
    let Ok(RequestResult::ChatList(list)) = b.request("chat.list", json!({}), &mut b_events).await
    else {
        panic!("chat.list answers the chats");
    };
    assert_eq!(list.chats.len(), 1);
    assert!(
        b_events
            .iter()
            .any(|e| matches!(e, EventPayload::ChatStatus(s) if s.chat_id == created.chat_id)),
        "{b_events:?}"
    );

    // An app request; document.changed goes to every client.
    let written = a
        .request(
            "document.write",
            json!({ "id": "notes", "text": "draft" }),
            &mut a_events,
        )
        .await;
    assert!(
        matches!(written, Ok(RequestResult::DocumentWrite(_))),
        "{written:?}"
    );
    let Ok(RequestResult::DocumentRead(read)) = b
        .request("document.read", json!({ "id": "notes" }), &mut b_events)
        .await
    else {
        panic!("document.read answers the text");
    };
    assert_eq!(read.text, "draft");
    assert!(
        b_events
            .iter()
            .any(|e| matches!(e, EventPayload::DocumentChanged(c) if c.id == "notes")),
        "{b_events:?}"
    );

    // An app request whose result is an agent type.
    let attached = a
        .request(
            "document.attachToChat",
            json!({ "id": "notes", "chatId": created.chat_id }),
            &mut a_events,
        )
        .await;
    let Ok(RequestResult::DocumentAttachToChat(attached)) = attached else {
        panic!("{attached:?}");
    };
    assert_eq!(attached.info.chat_id, created.chat_id);

    // Open objects: headers are any keys holding strings; the metadata keeps every key.
    let set = a
        .request(
            "document.setHeaders",
            json!({ "id": "notes", "headers": { "lang": "en", "x-source": "mail" } }),
            &mut a_events,
        )
        .await;
    assert!(set.is_ok(), "{set:?}");
    let meta = a
        .request("document.meta", json!({ "id": "notes" }), &mut a_events)
        .await;
    let Ok(RequestResult::DocumentMeta(meta)) = meta else {
        panic!("{meta:?}");
    };
    assert_eq!(
        serde_json::to_value(&*meta).unwrap(),
        json!({ "title": "notes", "lang": "en", "x-source": "mail" })
    );
    let e = a
        .request(
            "document.setHeaders",
            json!({ "id": "notes", "headers": { "lang": 1 } }),
            &mut a_events,
        )
        .await
        .unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.message.as_str()),
        (
            "invalid-payload",
            "✖ Invalid input: expected string, received number\n  → at headers.lang"
        )
    );

    // Refusals: a bad app payload, an unknown document, an agent request the host does not do,
    // an unknown name.
    let e = a
        .request("document.read", json!({ "id": "" }), &mut a_events)
        .await
        .unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.message.as_str()),
        (
            "invalid-payload",
            "✖ Too small: expected string to have >=1 characters\n  → at id"
        )
    );
    let e = a
        .request("document.read", json!({ "id": "nope" }), &mut a_events)
        .await
        .unwrap_err();
    assert_eq!(e.code.as_str(), "unknown-document");
    // The app's own code, read back from the wire: the agent's open code compares with it.
    assert_eq!(e.code, DocumentsErrorCode::UnknownDocument);
    assert_eq!(
        DocumentsErrorCode::of(&e.code),
        Some(DocumentsErrorCode::UnknownDocument)
    );
    assert_eq!(
        e.to_string(),
        "unknown-document: no document is called \"nope\""
    );
    let e = a
        .request(
            "chat.fork",
            json!({ "chatId": created.chat_id, "itemId": "i" }),
            &mut a_events,
        )
        .await
        .unwrap_err();
    assert_eq!(e.code.as_str(), "chat-unsupported");
    let e = a
        .request("document.delete", json!({}), &mut a_events)
        .await
        .unwrap_err();
    assert_eq!(e.code.as_str(), "unknown-request");
}

#[test]
fn the_tables_hold_the_agent_names_then_the_apps() {
    let app = &documents::REQUEST_NAMES[agent::REQUEST_NAMES.len()..];
    assert_eq!(
        &documents::REQUEST_NAMES[..agent::REQUEST_NAMES.len()],
        agent::REQUEST_NAMES
    );
    assert_eq!(
        app,
        [
            "document.read",
            "document.write",
            "document.attachToChat",
            "document.meta",
            "document.setHeaders",
            "document.upload"
        ]
    );
    assert_eq!(documents::EVENT_NAMES.last(), Some(&"document.changed"));
    assert!(documents::EVENT_NAMES.contains(&"chat.status"));
    // The agent's request types are the app's: re-exported, not copied.
    let _: documents::requests::ChatList = agent::requests::ChatList;
}

/// The app's own error codes are first-class: built as the agent's are (`WireErrorExt`), a
/// code of the agent's open set when sent, and found again when read.
#[test]
fn the_apps_error_codes_extend_the_agents() {
    use documents::WireErrorExt as _;
    let e = agent::WireError::unknown_document("no document is called \"d\"");
    assert_eq!(e.code, agent::ErrorCode::Other("unknown-document".into()));
    assert_eq!(e.code, DocumentsErrorCode::UnknownDocument);
    let agent_code: agent::ErrorCode = DocumentsErrorCode::UnknownDocument.into();
    assert_eq!(agent_code.as_str(), "unknown-document");
    assert_eq!(
        DocumentsErrorCode::of(&agent::ErrorCode::UnknownChat),
        None,
        "an agent code is not the app's"
    );
    assert_eq!(DocumentsErrorCode::VALUES, ["unknown-document"]);
    // It travels as the agent's WireError does.
    let wire = serde_json::to_value(&e).unwrap();
    assert_eq!(
        wire,
        json!({ "code": "unknown-document", "message": "no document is called \"d\"" })
    );
    let back: agent::WireError = contracts::wire::from_str(&wire.to_string()).unwrap();
    assert_eq!(
        DocumentsErrorCode::of(&back.code),
        Some(DocumentsErrorCode::UnknownDocument)
    );
}
