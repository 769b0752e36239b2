//! Snapshot of the Rust emitter: `emit_pretty` of the wire-semantics schema
//! (`contracts/tests/wire_schema`) and of an app extending it, compared with the files in
//! `tests/emit_rust/`. Update them with `UPDATE_EXPECT=1 cargo test -p adecore-contracts-codegen --test emit_rust`.

use contracts_codegen::analysis::Checked;
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

fn load(dir: &Path, name: &str, bases: Vec<Arc<contracts_codegen::model::Model>>) -> Checked {
    let options = LoadOptions {
        name: Some(name.to_owned()),
        bases,
        display_root: Some(root().to_path_buf()),
    };
    Checked::new(load_dir(dir, &options).unwrap_or_else(|e| panic!("{}", e.render())))
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
        vec![base.model_arc().clone()],
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

/// Where each public item of `file` without a doc comment is (`Name`, `Name.field`,
/// `Name::method`), with the number of public items looked at. A `#[doc(hidden)]` item and
/// what is in a trait's impl (documented by the trait) are not counted.
fn undocumented(file: &syn::File) -> (Vec<String>, usize) {
    fn has_doc(attrs: &[syn::Attribute]) -> bool {
        attrs.iter().any(|a| a.path().is_ident("doc"))
    }
    fn hidden(attrs: &[syn::Attribute]) -> bool {
        attrs.iter().any(|a| {
            a.path().is_ident("doc")
                && a.meta
                    .require_list()
                    .is_ok_and(|l| l.tokens.to_string().contains("hidden"))
        })
    }
    fn public(v: &syn::Visibility) -> bool {
        matches!(v, syn::Visibility::Public(_))
    }
    fn note(attrs: &[syn::Attribute], what: String, out: &mut Vec<String>, seen: &mut usize) {
        if hidden(attrs) {
            return;
        }
        *seen += 1;
        if !has_doc(attrs) {
            out.push(what);
        }
    }
    fn walk(items: &[syn::Item], at: &str, out: &mut Vec<String>, seen: &mut usize) {
        for item in items {
            match item {
                syn::Item::Struct(s) if public(&s.vis) => {
                    let name = format!("{at}{}", s.ident);
                    note(&s.attrs, name.clone(), out, seen);
                    for (i, f) in s.fields.iter().enumerate() {
                        if public(&f.vis) {
                            let field = f.ident.as_ref().map_or(i.to_string(), |i| i.to_string());
                            note(&f.attrs, format!("{name}.{field}"), out, seen);
                        }
                    }
                }
                syn::Item::Enum(e) if public(&e.vis) => {
                    let name = format!("{at}{}", e.ident);
                    note(&e.attrs, name.clone(), out, seen);
                    for v in &e.variants {
                        note(&v.attrs, format!("{name}::{}", v.ident), out, seen);
                    }
                }
                syn::Item::Fn(f) if public(&f.vis) => {
                    note(&f.attrs, format!("{at}{}", f.sig.ident), out, seen)
                }
                syn::Item::Type(t) if public(&t.vis) => {
                    note(&t.attrs, format!("{at}{}", t.ident), out, seen)
                }
                syn::Item::Const(c) if public(&c.vis) => {
                    note(&c.attrs, format!("{at}{}", c.ident), out, seen)
                }
                syn::Item::Trait(t) if public(&t.vis) => {
                    let name = format!("{at}{}", t.ident);
                    note(&t.attrs, name.clone(), out, seen);
                    for i in &t.items {
                        if let syn::TraitItem::Fn(f) = i {
                            note(&f.attrs, format!("{name}::{}", f.sig.ident), out, seen);
                        }
                    }
                }
                syn::Item::Mod(m) if public(&m.vis) => {
                    let name = format!("{at}{}", m.ident);
                    note(&m.attrs, name.clone(), out, seen);
                    if let Some((_, items)) = &m.content {
                        walk(items, &format!("{name}::"), out, seen);
                    }
                }
                syn::Item::Impl(i) if i.trait_.is_none() => {
                    let ty = &i.self_ty;
                    let ty = quote::quote!(#ty).to_string().replace(' ', "");
                    for item in &i.items {
                        if let syn::ImplItem::Fn(f) = item
                            && public(&f.vis)
                        {
                            note(&f.attrs, format!("{at}{ty}::{}", f.sig.ident), out, seen);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    let mut seen = 0;
    walk(&file.items, "", &mut out, &mut seen);
    (out, seen)
}

/// Every public item the emitter writes has a doc comment, for the agent protocol (the
/// hoisted payloads and results say which request they belong to) and for the wire-semantics
/// schema and an app on it: rustdoc shows a description for each.
#[test]
fn every_generated_item_is_documented() {
    let agent = load(
        &root().join("../contracts/schema/agent"),
        "agent",
        Vec::new(),
    );
    let wiretest = load(
        &root().join("../contracts/tests/wire_schema"),
        "wiretest",
        Vec::new(),
    );
    let app = load(
        &root().join("tests/emit_rust/app"),
        "app",
        vec![wiretest.model_arc().clone()],
    );
    let mut app_options = RustOptions::default();
    app_options
        .bases
        .insert("wiretest".to_owned(), "crate::wiretest".to_owned());
    for (name, model, options) in [
        ("agent", &agent, RustOptions::default()),
        ("wiretest", &wiretest, RustOptions::default()),
        ("app", &app, app_options),
    ] {
        let text = emit_pretty(model, &options);
        let file = syn::parse_file(&text).expect("the emitted Rust parses");
        let (missing, seen) = undocumented(&file);
        assert!(
            missing.is_empty(),
            "{name}: {} of {seen} public items have no doc comment: {missing:#?}",
            missing.len()
        );
    }
}
