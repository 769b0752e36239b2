//! `cargo xtask growth`: compatible growth compiles everywhere in the workspace.
//!
//! An app builds a generated struct with `new` and setters (outside the crate that generated
//! it, `#[non_exhaustive]` refuses a struct literal), so a new optional field leaves its code
//! compiling. Code inside the generating crate (the runtime's own host, client and session
//! core; an example that generates its own protocol) could still write `ChatStatusEvent { .. }`
//! and break on the same growth. This command proves it does not:
//!
//! 1. Copy: every file of the checkout git knows (tracked or not ignored) goes to
//!    `<target>/growth/src`, written only when its text changed so cargo's next check is
//!    incremental; files the checkout no longer has are removed from the copy.
//! 2. Grow: in the copy, every object of every schema the Rust compiles from (each `struct`
//!    and inline object of each `.contract` file, the compiler's test data under
//!    `contracts-codegen/tests` left alone) gets an optional field of its own,
//!    `growthProbeN?: string`, the change `cargo xtask compat` calls compatible. An object that
//!    starts with includes (`...Base`) is left as it is: it grows through its bases.
//! 3. Check: `cargo check --workspace --all-targets --all-features` in the copy, with its own
//!    target directory (`<target>/growth/target`). A struct literal of a generated type fails
//!    it with rustc's `missing field growth_probe..` at the literal.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The field added to each object: `growthProbe` and a number, unique in the copy, so an
/// object that includes two grown structs (of any files) gets two fields, not one twice.
const PROBE: &str = "growthProbe";

/// Where the compiler keeps its test data: schemas read by its tests at run time, several of
/// them wrong on purpose, never compiled by `protocol!`.
const LEFT_ALONE: &str = "contracts-codegen/tests/";

pub fn run(root: &Path) -> Result<(), String> {
    grow_and_check(root)
}

fn grow_and_check(root: &Path) -> Result<(), String> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let target = std::path::absolute(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    let copy = target.join("growth/src");
    let files = listed_files(root)?;
    let grown = copy_grown(root, &copy, &files)?;
    if grown.is_empty() {
        return Err("no schema object was grown: the copy would prove nothing".into());
    }
    let total: usize = grown.iter().map(|(_, n)| n).sum();
    for (file, n) in &grown {
        eprintln!("growth: {n:>3} objects grown in {file}");
    }
    eprintln!(
        "growth: {total} objects in {} files grown; checking the workspace at {}",
        grown.len(),
        copy.display()
    );
    let status = Command::new("cargo")
        .args(["check", "--workspace", "--all-targets", "--all-features"])
        .current_dir(&copy)
        .env("CARGO_TARGET_DIR", target.join("growth/target"))
        .status()
        .map_err(|e| format!("could not start cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "the workspace does not compile once every schema object has an optional field \
             more ({status}). A `missing field growth_probe..` error above is a struct literal \
             of a generated type: build it with `X::new(..)` and its setters (or set an \
             `Option` field after `new`), as an app must."
        ));
    }
    eprintln!("growth: the workspace compiles with {total} optional fields added");
    Ok(())
}

/// Every file of the checkout git knows: tracked, or new and not ignored.
fn listed_files(root: &Path) -> Result<Vec<String>, String> {
    let out = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("could not start git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git ls-files failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8(out.stdout).map_err(|e| format!("git ls-files: {e}"))?;
    // A file deleted in the working tree but still in the index is listed: it is skipped.
    Ok(text
        .split('\0')
        .filter(|f| !f.is_empty())
        .filter(|f| root.join(f).symlink_metadata().is_ok())
        .map(str::to_owned)
        .collect())
}

/// Brings `copy` to the checkout's `files`, each schema grown; answers how many objects each
/// grown schema file gained.
fn copy_grown(root: &Path, copy: &Path, files: &[String]) -> Result<Vec<(String, usize)>, String> {
    let io = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
    let mut grown = Vec::new();
    let mut probes = 0;
    for file in files {
        let from = root.join(file);
        let to = copy.join(file);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        }
        let meta = from.symlink_metadata().map_err(|e| io(&from, e))?;
        if meta.file_type().is_symlink() {
            let link = std::fs::read_link(&from).map_err(|e| io(&from, e))?;
            if std::fs::read_link(&to).ok().as_ref() != Some(&link) {
                let _ = std::fs::remove_file(&to);
                symlink(&link, &to).map_err(|e| io(&to, e))?;
            }
            continue;
        }
        let mut bytes = std::fs::read(&from).map_err(|e| io(&from, e))?;
        if file.ends_with(".contract") && !file.starts_with(LEFT_ALONE) {
            let text = String::from_utf8(bytes).map_err(|e| format!("{file}: {e}"))?;
            let (text, n) = grow(&text, probes + 1);
            probes += n;
            if n > 0 {
                grown.push((file.clone(), n));
            }
            bytes = text.into_bytes();
        }
        // Unchanged files keep their times: cargo rebuilds only what changed.
        if std::fs::read(&to).ok().as_deref() != Some(&bytes[..]) {
            std::fs::write(&to, &bytes).map_err(|e| io(&to, e))?;
        }
    }
    remove_extra(copy, files)?;
    Ok(grown)
}

#[cfg(unix)]
fn symlink(link: &Path, at: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(link, at)
}

#[cfg(not(unix))]
fn symlink(_link: &Path, at: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other(format!(
        "{}: symbolic links are copied on Unix only",
        at.display()
    )))
}

/// Removes the copy's files that the checkout no longer lists (a file deleted or renamed).
fn remove_extra(copy: &Path, files: &[String]) -> Result<(), String> {
    let listed: BTreeSet<PathBuf> = files.iter().map(|f| copy.join(f)).collect();
    let mut stack = vec![copy.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && !listed.contains(&path) {
                stack.push(path);
            } else if !listed.contains(&path) {
                std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
    }
    Ok(())
}

/// `text` with a field `growthProbeN?: string,` at the start of each object it declares (after
/// `struct Name {`, or a `{` where a type is written: after `:` but `::`, `->`, `=`, `[`,
/// `|`, `<`, `(`), but for an object that starts with an include, N counting from `first`; and how
/// many objects grew. Comments and strings are read past, never changed.
fn grow(text: &str, first: usize) -> (String, usize) {
    let code = mask(text);
    let bytes = code.as_bytes();
    let mut at = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'{' && opens_object(&code[..i]) && !starts_with_include(&code[i + 1..]) {
            at.push(i + 1);
        }
    }
    let mut out = String::with_capacity(text.len() + at.len() * 24);
    let mut last = 0;
    for (n, &i) in at.iter().enumerate() {
        out.push_str(&text[last..i]);
        out.push_str(&format!(" {PROBE}{}?: string,", first + n));
        last = i;
    }
    out.push_str(&text[last..]);
    (out, at.len())
}

/// Whether a `{` after `before` opens an object: a type is expected there, or it is a
/// struct's body.
fn opens_object(before: &str) -> bool {
    let before = before.trim_end();
    // `use agent::{ChatId, Empty};` names types.
    if before.ends_with("::") {
        return false;
    }
    if before.ends_with("->") || before.ends_with([':', '=', '[', '|', '<', '(']) {
        return true;
    }
    // `struct Name {`: a name, and `struct` the word before it.
    let unnamed = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
    unnamed.len() < before.len()
        && unnamed.ends_with(char::is_whitespace)
        && unnamed.split_whitespace().next_back() == Some("struct")
}

/// Whether an object's body starts with an include (`...Base`).
fn starts_with_include(body: &str) -> bool {
    body.trim_start().starts_with("...")
}

/// `text` with every comment and every string's content blanked to spaces (same length, same
/// lines), so braces and keywords are found in code only.
fn mask(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                out.push(' ');
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                    out.extend(std::iter::repeat_n(' ', c.len_utf8()));
                }
            }
            '"' => {
                out.push('"');
                while let Some(c) = chars.next() {
                    if c == '"' {
                        out.push('"');
                        break;
                    }
                    out.extend(std::iter::repeat_n(' ', c.len_utf8()));
                    if c == '\\'
                        && let Some(e) = chars.next()
                    {
                        out.extend(std::iter::repeat_n(' ', e.len_utf8()));
                    }
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_object_grows_once_and_comments_strings_and_includes_do_not() {
        let schema = r#"// A struct { in a comment } is not one.
use agent::{ChatId, Empty};
/// Docs { too }.
struct Info {
    id: string,
    odd: "a{b" | "c",
}

struct Empty {}

struct Both {
    ...Info,
    more?: int,
}

requests {
    "note.read": { id: string } -> { text: string, tags: [{ name: string }] },
    "note.list": Empty -> {},
}

union Shape = { kind: "circle" } | Info;
type Pairs = map<{ a: int }>;
"#;
        let (grown, n) = grow(schema, 1);
        assert_eq!(n, 8, "{grown}");
        let expected = r#"// A struct { in a comment } is not one.
use agent::{ChatId, Empty};
/// Docs { too }.
struct Info { growthProbe1?: string,
    id: string,
    odd: "a{b" | "c",
}

struct Empty { growthProbe2?: string,}

struct Both {
    ...Info,
    more?: int,
}

requests {
    "note.read": { growthProbe3?: string, id: string } -> { growthProbe4?: string, text: string, tags: [{ growthProbe5?: string, name: string }] },
    "note.list": Empty -> { growthProbe6?: string,},
}

union Shape = { growthProbe7?: string, kind: "circle" } | Info;
type Pairs = map<{ growthProbe8?: string, a: int }>;
"#;
        assert_eq!(grown.lines().count(), expected.lines().count());
        for (a, b) in grown.lines().zip(expected.lines()) {
            assert_eq!(a, b);
        }
    }

    #[test]
    fn a_file_without_objects_is_unchanged() {
        let schema = "type Id = string(min = 1);\nenum E { \"a\", \"b\" }\nevents {\n}\n";
        assert_eq!(grow(schema, 1), (schema.to_owned(), 0));
        // Numbers go on from `first`, so that two files never name a probe alike.
        assert_eq!(
            grow("struct A {}", 7),
            ("struct A { growthProbe7?: string,}".to_owned(), 1)
        );
    }

    #[test]
    fn masking_keeps_lengths_and_lines() {
        let text = "a // é {\n\"x{\\\"}\" {";
        let masked = mask(text);
        assert_eq!(masked.len(), text.len());
        assert_eq!(masked.lines().count(), text.lines().count());
        assert!(masked.ends_with('{') && masked.matches('{').count() == 1);
    }
}
