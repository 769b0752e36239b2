contracts_macros::protocol! { dir: "unknown-type" }

fn main() {}
