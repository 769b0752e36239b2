//! An example MCP server on the generated MCP [`Host`](contracts::mcp::Host): the fixture
//! tools, resources and prompts the official conformance suite's server scenarios expect
//! (`@modelcontextprotocol/conformance`, `src/scenarios/server/*.ts`), served by the binary
//! over Streamable HTTP (`--http`) and stdio (`--stdio`).
//!
//! [`Server`] is one connection's server: it answers what the client sends and holds its way
//! back to the client, any [`contracts::wire::Call`], through which it sends what MCP lets a
//! server send during a request: log messages (`notifications/message`, filtered by the level
//! the client set), progress (`notifications/progress`, tagged with the request's
//! `_meta.progressToken`), sampling (`sampling/createMessage`) and elicitation
//! (`elicitation/create`), each through the generated typed callers
//! ([`HostCalls`](contracts::mcp::HostCalls)).
//!
//! The catalogue, one file each: [`tools`] (fourteen tools: content of every kind, logging,
//! progress, an error, SSE polling, sampling, elicitation, a JSON Schema 2020-12 input schema),
//! [`resources`] (three resources and a template, subscriptions), [`prompts`] (four prompts
//! and the completion of their arguments). What is refused is refused as MCP says: an unknown
//! tool or prompt, a missing argument and a cursor never issued are invalid params (-32602),
//! an unknown resource is `Resource not found` (-32002), and a tool that fails answers its
//! result with `isError: true`.

// The generated Host answers `Result<_, JsonRpcError>` (the error keeps any extra key of the
// object, so it is large); the catalogue's functions refuse with that same type.
#![allow(clippy::result_large_err)]

pub mod context;
pub mod media;
pub mod prompts;
pub mod resources;
pub mod server;
pub mod session;
pub mod tools;

pub use server::{SUPPORTED_PROTOCOL_VERSIONS, Server};
