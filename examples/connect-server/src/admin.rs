//! The HTTP routes beside `/v1/ws` on the same listener: `GET /v1/join` (the spec's), and the
//! reference server's admin requests, which make the "now or never" frames happen so each gate
//! can be tried live over a socket.
//!
//! Every route takes the caller's token as `Authorization: Bearer TOKEN` (or `?token=`), and
//! acts in the token's workspace. Answers are JSON: `{"sent": N}` (how many sockets a frame went
//! to), the join list, or `{"error": "..."}` with a 4xx status.
//!
//! | route | who | what |
//! |---|---|---|
//! | `GET /v1/join` | owner, admin | the join requests waiting (`JoinList`) |
//! | `POST /v1/admin/restart?harness_id=H` | a person (not a guest) | asks H to restart: `restart` to H, `restarting` in presence until H reconnects |
//! | `POST /v1/admin/trouble?harness_id=H` | owner, admin | body: text for people to read (empty clears it): presence `trouble` |
//! | `POST /v1/admin/join` | owner, admin | body: a `JoinRequest`; state `waiting` keeps it for `GET /v1/join`, any other ends it |
//! | `POST /v1/admin/notify` | owner, admin | body: a `context.edit`, `model.change`, `heartbeat.change`, `context_window.compact` or `context_window.change` server frame, sent to its harness with `asked_by` (the caller) and `asked_at` (the server's clock) filled in, whatever the body says; the harness answers it with a client event |

use contracts::connect::session::{EventLog, Identity, Notice, Role};
use contracts::connect::{JoinList, JoinRequest, ServerFrame, parse_server_frame};
use serde_json::{Value, json};

use crate::State;
use crate::http::Head;

/// A route's answer: a status and a JSON body.
pub type Answer = (u16, Value);

fn error(status: u16, message: impl Into<String>) -> Answer {
    (status, json!({ "error": message.into() }))
}

/// Who may call a route.
#[derive(Clone, Copy)]
enum May {
    /// Owners and admins.
    Manage,
    /// Any person but a guest.
    Person,
}

fn allowed(identity: &Identity, may: May) -> bool {
    matches!(
        (identity.role(), may),
        (Some(Role::Owner | Role::Admin), _) | (Some(Role::Member), May::Person)
    )
}

/// Answers one HTTP request that is not a WebSocket upgrade.
pub fn route<L: EventLog>(
    state: &mut State<L>,
    identity: Option<&Identity>,
    head: &Head,
    body: &[u8],
    now: i64,
) -> Answer {
    let may = match (head.method.as_str(), head.path.as_str()) {
        ("GET", "/v1/join") => May::Manage,
        ("POST", "/v1/admin/restart") => May::Person,
        ("POST", "/v1/admin/trouble" | "/v1/admin/join" | "/v1/admin/notify") => May::Manage,
        (
            _,
            "/v1/join" | "/v1/admin/restart" | "/v1/admin/trouble" | "/v1/admin/join"
            | "/v1/admin/notify",
        ) => {
            return error(
                405,
                format!("{} is not allowed on {}", head.method, head.path),
            );
        }
        _ => {
            return error(
                404,
                format!(
                    "nothing at {}: the WebSocket is on {}",
                    head.path,
                    crate::PATH
                ),
            );
        }
    };
    let Some(identity) = identity else {
        return error(
            401,
            "no known token: send Authorization: Bearer TOKEN or ?token=TOKEN",
        );
    };
    if !allowed(identity, may) {
        return error(
            403,
            format!("{} may not call {}", identity.participant_id(), head.path),
        );
    }
    let workspace_id = identity.workspace_id.clone();
    let text = match std::str::from_utf8(body) {
        Ok(t) => t,
        Err(_) => return error(400, "the body is not UTF-8"),
    };
    let harness = || head.param("harness_id").filter(|h| !h.is_empty());
    let actions = match head.path.as_str() {
        "/v1/join" => {
            let list = JoinList::new(state.hub.waiting_joins(&workspace_id));
            return (200, serde_json::to_value(list).unwrap_or(Value::Null));
        }
        "/v1/admin/restart" => {
            let Some(h) = harness() else {
                return error(400, "name the harness: ?harness_id=H");
            };
            state
                .hub
                .request_restart(&workspace_id, &h, identity.participant_id(), now)
        }
        "/v1/admin/trouble" => {
            let Some(h) = harness() else {
                return error(400, "name the harness: ?harness_id=H");
            };
            let trouble = Some(text.trim().to_owned()).filter(|t| !t.is_empty());
            state.hub.set_trouble(&workspace_id, &h, trouble)
        }
        "/v1/admin/join" => match contracts::wire::from_str::<JoinRequest>(text) {
            Ok(request) => state.hub.join(&workspace_id, request),
            Err(e) => return error(400, format!("not a join request: {e}")),
        },
        _ => match notice_of(text, identity.participant_id(), now) {
            Ok(notice) => state.hub.notify(&workspace_id, notice),
            Err(message) => return error(400, message),
        },
    };
    let sent = state.apply(actions);
    (200, json!({ "sent": sent }))
}

/// The frames `/v1/admin/notify` sends, by their `frame` tag.
const NOTICES: &[&str] = &[
    "context.edit",
    "model.change",
    "heartbeat.change",
    "context_window.compact",
    "context_window.change",
];

/// The notice a server frame given to `/v1/admin/notify` stands for, asked by `asked_by` at
/// `now`: the server says who asked and when, whatever the body says (it may leave them out).
fn notice_of(text: &str, asked_by: &str, now: i64) -> Result<Notice, String> {
    let mut value: Value =
        serde_json::from_str(text).map_err(|e| format!("not a server frame: {e}"))?;
    if let Some(fields) = value.as_object_mut()
        && fields
            .get("frame")
            .and_then(Value::as_str)
            .is_some_and(|tag| NOTICES.contains(&tag))
    {
        fields.insert("asked_by".to_owned(), json!(asked_by));
        fields.insert("asked_at".to_owned(), json!(now));
    }
    let frame =
        parse_server_frame(&value.to_string()).map_err(|e| format!("not a server frame: {e}"))?;
    Ok(match frame {
        ServerFrame::ContextEdit(f) => Notice::ContextEdit(f),
        ServerFrame::ModelChange(f) => Notice::ModelChange(f),
        ServerFrame::HeartbeatChange(f) => Notice::HeartbeatChange(f),
        ServerFrame::ContextWindowCompact(f) => Notice::ContextWindowCompact(f),
        ServerFrame::ContextWindowChange(f) => Notice::ContextWindowChange(f),
        other => {
            return Err(format!(
                "a {} frame is not sent from here: notify takes context.edit, model.change, heartbeat.change and context_window.*",
                other.tag()
            ));
        }
    })
}
