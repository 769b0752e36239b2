//! The baseline: what a person would write by hand with serde_json for the payloads of the
//! frame mix, and nothing more. Plain `#[derive(Deserialize)]` mirrors of the generated types
//! (same field types, owned strings), a borrowed envelope, the payload kept as a borrowed
//! `RawValue`, then the typed payload. A benchmark baseline, not product code: it checks
//! types and required keys but none of the schema's limits.

#![allow(dead_code)]

use serde::Deserialize;
use serde_json::value::RawValue;

/// The request envelope, borrowed from the frame text.
#[derive(Deserialize)]
pub struct Envelope<'a> {
    #[serde(borrow)]
    pub id: &'a str,
    #[serde(rename = "type")]
    pub ty: &'a str,
    #[serde(borrow)]
    pub payload: &'a RawValue,
}

/// An event frame's envelope, borrowed from the frame text.
#[derive(Deserialize)]
pub struct EventEnvelope<'a> {
    #[serde(rename = "type")]
    pub ty: &'a str,
    pub event: &'a str,
    #[serde(borrow)]
    pub payload: &'a RawValue,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub name: String,
    pub media_type: String,
    pub uri: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatAttach {
    pub chat_id: String,
    pub history_limit: Option<i64>,
    pub since: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatHistory {
    pub chat_id: String,
    pub cursor: String,
    pub limit: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSend {
    pub chat_id: String,
    pub text: String,
    pub attachments: Option<Vec<Attachment>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalDecision {
    Allow,
    AllowAlways,
    Deny,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatApprove {
    pub chat_id: String,
    pub item_id: String,
    pub decision: ApprovalDecision,
    pub note: Option<String>,
}

#[derive(Deserialize)]
pub struct UsageSummary {
    pub from: i64,
    pub to: i64,
}

#[derive(Deserialize)]
pub struct Empty {}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatId {
    pub chat_id: String,
}

pub enum RequestPayload {
    ChatAttach(ChatAttach),
    ChatHistory(ChatHistory),
    ChatSend(ChatSend),
    ChatApprove(ChatApprove),
    UsageSummary(UsageSummary),
    ChatList(Empty),
    ChatCancel(ChatId),
}

/// The two stages: the borrowed envelope, then the payload by name.
pub fn parse_request(text: &str) -> Result<(&str, RequestPayload), String> {
    let env: Envelope<'_> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let p = env.payload.get();
    let payload = match env.ty {
        "chat.attach" => RequestPayload::ChatAttach(from(p)?),
        "chat.history" => RequestPayload::ChatHistory(from(p)?),
        "chat.send" => RequestPayload::ChatSend(from(p)?),
        "chat.approve" => RequestPayload::ChatApprove(from(p)?),
        "usage.summary" => RequestPayload::UsageSummary(from(p)?),
        "chat.list" => RequestPayload::ChatList(from(p)?),
        "chat.cancel" => RequestPayload::ChatCancel(from(p)?),
        other => return Err(format!("unknown request {other}")),
    };
    Ok((env.id, payload))
}

fn from<'a, T: Deserialize<'a>>(json: &'a str) -> Result<T, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatState {
    Idle,
    Running,
    Waiting,
    Failed,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueuedMessage {
    pub queued_id: String,
    pub text: String,
    pub queued_at: i64,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum PendingCard {
    #[serde(rename_all = "camelCase")]
    Approval {
        item_id: String,
        tool_use_id: String,
        tool: String,
        summary: String,
    },
    #[serde(rename_all = "camelCase")]
    Question { item_id: String, question: String },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkOrigin {
    pub chat_id: String,
    pub item_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    Low,
    Medium,
    High,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatPreferences {
    pub auto_approve: Option<bool>,
    pub effort: Option<Effort>,
    pub show_thoughts: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatUsage {
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cost_usd: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatInfo {
    pub chat_id: String,
    pub title: String,
    pub state: ChatState,
    pub provider: String,
    pub model: Option<String>,
    pub cwd: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub queued: Vec<QueuedMessage>,
    pub requests: Vec<PendingCard>,
    pub forked_from: Option<ForkOrigin>,
    pub preferences: Option<ChatPreferences>,
    pub usage: Option<ChatUsage>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    Running,
    Done,
    Failed,
    Cancelled,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ChatItem {
    #[serde(rename_all = "camelCase")]
    User {
        id: String,
        history_index: Option<i64>,
        text: String,
        attachments: Option<Vec<Attachment>>,
        created_at: i64,
    },
    #[serde(rename_all = "camelCase")]
    Reply {
        id: String,
        history_index: Option<i64>,
        text: String,
        model: Option<String>,
        streaming: Option<bool>,
        created_at: i64,
    },
    #[serde(rename_all = "camelCase")]
    Thought {
        id: String,
        history_index: Option<i64>,
        text: String,
        streaming: Option<bool>,
    },
    #[serde(rename_all = "camelCase")]
    Tool {
        id: String,
        history_index: Option<i64>,
        tool_use_id: String,
        name: String,
        // serde's internally tagged enums buffer the object, and a buffered value cannot be
        // a RawValue: a tree is what a hand-written parse gets here.
        input: serde_json::Value,
        output: Option<String>,
        status: ToolStatus,
    },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ChatEvent {
    Item {
        item: ChatItem,
    },
    #[serde(rename_all = "camelCase")]
    Delta {
        item_id: String,
        text: String,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatEventEvent {
    pub chat_id: String,
    pub event: ChatEvent,
    pub seq: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatStatus {
    pub chat_id: String,
    pub info: ChatInfo,
}

pub enum EventPayload {
    ChatEvent(ChatEventEvent),
    ChatStatus(ChatStatus),
}

/// The two stages: the borrowed event envelope, then the payload by name.
pub fn parse_event(text: &str) -> Result<EventPayload, String> {
    let env: EventEnvelope<'_> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if env.ty != "event" {
        return Err(format!("not an event: {}", env.ty));
    }
    let p = env.payload.get();
    Ok(match env.event {
        "chat.event" => EventPayload::ChatEvent(from(p)?),
        "chat.status" => EventPayload::ChatStatus(from(p)?),
        other => return Err(format!("unknown event {other}")),
    })
}

/// A reply's error, by hand.
#[derive(Deserialize)]
pub struct ReplyErrorBody {
    pub code: String,
    pub message: String,
}

/// A reply, by hand: its result kept as borrowed raw JSON (the client parses it by its
/// request's name later), or its error.
#[derive(Deserialize)]
pub struct Reply<'a> {
    #[serde(borrow)]
    pub id: Option<&'a str>,
    pub ok: bool,
    #[serde(borrow)]
    pub result: Option<&'a RawValue>,
    pub error: Option<ReplyErrorBody>,
}

pub fn parse_reply(text: &str) -> Result<Reply<'_>, String> {
    let reply: Reply<'_> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    match (reply.ok, &reply.result, &reply.error) {
        (true, Some(_), _) | (false, _, Some(_)) => Ok(reply),
        _ => Err("neither a result nor an error".to_owned()),
    }
}
