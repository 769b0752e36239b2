contracts_macros::protocol! { dir: "no-such-dir" }

fn main() {}
