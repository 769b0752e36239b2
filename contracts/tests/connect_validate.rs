//! `cargo xtask validate --protocol connect`, compiled here from xtask's own file so that the
//! runtime's tests cover it: one verdict line per input line, whatever the lines hold.

#[allow(dead_code)]
#[path = "../../xtask/src/validate_connect.rs"]
mod validate_connect;

use serde_json::Value;
use validate_connect::{Failure, connect_with};

fn run(kind: &str, input: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    connect_with(kind, None, input, &mut out).expect("validates");
    let text = String::from_utf8(out).expect("verdicts are UTF-8");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("each verdict is one JSON object"))
        .collect()
}

#[test]
fn one_verdict_per_line_and_a_malformed_line_never_stops_the_rest() {
    let input = b"{\"frame\":\"ping\",\"ts\":1}\n{\"frame\":\nnot json\n\xff\xfe\r\n\n{\"frame\":\"pong\",\"ts\":2}\r\n{\"frame\":\"teleport\"}";
    let verdicts = run("client", input);
    let oks: Vec<bool> = verdicts
        .iter()
        .map(|v| v["ok"].as_bool().unwrap())
        .collect();
    assert_eq!(oks, [true, false, false, false, false, true, false]);
    for v in verdicts.iter().filter(|v| v["ok"] == false) {
        assert_eq!(v["stage"], "envelope");
        assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    }
    assert_eq!(verdicts[0], serde_json::json!({ "ok": true }));
    assert!(
        verdicts[6]["message"]
            .as_str()
            .unwrap()
            .contains("→ at frame")
    );
}

#[test]
fn server_frames_are_read_as_server_frames() {
    let input = b"{\"frame\":\"ack\",\"idempotency_key\":\"k\",\"seq\":1,\"duplicate\":false}\n{\"frame\":\"subscribe\",\"workspace_id\":\"w\"}\n";
    let oks: Vec<bool> = run("server", input)
        .iter()
        .map(|v| v["ok"].as_bool().unwrap())
        .collect();
    assert_eq!(oks, [true, false]);
}

#[test]
fn usage_errors_read_nothing() {
    for (kind, ty) in [("request", None), ("client", Some("message.post"))] {
        let mut out = Vec::new();
        let r = connect_with(kind, ty, &b"{}\n"[..], &mut out);
        assert!(matches!(r, Err(Failure::Usage(_))), "{kind} {ty:?}");
        assert!(out.is_empty());
    }
}

#[test]
fn the_corpus_inputs_get_the_corpus_verdicts() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/connect.jsonl");
    let corpus: Vec<Value> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for kind in ["client", "server"] {
        let lines: Vec<&Value> = corpus.iter().filter(|l| l["as"] == kind).collect();
        let input: String = lines
            .iter()
            .map(|l| {
                l.get("raw")
                    .and_then(Value::as_str)
                    .map_or_else(|| l["input"].to_string(), str::to_owned)
                    + "\n"
            })
            .collect();
        let verdicts = run(kind, input.as_bytes());
        assert_eq!(verdicts.len(), lines.len());
        for (line, verdict) in lines.iter().zip(&verdicts) {
            assert_eq!(verdict["ok"], line["ok"], "{}", line["note"]);
        }
    }
}
