//! `cargo xtask compat`.
use std::path::Path;
use std::process::ExitCode;
#[derive(clap::Args)]
pub struct Args {}
pub fn run(_root: &Path, _args: Args) -> ExitCode { todo!() }
