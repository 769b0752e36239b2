//! MCP's Streamable HTTP transport, revision 2025-11-25 (feature `http`): a server
//! ([`HttpServer`]) whose sessions each serve a connection of `contracts::rpc`, and a client
//! ([`connect`]) whose [`Peer`](crate::rpc::Peer) calls such a server.
//!
//! # The server
//!
//! ```ignore
//! use contracts::{mcp, rpc::http::{HttpOptions, HttpServer}};
//!
//! let server = HttpServer::bind("127.0.0.1:0", HttpOptions::default(), |peer| {
//!     mcp::HostSide(MyServer { client: peer })
//! })
//! .await?;
//! println!("listening on {}", server.url());
//! server.run().await?;
//! ```
//!
//! - One endpoint (`/mcp`). A POST carries one message; a request is answered as
//!   `application/json` when its response is the only message for it, or as a
//!   `text/event-stream` when the handler sends related messages first (progress, logging,
//!   sampling, elicitation: what it sends through its `Peer` while serving the request), its
//!   priming event (an id, empty data, `retry`) first and the response last. A notification
//!   or a response is answered 202.
//! - `GET` opens the session's stream for messages related to no open request (one
//!   connection at a time: 409 for a second); `GET` with `Last-Event-ID` resumes the stream
//!   that event belongs to: the events after it are replayed, and the rest follows live. Event
//!   ids are `STREAM-SEQ`; each stream keeps its newest events ([`HttpOptions::replay`]).
//! - SSE polling: a handler calls [`Peer::close_sse_stream`](crate::rpc::Peer::close_sse_stream)
//!   to end its request's connection early; the client reconnects after `retry` and gets the
//!   rest. Priming events (and so polling) are for sessions that negotiated 2025-11-25 or later:
//!   older clients do not read empty data.
//! - Sessions: `Mcp-Session-Id` (128 random bits) on the initialize answer, required after
//!   (400 without, 404 unknown or ended); `DELETE` ends one (its handlers stop); an idle one
//!   ends after [`HttpOptions::idle_timeout`]. `MCP-Protocol-Version`, when sent, must be one of
//!   [`HttpOptions::protocol_versions`] (400).
//! - `Host` must name an allowed host, and an `Origin` an allowed host or origin: local names
//!   by default (403 otherwise), against DNS rebinding. Bind `127.0.0.1`.
//! - Caps: the body ([`HttpOptions::max_body`], 413), sessions (503), connections, and each
//!   session's requests in flight ([`HttpOptions::rpc`]): a POST over that bound waits.
//!
//! # The client
//!
//! `let server = rpc::http::connect(url, Options::mcp(), |_| mcp::ClientSide(MyClient))?;`
//! then `mcp::ClientCalls(&server).initialize(..)`: every message is a POST, its answer read as
//! JSON or as an event stream (resumed with `Last-Event-ID` when the server ends it early), and
//! after `notifications/initialized` a `GET` stream hears what the server sends unprompted.

mod client;
mod options;
mod server;
mod session;
mod sse;

pub use client::{ClientError, connect};
pub use options::{HttpOptions, LOCAL_HOSTS, PROTOCOL_VERSIONS};
pub use server::HttpServer;
