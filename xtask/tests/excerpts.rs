//! The code the docs show is code the tests compile, kept by a test.
//!
//! In README.md, CONTRIBUTING.md and `docs/guide/*.md`, a code block right after a line
//! `<!-- excerpt: PATH -->` must be a run of consecutive lines of PATH (from the workspace
//! root): a Rust file's doc-comment lines are read without their `//! ` or `/// ` (so a doc
//! test can be shown), rustdoc's hidden lines (`# ...`) are left out, and both sides are
//! compared without their common indentation (so a method can be shown outside its `impl`).
//! The README's MCP server is the doc test of `contracts/src/rpc/mod.rs`, which
//! `cargo test --all-features` compiles.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Markdown files whose excerpts are checked.
fn docs() -> Vec<PathBuf> {
    let root = root();
    let mut out = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let mut guide: Vec<PathBuf> = fs::read_dir(root.join("docs/guide"))
        .expect("docs/guide")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guide.sort();
    out.extend(guide);
    out
}

/// One excerpt: where its marker is, the file it names, its lines.
struct Excerpt {
    at: String,
    path: String,
    lines: Vec<String>,
}

/// Every excerpt of `doc`; a marker not followed by a code block is an error.
fn excerpts(doc: &Path) -> Result<Vec<Excerpt>, String> {
    let text = fs::read_to_string(doc).map_err(|e| format!("{}: {e}", doc.display()))?;
    let name = doc
        .strip_prefix(root())
        .unwrap_or(doc)
        .display()
        .to_string();
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let Some(path) = line
            .trim()
            .strip_prefix("<!-- excerpt: ")
            .and_then(|r| r.strip_suffix(" -->"))
        else {
            continue;
        };
        let at = format!("{name}:{}", n + 1);
        let fence = lines.next().map(|(_, l)| l).unwrap_or_default();
        if !fence.starts_with("```") {
            return Err(format!("{at}: an excerpt marker must precede a code block"));
        }
        let mut block = Vec::new();
        let mut closed = false;
        for (_, l) in lines.by_ref() {
            if l.starts_with("```") {
                closed = true;
                break;
            }
            block.push(l.to_owned());
        }
        if !closed || block.is_empty() {
            return Err(format!(
                "{at}: the excerpt's code block is empty or never closed"
            ));
        }
        out.push(Excerpt {
            at,
            path: path.to_owned(),
            lines: block,
        });
    }
    Ok(out)
}

/// The lines of a source file as an excerpt may show them: doc-comment prefixes removed and
/// rustdoc's hidden lines left out in Rust files.
fn source_lines(path: &Path) -> Result<Vec<String>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let rust = path.extension().is_some_and(|e| e == "rs");
    let mut out = Vec::new();
    for line in text.lines() {
        if !rust {
            out.push(line.to_owned());
            continue;
        }
        let trimmed = line.trim_start();
        let doc = ["//! ", "/// ", "//!", "///"]
            .iter()
            .find_map(|p| trimmed.strip_prefix(p));
        match doc {
            Some(d) if d == "#" || d.starts_with("# ") => {}
            Some(d) => out.push(d.to_owned()),
            None => out.push(line.to_owned()),
        }
    }
    Ok(out)
}

/// `lines` without the indentation they all share (blank lines aside).
fn dedent(lines: &[String]) -> Vec<String> {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or("").trim_end().to_owned())
        .collect()
}

/// Whether `block` is a run of consecutive lines of `source`, indentation aside.
fn is_run_of(block: &[String], source: &[String]) -> bool {
    let want = dedent(block);
    source.len() >= want.len()
        && (0..=source.len() - want.len()).any(|start| {
            let window = &source[start..start + want.len()];
            window[0].trim() == want[0].trim() && dedent(window) == want
        })
}

#[test]
fn every_excerpt_in_the_docs_is_a_run_of_its_source() {
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut in_readme = 0;
    for doc in docs() {
        let found = match excerpts(&doc) {
            Ok(found) => found,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        for excerpt in found {
            let source = match source_lines(&root().join(&excerpt.path)) {
                Ok(source) => source,
                Err(e) => {
                    failures.push(format!("{}: {e}", excerpt.at));
                    continue;
                }
            };
            if is_run_of(&excerpt.lines, &source) {
                checked += 1;
                in_readme += usize::from(excerpt.at.starts_with("README.md:"));
            } else {
                failures.push(format!(
                    "{}: the block is not in {} as shown; copy it from there (or change both)",
                    excerpt.at, excerpt.path
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        in_readme > 0,
        "README.md shows no excerpt (<!-- excerpt: PATH -->)"
    );
    eprintln!("{checked} excerpts checked");
}

#[test]
fn a_changed_line_is_found() {
    let source: Vec<String> = ["impl X {", "    fn a() {", "        b();", "    }", "}"]
        .map(String::from)
        .to_vec();
    let shown = ["fn a() {", "    b();", "}"].map(String::from).to_vec();
    assert!(is_run_of(&shown, &source));
    let changed = ["fn a() {", "    c();", "}"].map(String::from).to_vec();
    assert!(!is_run_of(&changed, &source));
    let reindented = ["fn a() {", "b();", "}"].map(String::from).to_vec();
    assert!(!is_run_of(&reindented, &source));
}

#[test]
fn doc_comments_and_hidden_lines_are_read_as_rustdoc_shows_them() {
    let dir = std::env::temp_dir().join(format!("excerpts-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a.rs");
    fs::write(
        &file,
        "//! ```\n//! # hidden();\n//! shown();\n//!\n//! too();\n//! ```\n",
    )
    .unwrap();
    let lines = source_lines(&file).unwrap();
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(lines, ["```", "shown();", "", "too();", "```"]);
}
