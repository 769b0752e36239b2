//! [`Server`]: one connection's MCP server, the generated [`Host`] implemented over the
//! catalogue ([`tools`], [`resources`], [`prompts`]) and the connection's [`Session`].
//!
//! `initialize` answers the client's protocol version when this server speaks it (else the
//! latest, which the client may refuse), with the capabilities the catalogue has: tools,
//! resources with subscriptions, prompts, logging and completions. Lists come in one page, so
//! a cursor is one this server never issued: invalid params.

use crate::context::{Context, LOGGER, ResponseStream};
use crate::session::Session;
use crate::{prompts, resources, tools};
use contracts::mcp::{
    CallToolOutcome, CallToolRequestParams, CompleteRequestParams, CompleteResult, EmptyResult,
    ErrorCode, GetPromptRequestParams, GetPromptResult, Host, Implementation,
    InitializeRequestParams, InitializeResult, JsonRpcError, LATEST_PROTOCOL_VERSION,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    LoggingLevel, NotificationParams, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResult, RequestParams, ServerCapabilities, ServerCapabilitiesPrompts,
    ServerCapabilitiesResources, ServerCapabilitiesTools, SetLevelRequestParams,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use contracts::wire::Call;
use std::collections::BTreeMap;
use std::fmt::Display;

/// The protocol versions this server speaks, newest first: the schema's, then the earlier
/// revisions whose messages it reads the same way.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] =
    &[LATEST_PROTOCOL_VERSION, "2025-06-18", "2025-03-26"];

/// What the server tells a client about how to use it.
const INSTRUCTIONS: &str = "The fixtures of the MCP conformance suite: call the test_* tools, \
    read the test:// resources, get the test_* prompts.";

/// One connection's server: its way back to the client (`C`) and what it remembers.
pub struct Server<C> {
    client: C,
    session: Session,
}

impl<C> Server<C> {
    /// A server that reaches its client through `client`.
    pub fn new(client: C) -> Self {
        Server {
            client,
            session: Session::default(),
        }
    }

    /// What the connection remembers (the log level, the subscriptions).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The connection's way back to the client.
    pub fn client(&self) -> &C {
        &self.client
    }
}

impl<C: Call + ResponseStream> Server<C>
where
    C::Error: Display,
{
    /// The context of a request that carried `progress_token`.
    fn context(&self, progress_token: Option<contracts::mcp::ProgressToken>) -> Context<'_, C> {
        Context::new(&self.client, &self.session, progress_token)
    }
}

impl<C: Call + ResponseStream> Host for Server<C>
where
    C::Error: Display,
{
    async fn initialize(
        &self,
        payload: InitializeRequestParams,
    ) -> Result<InitializeResult, JsonRpcError> {
        let version = SUPPORTED_PROTOCOL_VERSIONS
            .iter()
            .find(|v| **v == payload.protocol_version)
            .copied()
            .unwrap_or(LATEST_PROTOCOL_VERSION);
        tracing::info!(
            client = %payload.client_info.name,
            asked = %payload.protocol_version,
            version,
            "initialize"
        );
        self.session.initialize(payload.capabilities);
        let capabilities = ServerCapabilities::new()
            .tools(ServerCapabilitiesTools::new())
            .resources(ServerCapabilitiesResources::new().subscribe(true))
            .prompts(ServerCapabilitiesPrompts::new())
            .logging(BTreeMap::new())
            .completions(BTreeMap::new());
        let info = Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
            .title("MCP conformance fixtures");
        Ok(InitializeResult::new(version, capabilities, info).instructions(INSTRUCTIONS))
    }

    async fn ping(&self, _: RequestParams) -> Result<EmptyResult, JsonRpcError> {
        Ok(EmptyResult::new())
    }

    async fn notifications_initialized(&self, _: NotificationParams) {
        tracing::debug!("the client is initialized");
    }

    async fn tools_list(
        &self,
        payload: PaginatedRequestParams,
    ) -> Result<ListToolsResult, JsonRpcError> {
        one_page(&payload)?;
        Ok(ListToolsResult::new(tools::list()))
    }

    async fn tools_call(
        &self,
        payload: CallToolRequestParams,
    ) -> Result<CallToolOutcome, JsonRpcError> {
        let token = payload.meta.as_ref().and_then(|m| m.progress_token.clone());
        let cx = self.context(token);
        let result = tools::call(&cx, &payload).await?;
        Ok(result.into())
    }

    async fn resources_list(
        &self,
        payload: PaginatedRequestParams,
    ) -> Result<ListResourcesResult, JsonRpcError> {
        one_page(&payload)?;
        Ok(ListResourcesResult::new(resources::list()))
    }

    async fn resources_templates_list(
        &self,
        payload: PaginatedRequestParams,
    ) -> Result<ListResourceTemplatesResult, JsonRpcError> {
        one_page(&payload)?;
        Ok(ListResourceTemplatesResult::new(resources::templates()))
    }

    async fn resources_read(
        &self,
        payload: ReadResourceRequestParams,
    ) -> Result<ReadResourceResult, JsonRpcError> {
        resources::read(&payload.uri)
    }

    async fn resources_subscribe(
        &self,
        payload: SubscribeRequestParams,
    ) -> Result<EmptyResult, JsonRpcError> {
        if !resources::exists(&payload.uri) {
            return Err(resources::not_found(&payload.uri));
        }
        self.session.subscribe(&payload.uri);
        self.context(None)
            .log(
                LoggingLevel::Info,
                &format!("Subscribed to resource: {}", payload.uri),
            )
            .await;
        Ok(EmptyResult::new())
    }

    async fn resources_unsubscribe(
        &self,
        payload: UnsubscribeRequestParams,
    ) -> Result<EmptyResult, JsonRpcError> {
        if self.session.unsubscribe(&payload.uri) {
            self.context(None)
                .log(
                    LoggingLevel::Info,
                    &format!("Unsubscribed from resource: {}", payload.uri),
                )
                .await;
        }
        Ok(EmptyResult::new())
    }

    async fn prompts_list(
        &self,
        payload: PaginatedRequestParams,
    ) -> Result<ListPromptsResult, JsonRpcError> {
        one_page(&payload)?;
        Ok(ListPromptsResult::new(prompts::list()))
    }

    async fn prompts_get(
        &self,
        payload: GetPromptRequestParams,
    ) -> Result<GetPromptResult, JsonRpcError> {
        prompts::get(&payload)
    }

    async fn logging_set_level(
        &self,
        payload: SetLevelRequestParams,
    ) -> Result<EmptyResult, JsonRpcError> {
        self.session.set_level(payload.level);
        tracing::debug!(
            logger = LOGGER,
            level = payload.level.as_str(),
            "log level set"
        );
        self.context(None)
            .log(
                LoggingLevel::Info,
                &format!("Log level set to: {}", payload.level.as_str()),
            )
            .await;
        Ok(EmptyResult::new())
    }

    async fn completion_complete(
        &self,
        payload: CompleteRequestParams,
    ) -> Result<CompleteResult, JsonRpcError> {
        prompts::complete(&payload)
    }
}

/// Refuses a cursor: every list is answered in one page, so a cursor was never issued.
fn one_page(payload: &PaginatedRequestParams) -> Result<(), JsonRpcError> {
    match &payload.cursor {
        None => Ok(()),
        Some(cursor) => Err(JsonRpcError::new(
            ErrorCode::InvalidParams,
            format!("invalid cursor {cursor:?}: every list is one page"),
        )),
    }
}
