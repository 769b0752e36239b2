//! Every rule of the Agent Connect session core, frames in and frames out.

use contracts::connect::session::{
    Action, Config, ContextBudget, EventLog, Hub, Identity, LogError, MemoryLog, Notice, ReadError,
    Role, SocketId, Written,
};
use contracts::connect::{
    ContextEdit, ContextWindowChange, ContextWindowCompact, ErrorCode, HeartbeatChange,
    JoinRequest, ModelChange, Presence, PresenceState, Restart, ServerEvent, ServerFrame,
};
use contracts::port::{FrameTooLarge, Incoming};
use serde_json::{Value, json};

const WS: &str = "ws_1";
const T0: i64 = 1_790_000_000_000;

fn harness() -> Identity {
    Identity::harness(WS, "h_scout", "Scout")
}
fn owner() -> Identity {
    Identity::person(WS, "usr_dana", "Dana", Role::Owner)
}
fn admin() -> Identity {
    Identity::person(WS, "usr_ali", "Ali", Role::Admin)
}
fn member() -> Identity {
    Identity::person(WS, "usr_mo", "Mo", Role::Member)
}
fn guest() -> Identity {
    Identity::person(WS, "usr_gus", "Gus", Role::Guest)
}

fn hello_with(accepts: &[&str]) -> String {
    json!({
        "frame": "hello",
        "protocol": { "min": 1, "max": 1 },
        "client": { "name": "test", "version": "0.1.0" },
        "accepts": accepts,
    })
    .to_string()
}

fn post(space: &str, text: &str, key: &str) -> String {
    json!({ "frame": "event", "event": {
        "type": "message.post", "space_id": space, "text": text, "idempotency_key": key,
    }})
    .to_string()
}

/// Opens a socket and says hello, checking the reply is a hello.
fn connect(hub: &mut Hub, identity: Identity, accepts: &[&str]) -> SocketId {
    let id = hub.open(identity, T0);
    let out = hub.receive(id, &hello_with(accepts), T0);
    assert!(
        matches!(out.first(), Some(Action::Send { to, frame: ServerFrame::Hello(_) }) if *to == id),
        "{out:?}"
    );
    id
}

/// The frames sent to `socket`, in order. Each must parse back as a server frame: the hub
/// never sends what the contract refuses.
fn to(out: &[Action], socket: SocketId) -> Vec<ServerFrame> {
    for a in out {
        if let Action::Send { frame, .. } = a {
            let text = serde_json::to_string(frame).unwrap();
            let back = contracts::connect::parse_server_frame(&text)
                .unwrap_or_else(|e| panic!("the hub sent an invalid frame: {e}\n{text}"));
            assert_eq!(&back, frame);
        }
    }
    out.iter()
        .filter_map(|a| match a {
            Action::Send { to, frame } if *to == socket => Some(frame.clone()),
            _ => None,
        })
        .collect()
}

fn only(out: &[Action], socket: SocketId) -> ServerFrame {
    let frames = to(out, socket);
    assert_eq!(frames.len(), 1, "expected one frame to {socket:?}: {out:?}");
    frames.into_iter().next().unwrap()
}

fn wire(frame: &ServerFrame) -> Value {
    serde_json::to_value(frame).unwrap()
}

fn error_of(frame: &ServerFrame) -> (ErrorCode, Option<String>) {
    match frame {
        ServerFrame::Error(e) => (e.code, e.idempotency_key.clone()),
        other => panic!("expected an error frame, got {other:?}"),
    }
}

fn seqs(frame: &ServerFrame) -> Vec<i64> {
    let events: Vec<&ServerEvent> = match frame {
        ServerFrame::Event(e) => vec![&e.event],
        ServerFrame::Events(page) => page.events.iter().collect(),
        other => panic!("expected events, got {other:?}"),
    };
    events.iter().map(|e| wire_seq(e)).collect()
}

fn wire_seq(event: &ServerEvent) -> i64 {
    serde_json::to_value(event).unwrap()["seq"]
        .as_i64()
        .unwrap()
}

/// Writes `n` messages from a fresh member socket.
fn fill(hub: &mut Hub, n: usize, space: &str) {
    let w = connect(hub, member(), &[]);
    for i in 0..n {
        hub.receive(w, &post(space, "x", &format!("fill-{space}-{i}")), T0);
    }
    hub.close(w, T0);
}

// ---- hello ----

#[test]
fn hello_picks_the_highest_version_both_speak() {
    let config = Config {
        protocol_min: 1,
        protocol_max: 2,
        ..Config::default()
    };
    let mut hub = Hub::new(config, MemoryLog::default());
    let id = hub.open(harness(), T0);
    let hello = json!({ "frame": "hello", "protocol": { "min": 1, "max": 3 }, "client": { "name": "n", "version": "1" } });
    let out = hub.receive(id, &hello.to_string(), T0);
    assert_eq!(wire(&only(&out, id))["protocol"], 2);
    assert_eq!(hub.protocol(id), Some(2));
}

#[test]
fn hello_without_a_common_version_is_protocol_unsupported_and_closed() {
    let mut hub = Hub::in_memory();
    let id = hub.open(harness(), T0);
    let hello = json!({ "frame": "hello", "protocol": { "min": 2, "max": 5 }, "client": { "name": "n", "version": "1" } });
    let out = hub.receive(id, &hello.to_string(), T0);
    assert_eq!(error_of(&to(&out, id)[0]).0, ErrorCode::ProtocolUnsupported);
    assert!(out.contains(&Action::Close { socket: id }));
    assert_eq!(hub.sockets().count(), 0);
}

#[test]
fn unknown_accepts_names_are_ignored_not_refused() {
    let mut hub = Hub::in_memory();
    let id = hub.open(owner(), T0);
    let out = hub.receive(id, &hello_with(&["events", "holograms", "presence"]), T0);
    assert!(matches!(only(&out, id), ServerFrame::Hello(_)));
    assert_eq!(hub.accepts(id), Some(vec!["events", "presence"]));
}

#[test]
fn context_defaults_to_40_lines_and_16000_characters() {
    let mut hub = Hub::in_memory();
    let plain = connect(&mut hub, harness(), &[]);
    assert_eq!(
        hub.context(plain),
        Some(ContextBudget {
            lines: 40,
            chars: 16_000
        })
    );

    let id = hub.open(harness(), T0);
    let hello = json!({ "frame": "hello", "protocol": { "min": 1, "max": 1 },
        "client": { "name": "n", "version": "1" }, "context": { "lines": 10 } });
    hub.receive(id, &hello.to_string(), T0);
    assert_eq!(
        hub.context(id),
        Some(ContextBudget {
            lines: 10,
            chars: 16_000
        })
    );
}

#[test]
fn hello_is_answered_with_the_tokens_one_harness() {
    let mut hub = Hub::in_memory();
    let id = hub.open(harness(), T0);
    let reply = wire(&only(&hub.receive(id, &hello_with(&[]), T0), id));
    assert_eq!(reply["frame"], "hello");
    assert_eq!(reply["harness_id"], "h_scout");
    assert_eq!(
        reply["participant"],
        json!({ "participant_id": "h_scout", "kind": "harness", "display_name": "Scout" })
    );

    let person = hub.open(member(), T0);
    let reply = wire(&only(&hub.receive(person, &hello_with(&[]), T0), person));
    assert_eq!(reply["harness_id"], Value::Null);
    assert_eq!(reply["participant"]["kind"], "person");
}

#[test]
fn a_harnesses_list_or_a_since_in_hello_is_ignored() {
    let mut hub = Hub::in_memory();
    fill(&mut hub, 3, "spc_1");
    let id = hub.open(harness(), T0);
    let hello = json!({ "frame": "hello", "protocol": { "min": 1, "max": 1 },
        "client": { "name": "n", "version": "1" }, "harnesses": ["h_other"], "since": 0, "accepts": ["events"] });
    let out = hub.receive(id, &hello.to_string(), T0);
    // Only the hello: no replay, and still the token's own harness.
    let reply = wire(&only(&out, id));
    assert_eq!(reply["harness_id"], "h_scout");
}

#[test]
fn frames_before_hello_are_invalid_frame_naming_the_key() {
    let mut hub = Hub::in_memory();
    let id = hub.open(member(), T0);
    let out = hub.receive(id, &post("spc_1", "hi", "k-1"), T0);
    assert_eq!(
        error_of(&only(&out, id)),
        (ErrorCode::InvalidFrame, Some("k-1".to_owned()))
    );
    let out = hub.receive(
        id,
        &json!({ "frame": "subscribe", "workspace_id": WS }).to_string(),
        T0,
    );
    assert_eq!(error_of(&only(&out, id)).0, ErrorCode::InvalidFrame);
    assert!(hub.log().is_empty(WS));
}

#[test]
fn a_second_hello_is_invalid_frame() {
    let mut hub = Hub::in_memory();
    let id = connect(&mut hub, member(), &[]);
    let out = hub.receive(id, &hello_with(&[]), T0);
    assert_eq!(error_of(&only(&out, id)).0, ErrorCode::InvalidFrame);
}

// ---- subscribe and replay ----

#[test]
fn subscribe_by_workspace_streams_every_live_event_as_single_frames() {
    let mut hub = Hub::in_memory();
    let reader = connect(&mut hub, owner(), &["events"]);
    let sub = hub.receive(
        reader,
        &json!({ "frame": "subscribe", "workspace_id": WS }).to_string(),
        T0,
    );
    assert!(to(&sub, reader).is_empty());
    let writer = connect(&mut hub, member(), &[]);
    let out = hub.receive(writer, &post("spc_1", "a", "k-a"), T0);
    let out2 = hub.receive(writer, &post("spc_2", "b", "k-b"), T0);
    // Live events are single event frames, even to a socket that accepts events.
    assert!(matches!(only(&out, reader), ServerFrame::Event(_)));
    assert_eq!(seqs(&only(&out, reader)), [1]);
    assert_eq!(seqs(&only(&out2, reader)), [2]);
}

#[test]
fn subscribe_by_space_streams_only_that_space() {
    let mut hub = Hub::in_memory();
    fill(&mut hub, 2, "spc_2");
    fill(&mut hub, 2, "spc_1");
    let reader = connect(&mut hub, owner(), &[]);
    let sub = hub.receive(
        reader,
        &json!({ "frame": "subscribe", "space_id": "spc_1", "since": 0 }).to_string(),
        T0,
    );
    let replayed: Vec<i64> = to(&sub, reader).iter().flat_map(seqs).collect();
    assert_eq!(replayed, [3, 4]);
    let writer = connect(&mut hub, member(), &[]);
    let other = hub.receive(writer, &post("spc_2", "x", "k-x"), T0);
    assert!(to(&other, reader).is_empty());
    let same = hub.receive(writer, &post("spc_1", "y", "k-y"), T0);
    assert_eq!(seqs(&only(&same, reader)), [6]);
}

#[test]
fn subscribe_needs_exactly_one_of_workspace_and_space() {
    let mut hub = Hub::in_memory();
    let id = connect(&mut hub, owner(), &[]);
    for frame in [
        json!({ "frame": "subscribe" }),
        json!({ "frame": "subscribe", "workspace_id": WS, "space_id": "s" }),
    ] {
        let out = hub.receive(id, &frame.to_string(), T0);
        assert_eq!(error_of(&only(&out, id)).0, ErrorCode::InvalidFrame);
    }
}

#[test]
fn subscribe_to_another_workspace_is_forbidden() {
    let mut hub = Hub::in_memory();
    let id = connect(&mut hub, owner(), &[]);
    let out = hub.receive(
        id,
        &json!({ "frame": "subscribe", "workspace_id": "ws_other" }).to_string(),
        T0,
    );
    assert_eq!(error_of(&only(&out, id)).0, ErrorCode::Forbidden);
}

#[test]
fn replay_goes_in_pages_of_at_most_500_in_seq_order_to_a_socket_that_accepts_events() {
    let mut hub = Hub::in_memory();
    fill(&mut hub, 1203, "spc_1");
    let reader = connect(&mut hub, owner(), &["events"]);
    let out = hub.receive(
        reader,
        &json!({ "frame": "subscribe", "workspace_id": WS, "since": 2 }).to_string(),
        T0,
    );
    let pages = to(&out, reader);
    assert!(
        pages.iter().all(|p| matches!(p, ServerFrame::Events(_))),
        "{pages:?}"
    );
    let sizes: Vec<usize> = pages.iter().map(|p| seqs(p).len()).collect();
    assert_eq!(sizes, [500, 500, 201]);
    let all: Vec<i64> = pages.iter().flat_map(seqs).collect();
    assert_eq!(all, (3..=1203).collect::<Vec<i64>>());
}

#[test]
fn replay_goes_as_single_event_frames_to_a_socket_that_does_not_accept_events() {
    let mut hub = Hub::in_memory();
    fill(&mut hub, 4, "spc_1");
    let reader = connect(&mut hub, owner(), &["presence"]);
    let out = hub.receive(
        reader,
        &json!({ "frame": "subscribe", "workspace_id": WS, "since": 1 }).to_string(),
        T0,
    );
    let frames = to(&out, reader);
    assert!(frames.iter().all(|f| matches!(f, ServerFrame::Event(_))));
    assert_eq!(frames.iter().flat_map(seqs).collect::<Vec<_>>(), [2, 3, 4]);
}

#[test]
fn subscribe_without_since_replays_nothing() {
    let mut hub = Hub::in_memory();
    fill(&mut hub, 4, "spc_1");
    let reader = connect(&mut hub, owner(), &["events"]);
    let out = hub.receive(
        reader,
        &json!({ "frame": "subscribe", "workspace_id": WS }).to_string(),
        T0,
    );
    assert!(to(&out, reader).is_empty());
}

#[test]
fn since_older_than_the_log_holds_is_too_far_behind() {
    let mut hub = Hub::new(Config::default(), MemoryLog::new(3));
    fill(&mut hub, 5, "spc_1");
    let reader = connect(&mut hub, owner(), &["events"]);
    let out = hub.receive(
        reader,
        &json!({ "frame": "subscribe", "workspace_id": WS, "since": 1 }).to_string(),
        T0,
    );
    assert_eq!(error_of(&only(&out, reader)).0, ErrorCode::TooFarBehind);
    // The oldest since the log can serve replays what it holds.
    let out = hub.receive(
        reader,
        &json!({ "frame": "subscribe", "workspace_id": WS, "since": 2 }).to_string(),
        T0,
    );
    assert_eq!(seqs(&only(&out, reader)), [3, 4, 5]);
}

// ---- writing events ----

#[test]
fn an_event_is_acked_with_its_seq_and_a_resend_as_duplicate_stored_once() {
    let mut hub = Hub::in_memory();
    let id = connect(&mut hub, harness(), &[]);
    let first = wire(&only(
        &hub.receive(id, &post("spc_1", "On it.", "scout-msg-7"), T0),
        id,
    ));
    assert_eq!(
        first,
        json!({ "frame": "ack", "idempotency_key": "scout-msg-7", "seq": 1, "duplicate": false })
    );
    hub.receive(id, &post("spc_1", "next", "scout-msg-8"), T0);
    // A resend, even on a new connection, is a duplicate with the first seq.
    hub.close(id, T0);
    let again = connect(&mut hub, harness(), &[]);
    let second = wire(&only(
        &hub.receive(again, &post("spc_1", "On it.", "scout-msg-7"), T0),
        again,
    ));
    assert_eq!(
        second,
        json!({ "frame": "ack", "idempotency_key": "scout-msg-7", "seq": 1, "duplicate": true })
    );
    assert_eq!(hub.log().len(WS), 2);
}

#[test]
fn the_server_fills_in_the_envelope_of_a_written_event() {
    let mut hub = Hub::in_memory();
    let id = connect(&mut hub, harness(), &[]);
    hub.receive(
        id,
        &json!({ "frame": "subscribe", "workspace_id": WS }).to_string(),
        T0,
    );
    let out = hub.receive(id, &post("spc_1", "On it.", "k"), T0 + 5);
    let event = wire(&to(&out, id)[1]);
    assert_eq!(event["frame"], "event");
    let e = &event["event"];
    assert_eq!(e["type"], "message.new");
    assert_eq!(
        (e["seq"].as_i64(), e["v"].as_i64(), e["ts"].as_i64()),
        (Some(1), Some(1), Some(T0 + 5))
    );
    assert_eq!(
        (e["workspace_id"].as_str(), e["actor"].as_str()),
        (Some(WS), Some("h_scout"))
    );
    assert_eq!(e["from"]["kind"], "harness");
    assert_eq!(e["idempotency_key"], "k");
}

#[test]
fn an_event_without_its_own_key_is_invalid_frame() {
    let mut hub = Hub::in_memory();
    let id = connect(&mut hub, member(), &[]);
    let bare = json!({ "frame": "event", "event": { "type": "message.post", "space_id": "s", "text": "t" } });
    assert_eq!(
        error_of(&only(&hub.receive(id, &bare.to_string(), T0), id)),
        (ErrorCode::InvalidFrame, None)
    );
    let beside = json!({ "frame": "event", "idempotency_key": "k", "event": { "type": "message.post", "space_id": "s", "text": "t" } });
    assert_eq!(
        error_of(&only(&hub.receive(id, &beside.to_string(), T0), id)).0,
        ErrorCode::InvalidFrame
    );
    assert!(hub.log().is_empty(WS));
}

#[test]
fn an_invalid_event_is_invalid_event_naming_its_key() {
    let mut hub = Hub::in_memory();
    let id = connect(&mut hub, member(), &[]);
    let empty_text = post("spc_1", "", "k-empty");
    let out = hub.receive(id, &empty_text, T0);
    let ServerFrame::Error(e) = only(&out, id) else {
        panic!("{out:?}")
    };
    assert_eq!(
        (e.code, e.idempotency_key.as_deref()),
        (ErrorCode::InvalidEvent, Some("k-empty"))
    );
    assert!(e.message.contains("→ at event.text"), "{}", e.message);
    let unknown = json!({ "frame": "event", "event": { "type": "message.burn", "idempotency_key": "k-burn" } });
    let out = hub.receive(id, &unknown.to_string(), T0);
    assert_eq!(
        error_of(&only(&out, id)),
        (ErrorCode::InvalidEvent, Some("k-burn".to_owned()))
    );
    assert!(hub.log().is_empty(WS));
}

#[test]
fn an_unreadable_frame_is_invalid_frame_and_the_socket_goes_on() {
    let mut hub = Hub::in_memory();
    let id = connect(&mut hub, member(), &[]);
    for text in [
        "{\"frame\":",
        "",
        "null",
        "[]",
        "42",
        "{\"frame\":\"teleport\"}",
        "{\"frame\":\"events\",\"events\":[]}",
        "\u{0}",
    ] {
        let out = hub.receive(id, text, T0);
        assert_eq!(
            error_of(&only(&out, id)).0,
            ErrorCode::InvalidFrame,
            "{text:?}"
        );
    }
    let too_large = Incoming::TooLarge(FrameTooLarge {
        size: 2_000_000,
        limit: 1_048_576,
    });
    assert_eq!(
        error_of(&only(&hub.receive_incoming(id, &too_large, T0), id)).0,
        ErrorCode::InvalidFrame
    );
    let value = Incoming::Value(json!({ "frame": "ping", "ts": 7 }));
    assert_eq!(
        wire(&only(&hub.receive_incoming(id, &value, T0), id)),
        json!({ "frame": "pong", "ts": 7 })
    );
}

#[test]
fn frames_for_an_unknown_socket_are_dropped() {
    let mut hub = Hub::in_memory();
    let id = connect(&mut hub, member(), &[]);
    hub.close(id, T0);
    assert!(hub.receive(id, &post("s", "t", "k"), T0).is_empty());
    assert!(hub.log().is_empty(WS));
}

// ---- liveness ----

#[test]
fn a_ping_is_answered_with_a_pong_echoing_its_timestamp() {
    let mut hub = Hub::in_memory();
    let id = hub.open(member(), T0);
    let out = hub.receive(
        id,
        &json!({ "frame": "ping", "ts": 1_790_000_000_000_i64 }).to_string(),
        T0,
    );
    assert_eq!(
        wire(&only(&out, id)),
        json!({ "frame": "pong", "ts": 1_790_000_000_000_i64 })
    );
}

#[test]
fn every_socket_is_pinged_every_20_seconds() {
    let config = Config {
        idle_timeout: None,
        ..Config::default()
    };
    let mut hub = Hub::new(config, MemoryLog::default());
    let a = connect(&mut hub, member(), &[]);
    let b = connect(&mut hub, harness(), &[]);
    assert!(hub.tick(T0 + 19_999).is_empty());
    let out = hub.tick(T0 + 20_000);
    assert_eq!(
        wire(&only(&out, a)),
        json!({ "frame": "ping", "ts": T0 + 20_000 })
    );
    assert_eq!(to(&out, b).len(), 1);
    assert!(hub.tick(T0 + 39_999).is_empty());
    assert_eq!(hub.tick(T0 + 40_000).len(), 2);
}

#[test]
fn a_socket_silent_past_the_idle_timeout_is_closed() {
    let mut hub = Hub::in_memory();
    let quiet = connect(&mut hub, member(), &[]);
    let chatty = connect(&mut hub, owner(), &[]);
    hub.receive(
        chatty,
        &json!({ "frame": "pong", "ts": 1 }).to_string(),
        T0 + 50_000,
    );
    let out = hub.tick(T0 + 60_000);
    assert!(out.contains(&Action::Close { socket: quiet }));
    assert!(!out.contains(&Action::Close { socket: chatty }));
}

// ---- frames gated by accepts, now or never ----

fn presence(connected: bool) -> Presence {
    Presence::new("h_other", PresenceState::new(connected, T0))
}

#[test]
fn presence_goes_only_to_peoples_sockets_that_accept_it_never_to_a_guests() {
    let mut hub = Hub::in_memory();
    let person = connect(&mut hub, member(), &["presence"]);
    let deaf = connect(&mut hub, owner(), &["events"]);
    let guest = connect(&mut hub, guest(), &["presence"]);
    let harness = connect(&mut hub, harness(), &["presence"]);
    let out = hub.notify(WS, Notice::Presence(presence(true)));
    assert!(matches!(only(&out, person), ServerFrame::Presence(_)));
    for s in [deaf, guest, harness] {
        assert!(to(&out, s).is_empty(), "{s:?}");
    }
}

#[test]
fn a_harness_arriving_and_leaving_is_presence() {
    let mut hub = Hub::in_memory();
    let person = connect(&mut hub, member(), &["presence"]);
    let guest = connect(&mut hub, guest(), &["presence"]);
    let h = hub.open(harness(), T0);
    let out = hub.receive(h, &hello_with(&[]), T0 + 1);
    let p = wire(&only(&out, person));
    assert_eq!(
        p,
        json!({ "frame": "presence", "participant_id": "h_scout", "state": { "connected": true, "since": T0 + 1 } })
    );
    assert!(to(&out, guest).is_empty());
    // A second socket of the same harness changes nothing; the last one leaving does.
    let h2 = connect(&mut hub, harness(), &[]);
    assert!(hub.close(h, T0 + 2).is_empty());
    let out = hub.close(h2, T0 + 3);
    assert_eq!(wire(&only(&out, person))["state"]["connected"], false);
}

fn join_request() -> JoinRequest {
    JoinRequest::new(
        "r",
        "harness",
        "waiting",
        "usr_x",
        ["read".into()],
        ["events".into()],
        "https://x",
    )
}

#[test]
fn join_goes_only_to_owners_and_admins_that_accept_it() {
    let mut hub = Hub::in_memory();
    let o = connect(&mut hub, owner(), &["join"]);
    let a = connect(&mut hub, admin(), &["join"]);
    let m = connect(&mut hub, member(), &["join"]);
    let g = connect(&mut hub, guest(), &["join"]);
    let h = connect(&mut hub, harness(), &["join"]);
    let deaf = connect(&mut hub, owner(), &[]);
    let out = hub.notify(WS, Notice::Join(join_request()));
    assert!(matches!(only(&out, o), ServerFrame::Join(_)));
    assert!(matches!(only(&out, a), ServerFrame::Join(_)));
    for s in [m, g, h, deaf] {
        assert!(to(&out, s).is_empty(), "{s:?}");
    }
}

/// Every harness-bound notice, with the accepts name that gates it.
fn harness_notices(harness_id: &str) -> Vec<(&'static str, Notice)> {
    let h = harness_id.to_owned();
    vec![
        (
            "restart",
            Notice::Restart {
                harness_id: h.clone(),
                restart: Restart::new("usr_dana", T0),
            },
        ),
        (
            "context",
            Notice::ContextEdit(ContextEdit::new(
                "e",
                h.clone(),
                "AGENTS.md",
                "hi",
                "abc",
                "usr_dana",
                T0,
            )),
        ),
        (
            "models",
            Notice::ModelChange(ModelChange::new(
                "c",
                h.clone(),
                "a",
                None,
                None,
                "usr_dana",
                T0,
            )),
        ),
        (
            "heartbeats",
            Notice::HeartbeatChange(HeartbeatChange::new(
                "c",
                h.clone(),
                "a",
                true,
                60,
                "usr_dana",
                T0,
            )),
        ),
        (
            "context_windows",
            Notice::ContextWindowCompact(ContextWindowCompact::new(
                "c",
                h.clone(),
                "a",
                "usr_dana",
                T0,
            )),
        ),
        (
            "context_windows",
            Notice::ContextWindowChange(ContextWindowChange::new("c", h, "a", 80, "usr_dana", T0)),
        ),
    ]
}

#[test]
fn harness_frames_go_only_to_that_harnesss_sockets_that_accept_them() {
    let all = [
        "restart",
        "context",
        "models",
        "heartbeats",
        "context_windows",
        "presence",
        "join",
        "events",
    ];
    for (gate, notice) in harness_notices("h_scout") {
        let mut hub = Hub::in_memory();
        let yes = connect(&mut hub, harness(), &[gate]);
        let deaf = connect(&mut hub, harness(), &["events"]);
        let other = connect(&mut hub, Identity::harness(WS, "h_other", "Other"), &all);
        let owner = connect(&mut hub, owner(), &all);
        let elsewhere = connect(
            &mut hub,
            Identity::harness("ws_2", "h_scout", "Scout"),
            &all,
        );
        let out = hub.notify(WS, notice);
        let frame = wire(&only(&out, yes));
        assert!(frame["frame"].as_str().is_some(), "{frame}");
        for s in [deaf, other, owner, elsewhere] {
            assert!(to(&out, s).is_empty(), "{gate}: {s:?}");
        }
    }
}

#[test]
fn now_or_never_frames_are_not_in_the_log_and_a_reconnect_never_hears_them() {
    let mut hub = Hub::in_memory();
    let all = [
        "restart",
        "context",
        "models",
        "heartbeats",
        "context_windows",
        "presence",
        "join",
        "events",
    ];
    fill(&mut hub, 2, "spc_1");
    for (_, notice) in harness_notices("h_scout") {
        hub.notify(WS, notice);
    }
    hub.notify(WS, Notice::Join(join_request()));
    hub.notify(WS, Notice::Presence(presence(false)));
    assert_eq!(hub.log().len(WS), 2);
    for identity in [harness(), owner()] {
        let again = connect(&mut hub, identity, &all);
        let out = hub.receive(
            again,
            &json!({ "frame": "subscribe", "workspace_id": WS, "since": 0 }).to_string(),
            T0,
        );
        let frames = to(&out, again);
        assert_eq!(frames.len(), 1);
        assert_eq!(seqs(&frames[0]), [1, 2]);
    }
}

#[test]
fn the_log_trait_serves_a_custom_retention() {
    let mut log = MemoryLog::new(2);
    assert_eq!(log.head(WS), Ok(0));
    let mut hub = Hub::new(Config::default(), std::mem::take(&mut log));
    fill(&mut hub, 3, "s");
    assert_eq!(hub.log().len(WS), 2);
    assert_eq!(hub.log().read(WS, 1, 10).unwrap().len(), 2);
    assert!(hub.log().read(WS, 0, 10).is_err());
    assert_eq!(hub.log().find_key(WS, "usr_mo", "fill-s-0"), Ok(Some(1)));
}

#[test]
fn the_log_forgets_the_oldest_keys_past_its_key_retention() {
    let log = MemoryLog::new(2).with_key_retain(3);
    let mut hub = Hub::new(Config::default(), log);
    fill(&mut hub, 5, "s");
    assert_eq!(hub.log().len(WS), 2);
    assert_eq!(hub.log().key_count(WS), 3);
    assert_eq!(hub.log().find_key(WS, "usr_mo", "fill-s-1"), Ok(None));
    // A key outlives its event: seq 3 was dropped, its key is still known.
    assert_eq!(hub.log().find_key(WS, "usr_mo", "fill-s-2"), Ok(Some(3)));
    assert_eq!(hub.log().find_key(WS, "usr_mo", "fill-s-4"), Ok(Some(5)));
    // A resend of a remembered key is a duplicate; of a forgotten one, a new event.
    let id = connect(&mut hub, member(), &[]);
    let ack =
        |hub: &mut Hub, key: &str| wire(&only(&hub.receive(id, &post("s", "x", key), T0), id));
    assert_eq!(ack(&mut hub, "fill-s-2")["duplicate"], true);
    let again = ack(&mut hub, "fill-s-0");
    assert_eq!(
        (again["seq"].as_i64(), again["duplicate"].as_bool()),
        (Some(6), Some(false))
    );
    assert_eq!(hub.log().key_count(WS), 3);
}

#[test]
fn the_log_keeps_at_least_a_key_per_event_it_holds() {
    let mut hub = Hub::new(Config::default(), MemoryLog::new(4).with_key_retain(1));
    fill(&mut hub, 6, "s");
    assert_eq!(hub.log().key_count(WS), 4);
    assert_eq!(hub.log().find_key(WS, "usr_mo", "fill-s-2"), Ok(Some(3)));
    // By default a workspace keeps ten keys per event it keeps.
    let mut hub = Hub::new(Config::default(), MemoryLog::new(1));
    fill(&mut hub, 12, "s");
    assert_eq!(hub.log().key_count(WS), MemoryLog::KEYS_PER_EVENT);
}

#[test]
fn an_error_leaves_out_a_key_the_schema_refuses() {
    let mut hub = Hub::in_memory();
    let id = connect(&mut hub, member(), &[]);
    let long = "k".repeat(201);
    let out = hub.receive(id, &post("spc_1", "t", &long), T0);
    let frame = only(&out, id);
    assert_eq!(error_of(&frame), (ErrorCode::InvalidFrame, None));
    // What the hub sends always parses as a server frame.
    contracts::connect::parse_server_frame(&serde_json::to_string(&frame).unwrap()).unwrap();
}

#[test]
fn context_budget_default_is_the_schemas() {
    assert_eq!(
        ContextBudget::default(),
        ContextBudget {
            lines: 40,
            chars: 16_000
        }
    );
}

#[test]
fn every_corpus_input_before_and_after_hello_is_answered_without_a_panic() {
    let mut inputs = Vec::new();
    for file in ["connect.jsonl", "derived/connect.jsonl", "agent.jsonl"] {
        let path = format!("{}/../tests/corpus/{file}", env!("CARGO_MANIFEST_DIR"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            inputs.push(match line.get("raw").and_then(Value::as_str) {
                Some(raw) => raw.to_owned(),
                None => line["input"].to_string(),
            });
        }
    }
    assert!(inputs.len() > 30);
    let mut hub = Hub::in_memory();
    let mut fresh = hub.open(member(), T0);
    let ready = connect(&mut hub, owner(), &KNOWN);
    for (i, text) in inputs.iter().enumerate() {
        for socket in [fresh, ready] {
            let out = hub.receive(socket, text, T0 + i as i64);
            // Each answer is valid (checked by `to`); a socket is closed only by a failed hello.
            if to(&out, socket).is_empty() {
                // Unanswered: only a pong, or a subscribe with nothing to replay.
                let frame = contracts::connect::parse_client_frame(text).map(|f| f.tag());
                assert!(matches!(frame, Ok("pong" | "subscribe")), "{text}");
            }
            if out.contains(&Action::Close { socket }) {
                assert!(text.contains("hello"), "{text}");
            }
        }
        // A socket that said hello or was closed is replaced, so every input meets both states.
        if hub.identity(fresh).is_none() || hub.protocol(fresh).is_some() {
            hub.close(fresh, T0);
            fresh = hub.open(member(), T0);
        }
    }
}

const KNOWN: [&str; 8] = [
    "events",
    "presence",
    "restart",
    "join",
    "context",
    "models",
    "heartbeats",
    "context_windows",
];

// ---- cursors the log cannot honour, pages by size, pacing ----

fn subscribe_since(since: i64) -> String {
    json!({ "frame": "subscribe", "workspace_id": WS, "since": since }).to_string()
}

#[test]
fn since_ahead_of_the_head_is_not_found_never_silence() {
    let mut hub = Hub::in_memory();
    let reader = connect(&mut hub, owner(), &["events"]);
    // An empty log (a server that lost its tail, or a cursor from another server).
    let (code, _) = error_of(&only(
        &hub.receive(reader, &subscribe_since(151), T0),
        reader,
    ));
    assert_eq!(code, ErrorCode::NotFound);
    fill(&mut hub, 3, "s");
    let (code, _) = error_of(&only(&hub.receive(reader, &subscribe_since(4), T0), reader));
    assert_eq!(code, ErrorCode::NotFound);
    // Not subscribed: a later write is not heard; resuming from 0 replays the log and goes live.
    let w = connect(&mut hub, member(), &[]);
    assert!(to(&hub.receive(w, &post("s", "x", "k9"), T0), reader).is_empty());
    let out = hub.receive(reader, &subscribe_since(0), T0);
    assert_eq!(seqs(&only(&out, reader)), [1, 2, 3, 4]);
    assert_eq!(
        seqs(&only(&hub.receive(w, &post("s", "x", "k10"), T0), reader)),
        [5]
    );
    // At the head exactly: nothing to replay, and live.
    let again = connect(&mut hub, owner(), &["events"]);
    assert!(to(&hub.receive(again, &subscribe_since(5), T0), again).is_empty());
}

#[test]
fn pages_are_cut_by_bytes_too_and_never_exceed_the_frame_limit() {
    let config = Config {
        max_frame_bytes: 64 * 1024,
        replay_budget: usize::MAX,
        ..Config::default()
    };
    let mut hub = Hub::new(config, MemoryLog::default());
    let w = connect(&mut hub, member(), &[]);
    let text = "x".repeat(5_000);
    for i in 0..60 {
        hub.receive(w, &post("s", &text, &format!("big-{i}")), T0);
    }
    for accepts in [&["events"][..], &[][..]] {
        let reader = connect(&mut hub, owner(), accepts);
        let frames = to(&hub.receive(reader, &subscribe_since(0), T0), reader);
        assert!(frames.len() > 1);
        for f in &frames {
            assert!(serde_json::to_string(f).unwrap().len() <= 64 * 1024);
        }
        let all: Vec<i64> = frames.iter().flat_map(seqs).collect();
        assert_eq!(all, (1..=60).collect::<Vec<_>>());
    }
}

#[test]
fn a_replay_is_paced_by_its_budget_and_live_events_wait_for_it() {
    let config = Config {
        max_frame_bytes: 16 * 1024,
        replay_budget: 1,
        ..Config::default()
    };
    let mut hub = Hub::new(config, MemoryLog::default());
    let w = connect(&mut hub, member(), &[]);
    let text = "y".repeat(3_000);
    for i in 0..20 {
        hub.receive(w, &post("s", &text, &format!("p-{i}")), T0);
    }
    let reader = connect(&mut hub, owner(), &["events"]);
    let mut got: Vec<i64> = to(&hub.receive(reader, &subscribe_since(0), T0), reader)
        .iter()
        .flat_map(seqs)
        .collect();
    let mut n = 20;
    while hub.replaying(reader) {
        // A write while the replay is under way is not sent live: the replay reaches it.
        n += 1;
        let live = hub.receive(w, &post("s", "z", &format!("p-{n}")), T0);
        assert!(to(&live, reader).is_empty());
        got.extend(to(&hub.pump(reader), reader).iter().flat_map(seqs));
        assert!(n < 200, "the replay never caught up: {got:?}");
    }
    assert_eq!(got, (1..=n).collect::<Vec<_>>());
    // Caught up: live again.
    let live = hub.receive(w, &post("s", "z", "p-last"), T0);
    assert_eq!(seqs(&only(&live, reader)), [n + 1]);
    assert!(hub.pump(reader).is_empty());
}

#[test]
fn an_event_too_large_to_ever_be_sent_is_invalid_event_before_it_is_acked() {
    let config = Config {
        max_frame_bytes: 4096,
        ..Config::default()
    };
    let mut hub = Hub::new(config, MemoryLog::default());
    let reader = connect(&mut hub, owner(), &["events"]);
    hub.receive(
        reader,
        &json!({ "frame": "subscribe", "workspace_id": WS }).to_string(),
        T0,
    );
    let w = connect(&mut hub, member(), &[]);
    // The client frame fits, but the server's frame (envelope filled in) would not.
    let text = "a".repeat(3_900);
    let out = hub.receive(w, &post("s", &text, "too-big"), T0);
    assert_eq!(
        error_of(&only(&out, w)),
        (ErrorCode::InvalidEvent, Some("too-big".to_owned()))
    );
    assert!(to(&out, reader).is_empty());
    assert!(hub.log().is_empty(WS));
    // Just under: acked, and its frame reaches the subscriber within the limit.
    let text = "a".repeat(3_000);
    let out = hub.receive(w, &post("s", &text, "fits"), T0);
    assert!(matches!(only(&out, w), ServerFrame::Ack(_)));
    let live = only(&out, reader);
    assert!(serde_json::to_string(&live).unwrap().len() <= 4096);
}

#[test]
fn no_socket_is_pinged_before_its_hello() {
    let mut hub = Hub::in_memory();
    let fresh = hub.open(member(), T0);
    let ready = connect(&mut hub, owner(), &[]);
    let out = hub.tick(T0 + 20_000);
    assert!(to(&out, fresh).is_empty(), "{out:?}");
    assert!(matches!(only(&out, ready), ServerFrame::Ping(_)));
    // The idle timeout still closes a socket that never said hello.
    let out = hub.tick(T0 + 60_000);
    assert!(out.contains(&Action::Close { socket: fresh }));
}

/// A log whose store fails: nothing is acked, the writer is told `internal` with its key.
#[derive(Default)]
struct Broken;

impl EventLog for Broken {
    fn head(&self, _: &str) -> Result<i64, LogError> {
        Ok(0)
    }
    fn find_key(&self, _: &str, _: &str, _: &str) -> Result<Option<i64>, LogError> {
        Err(LogError("disk full".into()))
    }
    fn write(
        &mut self,
        _: &str,
        _: &str,
        _: &str,
        _: &mut dyn FnMut(i64) -> contracts::connect::session::LogEntry,
    ) -> Result<Written, LogError> {
        Err(LogError("disk full".into()))
    }
    fn read(
        &self,
        _: &str,
        _: i64,
        _: usize,
    ) -> Result<Vec<contracts::connect::session::LogEntry>, ReadError> {
        Err(ReadError::Log(LogError("disk gone".into())))
    }
}

#[test]
fn a_failing_log_is_internal_and_never_acked() {
    let mut hub = Hub::new(Config::default(), Broken);
    let id = hub.open(member(), T0);
    hub.receive(id, &hello_with(&["events"]), T0);
    let out = hub.receive(id, &post("s", "x", "k1"), T0);
    assert_eq!(
        error_of(&only(&out, id)),
        (ErrorCode::Internal, Some("k1".to_owned()))
    );
    let out = hub.receive(id, &subscribe_since(0), T0);
    assert_eq!(error_of(&only(&out, id)).0, ErrorCode::Internal);
}

#[test]
fn a_pong_waits_for_the_replay_under_way_so_it_marks_its_end() {
    let config = Config {
        max_frame_bytes: 8 * 1024,
        replay_budget: 1,
        ..Config::default()
    };
    let mut hub = Hub::new(config, MemoryLog::default());
    let w = connect(&mut hub, member(), &[]);
    for i in 0..10 {
        hub.receive(w, &post("s", &"q".repeat(3_000), &format!("q-{i}")), T0);
    }
    let reader = connect(&mut hub, owner(), &["events"]);
    let mut frames = to(&hub.receive(reader, &subscribe_since(0), T0), reader);
    frames.extend(to(
        &hub.receive(
            reader,
            &json!({ "frame": "ping", "ts": 77 }).to_string(),
            T0,
        ),
        reader,
    ));
    for _ in 0..20 {
        frames.extend(to(&hub.pump(reader), reader));
    }
    let last = frames.pop();
    assert!(
        matches!(&last, Some(ServerFrame::Pong(p)) if p.ts == 77),
        "{last:?}"
    );
    assert_eq!(
        frames.iter().flat_map(seqs).collect::<Vec<_>>(),
        (1..=10).collect::<Vec<_>>()
    );
    // Live: a ping is answered at once.
    let out = hub.receive(
        reader,
        &json!({ "frame": "ping", "ts": 78 }).to_string(),
        T0,
    );
    assert!(matches!(only(&out, reader), ServerFrame::Pong(p) if p.ts == 78));
}
