//! The outgoing queue a byte port writes from: bounded by bytes, coalescing by key, and the
//! one place that records why the port closed.
//!
//! [`FramePort::send`](super::FramePort::send) pushes here and never waits; the port's writer
//! task takes frames off with [`OutQueue::next`] (and [`OutQueue::try_frame`], the frames
//! that wait already, to write them at once). The policy:
//!
//! - The queue holds at most [`Limits::max_queued_bytes`](super::Limits) bytes of frames not
//!   yet handed to the transport. A push that would go over it is refused with
//!   [`SendError::SlowConsumer`], and the port closes at once with
//!   [`CloseReason::SlowConsumer`]: the queue is dropped, and the writer sends its close (with
//!   the reason) as soon as the transport takes it. A peer that falls behind is disconnected,
//!   as NATS does with slow consumers, and catches up after reconnecting.
//! - A frame sent with a key replaces the frame with the same key still waiting: the older is
//!   dropped and the newer goes at the end, so it is never seen before the frames sent before
//!   it. Both steps are O(1) in the queue's length.
//! - Closing drains (the frames already sent are written first, then the close) or aborts
//!   (the frames waiting are dropped). The first reason given is the one kept.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use super::{CloseReason, QueueFull, SendError};

/// Frames on their way to a port's writer task.
#[derive(Debug)]
pub(crate) struct OutQueue {
    state: Mutex<State>,
    /// Wakes the writer: a frame arrived or the queue closed.
    ready: Notify,
    /// Wakes whoever waits in [`OutQueue::aborted`].
    abort: Notify,
    limit: usize,
}

#[derive(Debug, Default)]
struct State {
    /// Frames in order; `None` where a newer frame with the same key replaced one.
    frames: VecDeque<Option<Queued>>,
    /// The position, counted since the queue was made, of `frames[0]`.
    first: u64,
    /// Key -> position of the frame with that key still waiting.
    keys: HashMap<String, u64>,
    /// Bytes of the frames waiting.
    bytes: usize,
    end: End,
    reason: Option<CloseReason>,
}

#[derive(Debug)]
struct Queued {
    text: String,
    key: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum End {
    #[default]
    Open,
    /// Write what is queued, then close.
    Drain,
    /// Close now, dropping what is queued.
    Abort,
}

/// What the writer does next.
#[derive(Debug)]
pub(crate) enum Next {
    /// Write this frame.
    Frame(String),
    /// Close the transport for this reason.
    Close(CloseReason),
}

impl State {
    /// Takes the oldest frame still waiting off the queue.
    fn pop(&mut self) -> Option<String> {
        while let Some(slot) = self.frames.pop_front() {
            let at = self.first;
            self.first += 1;
            let Some(queued) = slot else { continue };
            self.bytes -= queued.text.len();
            if let Some(key) = &queued.key
                && self.keys.get(key) == Some(&at)
            {
                self.keys.remove(key);
            }
            return Some(queued.text);
        }
        None
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl OutQueue {
    /// An open queue that holds at most `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        OutQueue {
            state: Mutex::new(State::default()),
            ready: Notify::new(),
            abort: Notify::new(),
            limit,
        }
    }

    /// Queues a frame, replacing the waiting frame with the same key. Over the byte bound the
    /// queue aborts as a slow consumer's and the frame is refused.
    pub(crate) fn push(&self, text: String, key: Option<&str>) -> Result<(), SendError> {
        let mut s = lock(&self.state);
        if s.end != End::Open {
            return Err(SendError::Closed);
        }
        if let Some(key) = key
            && let Some(at) = s.keys.remove(key)
        {
            let index = (at - s.first) as usize;
            if let Some(old) = s.frames[index].take() {
                s.bytes -= old.text.len();
            }
        }
        let queued = s.bytes + text.len();
        if queued > self.limit {
            let full = QueueFull {
                queued,
                limit: self.limit,
            };
            drop(s);
            self.close(CloseReason::SlowConsumer(full), false);
            return Err(SendError::SlowConsumer(full));
        }
        s.bytes = queued;
        let at = s.first + s.frames.len() as u64;
        if let Some(key) = key {
            s.keys.insert(key.to_owned(), at);
        }
        s.frames.push_back(Some(Queued {
            text,
            key: key.map(str::to_owned),
        }));
        drop(s);
        self.ready.notify_one();
        Ok(())
    }

    /// Closes for `reason` (unless a reason was given before): `drain` writes what is queued
    /// first, otherwise it is dropped. An abort overrides an earlier drain.
    pub(crate) fn close(&self, reason: CloseReason, drain: bool) {
        let mut s = lock(&self.state);
        if s.reason.is_none() {
            s.reason = Some(reason);
        }
        match (s.end, drain) {
            (End::Abort, _) | (End::Drain, true) => return,
            (_, true) => s.end = End::Drain,
            (_, false) => {
                s.end = End::Abort;
                s.frames.clear();
                s.keys.clear();
                s.bytes = 0;
            }
        }
        drop(s);
        self.ready.notify_one();
        self.abort.notify_waiters();
    }

    /// Records why the port is closing without closing yet; the first reason is kept.
    #[cfg(feature = "websocket")]
    pub(crate) fn note(&self, reason: CloseReason) {
        let mut s = lock(&self.state);
        if s.reason.is_none() {
            s.reason = Some(reason);
        }
    }

    /// Why the port closed, once it did (or once a reason was noted).
    pub(crate) fn reason(&self) -> Option<CloseReason> {
        lock(&self.state).reason.clone()
    }

    /// Whether frames are still taken.
    #[cfg(feature = "websocket")]
    pub(crate) fn is_open(&self) -> bool {
        lock(&self.state).end == End::Open
    }

    /// Bytes of the frames waiting.
    pub(crate) fn queued_bytes(&self) -> usize {
        lock(&self.state).bytes
    }

    fn closing(&self) -> Option<CloseReason> {
        let s = lock(&self.state);
        (s.end == End::Abort).then(|| s.reason.clone().unwrap_or(CloseReason::Closed))
    }

    /// Resolves once the queue aborts, with its reason.
    pub(crate) async fn aborted(&self) -> CloseReason {
        loop {
            let notified = self.abort.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(reason) = self.closing() {
                return reason;
            }
            notified.await;
        }
    }

    /// The next frame when one waits now, for the writer to put in the same write as the
    /// one it holds; `None` when none waits or the queue aborts.
    pub(crate) fn try_frame(&self) -> Option<String> {
        let mut s = lock(&self.state);
        if s.end == End::Abort {
            return None;
        }
        s.pop()
    }

    /// The next thing for the writer to do, waiting for it.
    pub(crate) async fn next(&self) -> Next {
        loop {
            let notified = self.ready.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut s = lock(&self.state);
                let reason = || s.reason.clone().unwrap_or(CloseReason::Closed);
                if s.end == End::Abort {
                    return Next::Close(reason());
                }
                if let Some(text) = s.pop() {
                    return Next::Frame(text);
                }
                if s.end == End::Drain {
                    return Next::Close(s.reason.clone().unwrap_or(CloseReason::Closed));
                }
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(queue: &OutQueue) -> Vec<String> {
        let mut out = Vec::new();
        queue.close(CloseReason::Closed, true);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            while let Next::Frame(text) = queue.next().await {
                out.push(text);
            }
        });
        out
    }

    #[test]
    fn a_keyed_frame_replaces_the_waiting_one_and_goes_last() {
        let queue = OutQueue::new(100);
        queue.push("s1".into(), Some("a")).unwrap();
        queue.push("e1".into(), None).unwrap();
        queue.push("t1".into(), Some("b")).unwrap();
        queue.push("s2".into(), Some("a")).unwrap();
        assert_eq!(queue.queued_bytes(), 6);
        assert_eq!(take(&queue), ["e1", "t1", "s2"]);
    }

    #[test]
    fn over_the_bound_the_queue_aborts_as_a_slow_consumers() {
        let queue = OutQueue::new(10);
        queue.push("12345".into(), None).unwrap();
        queue.push("12345".into(), None).unwrap();
        let full = QueueFull {
            queued: 11,
            limit: 10,
        };
        assert!(matches!(
            queue.push("1".into(), None),
            Err(SendError::SlowConsumer(f)) if f == full
        ));
        assert_eq!(queue.reason(), Some(CloseReason::SlowConsumer(full)));
        assert!(matches!(
            queue.push("1".into(), None),
            Err(SendError::Closed)
        ));
        assert_eq!(queue.queued_bytes(), 0);
        // An abort drops what waited.
        assert!(take(&queue).is_empty());
    }

    #[test]
    fn try_frame_takes_what_waits_in_order_and_nothing_after_an_abort() {
        let queue = OutQueue::new(100);
        assert_eq!(queue.try_frame(), None);
        queue.push("s1".into(), Some("a")).unwrap();
        queue.push("e1".into(), None).unwrap();
        queue.push("s2".into(), Some("a")).unwrap();
        assert_eq!(queue.try_frame().as_deref(), Some("e1"));
        assert_eq!(queue.queued_bytes(), 2);
        queue.push("e2".into(), None).unwrap();
        queue.close(CloseReason::Closed, false);
        assert_eq!(queue.try_frame(), None);
    }

    #[test]
    fn replacing_frees_the_older_frames_bytes_first() {
        let queue = OutQueue::new(10);
        queue.push("123456".into(), Some("k")).unwrap();
        // 6 + 6 would be over; the older goes first, so it fits.
        queue.push("abcdef".into(), Some("k")).unwrap();
        assert_eq!(take(&queue), ["abcdef"]);
    }
}
