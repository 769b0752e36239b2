//! The official ACP TypeScript SDK's client drives the real `acp-agent` binary over stdio:
//! `tests/acp-sdk/client.test.mjs` (`@agentclientprotocol/sdk` 2.4.0, pinned) runs under
//! `node --test` with the binary's path in `ACP_AGENT_BIN`, and every one of its tests must
//! pass: initialize, `session/new`, a prompt's plan, chunks, tool call, permission request and
//! file read in order, a refused permission, `session/cancel` while a prompt waits and while
//! permission is asked, `$/cancel_request` of a prompt (the SDK's `cancellationSignal`:
//! answered `cancelled`) and of a permission request the cancelled turn stops waiting for (the
//! SDK handler's signal aborts, -32800), and ACP's errors.
//!
//! Skipped, saying so, only when `node` is missing. `cargo xtask test` installs the package
//! first (step `npm-ci:tests/acp-sdk`); run alone, this test runs `npm ci` there when it has
//! no `node_modules` yet.

use std::time::Duration;
use test_support::{has, node_test, npm, root};

#[test]
fn the_sdk_client_drives_the_agent_over_stdio() {
    if !has("node") {
        eprintln!("SKIPPED acp-agent against the ACP SDK's client: node is not installed");
        return;
    }
    let dir = root().join("tests/acp-sdk");
    if !dir.join("node_modules").exists() {
        npm(&dir, &["ci", "--no-audit", "--no-fund"]);
    }
    let report = node_test(
        &dir,
        &["client.test.mjs"],
        &[("ACP_AGENT_BIN", env!("CARGO_BIN_EXE_acp-agent"))],
        Duration::from_secs(120),
    );
    assert!(
        report.contains("# pass 7") && report.contains("# fail 0"),
        "not every SDK client test passed:\n{report}"
    );
}
