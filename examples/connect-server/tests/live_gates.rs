//! The "now or never" frames made to happen through the admin routes and heard live over a
//! socket: restart and presence `restarting` until the harness is back, `trouble`, join and
//! `GET /v1/join`, the change frames and the harness's answers, runs and receipts.

mod common;

use common::{Client, DataDir, host_of, http, server};
use contracts::connect::{ErrorCode, ReceiptOutcome, ServerFrame};
use serde_json::json;

/// The next frame of a kind, skipping presence and events on the way.
async fn next_of(c: &mut Client, tag: &str) -> ServerFrame {
    for _ in 0..20 {
        let f = c.next().await.expect("the connection stays up");
        if f.tag() == tag {
            return f;
        }
    }
    panic!("no {tag} frame")
}

#[tokio::test]
async fn a_restart_request_reaches_the_harness_and_people_see_restarting_until_it_is_back() {
    let data = DataDir::new("restart");
    let (_s, url) = server(&["--data-dir", &data.arg()]);
    let host = host_of(&url);
    let mut dana = Client::hello(&url, "dana-token", &["presence"]).await;
    let mut guest = Client::hello(&url, "gus-token", &["presence"]).await;
    let mut scout = Client::hello(&url, "scout-token", &["restart"]).await;
    let ServerFrame::Presence(p) = next_of(&mut dana, "presence").await else {
        unreachable!()
    };
    assert!(p.state.connected && p.state.restarting.is_none());
    // A guest may not ask; a member may.
    assert_eq!(
        http(
            &host,
            "POST",
            "/v1/admin/restart?harness_id=h_scout",
            Some("gus-token"),
            ""
        )
        .0,
        403
    );
    assert_eq!(
        http(
            &host,
            "POST",
            "/v1/admin/restart?harness_id=h_scout",
            None,
            ""
        )
        .0,
        401
    );
    let (status, body) = http(
        &host,
        "POST",
        "/v1/admin/restart?harness_id=h_scout",
        Some("mo-token"),
        "",
    );
    assert_eq!(
        (status, body["sent"].as_i64().map(|n| n >= 2)),
        (200, Some(true)),
        "{body}"
    );
    let ServerFrame::Restart(r) = next_of(&mut scout, "restart").await else {
        unreachable!()
    };
    assert_eq!(r.asked_by, "usr_mo");
    let ServerFrame::Presence(p) = next_of(&mut dana, "presence").await else {
        unreachable!()
    };
    assert_eq!(
        p.state.restarting.as_ref().map(|r| r.by.as_str()),
        Some("usr_mo")
    );
    // The harness runs its restart: away (still restarting), then back (restarting ends).
    drop(scout);
    let ServerFrame::Presence(p) = next_of(&mut dana, "presence").await else {
        unreachable!()
    };
    assert!(!p.state.connected && p.state.restarting.is_some());
    let _scout = Client::hello(&url, "scout-token", &["restart"]).await;
    let ServerFrame::Presence(p) = next_of(&mut dana, "presence").await else {
        unreachable!()
    };
    assert!(p.state.connected && p.state.restarting.is_none());
    // Trouble, set and cleared.
    assert_eq!(
        http(
            &host,
            "POST",
            "/v1/admin/trouble?harness_id=h_scout",
            Some("dana-token"),
            "disk full"
        )
        .0,
        200
    );
    let ServerFrame::Presence(p) = next_of(&mut dana, "presence").await else {
        unreachable!()
    };
    assert_eq!(p.state.trouble.as_deref(), Some("disk full"));
    assert_eq!(
        http(
            &host,
            "POST",
            "/v1/admin/trouble?harness_id=h_scout",
            Some("dana-token"),
            ""
        )
        .0,
        200
    );
    let ServerFrame::Presence(p) = next_of(&mut dana, "presence").await else {
        unreachable!()
    };
    assert_eq!(p.state.trouble, None);
    // The guest never heard any presence.
    guest.send(json!({ "frame": "ping", "ts": 9 }));
    assert!(matches!(guest.next().await, Some(ServerFrame::Pong(_))));
}

#[tokio::test]
async fn join_requests_go_to_owners_that_accept_them_and_get_v1_join_lists_the_waiting() {
    let data = DataDir::new("join");
    let (_s, url) = server(&["--data-dir", &data.arg()]);
    let host = host_of(&url);
    let mut dana = Client::hello(&url, "dana-token", &["join"]).await;
    let request = json!({
        "request_id": "jr_1", "kind": "harness", "state": "waiting", "started_by": "usr_dana",
        "wants": ["workspace"], "capabilities": [], "url": "https://example.test/join/jr_1",
    });
    assert_eq!(
        http(
            &host,
            "POST",
            "/v1/admin/join",
            Some("mo-token"),
            &request.to_string()
        )
        .0,
        403
    );
    let (status, body) = http(
        &host,
        "POST",
        "/v1/admin/join",
        Some("dana-token"),
        &request.to_string(),
    );
    assert_eq!((status, body["sent"].as_i64()), (200, Some(1)));
    let ServerFrame::Join(j) = next_of(&mut dana, "join").await else {
        unreachable!()
    };
    assert_eq!(j.request.request_id, "jr_1");
    // After a reconnect, GET /v1/join reads what is waiting.
    let (status, list) = http(&host, "GET", "/v1/join", Some("dana-token"), "");
    assert_eq!(status, 200);
    assert_eq!(list["requests"][0]["request_id"], "jr_1");
    assert_eq!(http(&host, "GET", "/v1/join", Some("mo-token"), "").0, 403);
    assert_eq!(http(&host, "GET", "/v1/join", None, "").0, 401);
    assert_eq!(
        http(&host, "GET", "/v1/nothing", Some("dana-token"), "").0,
        404
    );
    let approved = json!({ "state": "approved" });
    let mut done = request.clone();
    done["state"] = approved["state"].clone();
    http(
        &host,
        "POST",
        "/v1/admin/join",
        Some("dana-token"),
        &done.to_string(),
    );
    let (_, list) = http(&host, "GET", "/v1/join", Some("dana-token"), "");
    assert_eq!(list["requests"], json!([]));
    // A body that is not a join request is a 400 naming why.
    let (status, body) = http(&host, "POST", "/v1/admin/join", Some("dana-token"), "{}");
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn change_frames_reach_the_harness_that_accepts_them_and_it_answers_with_its_copy() {
    let data = DataDir::new("changes");
    let (_s, url) = server(&["--data-dir", &data.arg()]);
    let host = host_of(&url);
    let mut scout = Client::hello(
        &url,
        "scout-token",
        &["models", "context", "context_windows"],
    )
    .await;
    let mut dana = Client::hello(&url, "dana-token", &[]).await;
    dana.send(json!({ "frame": "subscribe", "workspace_id": "ws_demo" }));
    let change = json!({ "frame": "model.change", "change_id": "chg_1", "harness_id": "h_scout",
        "agent_id": "ag_1", "model": null, "effort": "high", "asked_by": "usr_dana", "asked_at": 1 });
    let (_, body) = http(
        &host,
        "POST",
        "/v1/admin/notify",
        Some("dana-token"),
        &change.to_string(),
    );
    assert_eq!(body["sent"], 1);
    let ServerFrame::ModelChange(m) = next_of(&mut scout, "model.change").await else {
        unreachable!()
    };
    assert_eq!(m.change_id, "chg_1");
    // A heartbeat.change is gated by `heartbeats`, which this harness did not say.
    let beat = json!({ "frame": "heartbeat.change", "change_id": "chg_2", "harness_id": "h_scout",
        "agent_id": "ag_1", "on": true, "every": 60, "asked_by": "usr_dana", "asked_at": 1 });
    let (_, body) = http(
        &host,
        "POST",
        "/v1/admin/notify",
        Some("dana-token"),
        &beat.to_string(),
    );
    assert_eq!(body["sent"], 0);
    // The answer names the change; one nobody sent is not_found.
    let copy = json!({ "frame": "event", "event": { "type": "agent.copy", "change_id": "chg_1",
        "agent_id": "ag_1", "model": null, "effort": "high", "idempotency_key": "ans-1" } });
    scout.send(copy);
    assert!(matches!(scout.answer().await, ServerFrame::Ack(a) if !a.duplicate));
    let ServerFrame::Event(e) = next_of(&mut dana, "event").await else {
        unreachable!()
    };
    assert_eq!(e.event.tag(), "agent.copied");
    let stray = json!({ "frame": "event", "event": { "type": "agent.copy", "change_id": "chg_2",
        "agent_id": "ag_1", "idempotency_key": "ans-2" } });
    scout.send(stray);
    let ServerFrame::Error(err) = scout.answer().await else {
        panic!("a stray answer was acked")
    };
    assert_eq!(
        (err.code, err.idempotency_key.as_deref()),
        (ErrorCode::NotFound, Some("ans-2"))
    );
    // A compaction is answered twice: started, then done.
    let compact = json!({ "frame": "context_window.compact", "change_id": "chg_3", "harness_id": "h_scout",
        "agent_id": "ag_1", "asked_by": "usr_dana", "asked_at": 1 });
    http(
        &host,
        "POST",
        "/v1/admin/notify",
        Some("dana-token"),
        &compact.to_string(),
    );
    next_of(&mut scout, "context_window.compact").await;
    for (n, stage) in ["started", "done"].iter().enumerate() {
        scout.send(
            json!({ "frame": "event", "event": { "type": "agent.copy", "change_id": "chg_3",
            "agent_id": "ag_1", "compaction": stage, "idempotency_key": format!("cmp-{n}") } }),
        );
        assert!(
            matches!(scout.answer().await, ServerFrame::Ack(_)),
            "{stage}"
        );
    }
    // A context edit, answered with the copy; a person cannot answer for the harness.
    let edit = json!({ "frame": "context.edit", "edit_id": "ed_1", "harness_id": "h_scout",
        "name": "AGENTS.md", "text": "be brief", "base_hash": "h0", "asked_by": "usr_dana", "asked_at": 1 });
    http(
        &host,
        "POST",
        "/v1/admin/notify",
        Some("dana-token"),
        &edit.to_string(),
    );
    next_of(&mut scout, "context.edit").await;
    let answer = |key: &str| {
        json!({ "frame": "event", "event": { "type": "context.copy", "edit_id": "ed_1",
        "name": "AGENTS.md", "text": "be brief", "hash": "h1", "idempotency_key": key } })
    };
    dana.send(answer("p-1"));
    let ServerFrame::Error(err) = dana.answer().await else {
        panic!("a person answered for a harness")
    };
    assert_eq!(err.code, ErrorCode::Forbidden);
    scout.send(answer("c-1"));
    assert!(matches!(scout.answer().await, ServerFrame::Ack(_)));
    // A frame notify does not send is a 400.
    let (status, _) = http(
        &host,
        "POST",
        "/v1/admin/notify",
        Some("dana-token"),
        r#"{"frame":"ping","ts":1}"#,
    );
    assert_eq!(status, 400);
}

#[tokio::test]
async fn a_mid_run_message_gets_a_receipt_queued_or_steered() {
    let data = DataDir::new("runs");
    let (_s, url) = server(&["--data-dir", &data.arg()]);
    let mut scout = Client::hello(&url, "scout-token", &[]).await;
    let mut dana = Client::hello(&url, "dana-token", &[]).await;
    // No run: a plain ack, no receipt.
    let ServerFrame::Ack(_) = dana.post("spc_1", "before", "m-0").await else {
        panic!()
    };
    scout.send(json!({ "frame": "event", "event": { "type": "run.start", "space_id": "spc_1", "idempotency_key": "run-a" } }));
    let ServerFrame::Ack(start) = scout.answer().await else {
        panic!("run.start refused")
    };
    let run_id = format!("run_{}", start.seq);
    // A person cannot start a run.
    dana.send(json!({ "frame": "event", "event": { "type": "run.start", "space_id": "spc_2", "idempotency_key": "run-p" } }));
    assert!(matches!(dana.answer().await, ServerFrame::Error(e) if e.code == ErrorCode::Forbidden));
    let ServerFrame::Ack(_) = dana.post("spc_1", "later please", "m-1").await else {
        panic!()
    };
    let ServerFrame::Receipt(r) = next_of(&mut dana, "receipt").await else {
        unreachable!()
    };
    assert_eq!(
        (r.idempotency_key.as_str(), r.run_id.as_str(), r.outcome),
        ("m-1", run_id.as_str(), ReceiptOutcome::Queued)
    );
    dana.send(json!({ "frame": "event", "event": { "type": "message.post", "space_id": "spc_1", "text": "now", "run_id": run_id, "idempotency_key": "m-2" } }));
    assert!(matches!(dana.answer().await, ServerFrame::Ack(_)));
    let ServerFrame::Receipt(r) = next_of(&mut dana, "receipt").await else {
        unreachable!()
    };
    assert_eq!(r.outcome, ReceiptOutcome::Steered);
    scout.send(json!({ "frame": "event", "event": { "type": "run.finish", "run_id": run_id, "idempotency_key": "run-a-done" } }));
    assert!(matches!(scout.answer().await, ServerFrame::Ack(_)));
    // After the run, a post naming it is not_found and a plain one has no receipt.
    dana.send(json!({ "frame": "event", "event": { "type": "message.post", "space_id": "spc_1", "text": "late", "run_id": run_id, "idempotency_key": "m-3" } }));
    assert!(matches!(dana.answer().await, ServerFrame::Error(e) if e.code == ErrorCode::NotFound));
    let ServerFrame::Ack(_) = dana.post("spc_1", "after", "m-4").await else {
        panic!()
    };
    dana.send(json!({ "frame": "ping", "ts": 7 }));
    assert!(
        matches!(dana.next().await, Some(ServerFrame::Pong(_))),
        "no receipt after the run"
    );
}

/// Pings `c` and reads to the pong: every frame queued for it before the ping came first.
/// Answers the tags of the frames that did (pings aside).
async fn drain(c: &mut Client, ts: i64) -> Vec<&'static str> {
    c.send(json!({ "frame": "ping", "ts": ts }));
    let mut before = Vec::new();
    for _ in 0..50 {
        match c.next().await.expect("the connection stays up") {
            ServerFrame::Pong(p) if p.ts == ts => return before,
            f => before.push(f.tag()),
        }
    }
    panic!("no pong for {ts}")
}

/// Every gate the admin routes can trip, one by one: of two sockets of the same participant,
/// the one whose hello accepts the capability hears the frame and the one that does not never
/// does (`sent` counts one socket, and a ping round trip on the other finds nothing before its
/// pong); the harness answers each change with its copy.
#[tokio::test]
async fn each_gate_live_only_a_socket_that_accepts_it_hears_its_frame() {
    let data = DataDir::new("each-gate");
    let (_s, url) = server(&["--data-dir", &data.arg()]);
    let host = host_of(&url);
    let mut owner = Client::hello(&url, "dana-token", &["presence", "join"]).await;
    let mut owner_without = Client::hello(&url, "dana-token", &[]).await;
    let all = [
        "restart",
        "context",
        "models",
        "heartbeats",
        "context_windows",
    ];
    let mut harness = Client::hello(&url, "scout-token", &all).await;
    let mut harness_without = Client::hello(&url, "scout-token", &[]).await;
    // The harness's sockets came up: presence to the owner that accepts it only.
    next_of(&mut owner, "presence").await;
    assert!(!drain(&mut owner_without, 1).await.contains(&"presence"));
    let notify = |frame: serde_json::Value| {
        let (status, body) = http(
            &host,
            "POST",
            "/v1/admin/notify",
            Some("dana-token"),
            &frame.to_string(),
        );
        assert_eq!((status, body["sent"].as_i64()), (200, Some(1)), "{frame}");
    };
    let at = json!(1_767_225_600_000i64);
    let changes = [
        (
            json!({ "frame": "context.edit", "edit_id": "ed_9", "harness_id": "h_scout",
                "name": "AGENTS.md", "text": "be brief", "base_hash": "h0", "asked_by": "usr_dana", "asked_at": at }),
            json!({ "type": "context.refuse", "edit_id": "ed_9", "reason": "managed elsewhere" }),
        ),
        (
            json!({ "frame": "model.change", "change_id": "chg_m", "harness_id": "h_scout", "agent_id": "ag_1",
                "model": "large", "effort": null, "asked_by": "usr_dana", "asked_at": at }),
            json!({ "type": "agent.copy", "change_id": "chg_m", "agent_id": "ag_1", "model": "large", "effort": null }),
        ),
        (
            json!({ "frame": "heartbeat.change", "change_id": "chg_h", "harness_id": "h_scout", "agent_id": "ag_1",
                "on": true, "every": 60, "asked_by": "usr_dana", "asked_at": at }),
            json!({ "type": "agent.copy", "change_id": "chg_h", "agent_id": "ag_1",
                "heartbeat": { "on": true, "every": 60 } }),
        ),
        (
            json!({ "frame": "context_window.compact", "change_id": "chg_c", "harness_id": "h_scout",
                "agent_id": "ag_1", "asked_by": "usr_dana", "asked_at": at }),
            json!({ "type": "agent.copy", "change_id": "chg_c", "agent_id": "ag_1", "compaction": "done" }),
        ),
        (
            json!({ "frame": "context_window.change", "change_id": "chg_w", "harness_id": "h_scout",
                "agent_id": "ag_1", "at": 80, "asked_by": "usr_dana", "asked_at": at }),
            json!({ "type": "agent.copy", "change_id": "chg_w", "agent_id": "ag_1", "compact_at": 80 }),
        ),
    ];
    for (n, (frame, mut answer)) in changes.into_iter().enumerate() {
        let tag = frame["frame"].as_str().unwrap().to_owned();
        notify(frame);
        assert_eq!(next_of(&mut harness, &tag).await.tag(), tag);
        assert_eq!(
            drain(&mut harness_without, 10 + n as i64).await,
            Vec::<&str>::new(),
            "{tag}"
        );
        answer["idempotency_key"] = json!(format!("answer-{n}"));
        harness.send(json!({ "frame": "event", "event": answer }));
        assert!(
            matches!(harness.answer().await, ServerFrame::Ack(a) if !a.duplicate),
            "the answer to {tag}"
        );
    }
    // Restart: to the harness socket that accepts it; presence `restarting` to the owner's.
    let (status, _) = http(
        &host,
        "POST",
        "/v1/admin/restart?harness_id=h_scout",
        Some("dana-token"),
        "",
    );
    assert_eq!(status, 200);
    next_of(&mut harness, "restart").await;
    assert_eq!(drain(&mut harness_without, 20).await, Vec::<&str>::new());
    let ServerFrame::Presence(p) = next_of(&mut owner, "presence").await else {
        unreachable!()
    };
    assert!(p.state.restarting.is_some());
    // Trouble: presence to the owner's socket that accepts it.
    http(
        &host,
        "POST",
        "/v1/admin/trouble?harness_id=h_scout",
        Some("dana-token"),
        "out of disk",
    );
    let ServerFrame::Presence(p) = next_of(&mut owner, "presence").await else {
        unreachable!()
    };
    assert_eq!(p.state.trouble.as_deref(), Some("out of disk"));
    // Join: to the owner's socket that accepts it, one socket.
    let request = json!({
        "request_id": "jr_9", "kind": "harness", "state": "waiting", "started_by": "usr_dana",
        "wants": ["workspace"], "capabilities": [], "url": "https://example.test/join/jr_9",
    });
    let (status, body) = http(
        &host,
        "POST",
        "/v1/admin/join",
        Some("dana-token"),
        &request.to_string(),
    );
    assert_eq!((status, body["sent"].as_i64()), (200, Some(1)));
    next_of(&mut owner, "join").await;
    // The owner's socket without capabilities heard none of it: presence, restart, join.
    assert_eq!(drain(&mut owner_without, 30).await, Vec::<&str>::new());
}
