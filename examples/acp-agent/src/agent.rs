//! The agent: the generated ACP `Host` (what a client sends an agent) over the sessions it
//! keeps, holding its way back to the client as any `wire::Call` (a JSON-RPC peer, or a
//! test's loopback).

use crate::cancel::Cancel;
use crate::script;
use crate::turn::Turn;
use contracts::acp::{
    self, AgentCapabilities, CancelNotification, ClientCapabilities, CloseSessionRequest,
    CloseSessionResponse, Implementation, InitializeRequest, InitializeResponse, JsonRpcError,
    McpCapabilities, NewSessionRequest, NewSessionResponse, PROTOCOL_VERSION, PromptCapabilities,
    PromptRequest, PromptResponse, SessionCapabilities, SessionCloseCapabilities,
};
use contracts::wire::{Call, RawJson};
use std::collections::HashMap;
use std::fmt::Display;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// What the agent allows; `Options::default()` for the binary's defaults.
#[derive(Debug, Clone)]
pub struct Options {
    /// The most sessions kept at once; `session/new` beyond it is refused until one is
    /// closed.
    pub max_sessions: usize,
    /// How long a `wait` step waits for `session/cancel` before the turn goes on.
    pub wait_limit: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_sessions: 1024,
            wait_limit: Duration::from_secs(60),
        }
    }
}

/// The example agent: answers `initialize`, `session/new`, `session/prompt`, `session/close`
/// and hears `session/cancel`; `C` is its way to the client.
pub struct Agent<C> {
    client: C,
    options: Options,
    state: Mutex<State>,
}

/// What the agent knows of its client and sessions.
#[derive(Default)]
struct State {
    /// The client's capabilities, once it has sent `initialize`.
    client: Option<ClientCapabilities>,
    sessions: HashMap<String, Arc<Session>>,
    /// The number of sessions ever made (session ids are `sess-1`, `sess-2`, ...).
    made: u64,
}

/// A session: its working directory, the prompt turn running in it, and its tool call ids.
struct Session {
    cwd: String,
    /// The running turn's cancellation; `None` between turns.
    turn: Mutex<Option<Cancel>>,
    /// The tool calls made in this session so far (ids are `call-1`, `call-2`, ...).
    tool_calls: AtomicU64,
}

/// A running turn's claim on its session: cleared when the turn ends, however it ends (its
/// future dropped included), so the session takes a prompt again.
struct Running<'a>(&'a Session);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        *lock(&self.0.turn) = None;
    }
}

/// The error ACP gives for a session the agent does not know: resource not found, with the
/// session's id as its data (as the SDK's `RequestError.sessionNotFound`).
fn no_session(id: &str) -> JsonRpcError {
    let data = RawJson::from_value(&serde_json::json!({ "sessionId": id }))
        .unwrap_or_else(|_| RawJson::null());
    JsonRpcError::resource_not_found(format!("no session {id}")).data(data)
}

/// Locks a mutex; a panic elsewhere while it was held leaves plain data, still usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<C> Agent<C> {
    /// An agent with no session yet, reaching its client through `client`.
    pub fn new(client: C, options: Options) -> Self {
        Agent {
            client,
            options,
            state: Mutex::new(State::default()),
        }
    }

    /// The way to the client this agent holds.
    pub fn client(&self) -> &C {
        &self.client
    }

    /// The session called `id`.
    fn session(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.state).sessions.get(id).cloned()
    }

    /// What this agent announces in `initialize`: the baseline (text and resource links in
    /// prompts, stdio MCP servers) and `session/close`.
    fn capabilities() -> AgentCapabilities {
        AgentCapabilities::new()
            .load_session(false)
            .prompt_capabilities(
                PromptCapabilities::new()
                    .image(false)
                    .audio(false)
                    .embedded_context(false),
            )
            .mcp_capabilities(McpCapabilities::new().http(false).sse(false))
            .session_capabilities(SessionCapabilities::new().close(SessionCloseCapabilities::new()))
    }
}

impl<C> acp::Host for Agent<C>
where
    C: Call + Send + Sync,
    C::Error: Display,
{
    async fn initialize(
        &self,
        payload: InitializeRequest,
    ) -> Result<InitializeResponse, JsonRpcError> {
        lock(&self.state).client = Some(payload.client_capabilities.unwrap_or_default());
        // The client's version when it is ours, else ours: either way, v1.
        Ok(InitializeResponse::new(PROTOCOL_VERSION)
            .agent_capabilities(Self::capabilities())
            .auth_methods(Vec::new())
            .agent_info(
                Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
                    .title("ACP example agent".to_owned()),
            ))
    }

    async fn session_new(
        &self,
        payload: NewSessionRequest,
    ) -> Result<NewSessionResponse, JsonRpcError> {
        if !payload.cwd.starts_with('/') {
            return Err(JsonRpcError::invalid_params(format!(
                "cwd must be an absolute path: {:?}",
                payload.cwd
            )));
        }
        let mut state = lock(&self.state);
        if state.client.is_none() {
            return Err(JsonRpcError::invalid_request(
                "initialize must come before session/new",
            ));
        }
        if state.sessions.len() >= self.options.max_sessions {
            return Err(JsonRpcError::internal_error(format!(
                "too many sessions ({}); close one with session/close",
                state.sessions.len()
            )));
        }
        state.made += 1;
        let id = format!("sess-{}", state.made);
        // MCP servers are accepted and not connected: this agent has no tools of theirs to
        // call.
        state.sessions.insert(
            id.clone(),
            Arc::new(Session {
                cwd: payload.cwd,
                turn: Mutex::new(None),
                tool_calls: AtomicU64::new(0),
            }),
        );
        tracing::info!(session = %id, "session made");
        Ok(NewSessionResponse::new(id))
    }

    async fn session_prompt(&self, payload: PromptRequest) -> Result<PromptResponse, JsonRpcError> {
        // Over a JSON-RPC connection with ACP's `$/cancel_request`: one naming this prompt
        // ends the turn as `session/cancel` does (its pending updates sent, answered with the
        // stop reason `cancelled`, ACP's cancellation marker for a prompt) instead of
        // aborting it with -32800. Taken first, so a cancel that comes at once is not missed.
        let by_request = contracts::rpc::take_cancellation();
        let session = self
            .session(&payload.session_id)
            .ok_or_else(|| no_session(&payload.session_id))?;
        let steps = script::read(&payload.prompt)
            .map_err(|e| JsonRpcError::invalid_params(e.to_string()))?;
        let cancel = Cancel::new();
        {
            let mut turn = lock(&session.turn);
            if turn.is_some() {
                return Err(JsonRpcError::invalid_request(format!(
                    "session {} is already running a prompt turn",
                    payload.session_id
                )));
            }
            *turn = Some(cancel.clone());
        }
        let _running = Running(&session);
        let can_read = lock(&self.state)
            .client
            .as_ref()
            .and_then(|c| c.fs.as_ref())
            .and_then(|fs| fs.read_text_file)
            .unwrap_or(false);
        tracing::debug!(session = %payload.session_id, cwd = %session.cwd, steps = steps.len(), "turn");
        let turn = Turn {
            client: acp::HostCalls(&self.client),
            session_id: &payload.session_id,
            tool_calls: &session.tool_calls,
            cancel: &cancel,
            can_read,
            wait_limit: self.options.wait_limit,
        };
        let stop = match by_request {
            Some(by_request) => {
                let mut run = std::pin::pin!(turn.run(&steps));
                tokio::select! {
                    biased;
                    stop = &mut run => stop,
                    () = by_request.cancelled() => {
                        cancel.cancel();
                        run.await
                    }
                }?
            }
            None => turn.run(&steps).await?,
        };
        tracing::debug!(session = %payload.session_id, stop = %stop, "turn ended");
        Ok(PromptResponse::new(stop))
    }

    async fn session_close(
        &self,
        payload: CloseSessionRequest,
    ) -> Result<CloseSessionResponse, JsonRpcError> {
        let session = lock(&self.state)
            .sessions
            .remove(&payload.session_id)
            .ok_or_else(|| no_session(&payload.session_id))?;
        if let Some(cancel) = lock(&session.turn).as_ref() {
            cancel.cancel();
        }
        tracing::info!(session = %payload.session_id, "session closed");
        Ok(CloseSessionResponse::new())
    }

    async fn session_cancel(&self, payload: CancelNotification) {
        // A notification is answered by nothing: an unknown session or no running turn is
        // only logged.
        let Some(session) = self.session(&payload.session_id) else {
            tracing::debug!(session = %payload.session_id, "cancel of an unknown session");
            return;
        };
        match lock(&session.turn).as_ref() {
            Some(cancel) => cancel.cancel(),
            None => tracing::debug!(session = %payload.session_id, "cancel with no turn running"),
        }
    }
}
