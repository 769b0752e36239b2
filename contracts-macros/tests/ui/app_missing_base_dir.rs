// The directory named for the base does not exist: the message says where it looked.
contracts_macros::protocol! {
    name: "app",
    dir: "app-unknown-type",
    extends: { agent: ::contracts::agent = "no-such-agent" },
}

fn main() {}
