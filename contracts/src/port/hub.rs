//! The listener registry every async port shares.
//!
//! A port's inbound task hands each frame to [`Hub::deliver`], which waits until someone listens
//! and then calls every listener in turn; a byte port's hub then waits until its listeners hold
//! at most the inbound bound ([`Hub::bounded`], `inbound.rs`), so the port reads no further
//! meanwhile. [`Hub::close`] ends delivery for good and drops the listeners.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::{Notify, watch};

use super::inbound::{Held, Inbound, offer};
use super::{Incoming, Listener, Subscription};

/// Listeners of one port, and whether it still delivers.
pub(crate) struct Hub {
    listeners: Mutex<Vec<Entry>>,
    next_id: AtomicU64,
    added: Notify,
    closed: watch::Sender<bool>,
    /// What the listeners hold of the frames delivered; `None`: unbounded (the memory pair).
    inbound: Option<Arc<Inbound>>,
}

struct Entry {
    id: u64,
    slot: Arc<Slot>,
}

/// One listener. `active` turns false when it is unsubscribed.
struct Slot {
    active: AtomicBool,
    listener: Mutex<Listener>,
}

impl Slot {
    /// Calls the listener with `frame`, its bytes (`held`) on offer to it.
    fn call(&self, frame: Incoming, held: Option<Held>) {
        if !self.active.load(Ordering::Acquire) {
            return;
        }
        let mut listener = lock(&self.listener);
        // Unsubscribed while waiting for the lock.
        if !self.active.load(Ordering::Acquire) {
            return;
        }
        // A panicking listener must not take the port down.
        offer(held, || {
            let _ = catch_unwind(AssertUnwindSafe(|| (*listener)(frame)));
        });
    }
}

fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Hub {
    /// A hub whose listeners may hold any number of frames (the memory pair: both ends are in
    /// one process).
    pub(crate) fn new() -> Arc<Self> {
        Self::with_inbound(None)
    }

    /// A hub whose [`deliver`](Self::deliver) answers only once its listeners hold at most
    /// `bytes` of frames (a byte port: its reader stops meanwhile).
    pub(crate) fn bounded(bytes: usize) -> Arc<Self> {
        Self::with_inbound(Some(Inbound::new(bytes)))
    }

    fn with_inbound(inbound: Option<Arc<Inbound>>) -> Arc<Self> {
        Arc::new(Hub {
            listeners: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(0),
            added: Notify::new(),
            closed: watch::Sender::new(false),
            inbound,
        })
    }

    /// Adds a listener. A closed hub drops it at once.
    pub(crate) fn subscribe(self: &Arc<Self>, listener: Listener) -> Subscription {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(Slot {
            active: AtomicBool::new(true),
            listener: Mutex::new(listener),
        });
        {
            let mut listeners = lock(&self.listeners);
            // Checked under the lock, so `close` cannot miss this listener.
            if self.is_closed() {
                return Subscription::noop();
            }
            listeners.push(Entry { id, slot });
        }
        self.added.notify_waiters();
        let hub = Arc::downgrade(self);
        Subscription::new(move || {
            if let Some(hub) = hub.upgrade() {
                hub.unsubscribe(id);
            }
        })
    }

    fn unsubscribe(&self, id: u64) {
        let mut listeners = lock(&self.listeners);
        if let Some(index) = listeners.iter().position(|entry| entry.id == id) {
            let entry = listeners.swap_remove(index);
            entry.slot.active.store(false, Ordering::Release);
        }
    }

    /// Hands `frame` to every listener, waiting for one if there is none; then, on a bounded
    /// hub, waits until the listeners hold at most the bound.
    ///
    /// Answers false if the hub closes first (the frame dropped, or its listeners gone).
    pub(crate) async fn deliver(&self, frame: Incoming) -> bool {
        if !self.hand_over(frame).await {
            return false;
        }
        let Some(inbound) = &self.inbound else {
            return true;
        };
        tokio::select! {
            () = inbound.room() => true,
            () = self.closed() => false,
        }
    }

    /// The bytes a listener that keeps `frame` holds: its text (a refusal holds none).
    fn held(&self, frame: &Incoming) -> Option<Held> {
        let inbound = self.inbound.as_ref()?;
        let bytes = match frame {
            Incoming::Text(text) => text.len(),
            Incoming::Value(_) | Incoming::TooLarge(_) => 0,
        };
        Some(inbound.hold(bytes))
    }

    /// Calls every listener with `frame`, waiting for one if there is none.
    async fn hand_over(&self, frame: Incoming) -> bool {
        loop {
            let added = self.added.notified();
            tokio::pin!(added);
            added.as_mut().enable();
            if self.is_closed() {
                return false;
            }
            let slots: Vec<Arc<Slot>> = lock(&self.listeners)
                .iter()
                .map(|entry| entry.slot.clone())
                .collect();
            if let Some((last, others)) = slots.split_last() {
                for slot in others {
                    slot.call(frame.clone(), self.held(&frame));
                }
                let held = self.held(&frame);
                last.call(frame, held);
                return true;
            }
            tokio::select! {
                () = &mut added => {}
                () = self.closed() => return false,
            }
        }
    }

    /// Ends delivery for good and drops every listener.
    pub(crate) fn close(&self) {
        let listeners = {
            let mut listeners = lock(&self.listeners);
            self.closed.send_replace(true);
            std::mem::take(&mut *listeners)
        };
        for entry in &listeners {
            entry.slot.active.store(false, Ordering::Release);
        }
        // Dropped outside the lock: a listener's drop may touch this hub.
        drop(listeners);
    }

    pub(crate) fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }

    /// Resolves once the hub is closed.
    pub(crate) async fn closed(&self) {
        let mut closed = self.closed.subscribe();
        // The sender lives in `self`, so this cannot fail while we wait.
        let _ = closed.wait_for(|closed| *closed).await;
    }
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

/// What every port over a [`Hub`] has alike: the methods `close`, `is_closed`, `closed` and
/// `receiver`, and closing when the last clone is dropped.
///
/// The port is a struct with a field `inner: Arc<Inner>`, where `Inner` holds the port's `hub`
/// and has a method `close(&self)` that lets go of the port's way out and closes the hub (each
/// port's own). `this` names the port in the docs; `close` documents `close`.
macro_rules! hub_port {
    (port: $port:ident, inner: $inner:ident, this: $this:literal, close: $close:literal $(,)?) => {
        impl $port {
            #[doc = $close]
            pub fn close(&self) {
                self.inner.close();
            }

            #[doc = concat!("Whether this ", $this, " has stopped delivering.")]
            pub fn is_closed(&self) -> bool {
                self.inner.hub.is_closed()
            }

            #[doc = concat!("Resolves once this ", $this, " has stopped delivering.")]
            pub async fn closed(&self) {
                self.inner.hub.closed().await;
            }

            #[doc = concat!("The frames of this ", $this, " as an async stream.")]
            pub fn receiver(&self) -> $crate::port::FrameReceiver {
                $crate::port::FrameReceiver::new(self)
            }
        }

        impl Drop for $inner {
            fn drop(&mut self) {
                self.close();
            }
        }
    };
}

pub(crate) use hub_port;
