//! What a hub holds of harnesses and join requests beside the log: presence with its
//! `trouble` and `restarting`, a person's restart request, the changes a harness was sent and
//! has yet to answer, and the join requests waiting (what `GET /v1/join` reads).
//!
//! All of it is in memory and "now or never", like the frames it makes: a restarted server
//! starts with every harness away, no restart standing, no change pending, no join waiting.

use std::collections::{BTreeMap, VecDeque};

use super::{Action, EventLog, Hub, JoinRequest, Millis, Notice, Presence, PresenceState, Restart};
use crate::connect::PresenceStateRestarting;

/// The presence of one harness, as people hear it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct HarnessState {
    pub(super) connected: bool,
    pub(super) since: Millis,
    /// What is wrong, for a person to read; kept until it is cleared.
    pub(super) trouble: Option<String>,
    /// Who asked for a restart, and when: kept until the harness reconnects.
    pub(super) restarting: Option<(Millis, String)>,
}

/// A change or edit sent to a harness, waiting for its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Pending {
    pub(super) harness_id: String,
}

/// The most changes a hub waits on answers for; the oldest is forgotten past it.
pub(super) const MAX_PENDING: usize = 10_000;

/// The changes sent and not answered, by (workspace, edit or change id), with their order.
#[derive(Clone, Debug, Default)]
pub(super) struct PendingChanges {
    map: BTreeMap<(String, String), Pending>,
    order: VecDeque<(String, String)>,
}

impl PendingChanges {
    pub(super) fn get(&self, key: &(String, String)) -> Option<&Pending> {
        self.map.get(key)
    }

    pub(super) fn insert(&mut self, key: (String, String), pending: Pending) {
        if self.map.insert(key.clone(), pending).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > MAX_PENDING {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
    }

    pub(super) fn remove(&mut self, key: &(String, String)) {
        if self.map.remove(key).is_some() {
            self.order.retain(|k| k != key);
        }
    }
}

/// The join state that keeps a request waiting; any other ends it.
pub const JOIN_WAITING: &str = "waiting";

impl<L: EventLog> Hub<L> {
    /// The presence of `harness_id` as people hear it now.
    pub fn presence_of(&self, workspace_id: &str, harness_id: &str) -> Presence {
        let state = self
            .harnesses
            .get(&(workspace_id.to_owned(), harness_id.to_owned()))
            .cloned()
            .unwrap_or_default();
        let mut presence = PresenceState::new(state.connected, state.since.max(0));
        presence.trouble = state.trouble;
        presence.restarting = state
            .restarting
            .map(|(since, by)| PresenceStateRestarting::new(since.max(0), by));
        Presence::new(harness_id, presence)
    }

    /// Tells people the harness's presence now.
    pub(super) fn announce(&mut self, workspace_id: &str, harness_id: &str) -> Vec<Action> {
        let presence = self.presence_of(workspace_id, harness_id);
        self.notify(workspace_id, Notice::Presence(presence))
    }

    fn harness_state(&mut self, workspace_id: &str, harness_id: &str) -> &mut HarnessState {
        self.harnesses
            .entry((workspace_id.to_owned(), harness_id.to_owned()))
            .or_default()
    }

    /// The harness's first socket said hello, or its last one went. A harness that comes back
    /// ends a restart that stood.
    pub(super) fn set_connected(
        &mut self,
        workspace_id: &str,
        harness_id: &str,
        connected: bool,
        now: Millis,
    ) -> Vec<Action> {
        let state = self.harness_state(workspace_id, harness_id);
        state.connected = connected;
        state.since = now;
        if connected {
            state.restarting = None;
        }
        self.announce(workspace_id, harness_id)
    }

    /// A person asks a harness to restart (ADR 0094): the harness's sockets that accept
    /// `restart` hear it now or never, and people hear `restarting` until it reconnects.
    pub fn request_restart(
        &mut self,
        workspace_id: &str,
        harness_id: &str,
        asked_by: &str,
        now: Millis,
    ) -> Vec<Action> {
        let restart = Restart::new(asked_by, now.max(0));
        let mut out = self.notify(
            workspace_id,
            Notice::Restart {
                harness_id: harness_id.to_owned(),
                restart,
            },
        );
        self.harness_state(workspace_id, harness_id).restarting = Some((now, asked_by.to_owned()));
        out.extend(self.announce(workspace_id, harness_id));
        out
    }

    /// Sets what is wrong with a harness, for people to read (`None` clears it), and tells
    /// them.
    pub fn set_trouble(
        &mut self,
        workspace_id: &str,
        harness_id: &str,
        trouble: Option<String>,
    ) -> Vec<Action> {
        self.harness_state(workspace_id, harness_id).trouble = trouble;
        self.announce(workspace_id, harness_id)
    }

    /// A join request is waiting or changed: owners and admins that accept `join` hear it now
    /// or never. One whose state is [`JOIN_WAITING`] is kept for `GET /v1/join`; any other
    /// state ends it.
    pub fn join(&mut self, workspace_id: &str, request: JoinRequest) -> Vec<Action> {
        let key = (workspace_id.to_owned(), request.request_id.clone());
        if request.state == JOIN_WAITING {
            self.joins.insert(key, request.clone());
        } else {
            self.joins.remove(&key);
        }
        self.notify(workspace_id, Notice::Join(request))
    }

    /// The join requests waiting in `workspace_id`, by request id.
    pub fn waiting_joins(&self, workspace_id: &str) -> Vec<JoinRequest> {
        self.joins
            .iter()
            .filter(|((w, _), _)| w == workspace_id)
            .map(|(_, r)| r.clone())
            .collect()
    }
}
