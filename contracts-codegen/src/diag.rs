//! Diagnostics: collected, never thrown, rendered like rustc with the source line and a caret.

use crate::model::{Loc, SourceFile};
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
}

/// One finding about a schema, at a place.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub level: Level,
    pub loc: Loc,
    pub message: String,
    /// Other places that matter (`first defined here`), each with a short message.
    pub notes: Vec<(Loc, String)>,
}

/// The collector every phase writes into.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn error(&mut self, loc: &Loc, message: impl Into<String>) -> &mut Diagnostic {
        self.items.push(Diagnostic {
            level: Level::Error,
            loc: loc.clone(),
            message: message.into(),
            notes: Vec::new(),
        });
        self.items.last_mut().unwrap()
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.level == Level::Error)
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    /// Sort by file, line and column so the report reads top to bottom.
    pub fn sort(&mut self) {
        self.items.sort_by(|a, b| a.loc.cmp(&b.loc));
    }

    /// Every diagnostic rendered with its source line, `files` giving the text.
    pub fn render(&self, files: &[SourceFile]) -> String {
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&d.render(files));
        }
        out
    }
}

impl Diagnostic {
    pub fn note(&mut self, loc: &Loc, message: impl Into<String>) -> &mut Self {
        self.notes.push((loc.clone(), message.into()));
        self
    }

    /// `path:line:col: error: message`, then the line and a caret under the column, then notes.
    pub fn render(&self, files: &[SourceFile]) -> String {
        let level = match self.level {
            Level::Error => "error",
            Level::Warning => "warning",
        };
        let mut out = format!("{}: {level}: {}\n", self.loc, self.message);
        snippet(&mut out, files, &self.loc);
        for (loc, msg) in &self.notes {
            let _ = writeln!(out, "{loc}: note: {msg}");
            snippet(&mut out, files, loc);
        }
        out
    }
}

fn snippet(out: &mut String, files: &[SourceFile], loc: &Loc) {
    let Some(file) = files.iter().find(|f| f.display == loc.file) else {
        return;
    };
    let Some(line) = file.text.lines().nth((loc.line as usize).saturating_sub(1)) else {
        return;
    };
    if loc.line == 0 {
        return;
    }
    let num = loc.line.to_string();
    let pad = " ".repeat(num.len());
    let caret_pad: String = line
        .chars()
        .take((loc.col as usize).saturating_sub(1))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{num} | {line}");
    let _ = writeln!(out, "{pad} | {caret_pad}^");
}
