// The agent's schema directory comes from CONTRACTS_SCHEMA_AGENT, which no build script set.
contracts_macros::protocol! {
    name: "app",
    dir: "app-unknown-type",
    extends: { agent: ::contracts::agent },
}

fn main() {}
