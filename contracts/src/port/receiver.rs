//! Frames as an async stream: [`FrameReceiver`].

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;
use tokio::sync::mpsc;

use super::inbound::{Held, claim};
use super::{FramePort, Incoming, Subscription};

/// The frames of a port, one `recv().await` at a time.
///
/// A listener forwards every frame into a channel, so the port's task never waits on the
/// reader for one frame. A byte port counts the frames waiting there against its inbound
/// bound ([`Limits::max_inbound_bytes`](super::Limits::max_inbound_bytes)): over it, the port
/// stops reading its socket until `recv` takes frames, and the peer meets TCP's backpressure.
/// `recv` answers `None` once the port has ended and every frame before that was taken.
#[derive(Debug)]
pub struct FrameReceiver {
    frames: mpsc::UnboundedReceiver<(Incoming, Option<Held>)>,
    subscription: Option<Subscription>,
}

impl FrameReceiver {
    /// Starts listening to `port`.
    pub fn new<P: FramePort + ?Sized>(port: &P) -> Self {
        let (sender, frames) = mpsc::unbounded_channel();
        let subscription = port.on_frame(Box::new(move |frame| {
            // Its bytes count until the frame is taken. The receiver is gone: nobody wants it.
            let _ = sender.send((frame, claim()));
        }));
        FrameReceiver {
            frames,
            subscription: Some(subscription),
        }
    }

    /// The next frame, or `None` once the port has ended (or [`close`](Self::close) was called)
    /// and every earlier frame was taken.
    pub async fn recv(&mut self) -> Option<Incoming> {
        self.frames.recv().await.map(|(frame, _taken)| frame)
    }

    /// The next frame if one is waiting, without waiting.
    pub fn try_recv(&mut self) -> Option<Incoming> {
        self.frames.try_recv().ok().map(|(frame, _taken)| frame)
    }

    /// Stops listening. Frames that already arrived are still answered by `recv`.
    pub fn close(&mut self) {
        if let Some(subscription) = self.subscription.take() {
            subscription.unsubscribe();
        }
    }
}

impl Stream for FrameReceiver {
    type Item = Incoming;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Incoming>> {
        self.frames
            .poll_recv(cx)
            .map(|next| next.map(|(frame, _taken)| frame))
    }
}
