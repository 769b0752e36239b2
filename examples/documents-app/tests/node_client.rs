//! The node client (`client/`: the app's TypeScript package over the agent package's Node
//! WebSocket port, `@adecore/agent-contracts/node`) against the Rust host:
//! it calls `chat.create`, `chat.list`, `document.write`, `document.read` and
//! `document.attachToChat`, and receives `chat.status` and `document.changed`.
//!
//! Skipped, saying so, only when `node` is missing. The repository's npm workspaces are
//! installed from the root's lock file when they are not yet (`npm ci`), then each package is
//! built, in dependency order:
//! `bindings/agent-contracts` (built only when its `dist` is missing), then
//! `examples/documents-app/bindings/documents-contracts`, then `examples/documents-app/client`.

use documents_app::{App, PATH, listen};
use std::time::Duration;
use test_support::{Build, has, node_test, prepare, root};

#[test]
fn the_node_client_talks_to_the_rust_host() {
    if !has("node") {
        eprintln!("SKIPPED node_client: node is not installed (CI has node 20)");
        return;
    }
    let root = root();
    prepare(&root.join("bindings/agent-contracts"), Build::WhenMissing);
    let app = root.join("examples/documents-app");
    prepare(&app.join("bindings/documents-contracts"), Build::Always);
    prepare(&app.join("client"), Build::Always);

    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let url = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(listen(App::new(), listener));
        format!("ws://{addr}{PATH}")
    });
    // Two tests of at most 30 s each (--test-timeout), well within the limit.
    node_test(
        &app.join("client"),
        &["--test-timeout=30000", "dist/test/"],
        &[("DOCUMENTS_URL", &url)],
        Duration::from_secs(120),
    );
    drop(runtime);
}
