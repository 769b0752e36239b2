//! One Streamable HTTP session's streams: where each message of the server goes.
//!
//! A request POSTed gets a stream of its own. Its answer is decided by the first message
//! that goes on it: the response alone is answered as `application/json`; anything before it
//! (a notification or a request related to the POSTed one: progress, logging, sampling) turns
//! the answer into a `text/event-stream` (priming event first), which ends after the
//! response. Messages related to no open request go on stream 0, the session's `GET` stream.
//!
//! Every event gets an id (`STREAM-SEQ`) and is kept (a bounded number per stream, and a
//! bounded number of answered streams), so a client that lost a connection, or whose stream
//! the server ended to make it poll, resumes with `GET` and `Last-Event-ID`: the events after
//! that id are replayed on the new connection, and the stream goes on there.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{mpsc, oneshot};

use super::sse::{self, EventId};
use crate::port::SendError;
use crate::rpc::connection::{Route, Transport};
use crate::rpc::message::Id;

/// Events a live connection may have waiting before it is cut (the client resumes).
const LIVE_BUFFER: usize = 256;
/// Answered streams kept for a client to resume.
const FINISHED_KEPT: usize = 32;
/// The session's `GET` stream.
const STANDALONE: u64 = 0;

/// How a POSTed request's HTTP response goes out, once decided.
#[derive(Debug)]
pub(crate) enum Reply {
    /// The response alone, as `application/json`.
    Json(String),
    /// An event stream.
    Sse(mpsc::Receiver<Bytes>),
    /// Cancelled by the client: an event stream with nothing on it.
    Cancelled,
    /// The session ended first.
    Ended,
}

/// What the client accepts for a POSTed request's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Accept {
    /// Both: JSON unless something goes before the response.
    Both,
    /// `application/json` only: related messages go on the `GET` stream.
    Json,
    /// `text/event-stream` only.
    Sse,
}

/// Where a stream's events go now.
enum Out {
    /// The POST waits for the first message to decide its answer.
    Pending(oneshot::Sender<Reply>, Accept),
    /// A connection reads the events.
    Live(mpsc::Sender<Bytes>),
    /// No connection: events are kept for one that resumes.
    Detached,
}

struct Stream {
    next_seq: u64,
    /// The newest events, for resumption.
    kept: VecDeque<(u64, Bytes)>,
    /// The highest seq handed to a connection.
    sent: Option<u64>,
    out: Out,
    /// Its request was answered (or cancelled): nothing more comes on it.
    finished: bool,
}

impl Stream {
    fn new(out: Out) -> Self {
        Stream {
            next_seq: 0,
            kept: VecDeque::new(),
            sent: None,
            out,
            finished: false,
        }
    }
}

/// Why a `GET` gets no stream.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The stream already has a connection (409).
    Conflict,
    /// No such stream, or it expired (400).
    Unknown,
    /// The session ended (404).
    Ended,
}

struct Inner {
    ended: bool,
    /// The negotiated revision supports priming events (2025-11-25 on): streams can resume.
    resumable: bool,
    next_stream: u64,
    by_request: HashMap<Id, u64>,
    streams: HashMap<u64, Stream>,
    finished: VecDeque<u64>,
    /// The initialize request, whose response says the negotiated revision.
    initialize: Option<Id>,
}

/// A session's streams; the connection's [`Transport`].
pub(crate) struct Streams {
    inner: Mutex<Inner>,
    replay: usize,
    retry: Duration,
}

impl Streams {
    /// A session's streams: `replay` events kept per stream, `retry` told to clients.
    pub(crate) fn new(replay: usize, retry: Duration) -> Self {
        let mut streams = HashMap::new();
        streams.insert(STANDALONE, Stream::new(Out::Detached));
        Streams {
            inner: Mutex::new(Inner {
                ended: false,
                resumable: false,
                next_stream: STANDALONE + 1,
                by_request: HashMap::new(),
                streams,
                finished: VecDeque::new(),
                initialize: None,
            }),
            replay: replay.max(1),
            retry,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens the stream of a POSTed request: answers where its HTTP answer will come, or
    /// `None` when a request with this id is still open.
    pub(crate) fn open_request(
        &self,
        id: &Id,
        accept: Accept,
        initialize: bool,
    ) -> Option<oneshot::Receiver<Reply>> {
        let mut inner = self.lock();
        if inner.by_request.contains_key(id) {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        if inner.ended {
            let _ = tx.send(Reply::Ended);
            return Some(rx);
        }
        let no = inner.next_stream;
        inner.next_stream += 1;
        inner.by_request.insert(id.clone(), no);
        if initialize {
            inner.initialize = Some(id.clone());
        }
        let resumable = inner.resumable;
        let mut stream = Stream::new(Out::Pending(tx, accept));
        if accept == Accept::Sse {
            self.go_live(no, &mut stream, resumable);
        }
        inner.streams.insert(no, stream);
        Some(rx)
    }

    /// Forgets the stream of a request that never reached the connection (its POST was
    /// dropped while it waited for room).
    pub(crate) fn forget_request(&self, id: &Id) {
        let mut inner = self.lock();
        if let Some(no) = inner.by_request.remove(id) {
            inner.streams.remove(&no);
        }
    }

    /// Turns a pending stream into an event stream: the POST is answered with it, the
    /// priming event first when the client can resume.
    fn go_live(&self, no: u64, stream: &mut Stream, resumable: bool) {
        if !matches!(stream.out, Out::Pending(..)) {
            return;
        }
        let Out::Pending(reply, _) = std::mem::replace(&mut stream.out, Out::Detached) else {
            return;
        };
        let (tx, rx) = mpsc::channel(LIVE_BUFFER);
        if resumable {
            let seq = stream.next_seq;
            stream.next_seq += 1;
            let _ = tx.try_send(sse::priming(EventId { stream: no, seq }, self.retry));
            stream.sent = Some(seq);
        }
        if reply.send(Reply::Sse(rx)).is_ok() {
            stream.out = Out::Live(tx);
        }
    }

    /// Puts `frame` on stream `no` as an event: kept, and sent when a connection reads it.
    fn emit(&self, no: u64, stream: &mut Stream, frame: &str) {
        let seq = stream.next_seq;
        stream.next_seq += 1;
        let event = sse::message(EventId { stream: no, seq }, frame);
        stream.kept.push_back((seq, event.clone()));
        while stream.kept.len() > self.replay {
            stream.kept.pop_front();
        }
        if let Out::Live(tx) = &stream.out {
            if tx.try_send(event).is_ok() {
                stream.sent = Some(seq);
            } else {
                // Gone, or too far behind: the client resumes from what it got.
                stream.out = Out::Detached;
            }
        }
    }

    /// Ends stream `no`'s connection; the stream is kept for resumption.
    fn finish(inner: &mut Inner, no: u64) {
        if let Some(stream) = inner.streams.get_mut(&no) {
            stream.finished = true;
            stream.out = Out::Detached;
        }
        inner.finished.push_back(no);
        while inner.finished.len() > FINISHED_KEPT {
            if let Some(old) = inner.finished.pop_front() {
                inner.streams.remove(&old);
            }
        }
    }

    /// A new `GET` without `Last-Event-ID`: the session's stream, with what it held that no
    /// connection was given.
    pub(crate) fn listen(&self) -> Result<mpsc::Receiver<Bytes>, Refused> {
        let mut inner = self.lock();
        if inner.ended {
            return Err(Refused::Ended);
        }
        let stream = inner
            .streams
            .get_mut(&STANDALONE)
            .expect("stream 0 lives as long as the session");
        if matches!(&stream.out, Out::Live(tx) if !tx.is_closed()) {
            return Err(Refused::Conflict);
        }
        let after = stream.sent;
        Ok(Self::attach(stream, after))
    }

    /// A `GET` with `Last-Event-ID`: the events after it on its stream, then the rest live.
    pub(crate) fn resume(&self, last: &str) -> Result<mpsc::Receiver<Bytes>, Refused> {
        let id = EventId::parse(last).ok_or(Refused::Unknown)?;
        let mut inner = self.lock();
        if inner.ended {
            return Err(Refused::Ended);
        }
        let stream = inner.streams.get_mut(&id.stream).ok_or(Refused::Unknown)?;
        match &stream.out {
            Out::Live(tx) if !tx.is_closed() => return Err(Refused::Conflict),
            Out::Pending(..) => return Err(Refused::Unknown),
            _ => {}
        }
        Ok(Self::attach(stream, Some(id.seq)))
    }

    /// A connection for `stream`, the kept events after `after` first; a finished stream's
    /// connection ends after them.
    fn attach(stream: &mut Stream, after: Option<u64>) -> mpsc::Receiver<Bytes> {
        let missed: Vec<&(u64, Bytes)> = stream
            .kept
            .iter()
            .filter(|(seq, _)| after.is_none_or(|a| *seq > a))
            .collect();
        let (tx, rx) = mpsc::channel(LIVE_BUFFER + missed.len());
        for (seq, event) in missed {
            let _ = tx.try_send(event.clone());
            stream.sent = Some(*seq);
        }
        stream.out = if stream.finished {
            Out::Detached
        } else {
            Out::Live(tx)
        };
        rx
    }

    /// Whether the session has ended.
    pub(crate) fn is_ended(&self) -> bool {
        self.lock().ended
    }

    /// Whether an HTTP connection uses the session now: one reads one of its streams, or a
    /// POST waits for its answer. Such a session is not idle.
    pub(crate) fn is_in_use(&self) -> bool {
        let inner = self.lock();
        inner.streams.values().any(|s| match &s.out {
            Out::Live(tx) => !tx.is_closed(),
            Out::Pending(reply, _) => !reply.is_closed(),
            Out::Detached => false,
        })
    }

    /// Reads the negotiated revision off the initialize response.
    fn negotiated(inner: &mut Inner, frame: &str) {
        #[derive(serde::Deserialize)]
        struct Response {
            result: Option<Negotiated>,
        }
        #[derive(serde::Deserialize)]
        struct Negotiated {
            #[serde(rename = "protocolVersion")]
            protocol_version: Option<String>,
        }
        let version = serde_json::from_str::<Response>(frame)
            .ok()
            .and_then(|r| r.result)
            .and_then(|r| r.protocol_version);
        // Revisions are dates: those from 2025-11-25 on read empty data (priming events).
        inner.resumable = version.is_some_and(|v| v.as_str() >= "2025-11-25");
    }
}

/// The session's streams as the connection's way out.
pub(crate) struct SessionTransport(pub(crate) std::sync::Arc<Streams>);

impl Transport for SessionTransport {
    fn send(&self, frame: String, route: Route<'_>) -> Result<(), SendError> {
        let streams = &*self.0;
        let mut inner = streams.lock();
        if inner.ended {
            return Err(SendError::Closed);
        }
        let resumable = inner.resumable;
        let related = match route {
            Route::Response(id) => {
                if inner.initialize.as_ref() == Some(id) {
                    inner.initialize = None;
                    Streams::negotiated(&mut inner, &frame);
                }
                let Some(no) = inner.by_request.remove(id) else {
                    // Its POST is gone, or it never had one: nowhere to answer.
                    return Ok(());
                };
                let out = match inner.streams.get_mut(&no) {
                    Some(stream) => std::mem::replace(&mut stream.out, Out::Detached),
                    None => return Ok(()),
                };
                if let Out::Pending(reply, _) = out {
                    let _ = reply.send(Reply::Json(frame));
                    inner.streams.remove(&no);
                } else {
                    let stream = inner.streams.get_mut(&no).expect("found above");
                    stream.out = out;
                    streams.emit(no, stream, &frame);
                    Streams::finish(&mut inner, no);
                }
                return Ok(());
            }
            Route::Related(id) => inner.by_request.get(id).copied(),
            Route::Unrelated => None,
        };
        let no = match related.and_then(|no| inner.streams.get(&no).map(|s| (no, s))) {
            // A client that takes JSON only hears related messages on the `GET` stream.
            Some((
                _,
                Stream {
                    out: Out::Pending(_, Accept::Json),
                    ..
                },
            )) => STANDALONE,
            Some((no, _)) => no,
            None => STANDALONE,
        };
        let stream = inner.streams.get_mut(&no).expect("a stream found above");
        streams.go_live(no, stream, resumable);
        streams.emit(no, stream, &frame);
        Ok(())
    }

    fn close_stream(&self, id: &Id) -> bool {
        let streams = &*self.0;
        let mut inner = streams.lock();
        let resumable = inner.resumable;
        if !resumable || inner.ended {
            return false;
        }
        let Some(&no) = inner.by_request.get(id) else {
            return false;
        };
        let stream = inner
            .streams
            .get_mut(&no)
            .expect("an open request's stream");
        if matches!(stream.out, Out::Pending(_, Accept::Json)) {
            return false;
        }
        // Answered as a stream (its priming event first), then the connection ends.
        streams.go_live(no, stream, resumable);
        stream.out = Out::Detached;
        true
    }

    fn cancelled(&self, id: &Id) {
        let mut inner = self.0.lock();
        let Some(no) = inner.by_request.remove(id) else {
            return;
        };
        if let Some(stream) = inner.streams.get_mut(&no)
            && let Out::Pending(reply, _) = std::mem::replace(&mut stream.out, Out::Detached)
        {
            let _ = reply.send(Reply::Cancelled);
        }
        Streams::finish(&mut inner, no);
    }

    fn close(&self) {
        let mut inner = self.0.lock();
        inner.ended = true;
        inner.by_request.clear();
        for stream in inner.streams.values_mut() {
            if let Out::Pending(reply, _) = std::mem::replace(&mut stream.out, Out::Detached) {
                let _ = reply.send(Reply::Ended);
            }
        }
        inner.streams.clear();
        inner.finished.clear();
    }
}
