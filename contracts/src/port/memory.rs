//! Two connected ports in one process: the `MessagePort` case.
//!
//! Frames pass as they are sent, text or value, never serialised. Each end delivers on its own
//! task, so a listener that answers at once never recurses into the other end.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use super::hub::{Hub, hub_port};
use super::{Encoding, FramePort, Incoming, Listener, Outgoing, SendError, Subscription};

/// One end of an in-memory pair, made by [`memory_pair`].
///
/// Clones are the same end. The end closes when [`close`](Self::close) is called or its last
/// clone is dropped; the other end then closes too.
#[derive(Clone, Debug)]
pub struct MemoryPort {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    hub: Arc<Hub>,
    /// Frames to the other end; `None` once this end is closed.
    peer: Mutex<Option<mpsc::UnboundedSender<Incoming>>>,
}

/// Two connected ends: what one sends, the other receives.
///
/// Must be called within a Tokio runtime: each end delivers on a task of its own.
pub fn memory_pair() -> (MemoryPort, MemoryPort) {
    let (to_a, from_b) = mpsc::unbounded_channel();
    let (to_b, from_a) = mpsc::unbounded_channel();
    (
        MemoryPort::start(to_b, from_b),
        MemoryPort::start(to_a, from_a),
    )
}

impl MemoryPort {
    fn start(
        peer: mpsc::UnboundedSender<Incoming>,
        mut inbound: mpsc::UnboundedReceiver<Incoming>,
    ) -> Self {
        let hub = Hub::new();
        let pump = hub.clone();
        tokio::spawn(async move {
            loop {
                let frame = tokio::select! {
                    frame = inbound.recv() => frame,
                    () = pump.closed() => None,
                };
                let Some(frame) = frame else { break };
                if !pump.deliver(frame).await {
                    break;
                }
            }
            pump.close();
        });
        MemoryPort {
            inner: Arc::new(Inner {
                hub,
                peer: Mutex::new(Some(peer)),
            }),
        }
    }
}

hub_port! {
    port: MemoryPort,
    inner: Inner,
    this: "end",
    close: "Closes this end, and so the other: nothing more is delivered or sent.",
}

impl Inner {
    fn close(&self) {
        self.peer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        self.hub.close();
    }
}

impl FramePort for MemoryPort {
    fn send(&self, frame: Outgoing) -> Result<(), SendError> {
        let frame = match frame {
            Outgoing::Text(text) => Incoming::Text(text),
            Outgoing::Value(value) => Incoming::Value(value),
        };
        // An end that stopped delivering sends nothing either.
        if self.inner.hub.is_closed() {
            return Err(SendError::Closed);
        }
        let peer = self
            .inner
            .peer
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match &*peer {
            Some(peer) => peer.send(frame).map_err(|_| SendError::Closed),
            None => Err(SendError::Closed),
        }
    }

    fn on_frame(&self, listener: Listener) -> Subscription {
        self.inner.hub.subscribe(listener)
    }

    fn encoding(&self) -> Encoding {
        Encoding::Value
    }
}
