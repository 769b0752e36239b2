//! The layering of the workspace's module trees, kept by a test.
//!
//! ARCHITECTURE.md's "Layers" section has one table per source directory: each top-level
//! module of the directory (a file `x.rs` or a folder `x/`) and the modules it may use. This
//! test reads every `crate::x` and `super::x` path in the directory's code (comments,
//! `#[cfg(test)]` items and `tests.rs` files left out), and fails with "X may not use Y" for a use the table does
//! not allow, for a module the table does not name, and for a table that allows a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One directory's table: module -> the modules it may use.
type Table = BTreeMap<String, BTreeSet<String>>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The tables of ARCHITECTURE.md's "## Layers" section, by directory (`### dir` headings).
fn tables() -> Vec<(String, Table)> {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Layers"))
        .expect("ARCHITECTURE.md has a `## Layers` section");
    let mut out: Vec<(String, Table)> = Vec::new();
    for line in section.lines() {
        if let Some(dir) = line.strip_prefix("### ") {
            out.push((dir.trim().trim_matches('`').to_owned(), Table::new()));
            continue;
        }
        let Some((_, table)) = out.last_mut() else {
            continue;
        };
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
        if !line.trim_start().starts_with('|') || cells.len() != 2 {
            continue;
        }
        let module = cells[0].trim().trim_matches('`');
        if module == "module" || module.starts_with('-') {
            continue;
        }
        let uses = cells[1]
            .split(',')
            .map(|u| u.trim().trim_matches('`').to_owned())
            .filter(|u| !u.is_empty())
            .collect();
        table.insert(module.to_owned(), uses);
    }
    assert!(!out.is_empty(), "the Layers section has no `### dir` table");
    out
}

/// The text of a file with comments, strings' contents and `#[cfg(test)]` items removed.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i = text[i..].find("*/").map_or(b.len(), |j| i + j + 2);
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i..].starts_with(b"#[cfg(test)]") {
            // Skip the attribute and the item it guards: to its `;` or its balanced braces.
            i += "#[cfg(test)]".len();
            let mut depth = 0;
            while i < b.len() {
                match b[i] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    b';' if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            let c = text[i..].chars().next().expect("in bounds");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first identifiers named after `prefix` (`crate::`, `super::`): one, or each top-level
/// name of a `{...}` group.
fn names_after(code: &str, prefix: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let line = code[..at].matches('\n').count() + 1;
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.push((ident_at(group[start..].trim_start()).to_owned(), line));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push((ident_at(group[start..].trim_start()).to_owned(), line));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.push((ident_at(rest).to_owned(), line));
        }
    }
    out
}

/// Every `.rs` file below `dir`, with its path relative to `dir`.
fn rust_files(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir.join(rel))
        .expect("a source directory")
        .map(|e| e.expect("an entry").path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().expect("a name");
        if p.is_dir() {
            rust_files(dir, &rel.join(name), out);
        } else if p.extension().is_some_and(|e| e == "rs") && name != "tests.rs" {
            out.push(rel.join(name));
        }
    }
}

/// The top-level module a file of the directory belongs to; `None` for the root file.
fn module_of(file: &Path) -> Option<String> {
    let first = file.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main" | "mod")).then(|| name.to_owned())
}

/// The items a directory's root re-exports (`pub use x::item;`, also `pub(crate)`, groups
/// nested or not, `item as name`): the name each is reached by -> the module `x` it is in.
fn reexports_of(root_code: &str) -> BTreeMap<String, String> {
    /// The names a use tree ends in: `a::b` -> `b`, `{a, b::{c, d as e}}` -> `a`, `c`, `e`,
    /// `b::{self}` -> `b`.
    fn leaves(tree: &str, out: &mut Vec<String>) {
        let tree = tree.trim();
        let Some(open) = tree.find('{') else {
            let name = match tree.split_whitespace().collect::<Vec<_>>()[..] {
                [.., "as", alias] => alias,
                _ => tree.rsplit("::").next().unwrap_or(tree),
            };
            out.push(ident_at(name.trim()).to_owned());
            return;
        };
        let prefix = tree[..open].trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let (mut depth, mut start) = (0, 0);
        let mut parts = Vec::new();
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&inner[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[start..]);
        for part in parts {
            if part.trim() == "self" {
                leaves(prefix, out);
            } else {
                leaves(part, out);
            }
        }
    }
    let mut reexports = BTreeMap::new();
    for stmt in root_code.split(';') {
        let stmt = stmt.trim();
        let Some(path) = ["pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .find_map(|p| stmt.strip_prefix(p))
        else {
            continue;
        };
        let path = path.trim().trim_start_matches("self::");
        let module = ident_at(path);
        let Some(rest) = path.get(module.len()..).and_then(|r| r.strip_prefix("::")) else {
            continue;
        };
        let mut items = Vec::new();
        leaves(rest, &mut items);
        for item in items.into_iter().filter(|i| !i.is_empty()) {
            reexports.insert(item, module.to_owned());
        }
    }
    reexports
}

/// The uses between the directory's top-level modules: (from, to) -> where.
///
/// `crate_prefix` is how the directory is reached from its crate's root (`crate::` for a
/// crate's `src`, `crate::wire::` for `src/wire`). In a top-level file, `super::x` names the
/// directory's module `x`; an item the directory's root re-exports (`pub use x::item`) counts
/// as a use of `x`, and any other item of the root as a use of the root, `mod`.
fn uses(dir: &Path, crate_prefix: &str) -> BTreeMap<(String, String), Vec<String>> {
    let mut files = Vec::new();
    rust_files(dir, Path::new(""), &mut files);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
    let root_file = ["mod.rs", "lib.rs", "main.rs"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.exists())
        .expect("a root file");
    let root_code = code_of(&fs::read_to_string(&root_file).expect("root"));
    let reexports = reexports_of(&root_code);
    let mut out: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for file in &files {
        let Some(from) = module_of(file) else {
            continue;
        };
        let code = code_of(&fs::read_to_string(dir.join(file)).expect("a file"));
        let top_level = file.components().count() == 1;
        let mut named = names_after(&code, crate_prefix);
        if top_level {
            named.extend(names_after(&code, "super::"));
        }
        for (name, line) in named {
            let to = if modules.contains(&name) {
                name
            } else if let Some(m) = reexports.get(&name) {
                m.clone()
            } else if crate_prefix != "crate::" {
                "mod".to_owned()
            } else {
                continue;
            };
            if to != from {
                let at = format!("{}:{line}", file.display());
                out.entry((from.clone(), to)).or_default().push(at);
            }
        }
    }
    out
}

/// A cycle among the table's allowed uses, if any.
fn cycle(table: &Table) -> Option<Vec<String>> {
    fn visit(
        t: &Table,
        m: &str,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|s| s == m) {
            let mut c = stack[i..].to_vec();
            c.push(m.to_owned());
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        stack.push(m.to_owned());
        for u in t.get(m).into_iter().flatten() {
            if let Some(c) = visit(t, u, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(m.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    table
        .keys()
        .find_map(|m| visit(table, m, &mut Vec::new(), &mut done))
}

#[test]
fn every_module_uses_only_what_its_layer_allows() {
    let mut problems = Vec::new();
    for (dir, table) in tables() {
        if let Some(c) = cycle(&table) {
            problems.push(format!(
                "{dir}: the table allows a cycle: {}",
                c.join(" -> ")
            ));
        }
        let path = root().join(&dir);
        let prefix = match dir.split_once("/src/") {
            Some((_, sub)) => format!("crate::{}::", sub.replace('/', "::")),
            None => "crate::".to_owned(),
        };
        let mut files = Vec::new();
        rust_files(&path, Path::new(""), &mut files);
        let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
        for m in &modules {
            if !table.contains_key(m) {
                problems.push(format!(
                    "{dir}: module `{m}` is not in ARCHITECTURE.md's table"
                ));
            }
        }
        for m in table.keys() {
            if m != "mod" && !modules.contains(m) {
                problems.push(format!(
                    "{dir}: the table names `{m}`, which is not a module"
                ));
            }
        }
        for ((from, to), at) in uses(&path, &prefix) {
            if !table
                .get(&from)
                .is_some_and(|allowed| allowed.contains(&to))
            {
                problems.push(format!(
                    "{dir}: {from} may not use {to} ({})",
                    at.join(", ")
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_reader_sees_grouped_and_plain_paths() {
    let code = code_of(
        "use crate::{model::X, names};\n// crate::nope\nfn f() { crate::lower::go(\"crate::s\"); }\n#[cfg(test)]\nmod tests { use crate::load; }\n",
    );
    let names: Vec<String> = names_after(&code, "crate::")
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["model", "names", "lower"]);
    let mut t = Table::new();
    t.insert("a".into(), ["b".into()].into());
    t.insert("b".into(), ["a".into()].into());
    assert!(cycle(&t).is_some());
}

#[test]
fn the_reader_sees_what_the_root_reexports() {
    let code = code_of(
        "mod a;\npub use a::{X, Y as Z};\npub use self::b::W;\npub(crate) use c::{d::{E, F as G}, d::{self}};\n#[cfg(test)]\npub(crate) use e::T;\nuse f::Private;\n",
    );
    let got: Vec<(String, String)> = reexports_of(&code).into_iter().collect();
    let want = [
        ("E", "c"),
        ("G", "c"),
        ("W", "b"),
        ("X", "a"),
        ("Z", "a"),
        ("d", "c"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|&(i, m)| (i.to_owned(), m.to_owned()))
        .collect();
    assert_eq!(got, want);
}
