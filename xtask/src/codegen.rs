//! `cargo xtask codegen`.
use std::path::Path;
use std::process::ExitCode;
pub fn run(_root: &Path, _check: bool) -> ExitCode { todo!() }
