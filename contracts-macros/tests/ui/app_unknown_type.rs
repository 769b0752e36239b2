contracts_macros::protocol! {
    name: "app",
    dir: "app-unknown-type",
    extends: { agent: ::contracts::agent = "../../../schema/agent" },
}

fn main() {}
