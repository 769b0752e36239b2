//! The app's host, one frame at a time: its own requests, the agent's, and its error code.

use contracts::agent;
use notes_app::{App, Connection};

async fn reply(host: &Connection, frame: &str) -> serde_json::Value {
    let text = agent::dispatch_frame(&notes_app::notes::Dispatcher(host), frame).await;
    serde_json::from_str(&text).expect("a reply is JSON")
}

#[tokio::test]
async fn notes_are_written_read_and_refused_by_the_apps_code() {
    let host = Connection { app: App::new() };
    let w = r#"{"id":"1","type":"note.write","payload":{"id":"n1","text":"milk"}}"#;
    assert_eq!(reply(&host, w).await["ok"], true);
    let r = reply(&host, r#"{"id":"2","type":"note.read","payload":{"id":"n1"}}"#).await;
    assert_eq!(r["result"]["text"], "milk");
    let missing = reply(&host, r#"{"id":"3","type":"note.read","payload":{"id":"n2"}}"#).await;
    assert_eq!(missing["error"]["code"], "unknown-note");
    let chats = reply(&host, r#"{"id":"4","type":"chat.list","payload":{}}"#).await;
    assert_eq!(chats["result"]["chats"], serde_json::json!([]));
    let bad = reply(&host, r#"{"id":"5","type":"note.read","payload":{"id":""}}"#).await;
    assert_eq!(bad["error"]["code"], "invalid-payload");
}
