//! `contracts-validate` (what `cargo xtask validate` runs): one verdict line per input line,
//! a malformed line never stops the rest, and usage errors exit 2. Agent Connect's frames
//! need the feature `connect` (`cargo xtask test` runs every feature).

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs the binary with `args`, feeding `input`; answers the exit code and stdout lines.
fn run(args: &[&str], input: &str) -> (i32, Vec<String>) {
    run_bytes(args, input.as_bytes())
}

/// Runs the binary with `args`, feeding raw bytes.
fn run_bytes(args: &[&str], input: &[u8]) -> (i32, Vec<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_contracts-validate"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // The binary may exit before reading (a usage error): a broken pipe here is expected.
    let _ = child.stdin.take().unwrap().write_all(input);
    let out = child.wait_with_output().unwrap();
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    (out.status.code().unwrap_or(-1), lines)
}

#[test]
fn one_verdict_per_line_and_bad_lines_do_not_stop_the_rest() {
    let input = concat!(
        r#"{"id":"1","type":"chat.list","payload":{}}"#,
        "\n",
        "not json\n",
        r#"{"id":"2","type":"chat.nope","payload":{}}"#,
        "\n",
        r#"{"id":"3","type":"chat.history","payload":{"chatId":"c","cursor":"x","limit":0}}"#,
        "\n",
        r#"{"id":"4","type":"chat.detach","payload":{"chatId":"c"}}"#,
        "\n",
    );
    let (code, lines) = run(&["agent", "request"], input);
    assert_eq!(code, 0);
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!(lines[0], r#"{"ok":true}"#);
    assert!(
        lines[1].starts_with(r#"{"ok":false,"stage":"envelope","message":"#),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with(r#"{"ok":false,"stage":"table","message":"#),
        "{}",
        lines[2]
    );
    assert_eq!(
        lines[3],
        r#"{"ok":false,"stage":"table","message":"✖ Too small: expected number to be >=1\n  → at limit"}"#
    );
    assert_eq!(lines[4], r#"{"ok":true}"#);
}

#[test]
fn bare_values_are_checked_by_name() {
    let (code, lines) = run(
        &["agent", "result", "chat.forkInfo"],
        "{\"parent\":null,\"children\":[]}\n{\"children\":[]}\n",
    );
    assert_eq!(code, 0);
    assert_eq!(lines[0], r#"{"ok":true}"#);
    assert_eq!(
        lines[1],
        r#"{"ok":false,"stage":"table","message":"✖ Invalid input: expected object, received undefined\n  → at parent"}"#
    );
}

#[cfg(feature = "connect")]
#[test]
fn connect_frames() {
    let (code, lines) = run(
        &["connect", "client"],
        "{\"frame\":\"ping\",\"ts\":1}\n{\"frame\":\"teleport\"}\n",
    );
    assert_eq!(code, 0);
    assert_eq!(lines[0], r#"{"ok":true}"#);
    assert!(lines[1].contains(r#""stage":"envelope""#));
}

/// Without the feature, Agent Connect's frames are a usage error that names it.
#[cfg(not(feature = "connect"))]
#[test]
fn connect_needs_its_feature() {
    assert_eq!(run(&["connect", "client"], "{}\n").0, 2);
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["agent", "payload", "chat.nope"], "{}\n").0, 2);
    assert_eq!(run(&["agent", "payload"], "{}\n").0, 2);
    assert_eq!(run(&["agent", "request", "chat.list"], "{}\n").0, 2);
    assert_eq!(run(&["agent", "teleport"], "{}\n").0, 2);
    assert_eq!(run(&["connect", "request"], "{}\n").0, 2);
    assert_eq!(run(&["mqtt", "client"], "{}\n").0, 2);
}

#[cfg(feature = "connect")]
#[test]
fn malformed_lines_each_get_a_verdict() {
    // Broken JSON, not JSON, invalid UTF-8, CRLF, a blank line, an unknown frame, no final
    // newline: seven lines, seven verdicts.
    let input = b"{\"frame\":\"ping\",\"ts\":1}\n{\"frame\":\nnot json\n\xff\xfe\r\n\n{\"frame\":\"pong\",\"ts\":2}\r\n{\"frame\":\"teleport\"}";
    let (code, lines) = run_bytes(&["connect", "client"], input);
    assert_eq!(code, 0);
    let oks: Vec<bool> = lines
        .iter()
        .map(|l| l.starts_with(r#"{"ok":true}"#))
        .collect();
    assert_eq!(
        oks,
        [true, false, false, false, false, true, false],
        "{lines:?}"
    );
    for l in lines.iter().filter(|l| !l.starts_with(r#"{"ok":true}"#)) {
        assert!(l.contains(r#""stage":"envelope""#), "{l}");
    }
}

#[cfg(feature = "connect")]
#[test]
fn a_leading_byte_order_mark_is_dropped_as_text_decoder_drops_it() {
    let input =
        "\u{feff}{\"frame\":\"ping\",\"ts\":1}\n\u{feff}\u{feff}{\"frame\":\"ping\",\"ts\":1}\n";
    let (code, lines) = run(&["connect", "client"], input);
    assert_eq!(code, 0);
    assert_eq!(lines[0], r#"{"ok":true}"#);
    assert!(
        lines[1].starts_with(r#"{"ok":false,"stage":"envelope""#),
        "{}",
        lines[1]
    );
}

#[test]
fn a_type_outside_the_tables_is_checked_by_its_name() {
    let input = concat!(
        r#"{"taskId":"t","title":"x","state":"running","subagents":[],"updatedAt":1}"#,
        "\n",
        r#"{"taskId":"","title":"x","state":"running","subagents":[],"updatedAt":1}"#,
        "\n",
    );
    let (code, lines) = run(&["agent", "type", "TaskChangedEvent"], input);
    assert_eq!(code, 0);
    assert_eq!(lines[0], r#"{"ok":true}"#);
    assert!(
        lines[1].starts_with(r#"{"ok":false,"stage":"table","message":"#)
            && lines[1].contains("taskId"),
        "{}",
        lines[1]
    );
    // A type a table entry reaches is checked by its name too, as the package's schema of
    // the same name checks it.
    let (code, lines) = run(&["agent", "type", "ChatInfo"], "{}\n\"x\"\n");
    assert_eq!(code, 0);
    assert!(
        lines[0].starts_with(r#"{"ok":false,"stage":"table","message":"#)
            && lines[0].contains("id"),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains("expected object"), "{}", lines[1]);
    // An alias has no reader of its own; an unknown name is a usage error.
    let (code, _) = run(&["agent", "type", "ChatId"], "\"c\"\n");
    assert_eq!(code, 2);
    assert_eq!(run(&["agent", "type", "NoSuchType"], "{}\n").0, 2);
    assert_eq!(run(&["agent", "type"], "{}\n").0, 2);
}

#[test]
fn bytes_that_are_not_utf8_are_read_as_u_fffd() {
    // As the ports and a JavaScript host's TextDecoder read them (docs/wire-semantics.md):
    // each bad byte is one U+FFFD, one code point toward a string's limit.
    let cursor = |n: usize| {
        let mut line =
            b"{\"id\":\"1\",\"type\":\"chat.history\",\"payload\":{\"chatId\":\"c\",\"cursor\":\""
                .to_vec();
        line.extend(std::iter::repeat_n(0xff, n));
        line.extend_from_slice(b"\"}}\n");
        line
    };
    let mut input = b"{\"id\":\"\xff\",\"type\":\"chat.list\",\"payload\":{}}\n".to_vec();
    input.extend(cursor(128));
    input.extend(cursor(129));
    input.extend_from_slice(b"{\"id\":\"\xc3\",\"type\":\"chat.\xe9\",\"payload\":{}}\n");
    let (code, lines) = run_bytes(&["agent", "request"], &input);
    assert_eq!(code, 0);
    assert_eq!(lines[0], r#"{"ok":true}"#);
    assert_eq!(lines[1], r#"{"ok":true}"#);
    assert_eq!(
        lines[2],
        r#"{"ok":false,"stage":"table","message":"✖ Too big: expected string to have <=128 characters\n  → at cursor"}"#
    );
    assert_eq!(
        lines[3],
        r#"{"ok":false,"stage":"table","message":"no table entry is called \"chat.\ufffd\""}"#
            .replace("\\ufffd", "\u{fffd}")
    );
}

/// MCP and ACP messages of either side (features `mcp`, `acp`): a verdict each, and with
/// `--echo` the value as the generated types write it back; a batch is refused.
#[cfg(all(feature = "mcp", feature = "acp"))]
#[test]
fn json_rpc_messages_with_their_echo() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
        "\n",
    );
    let (code, lines) = run(&["mcp", "message", "--echo"], input);
    assert_eq!(code, 0);
    assert_eq!(
        lines[0],
        r#"{"ok":true,"value":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}}"#
    );
    assert_eq!(
        lines[1],
        r#"{"ok":true,"value":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    );
    assert!(
        lines[2].contains("MCP 2025-11-25 has no batches"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with(r#"{"ok":false,"stage":"table","message":"#),
        "{}",
        lines[3]
    );
    let (code, lines) = run(
        &["acp", "message"],
        r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#,
    );
    assert_eq!(
        (code, lines.as_slice()),
        (0, [r#"{"ok":true}"#.to_owned()].as_slice())
    );
    let (code, lines) = run(
        &["acp", "result", "session/new", "--echo"],
        r#"{"sessionId":"s"}"#,
    );
    assert_eq!(code, 0);
    assert_eq!(lines[0], r#"{"ok":true,"value":{"sessionId":"s"}}"#);
    // Usage errors: a TYPE for a message, an unknown method, --echo for agent.
    assert_eq!(run(&["mcp", "message", "ping"], "").0, 2);
    assert_eq!(run(&["acp", "payload", "no/such"], "").0, 2);
    assert_eq!(run(&["agent", "request", "--echo"], "").0, 2);
}
