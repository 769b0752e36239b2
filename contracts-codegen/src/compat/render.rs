//! Rendering: rustc-like text for people, JSON for CI annotations.

use super::rules::{RustSource, TsSource};
use super::{Finding, Level, Report, Reported, direction_str};
use crate::model::{Loc, SourceFile};
use std::fmt::Write as _;

/// One finding as text: `error[rule]: message`, `--> file:line:col`, the source line with a
/// caret (when `files` holds the file), the direction and base place, the help line, and for a
/// compatible change that breaks Rust source, what Rust code needs an edit.
pub fn finding(f: &Finding, files: &[SourceFile]) -> String {
    let item = Reported {
        protocol: String::new(),
        finding: f.clone(),
        acknowledged: None,
        refused_ack: false,
    };
    reported(&item, files)
}

/// Every finding as text, one after another (no summary).
pub fn findings(fs: &[Finding], files: &[SourceFile]) -> String {
    fs.iter().map(|f| finding(f, files)).collect()
}

/// One reported finding as text; an acknowledged one is headed `acknowledged[rule]`.
pub fn reported(r: &Reported, files: &[SourceFile]) -> String {
    let f = &r.finding;
    let head = if r.acknowledged.is_some() {
        "acknowledged"
    } else {
        f.level.as_str()
    };
    let mut out = format!("{head}[{}]: {}\n", f.rule.id, f.message);
    let width = if f.loc.line == 0 {
        1
    } else {
        f.loc.line.to_string().len()
    };
    let pad = " ".repeat(width);
    if f.loc.line == 0 {
        let _ = writeln!(out, "{pad}--> {}", f.loc.file);
    } else {
        let _ = writeln!(out, "{pad}--> {}", f.loc);
        snippet(&mut out, files, &f.loc, &pad);
    }
    let mut note = format!("{} `{}`", direction_str(f.direction), f.subject);
    if let Some(b) = &f.base_loc {
        let _ = write!(note, "; in base at {b}");
    }
    let _ = writeln!(out, "{pad} = note: {note}");
    if let Some(reason) = &r.acknowledged {
        let _ = writeln!(out, "{pad} = note: acknowledged: {reason}");
    }
    if r.refused_ack {
        let _ = writeln!(
            out,
            "{pad} = note: `{}` can never be acknowledged",
            f.rule.id
        );
    }
    let _ = writeln!(out, "{pad} = help: {}", f.hint);
    // A compatible change that still needs an edit in Rust code written against the base.
    if let (true, RustSource::Breaks(what)) = (f.level != Level::Error, f.rule.rust) {
        let _ = writeln!(out, "{pad} = note: Rust source: {what}");
    }
    // Likewise for TypeScript code written against the base's package.
    if let (true, TsSource::Breaks(what)) = (f.level != Level::Error, f.rule.ts) {
        let _ = writeln!(out, "{pad} = note: TypeScript source: {what}");
    }
    out.push('\n');
    out
}

fn snippet(out: &mut String, files: &[SourceFile], loc: &Loc, pad: &str) {
    let Some(file) = files.iter().find(|f| f.display == loc.file) else {
        return;
    };
    let Some(line) = file.text.lines().nth((loc.line as usize).saturating_sub(1)) else {
        return;
    };
    let caret: String = line
        .chars()
        .take((loc.col as usize).saturating_sub(1))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{} | {line}", loc.line);
    let _ = writeln!(out, "{pad} | {caret}^");
}

/// The whole report as text: findings (breaking first), stale entries, then a summary line.
pub fn text(report: &Report, files: &[SourceFile], ack_file: &str) -> String {
    let mut out = String::new();
    let mut items: Vec<&Reported> = report.items.iter().collect();
    items.sort_by_key(|r| (!r.breaks(), std::cmp::Reverse(r.finding.level)));
    for r in items {
        out.push_str(&reported(r, files));
    }
    for a in &report.stale {
        let _ = writeln!(
            out,
            "warning[stale-acknowledgement]: `{}` on `{}` matches no finding",
            a.rule, a.subject
        );
        let _ = writeln!(out, "  --> {ack_file}");
        let _ = writeln!(
            out,
            "  = help: remove the entry: the break it accepted is no longer reported\n"
        );
    }
    out.push_str(&summary_line(report));
    out.push('\n');
    out
}

/// `compat: 1 breaking, 0 acknowledged, 3 compatible (1 warning, 2 info)`.
pub fn summary_line(report: &Report) -> String {
    let mut s = format!(
        "compat: {} breaking, {} acknowledged, {} compatible ({} warning, {} info)",
        report.breaking(),
        report.acknowledged(),
        report.compatible(),
        report.count(Level::Warning),
        report.count(Level::Info)
    );
    if !report.stale.is_empty() {
        let _ = write!(s, ", {} stale acknowledgement(s)", report.stale.len());
    }
    s
}

/// The report as JSON: `{ summary: { breaking, acknowledged, compatible, warnings, info,
/// stale_acknowledgements }, findings: [...], stale_acknowledgements: [...] }`.
pub fn json(report: &Report) -> serde_json::Value {
    let findings: Vec<serde_json::Value> = report
        .items
        .iter()
        .map(|r| {
            let f = &r.finding;
            serde_json::json!({
                "protocol": r.protocol,
                "rule": f.rule.id,
                "level": f.level.as_str(),
                "breaking": r.breaks(),
                "acknowledged": r.acknowledged,
                "direction": direction_str(f.direction),
                "subject": f.subject,
                "file": &*f.loc.file,
                "line": f.loc.line,
                "column": f.loc.col,
                "base": f.base_loc.as_ref().map(|b| serde_json::json!({
                    "file": &*b.file, "line": b.line, "column": b.col,
                })),
                "message": f.message,
                "hint": f.hint,
                "rust_source": match f.rule.rust {
                    RustSource::Kept(_) => serde_json::json!("kept"),
                    RustSource::Breaks(what) => serde_json::json!({ "breaks": what }),
                },
                "typescript_source": match f.rule.ts {
                    TsSource::Kept(_) => serde_json::json!("kept"),
                    TsSource::Breaks(what) => serde_json::json!({ "breaks": what }),
                },
            })
        })
        .collect();
    serde_json::json!({
        "summary": {
            "breaking": report.breaking(),
            "acknowledged": report.acknowledged(),
            "compatible": report.compatible(),
            "warnings": report.count(Level::Warning),
            "info": report.count(Level::Info),
            "stale_acknowledgements": report.stale.len(),
        },
        "findings": findings,
        "stale_acknowledgements": report.stale,
    })
}
