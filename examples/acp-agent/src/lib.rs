//! An example ACP agent on the generated ACP `Host` (`contracts::acp`): it has no model, so a
//! prompt's text is read as a script (`script`), and each turn (`turn`) streams
//! `session/update` (a plan, message and thought chunks, a tool call and its updates), asks
//! the client's permission with `session/request_permission` before a tool reads a file with
//! `fs/read_text_file`, and stops with `cancelled` when the client sends `session/cancel` (or,
//! over a `contracts::rpc` connection, `$/cancel_request` naming the prompt).
//!
//! The agent reaches its client through any `contracts::wire::Call`: a JSON-RPC peer over
//! stdio in the `acp-agent` binary, a loopback to a `ClientHandler` in the tests.

mod agent;
pub mod cancel;
pub mod script;
mod turn;

pub use agent::{Agent, Options};
pub use turn::{ALLOW, REJECT};
