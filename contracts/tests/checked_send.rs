//! A host cannot send what its peer will refuse: a result or an event that breaks a limit of
//! the schema is answered as an `internal` failure naming the field and the limit, and that
//! failure is a frame the client accepts (the corpus lines named here run through Zod and ajv
//! too). A valid result still goes out as it was.

use contracts::Event;
use contracts::agent::*;

/// A host whose results break the schema: an empty `chatId` (`ChatId` is `string(min = 1)`)
/// and a negative `historyIndex` (`int(min = 0)`). Its chat.send is valid.
struct BrokenHost;

fn info(chat_id: &str, created_at: i64) -> ChatInfo {
    ChatInfo::new(
        chat_id,
        "A chat",
        ChatState::Idle,
        "echo",
        created_at,
        created_at,
        [],
        [],
    )
}

impl Host for BrokenHost {
    async fn chat_create(&self, _: ChatCreatePayload) -> Result<ChatCreated, WireError> {
        Ok(ChatCreated::new("", info("", 1)))
    }

    async fn chat_history(&self, _: ChatHistoryPayload) -> Result<ChatHistoryResult, WireError> {
        let item = ChatItemUser::new("item-1", "hello", 1).history_index(-1);
        Ok(ChatHistoryResult::new(
            [item.into()],
            HistoryPosition::new(0, String::from("c-0")),
        ))
    }

    async fn chat_send(&self, _: ChatSendPayload) -> Result<ChatSendResult, WireError> {
        Ok(ChatSendResult::new(false))
    }
}

/// The corpus line with this note: its input as compact JSON.
fn corpus_frame(note: &str) -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/agent.jsonl");
    let text = std::fs::read_to_string(path).expect("read the corpus");
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("a corpus line is JSON");
        if case["note"] == note {
            assert_eq!(case["ok"], true, "{note}: the corpus must accept the frame");
            return case["input"].clone();
        }
    }
    panic!("no corpus line has the note {note:?}");
}

/// The frame the dispatcher answers `request` with, and its failure (it must be one).
async fn refused(request: &str) -> (String, WireError) {
    let frame = dispatch_frame(&Dispatcher(&BrokenHost), request).await;
    match parse_server_frame_typed::<EventPayload>(&frame) {
        Ok(ServerFrameTyped::ReplyError(reply)) => {
            assert_eq!(reply.id.as_deref(), Some("1"), "{frame}");
            (frame, reply.error)
        }
        other => panic!("a failure, not {other:?}: {frame}"),
    }
}

#[tokio::test]
async fn an_empty_chat_id_is_answered_as_an_internal_failure_the_client_accepts() {
    let (frame, error) = refused(r#"{"id":"1","type":"chat.create","payload":{}}"#).await;
    assert_eq!(error.code, ErrorCode::Internal);
    assert!(error.message.contains("chat.create"), "{}", error.message);
    assert!(error.message.contains("→ at chatId"), "{}", error.message);
    assert!(
        error.message.contains(">=1 characters"),
        "{}",
        error.message
    );
    let frame: serde_json::Value = serde_json::from_str(&frame).unwrap();
    assert_eq!(
        frame,
        corpus_frame("the internal failure a host's empty chatId becomes")
    );
}

#[tokio::test]
async fn a_number_out_of_its_range_is_answered_as_an_internal_failure_the_client_accepts() {
    let request = r#"{"id":"1","type":"chat.history","payload":{"chatId":"c1","cursor":"c-0"}}"#;
    let (frame, error) = refused(request).await;
    assert_eq!(error.code, ErrorCode::Internal);
    assert!(error.message.contains("chat.history"), "{}", error.message);
    assert!(
        error.message.contains("→ at items[0].historyIndex"),
        "{}",
        error.message
    );
    assert!(error.message.contains(">=0"), "{}", error.message);
    let frame: serde_json::Value = serde_json::from_str(&frame).unwrap();
    assert_eq!(
        frame,
        corpus_frame("the internal failure a host's negative historyIndex becomes")
    );
}

#[tokio::test]
async fn a_valid_result_goes_out_as_it_was() {
    let request = r#"{"id":"1","type":"chat.send","payload":{"chatId":"c1","text":"hi"}}"#;
    let frame = dispatch_frame(&Dispatcher(&BrokenHost), request).await;
    assert_eq!(frame, r#"{"id":"1","ok":true,"result":{"queued":false}}"#);
}

#[test]
fn the_hub_refuses_an_event_a_client_would_refuse_and_changes_nothing() {
    let hub = contracts::agent::host::Hub::new(Default::default());
    let error = hub.create_chat(info("", 1)).unwrap_err();
    assert_eq!(error.code, ErrorCode::Internal);
    assert!(error.message.contains("chat.status"), "{}", error.message);
    assert!(error.message.contains("→ at chatId"), "{}", error.message);
    assert!(hub.chats().is_empty());

    hub.create_chat(info("c1", 1)).expect("a valid chat");
    let seq = hub.seq("c1");
    let error = hub.set_info(info("c1", -5)).unwrap_err();
    assert_eq!(error.code, ErrorCode::Internal);
    assert!(error.message.contains("chat.event"), "{}", error.message);
    assert!(
        error.message.contains("→ at event.info.createdAt"),
        "{}",
        error.message
    );
    assert_eq!(hub.seq("c1"), seq, "nothing was published");
    assert_eq!(hub.info("c1").map(|i| i.created_at), Some(1));

    let payload = ChatSubagentChangedEvent::new("", "tool-1");
    let error = hub
        .broadcast(events::ChatSubagentChanged::NAME, &payload)
        .unwrap_err();
    assert!(error.message.contains("→ at chatId"), "{}", error.message);
    let error = hub
        .broadcast_event::<events::ChatSubagentChanged>(&payload)
        .unwrap_err();
    assert!(error.message.contains("→ at chatId"), "{}", error.message);
    hub.broadcast_event::<events::ChatSubagentChanged>(&ChatSubagentChangedEvent::new("c1", "t"))
        .expect("a valid event goes out");
}
