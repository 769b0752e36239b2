//! Tells `protocol!` where the agent schema is and rebuilds the crate when the app's schema
//! directory changes (a new or removed file).
//!
//! `contracts` publishes its schema directory as build metadata (its `links = "contracts"`
//! and `cargo::metadata=schema_agent=DIR`); cargo hands it to this script, a direct dependent,
//! as `DEP_CONTRACTS_SCHEMA_AGENT`. The macro reads `CONTRACTS_SCHEMA_AGENT` at compile time.

fn main() {
    let agent = std::env::var("DEP_CONTRACTS_SCHEMA_AGENT")
        .expect("contracts publishes its schema directory (DEP_CONTRACTS_SCHEMA_AGENT)");
    println!("cargo::rustc-env=CONTRACTS_SCHEMA_AGENT={agent}");
    println!("cargo::rerun-if-changed=schema");
    println!("cargo::rerun-if-env-changed=DEP_CONTRACTS_SCHEMA_AGENT");
}
