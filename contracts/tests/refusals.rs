//! A refusal is bounded: at most `wire::MAX_ISSUES` issues, the first found, then one line with
//! the count of the rest (docs/wire-semantics.md, "Failure messages"); and a frame's bytes are
//! read as `TextDecoder` reads them, a leading byte order mark dropped.

use contracts::agent::{self, ChatSendPayload, Kind};
use contracts::wire::{self, MAX_ISSUES};

/// A `chat.send` request whose payload holds `n` empty attachments (three issues each).
fn send_with_empty_attachments(n: usize) -> String {
    let mut items = "{},".repeat(n);
    items.pop();
    format!(
        r#"{{"id":"1","type":"chat.send","payload":{{"chatId":"c","text":"hi","attachments":[{items}]}}}}"#
    )
}

/// The refusal's message of a `chat.send` request.
fn refusal(frame: &str) -> String {
    let verdict = agent::verdict(Kind::Request, None, frame).expect("a request");
    assert!(!verdict.ok, "refused");
    verdict.message.expect("a message")
}

/// The issue lines of a message (`✖ ...`).
fn issues(message: &str) -> Vec<&str> {
    message.lines().filter(|l| l.starts_with("✖ ")).collect()
}

#[test]
fn a_frame_of_a_megabyte_of_empty_items_gets_a_small_refusal() {
    // About 1 MiB, as in the issue: 349,525 attachments, 1,048,575 issues.
    let n = 349_525;
    let frame = send_with_empty_attachments(n);
    assert!(frame.len() > 1 << 20);
    let message = refusal(&frame);
    let lines = issues(&message);
    assert_eq!(lines.len(), MAX_ISSUES + 1, "{message}");
    assert_eq!(
        lines.last().copied(),
        Some(format!("✖ and {} more issues", 3 * n - MAX_ISSUES).as_str())
    );
    // The first found: attachments[0] to [33], each field in declaration order.
    assert!(message.starts_with(
        "✖ Invalid input: expected string, received undefined\n  → at attachments[0].name\n\
         ✖ Invalid input: expected string, received undefined\n  → at attachments[0].mediaType\n"
    ));
    assert!(message.contains("  → at attachments[33].name\n"));
    assert!(!message.contains("attachments[33].mediaType"));
    assert!(message.len() < 10_000, "{} bytes", message.len());
}

#[test]
fn under_the_cap_every_issue_is_shown_and_at_it_one_more_is_counted() {
    // 33 attachments: 99 issues, all shown.
    let message = refusal(&send_with_empty_attachments(33));
    assert_eq!(issues(&message).len(), 99);
    assert!(!message.contains("more issue"));
    // 34: 102 issues, 100 shown and two counted.
    let message = refusal(&send_with_empty_attachments(34));
    assert_eq!(issues(&message).len(), MAX_ISSUES + 1);
    assert!(message.ends_with("\n✖ and 2 more issues"), "{message}");
    // The error says the same.
    let payload = r#"{"chatId":"c","text":"hi","attachments":[{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{"name":"a","mediaType":"b"},{"name":"a","uri":"b"}]}"#;
    let error = wire::from_str::<ChatSendPayload>(payload).expect_err("refused");
    assert_eq!(error.issues().len(), MAX_ISSUES);
    assert_eq!(error.more_issues(), 1);
    assert!(error.to_string().ends_with("\n✖ and 1 more issue"));
}

#[test]
fn the_first_found_are_in_declaration_order_and_shown_shortest_path_first() {
    // `chatId` is declared before `attachments`, so its issue is among the first found,
    // though it is read last; among those shown, the shortest path comes first.
    let payload = format!(
        r#"{{"text":"hi","attachments":[{}],"text":""}}"#,
        vec!["{}"; 200].join(",")
    );
    let error = wire::from_str::<ChatSendPayload>(&payload).expect_err("refused");
    let message = error.to_string();
    assert!(
        message.starts_with(
            "✖ Invalid input: expected string, received undefined\n  → at chatId\n\
             ✖ Too small: expected string to have >=1 characters\n  → at text\n\
             ✖ Invalid input: expected string, received undefined\n  → at attachments[0].name\n"
        ),
        "{message}"
    );
    assert_eq!(error.issues().len(), MAX_ISSUES);
    assert_eq!(error.more_issues(), 2 + 600 - MAX_ISSUES);
    // An earlier duplicate's issues are dropped, beyond the cap too.
    let payload = format!(
        r#"{{"chatId":"c","text":"hi","attachments":[{}],"attachments":[{{}}]}}"#,
        vec!["{}"; 200].join(",")
    );
    let message = wire::from_str::<ChatSendPayload>(&payload)
        .expect_err("refused")
        .to_string();
    assert_eq!(issues(&message).len(), 3, "{message}");
}

#[test]
fn the_cap_is_the_typescript_runtimes() {
    let parse = include_str!("../../bindings/agent-contracts/src/runtime/parse.ts");
    let line = format!("export const MAX_ISSUES = {MAX_ISSUES};");
    assert!(parse.lines().any(|l| l == line), "parse.ts lacks `{line}`");
}

#[test]
fn a_leading_byte_order_mark_is_dropped_as_text_decoder_drops_it() {
    let frame = r#"{"id":"1","type":"chat.cancel","payload":{"chatId":"c"}}"#;
    let with_bom = format!("\u{feff}{frame}");
    assert_eq!(wire::text_of_bytes(with_bom.as_bytes()), frame);
    assert_eq!(wire::text_of_vec(with_bom.clone().into_bytes()), frame);
    assert!(wire::from_slice::<agent::Request>(with_bom.as_bytes()).is_ok());
    // One only, and only at the start: the rest is text, which JSON refuses.
    let two = format!("\u{feff}{with_bom}");
    assert!(wire::from_slice::<agent::Request>(two.as_bytes()).is_err());
    let inside = format!("{{\u{feff}{}", &frame[1..]);
    assert!(wire::from_slice::<agent::Request>(inside.as_bytes()).is_err());
    // Text is not bytes: `from_str` reads U+FEFF as `JSON.parse` does, and refuses it.
    assert!(wire::from_str::<agent::Request>(&with_bom).is_err());
    // Bytes that are not UTF-8 after it still read as U+FFFD.
    let mut bad = "\u{feff}".as_bytes().to_vec();
    bad.extend_from_slice(b"\"\xff\"");
    assert_eq!(wire::text_of_bytes(&bad), "\"\u{fffd}\"");
    assert_eq!(wire::text_of_vec(bad), "\"\u{fffd}\"");
}
