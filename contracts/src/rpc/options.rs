//! How a connection runs: its bounds ([`Options`]) and the notification that cancels a
//! request ([`Cancel`]), if its protocol has one, with the answer a cancelled request gets.

use std::borrow::Cow;

use super::message::{ErrorObject, REQUEST_CANCELLED};

/// The bounds of a connection and its cancel notification.
///
/// ```
/// use contracts::rpc::{Cancel, Options};
///
/// // MCP: `notifications/cancelled` with `requestId`, 32 requests served at once.
/// let mcp = Options::mcp().max_in_flight(32);
/// // ACP: `$/cancel_request` with `requestId`, a cancelled request answered -32800.
/// let acp = Options::acp();
/// // LSP: `$/cancelRequest` with `id`.
/// let lsp = Options::default().cancel(Cancel::lsp());
/// # let _ = (mcp, acp, lsp);
/// ```
///
/// # Order
///
/// Notifications are heard one at a time, in the order they came, and the answer to a call
/// of ours resolves only once every notification that came before it has been heard: a
/// server's progress or a prompt turn's updates reach the handler before the call that
/// caused them returns. Responses wait for nothing else, and hold nothing but the calls that
/// wait for them. A call made while hearing a notification is answered at once (the
/// notifications after the one heard cannot be heard before it ends); one made by a task
/// the notification handler waits for, or while the handler waits for the caller, would
/// wait forever: do not make a notification handler wait for a call.
#[derive(Clone, Debug)]
pub struct Options {
    pub(crate) max_in_flight: usize,
    pub(crate) max_waiting: usize,
    pub(crate) cancel: Option<Cancel>,
    pub(crate) null_id: bool,
}

/// Requests served at once by default.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;
/// Requests (and, apart, notifications) waiting to be served by default.
pub const DEFAULT_MAX_WAITING: usize = 256;

impl Default for Options {
    /// 64 requests served at once, 256 waiting, no cancel notification, and JSON-RPC 2.0's
    /// `"id": null` on the answer to a message whose id cannot be read.
    fn default() -> Self {
        Options {
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_waiting: DEFAULT_MAX_WAITING,
            cancel: None,
            null_id: true,
        }
    }
}

impl Options {
    /// The defaults with MCP's cancel notification ([`Cancel::mcp`]), and no `id` on the
    /// answer to a message whose id cannot be read (MCP's error response has an optional id
    /// that is never `null`: [`null_id`](Self::null_id)).
    pub fn mcp() -> Self {
        Options::default().cancel(Cancel::mcp()).null_id(false)
    }

    /// The defaults with ACP's cancel notification ([`Cancel::acp`]): `$/cancel_request`,
    /// a cancelled request still answered. ACP's `session/cancel` is an ordinary
    /// notification the agent's handler hears. An unreadable message is answered with
    /// `"id": null` (ACP's `RequestId` admits `null`).
    pub fn acp() -> Self {
        Options::default().cancel(Cancel::acp())
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
    /// handler serving it (unless the handler took its cancellation over:
    /// [`take_cancellation`](super::take_cancellation)) and the request gets
    /// [`Cancel::answer`]'s answer, or none; a call whose future is dropped before its answer
    /// sends it (and its answer, if one comes, is dropped).
    pub fn cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// How the answer to a message whose id cannot be read (not JSON, a batch, an invalid id)
    /// names it: `"id": null`, as JSON-RPC 2.0 says (`true`, the default; ACP's schema admits
    /// it), or no `id` member at all (`false`: MCP 2025-11-25, whose error response has
    /// `id?: RequestId`, and a `RequestId` is never `null`). Each protocol's choice is what its
    /// schema's error response accepts; the TypeScript runtime reads it off the schema.
    pub fn null_id(mut self, null: bool) -> Self {
        self.null_id = null;
        self
    }

    /// No cancel notification: a dropped call is only forgotten here, and every notification
    /// goes to the handler alone.
    pub fn without_cancel(mut self) -> Self {
        self.cancel = None;
        self
    }
}

/// A protocol's cancel notification: its method, the member of its params that names the
/// request, optionally the member that says why, and whether a cancelled request is still
/// answered.
///
/// The notification also reaches the handler, as any other.
#[derive(Clone, Debug, PartialEq)]
pub struct Cancel {
    pub(crate) method: Cow<'static, str>,
    pub(crate) id_key: Cow<'static, str>,
    pub(crate) reason_key: Option<Cow<'static, str>>,
    pub(crate) answer: Option<ErrorObject>,
}

impl Cancel {
    /// A cancel notification `method` whose params hold the request's id under `id_key`.
    pub fn new(method: impl Into<Cow<'static, str>>, id_key: impl Into<Cow<'static, str>>) -> Self {
        Cancel {
            method: method.into(),
            id_key: id_key.into(),
            reason_key: None,
            answer: None,
        }
    }

    /// The member a sent cancel notification says why in.
    pub fn reason(mut self, key: impl Into<Cow<'static, str>>) -> Self {
        self.reason_key = Some(key.into());
        self
    }

    /// A cancelled request is still answered: with `error` once its handler is aborted
    /// (the handler's own answer when it took its cancellation over). Without it (the
    /// default) a cancelled request is never answered, as MCP says.
    pub fn answer(mut self, error: ErrorObject) -> Self {
        self.answer = Some(error);
        self
    }

    /// MCP's `notifications/cancelled` `{ requestId, reason }`: a cancelled request is not
    /// answered.
    pub fn mcp() -> Self {
        Cancel::new("notifications/cancelled", "requestId").reason("reason")
    }

    /// ACP's `$/cancel_request` `{ requestId }`: a cancelled request is still answered, as
    /// ACP requires, with -32800 "Request cancelled" (as ACP's SDK and this repository's
    /// TypeScript runtime answer) or the handler's own result (a cancellation marker).
    pub fn acp() -> Self {
        Cancel::new("$/cancel_request", "requestId")
            .answer(ErrorObject::new(REQUEST_CANCELLED, "Request cancelled"))
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
