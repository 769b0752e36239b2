//! The agent protocol (`spec/agent-contracts.txt`), generated from `schema/agent`: the frames,
//! the request and event tables, the thread, and the `task` and `agent` modules outside the
//! tables. Beside the generated items: the envelope parse functions, the frame-level
//! dispatcher, the thread reducer, the hub's store (in memory; SQLite with feature `sqlite`),
//! and (feature `tokio`) the host and client machinery.
//!
//! Two stages, as in the spec: the envelope (`parse_request`, `parse_server_frame`) leaves
//! payloads unchecked; the tables (`RequestPayload::parse`, `RequestResult::parse`,
//! `EventPayload::parse`) check them by name. `parse_request_typed` and
//! `parse_server_frame_typed` give both stages' verdict reading the frame once.

crate::protocol! { name: "agent", dir: "schema/agent" }

mod frames;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod store;
pub mod thread;

#[cfg(feature = "tokio")]
pub mod client;
#[cfg(feature = "tokio")]
pub mod host;

pub use crate::wire::Dispatch;
pub use frames::{
    AgentDispatch, AgentTables, Kind, Tables, UnknownType, dispatch_frame, error_frame,
    event_frame, event_frame_checked, parse_request, parse_request_ref, parse_request_typed,
    parse_server_frame, parse_server_frame_ref, parse_server_frame_typed, reply_frame, verdict,
    verdict_in,
};
pub use thread::Thread;
