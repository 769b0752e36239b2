contracts_macros::protocol! {
    name: "app",
    dir: "app-redefined",
    extends: { agent: ::contracts::agent = "../../../schema/agent" },
}

fn main() {}
