//! The frame mix: a fixed set of request and server frames, built from values of the
//! generated types (so the schema stays the only place their shapes are written) and stored
//! as JSON lines under `benches/data/`, where the node benchmark reads the same bytes.
//!
//! The bench checks the stored files against these values on every run;
//! `UPDATE_EXPECT=1 cargo bench -p adecore-contracts --bench frames` rewrites them.

use contracts::agent::*;
use contracts::wire::RawJson;
use serde::Serialize;

fn s(v: &str) -> String {
    v.to_owned()
}

fn request<P: Serialize>(id: u32, ty: &str, payload: &P) -> String {
    let frame = Request {
        id: format!("req-{id}"),
        r#type: s(ty),
        payload: RawJson::from_value(payload).expect("a generated value serialises"),
    };
    serde_json::to_string(&frame).expect("a generated value serialises")
}

const CHAT: &str = "chat-7f3a9c2e";

/// The request frames a UI sends while a person works in one chat.
pub fn requests() -> Vec<String> {
    vec![
        request(
            1,
            "chat.attach",
            &ChatAttachPayload {
                chat_id: s(CHAT),
                history_limit: Some(50),
                since: Some(1204),
            },
        ),
        request(
            2,
            "chat.history",
            &ChatHistoryPayload {
                chat_id: s(CHAT),
                cursor: s("h1:00000412:9f2c7d1e4b"),
                limit: Some(50),
            },
        ),
        request(
            3,
            "chat.send",
            &ChatSendPayload {
                chat_id: s(CHAT),
                text: s(
                    "Can you look at why `parse_request` allocates three times per frame? \
                         The profile says it's the envelope: \"id\" and \"type\" are copied, then \
                         the payload.\nKeep the public API as it is, and add a benchmark first.",
                ),
                attachments: None,
            },
        ),
        request(
            4,
            "chat.send",
            &ChatSendPayload {
                chat_id: s(CHAT),
                text: s("Here is the flame graph and the log — what do you think? ✨"),
                attachments: Some(vec![
                    Attachment {
                        name: s("flamegraph.svg"),
                        media_type: s("image/svg+xml"),
                        uri: s("/home/dev/work/target/criterion/frames/flamegraph.svg"),
                    },
                    Attachment {
                        name: s("host.log"),
                        media_type: s("text/plain"),
                        uri: s("/home/dev/work/host.log"),
                    },
                ]),
            },
        ),
        request(
            5,
            "chat.approve",
            &ChatApprovePayload {
                chat_id: s(CHAT),
                item_id: s("item-0418"),
                decision: ApprovalDecision::Allow,
                note: None,
            },
        ),
        request(
            6,
            "chat.approve",
            &ChatApprovePayload {
                chat_id: s(CHAT),
                item_id: s("item-0422"),
                decision: ApprovalDecision::Deny,
                note: Some(s("Not on main; make a branch first.")),
            },
        ),
        request(
            7,
            "usage.summary",
            &UsageSummaryPayload {
                from: 1_767_225_600_000,
                to: 1_769_904_000_000,
            },
        ),
        request(8, "chat.list", &Empty {}),
        request(9, "chat.cancel", &ChatCancelPayload { chat_id: s(CHAT) }),
    ]
}

fn event<P: Serialize>(name: &str, payload: &P) -> String {
    event_frame(name, payload)
}

fn delta(seq: i64, text: &str) -> String {
    event(
        "chat.event",
        &ChatEventEvent {
            chat_id: s(CHAT),
            event: ChatEvent::Delta(ChatEventDelta {
                item_id: s("item-0431"),
                text: s(text),
            }),
            seq: Some(seq),
        },
    )
}

fn item(seq: i64, item: ChatItem) -> String {
    event(
        "chat.event",
        &ChatEventEvent {
            chat_id: s(CHAT),
            event: ChatEvent::Item(ChatEventItem { item }),
            seq: Some(seq),
        },
    )
}

fn info() -> ChatInfo {
    ChatInfo {
        chat_id: s(CHAT),
        title: s("Envelope allocations in parse_request"),
        state: ChatState::Waiting,
        provider: s("claude"),
        model: Some(s("claude-sonnet-4")),
        cwd: Some(s("/home/dev/work")),
        created_at: 1_769_810_000_000,
        updated_at: 1_769_813_512_345,
        queued: vec![QueuedMessage {
            queued_id: s("q-17"),
            text: s("After that, run the whole test suite."),
            queued_at: 1_769_813_500_000,
        }],
        requests: vec![
            PendingCard::Approval(PendingCardApproval {
                item_id: s("item-0440"),
                tool_use_id: s("toolu_01HXk2"),
                tool: s("Bash"),
                summary: s("cargo bench -p adecore-contracts --bench frames"),
            }),
            PendingCard::Approval(PendingCardApproval {
                item_id: s("item-0441"),
                tool_use_id: s("toolu_01HXk3"),
                tool: s("Edit"),
                summary: s("contracts/src/wire/union.rs"),
            }),
            PendingCard::Question(PendingCardQuestion {
                item_id: s("item-0442"),
                question: s("Should the borrowed envelope be public API?"),
            }),
        ],
        forked_from: None,
        preferences: Some(ChatPreferences {
            auto_approve: Some(false),
            effort: Some(Effort::High),
            show_thoughts: None,
        }),
        usage: Some(ChatUsage {
            input_tokens: 182_344,
            output_tokens: 9_120,
            cost_usd: Some(0.8123),
        }),
    }
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
            ChatItem::User(ChatItemUser {
                id: s("item-0430"),
                history_index: Some(430),
                text: s("Can you look at why `parse_request` allocates three times per frame?"),
                attachments: None,
                created_at: 1_769_813_400_000,
            }),
        ),
        item(
            1302,
            ChatItem::Reply(ChatItemReply {
                id: s("item-0431"),
                history_index: Some(431),
                text: s("Let me measure first."),
                model: Some(s("claude-sonnet-4")),
                streaming: Some(true),
                created_at: 1_769_813_401_200,
            }),
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
            ChatItem::Tool(ChatItemTool {
                id: s("item-0432"),
                history_index: Some(432),
                tool_use_id: s("toolu_01HXk1"),
                name: s("Bash"),
                input: tool_input,
                output: Some(s(
                    "frames/requests/generated\n                        time:   [1.1021 µs 1.1043 µs 1.1067 µs]\n                        thrpt:  [8.1322 Melem/s 8.1500 Melem/s 8.1662 Melem/s]\n",
                )),
                status: ToolStatus::Done,
            }),
        ),
        delta(1308, "\n\nThe envelope is about a third of the time: "),
        delta(
            1309,
            "`id` and `type` are copied, then the payload is buffered.",
        ),
        item(
            1310,
            ChatItem::Thought(ChatItemThought {
                id: s("item-0433"),
                history_index: Some(433),
                text: s(
                    "A borrowed view would avoid the copies, but it must come from the schema.",
                ),
                streaming: Some(false),
            }),
        ),
        event(
            "chat.status",
            &ChatStatusEvent {
                chat_id: s(CHAT),
                info: Box::new(info()),
            },
        ),
    ]
}

/// A success reply to request `id`.
fn reply<R: Serialize>(id: u32, result: &R) -> String {
    let frame = ReplyOk {
        id: format!("req-{id}"),
        result: RawJson::from_value(result).expect("a generated value serialises"),
    };
    serde_json::to_string(&frame).expect("a generated value serialises")
}

/// The replies a UI receives for its requests: a page of history, a send, a failure. Not in
/// the Zod mix; the Rust bench reads them as the client does (`parse_server_frame_typed`).
pub fn replies() -> Vec<String> {
    let failure = ReplyError {
        id: Some(s("req-9")),
        error: WireError {
            code: ErrorCode::UnknownChat,
            message: s("no chat has the id chat-0000"),
        },
    };
    vec![
        reply(
            2,
            &ChatHistoryResult {
                items: vec![
                    ChatItem::User(ChatItemUser {
                        id: s("item-0428"),
                        history_index: Some(428),
                        text: s("Which frames does the host write most?"),
                        attachments: None,
                        created_at: 1_769_813_300_000,
                    }),
                    ChatItem::Reply(ChatItemReply {
                        id: s("item-0429"),
                        history_index: Some(429),
                        text: s("Events, by far: every delta of a reply is one."),
                        model: Some(s("claude-sonnet-4")),
                        streaming: Some(false),
                        created_at: 1_769_813_301_000,
                    }),
                ],
                history: HistoryPosition {
                    start: 428,
                    cursor: Some(s("c-428")),
                },
            },
        ),
        reply(3, &ChatSendResult { queued: false }),
        serde_json::to_string(&failure).expect("a generated value serialises"),
    ]
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
