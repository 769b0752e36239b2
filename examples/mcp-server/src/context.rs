//! What a request's handler may do toward the client while it runs: log (as the client's level
//! allows), report progress (when the request carried `_meta.progressToken`), ask the client
//! to sample an LLM, ask the user a question through the client. Each goes through the
//! generated typed callers ([`HostCalls`]) over the connection's way back to the client.
//!
//! Over Streamable HTTP a handler may also end its request's response stream early
//! ([`ResponseStream`]), for the client to reconnect and read the rest.
//!
//! A notification that cannot be sent is logged here (the client went away: nothing to
//! answer); a request the client cannot take or refuses is an error for the handler, which
//! turns it into a tool result with `isError: true`.

use crate::session::Session;
use contracts::mcp::{
    CreateMessageOutcome, CreateMessageRequestParams, ElicitOutcome, ElicitRequestFormParams,
    ElicitResult, HostCalls, LoggingLevel, LoggingMessageNotificationParams,
    ProgressNotificationParams, ProgressToken, Role, SamplingMessage, SamplingMessageContent,
    SamplingMessageContentBlock, TextContent,
};
use contracts::wire::{Call, RawJson};
use std::fmt::Display;

/// A way back to the client that may end the response stream of the request being served
/// before its answer (Streamable HTTP's SSE polling: the client reconnects and gets the rest).
pub trait ResponseStream {
    /// Ends the current request's response stream, the request going on: whether there was
    /// one to end (stdio has none).
    fn close_response_stream(&self) -> bool;
}

impl ResponseStream for contracts::rpc::Peer {
    fn close_response_stream(&self) -> bool {
        self.close_sse_stream()
    }
}

/// The name the server's log messages carry (`logger`).
pub const LOGGER: &str = "mcp-server";

/// A request in progress: the connection's way back to the client, its session, and the
/// request's progress token.
pub struct Context<'a, C> {
    client: &'a C,
    session: &'a Session,
    progress_token: Option<ProgressToken>,
}

impl<'a, C: Call + ResponseStream> Context<'a, C>
where
    C::Error: Display,
{
    /// The context of a request that carried `progress_token` (its `_meta.progressToken`).
    pub fn new(client: &'a C, session: &'a Session, progress_token: Option<ProgressToken>) -> Self {
        Context {
            client,
            session,
            progress_token,
        }
    }

    /// Sends `message` as a log message at `level`, when the client's level lets it through.
    pub async fn log(&self, level: LoggingLevel, message: &str) {
        if !self.session.logs(level) {
            return;
        }
        let Ok(data) = RawJson::from_value(message) else {
            return;
        };
        let params = LoggingMessageNotificationParams::new(level, data).logger(LOGGER);
        if let Err(e) = HostCalls(self.client).notifications_message(params).await {
            tracing::debug!("a log message was not sent: {e}");
        }
    }

    /// Reports `progress` of `total`, with `message`, when the request asked for progress.
    pub async fn progress(&self, progress: f64, total: f64, message: &str) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let params = ProgressNotificationParams::new(token.clone(), progress)
            .total(total)
            .message(message);
        if let Err(e) = HostCalls(self.client).notifications_progress(params).await {
            tracing::debug!("a progress notification was not sent: {e}");
        }
    }

    /// Ends the request's response stream early, when the transport has one: whether it did.
    pub fn close_response_stream(&self) -> bool {
        self.client.close_response_stream()
    }

    /// Asks the client to sample an LLM with `prompt` as the user's message (at most
    /// `max_tokens`), and answers the text of the reply. An error says why there is none: the
    /// client has no sampling, refused, answered a task or a reply without text.
    pub async fn sample(&self, prompt: &str, max_tokens: i64) -> Result<String, String> {
        if !self.session.client_samples() {
            return Err("the client does not support sampling".into());
        }
        let text = SamplingMessageContentBlock::from(TextContent::new(prompt));
        let message = SamplingMessage::new(Role::User, SamplingMessageContent::from(text));
        let params = CreateMessageRequestParams::new(vec![message], max_tokens);
        let outcome = HostCalls(self.client)
            .sampling_create_message(params)
            .await
            .map_err(|e| format!("sampling failed: {e}"))?;
        let CreateMessageOutcome::CreateMessageResult(result) = outcome else {
            return Err("the client answered a task, which was not asked for".into());
        };
        let blocks = match result.content {
            SamplingMessageContent::SamplingMessageContentBlock(block) => vec![block],
            SamplingMessageContent::SamplingMessageContentBlocks(blocks) => blocks,
        };
        let texts: Vec<String> = blocks
            .into_iter()
            .filter_map(|block| match block {
                SamplingMessageContentBlock::TextContent(t) => Some(t.text),
                _ => None,
            })
            .collect();
        if texts.is_empty() {
            return Err(format!("the reply of model {} has no text", result.model));
        }
        Ok(texts.join("\n"))
    }

    /// Asks the user, through the client, to fill the form `params` describes, and answers
    /// what the user did. An error says why there is no answer: the client takes no forms,
    /// refused, or answered a task.
    pub async fn elicit(&self, params: ElicitRequestFormParams) -> Result<ElicitResult, String> {
        if !self.session.client_elicits_forms() {
            return Err("the client does not support form elicitation".into());
        }
        let outcome = HostCalls(self.client)
            .elicitation_create(params.into())
            .await
            .map_err(|e| format!("elicitation failed: {e}"))?;
        match outcome {
            ElicitOutcome::ElicitResult(result) => Ok(result),
            _ => Err("the client answered a task, which was not asked for".into()),
        }
    }
}
