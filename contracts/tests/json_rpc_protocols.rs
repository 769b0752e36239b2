//! MCP and ACP (features `mcp`, `acp`) through their verdict, `contracts::jsonrpc::verdict`,
//! what `cargo xtask validate --protocol mcp|acp` runs:
//!
//! - every official example (`tests/corpus/{mcp,acp}/examples.jsonl`: whole messages of both
//!   sides, each valid per the protocol's official JSON Schema) is accepted as a message and
//!   written back by the generated types equal to what was read, as JSON;
//! - the derived corpus (`tests/corpus/derived/{mcp,acp}.jsonl`: payloads, results,
//!   notifications and types at every edge the model has) through the shared runner, as the
//!   agent's is (ignored for now: see below);
//! - a batch, an unknown method and bad params are refused at their stage.

mod common;

use contracts::acp::AcpTables;
use contracts::jsonrpc::{JsonRpcTables, Kind, verdict};
use contracts::mcp::McpTables;
use contracts::verdict::{Stage, Verdict};
use serde_json::Value;

/// Every line of `tests/corpus/<protocol>/examples.jsonl` read as a message with its echo:
/// the lines refused, and those whose echo is not the message, each with what differs.
fn examples<T: JsonRpcTables>(protocol: &str) -> (usize, Vec<String>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus")
        .join(protocol)
        .join("examples.jsonl");
    let text = std::fs::read_to_string(&path).expect("the examples");
    let mut wrong = Vec::new();
    let mut count = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        count += 1;
        let place = format!("tests/corpus/{protocol}/examples.jsonl:{}", i + 1);
        let example: Value = serde_json::from_str(line).expect("a JSON line");
        let def = example["def"].as_str().unwrap_or("?");
        let message = &example["message"];
        let v =
            verdict::<T>(Kind::Message, None, &message.to_string(), true).expect("no usage error");
        if !v.ok {
            wrong.push(format!(
                "{place} ({def}): refused at {:?}: {}",
                v.stage,
                v.message.unwrap_or_default()
            ));
            continue;
        }
        let echo: Value = serde_json::from_str(v.value.expect("an echo").get()).expect("JSON");
        if &echo != message {
            wrong.push(format!(
                "{place} ({def}): written back otherwise: {}",
                differences(message, &echo, "").join("; ")
            ));
        }
    }
    (count, wrong)
}

/// Where `b` differs from `a`, by JSON path: a key dropped or added, a value changed.
fn differences(a: &Value, b: &Value, at: &str) -> Vec<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut out = Vec::new();
            for (k, v) in x {
                let path = format!("{at}.{k}");
                match y.get(k) {
                    None => out.push(format!("{path} dropped")),
                    Some(w) => out.extend(differences(v, w, &path)),
                }
            }
            for k in y.keys().filter(|k| !x.contains_key(*k)) {
                out.push(format!("{at}.{k} added"));
            }
            out
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .flat_map(|(i, (v, w))| differences(v, w, &format!("{at}[{i}]")))
            .collect(),
        _ if a == b => Vec::new(),
        _ => vec![format!("{at}: {a} became {b}")],
    }
}

#[test]
fn every_mcp_example_is_accepted_and_written_back_equal() {
    let (count, wrong) = examples::<McpTables>("mcp");
    eprintln!("mcp: {count} examples, {} wrong", wrong.len());
    assert!(count > 0);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_acp_example_is_accepted_and_written_back_equal() {
    let (count, wrong) = examples::<AcpTables>("acp");
    eprintln!("acp: {count} examples, {} wrong", wrong.len());
    assert!(count > 0);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn line_verdict<T: JsonRpcTables>(line: &common::Line) -> Verdict {
    let kind: Kind = line
        .kind
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", line.place));
    verdict::<T>(kind, line.type_name.as_deref(), &line.text, false)
        .unwrap_or_else(|e| panic!("{}: {e}", line.place))
}

// The derived corpus expects a refusal where a mutated value is still another variant of an
// untagged union whose variants overlap (a progress token made a number, an `id` removed from
// a message that is then a notification, an elicitation schema of another kind): 26 lines of
// MCP's, 21 of ACP's. The decoder (and Zod) accept those values; the derivation
// (`contracts_codegen::corpus`) is to learn which mutations another variant accepts.
#[test]
fn mcp_derived_corpus() {
    common::run("derived/mcp.jsonl", line_verdict::<McpTables>);
}

#[test]
fn acp_derived_corpus() {
    common::run("derived/acp.jsonl", line_verdict::<AcpTables>);
}

fn message<T: JsonRpcTables>(text: &str) -> Verdict {
    verdict::<T>(Kind::Message, None, text, true).unwrap()
}

#[test]
fn a_batch_is_refused_with_the_reason() {
    for v in [
        message::<McpTables>(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
        message::<AcpTables>("[]"),
    ] {
        assert!(!v.ok);
        assert_eq!(v.stage, Some(Stage::Envelope));
        let m = v.message.unwrap();
        assert!(m.contains("has no batches"), "{m}");
    }
    // Text that is not JSON is not a batch: the parser says what is wrong.
    let v = message::<McpTables>("[1,");
    assert_eq!(v.stage, Some(Stage::Envelope));
    assert!(!v.message.unwrap().contains("batch"));
}

#[test]
fn a_message_is_judged_by_the_envelope_then_its_methods_params() {
    let ping = message::<McpTables>(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert!(ping.ok);
    // Absent params stay absent when written back.
    assert_eq!(
        ping.value.unwrap().get(),
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
    );
    assert_eq!(
        ping_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}}"#),
        (
            Some(Stage::Table),
            "✖ Invalid input: expected string, received number\n  → at name".into()
        )
    );
    assert_eq!(
        ping_line(r#"{"jsonrpc":"2.0","id":1,"method":"no/such"}"#).0,
        Some(Stage::Table)
    );
    assert_eq!(
        ping_line(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#).0,
        Some(Stage::Envelope)
    );
    // A result and an error response, of any request.
    assert!(message::<McpTables>(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#).ok);
    assert!(
        message::<AcpTables>(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
        )
        .ok
    );
    // Without --echo, no value.
    let v = verdict::<AcpTables>(
        Kind::Message,
        None,
        r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#,
        false,
    )
    .unwrap();
    assert!(v.ok && v.value.is_none());
    assert_eq!(v.to_line(), r#"{"ok":true}"#);
}

fn ping_line(text: &str) -> (Option<Stage>, String) {
    let v = message::<McpTables>(text);
    assert!(!v.ok, "{text}");
    (v.stage, v.message.unwrap_or_default())
}

#[test]
fn bare_params_and_results_by_method() {
    let v =
        verdict::<McpTables>(Kind::Payload, Some("tools/call"), r#"{"name":"t"}"#, true).unwrap();
    assert!(v.ok);
    assert_eq!(v.value.unwrap().get(), r#"{"name":"t"}"#);
    // A notification's params as a payload too.
    let v = verdict::<McpTables>(
        Kind::Payload,
        Some("notifications/progress"),
        r#"{"progressToken":1,"progress":50}"#,
        true,
    )
    .unwrap();
    assert!(v.ok, "{v:?}");
    assert!(
        verdict::<AcpTables>(
            Kind::Result,
            Some("session/new"),
            r#"{"sessionId":"s"}"#,
            false
        )
        .unwrap()
        .ok
    );
    let unknown = verdict::<McpTables>(Kind::Result, Some("no/such"), "{}", false).unwrap_err();
    assert_eq!(unknown.to_string(), r#"no table entry is called "no/such""#);
}

/// Any other top-level key of a request or a notification (which MCP's and ACP's official
/// schemas accept) is kept and written back where it was read, of any JSON value; a request's
/// params are still judged by its method.
#[test]
fn extra_top_level_keys_are_kept_and_written_back() {
    fn echoed<T: JsonRpcTables>(text: &str) {
        let v = message::<T>(text);
        assert!(v.ok, "{text}: {v:?}");
        let written: Value = serde_json::from_str(v.value.unwrap().get()).unwrap();
        assert_eq!(
            written,
            serde_json::from_str::<Value>(text).unwrap(),
            "{text}"
        );
    }
    echoed::<McpTables>(r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":1}"#);
    echoed::<McpTables>(
        r#"{"x":{"a":[1,2.5,null]},"jsonrpc":"2.0","id":"r","method":"tools/list"}"#,
    );
    echoed::<McpTables>(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","_meta":{"k":"v"},"y":true}"#,
    );
    echoed::<AcpTables>(
        r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]},"x":"y"}"#,
    );
    echoed::<AcpTables>(
        r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"},"x":1}"#,
    );
    assert_eq!(
        ping_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3},"x":1}"#),
        (
            Some(Stage::Table),
            "✖ Invalid input: expected string, received number\n  → at name".into()
        )
    );
}
