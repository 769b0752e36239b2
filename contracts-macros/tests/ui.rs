//! Compile-fail tests of `protocol!`: every macro error, with its `.stderr`.
//! Update the expected output with `TRYBUILD=overwrite cargo test -p contracts-macros --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
