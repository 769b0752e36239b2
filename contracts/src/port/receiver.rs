//! Frames as an async stream: [`FrameReceiver`].

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;
use tokio::sync::mpsc;

use super::{FramePort, Incoming, Subscription};

/// The frames of a port, one `recv().await` at a time.
///
/// A listener forwards every frame into an unbounded channel, so the port's task never waits
/// on a slow reader. `recv` answers `None` once the port has ended and every frame before that
/// was taken.
#[derive(Debug)]
pub struct FrameReceiver {
    frames: mpsc::UnboundedReceiver<Incoming>,
    subscription: Option<Subscription>,
}

impl FrameReceiver {
    /// Starts listening to `port`.
    pub fn new<P: FramePort + ?Sized>(port: &P) -> Self {
        let (sender, frames) = mpsc::unbounded_channel();
        let subscription = port.on_frame(Box::new(move |frame| {
            // The receiver is gone: nobody wants this frame.
            let _ = sender.send(frame);
        }));
        FrameReceiver {
            frames,
            subscription: Some(subscription),
        }
    }

    /// The next frame, or `None` once the port has ended (or [`close`](Self::close) was called)
    /// and every earlier frame was taken.
    pub async fn recv(&mut self) -> Option<Incoming> {
        self.frames.recv().await
    }

    /// The next frame if one is waiting, without waiting.
    pub fn try_recv(&mut self) -> Option<Incoming> {
        self.frames.try_recv().ok()
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
        self.frames.poll_recv(cx)
    }
}
