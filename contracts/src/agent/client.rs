//! Client machinery: [`Client`], a typed client over any [`FramePort`], and [`ChatThread`],
//! one attached chat kept up to date by the shared [`Thread`] reducer.
//!
//! # Choices
//!
//! - A request is typed by its table entry: `client.request::<requests::ChatSend>(payload)`
//!   answers that entry's result. The payload is checked against the table before it is sent,
//!   and the result when it comes back, so a bad value is an error here and never a panic.
//! - Replies are matched to requests by id. A reply whose id no request waits for is ignored
//!   (its request was dropped, or the host is confused). Frames that cannot be used (not a
//!   server frame, a failure with a null id, an event whose payload breaks the table) are
//!   reported to [`Client::problems`] and otherwise dropped; the client keeps going.
//! - Events go to every [`Client::subscribe`] receiver, parsed by name into [`EventPayload`].
//!   An event no table of this client knows is a newer host's: it is skipped quietly.
//! - When the port ends, every waiting request fails with [`ClientError::Closed`] and every
//!   receiver ends. Dropping a request's future forgets its id.
//! - [`ChatThread`] reads its own event receiver, so events that arrive while an attach is in
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
    HistoryPosition, Request, Seq, ServerFrameTyped, Visual, WireError, parse_server_frame_typed,
    requests,
};
use crate::port::{FramePort, Incoming, Outgoing, SendError, Subscription};
use crate::wire::{ParseError, RawJson, Refused, Request as Call, TableError};
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
    /// What was wrong, for a person to read.
    pub message: String,
    /// The frame as it arrived (JSON text), when there was one.
    pub frame: Option<String>,
}

/// A typed client over a [`FramePort`]. Clones share the connection.
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
    port: Arc<dyn FramePort>,
    // Shared by the clones; the mutex makes it `Sync` so a client moves between tasks.
    _subscription: Arc<Mutex<Subscription>>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("closed", &self.is_closed())
            .finish()
    }
}

type Reply = Result<RawJson, WireError>;

#[derive(Default)]
struct Shared {
    next_id: AtomicU64,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    closed: bool,
    pending: HashMap<String, oneshot::Sender<Reply>>,
    events: Vec<mpsc::UnboundedSender<EventPayload>>,
    problems: Vec<mpsc::UnboundedSender<Problem>>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind; keep going.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Routes one incoming frame.
    fn receive(&self, frame: Incoming) {
        let text = match frame {
            Incoming::Text(text) => text,
            Incoming::Value(value) => value.to_string(),
            Incoming::TooLarge(e) => return self.problem(e.to_string(), None),
        };
        let frame = match parse_server_frame_typed::<EventPayload>(&text) {
            Ok(frame) => frame,
            Err(Refused::Envelope(e)) => {
                return self.problem(format!("not a server frame:\n{e}"), Some(text));
            }
            // A newer host's event: not for this client.
            Err(Refused::Table(_, TableError::UnknownName(_))) => return,
            Err(Refused::Table(_, e)) => return self.problem(e.to_string(), Some(text)),
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

    fn problem(&self, message: String, frame: Option<String>) {
        let problem = Problem { message, frame };
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
struct Listening(Arc<Shared>);

impl Drop for Listening {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Forgets a request's id when its future is dropped before the reply.
struct Waiting<'a> {
    shared: &'a Shared,
    id: String,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.shared.lock().pending.remove(&self.id);
    }
}

impl Client {
    /// A client over `port`; it listens at once.
    pub fn new<P: FramePort + 'static>(port: P) -> Client {
        Client::from_arc(Arc::new(port))
    }

    /// A client over a shared port.
    pub fn from_arc(port: Arc<dyn FramePort>) -> Client {
        let shared = Arc::new(Shared::default());
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
        let frame = Request {
            id: waiting.id.clone(),
            r#type: method.to_owned(),
            payload,
        };
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

    /// Every event from now on, parsed by name. The receiver ends when the port does.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<EventPayload> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut s = self.shared.lock();
        if !s.closed {
            s.events.push(tx);
        }
        rx
    }

    /// Every frame from now on that the client could not use. The receiver ends when the port
    /// does.
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
/// reducer, attach again with `since` after a reconnect.
pub struct ChatThread {
    client: Client,
    events: mpsc::UnboundedReceiver<EventPayload>,
    chat_id: String,
    history_limit: Option<i64>,
    thread: Thread,
    seq: Option<Seq>,
    history: Option<HistoryPosition>,
    pending: Vec<ChatItem>,
    bookmarks: Vec<Bookmark>,
    visuals: Vec<Visual>,
}

impl fmt::Debug for ChatThread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChatThread")
            .field("chat_id", &self.chat_id)
            .field("seq", &self.seq)
            .field("thread", &self.thread)
            .finish()
    }
}

impl ChatThread {
    /// A thread for `chat_id` over `client`, empty until [`attach`](Self::attach). It listens
    /// to the client's events from now on.
    pub fn new(client: &Client, chat_id: impl Into<String>) -> ChatThread {
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
    pub fn with_history_limit(mut self, limit: i64) -> ChatThread {
        self.history_limit = Some(limit);
        self
    }

    /// Attaches: sends the last seq applied as `since`, if any. A snapshot replaces the thread,
    /// never appends to it; a `resumed` answer keeps it, and the missed events follow.
    pub async fn attach(&mut self) -> Result<Attached, ClientError> {
        let payload = ChatAttachPayload {
            chat_id: self.chat_id.clone(),
            history_limit: self.history_limit,
            since: self.seq,
        };
        let result = self.client.request::<requests::ChatAttach>(payload).await?;
        Ok(self.apply_attach(result))
    }

    /// Moves to a new connection and attaches again with `since`.
    pub async fn reconnect(&mut self, client: &Client) -> Result<Attached, ClientError> {
        self.events = client.subscribe();
        self.client = client.clone();
        self.attach().await
    }

    /// Sends chat.detach; the thread stays as it is.
    pub async fn detach(&mut self) -> Result<(), ClientError> {
        self.client
            .request::<requests::ChatDetach>(ChatDetachPayload {
                chat_id: self.chat_id.clone(),
            })
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
    pub async fn next_event(&mut self) -> Option<EventPayload> {
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
    pub fn apply(&mut self, event: &EventPayload) -> bool {
        match event {
            EventPayload::ChatEvent(e) if e.chat_id == self.chat_id => {
                if let (Some(seq), Some(last)) = (e.seq, self.seq)
                    && seq <= last
                {
                    return false;
                }
                self.thread.apply(&e.event);
                self.seq = e.seq.or(self.seq);
                true
            }
            EventPayload::ChatBookmarks(e) if e.chat_id == self.chat_id => {
                self.bookmarks = e.bookmarks.clone();
                true
            }
            EventPayload::ChatVisuals(e) if e.chat_id == self.chat_id => {
                self.visuals = e.visuals.clone();
                true
            }
            _ => false,
        }
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
    pub fn client(&self) -> &Client {
        &self.client
    }
}

/// A client and a thread move between tasks and threads.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Client>();
    send_sync::<ChatThread>();
};
