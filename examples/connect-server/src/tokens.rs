//! The token table: which bearer token names which harness or person.
//!
//! A participant id is whose idempotency keys an event is written under (a workspace's keys
//! are per writer), so the table never gives one id to two participants: a harness and a
//! person, or two people with other names or roles, would resend each other's keys and be
//! answered `duplicate` for events they never wrote. Two tokens of one participant (the same
//! kind, id, name and role: two devices) are fine.

use std::collections::HashMap;

use contracts::connect::session::{Identity, Role};

/// The workspace of the demo tokens.
pub const DEMO_WORKSPACE: &str = "ws_demo";

/// Tokens and the identity each names.
#[derive(Clone, Debug, Default)]
pub struct TokenTable {
    tokens: HashMap<String, Identity>,
}

impl TokenTable {
    /// An empty table: every token is refused.
    pub fn new() -> Self {
        TokenTable::default()
    }

    /// The demo tokens, all in workspace `ws_demo`:
    ///
    /// | token         | names                                 |
    /// |---------------|---------------------------------------|
    /// | `scout-token` | the harness `h_scout` ("Scout")       |
    /// | `dana-token`  | the person `usr_dana` ("Dana"), owner |
    /// | `mo-token`    | the person `usr_mo` ("Mo"), member    |
    /// | `gus-token`   | the person `usr_gus` ("Gus"), guest   |
    pub fn demo() -> Self {
        let mut t = TokenTable::new();
        t.insert(
            "scout-token",
            Identity::harness(DEMO_WORKSPACE, "h_scout", "Scout"),
        );
        t.insert(
            "dana-token",
            Identity::person(DEMO_WORKSPACE, "usr_dana", "Dana", Role::Owner),
        );
        t.insert(
            "mo-token",
            Identity::person(DEMO_WORKSPACE, "usr_mo", "Mo", Role::Member),
        );
        t.insert(
            "gus-token",
            Identity::person(DEMO_WORKSPACE, "usr_gus", "Gus", Role::Guest),
        );
        t
    }

    /// Adds or replaces a token, unchecked ([`TokenTable::add`] checks).
    pub fn insert(&mut self, token: &str, identity: Identity) {
        self.tokens.insert(token.to_owned(), identity);
    }

    /// Adds a token, refusing one already given and an id another participant of the
    /// workspace has (see the module's header). The error names the id, never a token.
    pub fn add(&mut self, token: &str, identity: Identity) -> Result<(), String> {
        if self.tokens.contains_key(token) {
            return Err(format!(
                "a token is given twice (for {})",
                identity.participant_id()
            ));
        }
        let clash = self.tokens.values().find(|other| {
            other.workspace_id == identity.workspace_id
                && other.participant_id() == identity.participant_id()
                && **other != identity
        });
        if let Some(other) = clash {
            return Err(format!(
                "the id `{}` is given to two participants in workspace {} ({} and {}): their idempotency keys would collide; give each its own id",
                identity.participant_id(),
                identity.workspace_id,
                describe(other),
                describe(&identity),
            ));
        }
        self.insert(token, identity);
        Ok(())
    }

    /// The identity a token names.
    pub fn get(&self, token: &str) -> Option<&Identity> {
        self.tokens.get(token)
    }

    /// Adds a token written as on the command line, in `workspace_id`:
    /// `TOKEN=harness:ID:NAME` or `TOKEN=person:ID:NAME:ROLE` (owner, admin, member, guest).
    pub fn add_spec(&mut self, workspace_id: &str, spec: &str) -> Result<(), String> {
        // The message shows what follows the token, never the token.
        let shown = spec.split_once('=').map_or("", |(_, rest)| rest);
        let bad = || {
            format!(
                "bad token spec `…={shown}`: expected TOKEN=harness:ID:NAME or TOKEN=person:ID:NAME:ROLE"
            )
        };
        let (token, rest) = spec.split_once('=').ok_or_else(bad)?;
        let parts: Vec<&str> = rest.split(':').collect();
        let identity = match parts.as_slice() {
            ["harness", id, name] if !id.is_empty() => Identity::harness(workspace_id, id, name),
            ["person", id, name, role] if !id.is_empty() => {
                let role = Role::from_name(role).ok_or_else(bad)?;
                Identity::person(workspace_id, id, name, role)
            }
            _ => return Err(bad()),
        };
        if token.is_empty() {
            return Err(bad());
        }
        self.add(token, identity)
    }
}

/// A participant as the token table's errors name it: its kind, name and role.
fn describe(identity: &Identity) -> String {
    match identity.role() {
        Some(role) => format!("the person {:?}, {role:?}", identity.display_name),
        None => format!("the harness {:?}", identity.display_name),
    }
}

/// The token of a WebSocket upgrade request: `Authorization: Bearer TOKEN` first, else the
/// `token` query parameter (browsers cannot set headers on a WebSocket).
pub fn token_of(authorization: Option<&str>, query: Option<&str>) -> Option<String> {
    if let Some(token) = authorization.and_then(|h| h.strip_prefix("Bearer ")) {
        return Some(token.trim().to_owned());
    }
    query_param(query?, "token")
}

/// The value of the query parameter `name` in `query` (without `?`), percent-decoded.
pub fn query_param(query: &str, name: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| percent_decode(v))
}

/// Decodes `%XX` escapes and `+`; a broken escape is kept as it is.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_wins_over_the_query() {
        assert_eq!(
            token_of(Some("Bearer a"), Some("token=b")).as_deref(),
            Some("a")
        );
        assert_eq!(
            token_of(None, Some("x=1&token=b%2Dc")).as_deref(),
            Some("b-c")
        );
        assert_eq!(token_of(Some("Basic zz"), None), None);
        assert_eq!(token_of(None, Some("token=%4")).as_deref(), Some("%4"));
        assert_eq!(token_of(None, Some("token=%é")).as_deref(), Some("%é"));
    }

    #[test]
    fn token_specs() {
        let mut t = TokenTable::new();
        t.add_spec("ws", "t1=harness:h1:Scout").unwrap();
        t.add_spec("ws", "t2=person:u1:Dana:admin").unwrap();
        assert_eq!(t.get("t1").unwrap().harness_id(), Some("h1"));
        assert_eq!(t.get("t2").unwrap().role(), Some(Role::Admin));
        for bad in [
            "",
            "t",
            "=harness:h:n",
            "t=robot:x:y",
            "t=person:u:n:king",
            "t=harness::n",
        ] {
            assert!(t.add_spec("ws", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn one_id_is_one_participant() {
        let mut t = TokenTable::new();
        t.add_spec("ws", "t1=harness:h1:Scout").unwrap();
        // The same harness on a second device.
        t.add_spec("ws", "t1b=harness:h1:Scout").unwrap();
        // Another workspace has its own ids.
        t.add_spec("ws2", "t3=person:h1:Dana:owner").unwrap();
        for clash in [
            "t4=person:h1:Dana:owner",
            "t5=harness:h1:Other",
            "t1=harness:h9:Nine",
        ] {
            assert!(t.add_spec("ws", clash).is_err(), "{clash}");
        }
        t.add_spec("ws", "t6=person:u1:Dana:admin").unwrap();
        let e = t.add_spec("ws", "t7=person:u1:Dana:member").unwrap_err();
        assert!(e.contains("`u1`") && !e.contains("t7"), "{e}");
    }
}
