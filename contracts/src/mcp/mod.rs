//! The Model Context Protocol, revision 2025-11-25 (feature `mcp`), generated from
//! `schema/mcp`: every request and notification of both sides in the `requests` and `events`
//! tables (each with its `#[direction]`: [`Host`] answers what a client sends,
//! [`ClientHandler`] what a server sends), the JSON-RPC envelope ([`JSONRPCMessage`], and
//! [`JSONRPCMessageTyped`] with its params read by method), and [`McpTables`], the verdict
//! `cargo xtask validate --protocol mcp` gives (see [`crate::jsonrpc`]).

crate::protocol! { name: "mcp", dir: "schema/mcp" }

crate::jsonrpc::json_rpc_tables! {
    /// MCP's tables and envelope as [`crate::jsonrpc::verdict`] reads them.
    McpTables, "MCP 2025-11-25", JSONRPCMessage, JSONRPCMessageTyped, JSONRPCRequest,
    JSONRPCNotification
}
