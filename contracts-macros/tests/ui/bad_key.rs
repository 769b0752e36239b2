contracts_macros::protocol! { dir: "unknown-type", color: "blue" }

fn main() {}
