//! compat_rules: the rule catalogue, the authority on every verdict the differ gives (read as
//! `compat::rules`), and on which types may grow ([`crate::analysis::growth`]).
//!
//! One typed item per rule: its id, its verdict (level and help line) when the changed type
//! travels client -> host and host -> client, whether an acknowledgement may silence it, and an
//! example (a base and a head schema) that a test runs through the differ. Detection code names a
//! rule ([`Rule`] constants below) and never picks a level: [`verdict`] does, from the way the
//! type travels. A change whose verdict would depend on the case is split into rules that do not
//! (`enum-value-added` and `open-enum-value-added`). The rules section of `docs/compat-rules.md`
//! is rendered from this catalogue ([`markdown`]) and a test keeps it in step.

use crate::model::Direction;
use std::fmt;
use std::fmt::Write as _;

/// How much a finding matters. `Error` breaks compatibility; the others do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Compatible; reported so the change is visible.
    Info,
    /// Compatible on the wire, worth a look.
    Warning,
    /// Breaking.
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The level and the help line of a rule for one direction.
#[derive(Clone, Copy, Debug)]
pub struct Verdict {
    pub level: Level,
    /// What to do when it breaks, why it is fine when it does not.
    pub hint: &'static str,
}

/// A base and a head schema on which the rule fires.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    pub base: &'static str,
    pub head: &'static str,
}

/// What a change does to Rust code written against the base's generated types (built by `new`
/// and setters, fields read, enums and unions matched with a wildcard arm where they are
/// `#[non_exhaustive]`, types named by path), independent of the wire verdict:
/// `tests/compat_rust.rs` compiles such code against every compatible case of the corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RustSource {
    /// It still compiles; why.
    Kept(&'static str),
    /// Some of it needs an edit; what changes.
    Breaks(&'static str),
}

/// What a change does to TypeScript code written against the base's generated package
/// (every type built as an object literal with `satisfies` and read field by field into
/// variables of its type, every tagged union and closed enum switched with a `never` default,
/// an open one with a default arm, every table name listed in a `Record` literal, every type
/// imported by name from its subpath), independent of the wire verdict:
/// `tests/compat_ts.rs` type-checks such code with `tsc --strict` against every compatible
/// case of the corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TsSource {
    /// It still type-checks; why.
    Kept(&'static str),
    /// Some of it needs an edit; what changes.
    Breaks(&'static str),
}

/// One rule of the catalogue.
#[derive(Debug)]
pub struct Rule {
    /// The kebab-case id shown as `error[id]`.
    pub id: &'static str,
    /// What the rule reports, one line.
    pub summary: &'static str,
    /// Why it is judged so, for the docs.
    pub detail: &'static str,
    /// The verdict when the type travels client -> host.
    pub input: Verdict,
    /// The verdict when the type travels host -> client.
    pub output: Verdict,
    /// What the change does to Rust code written against the base's generated types.
    pub rust: RustSource,
    /// What the change does to TypeScript code written against the base's generated package.
    pub ts: TsSource,
    /// True when an entry in the acknowledged list may not silence it.
    pub never_acknowledged: bool,
    pub example: Example,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Rule) -> bool {
        self.id == other.id
    }
}

impl Eq for Rule {}

use Level::{Error as E, Info as I, Warning as W};

const fn v(level: Level, hint: &'static str) -> Verdict {
    Verdict { level, hint }
}

const fn kept(why: &'static str) -> RustSource {
    RustSource::Kept(why)
}

const fn breaks(what: &'static str) -> RustSource {
    RustSource::Breaks(what)
}

const fn ts_kept(why: &'static str) -> TsSource {
    TsSource::Kept(why)
}

const fn ts_breaks(what: &'static str) -> TsSource {
    TsSource::Breaks(what)
}

const fn ex(base: &'static str, head: &'static str) -> Example {
    Example { base, head }
}

/// The verdict of `rule` for a type travelling `dir`: both ways takes the stricter one (the
/// input's when they are equal).
pub fn verdict(rule: &Rule, dir: Direction) -> Verdict {
    match dir {
        Direction::ClientToServer => rule.input,
        Direction::ServerToClient => rule.output,
        Direction::Both if rule.output.level > rule.input.level => rule.output,
        Direction::Both => rule.input,
    }
}

/// The level of `rule` for a type travelling `dir`.
pub fn level(rule: &Rule, dir: Direction) -> Level {
    verdict(rule, dir).level
}

/// The rule called `id`.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}

const KEEP_REQUEST: &str =
    "old clients still send it; keep it (mark it `#[deprecated]`) until no client does";
const KEEP_EVENT: &str = "old clients may wait for it; keep sending it (mark it `#[deprecated]`)";
const KEEP_STORED: &str =
    "old clients and stored data still carry it; keep it (mark it `#[deprecated]`)";
const SAME_WAY: &str = "peers on both sides must agree who receives it; keep it as it was, or add a new entry with the new gate";

/// A small protocol both sides of many examples share.
macro_rules! p {
    ($($s:literal),* $(,)?) => { concat!($($s, "\n"),*) };
}

pub const PROTOCOL_REMOVED: Rule = Rule {
    id: "protocol-removed",
    summary: "a whole protocol (a schema directory) is gone",
    detail: "Its directory was deleted or renamed. Clients speak it and apps import it by name \
             (`use agent::ChatId`); a renamed directory is a new protocol beside a removed one.",
    input: v(
        E,
        "clients speak it and apps import it by name; restore the directory (a rename makes a new protocol)",
    ),
    output: v(
        E,
        "clients speak it and apps import it by name; restore the directory (a rename makes a new protocol)",
    ),
    rust: breaks("its module and every type in it are gone"),
    ts: ts_breaks("its package and every subpath of it are gone"),
    never_acknowledged: false,
    example: ex(
        p!["struct P { a: string }", "requests { \"a.get\": P -> P }"],
        "",
    ),
};

pub const REQUEST_REMOVED: Rule = Rule {
    id: "request-removed",
    summary: "a request name left the request table",
    detail: "Old clients still send it.",
    input: v(E, KEEP_REQUEST),
    output: v(E, KEEP_REQUEST),
    rust: breaks("its request type, its `Host` method and its by-name variants are gone"),
    ts: ts_breaks("its table entry and its payload and result types are gone"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct P { a: string }",
            "requests { \"a.get\": P -> P, \"a.put\": P -> P }"
        ],
        p!["struct P { a: string }", "requests { \"a.get\": P -> P }"],
    ),
};

pub const REQUEST_RENAMED: Rule = Rule {
    id: "request-renamed",
    summary: "a request was removed and one with the same payload and result added",
    detail: "One finding at the new name instead of a removal and an addition. The name is what \
             travels: old clients still send the old one.",
    input: v(
        E,
        "old clients still send the old name; keep it beside the new one (mark it `#[deprecated]`)",
    ),
    output: v(
        E,
        "old clients still send the old name; keep it beside the new one (mark it `#[deprecated]`)",
    ),
    rust: breaks("its request type, its `Host` method and its by-name variants are renamed"),
    ts: ts_breaks("its table entry, payload and result types are under other names"),
    never_acknowledged: false,
    example: ex(
        p!["struct P { a: string }", "requests { \"a.get\": P -> P }"],
        p!["struct P { a: string }", "requests { \"a.read\": P -> P }"],
    ),
};

pub const REQUEST_ADDED: Rule = Rule {
    id: "request-added",
    summary: "a new request name",
    detail: "Old clients never send it; the host answers it for new ones.",
    input: v(I, "compatible: old clients never send it"),
    output: v(I, "compatible: old clients never send it"),
    rust: kept(
        "`RequestPayload` and `RequestResult` are `#[non_exhaustive]` and the new `Host` method has a default",
    ),
    ts: ts_breaks(
        "the request names' type grew: a `Record<RequestType, ...>` literal or an exhaustive `switch` over the names (a `never` default) misses the new one",
    ),
    never_acknowledged: false,
    example: ex(
        p!["struct P { a: string }", "requests { \"a.get\": P -> P }"],
        p![
            "struct P { a: string }",
            "requests { \"a.get\": P -> P, \"a.put\": P -> P }"
        ],
    ),
};

pub const REQUEST_METADATA_ADDED: Rule = Rule {
    id: "request-metadata-added",
    summary: "a request declares partial results or error data (`#[partial]`, `#[error_data]`) it did not",
    detail: "What travels beside the result is typed now; old peers read it as before (a partial result a client did not ask for is not sent, error data is an error's `data`).",
    input: v(
        I,
        "compatible: old peers read the result and the error as before",
    ),
    output: v(
        I,
        "compatible: old peers read the result and the error as before",
    ),
    rust: kept("a new impl of `PartialResult` or `ErrorData` on the request's type"),
    ts: ts_kept("a new key of the request's table entry"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct P { a: string }",
            "requests { \"a.find\": P -> [P] }"
        ],
        p![
            "struct P { a: string }",
            "type Ps = [P];",
            "requests { #[partial = \"Ps\"] \"a.find\": P -> [P] }"
        ],
    ),
};

pub const REQUEST_METADATA_REMOVED: Rule = Rule {
    id: "request-metadata-removed",
    summary: "a request no longer declares its partial results or error data",
    detail: "Peers built on the old contract read partial results or an error's typed `data` that no longer has a type: code reading them stops compiling, and a host may stop sending them.",
    input: v(E, "keep the declaration (deprecate what it holds instead)"),
    output: v(E, "keep the declaration (deprecate what it holds instead)"),
    rust: breaks("the request's `PartialResult` or `ErrorData` impl is gone"),
    ts: ts_breaks("the table entry's `partial` or `errorData` schema is gone"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct P { a: string }",
            "struct Retry { retry: boolean }",
            "requests { #[error_data = \"Retry\"] \"a.get\": P -> P }"
        ],
        p![
            "struct P { a: string }",
            "struct Retry { retry: boolean }",
            "requests { \"a.get\": P -> P }"
        ],
    ),
};

pub const EVENT_REMOVED: Rule = Rule {
    id: "event-removed",
    summary: "an event name left the event table",
    detail: "Old clients may wait for it.",
    input: v(E, KEEP_EVENT),
    output: v(E, KEEP_EVENT),
    rust: breaks("its event type and its `EventPayload` variant are gone"),
    ts: ts_breaks("its table entry and its payload type are gone"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct S { a: string }",
            "events { \"s.a\": S, \"s.b\": S }"
        ],
        p!["struct S { a: string }", "events { \"s.a\": S }"],
    ),
};

pub const EVENT_RENAMED: Rule = Rule {
    id: "event-renamed",
    summary: "an event was removed and one with the same payload added",
    detail: "One finding at the new name. Old clients wait for the old name and ignore the new.",
    input: v(
        E,
        "old clients wait for the old name; keep sending it beside the new one (mark it `#[deprecated]`)",
    ),
    output: v(
        E,
        "old clients wait for the old name; keep sending it beside the new one (mark it `#[deprecated]`)",
    ),
    rust: breaks("its event type and its `EventPayload` variant are renamed"),
    ts: ts_breaks("its table entry and its payload type are under other names"),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string }", "events { \"s.a\": S }"],
        p!["struct S { a: string }", "events { \"s.changed\": S }"],
    ),
};

pub const EVENT_ADDED: Rule = Rule {
    id: "event-added",
    summary: "a new event name, sent to every client",
    detail: "Compatible: an old client looks the name up in its table and ignores one it does not \
             know. A warning, since every old client receives it. An `#[accepts]` gate counts \
             only in a protocol whose clients announce what they accept (see \
             `event-added-gated`); elsewhere a gated event is this rule.",
    input: v(
        W,
        "old clients ignore an event name they do not know; in a protocol with a handshake, gate it with `#[accepts = \"...\"]`",
    ),
    output: v(
        W,
        "old clients ignore an event name they do not know; in a protocol with a handshake, gate it with `#[accepts = \"...\"]`",
    ),
    rust: kept("`EventPayload` is `#[non_exhaustive]`"),
    ts: ts_breaks(
        "the event names' type grew: a `Record<EventType, ...>` literal or an exhaustive `switch` over the names misses the new one",
    ),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string }", "events { \"s.a\": S }"],
        p![
            "struct S { a: string }",
            "events { \"s.a\": S, \"s.b\": S }"
        ],
    ),
};

/// A negotiating protocol for the gated examples: its hello announces `accepts`.
macro_rules! hello {
    ($($s:literal),* $(,)?) => {
        p!["struct Hello { accepts?: [string] }", "struct S { a: string }", $($s),*]
    };
}

pub const EVENT_ADDED_GATED: Rule = Rule {
    id: "event-added-gated",
    summary: "a new event gated by a capability the base never named, in a protocol that negotiates",
    detail: "The protocol negotiates capabilities (a type sent client -> host has an \
             `accepts: [string]` field, as connect's hello does) and the event's `#[accepts]` \
             names a capability no old peer can have announced: only new clients receive it.",
    input: v(
        I,
        "compatible: only clients that announce the new capability receive it",
    ),
    output: v(
        I,
        "compatible: only clients that announce the new capability receive it",
    ),
    rust: kept("`EventPayload` is `#[non_exhaustive]`"),
    ts: ts_breaks(
        "the event names' type grew: a `Record<EventType, ...>` literal or an exhaustive `switch` over the names misses the new one",
    ),
    never_acknowledged: false,
    example: ex(
        hello![
            "requests { \"hello\": Hello -> S }",
            "events { \"s.a\": S }"
        ],
        hello![
            "requests { \"hello\": Hello -> S }",
            "events { \"s.a\": S, #[accepts = \"b\"] \"s.b\": S }"
        ],
    ),
};

pub const GATE_CHANGED: Rule = Rule {
    id: "gate-changed",
    summary: "the `#[accepts]` gate of an existing request, event or variant changed",
    detail: "Who receives it changed: a new gate hides it from old clients that never announce \
             the capability, a dropped one sends it to clients that did not ask.",
    input: v(E, SAME_WAY),
    output: v(E, SAME_WAY),
    rust: kept("no Rust type changes"),
    ts: ts_kept("no TypeScript type changes"),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string }", "requests { \"s.get\": S -> S }"],
        p![
            "struct S { a: string }",
            "requests { #[accepts = \"s\"] \"s.get\": S -> S }"
        ],
    ),
};

pub const DIRECTION_CHANGED: Rule = Rule {
    id: "direction-changed",
    summary: "the `#[direction]` of a type or a variant changed",
    detail: "Which side sends it changed, so which peers must read it changed.",
    input: v(
        E,
        "peers built on the old contract send or refuse it as before; keep the direction",
    ),
    output: v(
        E,
        "peers built on the old contract send or refuse it as before; keep the direction",
    ),
    rust: kept(
        "no Rust type changes itself; an enum or a union that becomes `#[non_exhaustive]` is reported as `rust-non-exhaustive-added`",
    ),
    ts: ts_kept("no TypeScript type depends on the way a type travels"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct S { a: string }",
            "union F tag \"frame\" { #[direction = \"client-to-server\"] \"s\" => S }"
        ],
        p![
            "struct S { a: string }",
            "union F tag \"frame\" { #[direction = \"both\"] \"s\" => S }"
        ],
    ),
};

pub const DIRECTION_DECLARED: Rule = Rule {
    id: "direction-declared",
    summary: "a type reached from no table was given a `#[direction]`",
    detail: "Nothing on the wire changed: the base judged the type both ways because nothing said \
             which way it travels (a frame envelope), and now the schema says.",
    input: v(
        I,
        "compatible: the type is judged by the way it is declared to travel from now on",
    ),
    output: v(
        I,
        "compatible: the type is judged by the way it is declared to travel from now on",
    ),
    rust: kept(
        "no Rust type changes itself; an enum or a union that becomes `#[non_exhaustive]` is reported as `rust-non-exhaustive-added`",
    ),
    ts: ts_kept("no TypeScript type depends on the way a type travels"),
    never_acknowledged: false,
    example: ex(
        p!["struct Frame { id: string }"],
        p!["#[direction = \"client-to-server\"] struct Frame { id: string }"],
    ),
};

pub const UNION_VARIANT_ADDED: Rule = Rule {
    id: "union-variant-added",
    summary: "a union gained a variant (a new item kind)",
    detail: "Hosts accept one more kind; a client validating a whole thread refuses it all for one \
             kind it does not know. A variant's own `#[direction]` decides.",
    input: v(
        I,
        "compatible: the host accepts one more kind, which old clients never send",
    ),
    output: v(
        E,
        "old clients refuse a whole thread with an item kind they do not know; carry it as an optional field of an existing variant instead",
    ),
    rust: kept("a union that may gain a variant compatibly is `#[non_exhaustive]`"),
    ts: ts_breaks(
        "an exhaustive `switch` over its tag (a `never` default) misses the new variant, and a variable of the old union type cannot hold it",
    ),
    never_acknowledged: false,
    example: ex(
        p![
            "union Item tag \"type\" { \"text\" => { text: string } }",
            "events { \"item\": { item: Item } }"
        ],
        p![
            "union Item tag \"type\" { \"text\" => { text: string }, \"image\" => { url: string } }",
            "events { \"item\": { item: Item } }"
        ],
    ),
};

pub const UNION_VARIANT_ADDED_GATED: Rule = Rule {
    id: "union-variant-added-gated",
    summary: "a union gained a variant gated by a new capability, in a protocol that negotiates",
    detail: "As `event-added-gated`: no old client can have announced the capability, so none \
             receives the new kind. In a protocol without a handshake it is \
             `union-variant-added`.",
    input: v(
        I,
        "compatible: only clients that announce the new capability receive it",
    ),
    output: v(
        I,
        "compatible: only clients that announce the new capability receive it",
    ),
    rust: kept("a union of a protocol that negotiates is `#[non_exhaustive]`"),
    ts: ts_breaks(
        "an exhaustive `switch` over its tag (a `never` default) misses the new variant, and a variable of the old union type cannot hold it",
    ),
    never_acknowledged: false,
    example: ex(
        hello![
            "union F tag \"frame\" { \"s\" => S }",
            "requests { \"hello\": Hello -> F }"
        ],
        hello![
            "union F tag \"frame\" { \"s\" => S, #[accepts = \"t\"] \"t\" => S }",
            "requests { \"hello\": Hello -> F }"
        ],
    ),
};

pub const UNION_VARIANT_ADDED_BEFORE: Rule = Rule {
    id: "union-variant-added-before",
    summary: "an untagged union gained a variant before one whose values it may accept",
    detail: "An untagged union's first variant that accepts a value wins. A new variant placed \
             before an existing one takes every value of it that it accepts: an old client's \
             request is read as the new variant (and what only the old one holds is dropped), an \
             old client reads the host's values as another variant. It is compatible only when \
             no value of the later variant is one it accepts (another JSON kind, or a literal \
             apart at a key both require); list a new variant last.",
    input: v(
        E,
        "old clients' values of a later variant are now read as the new one; add it last, or give it a literal key",
    ),
    output: v(
        E,
        "the host's values are read as another variant than they were; add it last, or give it a literal key",
    ),
    rust: kept("variants are matched by name"),
    ts: ts_breaks("a variable of the old union type cannot hold the new variant"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct B { b: string }",
            "union U untagged { B, { c: int } }",
            "requests { \"u\": { u: U } -> {} }"
        ],
        p![
            "struct A { b: string, c?: int }",
            "struct B { b: string }",
            "union U untagged { A, B, { c: int } }",
            "requests { \"u\": { u: U } -> {} }"
        ],
    ),
};

pub const UNION_VARIANT_WIDENED_OVER: Rule = Rule {
    id: "union-variant-widened-over",
    summary: "an untagged union's variant now accepts values of a later variant",
    detail: "An untagged union's first variant that accepts a value wins. A variant widened \
             (a limit loosened, a kind widened, a field made optional) so that it accepts values \
             of a later variant takes them: values that decoded as the later variant decode as \
             the earlier one, whichever way the union travels, though the widening alone is \
             compatible on input.",
    input: v(
        E,
        "old clients' values of the later variant are now read as this one; keep the two apart",
    ),
    output: v(
        E,
        "the host's values are read as another variant than they were; keep the two apart",
    ),
    rust: kept("variants are matched by name"),
    ts: ts_kept("the variant's own changes are judged by their own findings"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct S { a: string(max = 3) }",
            "struct L { a: string }",
            "union U untagged { S, L }",
            "requests { \"u\": { u: U } -> {} }"
        ],
        p![
            "struct S { a: string(max = 8) }",
            "struct L { a: string }",
            "union U untagged { S, L }",
            "requests { \"u\": { u: U } -> {} }"
        ],
    ),
};

pub const UNION_VARIANT_REMOVED: Rule = Rule {
    id: "union-variant-removed",
    summary: "a union lost a variant",
    detail: "Old clients send it; stored threads carry it.",
    input: v(E, KEEP_STORED),
    output: v(E, KEEP_STORED),
    rust: breaks("its Rust variant is gone"),
    ts: ts_breaks("a `case` for its tag no longer type-checks, and its type may be gone"),
    never_acknowledged: false,
    example: ex(
        p![
            "union Item tag \"type\" { \"text\" => { text: string }, \"image\" => { url: string } }",
            "events { \"item\": { item: Item } }"
        ],
        p![
            "union Item tag \"type\" { \"text\" => { text: string } }",
            "events { \"item\": { item: Item } }"
        ],
    ),
};

pub const ENUM_VALUE_ADDED: Rule = Rule {
    id: "enum-value-added",
    summary: "a closed enum gained a value",
    detail: "Hosts accept more; an old client refuses a value it does not know.",
    input: v(
        I,
        "compatible: the host accepts one more value, which old clients never send",
    ),
    output: v(
        E,
        "old clients refuse a value they do not know; add a new optional field instead, or make the enum `#[open]` from its first version",
    ),
    rust: kept("an enum that may gain a value compatibly is `#[non_exhaustive]`"),
    ts: ts_kept(
        "an enum that may gain a value compatibly (one that travels only client -> host) is typed to admit any value (`'a' | (string & {})`), so a `switch` over it keeps a default arm; where the value breaks the wire, it breaks an exhaustive `switch` too",
    ),
    never_acknowledged: false,
    example: ex(
        p![
            "enum State { \"idle\", \"running\" }",
            "events { \"s\": { state: State } }"
        ],
        p![
            "enum State { \"idle\", \"running\", \"waiting\" }",
            "events { \"s\": { state: State } }"
        ],
    ),
};

pub const CONST_ADDED: Rule = Rule {
    id: "const-added",
    summary: "a constant was added",
    detail: "A new name; nothing that was there changes.",
    input: v(I, "compatible: a new name"),
    output: v(I, "compatible: a new name"),
    rust: kept("a new `pub const`"),
    ts: ts_kept("a new exported constant"),
    never_acknowledged: false,
    example: ex(
        p!["events { \"e\": { a: string } }"],
        p!["const VERSION = \"1\";", "events { \"e\": { a: string } }"],
    ),
};

pub const CONST_REMOVED: Rule = Rule {
    id: "const-removed",
    summary: "a constant was removed",
    detail: "Code on both sides names it (`PROTOCOL_VERSION`): it stops compiling.",
    input: v(
        E,
        "code names the constant; keep it (mark it `#[deprecated]`)",
    ),
    output: v(
        E,
        "code names the constant; keep it (mark it `#[deprecated]`)",
    ),
    rust: breaks("the `pub const` is gone"),
    ts: ts_breaks("the exported constant is gone"),
    never_acknowledged: false,
    example: ex(
        p!["const VERSION = \"1\";", "events { \"e\": { a: string } }"],
        p!["events { \"e\": { a: string } }"],
    ),
};

pub const CONST_VALUE_CHANGED: Rule = Rule {
    id: "const-value-changed",
    summary: "a constant holds another value",
    detail: "Peers compare what they receive with the value they were built with (a protocol \
             version, a limit): old and new code disagree. Where the constant is written as a \
             type, the literal's change is judged there too.",
    input: v(
        E,
        "old peers hold the old value; add a constant for the new one",
    ),
    output: v(
        E,
        "old peers hold the old value; add a constant for the new one",
    ),
    rust: kept("the constant keeps its name and type"),
    ts: ts_breaks(
        "the constant's type is its value (`as const`): code that holds the old literal type no longer compiles",
    ),
    never_acknowledged: false,
    example: ex(
        p!["const VERSION = \"1\";", "events { \"e\": { a: string } }"],
        p!["const VERSION = \"2\";", "events { \"e\": { a: string } }"],
    ),
};

pub const OPEN_ENUM_CLOSED: Rule = Rule {
    id: "open-enum-closed",
    summary: "an `#[open]` enum was closed: values it does not list are refused",
    detail: "An open set is open on purpose: apps extend it (`#[extends]`) and peers were \
             promised that any value of its kind is accepted. Closed, every value an app or an \
             older peer adds is refused, whichever way it travels.",
    input: v(
        E,
        "clients send values the set does not list (an app's own codes); keep it `#[open]`",
    ),
    output: v(
        E,
        "hosts built on the set (an app's, with codes of its own) send values new clients now refuse; keep it `#[open]`",
    ),
    rust: breaks("the `Other` variant is gone"),
    ts: ts_breaks(
        "its type no longer admits an unlisted value (the `(string & {})` member is gone)",
    ),
    never_acknowledged: false,
    example: ex(
        p![
            "#[open] enum Code { \"a\" }",
            "events { \"e\": { code: Code } }"
        ],
        p!["enum Code { \"a\" }", "events { \"e\": { code: Code } }"],
    ),
};

pub const OPEN_ENUM_VALUE_ADDED: Rule = Rule {
    id: "open-enum-value-added",
    summary: "an `#[open]` enum gained a value",
    detail: "An open enum already accepts any string (an open integer enum any integer): only \
             the documented set grew.",
    input: v(
        I,
        "compatible: the enum is open, so every peer already accepts any value of its kind",
    ),
    output: v(
        I,
        "compatible: the enum is open, so every peer already accepts any value of its kind",
    ),
    rust: kept(
        "an `#[open]` enum is `#[non_exhaustive]`; the value moves from `Other` to its own variant",
    ),
    ts: ts_kept(
        "the type of an `#[open]` enum, and of one that `#[extends]` it, admits any value already (`(string & {})`), so a `switch` over it keeps a default arm",
    ),
    never_acknowledged: false,
    example: ex(
        p![
            "#[open] enum Code { \"a\" }",
            "events { \"e\": { code: Code } }"
        ],
        p![
            "#[open] enum Code { \"a\", \"b\" }",
            "events { \"e\": { code: Code } }"
        ],
    ),
};

pub const ENUM_VALUE_REMOVED: Rule = Rule {
    id: "enum-value-removed",
    summary: "a closed enum lost a value",
    detail: "Stored data and old clients carry it.",
    input: v(
        E,
        "old clients and stored data still carry it; keep it (mark it `#[deprecated]` or `#[legacy]`)",
    ),
    output: v(
        E,
        "old clients and stored data still carry it; keep it (mark it `#[deprecated]` or `#[legacy]`)",
    ),
    rust: breaks("its Rust variant is gone"),
    ts: ts_breaks("a `case` or a literal of the value no longer type-checks"),
    never_acknowledged: false,
    example: ex(
        p![
            "enum Mode { \"fast\", \"slow\" }",
            "requests { \"go\": { mode: Mode } -> {} }"
        ],
        p![
            "enum Mode { \"fast\" }",
            "requests { \"go\": { mode: Mode } -> {} }"
        ],
    ),
};

pub const OPEN_ENUM_VALUE_REMOVED: Rule = Rule {
    id: "open-enum-value-removed",
    summary: "an enum that is `#[open]` at head lost a value",
    detail: "It still accepts the value; only the documented set shrank. A warning: peers may \
             branch on it.",
    input: v(
        W,
        "compatible on the wire: the enum is open; the documented set shrank",
    ),
    output: v(
        W,
        "compatible on the wire: the enum is open; the documented set shrank",
    ),
    rust: breaks("its Rust variant is gone (the value now arrives as `Other`)"),
    ts: ts_breaks("it leaves the exported known values (an integer enum's object loses its name)"),
    never_acknowledged: false,
    example: ex(
        p![
            "#[open] enum Code { \"a\", \"b\" }",
            "events { \"e\": { code: Code } }"
        ],
        p![
            "#[open] enum Code { \"a\" }",
            "events { \"e\": { code: Code } }"
        ],
    ),
};

pub const ENUM_VALUE_NUMBER_CHANGED: Rule = Rule {
    id: "enum-value-number-changed",
    summary: "an integer enum's value kept its name and now travels as another number",
    detail: "The number is what travels: old peers read the new number as another value (or \
             refuse it), and stored data carries the old one. Breaking whether or not the enum \
             is `#[open]`, and one finding rather than a removal and an addition.",
    input: v(
        E,
        "old clients and stored data send the old number; keep the number (add a new value instead)",
    ),
    output: v(
        E,
        "old clients read the new number as another value; keep the number (add a new value instead)",
    ),
    rust: kept("the variant keeps its name; only `value()` changes"),
    ts: ts_breaks("the name's number in the exported object, and so its type, changes"),
    never_acknowledged: false,
    example: ex(
        p![
            "enum Severity { Error = 1, Warning = 2 }",
            "events { \"d\": { severity: Severity } }"
        ],
        p![
            "enum Severity { Error = 1, Warning = 3 }",
            "events { \"d\": { severity: Severity } }"
        ],
    ),
};

const LEGACY: &str = "a `#[legacy]` value is read and written back forever; put it back as it was (this cannot be acknowledged)";

pub const LEGACY_VALUE_REMOVED: Rule = Rule {
    id: "legacy-value-removed",
    summary: "a `#[legacy]` enum value was dropped",
    detail: "Never allowed, and never acknowledged: a legacy value (the subagent `origin` naming \
             the host that opened it with a task of its own) is read and written back unchanged \
             forever.",
    input: v(E, LEGACY),
    output: v(E, LEGACY),
    rust: breaks("its Rust variant is gone"),
    ts: ts_breaks("a `case` or a literal of the value no longer type-checks"),
    never_acknowledged: true,
    example: ex(
        p![
            "enum Origin { \"chat\", #[legacy] \"task-host\" }",
            "events { \"e\": { origin: Origin } }"
        ],
        p![
            "enum Origin { \"chat\" }",
            "events { \"e\": { origin: Origin } }"
        ],
    ),
};

pub const LEGACY_ATTRIBUTE_REMOVED: Rule = Rule {
    id: "legacy-attribute-removed",
    summary: "an enum value lost its `#[legacy]` mark",
    detail: "Never acknowledged: without the mark the value could then be dropped as an ordinary \
             one, a two-step way around `legacy-value-removed`.",
    input: v(E, LEGACY),
    output: v(E, LEGACY),
    rust: kept("only the variant's docs change"),
    ts: ts_kept("only the value's docs change"),
    never_acknowledged: true,
    example: ex(
        p![
            "enum Origin { \"chat\", #[legacy] \"task-host\" }",
            "events { \"e\": { origin: Origin } }"
        ],
        p![
            "enum Origin { \"chat\", \"task-host\" }",
            "events { \"e\": { origin: Origin } }"
        ],
    ),
};

pub const STORED_ATTRIBUTE_ADDED: Rule = Rule {
    id: "stored-attribute-added",
    summary: "a type was marked `#[stored]`",
    detail: "No wire change: from now on it and every type in it are judged both ways.",
    input: v(
        I,
        "compatible: changes to it are judged both ways from now on",
    ),
    output: v(
        I,
        "compatible: changes to it are judged both ways from now on",
    ),
    rust: kept(
        "no Rust type changes itself; an enum or a union that becomes `#[non_exhaustive]` is reported as `rust-non-exhaustive-added`",
    ),
    ts: ts_kept("no TypeScript type changes"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct Item { a: string }",
            "events { \"e\": { item: Item } }"
        ],
        p![
            "#[stored] struct Item { a: string }",
            "events { \"e\": { item: Item } }"
        ],
    ),
};

pub const STORED_ATTRIBUTE_REMOVED: Rule = Rule {
    id: "stored-attribute-removed",
    summary: "a type lost its `#[stored]` mark",
    detail: "Data recorded before the change is still read back; without the mark, the next \
             change to it would be judged by one direction only.",
    input: v(
        E,
        "records written with the old contract are still read; keep `#[stored]`",
    ),
    output: v(
        E,
        "records written with the old contract are still read; keep `#[stored]`",
    ),
    rust: kept(
        "no Rust type changes itself; an enum or a union that becomes `#[non_exhaustive]` is reported as `rust-non-exhaustive-added`",
    ),
    ts: ts_kept("no TypeScript type changes"),
    never_acknowledged: false,
    example: ex(
        p![
            "#[stored] struct Item { a: string }",
            "events { \"e\": { item: Item } }"
        ],
        p![
            "struct Item { a: string }",
            "events { \"e\": { item: Item } }"
        ],
    ),
};

pub const FIELD_REMOVED: Rule = Rule {
    id: "field-removed",
    summary: "a field left an object",
    detail: "On output an old client may require it; on input the host silently ignores what old \
             clients still send. Deprecate it instead.",
    input: v(
        E,
        "old clients still send it and mean something by it; keep it and mark it `#[deprecated]`",
    ),
    output: v(
        E,
        "old clients may require it; keep sending it and mark it `#[deprecated]`",
    ),
    rust: breaks("the field and its setter are gone"),
    ts: ts_breaks(
        "an object literal that writes it has an excess property, and a read of it fails",
    ),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string, b: string }", "events { \"s\": S }"],
        p!["struct S { a: string }", "events { \"s\": S }"],
    ),
};

pub const FIELD_RENAMED: Rule = Rule {
    id: "field-renamed",
    summary: "a field was removed and one of the same type added in the same object",
    detail: "One finding instead of two. The key is what travels.",
    input: v(
        E,
        "the key is what travels; keep the old key (a Rust-only rename is not a wire change)",
    ),
    output: v(
        E,
        "the key is what travels; keep the old key (a Rust-only rename is not a wire change)",
    ),
    rust: breaks("the field and its setter are renamed"),
    ts: ts_breaks(
        "an object literal that writes it has an excess property, and a read of it fails",
    ),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string, b: int }", "events { \"s\": S }"],
        p!["struct S { c: string, b: int }", "events { \"s\": S }"],
    ),
};

pub const FIELD_ADDED_REQUIRED: Rule = Rule {
    id: "field-added-required",
    summary: "an object gained a required field",
    detail: "Old clients do not send it; on output, records written before the change lack it and \
             new code refuses them.",
    input: v(
        E,
        "old clients do not send it; make it optional (`name?: T`, with a default if needed)",
    ),
    output: v(
        E,
        "records written before the change lack it; make it optional (`name?: T`, with a default if needed)",
    ),
    rust: breaks("`new` takes one more argument"),
    ts: ts_breaks("an object literal of the type misses it"),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string }", "events { \"s\": S }"],
        p!["struct S { a: string, b: int }", "events { \"s\": S }"],
    ),
};

pub const FIELD_ADDED_OPTIONAL: Rule = Rule {
    id: "field-added-optional",
    summary: "an object gained an optional field",
    detail: "The way a contract grows: unknown keys are ignored.",
    input: v(I, "compatible: a contract grows by optional fields"),
    output: v(I, "compatible: a contract grows by optional fields"),
    rust: kept(
        "structs are `#[non_exhaustive]`, built by `new` and setters; the new field has a setter and starts absent",
    ),
    ts: ts_kept("an object literal may leave an optional field out"),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string }", "events { \"s\": S }"],
        p!["struct S { a: string, b?: int }", "events { \"s\": S }"],
    ),
};

pub const REST_ADDED: Rule = Rule {
    id: "rest-added",
    summary: "an object became open: it keeps every other key (`..: unknown`)",
    detail: "Other keys were accepted and dropped; now they are kept with their values, \
             whatever they hold. Nothing that was accepted is refused.",
    input: v(
        I,
        "compatible: other keys were accepted before and still are",
    ),
    output: v(I, "compatible: old clients accept and drop the other keys"),
    rust: kept("a new public field `extra` on a `#[non_exhaustive]` struct; `new` fills it"),
    ts: ts_kept(
        "the type gains an index signature of `unknown`: literals and reads of its fields still type-check",
    ),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string }", "events { \"s\": S }"],
        p!["struct S { a: string, ..: unknown }", "events { \"s\": S }"],
    ),
};

pub const REST_ADDED_TYPED: Rule = Rule {
    id: "rest-added-typed",
    summary: "an object became open with a typed rest (`..: T`): every other key must hold a `T`",
    detail: "Other keys were accepted whatever they held; now each must be a valid `T`. On input \
             an old client's other keys may hold anything; on output old clients drop them.",
    input: v(
        E,
        "old clients' other keys may hold values that are not a `T`; keep the rest `unknown`",
    ),
    output: v(I, "compatible: old clients accept and drop the other keys"),
    rust: kept("a new public field `extra` on a `#[non_exhaustive]` struct; `new` fills it"),
    ts: ts_breaks(
        "the type gains an index signature of the rest's type, which an object literal's fields must match too",
    ),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string }", "requests { \"s\": S -> {} }"],
        p![
            "struct S { a: string, ..: int }",
            "requests { \"s\": S -> {} }"
        ],
    ),
};

pub const REST_REMOVED: Rule = Rule {
    id: "rest-removed",
    summary: "an open object was closed: its other keys are no longer kept",
    detail: "Every value still decodes, but the other keys are dropped where they were kept: a \
             proxy or a store built on the type loses them.",
    input: v(
        W,
        "compatible on the wire, but the host now drops the other keys clients send",
    ),
    output: v(
        W,
        "compatible on the wire, but clients no longer receive the other keys",
    ),
    rust: breaks("the struct's `extra` field is gone"),
    ts: ts_breaks("reading another key by index no longer type-checks"),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string, ..: unknown }", "events { \"s\": S }"],
        p!["struct S { a: string }", "events { \"s\": S }"],
    ),
};

pub const OPTIONAL_TO_REQUIRED: Rule = Rule {
    id: "optional-to-required",
    summary: "an optional field became required",
    detail: "On input old clients leave it out. On output old clients get it every time, which \
             they accept; a warning, since records written before the change may lack it (a type \
             marked `#[stored]` is judged both ways, an error).",
    input: v(
        E,
        "old clients may leave it out; keep it optional and give it a default",
    ),
    output: v(
        W,
        "compatible for live clients, which get it every time; records written before may lack it (mark the type `#[stored]` if they are read back)",
    ),
    rust: breaks("the field's type loses its `Option` and its setter becomes an argument of `new`"),
    ts: ts_breaks("an object literal that leaves it out misses it"),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a?: string }", "requests { \"s\": S -> {} }"],
        p!["struct S { a: string }", "requests { \"s\": S -> {} }"],
    ),
};

pub const REQUIRED_TO_OPTIONAL: Rule = Rule {
    id: "required-to-optional",
    summary: "a required field became optional",
    detail: "The host accepts more; an old client requires it.",
    input: v(I, "compatible: the host accepts more"),
    output: v(E, "old clients require it; keep sending it"),
    rust: breaks("the field's type becomes an `Option` and its argument of `new` becomes a setter"),
    ts: ts_breaks("a read of it may be `undefined`"),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string }", "events { \"s\": S }"],
        p!["struct S { a?: string }", "events { \"s\": S }"],
    ),
};

pub const NULLABILITY_ADDED: Rule = Rule {
    id: "nullability-added",
    summary: "a type started admitting null",
    detail: "The host accepts more; an old client refuses the null.",
    input: v(I, "compatible: the host accepts more"),
    output: v(E, "old clients refuse null; keep the type non-null"),
    rust: breaks("the type becomes an `Option`"),
    ts: ts_breaks("a read of it may be `null`"),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string }", "events { \"s\": S }"],
        p!["struct S { a: string | null }", "events { \"s\": S }"],
    ),
};

pub const NULLABILITY_REMOVED: Rule = Rule {
    id: "nullability-removed",
    summary: "a type stopped admitting null",
    detail: "Old clients may send null; the host sends less than old clients accept.",
    input: v(E, "old clients may send null; keep admitting it"),
    output: v(
        I,
        "compatible: old clients never receive a null they would have to handle",
    ),
    rust: breaks("the type loses its `Option`"),
    ts: ts_breaks("an object literal that writes `null` there no longer type-checks"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct S { a: string | null }",
            "requests { \"s\": S -> {} }"
        ],
        p!["struct S { a: string }", "requests { \"s\": S -> {} }"],
    ),
};

pub const TYPE_CHANGED: Rule = Rule {
    id: "type-changed",
    summary: "a type became another kind of type, neither a subset nor a superset of the old",
    detail: "String to int, an object to a union, one literal to another, an array to a map, an \
             enum to a string that refuses some of its values.",
    input: v(
        E,
        "the new host refuses what old clients send; add a new optional field instead",
    ),
    output: v(
        E,
        "old clients refuse what the new host sends; add a new optional field instead",
    ),
    rust: breaks("the field's Rust type changes"),
    ts: ts_breaks("the field's TypeScript type changes"),
    never_acknowledged: false,
    example: ex(
        p!["struct S { a: string }", "events { \"s\": S }"],
        p!["struct S { a: int }", "events { \"s\": S }"],
    ),
};

pub const KIND_WIDENED: Rule = Rule {
    id: "kind-widened",
    summary: "a type became another kind that accepts everything the old one did, and more",
    detail: "An enum or a literal became a string, a literal became an enum holding it, a literal \
             `true` became `boolean`, `1` became `int`, a type became `unknown`.",
    input: v(
        I,
        "compatible: the host accepts everything old clients send, and more",
    ),
    output: v(
        E,
        "old clients refuse the values the old type did not have; keep the narrower type on what the host sends",
    ),
    rust: breaks(
        "the Rust type changes (`i64` to `f64`, an enum to `String`, a literal to an enum)",
    ),
    ts: ts_breaks(
        "a read of it holds more than its old type (a literal type to `string`, an enum to `string`)",
    ),
    never_acknowledged: false,
    example: ex(
        p![
            "enum Mode { \"a\", \"b\" }",
            "requests { \"go\": { mode: Mode } -> {} }"
        ],
        p!["requests { \"go\": { mode: string } -> {} }"],
    ),
};

pub const KIND_NARROWED: Rule = Rule {
    id: "kind-narrowed",
    summary: "a type became another kind that accepts a part of what the old one did",
    detail: "A string became an enum or a literal, an enum became one of its values, `unknown` \
             became a type.",
    input: v(
        E,
        "old clients may send values the new type refuses; keep the wider type on what the host accepts",
    ),
    output: v(
        I,
        "compatible: the host sends a part of what old clients accept",
    ),
    rust: breaks("the Rust type changes (`String` to an enum, `f64` to `i64`)"),
    ts: ts_breaks("a value of the old type may not be one of the new (`string` to an enum)"),
    never_acknowledged: false,
    example: ex(
        p!["events { \"s\": { state: string } }"],
        p![
            "enum State { \"idle\", \"running\" }",
            "events { \"s\": { state: State } }"
        ],
    ),
};

pub const KIND_RESPELLED: Rule = Rule {
    id: "kind-respelled",
    summary: "a type is written as another kind that accepts exactly the same values",
    detail: "An `#[open]` enum and a `string` with no limits, a literal and an enum of that one \
             value. The wire is the same; generated code names it another way.",
    input: v(I, "compatible: the same values are accepted"),
    output: v(I, "compatible: the same values are accepted"),
    rust: breaks("the Rust type changes (an `#[open]` enum to `String`, a literal to an enum)"),
    ts: ts_kept(
        "the TypeScript types admit the same values (`'a' | (string & {})` and `string`, a literal and an enum of it, `unknown | null` and `unknown`)",
    ),
    never_acknowledged: false,
    example: ex(
        p![
            "#[open] enum Code { \"a\" }",
            "events { \"e\": { code: Code } }"
        ],
        p!["events { \"e\": { code: string } }"],
    ),
};

pub const LITERAL_RESPELLED: Rule = Rule {
    id: "literal-respelled",
    summary: "an integer literal is written as a range of that one integer, or back",
    detail: "`1` and `int(1..=1)` accept the same values. The wire is the same; the generated \
             types are not (a literal's and a range's).",
    input: v(I, "compatible: the same values are accepted"),
    output: v(I, "compatible: the same values are accepted"),
    rust: breaks("the Rust type changes (`IntLit<1>` and `i64`)"),
    ts: ts_breaks("the TypeScript type changes (`1` and `number`)"),
    never_acknowledged: false,
    example: ex(
        p!["events { \"e\": { version: 1 } }"],
        p!["events { \"e\": { version: int(1..=1) } }"],
    ),
};

pub const CONSTRAINT_TIGHTENED: Rule = Rule {
    id: "constraint-tightened",
    summary: "a limit now refuses values it accepted",
    detail: "A higher `min`, a lower `max` (string length, int and number range, array item \
             count), a closed enum that was `#[open]`, `number` became `int`. A bound equal to the one the type implies (`string(min = 0)`, \
             `int(..=9007199254740991)`) is no limit.",
    input: v(
        E,
        "old clients may still send values the new limit refuses; keep the old limit",
    ),
    output: v(
        I,
        "compatible: the host sends a part of what old clients accept",
    ),
    rust: kept("limits are checked when a value is read; the Rust type is the same"),
    ts: ts_kept("limits are checked when a value is parsed; the TypeScript type is the same"),
    never_acknowledged: false,
    example: ex(
        p!["requests { \"go\": { text: string(max = 100) } -> {} }"],
        p!["requests { \"go\": { text: string(max = 50) } -> {} }"],
    ),
};

pub const CONSTRAINT_LOOSENED: Rule = Rule {
    id: "constraint-loosened",
    summary: "a limit now accepts values it refused",
    detail: "The reverse of `constraint-tightened` (`int` became `number`, an enum became \
             `#[open]`).",
    input: v(I, "compatible: the host accepts more than old clients send"),
    output: v(
        E,
        "old clients that check the old limit refuse the new values; keep the limit on what the host sends",
    ),
    rust: kept("limits are checked when a value is read; the Rust type is the same"),
    ts: ts_kept("limits are checked when a value is parsed; the TypeScript type is the same"),
    never_acknowledged: false,
    example: ex(
        p!["events { \"s\": { id: string(min = 1) } }"],
        p!["events { \"s\": { id: string } }"],
    ),
};

pub const INT_WIDTH_CHANGED: Rule = Rule {
    id: "int-width-changed",
    summary: "an integer changed width between `int` and `int64`",
    detail: "`int` holds the safe range, `int64` `-2^63 <= v < 2^63`. The values gained or lost \
             are reported beside it as `constraint-loosened` or `constraint-tightened`, which \
             give the verdict; this finding names the change.",
    input: v(I, "the range findings beside it give the verdict"),
    output: v(I, "the range findings beside it give the verdict"),
    rust: kept("`int` and `int64` are both `i64` in Rust"),
    ts: ts_kept("`int`, `int64` and `uint64` are all `number`"),
    never_acknowledged: false,
    example: ex(
        p!["requests { \"go\": { size: int } -> {} }"],
        p!["requests { \"go\": { size: int64 } -> {} }"],
    ),
};

pub const INT_SIGNEDNESS_CHANGED: Rule = Rule {
    id: "int-signedness-changed",
    summary: "an integer became `uint64`, or was `uint64` and became `int` or `int64`",
    detail: "`uint64` holds `0 <= v < 2^64`. The values gained or lost are reported beside it \
             as `constraint-loosened` or `constraint-tightened`, which give the verdict; this \
             finding names the change of the Rust type.",
    input: v(I, "the range findings beside it give the verdict"),
    output: v(I, "the range findings beside it give the verdict"),
    rust: breaks("`uint64` is `u64` in Rust, `int` and `int64` are `i64`"),
    ts: ts_kept("`int`, `int64` and `uint64` are all `number`"),
    never_acknowledged: false,
    example: ex(
        p!["requests { \"go\": { size: int64 } -> {} }"],
        p!["requests { \"go\": { size: uint64 } -> {} }"],
    ),
};

pub const DEFAULT_ADDED: Rule = Rule {
    id: "default-added",
    summary: "an optional field gained a default",
    detail: "On input the host decided what an absent key meant, and now says so. On output an old \
             client reads an absent key as absent where new code reads the default.",
    input: v(
        I,
        "compatible: the host now says what it does when old clients leave it out",
    ),
    output: v(
        E,
        "old clients read an absent key as absent, not as the default; send the value instead",
    ),
    rust: breaks("the field's type loses its `Option` (a defaulted field holds its value)"),
    ts: ts_breaks(
        "the type is the schema's output, in which a defaulted field is required: an object literal that leaves it out misses it",
    ),
    never_acknowledged: false,
    example: ex(
        p!["requests { \"go\": { lines?: int } -> {} }"],
        p!["requests { \"go\": { lines?: int = 40 } -> {} }"],
    ),
};

pub const DEFAULT_REMOVED: Rule = Rule {
    id: "default-removed",
    summary: "an optional field lost its default",
    detail: "A peer that leaves the field out meant the default; the reader now sees it absent.",
    input: v(
        E,
        "old clients leave it out and mean the default; keep the default",
    ),
    output: v(
        E,
        "old clients read an absent key as the default; keep the default",
    ),
    rust: breaks("the field's type becomes an `Option`"),
    ts: ts_breaks("a read of it may be `undefined`"),
    never_acknowledged: false,
    example: ex(
        p!["requests { \"go\": { lines?: int = 40 } -> {} }"],
        p!["requests { \"go\": { lines?: int } -> {} }"],
    ),
};

pub const DEFAULT_CHANGED: Rule = Rule {
    id: "default-changed",
    summary: "the default of an optional field changed",
    detail: "A peer that leaves the field out now means something else. `40` and `40.0` are the \
             same default.",
    input: v(
        E,
        "old clients that leave it out now mean something else; keep the default",
    ),
    output: v(
        E,
        "old clients read an absent key as the old default; keep the default",
    ),
    rust: kept("only the value `new` starts the field at changes"),
    ts: ts_kept("only the value parsing fills in changes"),
    never_acknowledged: false,
    example: ex(
        p!["requests { \"go\": { lines?: int = 40 } -> {} }"],
        p!["requests { \"go\": { lines?: int = 20 } -> {} }"],
    ),
};

pub const UNION_TAG_CHANGED: Rule = Rule {
    id: "union-tag-changed",
    summary: "a union's tag key changed, or it became (un)tagged",
    detail: "No old peer can pick the variant.",
    input: v(E, "no old peer can pick the variant; keep the tag"),
    output: v(E, "no old peer can pick the variant; keep the tag"),
    rust: breaks(
        "a tagged union's variants are named by their tags, an untagged one's by their types",
    ),
    ts: ts_breaks("a `switch` over the old tag key no longer narrows"),
    never_acknowledged: false,
    example: ex(
        p![
            "union Item tag \"type\" { \"text\" => { text: string } }",
            "events { \"i\": { item: Item } }"
        ],
        p![
            "union Item tag \"kind\" { \"text\" => { text: string } }",
            "events { \"i\": { item: Item } }"
        ],
    ),
};

pub const UNION_VARIANTS_REORDERED: Rule = Rule {
    id: "union-variants-reordered",
    summary: "an untagged union's variants were reordered, and some value matches two of them",
    detail: "The first variant that accepts wins, so the order is part of the wire, unless every \
             two variants whose order changed require different literals at a key they share \
             (see `union-variants-reordered-disjoint`).",
    input: v(E, "the first variant that accepts wins; keep the order"),
    output: v(E, "the first variant that accepts wins; keep the order"),
    rust: kept("variants are matched by name"),
    ts: ts_kept("a union's members have no order in TypeScript"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct A { a: string }",
            "struct B { b: string }",
            "union U untagged { A, B }",
            "events { \"u\": { u: U } }"
        ],
        p![
            "struct A { a: string }",
            "struct B { b: string }",
            "union U untagged { B, A }",
            "events { \"u\": { u: U } }"
        ],
    ),
};

pub const UNION_VARIANTS_REORDERED_DISJOINT: Rule = Rule {
    id: "union-variants-reordered-disjoint",
    summary: "an untagged union's variants were reordered, and literals keep them apart",
    detail: "No value matches two of the variants whose order changed (they are of different \
             JSON kinds, or require literals apart at a key they share, `ok: true` and \
             `ok: false`), so the order decides nothing.",
    input: v(
        I,
        "compatible: no value matches two of the reordered variants",
    ),
    output: v(
        I,
        "compatible: no value matches two of the reordered variants",
    ),
    rust: kept("variants are matched by name"),
    ts: ts_kept("a union's members have no order in TypeScript"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct A { ok: true }",
            "struct B { ok: false }",
            "union U untagged { A, B }",
            "events { \"u\": { u: U } }"
        ],
        p![
            "struct A { ok: true }",
            "struct B { ok: false }",
            "union U untagged { B, A }",
            "events { \"u\": { u: U } }"
        ],
    ),
};

pub const DEFINITION_REMOVED: Rule = Rule {
    id: "definition-removed",
    summary: "a named type left the schema and nothing took its place",
    detail: "Apps import types by name (`use agent::ChatId`); a type reached from nothing is \
             judged both ways.",
    input: v(
        E,
        "apps import types by name; keep it (mark it `#[deprecated]`)",
    ),
    output: v(
        E,
        "apps import types by name; keep it (mark it `#[deprecated]`)",
    ),
    rust: breaks("the Rust type is gone"),
    ts: ts_breaks("the exported type and its schema are gone"),
    never_acknowledged: false,
    example: ex(
        p!["type Score = int(0..=100);", "struct S { a: string }"],
        p!["struct S { a: string }"],
    ),
};

pub const UNMODELLED_CHANGE: Rule = Rule {
    id: "unmodelled-change",
    summary: "a wire difference the differ does not model (fail closed)",
    detail: "It fires when the fingerprint (a canonical, name-free form of everything a payload, \
             result or named type accepts) changed and no other rule reported anything under it, \
             and for changes the differ sees but does not judge: a field's `#[table]` changed or \
             dropped (adding one adds a typed read and changes nothing on the wire), a reference \
             that does not resolve. Review it, then acknowledge it if it is safe.",
    input: v(
        E,
        "the differ does not model this change; review it, then acknowledge it if it is safe",
    ),
    output: v(
        E,
        "the differ does not model this change; review it, then acknowledge it if it is safe",
    ),
    rust: breaks("the differ does not model it; assume Rust code needs an edit"),
    ts: ts_breaks("the differ does not model it; assume TypeScript code needs an edit"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct Frame { type: string, kind: string, #[table = \"requests[type]\"] payload: unknown }",
            "requests { \"go\": { a: string } -> {} }",
            "events { \"f\": Frame }"
        ],
        p![
            "struct Frame { type: string, kind: string, #[table = \"requests[kind]\"] payload: unknown }",
            "requests { \"go\": { a: string } -> {} }",
            "events { \"f\": Frame }"
        ],
    ),
};

pub const RUST_TYPE_RENAMED: Rule = Rule {
    id: "rust-type-renamed",
    summary: "a generated Rust type's path changed while the wire stayed the same",
    detail: "A named type was renamed, moved to another directory (another Rust module), or an \
             inline object was given a name (its hoisted name changed). Nothing changes on the \
             wire, so it is compatible; Rust code that names the type by its path needs an edit.",
    input: v(
        I,
        "compatible on the wire; Rust code naming the old path needs an edit",
    ),
    output: v(
        I,
        "compatible on the wire; Rust code naming the old path needs an edit",
    ),
    rust: breaks("code naming the type by its old path no longer compiles"),
    ts: ts_breaks(
        "the TypeScript type and its schema are exported under the new name (or from another subpath)",
    ),
    never_acknowledged: false,
    example: ex(
        p!["struct P { a: string }", "requests { \"a.get\": P -> P }"],
        p!["struct Q { a: string }", "requests { \"a.get\": Q -> Q }"],
    ),
};

pub const RUST_TYPE_REPLACED: Rule = Rule {
    id: "rust-type-replaced",
    summary: "a place now holds another generated Rust type while the one it held still exists",
    detail: "A type was copied out for one place (`chat.send` given its own `OutgoingAttachment` \
             beside `Attachment`), or a place now uses another existing type of the same shape. \
             The copy is judged by the places it serves, so on the wire only its changes count; \
             Rust code that builds or names the value at that place needs the other type.",
    input: v(
        I,
        "compatible on the wire; Rust code building the value at that place needs the other type",
    ),
    output: v(
        I,
        "compatible on the wire; Rust code building the value at that place needs the other type",
    ),
    rust: breaks("code building or naming the value at that place needs the other type"),
    ts: ts_kept(
        "TypeScript types are structural: a value of the old type's shape is one of the other's when their findings say so",
    ),
    never_acknowledged: false,
    example: ex(
        p![
            "struct A { a: string }",
            "requests { \"a.get\": { a: A } -> { a: A } }"
        ],
        p![
            "struct A { a: string }",
            "struct B { a: string }",
            "requests { \"a.get\": { a: B } -> { a: A } }"
        ],
    ),
};

pub const RUST_NON_EXHAUSTIVE_ADDED: Rule = Rule {
    id: "rust-non-exhaustive-added",
    summary: "a generated enum or union became `#[non_exhaustive]`",
    detail: "The way it travels changed so that it may now grow compatibly (see `Growth`), so its \
             Rust type is `#[non_exhaustive]`. Nothing changes on the wire; a `match` on it in \
             another crate without a wildcard arm no longer compiles.",
    input: v(
        I,
        "compatible on the wire; an exhaustive `match` on it needs a wildcard arm",
    ),
    output: v(
        I,
        "compatible on the wire; an exhaustive `match` on it needs a wildcard arm",
    ),
    rust: breaks("an exhaustive `match` on it in another crate needs a wildcard arm"),
    ts: ts_breaks(
        "an enum's type now admits any value (`(string & {})`): an exhaustive `switch` over it (a `never` default) needs a default arm (a union's type is unchanged)",
    ),
    never_acknowledged: false,
    example: ex(
        p!["enum E { \"a\", \"b\" }"],
        p!["#[direction = \"client-to-server\"] enum E { \"a\", \"b\" }"],
    ),
};

pub const RUST_NEW_REORDERED: Rule = Rule {
    id: "rust-new-reordered",
    summary: "a struct's required fields were reordered, so `new` takes its arguments in another order",
    detail: "Field order does not travel, so it is compatible on the wire; `new` takes the \
             required fields in the order the schema writes them, so a call written against the \
             base passes them to the wrong parameters (it fails to compile unless the types \
             happen to agree). Keep the required fields in their order.",
    input: v(
        I,
        "compatible on the wire; calls of `new` need their arguments reordered",
    ),
    output: v(
        I,
        "compatible on the wire; calls of `new` need their arguments reordered",
    ),
    rust: breaks("calls of `new` pass the required fields in the old order"),
    ts: ts_kept("object literals name their fields"),
    never_acknowledged: false,
    example: ex(
        p![
            "struct P { a: string, b: int }",
            "requests { \"a.get\": P -> P }"
        ],
        p![
            "struct P { b: int, a: string }",
            "requests { \"a.get\": P -> P }"
        ],
    ),
};

pub const RUST_OPEN_ENUM_CLOSED: Rule = Rule {
    id: "rust-open-enum-closed",
    summary: "an `#[open]` enum became closed, so its Rust `Other` variant is gone",
    detail: "Reported on the wire as `constraint-tightened` (compatible where the host only sends \
             it); in Rust the variant that held an unlisted value is gone, so a `match` arm or a \
             value naming it no longer compiles.",
    input: v(
        I,
        "the wire verdict is `open-enum-closed`'s; Rust code naming `Other` needs an edit",
    ),
    output: v(
        I,
        "the wire verdict is `open-enum-closed`'s; Rust code naming `Other` needs an edit",
    ),
    rust: breaks("the `Other` variant is gone"),
    ts: ts_breaks(
        "its type no longer admits an unlisted value (the `(string & {})` member is gone)",
    ),
    never_acknowledged: false,
    example: ex(
        p!["#[open] enum E { \"a\" }", "events { \"s\": { e: E } }"],
        p!["enum E { \"a\" }", "events { \"s\": { e: E } }"],
    ),
};

pub const RUST_ENUM_VALUE_RENAMED: Rule = Rule {
    id: "rust-enum-value-renamed",
    summary: "an integer enum's value kept its number and has another name",
    detail: "Only the number travels, so nothing changes on the wire; the name is the Rust \
             variant and the TypeScript key, so code naming the old one needs an edit.",
    input: v(
        I,
        "compatible on the wire; Rust and TypeScript code naming the old value needs an edit",
    ),
    output: v(
        I,
        "compatible on the wire; Rust and TypeScript code naming the old value needs an edit",
    ),
    rust: breaks("code naming the old variant no longer compiles"),
    ts: ts_breaks("the value's name in the exported object changes"),
    never_acknowledged: false,
    example: ex(
        p![
            "enum Severity { Error = 1, Warn = 2 }",
            "events { \"d\": { severity: Severity } }"
        ],
        p![
            "enum Severity { Error = 1, Warning = 2 }",
            "events { \"d\": { severity: Severity } }"
        ],
    ),
};

/// Every rule, in the order `docs/compat-rules.md` lists them.
pub const RULES: &[&Rule] = &[
    &PROTOCOL_REMOVED,
    &REQUEST_REMOVED,
    &REQUEST_RENAMED,
    &REQUEST_ADDED,
    &REQUEST_METADATA_ADDED,
    &REQUEST_METADATA_REMOVED,
    &EVENT_REMOVED,
    &EVENT_RENAMED,
    &EVENT_ADDED,
    &EVENT_ADDED_GATED,
    &GATE_CHANGED,
    &DIRECTION_CHANGED,
    &DIRECTION_DECLARED,
    &UNION_VARIANT_ADDED,
    &UNION_VARIANT_ADDED_GATED,
    &UNION_VARIANT_ADDED_BEFORE,
    &UNION_VARIANT_WIDENED_OVER,
    &UNION_VARIANT_REMOVED,
    &ENUM_VALUE_ADDED,
    &OPEN_ENUM_VALUE_ADDED,
    &OPEN_ENUM_CLOSED,
    &CONST_ADDED,
    &CONST_REMOVED,
    &CONST_VALUE_CHANGED,
    &ENUM_VALUE_REMOVED,
    &OPEN_ENUM_VALUE_REMOVED,
    &ENUM_VALUE_NUMBER_CHANGED,
    &LEGACY_VALUE_REMOVED,
    &LEGACY_ATTRIBUTE_REMOVED,
    &STORED_ATTRIBUTE_ADDED,
    &STORED_ATTRIBUTE_REMOVED,
    &FIELD_REMOVED,
    &FIELD_RENAMED,
    &FIELD_ADDED_REQUIRED,
    &FIELD_ADDED_OPTIONAL,
    &REST_ADDED,
    &REST_ADDED_TYPED,
    &REST_REMOVED,
    &OPTIONAL_TO_REQUIRED,
    &REQUIRED_TO_OPTIONAL,
    &NULLABILITY_ADDED,
    &NULLABILITY_REMOVED,
    &TYPE_CHANGED,
    &KIND_WIDENED,
    &KIND_NARROWED,
    &KIND_RESPELLED,
    &LITERAL_RESPELLED,
    &CONSTRAINT_TIGHTENED,
    &CONSTRAINT_LOOSENED,
    &INT_WIDTH_CHANGED,
    &INT_SIGNEDNESS_CHANGED,
    &DEFAULT_ADDED,
    &DEFAULT_REMOVED,
    &DEFAULT_CHANGED,
    &UNION_TAG_CHANGED,
    &UNION_VARIANTS_REORDERED,
    &UNION_VARIANTS_REORDERED_DISJOINT,
    &DEFINITION_REMOVED,
    &UNMODELLED_CHANGE,
    &RUST_TYPE_RENAMED,
    &RUST_TYPE_REPLACED,
    &RUST_NON_EXHAUSTIVE_ADDED,
    &RUST_NEW_REORDERED,
    &RUST_OPEN_ENUM_CLOSED,
    &RUST_ENUM_VALUE_RENAMED,
];

/// The rules section of `docs/compat-rules.md`, rendered from the catalogue.
pub fn markdown() -> String {
    let mut out = String::new();
    for r in RULES {
        let _ = writeln!(out, "### `{}`\n", r.id);
        let level = if r.input.level == r.output.level {
            format!("**{}**", r.input.level)
        } else {
            format!("**in: {}, out: {}**", r.input.level, r.output.level)
        };
        let never = if r.never_acknowledged {
            " It can never be acknowledged."
        } else {
            ""
        };
        let summary = capitalise(r.summary);
        let _ = writeln!(out, "{summary}: {level}.{never} {}\n", r.detail);
        if r.input.hint == r.output.hint {
            let _ = writeln!(out, "- help: {}\n", r.input.hint);
        } else {
            let _ = writeln!(out, "- help, in: {}", r.input.hint);
            let _ = writeln!(out, "- help, out: {}\n", r.output.hint);
        }
        let _ = match r.rust {
            RustSource::Kept(why) => writeln!(out, "- Rust source: kept: {why}.\n"),
            RustSource::Breaks(what) => writeln!(out, "- Rust source: breaks: {what}.\n"),
        };
        let _ = match r.ts {
            TsSource::Kept(why) => writeln!(out, "- TypeScript source: kept: {why}.\n"),
            TsSource::Breaks(what) => writeln!(out, "- TypeScript source: breaks: {what}.\n"),
        };
        let _ = writeln!(out, "```text\n// base\n{}// head", r.example.base);
        let head = if r.example.head.is_empty() {
            "(the directory is gone)\n"
        } else {
            r.example.head
        };
        let _ = writeln!(out, "{head}```\n");
    }
    out
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
