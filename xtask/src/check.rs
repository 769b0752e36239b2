//! `cargo xtask check`.
use std::path::{Path, PathBuf};
use std::process::ExitCode;
pub fn run(_root: &Path, _dir: Option<PathBuf>, _bases: &[String]) -> ExitCode { todo!() }
