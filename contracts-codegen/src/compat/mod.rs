//! compat: the differ between a base and a head model (direction-aware rules).
//!
//! ```text
//! diff(base, head) -> [Finding]          walk::Differ pairs requests, events and named types
//!     rules                              the catalogue: every rule's verdict per direction
//!     analysis::direction                which way each named type travels (`#[stored]`: both)
//!     analysis::kinds                    canonical limits and defaults, kind subsets
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
pub mod render;
mod walk;

pub use crate::analysis::kinds;
pub use crate::compat_rules as rules;
pub use crate::compat_rules::Level;
pub use ack::{Ack, Report, Reported, acknowledge};

use crate::analysis::Checked;
use crate::model::{Direction, Loc};

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
pub fn diff(base: &Checked, head: &Checked) -> Vec<Finding> {
    let mut out = walk::Differ::new(base, head).run();
    out.sort_by(|a, b| (&a.loc, a.rule.id, &a.subject).cmp(&(&b.loc, b.rule.id, &b.subject)));
    out.dedup();
    out
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

/// The findings whose change breaks TypeScript code written against the base's generated
/// package, each with what changes (the rule's [`rules::TsSource`]); none means it is kept.
pub fn ts_source(findings: &[Finding]) -> Vec<(&Finding, &'static str)> {
    findings
        .iter()
        .filter_map(|f| match f.rule.ts {
            rules::TsSource::Breaks(what) => Some((f, what)),
            rules::TsSource::Kept(_) => None,
        })
        .collect()
}

/// True when any finding breaks compatibility.
pub fn is_breaking(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.level == Level::Error)
}

#[cfg(test)]
mod tests;
