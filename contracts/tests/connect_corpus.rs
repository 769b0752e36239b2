//! The shared corpus (`tests/corpus/connect.jsonl`) through the Rust parse functions: every
//! line gets its expected verdict, and a refusal names the expected paths. The spec's sample
//! frames are lines of it, so they parse.

use contracts::connect::{Side, check, parse_client_frame, parse_server_frame, verdict_line};
use contracts::wire::dot_path;
use serde_json::Value;

fn corpus() -> Vec<(usize, Value)> {
    read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/connect.jsonl"
    ))
}

/// The cases `cargo xtask codegen` derives from the model, when they are there.
fn derived() -> Vec<(usize, Value)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/derived/connect.jsonl"
    );
    if std::path::Path::new(path).exists() {
        read(path)
    } else {
        Vec::new()
    }
}

fn read(path: &str) -> Vec<(usize, Value)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            (
                i + 1,
                serde_json::from_str(l).unwrap_or_else(|e| panic!("line {}: {e}", i + 1)),
            )
        })
        .collect()
}

/// The exact text of a line's input.
fn input(line: &Value) -> String {
    match line.get("raw").and_then(Value::as_str) {
        Some(raw) => raw.to_owned(),
        None => line["input"].to_string(),
    }
}

fn side(line: &Value) -> Side {
    Side::from_name(line["as"].as_str().unwrap_or_default()).expect("`as` is client or server")
}

#[test]
fn rust_agrees_with_the_corpus() {
    agree(corpus());
}

#[test]
fn rust_agrees_with_the_derived_corpus() {
    agree(derived());
}

fn agree(lines: Vec<(usize, Value)>) {
    let mut failures = Vec::new();
    for (n, line) in lines {
        let note = line["note"].as_str().unwrap_or_default();
        let text = input(&line);
        let expected_ok = line["ok"].as_bool().expect("`ok` is a boolean");
        let got = check(side(&line), &text);
        match (&got, expected_ok) {
            (Ok(()), true) => {}
            (Err(e), true) => {
                failures.push(format!("line {n} ({note}): refused, expected ok:\n{e}"))
            }
            (Ok(()), false) => {
                failures.push(format!("line {n} ({note}): accepted, expected a refusal"))
            }
            (Err(e), false) => {
                if let Some(stage) = line.get("stage").and_then(Value::as_str)
                    && stage != "envelope"
                {
                    failures.push(format!(
                        "line {n} ({note}): stage {stage} expected, connect has only envelope"
                    ));
                }
                if let Some(paths) = line.get("paths").and_then(Value::as_array) {
                    let mut want: Vec<String> = paths
                        .iter()
                        .filter_map(|p| p.as_str().map(str::to_owned))
                        .collect();
                    let mut have: Vec<String> =
                        e.issues().iter().map(|i| dot_path(i.path())).collect();
                    want.sort();
                    want.dedup();
                    // An issue at the root names no path: the corpus writes it as `[]`.
                    have.retain(|p| !p.is_empty());
                    have.sort();
                    have.dedup();
                    if want != have {
                        failures.push(format!(
                            "line {n} ({note}): paths {have:?}, expected {want:?}\n{e}"
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_spec_sample_frames_parse() {
    let samples: Vec<(usize, Value)> = corpus()
        .into_iter()
        .filter(|(_, l)| {
            l["note"]
                .as_str()
                .is_some_and(|n| n.starts_with("spec sample"))
        })
        .collect();
    assert_eq!(
        samples.len(),
        7,
        "the spec shows four client frames and three server frames"
    );
    for (n, line) in samples {
        let text = input(&line);
        match side(&line) {
            Side::Client => {
                let frame = parse_client_frame(&text).unwrap_or_else(|e| panic!("line {n}: {e}"));
                // Written back, it is the same frame.
                assert_eq!(
                    serde_json::to_value(&frame).unwrap(),
                    line["input"],
                    "line {n}"
                );
            }
            Side::Server => {
                let frame = parse_server_frame(&text).unwrap_or_else(|e| panic!("line {n}: {e}"));
                assert_eq!(
                    serde_json::to_value(&frame).unwrap(),
                    line["input"],
                    "line {n}"
                );
            }
        }
    }
}

#[test]
fn verdict_lines_are_one_json_object_each_and_never_panic() {
    let ok = verdict_line(Side::Client, r#"{"frame":"ping","ts":1}"#);
    assert_eq!(ok, r#"{"ok":true}"#);
    for junk in [
        "",
        "{",
        "null",
        "\u{feff}{}",
        "[1,2",
        "{\"frame\":\"ping\",\"ts\":1e400}",
        &"[".repeat(10_000),
    ] {
        for side in [Side::Client, Side::Server] {
            let line = verdict_line(side, junk);
            let v: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(
                (v["ok"].as_bool(), v["stage"].as_str()),
                (Some(false), Some("envelope")),
                "{junk:?}"
            );
            assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()));
            assert!(!line.contains('\n'));
        }
    }
}
