//! The rule catalogue: every rule id the differ can report, with its verdict per direction.
//!
//! The verdict is the level a finding gets when the changed type travels client -> host, host ->
//! client, or both ways (the stricter of the two). `docs/compat-rules.md` explains each rule; a
//! test keeps the two in step.

use super::Level;
use crate::model::Direction;

/// One rule: its id, a one-line summary and its verdict per direction.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// The kebab-case id shown as `error[id]`.
    pub id: &'static str,
    /// What the rule reports.
    pub summary: &'static str,
    /// The level when the type travels client -> host only.
    pub client_to_host: Level,
    /// The level when the type travels host -> client only.
    pub host_to_client: Level,
    /// True when an entry in the acknowledged list may not silence it.
    pub never_acknowledged: bool,
}

use Level::{Error as E, Info as I, Warning as W};

const fn rule(
    id: &'static str,
    summary: &'static str,
    client_to_host: Level,
    host_to_client: Level,
) -> Rule {
    Rule {
        id,
        summary,
        client_to_host,
        host_to_client,
        never_acknowledged: false,
    }
}

/// Every rule, in the order `docs/compat-rules.md` lists them.
pub const RULES: &[Rule] = &[
    rule(
        "request-removed",
        "a request name left the request table",
        E,
        E,
    ),
    rule(
        "request-added",
        "a new request name (old clients never send it)",
        I,
        I,
    ),
    rule("event-removed", "an event name left the event table", E, E),
    rule(
        "event-added",
        "a new event name (old clients receive a name they do not know)",
        W,
        W,
    ),
    rule(
        "union-variant-added",
        "a tagged union gained a variant (a new item kind)",
        I,
        E,
    ),
    rule("union-variant-removed", "a union lost a variant", E, E),
    rule("enum-value-added", "an enum gained a value", I, E),
    rule("enum-value-removed", "an enum lost a value", E, E),
    Rule {
        id: "legacy-value-removed",
        summary: "a `#[legacy]` enum value was dropped (never allowed)",
        client_to_host: E,
        host_to_client: E,
        never_acknowledged: true,
    },
    rule("field-removed", "a field left an object", E, E),
    rule(
        "field-renamed",
        "a field was removed and one of the same type added in the same object",
        E,
        E,
    ),
    rule(
        "field-added-required",
        "an object gained a required field",
        E,
        E,
    ),
    rule(
        "field-added-optional",
        "an object gained an optional field",
        I,
        I,
    ),
    rule(
        "optional-to-required",
        "an optional field became required",
        E,
        W,
    ),
    rule(
        "required-to-optional",
        "a required field became optional",
        I,
        E,
    ),
    rule(
        "nullability-changed",
        "a type started or stopped admitting null",
        E,
        E,
    ),
    rule("type-changed", "a type became another kind of type", E, E),
    rule(
        "constraint-tightened",
        "a limit now refuses values it accepted",
        E,
        I,
    ),
    rule(
        "constraint-loosened",
        "a limit now accepts values it refused",
        I,
        E,
    ),
    rule(
        "default-changed",
        "the default of an optional field changed",
        E,
        E,
    ),
    rule(
        "union-tag-changed",
        "a union's tag key changed, or it became (un)tagged",
        E,
        E,
    ),
    rule(
        "union-variants-reordered",
        "an untagged union's variants were reordered (the first match wins)",
        E,
        E,
    ),
    rule(
        "definition-removed",
        "a named type left the schema (apps import types by name)",
        E,
        E,
    ),
    rule(
        "unmodelled-change",
        "a wire difference the differ does not model (fail closed)",
        E,
        E,
    ),
];

/// The rule called `id`.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// The level of `id` for a type travelling `dir`: both ways takes the stricter verdict.
pub fn level(id: &str, dir: Direction) -> Level {
    let Some(r) = find(id) else { return E };
    verdict(r.client_to_host, r.host_to_client, dir)
}

/// The level for a change judged `c2h` on input and `h2c` on output, for a type travelling `dir`.
pub fn verdict(c2h: Level, h2c: Level, dir: Direction) -> Level {
    match dir {
        Direction::ClientToServer => c2h,
        Direction::ServerToClient => h2c,
        Direction::Both => c2h.max(h2c),
    }
}
