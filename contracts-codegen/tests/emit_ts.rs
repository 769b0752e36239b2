//! The TypeScript emitter over a fixture model: the generated package is compared with
//! `tests/emit_ts/expected/`, file by file. `UPDATE_EXPECT=1 cargo test -p adecore-contracts-codegen
//! --test emit_ts` rewrites the expected files.

#[path = "emit_ts/model.rs"]
mod fixture;

use contracts_codegen::analysis::Checked;
use contracts_codegen::emit::docs::{self, DocsOptions};
use contracts_codegen::emit::json_schema::{self, JsonSchemaOptions};
use contracts_codegen::emit::typescript::{self, GeneratedFile, TsAlias, TsOptions};
use std::path::{Path, PathBuf};

fn options() -> TsOptions {
    let mut o = TsOptions::new("@fixture/agent-contracts", "AGENT");
    o.parse_functions = vec![
        "Request".into(),
        "ServerFrame".into(),
        "Shape".into(),
        "Loose".into(),
    ];
    o.aliases = vec![
        TsAlias {
            name: "Error".into(),
            target: "WireError".into(),
            type_alias: false,
        },
        TsAlias {
            name: "Event".into(),
            target: "EventFrame".into(),
            type_alias: true,
        },
    ];
    o
}

fn expected_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emit_ts/expected")
}

/// Compares each file with its expected copy in `dir` (expect-test: `UPDATE_EXPECT=1`
/// rewrites them).
fn check_against(dir: &Path, files: &[GeneratedFile]) {
    for f in files {
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            // A new file in a new directory can be written under UPDATE_EXPECT.
            let _ = std::fs::create_dir_all(parent);
        }
        expect_test::expect_file![path].assert_eq(&f.contents);
    }
}

#[test]
fn typescript_package() {
    let model = Checked::new(fixture::model());
    let files = typescript::emit(&model, &options());
    check_against(&expected_dir().join("package"), &files);
}

#[test]
fn typescript_is_deterministic() {
    let model = Checked::new(fixture::model());
    assert_eq!(
        typescript::emit(&model, &options()),
        typescript::emit(&model, &options())
    );
}

#[test]
fn generated_sources_carry_the_header() {
    for f in typescript::emit(&Checked::new(fixture::model()), &options()) {
        if f.path.extension().is_some_and(|e| e == "ts") {
            assert!(
                f.contents.starts_with(typescript::HEADER),
                "{}",
                f.path.display()
            );
        }
    }
}

#[test]
fn json_schema_document() {
    let text = json_schema::emit(
        &Checked::new(fixture::model()),
        &JsonSchemaOptions::default(),
    );
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let defs = v["$defs"].as_object().unwrap();
    assert!(defs.contains_key("ChatInfo"));
    assert!(defs.contains_key("request:chat.send:payload"));
    assert!(defs.contains_key("event:chat.status"));
    assert_eq!(
        v["$defs"]["Seq"]["maximum"],
        serde_json::json!(9007199254740991_i64)
    );
    let file = GeneratedFile {
        path: "schema.json".into(),
        contents: text,
    };
    check_against(&expected_dir(), &[file]);
}

#[test]
fn markdown_reference() {
    let options = DocsOptions {
        package_name: "@fixture/agent-contracts".into(),
        table_prefix: "AGENT".into(),
        ..DocsOptions::default()
    };
    let text = docs::emit(&Checked::new(fixture::model()), &options);
    assert!(text.contains("| Send and control | [`chat.send`](#request-chat-send), [`chat.kill`](#request-chat-kill) (deprecated) |"), "{text}");
    let file = GeneratedFile {
        path: "reference.md".into(),
        contents: text,
    };
    check_against(&expected_dir(), &[file]);
}

/// The `#[table]` key field of `Request`, by the fixture's name.
fn request_key(
    model: &mut contracts_codegen::model::Model,
) -> &mut contracts_codegen::model::Field {
    use contracts_codegen::model::TypeDefKind;
    let t = model
        .types
        .iter_mut()
        .find(|t| t.name == "Request")
        .unwrap();
    let TypeDefKind::Struct(s) = &mut t.kind else {
        panic!("Request is a struct")
    };
    s.fields.iter_mut().find(|f| f.name == "type").unwrap()
}

fn frames_ts(model: &contracts_codegen::model::Model) -> String {
    typescript::emit(&Checked::new(model.clone()), &options())
        .into_iter()
        .find(|f| f.path == Path::new("src/frames.ts"))
        .unwrap()
        .contents
}

#[test]
fn typed_frames_hold_only_names_the_key_accepts() {
    // `chat.list`, `chat.send` and `chat.kill` are 9 code points: a key of at most 8 refuses
    // them all in the envelope, so the one pass holds none of them and is not emitted.
    let mut model = fixture::model();
    request_key(&mut model).ty = fixture::string(Some(1), Some(9));
    assert!(frames_ts(&model).contains("z.literal('chat.send')"));
    request_key(&mut model).ty = fixture::string(Some(1), Some(8));
    let text = frames_ts(&model);
    assert!(!text.contains("RequestTypedSchema"), "{text}");
    assert!(!text.contains("parseRequestTyped"), "{text}");
    assert!(text.contains("parseServerFrameTyped"), "{text}");
}

#[test]
fn no_table_field_no_typed_frames() {
    let mut model = fixture::model();
    for t in &mut model.types {
        if let contracts_codegen::model::TypeDefKind::Struct(s) = &mut t.kind {
            for f in &mut s.fields {
                f.meta.table = None;
            }
        }
    }
    for f in typescript::emit(&Checked::new(model), &options()) {
        assert!(!f.contents.contains("Typed"), "{}", f.path.display());
    }
}

/// The JSON-RPC envelope of the fixture `pass-jsonrpc` (typed frames keyed on `method`, an
/// owned `id`, optional `params`, and the union of them all): its `src/` and its JSON Schema,
/// compared with `tests/emit_ts/jsonrpc/`.
#[test]
fn jsonrpc_typed_frames() {
    use contracts_codegen::load::{LoadOptions, load_dir};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pass-jsonrpc/schema");
    let options = LoadOptions {
        name: Some("jsonrpc".into()),
        ..LoadOptions::default()
    };
    let model = Checked::new(load_dir(&dir, &options).expect("the fixture loads"));
    let files = typescript::emit(&model, &TsOptions::new("@fixture/jsonrpc", "JSONRPC"));
    let mut frames: Vec<GeneratedFile> = files
        .into_iter()
        .filter(|f| f.path.starts_with("src"))
        .collect();
    // The JSON Schema: an absent `params` is valid where the entry's payload accepts `{}`.
    frames.push(GeneratedFile {
        path: "schema.json".into(),
        contents: json_schema::emit(&model, &JsonSchemaOptions::default()),
    });
    check_against(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emit_ts/jsonrpc"),
        &frames,
    );
}
