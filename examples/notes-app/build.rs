//! Tells `protocol!` where the agent schema is, and rebuilds when a schema file is added or
//! removed. The runtime crate publishes its schema directory as build metadata (its
//! `links = "contracts"`), which cargo hands to this script as `DEP_CONTRACTS_SCHEMA_AGENT`.

fn main() {
    let agent = std::env::var("DEP_CONTRACTS_SCHEMA_AGENT")
        .expect("adecore-contracts publishes its schema directory (DEP_CONTRACTS_SCHEMA_AGENT)");
    println!("cargo::rustc-env=CONTRACTS_SCHEMA_AGENT={agent}");
    println!("cargo::rerun-if-changed=schema");
}
