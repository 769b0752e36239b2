//! The two documents every reader starts from stay short: the README at most 250 lines, and
//! ARCHITECTURE.md at most 1,500 words. What grows past them belongs in the guides or in
//! docs/design-notes.md.

use std::fs;
use std::path::Path;

fn read(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_readme_is_at_most_250_lines() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; move detail to docs/guide"
    );
}

#[test]
fn architecture_md_is_at_most_1500_words() {
    // Words as `wc -w` counts them: runs of non-blank characters.
    let words = read("ARCHITECTURE.md").split_whitespace().count();
    assert!(
        words <= 1500,
        "ARCHITECTURE.md has {words} words; move detail to docs/design-notes.md"
    );
}
