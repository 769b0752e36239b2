//! Every `$ref` of a generated JSON Schema names a `$defs` entry of the same document: the
//! agent's, Agent Connect's, and the documents app's, whose composed tables hold the agent's
//! entries (their payloads name the agent's types unqualified, written in the agent's schema).

use contracts_codegen::emit::json_schema::{self, JsonSchemaOptions};
use contracts_codegen::generate::Protocol;
use serde_json::Value;

mod repo;

/// Every `$ref` in `v`.
fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get("$ref") {
                out.push(r);
            }
            o.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// The references of `p`'s document that name no entry of its `$defs`.
fn dangling(p: &Protocol) -> Vec<String> {
    let text = json_schema::emit(&p.model, &JsonSchemaOptions::default());
    let doc: Value = serde_json::from_str(&text).expect("the document is JSON");
    let defs = doc["$defs"].as_object().expect("$defs");
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(!all.is_empty());
    let mut out: Vec<String> = all
        .into_iter()
        .filter(|r| {
            r.strip_prefix("#/$defs/")
                .is_none_or(|name| !defs.contains_key(name))
        })
        .map(str::to_owned)
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_reference_resolves() {
    let (agent, connect, app) = repo::protocols();
    for p in [&agent, &connect, &app] {
        assert_eq!(dangling(p), Vec::<String>::new(), "{}", p.name);
    }
}
