contracts_macros::protocol! {
    name: "app",
    dir: "app-several-errors",
    extends: { agent: ::contracts::agent = "../../../schema/agent" },
}

fn main() {}
