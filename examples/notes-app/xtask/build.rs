//! Forwards the agent schema's directory, published by the runtime crate, to the xtask.

fn main() {
    let agent = std::env::var("DEP_CONTRACTS_SCHEMA_AGENT")
        .expect("adecore-contracts publishes its schema directory (DEP_CONTRACTS_SCHEMA_AGENT)");
    println!("cargo::rustc-env=CONTRACTS_SCHEMA_AGENT={agent}");
}
