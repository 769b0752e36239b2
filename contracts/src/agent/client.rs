//! Client machinery: [`Client`], a typed client over any [`FramePort`] and any protocol's
//! tables (the agent's, or an app's composed on it), and [`ChatThread`], one attached chat kept
//! up to date by the shared [`Thread`] reducer.
//!
//! # Choices
//!
//! - The client is typed by its event table, `Client<E>`: `Client::new(port)` is the agent's
//!   (`Client<EventPayload>`); an app's is `Client::<app::EventPayload>::typed(port)`, whose
//!   events arrive as the app's `EventPayload` (its own events and the agent's, by name).
//! - A request is typed by its table entry: `client.request::<requests::ChatSend>(payload)`
//!   answers that entry's result, an app's entry as well as the agent's
//!   (`requests::DocumentRead` of the app's module). The payload is checked against the table
//!   before it is sent, and the result when it comes back, so a bad value is an error here and
//!   never a panic.
//! - Replies are matched to requests by id. A reply whose id no request waits for is ignored
//!   (its request was dropped, or the host is confused). Frames that cannot be used (not a
//!   server frame, a failure with a null id, an event whose payload breaks the table) are
//!   reported to [`Client::problems`] and otherwise dropped; the client keeps going.
//! - Events go to every [`Client::subscribe`] receiver, parsed by name into the client's event
//!   table. An event no entry of it knows (a newer host's, another app's) is never dropped
//!   silently: it goes to [`Client::problems`] as [`ProblemKind::UnknownEvent`], with its frame.
//! - When the port ends, every waiting request fails with [`ClientError::Closed`] and every
//!   receiver ends. Dropping a request's future forgets its id.
//! - [`ChatThread`] works over a client of any table that holds the agent's events (it reads
//!   them with [`Entry::get`], no copy), and reads its own event receiver, so events that arrive while an attach is in
//!   flight wait in it and are applied after the reply. An event is applied only when its seq
//!   is above the last one applied: after a snapshot that is the reply's seq, after a
//!   `resumed` reply it is the `since` the thread sent, so the replayed events apply in order.
//! - A `resumed` answer is believed only when its seq is of the epoch of the `since` (the part
//!   above 2^32, see `Seq`) and not below it; otherwise the thread is a snapshot's, so a host
//!   that lost the chat can never replay another conversation onto it.

use super::host::seq_epoch;
use super::thread::Thread;
use super::{
    AttachResult, Bookmark, ChatAttachPayload, ChatDetachPayload, ChatItem, EventPayload,
    HistoryPosition, Request, Seq, ServerFrameTyped, Visual, WireError, events,
    parse_server_frame_typed, requests,
};
use crate::port::{FramePort, Incoming, Outgoing, SendError, Subscription};
use crate::wire::{ByName, Entry, ParseError, RawJson, Refused, Request as Call, TableError};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{mpsc, oneshot};

/// Why a request failed.
#[derive(Debug)]
pub enum ClientError {
    /// The host refused the request with this error.
    Host(WireError),
    /// The payload breaks the request's table entry; nothing was sent.
    InvalidPayload(ParseError),
    /// The host's result breaks the request's table entry.
    InvalidResult(ParseError),
    /// The port refused the frame: it is closed or the frame breaks one of its limits.
    Send(SendError),
    /// The port ended (or the client was closed) before the reply came.
    Closed,
}

impl ClientError {
    /// The host's error, when the host refused.
    pub fn wire(&self) -> Option<&WireError> {
        match self {
            ClientError::Host(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Host(e) => {
                write!(f, "the host refused: {}: {}", e.code.as_str(), e.message)
            }
            ClientError::InvalidPayload(e) => write!(f, "the payload is invalid:\n{e}"),
            ClientError::InvalidResult(e) => write!(f, "the host's result is invalid:\n{e}"),
            ClientError::Send(e) => write!(f, "the request was not sent: {e}"),
            ClientError::Closed => f.write_str("the connection ended before the reply"),
        }
    }
}

impl std::error::Error for ClientError {}

/// A frame the client could not use, with why.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Which kind of frame it was.
    pub kind: ProblemKind,
    /// What was wrong, for a person to read.
    pub message: String,
    /// The frame as it arrived (JSON text), when there was one.
    pub frame: Option<String>,
}

/// What kind of frame a [`Problem`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// A frame over the port's size limit.
    TooLarge,
    /// Not a server frame (not JSON, or no reply or event envelope).
    NotAFrame,
    /// An event no entry of the client's table knows: a newer host's, or another protocol's.
    UnknownEvent,
    /// An event whose payload breaks its table entry.
    InvalidEvent,
    /// A failure with a null id: the host could not read one of the requests.
    UnreadableRequest,
}

/// An event table a [`Client`] reads with: a protocol's generated `EventPayload` (the agent's,
/// or an app's, which holds the agent's entries too).
pub trait EventTable: for<'de> ByName<'de> + Entry {}

impl<E: for<'de> ByName<'de> + Entry> EventTable for E {}

/// A typed client over a [`FramePort`], reading events with the table `E`. Clones share the
/// connection.
pub struct Client<E = EventPayload> {
    shared: Arc<Shared<E>>,
    port: Arc<dyn FramePort>,
    // Shared by the clones; the mutex makes it `Sync` so a client moves between tasks.
    _subscription: Arc<Mutex<Subscription>>,
}

impl<E> Clone for Client<E> {
    fn clone(&self) -> Self {
        Client {
            shared: self.shared.clone(),
            port: self.port.clone(),
            _subscription: self._subscription.clone(),
        }
    }
}

impl<E: EventTable> fmt::Debug for Client<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("closed", &self.is_closed())
            .finish()
    }
}

type Reply = Result<RawJson, WireError>;

struct Shared<E> {
    next_id: AtomicU64,
    state: Mutex<State<E>>,
}

struct State<E> {
    closed: bool,
    pending: HashMap<String, oneshot::Sender<Reply>>,
    events: Vec<mpsc::UnboundedSender<E>>,
    problems: Vec<mpsc::UnboundedSender<Problem>>,
}

impl<E: EventTable> Shared<E> {
    fn new() -> Self {
        Shared {
            next_id: AtomicU64::new(0),
            state: Mutex::new(State {
                closed: false,
                pending: HashMap::new(),
                events: Vec::new(),
                problems: Vec::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<E>> {
        // A panic while holding the lock leaves plain data behind; keep going.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Routes one incoming frame.
    fn receive(&self, frame: Incoming) {
        let text = match frame {
            Incoming::Text(text) => text,
            Incoming::Value(value) => value.to_string(),
            Incoming::TooLarge(e) => {
                return self.problem(ProblemKind::TooLarge, e.to_string(), None);
            }
        };
        let frame = match parse_server_frame_typed::<E>(&text) {
            Ok(frame) => frame,
            Err(Refused::Envelope(e)) => {
                let message = format!("not a server frame:\n{e}");
                return self.problem(ProblemKind::NotAFrame, message, Some(text));
            }
            // A newer host's event, or another protocol's: reported, never dropped silently.
            Err(Refused::Table(_, TableError::UnknownName(name))) => {
                let message = format!("no event of this client's table is called {name:?}");
                return self.problem(ProblemKind::UnknownEvent, message, Some(text));
            }
            Err(Refused::Table(_, e)) => {
                return self.problem(ProblemKind::InvalidEvent, e.to_string(), Some(text));
            }
        };
        match frame {
            ServerFrameTyped::ReplyOk(reply) => {
                let result = RawJson(reply.result.into_owned());
                self.answer(&reply.id, Ok(result))
            }
            ServerFrameTyped::ReplyError(reply) => match reply.id {
                Some(id) => self.answer(&id, Err(reply.error)),
                // The host could not read a request; which one is unknown.
                None => self.problem(
                    ProblemKind::UnreadableRequest,
                    format!("the host could not read a request: {}", reply.error.message),
                    Some(text),
                ),
            },
            ServerFrameTyped::Event(event) => {
                let payload = event.payload;
                self.lock()
                    .events
                    .retain(|tx| tx.send(payload.clone()).is_ok());
            }
        }
    }

    /// Hands a reply to the request waiting for it; a reply nobody waits for is dropped.
    fn answer(&self, id: &str, reply: Reply) {
        let waiter = self.lock().pending.remove(id);
        if let Some(waiter) = waiter {
            let _ = waiter.send(reply);
        }
    }

    fn problem(&self, kind: ProblemKind, message: String, frame: Option<String>) {
        let problem = Problem {
            kind,
            message,
            frame,
        };
        self.lock()
            .problems
            .retain(|tx| tx.send(problem.clone()).is_ok());
    }

    /// Fails every waiting request and ends every receiver.
    fn close(&self) {
        let mut s = self.lock();
        s.closed = true;
        s.pending.clear();
        s.events.clear();
        s.problems.clear();
    }
}

/// Closes the client when the port drops its listener (the port ended).
struct Listening<E: EventTable>(Arc<Shared<E>>);

impl<E: EventTable> Drop for Listening<E> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Forgets a request's id when its future is dropped before the reply.
struct Waiting<'a, E: EventTable> {
    shared: &'a Shared<E>,
    id: String,
}

impl<E: EventTable> Drop for Waiting<'_, E> {
    fn drop(&mut self) {
        self.shared.lock().pending.remove(&self.id);
    }
}

impl Client {
    /// The agent protocol's client over `port`; it listens at once.
    pub fn new<P: FramePort + 'static>(port: P) -> Client {
        Client::typed(port)
    }

    /// The agent protocol's client over a shared port.
    pub fn from_arc(port: Arc<dyn FramePort>) -> Client {
        Client::typed_arc(port)
    }
}

impl<E: EventTable> Client<E> {
    /// A client over `port` reading events with the table `E` (an app's `EventPayload`:
    /// `Client::<app::EventPayload>::typed(port)`); it listens at once.
    pub fn typed<P: FramePort + 'static>(port: P) -> Client<E> {
        Client::typed_arc(Arc::new(port))
    }

    /// [`typed`](Self::typed) over a shared port.
    pub fn typed_arc(port: Arc<dyn FramePort>) -> Client<E> {
        let shared = Arc::new(Shared::new());
        let listening = Listening(shared.clone());
        let subscription = port.on_frame(Box::new(move |frame| listening.0.receive(frame)));
        Client {
            shared,
            port,
            _subscription: Arc::new(Mutex::new(subscription)),
        }
    }

    /// Sends a request and waits for its reply, typed by the request's table entry.
    pub async fn request<R: Call>(&self, payload: R::Payload) -> Result<R::Result, ClientError> {
        let payload =
            RawJson::from_value(&payload).map_err(|e| ClientError::Send(SendError::Encode(e)))?;
        R::parse_payload(payload.get()).map_err(ClientError::InvalidPayload)?;
        let raw = self.request_raw(R::METHOD, payload).await?;
        R::parse_result(raw.get()).map_err(ClientError::InvalidResult)
    }

    /// Sends a request of any name with an unchecked payload and answers the unchecked
    /// result. For names outside the tables and for tests of a host's refusals.
    pub async fn request_raw(
        &self,
        method: &str,
        payload: RawJson,
    ) -> Result<RawJson, ClientError> {
        let id = self
            .shared
            .next_id
            .fetch_add(1, Ordering::Relaxed)
            .to_string();
        let (tx, rx) = oneshot::channel();
        {
            let mut s = self.shared.lock();
            if s.closed {
                return Err(ClientError::Closed);
            }
            s.pending.insert(id.clone(), tx);
        }
        let waiting = Waiting {
            shared: &self.shared,
            id,
        };
        let frame = Request::new(waiting.id.clone(), method, payload);
        let text =
            serde_json::to_string(&frame).map_err(|e| ClientError::Send(SendError::Encode(e)))?;
        self.port
            .send(Outgoing::Text(text))
            .map_err(ClientError::Send)?;
        let reply = rx.await;
        drop(waiting);
        match reply {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(ClientError::Host(error)),
            Err(_) => Err(ClientError::Closed),
        }
    }

    /// Every event from now on, parsed by name with the client's table. The receiver ends when
    /// the port does.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<E> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut s = self.shared.lock();
        if !s.closed {
            s.events.push(tx);
        }
        rx
    }

    /// Every frame from now on that the client could not use, an event its table does not
    /// know among them. The receiver ends when the port does.
    pub fn problems(&self) -> mpsc::UnboundedReceiver<Problem> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut s = self.shared.lock();
        if !s.closed {
            s.problems.push(tx);
        }
        rx
    }

    /// Whether the port ended (or [`close`](Self::close) was called).
    pub fn is_closed(&self) -> bool {
        self.shared.lock().closed
    }

    /// Fails every waiting request, ends every receiver and refuses new requests. The port is
    /// left as it is.
    pub fn close(&self) {
        self.shared.close();
    }
}

/// How a [`ChatThread::attach`] went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attached {
    /// The host answered a snapshot; the thread was replaced with it.
    Snapshot,
    /// The host still held every event after `since`; the thread was kept and the missed
    /// events follow.
    Resumed,
}

/// One attached chat, kept up to date: attach, apply chat.event frames with the shared
/// reducer, attach again with `since` after a reconnect. Over a client of any table that holds
/// the agent's events (an app's).
pub struct ChatThread<E = EventPayload> {
    client: Client<E>,
    events: mpsc::UnboundedReceiver<E>,
    chat_id: String,
    history_limit: Option<i64>,
    thread: Thread,
    seq: Option<Seq>,
    history: Option<HistoryPosition>,
    pending: Vec<ChatItem>,
    bookmarks: Vec<Bookmark>,
    visuals: Vec<Visual>,
}

impl<E: EventTable> fmt::Debug for ChatThread<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChatThread")
            .field("chat_id", &self.chat_id)
            .field("seq", &self.seq)
            .field("thread", &self.thread)
            .finish()
    }
}

impl<E: EventTable> ChatThread<E> {
    /// A thread for `chat_id` over `client`, empty until [`attach`](Self::attach). It listens
    /// to the client's events from now on.
    pub fn new(client: &Client<E>, chat_id: impl Into<String>) -> ChatThread<E> {
        ChatThread {
            events: client.subscribe(),
            client: client.clone(),
            chat_id: chat_id.into(),
            history_limit: None,
            thread: Thread::default(),
            seq: None,
            history: None,
            pending: Vec::new(),
            bookmarks: Vec::new(),
            visuals: Vec::new(),
        }
    }

    /// Asks for this many items in a snapshot (1 to 100) instead of the host's default.
    pub fn with_history_limit(mut self, limit: i64) -> ChatThread<E> {
        self.history_limit = Some(limit);
        self
    }

    /// Attaches: sends the last seq applied as `since`, if any. A snapshot replaces the thread,
    /// never appends to it; a `resumed` answer keeps it, and the missed events follow.
    pub async fn attach(&mut self) -> Result<Attached, ClientError> {
        let mut payload = ChatAttachPayload::new(self.chat_id.clone());
        payload.history_limit = self.history_limit;
        payload.since = self.seq;
        let result = self.client.request::<requests::ChatAttach>(payload).await?;
        Ok(self.apply_attach(result))
    }

    /// Moves to a new connection and attaches again with `since`.
    pub async fn reconnect(&mut self, client: &Client<E>) -> Result<Attached, ClientError> {
        self.events = client.subscribe();
        self.client = client.clone();
        self.attach().await
    }

    /// Sends chat.detach; the thread stays as it is.
    pub async fn detach(&mut self) -> Result<(), ClientError> {
        self.client
            .request::<requests::ChatDetach>(ChatDetachPayload::new(self.chat_id.clone()))
            .await?;
        Ok(())
    }

    fn apply_attach(&mut self, result: AttachResult) -> Attached {
        // Only after a `since`; a host without the flag resumes with an empty `items` (and a
        // seq not below the `since`: a lower one is a chat that started over).
        // Never resumed across epochs: a seq of another epoch than the `since` (another chat,
        // or a host that lost it) or below it is a chat that started over.
        let resumed = self.seq.is_some_and(|since| {
            let same_epoch = result
                .seq
                .is_none_or(|seq| seq >= since && seq_epoch(seq) == seq_epoch(since));
            same_epoch && result.resumed.unwrap_or(result.items.is_empty())
        });
        if let Some(bookmarks) = result.bookmarks {
            self.bookmarks = bookmarks;
        }
        if let Some(visuals) = result.visuals {
            self.visuals = visuals;
        }
        if resumed {
            // Keep the thread and its seq: the events after `since` follow.
            self.thread.info = Some(result.info);
            if let Some(pending) = result.pending {
                self.pending = pending;
            }
            return Attached::Resumed;
        }
        self.thread = Thread::from_snapshot(result.info, result.items);
        self.seq = result.seq;
        self.history = result.history;
        self.pending = result.pending.unwrap_or_default();
        Attached::Snapshot
    }

    /// Waits for the next event from the client, applies it when it is about this chat, and
    /// answers it. `None` once the connection ended.
    pub async fn next_event(&mut self) -> Option<E> {
        let event = self.events.recv().await?;
        self.apply(&event);
        Some(event)
    }

    /// Applies every event that already arrived, without waiting; answers how many there were.
    pub fn drain(&mut self) -> usize {
        let mut n = 0;
        while let Ok(event) = self.events.try_recv() {
            self.apply(&event);
            n += 1;
        }
        n
    }

    /// Applies one event if it is about this chat: a chat.event with a seq above the last one
    /// applied (or without a seq), a chat.bookmarks, a chat.visuals. Answers whether it did.
    pub fn apply(&mut self, event: &E) -> bool {
        if let Some(e) = event.get::<events::ChatEvent>() {
            if e.chat_id != self.chat_id {
                return false;
            }
            if let (Some(seq), Some(last)) = (e.seq, self.seq)
                && seq <= last
            {
                return false;
            }
            self.thread.apply(&e.event);
            self.seq = e.seq.or(self.seq);
            return true;
        }
        if let Some(e) = event.get::<events::ChatBookmarks>()
            && e.chat_id == self.chat_id
        {
            self.bookmarks = e.bookmarks.clone();
            return true;
        }
        if let Some(e) = event.get::<events::ChatVisuals>()
            && e.chat_id == self.chat_id
        {
            self.visuals = e.visuals.clone();
            return true;
        }
        false
    }

    /// The chat's id.
    pub fn chat_id(&self) -> &str {
        &self.chat_id
    }

    /// The thread as last applied.
    pub fn thread(&self) -> &Thread {
        &self.thread
    }

    /// The last seq applied: what a reconnect sends as `since`.
    pub fn seq(&self) -> Option<Seq> {
        self.seq
    }

    /// Where the snapshot's page starts and the cursor before it.
    pub fn history(&self) -> Option<&HistoryPosition> {
        self.history.as_ref()
    }

    /// The requests still waiting, as the last attach answered them.
    pub fn pending(&self) -> &[ChatItem] {
        &self.pending
    }

    /// The chat's bookmarks.
    pub fn bookmarks(&self) -> &[Bookmark] {
        &self.bookmarks
    }

    /// The chat's visuals.
    pub fn visuals(&self) -> &[Visual] {
        &self.visuals
    }

    /// The client this thread talks through.
    pub fn client(&self) -> &Client<E> {
        &self.client
    }
}

/// A client and a thread move between tasks and threads.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Client>();
    send_sync::<ChatThread>();
};
