contracts_macros::protocol! { dir: "missing-comma" }

fn main() {}
