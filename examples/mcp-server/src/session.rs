//! What one connection remembers between requests: the capabilities the client declared in
//! `initialize`, the log level it set with `logging/setLevel`, and the resources it subscribed
//! to. Each is read and changed under one short lock, never held across an await.

use contracts::mcp::{ClientCapabilities, LoggingLevel};
use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// One connection's state.
#[derive(Debug, Default)]
pub struct Session {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// What the client declared in `initialize`; `None` before it.
    client: Option<ClientCapabilities>,
    /// The least severe level sent; `None` until the client sets one (then every level is).
    level: Option<LoggingLevel>,
    /// The URIs the client subscribed to, in order.
    subscriptions: BTreeSet<String>,
}

impl Session {
    /// The state, even when a thread panicked holding it (every change is one assignment).
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps the capabilities the client declared in `initialize`.
    pub fn initialize(&self, capabilities: ClientCapabilities) {
        self.state().client = Some(capabilities);
    }

    /// Whether the client declared `sampling`.
    pub fn client_samples(&self) -> bool {
        self.state()
            .client
            .as_ref()
            .is_some_and(|c| c.sampling.is_some())
    }

    /// Whether the client takes form elicitations: it declared `elicitation` with `form`, or
    /// empty (which MCP reads as form only).
    pub fn client_elicits_forms(&self) -> bool {
        self.state()
            .client
            .as_ref()
            .and_then(|c| c.elicitation.as_ref())
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// Sets the least severe level the client wants to receive.
    pub fn set_level(&self, level: LoggingLevel) {
        self.state().level = Some(level);
    }

    /// Whether a log message at `level` goes to the client.
    pub fn logs(&self, level: LoggingLevel) -> bool {
        self.state().level.is_none_or(|least| level >= least)
    }

    /// Subscribes the client to `uri`.
    pub fn subscribe(&self, uri: &str) {
        self.state().subscriptions.insert(uri.to_owned());
    }

    /// Ends the client's subscription to `uri`; whether it had one.
    pub fn unsubscribe(&self, uri: &str) -> bool {
        self.state().subscriptions.remove(uri)
    }

    /// The URIs the client is subscribed to, in order.
    pub fn subscriptions(&self) -> Vec<String> {
        self.state().subscriptions.iter().cloned().collect()
    }
}
