//! The core of a connection, whatever carries its frames ([`Transport`]: a port, a
//! Streamable HTTP session): it reads each incoming message, answers the other side's
//! requests on tasks of their own (a bound on how many at once, the rest waiting in a bounded
//! queue), hears its notifications in order on one task, routes responses to the calls
//! waiting for them once the notifications before them are heard ([`Order`]), and cancels a
//! request its cancel notification names.
//!
//! # Phases
//!
//! Open (messages come) → draining (the input ended: what was taken is still served, calls
//! waiting fail) → done (every request answered; the transport is let go of). Closing here
//! ([`Core::close`]) skips the serving: handlers are aborted, nothing more is answered.

use std::collections::{HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures_util::FutureExt;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::{Semaphore, mpsc, oneshot, watch};
use tokio::task::AbortHandle;

use super::handler::Handler;
use super::message::{self, Answer, ErrorObject, INTERNAL_ERROR, Id, Message, OVERLOADED, Refusal};
use super::options::{Cancel, Options};
use super::peer::Error;
use super::serving::{self, Cancellation, Serving};
use crate::port::{Incoming, SendError};

/// What an outgoing message relates to: where Streamable HTTP sends it.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) enum Route<'a> {
    /// The response to the other side's request `id`.
    Response(&'a Id),
    /// A request or notification sent while serving the other side's request `id`.
    Related(&'a Id),
    /// Anything else.
    Unrelated,
}

/// What carries a connection's frames out.
pub(crate) trait Transport: Send + Sync + 'static {
    /// Sends one frame (JSON text on one line).
    fn send(&self, frame: String, route: Route<'_>) -> Result<(), SendError>;
    /// Ends the response stream of request `id`, if the transport has one to end.
    fn close_stream(&self, id: &Id) -> bool {
        let _ = id;
        false
    }
    /// Request `id` was cancelled by the other side: it will never be answered.
    fn cancelled(&self, id: &Id) {
        let _ = id;
    }
    /// Lets go of the way out (and stops reading, where the transport reads).
    fn close(&self);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    Open,
    Draining,
    Closing,
    Done,
}

/// A call's outcome: the other side's result, or why there is none.
type Outcome = Result<Box<RawValue>, Error>;

/// Where the answer to a call of ours comes.
pub(crate) type Answered = oneshot::Receiver<Outcome>;

/// A request taken, waiting for a place among those served.
struct Waiting {
    id: Id,
    seq: u64,
    method: String,
    params: Box<RawValue>,
    cancellation: Cancellation,
}

/// A notification waiting to be heard.
struct Heard {
    method: String,
    params: Box<RawValue>,
}

/// A request of the other side taken and not yet answered: `seq` tells it from a later
/// request that reuses its id; `abort` stops its task once it runs; `cancellation` is set
/// instead when its handler took it over, and `cancelled` says that happened.
struct Slot {
    seq: u64,
    abort: Option<AbortHandle>,
    cancellation: Cancellation,
    cancelled: bool,
}

/// A call of ours waiting for its answer.
struct Call {
    answer: oneshot::Sender<Outcome>,
    /// Its answer waits for the notifications received before it to be heard (not for a
    /// call made while hearing one: those behind it cannot be heard before it ends).
    ordered: bool,
}

/// Calls of ours waiting for their answers, and whether answers can still come.
#[derive(Default)]
struct Calls {
    ended: bool,
    waiting: HashMap<i64, Call>,
}

/// Keeps responses behind the notifications that came before them: notifications counted as
/// they are queued and as they are heard, and the answers that came before their turn, each
/// with the count it waits for. At most one answer per call of ours is kept.
#[derive(Default)]
struct Order {
    /// Notifications queued so far.
    received: u64,
    /// Notifications heard so far (the queue is heard in order).
    heard: u64,
    /// Answers waiting for `heard` to reach their count, in the order they came (so counts
    /// never decrease along it).
    early: VecDeque<(u64, oneshot::Sender<Outcome>, Outcome)>,
}

/// The receiving halves of a connection's queues, handed to its tasks.
pub(crate) struct Queues {
    requests: mpsc::Receiver<Waiting>,
    notifications: mpsc::Receiver<Heard>,
}

/// One connection's state, shared by its [`Peer`](super::Peer)s, its tasks and its transport.
pub(crate) struct Core {
    /// Tells this connection's requests from another's in the task-local of the one served.
    pub(crate) connection: u64,
    pub(crate) transport: Arc<dyn Transport>,
    options: Options,
    next_id: AtomicI64,
    next_seq: AtomicU64,
    calls: Mutex<Calls>,
    order: Mutex<Order>,
    serving: Mutex<HashMap<Id, Slot>>,
    requests: mpsc::Sender<Waiting>,
    notifications: mpsc::Sender<Heard>,
    phase: watch::Sender<Phase>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

static CONNECTIONS: AtomicU64 = AtomicU64::new(1);

impl Core {
    /// A connection over `transport`, and the queues its tasks take work from.
    pub(crate) fn new(transport: Arc<dyn Transport>, options: Options) -> (Arc<Self>, Queues) {
        let (requests, requests_rx) = mpsc::channel(options.max_waiting);
        let (notifications, notifications_rx) = mpsc::channel(options.max_waiting);
        let core = Arc::new(Core {
            connection: CONNECTIONS.fetch_add(1, Ordering::Relaxed),
            transport,
            options,
            next_id: AtomicI64::new(1),
            next_seq: AtomicU64::new(0),
            calls: Mutex::new(Calls::default()),
            order: Mutex::new(Order::default()),
            serving: Mutex::new(HashMap::new()),
            requests,
            notifications,
            phase: watch::Sender::new(Phase::Open),
        });
        (
            core,
            Queues {
                requests: requests_rx,
                notifications: notifications_rx,
            },
        )
    }

    /// Starts serving `handler`: the connection's task, which ends once the connection is over.
    pub(crate) fn start<H: Handler>(self: &Arc<Self>, handler: H, queues: Queues) {
        tokio::spawn(run(self.clone(), Arc::new(handler), queues));
    }

    // ---- incoming ----

    /// Takes one frame off a port, at once: what cannot wait for room is refused (a request
    /// answered "overloaded"; a flood of notifications ends the connection).
    pub(crate) fn receive_now(&self, frame: Incoming) {
        if let Incoming::TooLarge(too_large) = frame {
            self.refuse(&Refusal::invalid(
                None,
                format!("invalid request: {too_large}"),
            ));
            return;
        }
        let Some(text) = frame.to_text() else { return };
        let message = match message::read(&text) {
            Ok(message) => message,
            Err(refusal) => return self.refuse(&refusal),
        };
        match self.take(message) {
            Some(Taken::Request(waiting)) => {
                if let Err(mpsc::error::TrySendError::Full(waiting)) =
                    self.requests.try_send(waiting)
                {
                    let _ = self.forget(&waiting.id, waiting.seq);
                    let error = ErrorObject::new(
                        OVERLOADED,
                        format!(
                            "overloaded: {} requests are waiting to be served; send this one again after an answer",
                            self.options.max_waiting
                        ),
                    );
                    self.answer_error(&waiting.id, &error);
                }
            }
            Some(Taken::Notification(heard)) => {
                let mut order = lock(&self.order);
                let queued = self.notifications.try_send(heard);
                if queued.is_ok() {
                    order.received += 1;
                }
                drop(order);
                if let Err(mpsc::error::TrySendError::Full(heard)) = queued {
                    tracing::warn!(
                        method = %heard.method,
                        waiting = self.options.max_waiting,
                        "JSON-RPC peer sends notifications faster than they are heard: closing the connection"
                    );
                    self.close();
                }
            }
            None => {}
        }
    }

    /// Takes one message read elsewhere (a Streamable HTTP POST), waiting for room in the
    /// queues: the sender is held back instead of refused.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) async fn receive(&self, message: Message) {
        match self.take(message) {
            Some(Taken::Request(waiting)) => {
                let _ = self.requests.send(waiting).await;
            }
            Some(Taken::Notification(heard)) => {
                // Queued and counted at once, so the count follows the queue's order.
                if let Ok(room) = self.notifications.reserve().await {
                    let mut order = lock(&self.order);
                    room.send(heard);
                    order.received += 1;
                }
            }
            None => {}
        }
    }

    /// Answers a message refused before it reached a handler.
    pub(crate) fn refuse(&self, refusal: &Refusal) {
        let route = match &refusal.id {
            Some(id) => Route::Response(id),
            None => Route::Unrelated,
        };
        let _ = self
            .transport
            .send(message::refusal(refusal, self.options.null_id), route);
    }

    /// Handles a response or a cancel at once; answers the work a request or a notification
    /// is for the connection's tasks.
    fn take(&self, message: Message) -> Option<Taken> {
        if *self.phase.borrow() >= Phase::Closing {
            return None;
        }
        match message {
            Message::Response { id, outcome } => {
                self.resolve(id, outcome);
                None
            }
            Message::Notification { method, params } => {
                if let Some(cancel) = &self.options.cancel
                    && method == cancel.method
                {
                    self.cancelled(&params, cancel);
                }
                Some(Taken::Notification(Heard { method, params }))
            }
            Message::Request { id, method, params } => {
                let mut serving = lock(&self.serving);
                if serving.contains_key(&id) {
                    drop(serving);
                    // Answered as an unreadable message is: the id is the one being served's.
                    self.refuse(&Refusal::invalid(
                        None,
                        format!("invalid request: request {id} is already being served; an id is used once"),
                    ));
                    return None;
                }
                let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
                let cancellation = Cancellation::new();
                serving.insert(
                    id.clone(),
                    Slot {
                        seq,
                        abort: None,
                        cancellation: cancellation.clone(),
                        cancelled: false,
                    },
                );
                Some(Taken::Request(Waiting {
                    id,
                    seq,
                    method,
                    params,
                    cancellation,
                }))
            }
        }
    }

    /// The other side cancelled a request of its own: its handler is aborted and the request
    /// answered as `cancel` says (never, or with its error), or, when the handler took its
    /// cancellation over, the cancellation is set and the handler answers.
    fn cancelled(&self, params: &RawValue, cancel: &Cancel) {
        let Ok(params) =
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(params.get())
        else {
            return;
        };
        let Some(Ok(id)) = params.get(cancel.id_key.as_ref()).map(Id::deserialize) else {
            return;
        };
        let mut serving = lock(&self.serving);
        let Some(slot) = serving.get_mut(&id).filter(|slot| !slot.cancelled) else {
            return;
        };
        if slot.cancellation.is_taken() {
            slot.cancelled = true;
            let cancellation = slot.cancellation.clone();
            drop(serving);
            cancellation.set();
            if cancel.answer.is_none() {
                self.transport.cancelled(&id);
            }
            return;
        }
        let slot = serving.remove(&id).expect("found above");
        drop(serving);
        if let Some(abort) = slot.abort {
            abort.abort();
        }
        match &cancel.answer {
            Some(error) => self.answer_error(&id, error),
            None => self.transport.cancelled(&id),
        }
    }

    /// Forgets request `id` if it is still the one numbered `seq`: answers whether its
    /// handler's answer is to be sent (not when the request was cancelled and aborted, or
    /// cancelled where the protocol answers nothing, or the connection closed).
    fn forget(&self, id: &Id, seq: u64) -> bool {
        let mut serving = lock(&self.serving);
        match serving.get(id) {
            Some(slot) if slot.seq == seq => {
                let cancelled = slot.cancelled;
                serving.remove(id);
                let answers = self
                    .options
                    .cancel
                    .as_ref()
                    .is_some_and(|c| c.answer.is_some());
                !cancelled || answers
            }
            _ => false,
        }
    }

    /// Routes a response to the call waiting for it, at once when every notification received
    /// before it has been heard, else once they have.
    fn resolve(&self, id: Option<Id>, outcome: Result<Box<RawValue>, Answer>) {
        let outcome = outcome.map_err(|answer| match answer {
            Answer::Error(e) => Error::Remote(e),
            Answer::Invalid(why) => Error::InvalidResponse(why),
        });
        let Some(Id::Number(n)) = id else {
            match (&id, &outcome) {
                (None, Err(e)) => {
                    tracing::warn!(error = %e, "JSON-RPC peer could not read a message of ours")
                }
                _ => tracing::debug!(id = ?id, "JSON-RPC response to no call of ours dropped"),
            }
            return;
        };
        let waiting = lock(&self.calls).waiting.remove(&n);
        let Some(Call { answer, ordered }) = waiting else {
            tracing::debug!(id = n, "JSON-RPC response to no call waiting dropped");
            return;
        };
        if ordered {
            let mut order = lock(&self.order);
            if order.heard < order.received {
                let after = order.received;
                order.early.push_back((after, answer, outcome));
                return;
            }
        }
        let _ = answer.send(outcome);
    }

    /// One more notification heard: the answers that waited for it go to their calls.
    fn heard_one(&self) {
        let ready: Vec<_> = {
            let mut order = lock(&self.order);
            order.heard += 1;
            let heard = order.heard;
            let due = order
                .early
                .iter()
                .take_while(|(after, ..)| *after <= heard)
                .count();
            order.early.drain(..due).collect()
        };
        for (_, answer, outcome) in ready {
            let _ = answer.send(outcome);
        }
    }

    /// Hands the answers still waiting for notifications to their calls: with the outcome
    /// when no notification is left to hear, else failed (the connection closed first).
    fn release_early(&self, closed: bool) {
        let early = std::mem::take(&mut lock(&self.order).early);
        for (_, answer, outcome) in early {
            let _ = answer.send(if closed { Err(Error::Closed) } else { outcome });
        }
    }

    // ---- outgoing ----

    /// Sends a request; answers its id and where its answer will come.
    pub(crate) fn call(
        &self,
        method: &str,
        params: &RawValue,
        route: Route<'_>,
    ) -> Result<(i64, Answered), Error> {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        let ordered = !serving::is_hearing(self.connection);
        {
            let mut calls = lock(&self.calls);
            if calls.ended {
                return Err(Error::Closed);
            }
            calls.waiting.insert(
                n,
                Call {
                    answer: tx,
                    ordered,
                },
            );
        }
        let frame = message::request(&Id::Number(n), method, params);
        if let Err(e) = self.transport.send(frame, route) {
            lock(&self.calls).waiting.remove(&n);
            return Err(Error::Send(e));
        }
        Ok((n, rx))
    }

    /// Fails call `n` (what carries it could not deliver it), if it still waits.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn fail_call(&self, n: i64, error: Error) {
        let waiting = lock(&self.calls).waiting.remove(&n);
        if let Some(call) = waiting {
            let _ = call.answer.send(Err(error));
        }
    }

    /// Whether call `n` still waits for its answer.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_waiting(&self, n: i64) -> bool {
        lock(&self.calls).waiting.contains_key(&n)
    }

    /// Sends a notification.
    pub(crate) fn notify(
        &self,
        method: &str,
        params: &RawValue,
        route: Route<'_>,
    ) -> Result<(), SendError> {
        self.transport
            .send(message::notification(method, params), route)
    }

    /// Forgets call `n`, whose caller stopped waiting; tells the other side when the
    /// connection has a cancel notification.
    pub(crate) fn abandon(&self, n: i64, route: Route<'_>) {
        if lock(&self.calls).waiting.remove(&n).is_none() {
            return;
        }
        let Some(cancel) = &self.options.cancel else {
            return;
        };
        let mut params = serde_json::Map::new();
        params.insert(cancel.id_key.to_string(), n.into());
        if let Some(key) = &cancel.reason_key {
            params.insert(key.to_string(), "the caller stopped waiting".into());
        }
        let params = serde_json::value::to_raw_value(&params).expect("a map of JSON values");
        let _ = self.notify(&cancel.method, &params, route);
    }

    /// Answers request `id` with `frame`; a response the transport refuses for its size is
    /// answered with an internal error instead, so the caller is not left waiting.
    fn answer(&self, id: &Id, frame: String) {
        match self.transport.send(frame, Route::Response(id)) {
            Err(SendError::TooLarge(too_large)) => {
                let error = ErrorObject::new(
                    INTERNAL_ERROR,
                    format!("internal error: the response was not sent: {too_large}"),
                );
                self.answer_error(id, &error);
            }
            Err(e) => {
                tracing::debug!(id = %id, error = %e, "JSON-RPC response not sent");
            }
            Ok(()) => {}
        }
    }

    fn answer_error(&self, id: &Id, error: &ErrorObject) {
        let frame = message::error(Some(id), error).expect("an error object always serialises");
        let _ = self.transport.send(frame, Route::Response(id));
    }

    // ---- phases ----

    /// The other side's messages stopped coming: calls waiting fail, and what was taken is
    /// still served.
    pub(crate) fn end_input(&self) {
        self.fail_calls();
        self.phase.send_if_modified(|phase| {
            let open = *phase == Phase::Open;
            if open {
                *phase = Phase::Draining;
            }
            open
        });
    }

    /// Closes here: handlers stop, calls fail (those answered early too: the notifications
    /// before their answers will not be heard), the transport is let go of.
    pub(crate) fn close(&self) {
        self.fail_calls();
        self.release_early(true);
        let closing = self.phase.send_if_modified(|phase| {
            let before = *phase < Phase::Closing;
            if before {
                *phase = Phase::Closing;
            }
            before
        });
        if closing {
            let serving = std::mem::take(&mut *lock(&self.serving));
            for slot in serving.into_values() {
                if let Some(abort) = slot.abort {
                    abort.abort();
                }
            }
            self.transport.close();
        }
    }

    fn fail_calls(&self) {
        let waiting = {
            let mut calls = lock(&self.calls);
            calls.ended = true;
            std::mem::take(&mut calls.waiting)
        };
        for call in waiting.into_values() {
            let _ = call.answer.send(Err(Error::Closed));
        }
    }

    pub(crate) fn is_ended(&self) -> bool {
        *self.phase.borrow() != Phase::Open
    }

    fn is_closing(&self) -> bool {
        *self.phase.borrow() >= Phase::Closing
    }

    async fn reached(&self, phase: Phase) {
        let mut watch = self.phase.subscribe();
        let _ = watch.wait_for(|p| *p >= phase).await;
    }

    pub(crate) async fn done(&self) {
        self.reached(Phase::Done).await;
    }
}

/// What [`Core::take`] leaves for the connection's tasks.
enum Taken {
    Request(Waiting),
    Notification(Heard),
}

/// The connection's task: requests and notifications until the input ends, then every
/// request still served, then done.
async fn run<H: Handler>(core: Arc<Core>, handler: Arc<H>, queues: Queues) {
    let max = core.options.max_in_flight;
    let places = Arc::new(Semaphore::new(max));
    tokio::join!(
        serve_requests(&core, &handler, queues.requests, &places),
        hear_notifications(&core, &handler, queues.notifications),
    );
    // Every place back: each request taken has been answered (or aborted).
    let _ = places
        .acquire_many(u32::try_from(max).unwrap_or(u32::MAX))
        .await;
    core.fail_calls();
    core.release_early(core.is_closing());
    core.phase.send_replace(Phase::Done);
    core.transport.close();
}

/// The next item of a queue while the connection is open; once draining, what is left;
/// nothing once closing.
async fn next<T>(core: &Core, queue: &mut mpsc::Receiver<T>) -> Option<T> {
    tokio::select! {
        biased;
        item = queue.recv() => item.filter(|_| !core.is_closing()),
        () = core.reached(Phase::Draining) => {
            if core.is_closing() { None } else { queue.try_recv().ok() }
        }
    }
}

/// Waits for a place, takes the next request waiting, and serves it on a task of its own.
/// The place comes first, so a request waits in the queue alone: at most `max_in_flight`
/// are served and `max_waiting` wait, exactly (as the TypeScript runtime counts them).
async fn serve_requests<H: Handler>(
    core: &Arc<Core>,
    handler: &Arc<H>,
    mut queue: mpsc::Receiver<Waiting>,
    places: &Arc<Semaphore>,
) {
    loop {
        let place = tokio::select! {
            place = places.clone().acquire_owned() => place.expect("the semaphore is never closed"),
            () = core.reached(Phase::Closing) => break,
        };
        let Some(waiting) = next(core, &mut queue).await else {
            break;
        };
        let mut serving = lock(&core.serving);
        // Cancelled while it waited.
        let Some(slot) = serving
            .get_mut(&waiting.id)
            .filter(|s| s.seq == waiting.seq)
        else {
            continue;
        };
        let task = tokio::spawn(serve_one(core.clone(), handler.clone(), waiting, place));
        slot.abort = Some(task.abort_handle());
    }
}

/// Serves one request and answers it, unless it was cancelled meanwhile.
async fn serve_one<H: Handler>(
    core: Arc<Core>,
    handler: Arc<H>,
    waiting: Waiting,
    _place: tokio::sync::OwnedSemaphorePermit,
) {
    let Waiting {
        id,
        seq,
        method,
        params,
        cancellation,
    } = waiting;
    let served = Serving {
        connection: core.connection,
        id: id.clone(),
        cancellation,
    };
    let outcome = AssertUnwindSafe(serving::serving(served, handler.request(&method, &params)))
        .catch_unwind()
        .await;
    if !core.forget(&id, seq) {
        return;
    }
    let frame = match outcome {
        Ok(Ok(result)) => message::result(&id, &result),
        Ok(Err(error)) => match message::error(Some(&id), &error) {
            Ok(frame) => frame,
            Err(e) => internal(
                &id,
                &format!("internal error: the error could not be written: {e}"),
            ),
        },
        Err(_) => internal(
            &id,
            &format!("internal error: the handler of {method} panicked"),
        ),
    };
    core.answer(&id, frame);
}

fn internal(id: &Id, message: &str) -> String {
    message::error(Some(id), &ErrorObject::new(INTERNAL_ERROR, message))
        .expect("an error object always serialises")
}

/// Hears each notification, one at a time, in order.
async fn hear_notifications<H: Handler>(
    core: &Arc<Core>,
    handler: &Arc<H>,
    mut queue: mpsc::Receiver<Heard>,
) {
    while let Some(Heard { method, params }) = next(core, &mut queue).await {
        let heard = AssertUnwindSafe(serving::hearing(
            core.connection,
            handler.notification(&method, &params),
        ))
        .catch_unwind();
        let outcome = tokio::select! {
            outcome = heard => outcome,
            () = core.reached(Phase::Closing) => break,
        };
        core.heard_one();
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                tracing::debug!(method = %method, error = %error, "JSON-RPC notification refused");
            }
            Err(_) => {
                tracing::warn!(method = %method, "JSON-RPC notification handler panicked");
            }
        }
    }
}
