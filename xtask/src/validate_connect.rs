//! `cargo xtask validate --protocol connect --as client|server`: reads JSON lines on stdin and
//! writes one verdict line per input line, `{"ok":true}` or
//! `{"ok":false,"stage":"envelope","message":"..."}`. A malformed line (not JSON, not UTF-8)
//! gets its refusal and never stops the rest. Each verdict is flushed as it is written, so a
//! caller may feed one line at a time.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use contracts::connect::{Side, verdict_line};

/// Runs the connect validator on stdin and stdout. Exits 0 when every line got its verdict,
/// 2 for a usage error (an unknown `--as`, or a `--type`: connect frames have no table), 1
/// when stdin or stdout failed.
pub fn connect(kind: &str, type_name: Option<&str>) -> ExitCode {
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    match connect_with(kind, type_name, stdin, stdout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("xtask validate: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Io(e)) => {
            eprintln!("xtask validate: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Why the validator stopped.
#[derive(Debug)]
pub enum Failure {
    /// The command line was wrong; nothing was read.
    Usage(String),
    /// Reading or writing failed.
    Io(io::Error),
}

/// The validator over any reader and writer.
pub fn connect_with<R: BufRead, W: Write>(
    kind: &str,
    type_name: Option<&str>,
    mut input: R,
    mut output: W,
) -> Result<(), Failure> {
    let side = Side::from_name(kind).ok_or_else(|| {
        Failure::Usage(format!(
            "--as {kind}: the connect protocol takes --as client or --as server"
        ))
    })?;
    if let Some(name) = type_name {
        return Err(Failure::Usage(format!(
            "--type {name}: connect frames are checked whole; use --as client or --as server without --type"
        )));
    }
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line).map_err(Failure::Io)? == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        writeln!(output, "{}", verdict_line(side, text)).map_err(Failure::Io)?;
        output.flush().map_err(Failure::Io)?;
    }
}
