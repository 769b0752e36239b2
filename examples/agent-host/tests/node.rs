//! The node client in `client-test/` (the TypeScript package `@adecore/agent-contracts`, its
//! typed client and ChatThread over a `ws` FramePort) against the real `agent-host` binary:
//! attach, send, receive events, reconnect with `since`. The client presents the token the host
//! wrote to its data directory, as `Authorization: Bearer`.
//!
//! Skipped, saying so, only when `node` is missing. `cargo xtask test` installs and builds the
//! packages first; run alone, this test does so when they are not yet: `npm ci` at the root
//! (when its `node_modules` is missing), `npm run build` in `bindings/agent-contracts` (when
//! its `dist` is missing), then in `examples/agent-host/client-test`.

use std::time::Duration;
use test_support::{Build, has, node_test, prepare, root, start};

#[test]
fn the_node_client_attaches_sends_and_reconnects_with_since() {
    if !has("node") {
        eprintln!("SKIPPED agent-host node end to end: node is not installed");
        return;
    }
    let root = root();
    prepare(&root.join("bindings/agent-contracts"), Build::WhenMissing);
    let client = root.join("examples/agent-host/client-test");
    prepare(&client, Build::WhenMissing);

    let data = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("agent-host-node");
    let _ = std::fs::remove_dir_all(&data);
    let (host, url) = start(
        env!("CARGO_BIN_EXE_agent-host"),
        &[
            "--addr",
            "127.0.0.1:0",
            "--delta-delay-ms",
            "1",
            "--data-dir",
            data.to_str().expect("a UTF-8 path"),
        ],
    );
    let token = std::fs::read_to_string(data.join("token")).expect("the token file");
    let report = node_test(
        &client,
        &["dist/test/"],
        &[("AGENT_HOST_URL", &url), ("AGENT_HOST_TOKEN", token.trim())],
        Duration::from_secs(120),
    );
    assert!(
        report.contains("# pass 1"),
        "the node test did not run:\n{report}"
    );
    drop(host);
}
