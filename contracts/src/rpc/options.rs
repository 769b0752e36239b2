//! How a connection runs: its bounds ([`Options`]) and the notification that cancels a
//! request ([`Cancel`]), if its protocol has one.

use std::borrow::Cow;

/// The bounds of a connection and its cancel notification.
///
/// ```
/// use contracts::rpc::{Cancel, Options};
///
/// // MCP: `notifications/cancelled` with `requestId`, 32 requests served at once.
/// let mcp = Options::mcp().max_in_flight(32);
/// // LSP: `$/cancelRequest` with `id`.
/// let lsp = Options::default().cancel(Cancel::lsp());
/// # let _ = (mcp, lsp);
/// ```
#[derive(Clone, Debug)]
pub struct Options {
    pub(crate) max_in_flight: usize,
    pub(crate) max_waiting: usize,
    pub(crate) cancel: Option<Cancel>,
}

/// Requests served at once by default.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;
/// Requests (and, apart, notifications) waiting to be served by default.
pub const DEFAULT_MAX_WAITING: usize = 256;

impl Default for Options {
    /// 64 requests served at once, 256 waiting, and no cancel notification.
    fn default() -> Self {
        Options {
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_waiting: DEFAULT_MAX_WAITING,
            cancel: None,
        }
    }
}

impl Options {
    /// The defaults with MCP's cancel notification ([`Cancel::mcp`]).
    pub fn mcp() -> Self {
        Options::default().cancel(Cancel::mcp())
    }

    /// The most requests of the other side served at once (at least 1). One more waits until
    /// one of them is answered.
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests.max(1);
        self
    }

    /// The most requests waiting for a place among those served, and apart the most
    /// notifications waiting to be heard (at least 1 each). Over it a request is answered
    /// with an error (code -32000, "overloaded") at once, and a flood of notifications ends
    /// the connection: neither is buffered without bound. Over Streamable HTTP a message
    /// waits for room instead (the POST is answered later).
    pub fn max_waiting(mut self, messages: usize) -> Self {
        self.max_waiting = messages.max(1);
        self
    }

    /// The notification that cancels a request, both ways: one that arrives aborts the
    /// handler serving it (no response is sent), and a call whose future is dropped before
    /// its answer sends it.
    pub fn cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// No cancel notification: a dropped call is only forgotten here, and every notification
    /// goes to the handler (ACP's `session/cancel` is such an ordinary notification: the
    /// agent's handler stops the session's prompt turn itself).
    pub fn without_cancel(mut self) -> Self {
        self.cancel = None;
        self
    }
}

/// A protocol's cancel notification: its method, the member of its params that names the
/// request, and optionally the member that says why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cancel {
    pub(crate) method: Cow<'static, str>,
    pub(crate) id_key: Cow<'static, str>,
    pub(crate) reason_key: Option<Cow<'static, str>>,
}

impl Cancel {
    /// A cancel notification `method` whose params hold the request's id under `id_key`.
    pub fn new(method: impl Into<Cow<'static, str>>, id_key: impl Into<Cow<'static, str>>) -> Self {
        Cancel {
            method: method.into(),
            id_key: id_key.into(),
            reason_key: None,
        }
    }

    /// The member a sent cancel notification says why in.
    pub fn reason(mut self, key: impl Into<Cow<'static, str>>) -> Self {
        self.reason_key = Some(key.into());
        self
    }

    /// MCP's `notifications/cancelled` `{ requestId, reason }`.
    pub fn mcp() -> Self {
        Cancel::new("notifications/cancelled", "requestId").reason("reason")
    }

    /// LSP's `$/cancelRequest` `{ id }`.
    pub fn lsp() -> Self {
        Cancel::new("$/cancelRequest", "id")
    }

    /// The notification's method.
    pub fn method(&self) -> &str {
        &self.method
    }
}
