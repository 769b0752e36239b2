//! One prompt turn: runs a prompt's steps against the client, streaming `session/update`
//! (the plan, message and thought chunks, a tool call and its updates), asking permission
//! and reading files through the client, and stopping as soon as the turn is cancelled.

use crate::cancel::{Cancel, Cancelled};
use crate::script::Step;
use contracts::acp::{
    Content, ContentChunk, HostCalls, JsonRpcError, PermissionOption, PermissionOptionKind, Plan,
    PlanEntry, PlanEntryPriority, PlanEntryStatus, ReadTextFileRequest, RequestPermissionOutcome,
    RequestPermissionRequest, SessionNotification, SessionUpdate, StopReason, TextContent,
    ToolCall, ToolCallLocation, ToolCallStatus, ToolCallUpdate, ToolKind,
};
use contracts::wire::{Call, RawJson};
use std::fmt::Display;
use std::time::Duration;

/// The option of a permission request that lets the tool run.
pub const ALLOW: &str = "allow";
/// The option of a permission request that refuses it.
pub const REJECT: &str = "reject";

/// What a turn needs: the way to the client, the session, and the turn's cancellation.
pub(crate) struct Turn<'a, C: ?Sized> {
    /// The client's methods, typed.
    pub client: HostCalls<'a, C>,
    /// The session this turn belongs to.
    pub session_id: &'a str,
    /// Where the session's tool call ids come from.
    pub tool_calls: &'a std::sync::atomic::AtomicU64,
    /// Set by `session/cancel`.
    pub cancel: &'a Cancel,
    /// Whether the client offers `fs/read_text_file`.
    pub can_read: bool,
    /// How long a `wait` step waits for `session/cancel`.
    pub wait_limit: Duration,
}

/// Whether the turn goes on after a step.
enum Flow {
    Next,
    Cancelled,
}

impl From<Cancelled> for Flow {
    fn from(_: Cancelled) -> Flow {
        Flow::Cancelled
    }
}

impl<C> Turn<'_, C>
where
    C: Call + ?Sized,
    C::Error: Display,
{
    /// Runs every step in order, the plan sent before each step and once all are done, and
    /// answers why the turn stopped. A cancellation ends it before the next step or during
    /// a wait on the client; an update that cannot be sent ends it with an error.
    pub async fn run(&self, steps: &[Step]) -> Result<StopReason, JsonRpcError> {
        if steps.is_empty() {
            self.say("Nothing to do: the prompt has no text.").await?;
            return Ok(StopReason::EndTurn);
        }
        for (at, step) in steps.iter().enumerate() {
            if self.cancel.is_cancelled() {
                return Ok(StopReason::Cancelled);
            }
            self.send_plan(steps, at).await?;
            let flow = match step {
                Step::Say(text) => self.say(text).await?,
                Step::Think(text) => {
                    self.send(SessionUpdate::AgentThoughtChunk(chunk(text)))
                        .await?
                }
                Step::Unreadable { name, uri } => {
                    self.say(&format!(
                        "Cannot open {name} ({uri}): only file:// links to absolute paths are read."
                    ))
                    .await?
                }
                Step::Wait => self.wait().await?,
                Step::Read(path) => self.read(path).await?,
            };
            if let Flow::Cancelled = flow {
                return Ok(StopReason::Cancelled);
            }
        }
        self.send_plan(steps, steps.len()).await?;
        Ok(StopReason::EndTurn)
    }

    /// Sends the whole plan: the steps before `at` completed, `at` in progress, the rest
    /// pending.
    async fn send_plan(&self, steps: &[Step], at: usize) -> Result<Flow, JsonRpcError> {
        let entries = steps.iter().enumerate().map(|(i, step)| {
            let status = match i.cmp(&at) {
                std::cmp::Ordering::Less => PlanEntryStatus::Completed,
                std::cmp::Ordering::Equal => PlanEntryStatus::InProgress,
                std::cmp::Ordering::Greater => PlanEntryStatus::Pending,
            };
            let priority = match step {
                Step::Read(_) => PlanEntryPriority::High,
                Step::Say(_) | Step::Unreadable { .. } => PlanEntryPriority::Medium,
                Step::Think(_) | Step::Wait => PlanEntryPriority::Low,
            };
            PlanEntry::new(step.describe(), priority, status)
        });
        self.send(Plan::new(entries.collect::<Vec<_>>())).await
    }

    /// Waits for `session/cancel`, at most the wait limit, saying so first.
    async fn wait(&self) -> Result<Flow, JsonRpcError> {
        self.say("Waiting for session/cancel.").await?;
        if let Err(cancelled) = self.cancel.race(tokio::time::sleep(self.wait_limit)).await {
            return Ok(cancelled.into());
        }
        let limit = self.wait_limit.as_millis();
        self.say(&format!(
            "Stopped waiting after {limit} ms: no session/cancel came."
        ))
        .await
    }

    /// The `read` tool: announced pending, checked, permission asked, then the file read
    /// through the client and shown in the tool call. A refusal or a failed read fails the
    /// tool call and the turn goes on; a cancellation ends it.
    async fn read(&self, path: &str) -> Result<Flow, JsonRpcError> {
        let id = format!(
            "call-{}",
            self.tool_calls
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                + 1
        );
        let title = format!("Read {path}");
        let input = raw(&serde_json::json!({ "path": path }));
        let location = ToolCallLocation::new(path);
        self.send(
            ToolCall::new(&id, &title)
                .kind(ToolKind::Read)
                .status(ToolCallStatus::Pending)
                .locations(vec![location.clone()])
                .raw_input(input.clone()),
        )
        .await?;
        if !path.starts_with('/') {
            return self
                .fail(&id, &format!("{path} is not an absolute path"))
                .await;
        }
        if !self.can_read {
            return self
                .fail(
                    &id,
                    "The client does not offer fs/read_text_file (clientCapabilities.fs.readTextFile).",
                )
                .await;
        }

        let ask = RequestPermissionRequest::new(
            self.session_id,
            ToolCallUpdate::new(&id)
                .title(title)
                .kind(ToolKind::Read)
                .status(ToolCallStatus::Pending)
                .locations(vec![location])
                .raw_input(input),
            vec![
                PermissionOption::new(ALLOW, "Allow", PermissionOptionKind::AllowOnce),
                PermissionOption::new(REJECT, "Reject", PermissionOptionKind::RejectOnce),
            ],
        );
        let answer = match self
            .cancel
            .race(self.client.session_request_permission(ask))
            .await
        {
            Err(cancelled) => return Ok(cancelled.into()),
            Ok(Err(e)) => {
                return self
                    .fail(&id, &format!("The permission request failed: {e}"))
                    .await;
            }
            Ok(Ok(answer)) => answer,
        };
        match answer.outcome {
            // A client answers so once it has sent session/cancel.
            RequestPermissionOutcome::Cancelled(_) => return Ok(Flow::Cancelled),
            RequestPermissionOutcome::Selected(s) if s.option_id == ALLOW => {}
            RequestPermissionOutcome::Selected(s) if s.option_id == REJECT => {
                return self.fail(&id, "Permission refused.").await;
            }
            RequestPermissionOutcome::Selected(s) => {
                return self
                    .fail(
                        &id,
                        &format!(
                            "The client chose an option it was not offered: {}",
                            s.option_id
                        ),
                    )
                    .await;
            }
            other => {
                return self
                    .fail(
                        &id,
                        &format!("An outcome this agent does not know: {}", other.tag()),
                    )
                    .await;
            }
        }

        self.send(ToolCallUpdate::new(&id).status(ToolCallStatus::InProgress))
            .await?;
        let read = self
            .client
            .fs_read_text_file(ReadTextFileRequest::new(self.session_id, path));
        let file = match self.cancel.race(read).await {
            Err(cancelled) => return Ok(cancelled.into()),
            Ok(Err(e)) => {
                return self
                    .fail(&id, &format!("fs/read_text_file failed: {e}"))
                    .await;
            }
            Ok(Ok(file)) => file.content,
        };
        let lines = file.lines().count();
        let summary = match file.lines().next() {
            Some(first) => format!("{path} has {lines} lines; the first reads: {first}"),
            None => format!("{path} is empty."),
        };
        self.send(
            ToolCallUpdate::new(&id)
                .status(ToolCallStatus::Completed)
                .content(vec![Content::new(TextContent::new(file)).into()])
                .raw_output(raw(&serde_json::json!({ "lines": lines }))),
        )
        .await?;
        self.say(&summary).await
    }

    /// Fails tool call `id`, its content saying why; the turn goes on.
    async fn fail(&self, id: &str, why: &str) -> Result<Flow, JsonRpcError> {
        self.send(
            ToolCallUpdate::new(id)
                .status(ToolCallStatus::Failed)
                .content(vec![Content::new(TextContent::new(why)).into()]),
        )
        .await
    }

    /// Sends a chunk of the agent's message.
    async fn say(&self, text: &str) -> Result<Flow, JsonRpcError> {
        self.send(SessionUpdate::AgentMessageChunk(chunk(text)))
            .await
    }

    /// Sends one `session/update`; one that cannot be sent ends the turn with an error.
    async fn send(&self, update: impl Into<SessionUpdate>) -> Result<Flow, JsonRpcError> {
        let update = update.into();
        let kind = update.tag();
        self.client
            .session_update(SessionNotification::new(self.session_id, update))
            .await
            .map(|()| Flow::Next)
            .map_err(|e| {
                JsonRpcError::internal_error(format!("session/update ({kind}) was not sent: {e}"))
            })
    }
}

/// A text chunk of a message or a thought.
fn chunk(text: &str) -> ContentChunk {
    ContentChunk::new(TextContent::new(text))
}

/// A JSON value as a tool call's raw input or output.
fn raw(value: &serde_json::Value) -> RawJson {
    RawJson::from_value(value).unwrap_or_else(|_| RawJson::null())
}
