//! `cargo xtask validate --as KIND [--type NAME] [--protocol NAME]`: reads JSON lines on stdin
//! and writes one verdict line each.
//!
//! The verdicts come from the project's generated Rust, so a binary of the project gives them
//! (this repository's `contracts-validate`; an app's own, over its composed tables). The xtask
//! runs it with `cargo run` in the checkout, stdin and stdout passed through, and stays light:
//! it never compiles the generated protocols itself.

use std::path::Path;
use std::process::{Command, ExitCode};

/// The binary that judges lines: `cargo run --package PACKAGE --bin BIN -- [PROTOCOL] KIND [TYPE]`.
#[derive(Clone, Debug)]
pub struct Validator {
    pub package: String,
    pub bin: String,
    /// Whether the binary takes the protocol's name as its first argument (one binary for
    /// several protocols).
    pub takes_protocol: bool,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The protocol, when the project's validator judges several.
    #[arg(long)]
    pub protocol: Option<String>,
    /// What each line is: request|server|payload|result|event|type for an agent-shaped
    /// protocol, client|server for connect.
    #[arg(long = "as", value_name = "KIND")]
    pub kind: String,
    /// The request or event name for payload, result and event; a type's name for type.
    #[arg(long = "type", value_name = "NAME")]
    pub type_name: Option<String>,
}

pub fn run(root: &Path, validator: Option<&Validator>, args: Args) -> ExitCode {
    let Some(v) = validator else {
        eprintln!(
            "xtask validate: this project's xtask names no validator binary (Project::validator)"
        );
        return ExitCode::from(2);
    };
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root).args([
        "run",
        "--quiet",
        "--package",
        &v.package,
        "--bin",
        &v.bin,
        "--",
    ]);
    match (&args.protocol, v.takes_protocol) {
        (Some(p), true) => {
            cmd.arg(p);
        }
        (None, true) => {
            eprintln!("xtask validate: --protocol is required (the validator judges several)");
            return ExitCode::from(2);
        }
        (Some(_), false) => {
            eprintln!(
                "xtask validate: this project's validator judges one protocol; leave out --protocol"
            );
            return ExitCode::from(2);
        }
        (None, false) => {}
    }
    cmd.arg(&args.kind);
    if let Some(t) = &args.type_name {
        cmd.arg(t);
    }
    match cmd.status() {
        Ok(status) => ExitCode::from(status.code().map_or(1, |c| c.clamp(0, 255) as u8)),
        Err(e) => {
            eprintln!("xtask validate: could not run cargo: {e}");
            ExitCode::from(2)
        }
    }
}
