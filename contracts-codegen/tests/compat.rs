//! The compatibility corpus: `tests/compat/<case>/{base,head}/*.contract` and `expected.txt`.
//!
//! Every case runs through the whole differ, so a rule that fires where it should not shows up
//! in some other case's expected findings. A case named `*-ok` must be compatible; every other
//! case must break. Every schema compared with itself yields nothing, and every rule of the
//! catalogue fires in some case. Every case is mirrored: the reverse edit (head -> base) is
//! judged too and its findings recorded in `expected.txt` under `reverse`, so a case whose
//! reverse is wrong shows up there. Each rule's catalogue example fires its rule, and the rules
//! section of `docs/compat-rules.md` is the catalogue rendered. Run with `UPDATE_EXPECT=1` to
//! rewrite the expected files and that section.

use contracts_codegen::analysis::Checked;
use contracts_codegen::compat::{self, render, rules};
use contracts_codegen::load::{LoadOptions, load_files};
use contracts_codegen::model::{Model, SourceFile};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod compat_corpus;
use compat_corpus::{PROTOCOL, cases, corpus_dir, load_case};

#[test]
fn corpus() {
    let mut failures = Vec::new();
    let mut fired: BTreeSet<&'static str> = BTreeSet::new();
    let cases = cases();
    assert!(
        cases.len() >= 20,
        "the corpus is missing: {}",
        corpus_dir().display()
    );
    for case in &cases {
        let name = case
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (base, head) = match load_case(case, &name) {
            Ok(pair) => pair,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        for (side, m) in [("base", &base), ("head", &head)] {
            let same = compat::diff(m, m);
            if !same.is_empty() {
                failures.push(format!(
                    "{name}: {side} compared with itself:\n{}",
                    render::findings(&same, &m.files)
                ));
            }
        }
        let findings = compat::diff(&base, &head);
        fired.extend(findings.iter().map(|f| f.rule.id));
        let breaking = compat::is_breaking(&findings);
        let verdict = if breaking { "breaking" } else { "compatible" };
        // The mirror: the reverse edit, judged from first principles too.
        let back = compat::diff(&head, &base);
        fired.extend(back.iter().map(|f| f.rule.id));
        let back_verdict = if compat::is_breaking(&back) {
            "breaking"
        } else {
            "compatible"
        };
        let text = format!(
            "verdict: {verdict}\n\n{}reverse (head -> base): {back_verdict}\n\n{}",
            render::findings(&findings, &head.files),
            render::findings(&back, &base.files)
        );
        // The rendered findings (expect-test: `UPDATE_EXPECT=1` rewrites the file).
        expect_test::expect_file![case.join("expected.txt")].assert_eq(&text);
        let want_ok = name.ends_with("-ok");
        if want_ok == breaking {
            let want = if want_ok { "compatible" } else { "breaking" };
            failures.push(format!("{name}: should be {want}, is {verdict}"));
        }
    }
    for r in rules::RULES {
        if !fired.contains(r.id) {
            failures.push(format!("rule `{}` fires in no corpus case", r.id));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Load an example schema held in memory; empty text is a removed protocol (no file).
fn load_text(text: &str, side: &str) -> Result<Checked, String> {
    if text.is_empty() {
        return Ok(Checked::new(Model {
            name: PROTOCOL.into(),
            ..Model::default()
        }));
    }
    let file = SourceFile {
        display: Arc::from(format!("example/{side}/api.contract")),
        absolute: PathBuf::from(format!("example/{side}/api.contract")),
        text: text.to_string(),
    };
    load_files(PROTOCOL, vec![file], &LoadOptions::default())
        .map(Checked::new)
        .map_err(|e| e.render())
}

#[test]
fn every_rules_example_fires_it() {
    let mut failures = Vec::new();
    for r in rules::RULES {
        let (base, head) = match (
            load_text(r.example.base, "base"),
            load_text(r.example.head, "head"),
        ) {
            (Ok(b), Ok(h)) => (b, h),
            (b, h) => {
                failures.push(format!(
                    "{}: the example does not load:\n{}{}",
                    r.id,
                    b.err().unwrap_or_default(),
                    h.err().unwrap_or_default()
                ));
                continue;
            }
        };
        let found = compat::diff(&base, &head);
        if !found.iter().any(|f| f.rule == *r) {
            failures.push(format!(
                "{}: its example yields\n{}",
                r.id,
                render::findings(&found, &head.files)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

const BEGIN: &str = "<!-- rules: generated from contracts-codegen/src/compat/rules.rs; UPDATE_EXPECT=1 cargo test -p contracts-codegen --test compat rewrites it -->\n";
const END: &str = "<!-- rules: end -->\n";

#[test]
fn the_rules_section_of_the_docs_is_the_catalogue() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/compat-rules.md");
    let text = std::fs::read_to_string(&docs).unwrap_or_default();
    let (Some(a), Some(b)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/compat-rules.md has no generated rules section (`{BEGIN}` ... `{END}`)");
    };
    let want = rules::markdown();
    let have = &text[a + BEGIN.len()..b];
    if have != want {
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            let new = format!("{}{BEGIN}{want}{}", &text[..a], &text[b..]);
            std::fs::write(&docs, new).unwrap_or_else(|e| panic!("{e}"));
        } else {
            panic!(
                "the rules section of docs/compat-rules.md is stale; run UPDATE_EXPECT=1 cargo test -p contracts-codegen --test compat"
            );
        }
    }
}
