//! The frame mix: a fixed set of request and server frames, built from values of the
//! generated types (so the schema stays the only place their shapes are written) and stored
//! as JSON lines under `benches/data/`, where the node benchmark reads the same bytes.
//!
//! The bench checks the stored files against these values on every run;
//! `UPDATE_EXPECT=1 cargo bench -p adecore-contracts --bench frames` rewrites them.

use contracts::agent::*;
use contracts::wire::RawJson;
use serde::Serialize;

fn request<P: Serialize>(id: u32, ty: &str, payload: &P) -> String {
    let payload = RawJson::from_value(payload).expect("a generated value serialises");
    let frame = Request::new(format!("req-{id}"), ty, payload);
    serde_json::to_string(&frame).expect("a generated value serialises")
}

const CHAT: &str = "chat-7f3a9c2e";

/// The request frames a UI sends while a person works in one chat.
pub fn requests() -> Vec<String> {
    vec![
        request(
            1,
            "chat.attach",
            &ChatAttachPayload::new(CHAT).history_limit(50).since(1204),
        ),
        request(
            2,
            "chat.history",
            &ChatHistoryPayload::new(CHAT, "h1:00000412:9f2c7d1e4b").limit(50),
        ),
        request(
            3,
            "chat.send",
            &ChatSendPayload::new(
                CHAT,
                "Can you look at why `parse_request` allocates three times per frame? \
                 The profile says it's the envelope: \"id\" and \"type\" are copied, then \
                 the payload.\nKeep the public API as it is, and add a benchmark first.",
            ),
        ),
        request(
            4,
            "chat.send",
            &ChatSendPayload::new(
                CHAT,
                "Here is the flame graph and the log — what do you think? ✨",
            )
            .attachments([
                Attachment::new(
                    "flamegraph.svg",
                    "image/svg+xml",
                    "/home/dev/work/target/criterion/frames/flamegraph.svg",
                ),
                Attachment::new("host.log", "text/plain", "/home/dev/work/host.log"),
            ]),
        ),
        request(
            5,
            "chat.approve",
            &ChatApprovePayload::new(CHAT, "item-0418", ApprovalDecision::Allow),
        ),
        request(
            6,
            "chat.approve",
            &ChatApprovePayload::new(CHAT, "item-0422", ApprovalDecision::Deny)
                .note("Not on main; make a branch first."),
        ),
        request(
            7,
            "usage.summary",
            &UsageSummaryPayload::new(1_767_225_600_000, 1_769_904_000_000),
        ),
        request(8, "chat.list", &Empty::new()),
        request(9, "chat.cancel", &ChatCancelPayload::new(CHAT)),
    ]
}

fn event<P: Serialize>(name: &str, payload: &P) -> String {
    event_frame(name, payload)
}

fn delta(seq: i64, text: &str) -> String {
    event(
        "chat.event",
        &ChatEventEvent::new(CHAT, ChatEventDelta::new("item-0431", text)).seq(seq),
    )
}

fn item(seq: i64, item: impl Into<ChatItem>) -> String {
    event(
        "chat.event",
        &ChatEventEvent::new(CHAT, ChatEventItem::new(item)).seq(seq),
    )
}

fn info() -> ChatInfo {
    ChatInfo::new(
        CHAT,
        "Envelope allocations in parse_request",
        ChatState::Waiting,
        "claude",
        1_769_810_000_000,
        1_769_813_512_345,
        [QueuedMessage::new(
            "q-17",
            "After that, run the whole test suite.",
            1_769_813_500_000,
        )],
        [
            PendingCardApproval::new(
                "item-0440",
                "toolu_01HXk2",
                "Bash",
                "cargo bench -p adecore-contracts --bench frames",
            )
            .into(),
            PendingCardApproval::new(
                "item-0441",
                "toolu_01HXk3",
                "Edit",
                "contracts/src/wire/union.rs",
            )
            .into(),
            PendingCardQuestion::new("item-0442", "Should the borrowed envelope be public API?")
                .into(),
        ],
    )
    .model("claude-sonnet-4")
    .cwd("/home/dev/work")
    .preferences(
        ChatPreferences::new()
            .auto_approve(false)
            .effort(Effort::High),
    )
    .usage(ChatUsage::new(182_344, 9_120).cost_usd(0.8123))
}

/// The server frames a UI receives while a turn streams: mostly deltas, a few items, a status.
pub fn server() -> Vec<String> {
    let tool_input = RawJson::from_value(&serde_json::json!({
        "command": "cargo bench -p adecore-contracts --bench frames -- --save-baseline before",
        "description": "Measure the frame mix before the change",
        "timeout": 600000
    }))
    .expect("JSON");
    vec![
        item(
            1301,
            ChatItemUser::new(
                "item-0430",
                "Can you look at why `parse_request` allocates three times per frame?",
                1_769_813_400_000,
            )
            .history_index(430),
        ),
        item(
            1302,
            ChatItemReply::new("item-0431", "Let me measure first.", 1_769_813_401_200)
                .history_index(431)
                .model("claude-sonnet-4")
                .streaming(true),
        ),
        delta(1303, " I'll add a criterion benchmark"),
        delta(
            1304,
            " that parses the same frames through the generated path",
        ),
        delta(1305, " and through a hand-written serde_json parse,"),
        delta(1306, " side by side, so the ratio is what we compare."),
        item(
            1307,
            ChatItemTool::new(
                "item-0432",
                "toolu_01HXk1",
                "Bash",
                tool_input,
                ToolStatus::Done,
            )
            .history_index(432)
            .output(
                "frames/requests/generated\n                        time:   [1.1021 µs 1.1043 µs 1.1067 µs]\n                        thrpt:  [8.1322 Melem/s 8.1500 Melem/s 8.1662 Melem/s]\n",
            ),
        ),
        delta(1308, "\n\nThe envelope is about a third of the time: "),
        delta(
            1309,
            "`id` and `type` are copied, then the payload is buffered.",
        ),
        item(
            1310,
            ChatItemThought::new(
                "item-0433",
                "A borrowed view would avoid the copies, but it must come from the schema.",
            )
            .history_index(433)
            .streaming(false),
        ),
        event("chat.status", &ChatStatusEvent::new(CHAT, info())),
    ]
}

/// A success reply to request `id`.
fn reply<R: Serialize>(id: u32, result: &R) -> String {
    let result = RawJson::from_value(result).expect("a generated value serialises");
    let frame = ReplyOk::new(format!("req-{id}"), result);
    serde_json::to_string(&frame).expect("a generated value serialises")
}

/// The replies a UI receives for its requests: a page of history, a send, a failure. Not in
/// the Zod mix; the Rust bench reads them as the client does (`parse_server_frame_typed`).
pub fn replies() -> Vec<String> {
    let failure = ReplyError::new(
        String::from("req-9"),
        WireError::new(ErrorCode::UnknownChat, "no chat has the id chat-0000"),
    );
    vec![
        reply(2, &history_result()),
        reply(3, &send_result()),
        serde_json::to_string(&failure).expect("a generated value serialises"),
    ]
}

/// The result the mix's chat.history (request 2) is answered with.
pub fn history_result() -> ChatHistoryResult {
    ChatHistoryResult::new(
        [
            ChatItemUser::new(
                "item-0428",
                "Which frames does the host write most?",
                1_769_813_300_000,
            )
            .history_index(428)
            .into(),
            ChatItemReply::new(
                "item-0429",
                "Events, by far: every delta of a reply is one.",
                1_769_813_301_000,
            )
            .history_index(429)
            .model("claude-sonnet-4")
            .streaming(false)
            .into(),
        ],
        HistoryPosition::new(428, String::from("c-428")),
    )
}

/// The result the mix's chat.send (requests 3 and 4) is answered with.
pub fn send_result() -> ChatSendResult {
    ChatSendResult::new(false)
}

/// The stored files and what they must hold.
pub fn files() -> [(&'static str, String); 3] {
    let lines = |frames: Vec<String>| frames.into_iter().map(|f| f + "\n").collect::<String>();
    [
        ("requests.jsonl", lines(requests())),
        ("server.jsonl", lines(server())),
        ("replies.jsonl", lines(replies())),
    ]
}
