//! The hub's `accepts` gates are the schema's: every `#[accepts]` on a `ServerFrame` variant
//! of `schema/connect`, and nothing else.

use std::collections::BTreeSet;
use std::path::Path;

use contracts::connect::ServerFrame;
use contracts::connect::session::{KNOWN_ACCEPTS, gate_of};
use contracts_codegen::load::{LoadOptions, load_dir};
use contracts_codegen::model::TypeDefKind;

#[test]
fn the_hub_gates_every_server_frame_as_the_schema_says() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/connect");
    let model = load_dir(&dir, &LoadOptions::default()).expect("schema/connect loads");
    let def = model
        .own_type("ServerFrame")
        .expect("ServerFrame is declared");
    let TypeDefKind::Union(union) = &def.kind else {
        panic!("ServerFrame is a union")
    };
    let mut names = BTreeSet::new();
    for variant in &union.variants {
        let tag = variant.tag.as_deref().expect("ServerFrame is tagged");
        assert_eq!(
            gate_of(tag),
            variant.meta.accepts.as_deref(),
            "the gate of `{tag}`"
        );
        names.extend(variant.meta.accepts.clone());
    }
    let tags: Vec<&str> = union
        .variants
        .iter()
        .filter_map(|v| v.tag.as_deref())
        .collect();
    assert_eq!(tags, ServerFrame::TAGS);
    let known: BTreeSet<String> = KNOWN_ACCEPTS.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(known, names);
}
