//! A prompt turn's cancellation: set once by `session/cancel` (or `session/close`), seen by
//! the turn at every step and by every wait of the turn.

use std::future::Future;
use tokio::sync::watch;

/// A flag that is set once and can be waited for; clones see the same flag.
#[derive(Clone, Debug)]
pub struct Cancel {
    flag: watch::Sender<bool>,
}

/// What a wait raced with the cancellation answers when the cancellation came first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

impl Default for Cancel {
    fn default() -> Self {
        Self::new()
    }
}

impl Cancel {
    /// A flag not yet set.
    pub fn new() -> Self {
        Cancel {
            flag: watch::Sender::new(false),
        }
    }

    /// Sets the flag and wakes every wait; setting it again changes nothing.
    pub fn cancel(&self) {
        self.flag.send_replace(true);
    }

    /// Whether the flag is set.
    pub fn is_cancelled(&self) -> bool {
        *self.flag.borrow()
    }

    /// Resolves once the flag is set (at once when it already is).
    pub async fn cancelled(&self) {
        let mut seen = self.flag.subscribe();
        // The sender lives in `self`, so the channel cannot close while this waits.
        let _ = seen.wait_for(|set| *set).await;
    }

    /// Runs `work` until it ends or the flag is set, whichever comes first; work not ended
    /// is dropped. A flag already set wins before `work` starts.
    pub async fn race<T>(&self, work: impl Future<Output = T>) -> Result<T, Cancelled> {
        tokio::select! {
            biased;
            () = self.cancelled() => Err(Cancelled),
            out = work => Ok(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_race_ends_with_the_work_or_the_cancellation() {
        let cancel = Cancel::new();
        assert!(!cancel.is_cancelled());
        assert_eq!(cancel.race(async { 7 }).await, Ok(7));
        let (waiting, ()) = tokio::join!(cancel.race(std::future::pending::<()>()), async {
            tokio::task::yield_now().await;
            cancel.cancel();
        });
        assert_eq!(waiting, Err(Cancelled));
        assert!(cancel.is_cancelled());
        // Set before the work starts: the work does not run.
        assert_eq!(cancel.race(async { 7 }).await, Err(Cancelled));
        cancel.cancelled().await;
    }
}
