//! The echo host end to end over a real socket (WebSocket on 127.0.0.1:0), talked to with the
//! typed Rust client (`contracts::agent::client`) and, for refusals, with raw frames.
//!
//! Nothing here sleeps to synchronise: every wait is for a message, under a generous timeout.
//! Absence is proven by order: the hub sends a turn's events before its final chat.status, so
//! a client that sees that status without a chat.event before it was sent none.

use agent_host::{EchoAgent, LoginMode, Options};
use contracts::agent::client::{Attached, ChatThread, Client, ClientError};
use contracts::agent::host::HubConfig;
use contracts::agent::{
    AccountState, AccountsWatchLoginPayload, ChatCreatePayload, ChatDetachPayload, ChatEvent,
    ChatHistoryPayload, ChatItem, ChatListPayload, ChatSendPayload, ChatState, Empty, ErrorCode,
    EventPayload, requests,
};
use contracts::port::{FramePort, FrameReceiver, Outgoing, WebSocketOptions, WebSocketPort};
use contracts::wire::{RawJson, Request as _};
use serde_json::{Value, json};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

/// Every wait in these tests; generous, so a slow machine does not fail them.
const LIMIT: Duration = Duration::from_secs(20);

async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("timed out waiting for the host")
}

fn options() -> Options {
    Options {
        delta_delay: Duration::ZERO,
        login: LoginMode::Manual,
        cli_delay: Duration::from_millis(5),
        ..Options::default()
    }
}

/// An echo host on a free port; answers the agent and its url.
async fn start(options: Options) -> (Arc<EchoAgent>, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let agent = EchoAgent::new(options);
    let serving = agent.clone();
    tokio::spawn(async move { serving.serve(listener).await });
    (agent, url)
}

/// A typed client, registered with the hub (a chat.list answered proves it).
async fn connect(url: &str) -> (Client, WebSocketPort) {
    let port = within(WebSocketPort::connect(url, &WebSocketOptions::default()))
        .await
        .unwrap();
    let client = Client::new(port.clone());
    within(client.request::<requests::ChatList>(ChatListPayload::new()))
        .await
        .unwrap();
    (client, port)
}

async fn create(client: &Client) -> String {
    let payload = ChatCreatePayload::new().title("test");
    within(client.request::<requests::ChatCreate>(payload))
        .await
        .unwrap()
        .chat_id
}

async fn send(client: &Client, chat_id: &str, text: &str) {
    let payload = ChatSendPayload::new(chat_id, text);
    let result = within(client.request::<requests::ChatSend>(payload))
        .await
        .unwrap();
    assert!(!result.queued, "no turn was running");
}

fn idle(thread: &ChatThread) -> bool {
    thread
        .thread()
        .info
        .as_ref()
        .is_some_and(|i| i.state == ChatState::Idle)
}

/// Applies events until the thread is idle again after a reply ended; answers every chat.event
/// applied for the thread's chat, with its seq.
async fn until_replied(thread: &mut ChatThread) -> Vec<(Option<i64>, ChatEvent)> {
    let chat_id = thread.chat_id().to_owned();
    let mut seen = Vec::new();
    let mut replied = false;
    loop {
        let event = within(thread.next_event())
            .await
            .expect("the connection ended");
        if let EventPayload::ChatEvent(e) = &event
            && e.chat_id == chat_id
        {
            if let ChatEvent::Item(i) = &e.event
                && let ChatItem::Reply(r) = &i.item
                && r.streaming == Some(false)
            {
                replied = true;
            }
            seen.push((e.seq, e.event.clone()));
        }
        if replied && idle(thread) {
            return seen;
        }
    }
}

/// Reads raw events until the chat's chat.status says idle after the turns so far, `input`
/// words in all (the turn's last status: a running one may be coalesced away); answers every
/// event before it.
async fn until_idle_status(
    events: &mut UnboundedReceiver<EventPayload>,
    chat_id: &str,
    input: i64,
) -> Vec<EventPayload> {
    let mut seen = Vec::new();
    loop {
        let event = within(events.recv()).await.expect("the connection ended");
        if let EventPayload::ChatStatus(s) = &event
            && s.chat_id == chat_id
            && s.info.state == ChatState::Idle
            && s.info
                .usage
                .as_ref()
                .is_some_and(|u| u.input_tokens == input)
        {
            return seen;
        }
        seen.push(event);
    }
}

fn chat_events(events: &[EventPayload]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, EventPayload::ChatEvent(_)))
        .count()
}

/// Create and attach a chat, send, receive the reply as item and delta events, detach.
#[tokio::test(flavor = "multi_thread")]
async fn create_attach_send_receive_detach() {
    let (agent, url) = start(options()).await;
    let (client, _port) = connect(&url).await;
    let chat_id = create(&client).await;
    let mut thread = ChatThread::new(&client, &chat_id);
    assert_eq!(within(thread.attach()).await.unwrap(), Attached::Snapshot);
    assert!(thread.thread().items.is_empty());
    // A new chat's seq is its epoch's first: the epoch above 2^32, the count below.
    let first = thread.seq().expect("the attach's seq");
    assert_eq!(first % (1 << 32), 0);
    assert!(first >> 32 > 0, "the chat has an epoch");

    send(&client, &chat_id, "hello there").await;
    let seen = until_replied(&mut thread).await;
    // Seqs grow by one from the attach's.
    let seqs: Vec<i64> = seen
        .iter()
        .map(|(s, _)| s.expect("the hub numbers every event"))
        .collect();
    assert_eq!(
        seqs,
        (first + 1..=first + seqs.len() as i64).collect::<Vec<_>>()
    );
    let deltas: String = seen
        .iter()
        .filter_map(|(_, e)| match e {
            ChatEvent::Delta(d) => Some(d.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "echo: hello there");
    assert!(seen.iter().any(|(_, e)| matches!(e, ChatEvent::Item(i) if matches!(&i.item, ChatItem::User(u) if u.text == "hello there"))));
    assert!(
        seen.iter()
            .any(|(_, e)| matches!(e, ChatEvent::Info(i) if i.info.state == ChatState::Running))
    );
    match &thread.thread().items[..] {
        [ChatItem::User(u), ChatItem::Reply(r)] => {
            assert_eq!(u.text, "hello there");
            assert_eq!(r.text, "echo: hello there");
        }
        other => panic!("unexpected items: {other:?}"),
    }
    // The client's thread is the host's, item for item.
    assert_eq!(thread.thread(), &agent.hub().thread(&chat_id).unwrap());

    thread.detach().await.unwrap();
    let mut events = client.subscribe();
    send(&client, &chat_id, "again").await;
    let after = until_idle_status(&mut events, &chat_id, 3).await;
    assert_eq!(
        chat_events(&after),
        0,
        "a detached client gets no chat.event: {after:?}"
    );
}

/// A second client sees chat.status but not chat.event for a chat it did not attach.
#[tokio::test(flavor = "multi_thread")]
async fn an_unattached_client_sees_status_but_not_events() {
    let (_agent, url) = start(options()).await;
    let (a, _pa) = connect(&url).await;
    let (b, _pb) = connect(&url).await;
    let chat_id = create(&a).await;
    let mut thread = ChatThread::new(&a, &chat_id);
    within(thread.attach()).await.unwrap();
    let mut b_events = b.subscribe();
    send(&a, &chat_id, "hi").await;
    until_replied(&mut thread).await;
    // The idle status after the turn arrives: b sees the chat's status, and no chat.event.
    let b_seen = until_idle_status(&mut b_events, &chat_id, 1).await;
    assert_eq!(chat_events(&b_seen), 0, "{b_seen:?}");
}

/// One client attached, then gone while another one talks; answers the first one's thread
/// and the chat's seq when it left.
async fn leave_and_miss(url: &str, missed_turns: usize) -> (ChatThread, String, i64) {
    let (a, port_a) = connect(url).await;
    let chat_id = create(&a).await;
    let mut thread = ChatThread::new(&a, &chat_id);
    within(thread.attach()).await.unwrap();
    send(&a, &chat_id, "one").await;
    until_replied(&mut thread).await;
    let left_at = thread.seq().unwrap();
    port_a.close();
    within(port_a.closed()).await;

    let (b, _pb) = connect(url).await;
    let mut other = ChatThread::new(&b, &chat_id);
    within(other.attach()).await.unwrap();
    for n in 0..missed_turns {
        send(&b, &chat_id, &format!("missed {n}")).await;
        until_replied(&mut other).await;
    }
    (thread, chat_id, left_at)
}

/// Reconnect with `since` and get the missed events in order, the thread kept.
#[tokio::test(flavor = "multi_thread")]
async fn reconnect_with_since_replays_the_missed_events_in_order() {
    let (agent, url) = start(options()).await;
    let (mut thread, chat_id, left_at) = leave_and_miss(&url, 2).await;
    let last = agent.hub().seq(&chat_id).unwrap();
    assert!(last > left_at);

    let (a2, _p) = connect(&url).await;
    assert_eq!(
        within(thread.reconnect(&a2)).await.unwrap(),
        Attached::Resumed
    );
    let mut seqs = Vec::new();
    while thread.seq() != Some(last) {
        if let EventPayload::ChatEvent(e) = within(thread.next_event()).await.unwrap() {
            seqs.push(e.seq.unwrap());
        }
    }
    assert_eq!(
        seqs,
        (left_at + 1..=last).collect::<Vec<_>>(),
        "every missed event, in order"
    );
    assert_eq!(
        thread.thread(),
        &agent.hub().thread(&chat_id).unwrap(),
        "nothing duplicated, nothing lost"
    );
    assert_eq!(thread.thread().items.len(), 6);
}

/// Let the log overflow and get a snapshot instead, replacing the thread.
#[tokio::test(flavor = "multi_thread")]
async fn an_overflowed_log_answers_a_snapshot() {
    let hub = HubConfig {
        log_capacity: 4,
        ..HubConfig::default()
    };
    let (agent, url) = start(Options { hub, ..options() }).await;
    let (mut thread, chat_id, _) = leave_and_miss(&url, 2).await;

    let (a2, _p) = connect(&url).await;
    assert_eq!(
        within(thread.reconnect(&a2)).await.unwrap(),
        Attached::Snapshot
    );
    assert_eq!(thread.seq(), agent.hub().seq(&chat_id));
    assert_eq!(
        thread.thread(),
        &agent.hub().thread(&chat_id).unwrap(),
        "replaced, not appended"
    );
    assert_eq!(thread.thread().items.len(), 6);
    // The snapshot says so outright (an empty `items` alone would read as resumed).
    let port = within(WebSocketPort::connect(&url, &WebSocketOptions::default()))
        .await
        .unwrap();
    let mut frames = port.receiver();
    let attach =
        json!({ "id": "a1", "type": "chat.attach", "payload": { "chatId": chat_id, "since": 1 } });
    let reply = raw(&port, &mut frames, &attach.to_string()).await;
    assert_eq!(reply["result"]["resumed"], json!(false), "{reply}");
    // Nothing more is replayed: the next turn applies on top.
    send(&a2, &chat_id, "after").await;
    until_replied(&mut thread).await;
    assert_eq!(thread.thread(), &agent.hub().thread(&chat_id).unwrap());
}

/// Sends raw text and answers the reply as JSON.
async fn raw(port: &WebSocketPort, frames: &mut FrameReceiver, text: &str) -> Value {
    port.send(Outgoing::Text(text.to_owned())).unwrap();
    loop {
        let frame = within(frames.recv()).await.expect("the connection ended");
        let value: Value = serde_json::from_str(&frame.to_text().unwrap()).unwrap();
        // Events (chat.status of other tests' chats) are not replies.
        if value.get("ok").is_some() {
            return value;
        }
    }
}

fn refused(reply: &Value, id: Option<&str>, code: &str) {
    assert_eq!(reply["ok"], json!(false), "{reply}");
    assert_eq!(reply["id"], id.map_or(Value::Null, |i| json!(i)), "{reply}");
    assert_eq!(reply["error"]["code"], json!(code), "{reply}");
}

/// Unreadable, unknown and invalid frames are refused, a request the host does not do answers
/// chat-unsupported, and the connection keeps working after each.
#[tokio::test(flavor = "multi_thread")]
async fn bad_frames_are_refused_and_the_connection_keeps_working() {
    let (_agent, url) = start(options()).await;
    let port = within(WebSocketPort::connect(&url, &WebSocketOptions::default()))
        .await
        .unwrap();
    let mut frames = port.receiver();
    for unreadable in [
        "not json",
        "[1,2]",
        r#"{"type":"chat.list","payload":{}}"#,
        r#"{"id":"","type":"chat.list","payload":{}}"#,
        r#"{"id":"1","type":"chat.list"}"#,
    ] {
        let reply = raw(&port, &mut frames, unreadable).await;
        refused(&reply, None, "unreadable-frame");
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
    let reply = raw(
        &port,
        &mut frames,
        r#"{"id":"u","type":"chat.nope","payload":{}}"#,
    )
    .await;
    refused(&reply, Some("u"), "unknown-request");

    let payload = r#"{"chatId":"c","cursor":"","limit":0}"#;
    let reply = raw(
        &port,
        &mut frames,
        &format!(r#"{{"id":"i","type":"chat.history","payload":{payload}}}"#),
    )
    .await;
    refused(&reply, Some("i"), "invalid-payload");
    let expected = requests::ChatHistory::parse_payload(payload)
        .unwrap_err()
        .to_string();
    assert_eq!(
        reply["error"]["message"],
        json!(expected),
        "the prettified message, as parse_payload writes it"
    );
    assert!(
        expected.contains("✖ ")
            && expected.contains("  → at cursor")
            && expected.contains("  → at limit"),
        "{expected}"
    );

    let reply = raw(
        &port,
        &mut frames,
        r#"{"id":"f","type":"chat.fork","payload":{"chatId":"c","itemId":"i"}}"#,
    )
    .await;
    refused(&reply, Some("f"), "chat-unsupported");

    let reply = raw(
        &port,
        &mut frames,
        r#"{"id":"ok","type":"chat.list","payload":{}}"#,
    )
    .await;
    assert_eq!(reply["ok"], json!(true), "{reply}");
    assert_eq!(reply["id"], json!("ok"));
}

/// Sends a request with a raw payload; answers the error code, or `None` when it succeeded.
async fn code_of(client: &Client, method: &str, payload: Value) -> Option<String> {
    let payload = RawJson::from_value(&payload).unwrap();
    match within(client.request_raw(method, payload)).await {
        Ok(_) => None,
        Err(ClientError::Host(e)) => Some(e.code.as_str().to_owned()),
        Err(e) => panic!("{method}: {e}"),
    }
}

/// History cursors page back to the start; an unknown cursor answers history-expired.
#[tokio::test(flavor = "multi_thread")]
async fn history_cursors_page_back_and_expire() {
    let (agent, url) = start(options()).await;
    let (client, _p) = connect(&url).await;
    let chat_id = create(&client).await;
    let mut thread = ChatThread::new(&client, &chat_id).with_history_limit(2);
    within(thread.attach()).await.unwrap();
    for n in 0..3 {
        send(&client, &chat_id, &format!("message {n}")).await;
        until_replied(&mut thread).await;
    }
    let mut snapshot = ChatThread::new(&client, &chat_id).with_history_limit(2);
    within(snapshot.attach()).await.unwrap();
    assert_eq!(snapshot.thread().items.len(), 2);
    let history = snapshot.history().unwrap().clone();
    assert_eq!(history.start, 4);

    let mut items = snapshot.thread().items.clone();
    let mut cursor = history
        .cursor
        .clone()
        .expect("a cursor before a page that does not start the thread");
    let mut starts = Vec::new();
    loop {
        let page = ChatHistoryPayload::new(chat_id.clone(), cursor.clone()).limit(3);
        let page = within(client.request::<requests::ChatHistory>(page))
            .await
            .unwrap();
        starts.push(page.history.start);
        items.splice(0..0, page.items);
        match page.history.cursor {
            Some(next) => cursor = next,
            None => break,
        }
    }
    assert_eq!(starts, vec![1, 0]);
    assert_eq!(
        items,
        agent.hub().thread(&chat_id).unwrap().items,
        "the pages make up the whole thread"
    );

    let unknown = ChatHistoryPayload::new(chat_id.clone(), "no-such-cursor");
    match within(client.request::<requests::ChatHistory>(unknown)).await {
        Err(ClientError::Host(e)) => assert_eq!(e.code, ErrorCode::HistoryExpired),
        other => panic!("expected history-expired, got {other:?}"),
    }
    let other_chat = create(&client).await;
    let foreign = ChatHistoryPayload::new(other_chat, history.cursor.unwrap());
    match within(client.request::<requests::ChatHistory>(foreign)).await {
        Err(ClientError::Host(e)) => assert_eq!(e.code, ErrorCode::HistoryExpired),
        other => panic!("a cursor of another chat: expected history-expired, got {other:?}"),
    }
}

/// Every limit the spec names, at each edge, over the wire.
#[tokio::test(flavor = "multi_thread")]
async fn limits_hold_at_each_edge_over_the_wire() {
    let (_agent, url) = start(options()).await;
    let (client, _p) = connect(&url).await;
    let chat_id = create(&client).await;
    send(&client, &chat_id, "m").await;
    let attach = |limit: i64| json!({ "chatId": chat_id, "historyLimit": limit });
    assert_eq!(
        code_of(&client, "chat.attach", attach(0)).await.as_deref(),
        Some("invalid-payload")
    );
    assert_eq!(code_of(&client, "chat.attach", attach(1)).await, None);
    assert_eq!(code_of(&client, "chat.attach", attach(100)).await, None);
    assert_eq!(
        code_of(&client, "chat.attach", attach(101))
            .await
            .as_deref(),
        Some("invalid-payload")
    );

    // A cursor of the right length but unknown passes validation and expires.
    let history =
        |cursor: String, limit: i64| json!({ "chatId": chat_id, "cursor": cursor, "limit": limit });
    let ascii = |n: usize| "c".repeat(n);
    assert_eq!(
        code_of(&client, "chat.history", history(ascii(128), 1))
            .await
            .as_deref(),
        Some("history-expired")
    );
    assert_eq!(
        code_of(&client, "chat.history", history("é".repeat(128), 100))
            .await
            .as_deref(),
        Some("history-expired"),
        "characters, not bytes"
    );
    assert_eq!(
        code_of(&client, "chat.history", history(ascii(129), 1))
            .await
            .as_deref(),
        Some("invalid-payload")
    );
    assert_eq!(
        code_of(&client, "chat.history", history(ascii(1), 0))
            .await
            .as_deref(),
        Some("invalid-payload")
    );
    assert_eq!(
        code_of(&client, "chat.history", history(ascii(1), 101))
            .await
            .as_deref(),
        Some("invalid-payload")
    );

    // The echo host does not do subagents: a valid payload is unsupported, an invalid one refused.
    let subagent =
        |cursor: String| json!({ "chatId": chat_id, "toolUseId": "t", "cursor": cursor });
    assert_eq!(
        code_of(&client, "chat.subagent", subagent(ascii(256)))
            .await
            .as_deref(),
        Some("chat-unsupported")
    );
    assert_eq!(
        code_of(&client, "chat.subagent", subagent(ascii(257)))
            .await
            .as_deref(),
        Some("invalid-payload")
    );

    // The typed client refuses a payload out of range before sending it.
    let payload = contracts::agent::ChatAttachPayload::new(chat_id.clone()).history_limit(101);
    assert!(matches!(
        client.request::<requests::ChatAttach>(payload).await,
        Err(ClientError::InvalidPayload(_))
    ));
}

/// accounts.refresh answers once every provider CLI was asked again; accounts.watchLogin
/// answers at once and the login's end arrives later as accounts.changed.
#[tokio::test(flavor = "multi_thread")]
async fn accounts_follow_the_timing_rules() {
    let (agent, url) = start(options()).await;
    let (client, _p) = connect(&url).await;
    let (other, _po) = connect(&url).await;
    let mut others = other.subscribe();

    let before = agent.cli().asks();
    let snapshot = within(client.request::<requests::AccountsRefresh>(Empty::new()))
        .await
        .unwrap();
    let after = agent.cli().asks();
    for provider in agent_host::FakeCli::PROVIDERS {
        assert_eq!(
            after.get(*provider).copied().unwrap_or(0),
            before.get(*provider).copied().unwrap_or(0) + 1,
            "{provider} was asked again before the answer"
        );
    }
    match within(others.recv()).await.unwrap() {
        EventPayload::AccountsChanged(changed) => assert_eq!(*changed, snapshot),
        other => panic!("expected accounts.changed, got {other:?}"),
    }

    // The login cannot end before the test ends it, so the answer came at once.
    let login = AccountsWatchLoginPayload::new("a-parrot");
    within(client.request::<requests::AccountsWatchLogin>(login))
        .await
        .unwrap();
    let state = |s: &contracts::agent::AccountSnapshot| {
        s.accounts
            .iter()
            .find(|a| a.account_id == "a-parrot")
            .map(|a| a.state)
    };
    assert_eq!(
        state(&agent.cli().snapshot()),
        Some(AccountState::LoggingIn)
    );
    assert!(agent.cli().complete_login("a-parrot"));
    loop {
        if let EventPayload::AccountsChanged(changed) = within(others.recv()).await.unwrap()
            && state(&changed) == Some(AccountState::LoggedIn)
        {
            break;
        }
    }
    let unknown = AccountsWatchLoginPayload::new("nobody");
    assert!(matches!(
        client
            .request::<requests::AccountsWatchLogin>(unknown)
            .await,
        Err(ClientError::Host(_))
    ));
}

/// usage.subscribe starts usage.changed for that client; usage.unsubscribe ends them.
#[tokio::test(flavor = "multi_thread")]
async fn usage_events_follow_the_subscription() {
    let (_agent, url) = start(options()).await;
    let (client, _p) = connect(&url).await;
    let chat_id = create(&client).await;
    let usage = |seen: &[EventPayload]| {
        seen.iter()
            .filter(|e| matches!(e, EventPayload::UsageChanged(_)))
            .count()
    };

    let mut events = client.subscribe();
    send(&client, &chat_id, "before").await;
    assert_eq!(usage(&until_idle_status(&mut events, &chat_id, 1).await), 0);

    within(client.request::<requests::UsageSubscribe>(Empty::new()))
        .await
        .unwrap();
    send(&client, &chat_id, "during").await;
    assert_eq!(usage(&until_idle_status(&mut events, &chat_id, 2).await), 1);

    within(client.request::<requests::UsageUnsubscribe>(Empty::new()))
        .await
        .unwrap();
    send(&client, &chat_id, "after").await;
    assert_eq!(usage(&until_idle_status(&mut events, &chat_id, 3).await), 0);
}

/// Bookmarks and visuals reach the attached thread; clear resets it; kill forgets the chat.
#[tokio::test(flavor = "multi_thread")]
async fn bookmarks_visuals_clear_and_kill() {
    let (agent, url) = start(options()).await;
    let (client, _p) = connect(&url).await;
    let chat_id = create(&client).await;
    let mut thread = ChatThread::new(&client, &chat_id);
    within(thread.attach()).await.unwrap();
    send(&client, &chat_id, "/visual a chart").await;
    until_replied(&mut thread).await;
    let item_id = contracts::agent::thread::item_id(&thread.thread().items[0]).to_owned();

    let payload =
        contracts::agent::ChatAddBookmarkPayload::new(chat_id.clone(), item_id).label("first");
    let bookmark = within(client.request::<requests::ChatAddBookmark>(payload))
        .await
        .unwrap()
        .bookmark;
    while thread.bookmarks().is_empty() {
        within(thread.next_event()).await.unwrap();
    }
    assert_eq!(thread.bookmarks(), &[bookmark]);
    assert_eq!(thread.visuals().len(), 1);
    let visual_id = thread.visuals()[0].visual_id.clone();
    let remove = contracts::agent::ChatRemoveVisualPayload::new(chat_id.clone(), visual_id);
    within(client.request::<requests::ChatRemoveVisual>(remove))
        .await
        .unwrap();
    while !thread.visuals().is_empty() {
        within(thread.next_event()).await.unwrap();
    }

    within(
        client.request::<requests::ChatClear>(contracts::agent::ChatClearPayload::new(
            chat_id.clone(),
        )),
    )
    .await
    .unwrap();
    while !thread.thread().items.is_empty() {
        within(thread.next_event()).await.unwrap();
    }
    assert_eq!(thread.thread(), &agent.hub().thread(&chat_id).unwrap());

    within(
        client
            .request::<requests::ChatKill>(contracts::agent::ChatKillPayload::new(chat_id.clone())),
    )
    .await
    .unwrap();
    let list = within(client.request::<requests::ChatList>(ChatListPayload::new()))
        .await
        .unwrap();
    assert!(list.chats.iter().all(|c| c.chat_id != chat_id));
    let detach = ChatDetachPayload::new(chat_id);
    match within(client.request::<requests::ChatDetach>(detach)).await {
        Err(ClientError::Host(e)) => assert_eq!(e.code, ErrorCode::UnknownChat),
        other => panic!("expected unknown-chat, got {other:?}"),
    }
}
