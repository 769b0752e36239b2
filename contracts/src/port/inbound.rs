//! The inbound bound of a byte port: bytes of frames received and not yet taken.
//!
//! A port's reader hands each frame to its listeners ([`super::hub::Hub::deliver`]) and then
//! waits until what its listeners hold is at most [`Limits::max_inbound_bytes`] before it
//! reads the socket again, so a peer that sends faster than the consumer takes meets TCP's
//! backpressure instead of a queue that grows.
//!
//! What a listener "holds" is what it keeps after it returns. While a listener runs, its
//! frame's bytes are on offer ([`offer`]); a listener that keeps the frame for later claims
//! them ([`claim`]) and keeps the answered [`Held`] with the frame, which gives the bytes back
//! when dropped, once the frame is taken. [`FrameReceiver`](super::FrameReceiver) does so for
//! every frame it queues. A listener that does not claim (one that hands the frame on at once,
//! as the JSON-RPC connection does) holds nothing once it returns.
//!
//! [`Limits::max_inbound_bytes`]: super::Limits::max_inbound_bytes

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// The bytes the listeners of one port hold, and its bound.
#[derive(Debug)]
pub(crate) struct Inbound {
    held: AtomicUsize,
    bound: usize,
    released: Notify,
}

impl Inbound {
    pub(crate) fn new(bound: usize) -> Arc<Self> {
        Arc::new(Inbound {
            held: AtomicUsize::new(0),
            bound,
            released: Notify::new(),
        })
    }

    /// A claim on `bytes`, given back when dropped.
    pub(crate) fn hold(self: &Arc<Self>, bytes: usize) -> Held {
        self.held.fetch_add(bytes, Ordering::AcqRel);
        Held {
            inbound: Arc::clone(self),
            bytes,
        }
    }

    /// Resolves once the listeners hold at most the bound.
    pub(crate) async fn room(&self) {
        loop {
            let released = self.released.notified();
            tokio::pin!(released);
            released.as_mut().enable();
            if self.held.load(Ordering::Acquire) <= self.bound {
                return;
            }
            released.await;
        }
    }

    /// Bytes held now.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }
}

/// Bytes of one frame a listener keeps; given back when dropped.
#[derive(Debug)]
pub(crate) struct Held {
    inbound: Arc<Inbound>,
    bytes: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.inbound.held.fetch_sub(self.bytes, Ordering::AcqRel);
        self.inbound.released.notify_waiters();
    }
}

thread_local! {
    /// The bytes of the frame whose listener runs on this thread, until it claims them.
    static OFFERED: RefCell<Option<Held>> = const { RefCell::new(None) };
}

/// Runs `call` (one listener's call, synchronous) with `held` on offer to it; what it does not
/// claim is given back when it returns.
pub(crate) fn offer(held: Option<Held>, call: impl FnOnce()) {
    let earlier = OFFERED.with(|offered| offered.replace(held));
    call();
    let unclaimed = OFFERED.with(|offered| offered.replace(earlier));
    drop(unclaimed);
}

/// The bytes on offer to the listener running on this thread, if any: the caller keeps them
/// with the frame until it is taken.
pub(crate) fn claim() -> Option<Held> {
    OFFERED.with(|offered| offered.borrow_mut().take())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn room_waits_until_what_is_held_is_back_under_the_bound() {
        let inbound = Inbound::new(10);
        let first = inbound.hold(8);
        // At the bound or under it: room.
        inbound.room().await;
        let second = inbound.hold(8);
        let waiting = tokio::spawn({
            let inbound = Arc::clone(&inbound);
            async move { inbound.room().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "16 bytes held over a bound of 10");
        drop(first);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("room once under the bound")
            .unwrap();
        drop(second);
        assert_eq!(inbound.held(), 0);
    }

    #[test]
    fn what_a_listener_does_not_claim_is_given_back() {
        let inbound = Inbound::new(10);
        offer(Some(inbound.hold(4)), || {});
        assert_eq!(inbound.held(), 0);
        let mut kept = None;
        offer(Some(inbound.hold(4)), || kept = claim());
        assert_eq!(inbound.held(), 4);
        // Nothing is on offer outside a call.
        assert!(claim().is_none());
        drop(kept);
        assert_eq!(inbound.held(), 0);
    }
}
