//! The sample client `write-and-catch-up` (TypeScript, node) against the real server binary.
//!
//! Skipped, saying so, only when `node` is missing. The client and the package it uses are
//! installed and built when they are not yet: `npm ci` and `npm run build` in
//! `bindings/connect-frames` (when its `node_modules` or `dist` is missing), then in
//! `examples/connect-server/client`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn npm(dir: &Path, args: &[&str]) {
    let status = Command::new("npm")
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap_or_else(|e| panic!("cannot run npm in {}: {e}", dir.display()));
    assert!(
        status.success(),
        "`npm {}` failed in {}",
        args.join(" "),
        dir.display()
    );
}

/// Installs and builds a package when it is not yet.
fn prepare(dir: &Path, always_build: bool) {
    if !dir.join("node_modules").exists() {
        npm(dir, &["ci", "--no-audit", "--no-fund"]);
    }
    if always_build || !dir.join("dist").exists() {
        npm(dir, &["run", "build"]);
    }
}

/// Kills the server when the test ends, passing or not.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn write_and_catch_up_against_the_reference_server() {
    if !has("node") {
        eprintln!("SKIPPED write_and_catch_up: node is not installed (CI has node 20)");
        return;
    }
    let root = root();
    prepare(&root.join("bindings/connect-frames"), false);
    let client = root.join("examples/connect-server/client");
    prepare(&client, true);

    let mut child = Command::new(env!("CARGO_BIN_EXE_connect-server"))
        .args(["--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server binary starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the server prints its address");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned();

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

/// Waits for a child at most `limit`, killing it after.
fn wait(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
