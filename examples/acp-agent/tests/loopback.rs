//! The agent driven in one process: a test client (an editor with files, a `ClientHandler`)
//! calls it through the generated `ClientCalls` over a loopback to the agent's dispatcher,
//! and the agent reaches the editor through a loopback `Call` to the editor's. Every message
//! goes through the tables both ways (written, read, checked), as it would over stdio.

use acp_agent::{ALLOW, Agent, Options, REJECT};
use contracts::acp::{
    self, CancelNotification, ClientCalls, ClientCapabilities, CloseSessionRequest, ContentBlock,
    ErrorCode, FileSystemCapabilities, ImageContent, InitializeRequest, JsonRpcError,
    NewSessionRequest, PromptRequest, ReadTextFileRequest, ReadTextFileResponse,
    RequestPermissionOutcome, RequestPermissionOutcomeCancelled, RequestPermissionRequest,
    RequestPermissionResponse, ResourceLink, SelectedPermissionOutcome, SessionNotification,
    SessionUpdate, StopReason, TextContent, ToolCallContent,
};
use contracts::wire::{Call, CallError};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// How the editor answers a permission request.
#[derive(Clone, Copy)]
enum Choice {
    /// Picks this option.
    Pick(&'static str),
    /// Says it was asked (`Editor::asked`), waits until the test has sent `session/cancel`
    /// (`Editor::cancel_sent`), then answers `cancelled`, as ACP says a client must.
    CancelledAfterCancel,
    /// Says it was asked and never answers (a client that breaks ACP's rule above).
    Hold,
}

/// The test's client: files by path, a permission choice, and a transcript of all it heard.
struct Editor {
    files: HashMap<String, String>,
    choice: Choice,
    transcript: Mutex<Vec<String>>,
    /// Notified when the agent says it waits for `session/cancel`.
    waiting: Notify,
    /// Notified when a permission request comes (with `CancelledAfterCancel`).
    asked: Notify,
    /// Notified by the test once it has sent `session/cancel`.
    cancel_sent: Notify,
}

impl Editor {
    fn new(choice: Choice) -> Arc<Editor> {
        Arc::new(Editor {
            files: HashMap::from([
                (
                    "/p/a.txt".to_owned(),
                    "first line\nsecond line\n".to_owned(),
                ),
                ("/p/empty.txt".to_owned(), String::new()),
            ]),
            choice,
            transcript: Mutex::default(),
            waiting: Notify::new(),
            asked: Notify::new(),
            cancel_sent: Notify::new(),
        })
    }

    fn note(&self, line: String) {
        self.transcript.lock().unwrap().push(line);
    }

    /// Everything heard so far, emptied.
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.transcript.lock().unwrap())
    }
}

/// A tool call's content as text.
fn content_text(content: &Option<Option<Vec<ToolCallContent>>>) -> String {
    let mut out = String::new();
    for item in content.iter().flatten().flatten() {
        if let ToolCallContent::Content(c) = item
            && let ContentBlock::Text(t) = &c.content
        {
            out.push_str(&t.text);
        }
    }
    out
}

/// One update as a line of the transcript.
fn describe(update: &SessionUpdate) -> String {
    match update {
        SessionUpdate::AgentMessageChunk(c) | SessionUpdate::AgentThoughtChunk(c) => {
            let ContentBlock::Text(t) = &c.content else {
                return format!("{} (not text)", update.tag());
            };
            format!("{}: {}", update.tag(), t.text)
        }
        SessionUpdate::Plan(plan) => {
            let entries: Vec<String> = plan
                .entries
                .iter()
                .map(|e| format!("{}={}", e.content, e.status))
                .collect();
            format!("plan: {}", entries.join(", "))
        }
        SessionUpdate::ToolCall(call) => format!(
            "tool_call {} {} {:?} at {:?}",
            call.tool_call_id,
            call.status.map(|s| s.to_string()).unwrap_or_default(),
            call.title,
            call.locations
                .iter()
                .flatten()
                .map(|l| l.path.as_str())
                .collect::<Vec<_>>(),
        ),
        SessionUpdate::ToolCallUpdate(u) => {
            let status = u
                .status
                .flatten()
                .map(|s| s.to_string())
                .unwrap_or_default();
            let text = content_text(&u.content);
            if text.is_empty() {
                format!("tool_call_update {} {status}", u.tool_call_id)
            } else {
                format!("tool_call_update {} {status}: {text:?}", u.tool_call_id)
            }
        }
        other => other.tag().to_owned(),
    }
}

impl acp::ClientHandler for Editor {
    async fn session_update(&self, payload: SessionNotification) {
        let line = describe(&payload.update);
        if line == "agent_message_chunk: Waiting for session/cancel." {
            self.waiting.notify_one();
        }
        self.note(format!("{} {line}", payload.session_id));
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
        self.note(format!(
            "{} asks permission for {} {:?}: {}",
            payload.session_id,
            payload.tool_call.tool_call_id,
            payload
                .tool_call
                .title
                .clone()
                .flatten()
                .unwrap_or_default(),
            options.join("/")
        ));
        let outcome: RequestPermissionOutcome = match self.choice {
            Choice::Pick(option) => SelectedPermissionOutcome::new(option).into(),
            Choice::CancelledAfterCancel => {
                self.asked.notify_one();
                self.cancel_sent.notified().await;
                RequestPermissionOutcome::Cancelled(RequestPermissionOutcomeCancelled::new())
            }
            Choice::Hold => {
                self.asked.notify_one();
                std::future::pending().await
            }
        };
        Ok(RequestPermissionResponse::new(outcome))
    }

    async fn fs_read_text_file(
        &self,
        payload: ReadTextFileRequest,
    ) -> Result<ReadTextFileResponse, JsonRpcError> {
        self.note(format!("{} reads {}", payload.session_id, payload.path));
        match self.files.get(&payload.path) {
            Some(text) => Ok(ReadTextFileResponse::new(text.clone())),
            None => Err(JsonRpcError::resource_not_found(format!(
                "no file {}",
                payload.path
            ))),
        }
    }
}

/// The agent's way to the editor: each call is the editor's dispatcher's answer.
struct ToEditor(Arc<Editor>);

impl Call for ToEditor {
    type Error = JsonRpcError;
    async fn call_raw(
        &self,
        method: &'static str,
        params: Box<RawValue>,
    ) -> Result<Box<RawValue>, JsonRpcError> {
        acp::dispatch_to_client(&*self.0, method, &params).await
    }
    async fn notify_raw(
        &self,
        method: &'static str,
        params: Box<RawValue>,
    ) -> Result<(), JsonRpcError> {
        let event = acp::EventPayload::parse(method, params.get())
            .map_err(|e| JsonRpcError::invalid_params(e.to_string()))?;
        acp::notify_client(&*self.0, event).await;
        Ok(())
    }
}

/// The editor's way to the agent.
struct ToAgent<'a>(&'a Agent<ToEditor>);

impl Call for ToAgent<'_> {
    type Error = JsonRpcError;
    async fn call_raw(
        &self,
        method: &'static str,
        params: Box<RawValue>,
    ) -> Result<Box<RawValue>, JsonRpcError> {
        acp::dispatch(self.0, method, &params).await
    }
    async fn notify_raw(
        &self,
        method: &'static str,
        params: Box<RawValue>,
    ) -> Result<(), JsonRpcError> {
        let event = acp::EventPayload::parse(method, params.get())
            .map_err(|e| JsonRpcError::invalid_params(e.to_string()))?;
        acp::notify(self.0, event).await;
        Ok(())
    }
}

fn agent(editor: &Arc<Editor>, options: Options) -> Agent<ToEditor> {
    Agent::new(ToEditor(editor.clone()), options)
}

/// `initialize` with `fs.readTextFile` as given, then a session in `/p`: its id.
async fn open(calls: &ClientCalls<'_, ToAgent<'_>>, read_text_file: bool) -> String {
    let capabilities =
        ClientCapabilities::new().fs(FileSystemCapabilities::new().read_text_file(read_text_file));
    calls
        .initialize(InitializeRequest::new(1).client_capabilities(capabilities))
        .await
        .unwrap();
    calls
        .session_new(NewSessionRequest::new("/p", Vec::new()))
        .await
        .unwrap()
        .session_id
}

fn text(s: &str) -> Vec<ContentBlock> {
    vec![TextContent::new(s).into()]
}

/// The other side's error code of a failed call.
fn code<T: std::fmt::Debug>(out: Result<T, CallError<JsonRpcError>>) -> (ErrorCode, String) {
    match out {
        Err(CallError::Call(e)) => (e.code, e.message),
        other => panic!("expected the agent's error, got {other:?}"),
    }
}

#[tokio::test]
async fn initialize_announces_version_capabilities_and_the_agent() {
    let editor = Editor::new(Choice::Pick(ALLOW));
    let agent = agent(&editor, Options::default());
    let to_agent = ToAgent(&agent);
    let calls = ClientCalls(&to_agent);
    let answer = calls.initialize(InitializeRequest::new(1)).await.unwrap();
    assert_eq!(answer.protocol_version, 1);
    let caps = answer.agent_capabilities.unwrap();
    assert_eq!(caps.load_session, Some(false));
    let session = caps.session_capabilities.unwrap();
    assert!(session.close.is_some_and(|c| c.is_some()));
    assert!(session.list.is_none() && session.resume.is_none());
    let info = answer.agent_info.flatten().unwrap();
    assert_eq!(info.name, "acp-agent");
    assert_eq!(answer.auth_methods.as_deref(), Some(&[][..]));
    // A client asking for a later version gets ours.
    let answer = calls.initialize(InitializeRequest::new(7)).await.unwrap();
    assert_eq!(answer.protocol_version, 1);
}

#[tokio::test]
async fn bad_requests_get_acp_errors() {
    let editor = Editor::new(Choice::Pick(ALLOW));
    let agent = agent(
        &editor,
        Options {
            max_sessions: 1,
            ..Options::default()
        },
    );
    let to_agent = ToAgent(&agent);
    let calls = ClientCalls(&to_agent);
    assert_eq!(
        code(
            calls
                .session_new(NewSessionRequest::new("/p", Vec::new()))
                .await
        ),
        (
            ErrorCode::InvalidRequest,
            "initialize must come before session/new".to_owned()
        )
    );
    let session = open(&calls, true).await;
    assert_eq!(
        code(
            calls
                .session_new(NewSessionRequest::new("p", Vec::new()))
                .await
        ),
        (
            ErrorCode::InvalidParams,
            "cwd must be an absolute path: \"p\"".to_owned()
        )
    );
    assert_eq!(
        code(
            calls
                .session_new(NewSessionRequest::new("/q", Vec::new()))
                .await
        )
        .0,
        ErrorCode::InternalError,
        "one session is the most this agent keeps"
    );
    assert_eq!(
        code(
            calls
                .session_prompt(PromptRequest::new("sess-9", text("hi")))
                .await
        ),
        (ErrorCode::ResourceNotFound, "no session sess-9".to_owned())
    );
    let image: ContentBlock = ImageContent::new("AAAA", "image/png").into();
    let (c, message) = code(
        calls
            .session_prompt(PromptRequest::new(&session, vec![image]))
            .await,
    );
    assert_eq!(c, ErrorCode::InvalidParams);
    assert!(
        message.starts_with("prompt[0] is an `image` block"),
        "{message}"
    );
    // The table refuses what ACP refuses before the agent sees it: a prompt with no session
    // id.
    let raw = RawValue::from_string(r#"{"prompt":[]}"#.to_owned()).unwrap();
    let e = acp::dispatch(&agent, "session/prompt", &raw)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    match calls
        .session_close(CloseSessionRequest::new("sess-9"))
        .await
    {
        Err(CallError::Call(e)) => {
            assert_eq!(e.code, ErrorCode::ResourceNotFound);
            assert_eq!(e.data.unwrap().get(), r#"{"sessionId":"sess-9"}"#);
        }
        other => panic!("{other:?}"),
    }
    assert!(editor.take().is_empty(), "nothing reached the editor");
}

#[tokio::test]
async fn a_prompt_streams_a_plan_chunks_and_a_tool_call_that_reads_through_the_client() {
    let editor = Editor::new(Choice::Pick(ALLOW));
    let agent = agent(&editor, Options::default());
    let to_agent = ToAgent(&agent);
    let calls = ClientCalls(&to_agent);
    let session = open(&calls, true).await;
    assert_eq!(session, "sess-1");
    let answer = calls
        .session_prompt(PromptRequest::new(
            &session,
            text("hello\nthink about it\nread /p/a.txt"),
        ))
        .await
        .unwrap();
    assert_eq!(answer.stop_reason, StopReason::EndTurn);
    let plan = |a: &str, b: &str, c: &str| {
        format!("sess-1 plan: Answer: hello={a}, Think: about it={b}, Read /p/a.txt={c}")
    };
    assert_eq!(
        editor.take(),
        [
            plan("in_progress", "pending", "pending"),
            "sess-1 agent_message_chunk: hello".to_owned(),
            plan("completed", "in_progress", "pending"),
            "sess-1 agent_thought_chunk: about it".to_owned(),
            plan("completed", "completed", "in_progress"),
            "sess-1 tool_call call-1 pending \"Read /p/a.txt\" at [\"/p/a.txt\"]".to_owned(),
            "sess-1 asks permission for call-1 \"Read /p/a.txt\": allow/reject".to_owned(),
            "sess-1 tool_call_update call-1 in_progress".to_owned(),
            "sess-1 reads /p/a.txt".to_owned(),
            "sess-1 tool_call_update call-1 completed: \"first line\\nsecond line\\n\"".to_owned(),
            "sess-1 agent_message_chunk: /p/a.txt has 2 lines; the first reads: first line"
                .to_owned(),
            plan("completed", "completed", "completed"),
        ]
    );
    // The next read in the session is the next tool call; an empty prompt says so.
    calls
        .session_prompt(PromptRequest::new(&session, text("read /p/empty.txt")))
        .await
        .unwrap();
    let heard = editor.take();
    assert!(
        heard.contains(&"sess-1 tool_call_update call-2 completed".to_owned()),
        "{heard:#?}"
    );
    assert!(heard.contains(&"sess-1 agent_message_chunk: /p/empty.txt is empty.".to_owned()));
    let answer = calls
        .session_prompt(PromptRequest::new(&session, Vec::new()))
        .await
        .unwrap();
    assert_eq!(answer.stop_reason, StopReason::EndTurn);
    assert_eq!(
        editor.take(),
        ["sess-1 agent_message_chunk: Nothing to do: the prompt has no text."]
    );
}

#[tokio::test]
async fn a_tool_fails_when_refused_unreadable_or_not_offered_and_the_turn_goes_on() {
    let editor = Editor::new(Choice::Pick(REJECT));
    let agent = agent(&editor, Options::default());
    let to_agent = ToAgent(&agent);
    let calls = ClientCalls(&to_agent);
    let session = open(&calls, true).await;
    let answer = calls
        .session_prompt(PromptRequest::new(
            &session,
            text("read /p/a.txt\nread p/a.txt\nbye"),
        ))
        .await
        .unwrap();
    assert_eq!(answer.stop_reason, StopReason::EndTurn);
    let heard: Vec<String> = editor
        .take()
        .into_iter()
        .filter(|l| !l.contains(" plan: "))
        .collect();
    assert_eq!(
        heard,
        [
            "sess-1 tool_call call-1 pending \"Read /p/a.txt\" at [\"/p/a.txt\"]",
            "sess-1 asks permission for call-1 \"Read /p/a.txt\": allow/reject",
            "sess-1 tool_call_update call-1 failed: \"Permission refused.\"",
            "sess-1 tool_call call-2 pending \"Read p/a.txt\" at [\"p/a.txt\"]",
            "sess-1 tool_call_update call-2 failed: \"p/a.txt is not an absolute path\"",
            "sess-1 agent_message_chunk: bye",
        ]
    );

    // A file the client does not have: the client's error is the tool call's.
    let editor = Editor::new(Choice::Pick(ALLOW));
    let agent_b = self::agent(&editor, Options::default());
    let to_agent = ToAgent(&agent_b);
    let calls = ClientCalls(&to_agent);
    let session = open(&calls, true).await;
    calls
        .session_prompt(PromptRequest::new(&session, text("read /p/none.txt")))
        .await
        .unwrap();
    let heard = editor.take();
    assert!(
        heard.contains(
            &"sess-1 tool_call_update call-1 failed: \"fs/read_text_file failed: -32002: no file /p/none.txt\""
                .to_owned()
        ),
        "{heard:#?}"
    );

    // A client that does not offer fs/read_text_file is neither asked nor read from.
    let editor = Editor::new(Choice::Pick(ALLOW));
    let agent_c = self::agent(&editor, Options::default());
    let to_agent = ToAgent(&agent_c);
    let calls = ClientCalls(&to_agent);
    let session = open(&calls, false).await;
    let link: ContentBlock = ResourceLink::new("a", "file:///p/a.txt").into();
    let web: ContentBlock = ResourceLink::new("site", "https://example.com/").into();
    calls
        .session_prompt(PromptRequest::new(&session, vec![link, web]))
        .await
        .unwrap();
    let heard: Vec<String> = editor
        .take()
        .into_iter()
        .filter(|l| !l.contains(" plan: "))
        .collect();
    assert_eq!(
        heard,
        [
            "sess-1 tool_call call-1 pending \"Read /p/a.txt\" at [\"/p/a.txt\"]",
            "sess-1 tool_call_update call-1 failed: \"The client does not offer fs/read_text_file (clientCapabilities.fs.readTextFile).\"",
            "sess-1 agent_message_chunk: Cannot open site (https://example.com/): only file:// links to absolute paths are read.",
        ]
    );
}

#[tokio::test]
async fn session_cancel_ends_a_waiting_turn_with_cancelled() {
    let editor = Editor::new(Choice::Pick(ALLOW));
    let agent = agent(&editor, Options::default());
    let to_agent = ToAgent(&agent);
    let calls = ClientCalls(&to_agent);
    let session = open(&calls, true).await;
    let (answer, ()) = tokio::join!(
        calls.session_prompt(PromptRequest::new(&session, text("wait\nnever said"))),
        async {
            editor.waiting.notified().await;
            // A second prompt while one runs is refused.
            let (c, _) = code(
                calls
                    .session_prompt(PromptRequest::new(&session, text("hi")))
                    .await,
            );
            assert_eq!(c, ErrorCode::InvalidRequest);
            calls
                .session_cancel(CancelNotification::new(&session))
                .await
                .unwrap();
        }
    );
    assert_eq!(answer.unwrap().stop_reason, StopReason::Cancelled);
    let heard = editor.take();
    assert_eq!(
        heard.last().map(String::as_str),
        Some("sess-1 agent_message_chunk: Waiting for session/cancel."),
        "nothing after the cancellation: {heard:#?}"
    );
    // The session takes a prompt again; a cancel with no turn running changes nothing.
    calls
        .session_cancel(CancelNotification::new(&session))
        .await
        .unwrap();
    let answer = calls
        .session_prompt(PromptRequest::new(&session, text("again")))
        .await
        .unwrap();
    assert_eq!(answer.stop_reason, StopReason::EndTurn);
}

#[tokio::test]
async fn a_cancel_while_permission_is_asked_ends_the_turn_without_reading() {
    let editor = Editor::new(Choice::CancelledAfterCancel);
    let agent = agent(&editor, Options::default());
    let to_agent = ToAgent(&agent);
    let calls = ClientCalls(&to_agent);
    let session = open(&calls, true).await;
    let (answer, ()) = tokio::join!(
        calls.session_prompt(PromptRequest::new(
            &session,
            text("read /p/a.txt\nnever said")
        )),
        async {
            editor.asked.notified().await;
            calls
                .session_cancel(CancelNotification::new(&session))
                .await
                .unwrap();
            editor.cancel_sent.notify_one();
        }
    );
    assert_eq!(answer.unwrap().stop_reason, StopReason::Cancelled);
    let heard = editor.take();
    assert!(
        heard.last().unwrap().contains("asks permission for call-1"),
        "{heard:#?}"
    );
    assert!(!heard.iter().any(|l| l.contains(" reads ")), "{heard:#?}");
}

#[tokio::test]
async fn a_cancel_does_not_wait_for_a_permission_answer_that_never_comes() {
    let editor = Editor::new(Choice::Hold);
    let agent = agent(&editor, Options::default());
    let to_agent = ToAgent(&agent);
    let calls = ClientCalls(&to_agent);
    let session = open(&calls, true).await;
    let turn = async {
        tokio::join!(
            calls.session_prompt(PromptRequest::new(&session, text("read /p/a.txt"))),
            async {
                editor.asked.notified().await;
                calls
                    .session_cancel(CancelNotification::new(&session))
                    .await
                    .unwrap();
            }
        )
    };
    // A bound, so an agent that waited for the answer fails here instead of hanging.
    let (answer, ()) = tokio::time::timeout(Duration::from_secs(30), turn)
        .await
        .expect("the turn ends once cancelled");
    assert_eq!(answer.unwrap().stop_reason, StopReason::Cancelled);
}

#[tokio::test]
async fn the_wait_limit_ends_a_wait_and_close_cancels_a_turn() {
    let editor = Editor::new(Choice::Pick(ALLOW));
    let agent = agent(
        &editor,
        Options {
            wait_limit: Duration::ZERO,
            ..Options::default()
        },
    );
    let to_agent = ToAgent(&agent);
    let calls = ClientCalls(&to_agent);
    let session = open(&calls, true).await;
    let answer = calls
        .session_prompt(PromptRequest::new(&session, text("wait")))
        .await
        .unwrap();
    assert_eq!(answer.stop_reason, StopReason::EndTurn);
    assert!(
        editor.take().contains(
            &"sess-1 agent_message_chunk: Stopped waiting after 0 ms: no session/cancel came."
                .to_owned()
        )
    );

    let editor = Editor::new(Choice::Pick(ALLOW));
    let agent = self::agent(&editor, Options::default());
    let to_agent = ToAgent(&agent);
    let calls = ClientCalls(&to_agent);
    let session = open(&calls, true).await;
    let (answer, ()) = tokio::join!(
        calls.session_prompt(PromptRequest::new(&session, text("wait"))),
        async {
            editor.waiting.notified().await;
            calls
                .session_close(CloseSessionRequest::new(&session))
                .await
                .unwrap();
        }
    );
    assert_eq!(answer.unwrap().stop_reason, StopReason::Cancelled);
    assert_eq!(
        code(
            calls
                .session_prompt(PromptRequest::new(&session, text("hi")))
                .await
        )
        .0,
        ErrorCode::ResourceNotFound,
        "a closed session is gone"
    );
}
