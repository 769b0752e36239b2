//! JSON-RPC 2.0 connections (feature `rpc`): one connection serves the local side's handler
//! and calls the other side, both at once, over any [`FramePort`](crate::port::FramePort)
//! (stdio as newline-delimited JSON, WebSocket, the in-memory pair).
//!
//! # Serving a generated protocol
//!
//! A two-sided protocol (MCP, ACP) generates a `Host` trait (what a server answers), a
//! `ClientHandler` trait (what a client answers), and for each an adapter to this module's
//! [`Handler`]: `HostSide(host)` and `ClientSide(client)`. An MCP server over stdio (features
//! `mcp`, `rpc`, `ndjson`; the README shows the same):
//!
#![cfg_attr(feature = "mcp", doc = "```no_run")]
#![cfg_attr(not(feature = "mcp"), doc = "```ignore")]
//! use contracts::mcp::{self, CallToolOutcome, CallToolRequestParams, CallToolResult};
//! use contracts::mcp::{Implementation, InitializeRequestParams, InitializeResult, JsonRpcError};
//! use contracts::mcp::{ListToolsResult, PaginatedRequestParams, ServerCapabilities};
//! use contracts::mcp::{ServerCapabilitiesTools, TextContent, Tool, ToolInputSchema};
//! use contracts::port::{NdjsonOptions, NdjsonPort};
//! use contracts::rpc::{self, Options};
//!
//! struct Server;
//!
//! // What it leaves out is answered -32601 (method not found).
//! impl mcp::Host for Server {
//!     async fn initialize(&self, _: InitializeRequestParams) -> Result<InitializeResult, JsonRpcError> {
//!         let capabilities = ServerCapabilities::new().tools(ServerCapabilitiesTools::new());
//!         let me = Implementation::new("hello", "0.1.0");
//!         Ok(InitializeResult::new(mcp::LATEST_PROTOCOL_VERSION, capabilities, me))
//!     }
//!
//!     async fn tools_list(&self, _: PaginatedRequestParams) -> Result<ListToolsResult, JsonRpcError> {
//!         Ok(ListToolsResult::new(vec![Tool::new("hello", ToolInputSchema::new())]))
//!     }
//!
//!     async fn tools_call(&self, call: CallToolRequestParams) -> Result<CallToolOutcome, JsonRpcError> {
//!         let text = TextContent::new(format!("hello from {}", call.name));
//!         Ok(CallToolResult::new(vec![text.into()]).into())
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() {
//!     let stdio = NdjsonPort::from_parts(tokio::io::stdin(), tokio::io::stdout(), &NdjsonOptions::default());
//!     // `peer` calls the client back (sampling, logging, progress): `mcp::HostCalls(&peer)`.
//!     rpc::serve(stdio, Options::mcp(), |_peer| mcp::HostSide(Server)).await;
//! }
//! ```
//!
//! `make` is given the connection's [`Peer`]: a server keeps it to call its client while it
//! serves a request (sampling, elicitation) and to notify it (logging, progress), through the
//! typed caller `mcp::HostCalls(&peer)`. A client is the same the other way round:
//! `let server = rpc::connect(port, Options::mcp(), |_| mcp::ClientSide(MyClient));` then
//! `mcp::ClientCalls(&server).tools_list(..)`. `docs/guide/json-rpc.md` walks through both
//! sides, Streamable HTTP (module `http`) and ACP.
//!
//! # What a connection does
//!
//! - Requests of the other side are served at once, each on a task of its own, up to
//!   [`Options::max_in_flight`]; more wait in a bounded queue ([`Options::max_waiting`]).
//!   Notifications are heard one at a time, in the order they came.
//! - Our calls get ids of our own (integers from 1); responses are matched by id, so any
//!   number of calls wait at once, both ways. A call's answer resolves only once every
//!   notification that came before it has been heard (a prompt turn's last updates, a tool's
//!   last progress reach the handler before the call returns; [`Options`], "Order").
//! - What cannot be read is refused with JSON-RPC's codes: -32700 (not JSON), -32600 (not a
//!   request object, a batch: MCP 2025-11-25 has none), with the request's id when it can be
//!   read, else `"id": null` or no id as the protocol's schema says ([`Options::null_id`]);
//!   the TypeScript runtime refuses the same frames with the same words
//!   (`tests/rpc-parity`). Past [`Options::max_waiting`] a request is answered -32000
//!   (`overloaded`). The generated side
//!   answers -32601 (method not found), -32602 (invalid params) and -32603 (internal), and
//!   the protocol's own codes. A handler that panics is answered -32603. Garbage never ends
//!   the connection; the end of its input does.
//! - Cancellation ([`Options::cancel`], [`Cancel`]): a cancel notification naming a request
//!   being served aborts its handler, and no response is sent (MCP's
//!   `notifications/cancelled`), or the request is still answered, -32800 "Request
//!   cancelled" (ACP's `$/cancel_request`, [`Options::acp`]); dropping the future of a call
//!   before its answer sends one. A handler that would rather end cleanly takes its
//!   request's cancellation over ([`take_cancellation`]): the notification then sets it, and
//!   the handler answers (ACP: a result with a cancellation marker). ACP's `session/cancel`
//!   is an ordinary notification: it reaches the agent's handler, which ends the prompt turn
//!   itself.
//! - A handler learns the id of the request it serves ([`current_request`]); what it sends
//!   through the [`Peer`] meanwhile is related to that request (over Streamable HTTP it goes
//!   on that request's response stream).

mod handler;

pub use handler::Handler;

mod connection;
#[cfg(feature = "http")]
pub mod http;
mod message;
mod options;
mod peer;
mod port;
mod serving;

pub use message::{
    ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Id, METHOD_NOT_FOUND, OVERLOADED,
    PARSE_ERROR, REQUEST_CANCELLED,
};
pub use options::{Cancel, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_WAITING, Options};
pub use peer::{Error, Peer};
pub use port::{connect, serve};
pub use serving::{Cancellation, current_request, take_cancellation};
