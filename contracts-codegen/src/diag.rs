//! Diagnostics: collected, never thrown, rendered like rustc with the source line and a caret.
//!
//! One rendering serves every caller: a tool prints `path:line:col: error: message`
//! ([`Diagnostic::render`]); the macro hands `path:line:col: message` to `compile_error!`
//! ([`Diagnostic::render_for_rustc`]), which rustc prints after its own `error: `. The path is
//! the one `load` chose: relative to the display root (the workspace), or absolute.

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

    /// `path:line:col: error: message`, then the line and a caret under the column, then notes:
    /// what a tool (`cargo xtask check`) prints.
    pub fn render(&self, files: &[SourceFile]) -> String {
        let level = match self.level {
            Level::Error => "error",
            Level::Warning => "warning",
        };
        self.render_after(&format!("{}: {level}: ", self.loc), files)
    }

    /// The same text for a `compile_error!`, which rustc prints after its own `error: `:
    /// `path:line:col: message` and the rest as [`Diagnostic::render`] writes it, so the word
    /// `error` is not written twice.
    pub fn render_for_rustc(&self, files: &[SourceFile]) -> String {
        match self.level {
            Level::Error => self.render_after(&format!("{}: ", self.loc), files),
            Level::Warning => self.render(files),
        }
    }

    fn render_after(&self, head: &str, files: &[SourceFile]) -> String {
        let mut out = format!("{head}{}\n", self.message);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn at(line: u32, col: u32) -> Loc {
        Loc {
            file: Arc::from("schema/app/a.contract"),
            line,
            col,
        }
    }

    #[test]
    fn a_tool_writes_the_level_and_rustc_gets_it_once() {
        let files = [SourceFile {
            display: Arc::from("schema/app/a.contract"),
            absolute: "/w/schema/app/a.contract".into(),
            text: "struct A { x: int }\nstruct A { y: int }\n".into(),
        }];
        let mut diags = Diagnostics::default();
        diags
            .error(&at(2, 8), "the type `A` is defined twice")
            .note(&at(1, 8), "first defined here");
        let tail = "  |\n2 | struct A { y: int }\n  |        ^\n\
                    schema/app/a.contract:1:8: note: first defined here\n  |\n\
                    1 | struct A { x: int }\n  |        ^\n";
        let d = &diags.items[0];
        assert_eq!(
            d.render(&files),
            format!("schema/app/a.contract:2:8: error: the type `A` is defined twice\n{tail}")
        );
        // rustc prints `error: ` before a `compile_error!`'s text.
        assert_eq!(
            d.render_for_rustc(&files),
            format!("schema/app/a.contract:2:8: the type `A` is defined twice\n{tail}")
        );
    }
}
