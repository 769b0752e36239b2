//! The loop of a validator: one verdict line on stdout per line on stdin. Compiled into
//! `contracts-validate` and into every validator `cargo xtask validate` generates for an app's
//! protocol (contracts-xtask includes this file from the runtime's sources).

use contracts::verdict::Verdict;
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Reads stdin line by line and writes `judge`'s verdict on each as one line on stdout
/// ([`Verdict::to_line`]). One malformed line never stops the rest; each line is read as the
/// ports and a JavaScript host's `TextDecoder` read a frame ([`contracts::wire::text_of_bytes`]:
/// a leading byte order mark dropped, U+FFFD for bytes that are not UTF-8;
/// `docs/wire-semantics.md`); a trailing `\r` is dropped. An `Err` of `judge` is a usage
/// error: printed after `program`, exit 2. Exit 0 once stdin ends or the reader goes away, 1
/// when stdin cannot be read.
pub fn judge_lines(
    program: &str,
    mut judge: impl FnMut(&str) -> Result<Verdict, String>,
) -> ExitCode {
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match stdin.read_until(b'\n', &mut bytes) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("{program}: reading stdin: {e}");
                return ExitCode::FAILURE;
            }
        }
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        }
        let line = contracts::wire::text_of_bytes(&bytes);
        let verdict = match judge(&line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("{program}: {e}");
                return ExitCode::from(2);
            }
        };
        if writeln!(stdout, "{}", verdict.to_line())
            .and_then(|()| stdout.flush())
            .is_err()
        {
            // The reader went away.
            return ExitCode::SUCCESS;
        }
    }
    ExitCode::SUCCESS
}
