//! Compile-fail tests of `protocol!`: every macro error, with its `.stderr`.
//! Update the expected output with `TRYBUILD=overwrite cargo test -p adecore-contracts-macros --test ui`.
//!
//! The schema directories sit beside the cases, outside the project trybuild builds them in:
//! their paths are absolute in the messages, which trybuild writes as `$DIR/...` (this crate)
//! and `$WORKSPACE/...` (the agent's schema).

#[test]
fn ui() {
    // `app_no_base_dir` needs the agent's directory left unset, as in a crate without the
    // build script that sets it.
    // SAFETY: no other thread of this test binary reads the environment at this point.
    unsafe { std::env::remove_var("CONTRACTS_SCHEMA_AGENT") };
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
