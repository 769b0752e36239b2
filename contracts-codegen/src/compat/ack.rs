//! Acknowledged breaks: a checked-in list of findings accepted with a reason.
//!
//! The list is JSON (`schema/compat-acknowledged.json`):
//!
//! ```json
//! { "acknowledged": [
//!     { "protocol": "agent", "rule": "field-removed", "subject": "ChatInfo.title",
//!       "reason": "never shipped to a client" }
//! ] }
//! ```
//!
//! An entry matches a finding with the same rule and subject (and protocol, when given). A
//! matched breaking finding is reported as acknowledged and does not fail the check, except a
//! rule that can never be acknowledged (`legacy-value-removed`). An entry that matches nothing is
//! reported as stale, a warning: every entry goes stale as soon as its change reaches the base
//! (a bless of the published baseline, a merge), and failing then would turn the main branch red.

use super::{Finding, Level, rules};
use serde::{Deserialize, Serialize};

/// One accepted break.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ack {
    /// The protocol (schema directory name); absent matches any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    pub rule: String,
    pub subject: String,
    pub reason: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AckFile {
    acknowledged: Vec<Ack>,
}

/// Parse the acknowledged-breaks file. Every entry needs a known rule and a reason.
pub fn parse_acks(text: &str) -> Result<Vec<Ack>, String> {
    let file: AckFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
    for a in &file.acknowledged {
        if rules::find(&a.rule).is_none() {
            return Err(format!(
                "unknown rule `{}` (subject `{}`)",
                a.rule, a.subject
            ));
        }
        if a.reason.trim().is_empty() {
            return Err(format!("entry {} `{}` has no reason", a.rule, a.subject));
        }
    }
    Ok(file.acknowledged)
}

/// One finding of one protocol, with its acknowledgement.
#[derive(Clone, Debug)]
pub struct Reported {
    pub protocol: String,
    pub finding: Finding,
    /// The reason of the entry that accepted it.
    pub acknowledged: Option<String>,
    /// An entry matched a rule that can never be acknowledged; it still fails.
    pub refused_ack: bool,
}

impl Reported {
    /// True when this finding fails the check.
    pub fn breaks(&self) -> bool {
        self.finding.level == Level::Error && self.acknowledged.is_none()
    }
}

/// Every finding of a run, and the entries that matched nothing.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub items: Vec<Reported>,
    pub stale: Vec<Ack>,
}

impl Report {
    /// Findings that fail the check.
    pub fn breaking(&self) -> usize {
        self.items.iter().filter(|r| r.breaks()).count()
    }
    /// Breaking findings accepted by an entry.
    pub fn acknowledged(&self) -> usize {
        self.items
            .iter()
            .filter(|r| r.acknowledged.is_some())
            .count()
    }
    /// Findings that do not break (warnings and info).
    pub fn compatible(&self) -> usize {
        self.items
            .iter()
            .filter(|r| r.finding.level != Level::Error)
            .count()
    }
    pub fn count(&self, level: Level) -> usize {
        self.items
            .iter()
            .filter(|r| r.finding.level == level)
            .count()
    }
    pub fn is_breaking(&self) -> bool {
        self.breaking() > 0
    }
}

/// Match `acks` against the findings of each protocol checked (`(protocol, findings)`).
/// Entries for protocols not checked in this run are neither used nor stale.
pub fn acknowledge(results: Vec<(String, Vec<Finding>)>, acks: &[Ack]) -> Report {
    let mut used = vec![false; acks.len()];
    let mut report = Report::default();
    let checked: Vec<String> = results.iter().map(|(p, _)| p.clone()).collect();
    for (protocol, findings) in results {
        for finding in findings {
            let hit = acks.iter().position(|a| {
                a.rule == finding.rule.id
                    && a.subject == finding.subject
                    && a.protocol.as_ref().is_none_or(|p| *p == protocol)
            });
            let mut item = Reported {
                protocol: protocol.clone(),
                finding,
                acknowledged: None,
                refused_ack: false,
            };
            if let Some(i) = hit {
                used[i] = true;
                let never = item.finding.rule.never_acknowledged;
                if never {
                    item.refused_ack = true;
                } else if item.finding.level == Level::Error {
                    item.acknowledged = Some(acks[i].reason.clone());
                }
            }
            report.items.push(item);
        }
    }
    for (i, a) in acks.iter().enumerate() {
        let in_run = a.protocol.as_ref().is_none_or(|p| checked.contains(p));
        if !used[i] && in_run {
            report.stale.push(a.clone());
        }
    }
    report
}
