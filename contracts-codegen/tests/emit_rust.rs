//! Snapshot of the Rust emitter: `emit_pretty` of the wire-semantics schema
//! (`contracts/tests/wire_schema`) and of an app extending it, compared with the files in
//! `tests/emit_rust/`. Update them with `UPDATE_EXPECT=1 cargo test -p adecore-contracts-codegen --test emit_rust`.

use contracts_codegen::emit::rust::{RustOptions, emit_pretty};
use contracts_codegen::load::{LoadOptions, load_dir};
use std::path::Path;
use std::sync::Arc;

/// Compares with the expected file (expect-test: `UPDATE_EXPECT=1` rewrites it).
fn check(actual: &str, expected: &Path) {
    expect_test::expect_file![expected].assert_eq(actual);
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn load(
    dir: &Path,
    name: &str,
    bases: Vec<Arc<contracts_codegen::model::Model>>,
) -> contracts_codegen::model::Model {
    let options = LoadOptions {
        name: Some(name.to_owned()),
        bases,
        display_root: Some(root().to_path_buf()),
    };
    load_dir(dir, &options).unwrap_or_else(|e| panic!("{}", e.render()))
}

#[test]
fn wire_schema() {
    let model = load(
        &root().join("../contracts/tests/wire_schema"),
        "wiretest",
        Vec::new(),
    );
    let out = emit_pretty(&model, &RustOptions::default());
    check(&out, &root().join("tests/emit_rust/wiretest.rs.expected"));
}

#[test]
fn app_extending_a_base() {
    let base = load(
        &root().join("../contracts/tests/wire_schema"),
        "wiretest",
        Vec::new(),
    );
    let app = load(
        &root().join("tests/emit_rust/app"),
        "app",
        vec![Arc::new(base)],
    );
    let mut options = RustOptions::default();
    options
        .bases
        .insert("wiretest".to_owned(), "crate::wiretest".to_owned());
    let out = emit_pretty(&app, &options);
    check(&out, &root().join("tests/emit_rust/app.rs.expected"));
}

#[test]
fn output_is_deterministic() {
    let model = load(
        &root().join("../contracts/tests/wire_schema"),
        "wiretest",
        Vec::new(),
    );
    let a = emit_pretty(&model, &RustOptions::default());
    let b = emit_pretty(&model, &RustOptions::default());
    assert_eq!(a, b);
    assert!(a.starts_with("// @generated"));
}
