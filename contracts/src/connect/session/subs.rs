//! A socket's subscriptions: one per scope, each live or replaying from a cursor.
//!
//! Subscribing, asking whether a live event is heard, and finding the replay to go on with
//! each cost O(log n) at most, n the socket's subscriptions (at most
//! [`Config::max_subscriptions`](super::Config::max_subscriptions)): a socket's subscribes cost
//! linear time in all, where a list searched at each one cost quadratic time.

use std::collections::{BTreeMap, HashMap};

use super::{Scope, Seq};

/// What one socket subscribed to.
#[derive(Debug, Default)]
pub(super) struct Subs {
    workspace: Option<Sub>,
    spaces: HashMap<String, Sub>,
    /// The scopes replaying, by the order they were subscribed in: replays go on oldest first.
    replaying: BTreeMap<u64, Scope>,
    next_order: u64,
}

/// One subscription.
#[derive(Debug)]
struct Sub {
    /// When it was made, among the socket's subscribes.
    order: u64,
    /// While a replay is under way, the last seq read: live events of this scope are not sent
    /// then (they are in the log, and the replay reaches them in order).
    replay: Option<Seq>,
}

impl Subs {
    /// How many scopes are subscribed.
    pub(super) fn len(&self) -> usize {
        usize::from(self.workspace.is_some()) + self.spaces.len()
    }

    /// Whether `scope` is subscribed.
    pub(super) fn contains(&self, scope: &Scope) -> bool {
        self.get(scope).is_some()
    }

    /// Subscribes to `scope`, live or replaying after `since`, in place of an earlier
    /// subscription to it (which counts as made now).
    pub(super) fn subscribe(&mut self, scope: Scope, since: Option<Seq>) {
        self.remove(&scope);
        let order = self.next_order;
        self.next_order += 1;
        let sub = Sub {
            order,
            replay: since,
        };
        if since.is_some() {
            self.replaying.insert(order, scope.clone());
        }
        match scope {
            Scope::Workspace => self.workspace = Some(sub),
            Scope::Space(space) => {
                self.spaces.insert(space, sub);
            }
        }
    }

    /// Ends the subscription to `scope`, if there is one.
    pub(super) fn remove(&mut self, scope: &Scope) {
        let removed = match scope {
            Scope::Workspace => self.workspace.take(),
            Scope::Space(space) => self.spaces.remove(space),
        };
        if let Some(sub) = removed {
            self.replaying.remove(&sub.order);
        }
    }

    /// Whether a live subscription covers an event of `space` (an event of no space is the
    /// workspace's alone).
    pub(super) fn hears_live(&self, space: Option<&str>) -> bool {
        let live = |sub: Option<&Sub>| sub.is_some_and(|sub| sub.replay.is_none());
        live(self.workspace.as_ref()) || space.is_some_and(|space| live(self.spaces.get(space)))
    }

    /// Whether a replay is under way.
    pub(super) fn replaying(&self) -> bool {
        !self.replaying.is_empty()
    }

    /// The oldest replay under way: its scope and the last seq it read.
    pub(super) fn next_replay(&self) -> Option<(Scope, Seq)> {
        let (_, scope) = self.replaying.first_key_value()?;
        let cursor = self.get(scope)?.replay?;
        Some((scope.clone(), cursor))
    }

    /// Moves the replay of `scope` on to `cursor`, or turns it live (`None`).
    pub(super) fn set_replay(&mut self, scope: &Scope, cursor: Option<Seq>) {
        let sub = match scope {
            Scope::Workspace => self.workspace.as_mut(),
            Scope::Space(space) => self.spaces.get_mut(space),
        };
        let Some(sub) = sub else { return };
        sub.replay = cursor;
        if cursor.is_none() {
            self.replaying.remove(&sub.order);
        }
    }

    fn get(&self, scope: &Scope) -> Option<&Sub> {
        match scope {
            Scope::Workspace => self.workspace.as_ref(),
            Scope::Space(space) => self.spaces.get(space),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_go_on_oldest_first_and_a_resubscribe_counts_as_new() {
        let mut subs = Subs::default();
        subs.subscribe(Scope::Space("a".into()), Some(0));
        subs.subscribe(Scope::Space("b".into()), Some(5));
        subs.subscribe(Scope::Workspace, None);
        assert_eq!(subs.len(), 3);
        assert_eq!(subs.next_replay(), Some((Scope::Space("a".into()), 0)));
        subs.subscribe(Scope::Space("a".into()), Some(2));
        assert_eq!(subs.len(), 3);
        assert_eq!(subs.next_replay(), Some((Scope::Space("b".into()), 5)));
        subs.set_replay(&Scope::Space("b".into()), None);
        assert_eq!(subs.next_replay(), Some((Scope::Space("a".into()), 2)));
        subs.remove(&Scope::Space("a".into()));
        assert!(!subs.replaying());
        assert_eq!(subs.len(), 2);
    }

    #[test]
    fn a_live_event_is_heard_through_a_live_scope_only() {
        let mut subs = Subs::default();
        subs.subscribe(Scope::Space("a".into()), None);
        subs.subscribe(Scope::Space("b".into()), Some(0));
        assert!(subs.hears_live(Some("a")));
        assert!(!subs.hears_live(Some("b")), "b replays");
        assert!(!subs.hears_live(Some("c")));
        assert!(!subs.hears_live(None));
        subs.subscribe(Scope::Workspace, None);
        assert!(subs.hears_live(Some("c")));
        assert!(subs.hears_live(None));
        assert!(subs.contains(&Scope::Workspace));
    }
}
