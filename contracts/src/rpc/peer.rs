//! [`Peer`]: the handle to a connection's other side. It calls (requests answered by id,
//! many at once, a dropped call cancelled), notifies, and knows the request its caller
//! serves, so what a handler sends while serving a request is marked as related to it.

use std::fmt;
use std::sync::Arc;

use serde_json::value::RawValue;

use super::connection::{Core, Route};
use super::message::{ErrorObject, Id};
use super::serving::served_on;
use crate::port::SendError;

/// Why a call (or a notification) failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The other side answered with an error object.
    Remote(ErrorObject),
    /// The connection ended before the answer (or was already closed).
    Closed,
    /// The port refused the frame (too large, a slow consumer, closed).
    Send(SendError),
    /// What carries the frames failed (an HTTP status, a broken connection).
    Transport(String),
    /// The other side's response is not a JSON-RPC response: what is wrong.
    InvalidResponse(String),
}

impl Error {
    /// The other side's error object, if it answered with one.
    pub fn remote(&self) -> Option<&ErrorObject> {
        match self {
            Error::Remote(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Remote(e) => write!(f, "the other side answered with an error: {e}"),
            Error::Closed => f.write_str("the connection is closed"),
            Error::Send(e) => write!(f, "the message was not sent: {e}"),
            Error::Transport(e) => write!(f, "the transport failed: {e}"),
            Error::InvalidResponse(e) => write!(f, "invalid response: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Remote(e) => Some(e),
            Error::Send(e) => Some(e),
            _ => None,
        }
    }
}

/// The other side of a connection: a cloneable handle that calls it and notifies it.
///
/// It implements [`wire::Call`](crate::wire::Call), so a generated typed caller goes through
/// it: `mcp::HostCalls(&peer)` (what an MCP server sends its client), `mcp::ClientCalls(&peer)`
/// (what a client sends its server). Every call gets an id of its own and waits for the
/// response with that id; calls run at once, both ways. Dropping a call's future before its
/// answer forgets it and, when the connection has a cancel notification
/// ([`Options::cancel`](super::Options::cancel)), sends it.
///
/// Messages sent while serving a request (in the handler's task) are related to that
/// request: Streamable HTTP sends them on that request's response stream.
#[derive(Clone)]
pub struct Peer {
    pub(crate) core: Arc<Core>,
    related: Option<Id>,
}

impl fmt::Debug for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Peer")
            .field("connection", &self.core.connection)
            .field("related", &self.related)
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl Peer {
    pub(crate) fn new(core: Arc<Core>) -> Self {
        Peer {
            core,
            related: None,
        }
    }

    /// Calls `method` with `params` and answers the other side's result, unchecked (the
    /// generated callers check it by the request's table). It resolves once every
    /// notification that came before the answer has been heard by the handler (at once for
    /// a call made while hearing one: [`Options`](super::Options), "Order").
    pub async fn request(&self, method: &str, params: &RawValue) -> Result<Box<RawValue>, Error> {
        let related = self.relation();
        let (id, answer) = self.core.call(method, params, route(related.as_ref()))?;
        let mut waiting = Waiting {
            peer: self,
            id,
            related,
            answered: false,
        };
        let outcome = answer.await;
        waiting.answered = true;
        outcome.unwrap_or(Err(Error::Closed))
    }

    /// Sends notification `method` with `params`; nothing is answered.
    pub fn notify(&self, method: &str, params: &RawValue) -> Result<(), Error> {
        let related = self.relation();
        self.core
            .notify(method, params, route(related.as_ref()))
            .map_err(Error::Send)
    }

    /// This handle, its messages related to request `id` (as those sent while serving it
    /// are): for a task a handler spawns, which does not inherit
    /// [`current_request`](super::current_request).
    pub fn related_to(&self, id: Id) -> Peer {
        Peer {
            core: self.core.clone(),
            related: Some(id),
        }
    }

    /// The request this handle's messages are related to: the one given to
    /// [`related_to`](Self::related_to), else the one the current task serves on this
    /// connection.
    pub fn relation(&self) -> Option<Id> {
        self.related
            .clone()
            .or_else(|| served_on(self.core.connection))
    }

    /// Ends the response stream of the request this handle's messages relate to, without
    /// ending the request: over Streamable HTTP the client reconnects (`GET` with
    /// `Last-Event-ID`, after the `retry` the stream told it) and gets what follows there, as
    /// the 2025-11-25 revision's SSE polling says. `false` when the transport has no such
    /// stream (a port, a JSON answer, a client too old to resume).
    pub fn close_sse_stream(&self) -> bool {
        match self.relation() {
            Some(id) => self.core.transport.close_stream(&id),
            None => false,
        }
    }

    /// Closes the connection: handlers still serving are stopped (their requests get no
    /// answer), calls waiting fail with [`Error::Closed`], and the port is let go of.
    pub fn close(&self) {
        self.core.close();
    }

    /// Whether the connection has ended: the other side's messages stopped coming, or it was
    /// closed. Calls fail from then on.
    pub fn is_closed(&self) -> bool {
        self.core.is_ended()
    }

    /// Resolves once the connection is over: its input ended (or it was closed) and every
    /// request it took was answered or stopped.
    pub async fn closed(&self) {
        self.core.done().await;
    }
}

fn route(related: Option<&Id>) -> Route<'_> {
    match related {
        Some(id) => Route::Related(id),
        None => Route::Unrelated,
    }
}

/// A call waiting for its answer: dropped unanswered, it cancels the call.
struct Waiting<'a> {
    peer: &'a Peer,
    id: i64,
    related: Option<Id>,
    answered: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if !self.answered {
            self.peer
                .core
                .abandon(self.id, route(self.related.as_ref()));
        }
    }
}

impl crate::wire::Call for Peer {
    type Error = Error;

    async fn call_raw(
        &self,
        method: &'static str,
        params: Box<RawValue>,
    ) -> Result<Box<RawValue>, Error> {
        self.request(method, &params).await
    }

    fn notify_raw(
        &self,
        method: &'static str,
        params: Box<RawValue>,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let sent = self.notify(method, &params);
        async move { sent }
    }
}
