//! The sample client `write-and-catch-up` (TypeScript, node) against the real server binary.
//!
//! Skipped, saying so, only when `node` is missing. The package the client uses is installed
//! and built when it is not yet: `npm ci` and `npm run build` in `bindings/connect-frames`
//! (when its `node_modules` or `dist` is missing); then the client in
//! `examples/connect-server/client` is installed when its `node_modules` is missing and built
//! every time, so it is never stale.

use std::process::Command;
use std::time::Duration;
use test_support::{Build, has, prepare, root, start, wait};

#[test]
fn write_and_catch_up_against_the_reference_server() {
    if !has("node") {
        eprintln!("SKIPPED write_and_catch_up: node is not installed (CI has node 20)");
        return;
    }
    let root = root();
    prepare(&root.join("bindings/connect-frames"), Build::WhenMissing);
    let client = root.join("examples/connect-server/client");
    prepare(&client, Build::Always);

    let (server, url) = start(
        env!("CARGO_BIN_EXE_connect-server"),
        &["--addr", "127.0.0.1:0"],
    );

    // Twice: a second run finds the first one's events in the log and still holds.
    for _ in 0..2 {
        let mut run = Command::new("node")
            .args(["dist/src/write-and-catch-up.js", "--url", &url])
            .current_dir(&client)
            .spawn()
            .expect("node starts");
        let status = wait(&mut run, Duration::from_secs(60));
        assert!(
            status.is_some_and(|s| s.success()),
            "write-and-catch-up failed: {status:?}"
        );
    }
    drop(server);
}
