//! The Agent Connect side of the shared corpus (`tests/corpus/connect.jsonl`) beyond the line
//! verdicts (every line, hand-written and derived, gets its expected verdict and paths in
//! `corpus.rs`, through the runner in `common/mod.rs`): the spec's sample frames are lines of
//! it, so they parse and write back as the same frames; and a verdict line never panics.

mod common;

use contracts::connect::{Side, parse_client_frame, parse_server_frame, verdict_line};
use serde_json::Value;

fn side(line: &common::Line) -> Side {
    Side::from_name(&line.kind).expect("`as` is client or server")
}

#[test]
fn the_spec_sample_frames_parse() {
    let samples: Vec<common::Line> = common::read("connect.jsonl")
        .into_iter()
        .filter(|l| l.note.starts_with("spec sample"))
        .collect();
    assert_eq!(
        samples.len(),
        7,
        "the spec shows four client frames and three server frames"
    );
    for line in samples {
        let place = &line.place;
        let text = &line.text;
        // Written back, it is the same frame.
        let written = match side(&line) {
            Side::Client => {
                let frame = parse_client_frame(text).unwrap_or_else(|e| panic!("{place}: {e}"));
                serde_json::to_value(&frame).unwrap()
            }
            Side::Server => {
                let frame = parse_server_frame(text).unwrap_or_else(|e| panic!("{place}: {e}"));
                serde_json::to_value(&frame).unwrap()
            }
        };
        assert_eq!(Some(written), line.input, "{place}");
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
