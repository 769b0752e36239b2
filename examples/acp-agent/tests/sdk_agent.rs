//! Our generated Rust ACP client drives the official TypeScript SDK's example agent
//! (`tests/acp-sdk/example-agent.mjs`, served by `@agentclientprotocol/sdk` 2.4.0's own agent
//! connection) over its stdio: a `ClientHandler` served with `acp::ClientSide` on a
//! `contracts::rpc` connection over an `NdjsonPort` on the child's pipes, and the generated
//! `ClientCalls` over the connection's `Peer`. Every message the agent sends is read by our
//! tables (an update or request they refused would be answered with an error or dropped, and
//! the sequence below would not match).
//!
//! Three prompts, each in a session of its own: the permission allowed, rejected, and
//! answered `cancelled` after `session/cancel` (the turn then ends `cancelled`); and a prompt
//! to a session the agent does not know, refused with `-32002`. When a prompt's call returns,
//! every update of its turn has been heard (the agent sends them before its answer, and the
//! connection resolves an answer only after the notifications before it). The node process
//! must exit with status 0 once the connection is closed.
//!
//! Skipped, saying so, only when `node` is missing; runs `npm ci` in `tests/acp-sdk` when it
//! has no `node_modules` yet.

use contracts::acp::{
    self, CancelNotification, ClientCalls, ClientCapabilities, ContentBlock,
    FileSystemCapabilities, Implementation, InitializeRequest, JsonRpcError, NewSessionRequest,
    PromptRequest, RequestPermissionOutcome, RequestPermissionOutcomeCancelled,
    RequestPermissionRequest, RequestPermissionResponse, SelectedPermissionOutcome,
    SessionNotification, SessionUpdate, StopReason, TextContent,
};
use contracts::port::{NdjsonOptions, NdjsonPort};
use contracts::rpc::{self, Options, Peer};
use contracts::wire::CallError;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use test_support::{has, npm, root};

/// What the editor answers a permission request with, by session: `session-1` allows,
/// `session-2` rejects, `session-3` cancels its turn first and answers `cancelled`.
fn choice(session: &str) -> &'static str {
    match session {
        "session-1" => "allow",
        "session-2" => "reject",
        _ => "cancel",
    }
}

/// Our client: answers permission requests by [`choice`]; records each update it hears
/// (`SESSION KIND ID-OR-TEXT`) and each permission request (`SESSION TOOL-CALL OPTIONS`).
struct Editor {
    agent: Peer,
    updates: Arc<Mutex<Vec<String>>>,
    permissions: Arc<Mutex<Vec<String>>>,
}

impl acp::ClientHandler for Editor {
    async fn session_update(&self, payload: SessionNotification) {
        let what = match &payload.update {
            SessionUpdate::AgentMessageChunk(c) => match &c.content {
                ContentBlock::Text(t) => t.text.clone(),
                other => format!("{other:?}"),
            },
            SessionUpdate::ToolCall(call) => format!(
                "{} {}",
                call.tool_call_id,
                call.status.map(|s| s.to_string()).unwrap_or_default()
            ),
            SessionUpdate::ToolCallUpdate(u) => format!(
                "{} {}",
                u.tool_call_id,
                u.status
                    .flatten()
                    .map(|s| s.to_string())
                    .unwrap_or_default()
            ),
            _ => String::new(),
        };
        let line = format!("{} {} {what}", payload.session_id, payload.update.tag());
        self.updates.lock().unwrap().push(line);
    }

    async fn session_request_permission(
        &self,
        payload: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, JsonRpcError> {
        let options: Vec<&str> = payload
            .options
            .iter()
            .map(|o| o.option_id.as_str())
            .collect();
        self.permissions.lock().unwrap().push(format!(
            "{} {} {}",
            payload.session_id,
            payload.tool_call.tool_call_id,
            options.join("/")
        ));
        let outcome: RequestPermissionOutcome = match choice(&payload.session_id) {
            "cancel" => {
                // As ACP says: cancel the turn, then answer the pending request `cancelled`.
                ClientCalls(&self.agent)
                    .session_cancel(CancelNotification::new(&payload.session_id))
                    .await
                    .map_err(|e| JsonRpcError::internal_error(e.to_string()))?;
                RequestPermissionOutcome::Cancelled(RequestPermissionOutcomeCancelled::new())
            }
            option => SelectedPermissionOutcome::new(option).into(),
        };
        Ok(RequestPermissionResponse::new(outcome))
    }
}

/// The example turn's updates in session `s`, whose permission is answered by [`choice`].
fn turn_updates(s: &str) -> Vec<String> {
    let mut updates = vec![
        format!(
            "{s} agent_message_chunk I'll help you with that. Let me start by reading some files to understand the current situation."
        ),
        format!("{s} tool_call call_1 pending"),
        format!("{s} tool_call_update call_1 completed"),
        format!(
            "{s} agent_message_chunk  Now I understand the project structure. I need to make some changes to improve it."
        ),
        format!("{s} tool_call call_2 pending"),
    ];
    match choice(s) {
        "allow" => updates.extend([
            format!("{s} tool_call_update call_2 completed"),
            format!("{s} agent_message_chunk  Perfect! I've successfully updated the configuration. The changes have been applied."),
        ]),
        "reject" => updates.push(format!(
            "{s} agent_message_chunk  I understand you prefer not to make that change. I'll skip the configuration update."
        )),
        _ => {}
    }
    updates
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_drives_the_sdk_example_agent() {
    if !has("node") {
        eprintln!("SKIPPED the ACP SDK's example agent: node is not installed");
        return;
    }
    let dir = root().join("tests/acp-sdk");
    if !dir.join("node_modules").exists() {
        npm(&dir, &["ci", "--no-audit", "--no-fund"]);
    }
    let mut child = tokio::process::Command::new("node")
        .arg("example-agent.mjs")
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    let port = NdjsonPort::from_parts(
        child.stdout.take().expect("piped stdout"),
        child.stdin.take().expect("piped stdin"),
        &NdjsonOptions::default(),
    );
    let heard = Arc::new(Mutex::new(Vec::new()));
    let permissions = Arc::new(Mutex::new(Vec::new()));
    let (updates, asked) = (heard.clone(), permissions.clone());
    let agent = rpc::connect(port, Options::acp(), move |peer| {
        acp::ClientSide(Editor {
            agent: peer,
            updates,
            permissions: asked,
        })
    });
    let calls = ClientCalls(&agent);

    let run = async {
        let init = calls
            .initialize(
                InitializeRequest::new(acp::PROTOCOL_VERSION)
                    .client_capabilities(
                        ClientCapabilities::new().fs(FileSystemCapabilities::new()
                            .read_text_file(false)
                            .write_text_file(false)),
                    )
                    .client_info(Implementation::new("acp-agent-tests", "0.1.0")),
            )
            .await
            .expect("initialize");
        assert_eq!(init.protocol_version, 1);
        let info = init.agent_info.flatten().expect("agentInfo");
        assert_eq!(info.name, "sdk-example-agent");

        let mut stops = Vec::new();
        for expected in ["session-1", "session-2", "session-3"] {
            let session = calls
                .session_new(NewSessionRequest::new("/project", Vec::new()))
                .await
                .expect("session/new")
                .session_id;
            assert_eq!(session, expected);
            let text: ContentBlock = TextContent::new("Update the configuration.").into();
            let answer = calls
                .session_prompt(PromptRequest::new(&session, vec![text]))
                .await
                .expect("session/prompt");
            stops.push(answer.stop_reason);
            // Every update of the turn was heard before its answer resolved.
            let updates = std::mem::take(&mut *heard.lock().unwrap());
            assert_eq!(updates, turn_updates(&session), "{session}");
        }
        assert_eq!(
            stops,
            [
                StopReason::EndTurn,
                StopReason::EndTurn,
                StopReason::Cancelled
            ]
        );

        let text: ContentBlock = TextContent::new("hi").into();
        match calls
            .session_prompt(PromptRequest::new("session-9", vec![text]))
            .await
        {
            Err(CallError::Call(e)) => {
                let e = e.remote().expect("the agent's error");
                assert_eq!(e.code, -32002, "{e}");
                assert_eq!(
                    e.data,
                    Some(serde_json::json!({ "sessionId": "session-9" }))
                );
            }
            other => panic!("expected the agent's -32002, got {other:?}"),
        }
    };
    tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the conversation ends within a minute");

    assert_eq!(
        *permissions.lock().unwrap(),
        [
            "session-1 call_2 allow/reject",
            "session-2 call_2 allow/reject",
            "session-3 call_2 allow/reject",
        ]
    );

    // Closing the connection ends the agent's input: it exits on its own.
    agent.close();
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("the agent exits once its input ends")
        .expect("the agent's status");
    assert!(status.success(), "{status}");
    assert_eq!(
        *heard.lock().unwrap(),
        Vec::<String>::new(),
        "no update after the turns"
    );
}
