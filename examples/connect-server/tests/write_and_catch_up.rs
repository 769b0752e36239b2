//! The sample client `write-and-catch-up` (TypeScript, node) against the real server binary,
//! across a `kill -9` and a restart of the server.
//!
//! Skipped, saying so, only when `node` is missing. The repository's npm workspaces are
//! installed when they are not yet (`npm ci` at the root), the package the client uses built
//! when its `dist` is missing (`bindings/connect-frames`), and the client in
//! `examples/connect-server/client` built every time, so it is never stale.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{DataDir, server};
use test_support::{Build, has, prepare, root, wait};

/// Runs the client once with `state`; answers its output, panicking unless it succeeded.
fn client(dir: &Path, url: &str, state: &Path) -> String {
    let mut run = Command::new("node")
        .args(["dist/src/write-and-catch-up.js", "--url", url, "--state"])
        .arg(state)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .spawn()
        .expect("node starts");
    let mut out = run.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = out.read_to_string(&mut text);
        text
    });
    let status = wait(&mut run, Duration::from_secs(60));
    let text = reader.join().unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "write-and-catch-up failed: {status:?}\n{text}"
    );
    text
}

fn ready() -> Option<std::path::PathBuf> {
    if !has("node") {
        eprintln!("SKIPPED write_and_catch_up: node is not installed (CI has node 20)");
        return None;
    }
    let root = root();
    prepare(&root.join("bindings/connect-frames"), Build::WhenMissing);
    let client = root.join("examples/connect-server/client");
    prepare(&client, Build::Always);
    Some(client)
}

/// One test, so the npm builds of `ready` never run twice at once.
#[test]
fn write_and_catch_up_across_server_restarts() {
    let Some(dir) = ready() else { return };
    resumes_across_a_kill_9_and_restart(&dir);
    drops_a_cursor_a_restarted_memory_log_never_held(&dir);
}

fn resumes_across_a_kill_9_and_restart(dir: &Path) {
    let data = DataDir::new("wacu");
    let state = data.0.join("client-state.json");
    let log_dir = data.0.join("server");
    let log_dir = log_dir.display().to_string();
    let (first, url) = server(&["--data-dir", &log_dir]);
    client(dir, &url, &state);
    // SIGKILL: no clean shutdown step; what was acked must be in the file.
    drop(first);
    let (_second, url) = server(&["--data-dir", &log_dir]);
    let out = client(dir, &url, &state);
    assert!(out.contains("resumed from since"), "{out}");
    assert!(out.contains("write-and-catch-up: ok"), "{out}");
}

fn drops_a_cursor_a_restarted_memory_log_never_held(dir: &Path) {
    let data = DataDir::new("wacu-memory");
    let state = data.0.join("client-state.json");
    let (first, url) = server(&["--log", "memory"]);
    client(dir, &url, &state);
    drop(first);
    let (_second, url) = server(&["--log", "memory"]);
    let out = client(dir, &url, &state);
    assert!(out.contains("not_found"), "{out}");
    assert!(out.contains("write-and-catch-up: ok"), "{out}");
}
