contracts_macros::protocol! { dir: "several-errors" }

fn main() {}
