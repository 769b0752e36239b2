//! The runtime for generated wire contracts.
//!
//! Generated code reaches this crate only through [`__private`]. The agent protocol is
//! generated here by [`protocol!`] from `schema/agent`; behind features that are off by
//! default, Agent Connect (`connect`: `contracts::connect`, from `schema/connect`, with the
//! core of its server), the Model Context Protocol 2025-11-25 (`mcp`:
//! `contracts::mcp`, from `schema/mcp`) and the Agent Client Protocol v1 (`acp`:
//! `contracts::acp`, from `schema/acp`), with their verdict in `contracts::jsonrpc`, and
//! JSON-RPC connections that serve and call them (`rpc`: `contracts::rpc`).

// On docs.rs (every feature, `--cfg docsrs`), each item behind a feature says which one.
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate self as contracts;

#[doc(hidden)]
pub mod __private;
#[cfg(feature = "acp")]
pub mod acp;
pub mod agent;
#[cfg(feature = "connect")]
pub mod connect;
#[cfg(any(feature = "mcp", feature = "acp"))]
pub mod jsonrpc;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod port;
#[cfg(feature = "rpc")]
pub mod rpc;
/// Without feature `rpc`, only the trait a two-sided protocol's generated `HostSide` and
/// `ClientSide` implement.
#[cfg(not(feature = "rpc"))]
#[doc(hidden)]
pub mod rpc {
    mod handler;
    pub use handler::Handler;
}
#[cfg(feature = "sqlite")]
mod storage;
pub mod verdict;
pub mod wire;

/// Derives a protocol's Rust types, tables, `Host` trait and dispatcher from a schema directory.
///
/// ```ignore
/// contracts::protocol! { name: "agent", dir: "schema/agent" }
///
/// // An app's protocol on top of the agent's: the base's Rust module; its schema directory
/// // comes from `CONTRACTS_SCHEMA_AGENT` (set by the app's build script), or is named here
/// // with `= "path/to/schema/agent"`, relative to the app's manifest.
/// contracts::protocol! {
///     name: "documents",
///     dir: "schema",
///     extends: { agent: ::contracts::agent },
/// }
/// ```
///
/// Keys: `dir` (required, relative to `CARGO_MANIFEST_DIR`), `name` (by default the
/// directory's name), `extends` (base protocols). The generated code reaches this crate
/// through `$crate`, so it compiles whatever name the app gives the dependency in its
/// `Cargo.toml` (`adecore-contracts = ..`, seen as `contracts`, or `wire = { package =
/// "adecore-contracts", .. }`).
#[macro_export]
macro_rules! protocol {
    ($($input:tt)*) => {
        $crate::__private::protocol_impl! {
            runtime: $crate::__private,
            default_error: $crate::agent::WireError,
            $($input)*
        }
    };
}
pub use wire::{Event, Request};
