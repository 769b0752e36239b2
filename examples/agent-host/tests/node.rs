//! The node client in `client-test/` (the TypeScript package `@adecore/agent-contracts`, its
//! typed client and ChatThread over a `ws` FramePort) against the real `agent-host` binary:
//! attach, send, receive events, reconnect with `since`.
//!
//! Skipped, saying so, only when `node` is missing. `cargo xtask test` installs and builds the
//! packages first; run alone, this test does so when they are not yet: `npm ci` and
//! `npm run build` in `bindings/agent-contracts` (when its `node_modules` or `dist` is
//! missing), then in `examples/agent-host/client-test`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

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
fn prepare(dir: &Path) {
    if !dir.join("node_modules").exists() {
        npm(dir, &["ci", "--no-audit", "--no-fund"]);
    }
    if !dir.join("dist").exists() {
        npm(dir, &["run", "build"]);
    }
}

/// Kills the host when the test ends, passing or not.
struct Host(Child);

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits for a child at most `limit`, killing it after.
fn wait(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_node_client_attaches_sends_and_reconnects_with_since() {
    if !has("node") {
        eprintln!("SKIPPED agent-host node end to end: node is not installed");
        return;
    }
    let root = root();
    prepare(&root.join("bindings/agent-contracts"));
    let client = root.join("examples/agent-host/client-test");
    prepare(&client);

    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-host"))
        .args(["--addr", "127.0.0.1:0", "--delta-delay-ms", "1"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("the host binary starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let host = Host(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the host prints its address");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned();

    let mut run = Command::new("node")
        .args(["--test", "dist/test/"])
        .env("AGENT_HOST_URL", &url)
        .current_dir(&client)
        .stdout(Stdio::piped())
        .spawn()
        .expect("node starts");
    let output = run.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(output), &mut text);
        text
    });
    let status = wait(&mut run, Duration::from_secs(120));
    let report = reader.join().unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "the node client failed ({status:?}):\n{report}"
    );
    assert!(
        report.contains("# pass 1") && report.contains("# skipped 0"),
        "the node test did not run:\n{report}"
    );
    drop(host);
}
