contracts_macros::protocol! {
    name: "app",
    dir: "app-broken-file",
    extends: { agent: ::contracts::agent = "../../../schema/agent" },
}

fn main() {}
