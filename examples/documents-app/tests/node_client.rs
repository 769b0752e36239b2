//! The node client (`client/`, the app's TypeScript package over `ws`) against the Rust host:
//! it calls `chat.create`, `chat.list`, `document.write`, `document.read` and
//! `document.attachToChat`, and receives `chat.status` and `document.changed`.
//!
//! Skipped, saying so, only when `node` is missing. Each package is installed from its lock
//! file when its `node_modules` is missing (`npm ci`), then built, in dependency order:
//! `bindings/agent-contracts` (built only when its `dist` is missing), then
//! `examples/documents-app/bindings/documents-contracts`, then `examples/documents-app/client`.

use documents_app::{App, PATH, listen};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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

/// Installs a package from its lock file when it is not yet, and builds it.
fn prepare(dir: &Path, always_build: bool) {
    if !dir.join("node_modules").exists() {
        npm(dir, &["ci", "--no-audit", "--no-fund"]);
    }
    if always_build || !dir.join("dist").exists() {
        npm(dir, &["run", "build"]);
    }
}

#[test]
fn the_node_client_talks_to_the_rust_host() {
    if !has("node") {
        eprintln!("SKIPPED node_client: node is not installed (CI has node 20)");
        return;
    }
    let root = root();
    prepare(&root.join("bindings/agent-contracts"), false);
    let app = root.join("examples/documents-app");
    prepare(&app.join("bindings/documents-contracts"), true);
    prepare(&app.join("client"), true);

    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let url = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(listen(App::new(), listener));
        format!("ws://{addr}{PATH}")
    });
    let output = Command::new("node")
        .args(["--test", "--test-timeout=30000", "dist/test/"])
        .env("DOCUMENTS_URL", &url)
        .current_dir(app.join("client"))
        .output()
        .expect("node starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "node --test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("# skipped 0"),
        "every node test ran:\n{stdout}"
    );
    drop(runtime);
}
