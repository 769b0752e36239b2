//! The Agent Client Protocol, v1 (feature `acp`), generated from `schema/acp`: every method of
//! both sides in the `requests` and `events` tables (each with its `#[direction]`: [`Host`]
//! answers what a client sends, [`ClientHandler`] what an agent sends), the JSON-RPC envelope
//! ([`JsonRpcMessage`], and [`JsonRpcMessageTyped`] with its params read by method), and
//! [`AcpTables`], the verdict `cargo xtask validate --protocol acp` gives (see
//! [`crate::jsonrpc`]).

crate::protocol! { name: "acp", dir: "schema/acp" }

crate::jsonrpc::json_rpc_tables! {
    /// ACP's tables and envelope as [`crate::jsonrpc::verdict`] reads them.
    AcpTables, "ACP v1", JsonRpcMessage, JsonRpcMessageTyped, JsonRpcRequest,
    JsonRpcNotification
}
