//! Publishes where this crate's schema directories are, for apps that extend a protocol, and
//! rebuilds the crate when a schema file is added or removed (`protocol!` includes every file
//! it reads, so an edit already rebuilds it).
//!
//! With `links = "contracts"` in the manifest, cargo hands this metadata to the build script
//! of every crate that depends on `contracts` directly, as `DEP_CONTRACTS_SCHEMA_AGENT`,
//! `DEP_CONTRACTS_SCHEMA_CONNECT`, `DEP_CONTRACTS_SCHEMA_MCP` and `DEP_CONTRACTS_SCHEMA_ACP`
//! (published whatever the features: a directory is only a path). An app's build script
//! forwards it to the macro:
//!
//! ```text
//! let dir = std::env::var("DEP_CONTRACTS_SCHEMA_AGENT").unwrap();
//! println!("cargo::rustc-env=CONTRACTS_SCHEMA_AGENT={dir}");
//! ```

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    for protocol in ["agent", "connect", "mcp", "acp"] {
        let dir = root.join("schema").join(protocol);
        // Absolute, with the `schema` link resolved where it is one.
        let dir = dir.canonicalize().unwrap_or(dir);
        println!("cargo::metadata=schema_{protocol}={}", dir.display());
    }
    println!("cargo::rerun-if-changed=schema");
    println!("cargo::rerun-if-changed=build.rs");
}
