//! The guards around every input: generated inputs are capped in size ([`MAX_INPUT`]), and a
//! [`Watchdog`] thread watches the input being checked, so a parse that never answers fails
//! the run with its input written out instead of hanging the fuzzer.
//!
//! A thread cannot be stopped from outside, so the watchdog does not wait for the stuck
//! check: it hands the input to its `on_hang` action while the check still runs. The fuzzer's
//! action writes the input out and ends the process ([`crate::run`]); a test's records it.

use crate::targets::Target;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The largest generated input, in bytes. Stacked mutations can grow an input without end (an
/// array of 1000 copies of an array of 1000 copies); a mutation past this is made again from
/// its seed. The ports refuse frames past `contracts::port::DEFAULT_MAX_FRAME_SIZE` (1 MiB);
/// inputs this size already reach every limit of the schemas.
pub const MAX_INPUT: usize = 64 * 1024;

/// How long an input may go unanswered before the watchdog ends the run: far past
/// [`crate::targets::SLOW`] measured twice, so only an input that does not end reaches it.
pub const HANG: Duration = Duration::from_secs(20);

/// An input the watchdog found unanswered past its bound.
#[derive(Clone, Debug)]
pub struct Hang {
    pub target: Target,
    pub input: String,
    /// How long it had run when the watchdog fired.
    pub after: Duration,
}

/// The input being checked, as the watchdog sees it. The buffers are reused from one input to
/// the next: watching costs two uncontended locks and a copy of the input's bytes.
struct Current {
    started: Option<Instant>,
    target: Target,
    input: String,
    /// The watchdog fired on the input being checked.
    fired: bool,
}

struct Shared {
    current: Mutex<Current>,
    stop: Mutex<bool>,
    wake: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A check that panicked holds no lock (checks run outside it); keep the data anyway.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A thread that fires `on_hang` once per input that has run longer than its bound.
pub struct Watchdog {
    shared: Arc<Shared>,
    bound: Duration,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts the watchdog: it looks at the input being checked every `bound / 10` (at most
    /// every 100 ms) and calls `on_hang` on its thread when that input has run past `bound`.
    pub fn start(bound: Duration, on_hang: impl Fn(&Hang) + Send + 'static) -> Watchdog {
        let shared = Arc::new(Shared {
            current: Mutex::new(Current {
                started: None,
                target: Target {
                    protocol: "",
                    kind: String::new(),
                    ty: None,
                },
                input: String::new(),
                fired: false,
            }),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let tick = (bound / 10).clamp(Duration::from_millis(1), Duration::from_millis(100));
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("fuzz-watchdog".into())
            .spawn(move || {
                let mut stop = lock(&s.stop);
                while !*stop {
                    stop = s
                        .wake
                        .wait_timeout(stop, tick)
                        .map(|(g, _)| g)
                        .unwrap_or_else(|e| e.into_inner().0);
                    let hang = {
                        let mut c = lock(&s.current);
                        match c.started {
                            Some(t) if !c.fired && t.elapsed() > bound => {
                                c.fired = true;
                                Some(Hang {
                                    target: c.target.clone(),
                                    input: c.input.clone(),
                                    after: t.elapsed(),
                                })
                            }
                            _ => None,
                        }
                    };
                    if let Some(h) = hang {
                        on_hang(&h);
                    }
                }
            })
            .ok();
        Watchdog {
            shared,
            bound,
            thread,
        }
    }

    /// The bound it fires at.
    pub fn bound(&self) -> Duration {
        self.bound
    }

    /// Runs `f`, the check of `input` read by `target`, under watch: `Err` with the hang when
    /// the watchdog fired while it ran (the action returned, so `f` could end).
    pub fn watch<R>(&self, target: &Target, input: &str, f: impl FnOnce() -> R) -> Result<R, Hang> {
        {
            let mut c = lock(&self.shared.current);
            c.target.protocol = target.protocol;
            c.target.kind.clone_from(&target.kind);
            c.target.ty.clone_from(&target.ty);
            c.input.clear();
            c.input.push_str(input);
            c.fired = false;
            c.started = Some(Instant::now());
        }
        let r = f();
        let mut c = lock(&self.shared.current);
        let started = c.started.take();
        if c.fired {
            return Err(Hang {
                target: target.clone(),
                input: input.to_owned(),
                after: started.map(|t| t.elapsed()).unwrap_or_default(),
            });
        }
        Ok(r)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        *lock(&self.shared.stop) = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn target() -> Target {
        Target {
            protocol: "agent",
            kind: "request".into(),
            ty: None,
        }
    }

    /// A check that never answers until the watchdog's action releases it: the watchdog must
    /// fire while it is stuck, with its input.
    #[test]
    fn fires_on_a_check_that_never_answers() {
        let (release, released) = mpsc::channel::<Hang>();
        let dog = Watchdog::start(Duration::from_millis(100), move |h| {
            let _ = release.send(h.clone());
        });
        let got = dog.watch(&target(), "the stuck input", || {
            // Stuck: only the watchdog's action ends the wait (10 s is a test failure).
            released.recv_timeout(Duration::from_secs(10))
        });
        let hang = got.expect_err("the watchdog fired while the check ran");
        assert_eq!(hang.input, "the stuck input");
        assert!(hang.after >= Duration::from_millis(100), "{:?}", hang.after);
    }

    #[test]
    fn the_action_gets_the_input_being_checked() {
        let (tx, rx) = mpsc::channel::<Hang>();
        let dog = Watchdog::start(Duration::from_millis(50), move |h| {
            let _ = tx.send(h.clone());
        });
        // Quick inputs first: none fires.
        for i in 0..200 {
            dog.watch(&target(), &format!("quick {i}"), || ())
                .expect("a quick input does not fire");
        }
        let slow = dog.watch(
            &Target {
                protocol: "documents",
                kind: "payload".into(),
                ty: Some("document.read".into()),
            },
            "slow",
            || std::thread::sleep(Duration::from_millis(400)),
        );
        assert!(slow.is_err(), "a check of 400 ms fires a 50 ms watchdog");
        let h = rx
            .recv_timeout(Duration::from_secs(5))
            .expect("the action ran");
        assert_eq!(h.input, "slow");
        assert_eq!(h.target.to_string(), "documents payload document.read");
        assert!(rx.try_recv().is_err(), "it fired once");
    }
}
