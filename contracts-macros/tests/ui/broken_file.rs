contracts_macros::protocol! { dir: "broken-file" }

fn main() {}
