//! Issues, paths and the decoding context, rendered as Zod's `z.prettifyError` does.

use super::js::Marks;
use std::borrow::Cow;
use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::Arc;

/// One step of a path: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// An object key (a struct field or a map key).
    Key(Cow<'static, str>),
    /// An array index.
    Index(usize),
}

/// The most issues a refusal names (docs/wire-semantics.md, "Failure messages"): the first
/// `MAX_ISSUES` in the order found, then one line with the count of the rest. The TypeScript
/// runtime's `MAX_ISSUES` (`src/runtime/parse.ts`) is the same number; a test checks it.
pub const MAX_ISSUES: usize = 100;

/// One problem found in a value, at a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    path: Vec<Seg>,
    message: Cow<'static, str>,
    /// Zod's `continue`: a limit check that lets later checks run. A union variant whose
    /// issues all continue is reported instead of `Invalid input`.
    continues: bool,
    /// Zero for an issue; for an entry that stands for issues beyond the first
    /// [`MAX_ISSUES`] of a run (see [`Cx::compact`]), how many: they are counted, not kept.
    skipped: usize,
}

impl Issue {
    /// The issue's message, worded as Zod 4.6 words it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The path segments from the root of the value.
    pub fn path(&self) -> &[Seg] {
        &self.path
    }

    /// The path as Zod's `toDotPath` writes it: `a.b[0].c`, `["x-y"]`; empty at the root.
    pub fn path_string(&self) -> String {
        dot_path(&self.path)
    }

    /// Whether this is a limit check that does not abort the value (Zod's `continue`).
    pub fn continues(&self) -> bool {
        self.continues
    }

    fn placeholder() -> Issue {
        Issue {
            path: Vec::new(),
            message: Cow::Borrowed(""),
            continues: true,
            skipped: 0,
        }
    }

    /// How many issues this entry stands for: one, or the count of a run's skipped ones.
    fn weight(&self) -> usize {
        self.skipped.max(1)
    }
}

/// Writes a path as Zod's `toDotPath`.
pub fn dot_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
            Seg::Key(k)
                if k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') =>
            {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Key(k) => {
                out.push('[');
                out.push_str(&serde_json::to_string(k.as_ref()).unwrap_or_default());
                out.push(']');
            }
        }
    }
    out
}

/// Renders issues as `z.prettifyError`: stably sorted by path length, `✖ message` then
/// `  → at path` unless the path is empty, lines joined with `\n`.
pub fn prettify(issues: &[Issue]) -> String {
    let mut sorted: Vec<&Issue> = issues.iter().filter(|i| i.skipped == 0).collect();
    sorted.sort_by_key(|i| i.path.len());
    let mut lines = Vec::with_capacity(sorted.len() * 2);
    for issue in sorted {
        lines.push(format!("✖ {}", issue.message));
        if !issue.path.is_empty() {
            lines.push(format!("  → at {}", issue.path_string()));
        }
    }
    lines.join("\n")
}

/// The last line of a refusal with more than [`MAX_ISSUES`] issues: `✖ and 5 more issues`
/// (`issue` for one), `more` the count of those not shown.
pub fn more_issues(more: usize) -> String {
    let s = if more == 1 { "" } else { "s" };
    format!("✖ and {more} more issue{s}")
}

/// A refusal's issues as it shows them: the first [`MAX_ISSUES`] in the order found, and how
/// many more there were.
pub(crate) fn cap(mut issues: Vec<Issue>) -> (Vec<Issue>, usize) {
    let (more, _) = compact_counted(&mut issues, 0);
    (issues, more)
}

/// Keeps the first [`MAX_ISSUES`] issues of `issues[base..]` in place, in order, and drops the
/// rest (and the entries that count skipped ones); answers how many issues were dropped and
/// whether they all continue. An entry that counts skipped issues follows the first
/// `MAX_ISSUES` of its run, so no issue after it can be among the first of this one.
fn compact_counted(issues: &mut Vec<Issue>, base: usize) -> (usize, bool) {
    let mut kept = 0;
    let mut write = base;
    let mut more = 0;
    let mut continues = true;
    for read in base..issues.len() {
        if issues[read].skipped == 0 && kept < MAX_ISSUES {
            // What lies between `write` and `read` is counted already.
            issues.swap(write, read);
            write += 1;
            kept += 1;
        } else {
            more += issues[read].weight();
            continues &= issues[read].continues;
        }
    }
    issues.truncate(write);
    (more, continues)
}

/// Sorts issues as `prettify` shows them (stable, by path length).
pub(crate) fn sort_issues(issues: &mut [Issue]) {
    issues.sort_by_key(|i| i.path.len());
}

/// How a schema describes what it wanted when it gets something else (or nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// `Invalid input: expected <T>, received <received>`.
    Type(&'static str),
    /// A message that does not depend on what was received.
    Fixed(&'static str),
    /// `Invalid input: expected "value"`.
    LitStr(&'static str),
    /// `Invalid input: expected true`.
    LitBool(bool),
    /// `Invalid input: expected 1`.
    LitInt(i64),
    /// An enum: `Invalid option: expected one of "a"|"b"` (one value: `Invalid input: expected "a"`).
    OneOf(&'static [&'static str]),
    /// An integer enum: `Invalid option: expected one of 1|2` (one value: `Invalid input: expected 1`).
    OneOfInt(&'static [i64]),
}

impl Expect {
    /// The message for a value of JSON type `received` (`undefined` when absent).
    pub fn message(self, received: &str) -> Cow<'static, str> {
        match self {
            Expect::Type(t) => {
                Cow::Owned(format!("Invalid input: expected {t}, received {received}"))
            }
            Expect::Fixed(m) => Cow::Borrowed(m),
            Expect::LitStr(s) => Cow::Owned(format!("Invalid input: expected {}", json_str(s))),
            Expect::LitBool(b) => Cow::Owned(format!("Invalid input: expected {b}")),
            Expect::LitInt(i) => Cow::Owned(format!("Invalid input: expected {i}")),
            Expect::OneOf([one]) => {
                Cow::Owned(format!("Invalid input: expected {}", json_str(one)))
            }
            Expect::OneOfInt([one]) => Cow::Owned(format!("Invalid input: expected {one}")),
            Expect::OneOfInt(values) => {
                let list: Vec<String> = values.iter().map(i64::to_string).collect();
                Cow::Owned(format!(
                    "Invalid option: expected one of {}",
                    list.join("|")
                ))
            }
            Expect::OneOf(values) => {
                let list: Vec<String> = values.iter().map(|v| json_str(v)).collect();
                Cow::Owned(format!(
                    "Invalid option: expected one of {}",
                    list.join("|")
                ))
            }
        }
    }
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

thread_local! {
    /// An empty path buffer with room, left by the last context dropped on this thread. An
    /// allocation cache only: no parse reads anything from it but spare capacity, so it is no
    /// state of the decode (its mode travels in the [`Cx`], see [`Mode`]).
    static SPARE_PATH: Cell<Vec<Seg>> = const { Cell::new(Vec::new()) };
}

impl Drop for Cx {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn drop(&mut self) {
        if self.path.capacity() > 0 {
            self.give_back();
        }
    }
}

impl Cx {
    /// Leaves the path buffer (a small one) for the next context on this thread.
    #[cold]
    #[inline(never)]
    fn give_back(&mut self) {
        if self.path.capacity() <= 64 {
            let mut path = std::mem::take(&mut self.path);
            path.clear();
            // Ignored when the thread is being torn down.
            let _ = SPARE_PATH.try_with(|spare| spare.set(path));
        }
    }
}

/// How a parse decodes, carried by its context (and copied into every scratch context of a
/// union's trials), so that no decode reads state of the thread.
#[derive(Clone, Debug, Default)]
pub(crate) struct Mode {
    /// Tagged unions are read straight from the live map when their first key is the tag:
    /// set only by a caller that can start the parse over (`union::with_live_tags`).
    pub(crate) live: bool,
    /// The markers of a text rewritten as JavaScript reads it (see `js`), when this parse
    /// reads one.
    pub(crate) marks: Option<Arc<Marks>>,
}

/// The decoding context threaded through every seed: the current path, the issues so far,
/// and the parse's mode (how it decodes: live tags, JavaScript markers).
#[derive(Debug, Default)]
pub struct Cx {
    path: Vec<Seg>,
    /// Struct fields entered but not pushed onto `path`: a field's key is attached to the
    /// issues its value recorded when it is left ([`Cx::leave_key`]).
    lazy: usize,
    issues: Vec<Issue>,
    /// A union variant on trial: issues are counted, not worded (no message, no path); the
    /// union words them only when every variant failed.
    quiet: bool,
    mode: Mode,
    /// A tagged union read from the live map met a later duplicate of its tag that disagrees:
    /// the parse must start over with every tagged union captured first.
    conflict: bool,
}

impl Cx {
    /// An empty context at the root. Its path buffer is taken on the first push from the
    /// last context dropped on this thread (so a parse allocates no path, and one that pushes
    /// nothing touches no thread-local).
    #[inline]
    pub fn new() -> Cx {
        Cx::with_mode(Mode::default())
    }

    /// An empty context at the root that decodes in `mode`.
    #[inline]
    pub(crate) fn with_mode(mode: Mode) -> Cx {
        Cx {
            path: Vec::new(),
            lazy: 0,
            issues: Vec::new(),
            quiet: false,
            mode,
            conflict: false,
        }
    }

    /// A context at the same path with no issues, in the same mode, for trying a union
    /// variant. What it meets that concerns the whole parse (a conflict) is handed back with
    /// [`Cx::absorb`].
    pub fn scratch(&self) -> Cx {
        Cx {
            path: self.path.clone(),
            lazy: self.lazy,
            issues: Vec::new(),
            quiet: false,
            mode: self.mode.clone(),
            conflict: false,
        }
    }

    /// Takes back from a scratch context what concerns the whole parse: a conflict it met.
    #[inline]
    pub fn absorb(&mut self, scratch: &Cx) {
        self.conflict |= scratch.conflict;
    }

    /// Whether tagged unions may be read straight from the live map (see [`Mode::live`]).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn live_tags(&self) -> bool {
        self.mode.live
    }

    /// Notes that a tagged union read from the live map met a disagreeing duplicate of its
    /// tag: the parse is to be started over, captured.
    #[cold]
    pub(crate) fn note_conflict(&mut self) {
        self.conflict = true;
    }

    /// Whether a conflict was met (see [`Cx::note_conflict`]).
    #[inline]
    pub(crate) fn conflict(&self) -> bool {
        self.conflict
    }

    /// The markers in force for this parse (see `js`).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn marks(&self) -> Option<&Marks> {
        self.mode.marks.as_deref()
    }

    /// Like [`Cx::scratch`], but issues are only counted (see [`Cx::is_quiet`]).
    pub(crate) fn quiet_scratch(&self) -> Cx {
        let mut cx = self.scratch();
        cx.quiet = true;
        cx
    }

    /// Whether issues are counted without their message and path (a union variant on
    /// trial, whose issues are worded again only when every variant failed).
    #[inline]
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// Records an issue at the current path.
    pub fn issue(&mut self, message: impl Into<Cow<'static, str>>, continues: bool) {
        if self.quiet {
            self.issues.push(Issue {
                path: Vec::new(),
                message: Cow::Borrowed(""),
                continues,
                skipped: 0,
            });
            return;
        }
        self.issues.push(Issue {
            path: self.path.clone(),
            message: message.into(),
            continues,
            skipped: 0,
        });
    }

    /// Records the issue `expect` describes for a value of JSON type `received`.
    pub fn mismatch(&mut self, expect: Expect, received: &str) {
        if self.quiet {
            return self.issue("", false);
        }
        self.issue(expect.message(received), false);
    }

    /// How deep the current value is nested.
    #[inline]
    pub fn depth(&self) -> usize {
        self.path.len() + self.lazy
    }

    /// Enters a struct field without pushing its key: nothing is written on the happy path.
    #[inline]
    pub fn enter_key(&mut self) {
        self.lazy += 1;
    }

    /// Leaves the field entered by [`Cx::enter_key`]: the issues recorded since `start` get
    /// the field's key at this level of their path, as if it had been pushed.
    #[inline]
    pub fn leave_key(&mut self, start: usize, key: &'static str) {
        self.lazy -= 1;
        if self.issues.len() > start {
            self.attach_key(start, key);
        }
    }

    #[cold]
    #[inline(never)]
    fn attach_key(&mut self, start: usize, key: &'static str) {
        if self.quiet {
            // A quiet context's issues are only counted; they carry no path.
            return;
        }
        let at = self.path.len();
        for issue in &mut self.issues[start..] {
            if issue.skipped > 0 {
                // Counted only: it has no path.
                continue;
            }
            let at = at.min(issue.path.len());
            issue.path.insert(at, Seg::Key(Cow::Borrowed(key)));
        }
    }

    /// Enters a path segment.
    #[inline]
    pub fn push(&mut self, seg: Seg) {
        if self.path.capacity() == 0 {
            self.take_spare();
        }
        self.path.push(seg);
    }

    /// The first push: the thread's spare path buffer, if there is one.
    #[cold]
    #[inline(never)]
    fn take_spare(&mut self) {
        self.path = SPARE_PATH.with(Cell::take);
    }

    /// Leaves the last path segment.
    #[inline]
    pub fn pop(&mut self) -> Option<Seg> {
        self.path.pop()
    }

    /// The issues recorded so far, in the order found.
    pub fn issues(&self) -> &[Issue] {
        &self.issues
    }

    /// How many issues have been recorded.
    #[inline]
    pub fn len(&self) -> usize {
        self.issues.len()
    }

    /// Whether no issue has been recorded.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.issues.is_empty()
    }

    /// Takes the issues out.
    #[inline]
    pub fn into_issues(mut self) -> Vec<Issue> {
        self.take_issues()
    }

    /// Takes the issues out, leaving the context (its mode, its conflict) in place.
    #[inline]
    pub(crate) fn take_issues(&mut self) -> Vec<Issue> {
        std::mem::take(&mut self.issues)
    }

    /// Drops the issues recorded since `base` (a decode that is started over).
    pub(crate) fn truncate(&mut self, base: usize) {
        self.issues.truncate(base);
    }

    pub(crate) fn extend(&mut self, issues: Vec<Issue>) {
        self.issues.extend(issues);
    }

    /// Bounds the issues recorded since `base`, a run in its final order (an object's after
    /// its reorder, an array's items): only the first [`MAX_ISSUES`] of a run can be shown, so
    /// the rest are counted in one entry at its end. Done once the run is twice that long, so
    /// its cost per issue is constant, and a run holds at most about `2 * MAX_ISSUES` entries.
    /// An entry stays for every run that had issues, so `len` still tells whether one did.
    #[inline]
    pub(crate) fn compact(&mut self, base: usize) {
        if self.issues.len() - base > 2 * (MAX_ISSUES + 1) {
            self.compact_now(base);
        }
    }

    #[cold]
    #[inline(never)]
    fn compact_now(&mut self, base: usize) {
        let (more, continues) = compact_counted(&mut self.issues, base);
        if more > 0 {
            self.issues.push(Issue {
                path: Vec::new(),
                message: Cow::Borrowed(""),
                continues,
                skipped: more,
            });
        }
    }

    /// Keeps the issues recorded since `base` only in the spans listed, in that order; the
    /// others (from an earlier duplicate of a key) are dropped.
    pub(crate) fn reorder(&mut self, base: usize, spans: &[(usize, usize)]) {
        if self.issues.len() == base {
            return;
        }
        let mut tail = self.issues.split_off(base);
        for &(start, end) in spans {
            for slot in &mut tail[start - base..end - base] {
                self.issues
                    .push(std::mem::replace(slot, Issue::placeholder()));
            }
        }
    }
}
