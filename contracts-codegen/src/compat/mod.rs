//! compat: the differ between a base and a head model (direction-aware rules).
//!
//! ```text
//! diff(base, head) -> [Finding]          walk::Differ pairs requests, events and named types
//!     rules                              the catalogue: every rule's verdict per direction
//!     analysis::direction                which way each named type travels (`#[stored]`: both)
//!     kinds                              canonical limits and defaults, kind subsets
//!     fingerprint                        the fail-closed net: any wire difference with no finding
//! acknowledge(findings, entries)         the checked-in list of accepted breaks
//! render::text / render::json            rustc-like text, JSON for CI
//! ```
//!
//! Everything is compared by wire names: a hoisted type's name, a Rust identifier or a renamed
//! named type with the same shape in the same places is not a finding. Each finding is judged by
//! the way its type travels (see [`rules`]).

pub mod ack;
pub mod fingerprint;
pub mod kinds;
pub mod render;
pub mod rules;
mod walk;

pub use ack::{Ack, Report, Reported, acknowledge};

use crate::model::{Direction, Loc, Model, TypeDef, TypeDefKind};
use std::fmt;

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

/// `client->host`, `host->client` or `both`.
pub fn direction_str(dir: Direction) -> &'static str {
    match dir {
        Direction::ClientToServer => "client->host",
        Direction::ServerToClient => "host->client",
        Direction::Both => "both",
    }
}

/// One difference between base and head, judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The rule, from the catalogue [`rules::RULES`].
    pub rule: &'static rules::Rule,
    /// The rule's level for `direction`.
    pub level: Level,
    /// The way the changed type travels.
    pub direction: Direction,
    /// The wire path: `chat.history.payload.cursor`, `ChatInfo.title`, `ChatState."idle"`.
    pub subject: String,
    /// Where in head; a removal is anchored at the nearest surviving place.
    pub loc: Loc,
    /// Where in base, when the thing existed there.
    pub base_loc: Option<Loc>,
    pub message: String,
    pub hint: String,
}

/// Compare `base` with `head` and judge every difference on the wire.
pub fn diff(base: &Model, head: &Model) -> Vec<Finding> {
    let mut out = walk::Differ::new(base, head).run();
    out.sort_by(|a, b| (&a.loc, a.rule.id, &a.subject).cmp(&(&b.loc, b.rule.id, &b.subject)));
    out.dedup();
    out
}

/// Which of a model's enums and unions may gain a value or a variant in a change the differ
/// judges compatible: an `#[open]` enum always; a closed enum or a union that travels only
/// client -> host (the host accepts more); any union of a protocol that negotiates
/// capabilities (a variant behind a new `#[accepts]` gate). The Rust emitter makes exactly
/// these `#[non_exhaustive]`, so code that matches them keeps compiling when they grow.
#[derive(Debug)]
pub struct Growth {
    negotiates: bool,
}

impl Growth {
    /// The growth rules of `model`'s types (its own and its bases' as it reaches them), which
    /// travel as `dirs` says: part of the model's analysis ([`Model::analysis`]).
    pub fn of(model: &Model, dirs: &crate::analysis::Directions) -> Growth {
        Growth {
            negotiates: walk::negotiates(model, dirs),
        }
    }

    /// Whether the protocol negotiates capabilities (a client announces what it accepts), so
    /// a gate keeps a new frame or variant from old clients.
    pub fn negotiates(&self) -> bool {
        self.negotiates
    }

    /// Whether `def`, a type of `model`, may gain a value or a variant compatibly.
    pub fn may_grow(&self, model: &Model, def: &TypeDef) -> bool {
        // A type nothing reaches is judged as travelling both ways.
        let dir = model
            .analysis()
            .directions
            .get(&def_key(model, &def.name))
            .unwrap_or(Direction::Both);
        let compatible = |rule: &rules::Rule| rules::level(rule, dir) != Level::Error;
        match &def.kind {
            TypeDefKind::Enum(e) if e.open => compatible(&rules::OPEN_ENUM_VALUE_ADDED),
            TypeDefKind::Enum(_) => compatible(&rules::ENUM_VALUE_ADDED),
            TypeDefKind::Union(_) => {
                compatible(&rules::UNION_VARIANT_ADDED)
                    || (self.negotiates && compatible(&rules::UNION_VARIANT_ADDED_GATED))
            }
            _ => false,
        }
    }
}

/// The findings whose change breaks Rust code written against the base's generated types,
/// each with what changes (the rule's [`rules::RustSource`]); none means the source is kept.
pub fn rust_source(findings: &[Finding]) -> Vec<(&Finding, &'static str)> {
    findings
        .iter()
        .filter_map(|f| match f.rule.rust {
            rules::RustSource::Breaks(what) => Some((f, what)),
            rules::RustSource::Kept(_) => None,
        })
        .collect()
}

/// True when any finding breaks compatibility.
pub fn is_breaking(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.level == Level::Error)
}

/// A named type's identity: its protocol and its name.
pub type DefKey = (String, String);

/// The key of the type `name` declared in `m`.
pub fn def_key(m: &Model, name: &str) -> DefKey {
    (m.name.clone(), name.to_string())
}

#[cfg(test)]
mod tests;
