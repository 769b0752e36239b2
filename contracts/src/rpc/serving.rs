//! What a handler's task knows of the message it handles: the request it serves
//! ([`current_request`]) and that request's [`Cancellation`] ([`take_cancellation`]), or that
//! it hears a notification (so a call it makes is answered at once, not after the
//! notifications behind the one it hears: see [`Options`](super::Options)).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::watch;

use super::message::Id;

tokio::task_local! {
    /// The request the current task serves, set by the connection around each handler.
    static SERVING: Serving;
    /// The connection whose notification the current task hears.
    static HEARING: u64;
}

/// What [`SERVING`] holds: the connection, the id of the request served, its cancellation.
#[derive(Clone, Debug)]
pub(crate) struct Serving {
    pub(crate) connection: u64,
    pub(crate) id: Id,
    pub(crate) cancellation: Cancellation,
}

/// Runs `future` as serving `serving`'s request.
pub(crate) async fn serving<F: Future>(serving: Serving, future: F) -> F::Output {
    SERVING.scope(serving, future).await
}

/// Runs `future` as hearing a notification of `connection`.
pub(crate) async fn hearing<F: Future>(connection: u64, future: F) -> F::Output {
    HEARING.scope(connection, future).await
}

/// Whether the current task hears a notification of `connection`.
pub(crate) fn is_hearing(connection: u64) -> bool {
    HEARING.try_with(|c| *c == connection).unwrap_or(false)
}

/// The id of the request the current task serves on `connection`, if it serves one there.
pub(crate) fn served_on(connection: u64) -> Option<Id> {
    SERVING
        .try_with(|s| (s.connection == connection).then(|| s.id.clone()))
        .ok()
        .flatten()
}

/// The id of the request the current task serves, in a handler's `request` (and in what it
/// awaits), on any connection; `None` elsewhere.
///
/// A task the handler spawns does not inherit it: capture it first and send through
/// [`Peer::related_to`](super::Peer::related_to).
pub fn current_request() -> Option<Id> {
    SERVING.try_with(|s| s.id.clone()).ok()
}

/// Takes over the cancellation of the request the current task serves; `None` outside a
/// handler's `request`.
///
/// By default a cancel notification ([`Options::cancel`](super::Options::cancel)) naming a
/// request aborts its handler at once. Once the handler has taken its cancellation, the
/// notification sets the answered [`Cancellation`] instead, and the handler ends as it sees
/// fit: where the protocol answers a cancelled request ([`Cancel::answer`](super::Cancel::answer),
/// ACP), its own answer is sent (a result with a cancellation marker, as a prompt turn's
/// `stopReason: "cancelled"`, after the notifications it still had to send); where it answers
/// nothing (MCP), whatever the handler answers is not sent.
///
/// ```
/// use contracts::rpc::{Cancellation, take_cancellation};
///
/// /// Runs `steps` and answers why it stopped: "cancelled" once the other side cancels.
/// async fn turn(steps: &[&str]) -> &'static str {
///     // In a handler's `request` (outside one, `None`: nothing cancels).
///     let stop = take_cancellation();
///     for _step in steps {
///         if stop.as_ref().is_some_and(Cancellation::is_cancelled) {
///             return "cancelled";
///         }
///         // ... the step, its notifications sent ...
///     }
///     "end_turn"
/// }
/// # let _ = turn;
/// ```
pub fn take_cancellation() -> Option<Cancellation> {
    SERVING
        .try_with(|s| {
            s.cancellation.0.taken.store(true, Ordering::SeqCst);
            s.cancellation.clone()
        })
        .ok()
}

/// A request's cancellation, taken over by its handler ([`take_cancellation`]): set once, when
/// the other side's cancel notification names the request. Clones see the same flag.
#[derive(Clone, Debug)]
pub struct Cancellation(Arc<Flag>);

#[derive(Debug)]
struct Flag {
    /// The handler took it: a cancel sets it instead of aborting the handler.
    taken: AtomicBool,
    set: watch::Sender<bool>,
}

impl Cancellation {
    /// A cancellation not taken and not set.
    pub(crate) fn new() -> Self {
        Cancellation(Arc::new(Flag {
            taken: AtomicBool::new(false),
            set: watch::Sender::new(false),
        }))
    }

    /// Whether the handler took it over.
    pub(crate) fn is_taken(&self) -> bool {
        self.0.taken.load(Ordering::SeqCst)
    }

    /// Sets it: every wait on [`cancelled`](Self::cancelled) ends.
    pub(crate) fn set(&self) {
        self.0.set.send_replace(true);
    }

    /// Whether the other side cancelled the request.
    pub fn is_cancelled(&self) -> bool {
        *self.0.set.borrow()
    }

    /// Resolves once the other side cancels the request (at once if it already has).
    pub async fn cancelled(&self) {
        let mut set = self.0.set.subscribe();
        // The sender lives in `self`: the channel cannot close while this waits.
        let _ = set.wait_for(|set| *set).await;
    }
}
