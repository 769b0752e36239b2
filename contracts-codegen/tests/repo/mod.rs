//! The repository's own protocols, loaded as the tests that read them all need them: the
//! agent's, Agent Connect's, and the documents app's on the agent's.

use contracts_codegen::generate::Protocol;
use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The agent, Agent Connect and the documents app (whose base is the agent).
pub fn protocols() -> (Protocol, Protocol, Protocol) {
    let agent = Protocol::load("agent", root().join("schema/agent")).expect("agent");
    let connect = Protocol::load("connect", root().join("schema/connect")).expect("connect");
    let app = Protocol::load_with_bases(
        "documents",
        root().join("examples/documents-app/schema"),
        &[&agent],
    )
    .expect("documents");
    (agent, connect, app)
}
