//! `cargo xtask validate --protocol agent|connect --as KIND [--type NAME]`: reads JSON lines on
//! stdin and writes one verdict line each. The work is done by the `contracts-validate` binary
//! of the `contracts` crate, so xtask stays light (it never compiles the generated protocols).

use std::process::{Command, ExitCode};

#[derive(clap::Args)]
pub struct Args {
    /// The protocol: agent or connect.
    #[arg(long, value_parser = ["agent", "connect"])]
    protocol: String,
    /// What each line is: for agent request|server|payload|result|event|type, for connect
    /// client|server.
    #[arg(long = "as", value_name = "KIND")]
    kind: String,
    /// The request or event name, for the agent kinds payload, result and event; for type,
    /// the name of a type no table entry reaches (TaskChangedEvent).
    #[arg(long = "type", value_name = "NAME")]
    type_name: Option<String>,
}

pub fn run(args: Args) -> ExitCode {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args([
        "run",
        "--quiet",
        "--package",
        "contracts",
        "--bin",
        "contracts-validate",
        "--",
    ]);
    cmd.arg(&args.protocol).arg(&args.kind);
    if let Some(t) = &args.type_name {
        cmd.arg(t);
    }
    // stdin, stdout and stderr pass through.
    match cmd.status() {
        Ok(status) => ExitCode::from(status.code().map_or(1, |c| c.clamp(0, 255) as u8)),
        Err(e) => {
            eprintln!("xtask validate: could not run cargo: {e}");
            ExitCode::from(2)
        }
    }
}
