//! `cargo xtask conformance [--scenario NAME]... [--suite active|pending|all]`: the official
//! MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `tests/conformance/package-lock.json`) against `examples/mcp-server` over Streamable HTTP.
//!
//! 1. `npm ci` in `tests/conformance` when it has no `node_modules` yet;
//! 2. `cargo build -p mcp-server`, the binary's path read off cargo's artifact messages;
//! 3. the server started as `mcp-server --http 127.0.0.1:0`, its URL read off its first line
//!    (`listening on http://HOST:PORT/mcp`), its log written to
//!    `<target>/conformance/mcp-server.log`;
//! 4. the suite's `server` command run against the URL: every scenario of the suite (the
//!    active one unless told), judged against `tests/conformance/expected-failures.yml`: the
//!    run fails on a scenario that fails and is not listed, and on one listed that passes;
//!    every listed scenario must give its reason on its line;
//! 5. the server killed, the run passing or not.
//!
//! Each child runs under a time limit ([`START_LIMIT`], [`SUITE_LIMIT`]) and is killed after
//! it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The suite's directory, from the workspace root.
pub const DIR: &str = "tests/conformance";

/// The scenarios the server is allowed to fail, each with its reason.
const EXPECTED_FAILURES: &str = "expected-failures.yml";

/// The suite's command line, inside its package.
const SUITE_BIN: &str = "node_modules/@modelcontextprotocol/conformance/dist/index.js";

/// How long the server has to print its URL.
const START_LIMIT: Duration = Duration::from_secs(30);

/// How long the whole suite may run (about 30 scenarios of a second or two each).
const SUITE_LIMIT: Duration = Duration::from_secs(600);

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Run only this scenario (a name from `npx conformance list --server`); may be repeated.
    #[arg(long, value_name = "NAME")]
    scenario: Vec<String>,
    /// The suite to run when no scenario is named: `active` (what CI runs), `pending` or
    /// `all`.
    #[arg(long, default_value = "active")]
    suite: String,
}

pub fn run(root: &Path, args: Args) -> Result<(), String> {
    conformance(root, &args)
}

fn conformance(root: &Path, args: &Args) -> Result<(), String> {
    let dir = root.join(DIR);
    let listed = expected_failures(&dir.join(EXPECTED_FAILURES))?;
    install(&dir)?;
    let binary = build(root)?;
    let log = target_dir(root).join("conformance");
    std::fs::create_dir_all(&log).map_err(|e| format!("cannot make {}: {e}", log.display()))?;
    let log = log.join("mcp-server.log");
    let (server, url) = start(&binary, &log)?;
    eprintln!(
        "conformance: mcp-server at {url}, its log in {}",
        log.display()
    );
    let runs = suite_runs(args, &url);
    let mut failed = Vec::new();
    for run in &runs {
        eprintln!("conformance: node {SUITE_BIN} {}", run.join(" "));
        let mut child = Command::new("node")
            .arg(SUITE_BIN)
            .args(run)
            .current_dir(&dir)
            .spawn()
            .map_err(|e| format!("cannot start node: {e}"))?;
        match wait(&mut child, SUITE_LIMIT) {
            Some(status) if status.success() => {}
            Some(status) => failed.push(format!("`{}` failed ({status})", run.join(" "))),
            None => failed.push(format!(
                "`{}` ran out of time ({}s)",
                run.join(" "),
                SUITE_LIMIT.as_secs()
            )),
        }
    }
    drop(server);
    if !listed.is_empty() {
        eprintln!(
            "conformance: {} scenario(s) listed as expected failures in {DIR}/{EXPECTED_FAILURES}:",
            listed.len()
        );
        for (name, reason) in &listed {
            eprintln!("    {name}: {reason}");
        }
    }
    if failed.is_empty() {
        eprintln!("conformance: passed; the server's log is {}", log.display());
        Ok(())
    } else {
        Err(format!(
            "{}; the server's log is {}",
            failed.join("; "),
            log.display()
        ))
    }
}

/// The suite's command lines: one per named scenario, else the whole suite, each judged
/// against the expected failures.
fn suite_runs(args: &Args, url: &str) -> Vec<Vec<String>> {
    let common = |mut run: Vec<String>| {
        run.splice(
            0..0,
            ["server".to_owned(), "--url".to_owned(), url.to_owned()],
        );
        run.extend([
            "--expected-failures".to_owned(),
            EXPECTED_FAILURES.to_owned(),
        ]);
        run
    };
    if args.scenario.is_empty() {
        vec![common(vec!["--suite".to_owned(), args.suite.clone()])]
    } else {
        args.scenario
            .iter()
            .map(|s| common(vec!["--scenario".to_owned(), s.clone()]))
            .collect()
    }
}

/// The scenarios listed under `server:` in the expected-failures file, each with the reason
/// its line gives after `#`; a listed scenario without a reason is an error.
fn expected_failures(path: &Path) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_expected_failures(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn parse_expected_failures(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut section = None;
    for (i, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("").trim_end();
        if content.trim().is_empty() {
            continue;
        }
        if !content.starts_with([' ', '-']) {
            section = Some(content.trim_end_matches(':').trim().to_owned());
            continue;
        }
        let Some(name) = content.trim().strip_prefix("- ") else {
            return Err(format!("line {}: not a list item: {line:?}", i + 1));
        };
        if section.as_deref() != Some("server") {
            continue;
        }
        let reason = line.split_once('#').map(|(_, r)| r.trim()).unwrap_or("");
        if reason.is_empty() {
            return Err(format!(
                "line {}: scenario {name} is listed without its reason (`- {name}  # why`)",
                i + 1
            ));
        }
        out.push((name.trim().to_owned(), reason.to_owned()));
    }
    Ok(out)
}

/// `npm ci` in the suite's package when it has no `node_modules`.
pub(crate) fn install(dir: &Path) -> Result<(), String> {
    if dir.join("node_modules").exists() {
        return Ok(());
    }
    eprintln!("conformance: npm ci in {}", dir.display());
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .status()
        .map_err(|e| format!("cannot start npm: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`npm ci` failed ({status}) in {}", dir.display()))
    }
}

/// Builds `mcp-server` and answers its binary's path, as cargo reports it.
fn build(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("conformance: cargo build -p mcp-server");
    let out = Command::new(cargo)
        .args([
            "build",
            "-p",
            "mcp-server",
            "--bin",
            "mcp-server",
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`cargo build -p mcp-server` failed ({})",
            out.status
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "mcp-server")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo reported no mcp-server binary".to_owned())
}

/// The cargo target directory: `CARGO_TARGET_DIR`, or the workspace's `target/`.
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => root.join(d),
        None => root.join("target"),
    }
}

/// A child killed (and reaped) when dropped.
pub(crate) struct KillOnDrop(pub(crate) Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the server on a free port of 127.0.0.1, its stderr into `log`, and answers it with
/// the URL of its first line.
fn start(binary: &Path, log: &Path) -> Result<(KillOnDrop, String), String> {
    let mut command = Command::new(binary);
    command.args(["--http", "127.0.0.1:0"]);
    start_listening(command, "mcp-server", log)
}

/// Starts `command`, a server whose first line on stdout is `listening on URL`, its stderr
/// into `log`: the child, killed when dropped, and the URL. `what` names it in errors.
pub(crate) fn start_listening(
    mut command: Command,
    what: &str,
    log: &Path,
) -> Result<(KillOnDrop, String), String> {
    let stderr =
        std::fs::File::create(log).map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {what}: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let server = KillOnDrop(child);
    let (send, first) = mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        let _ = send.send(lines.next());
        // Read on, so the server never blocks on a full pipe.
        for _ in lines {}
    });
    let line = match first.recv_timeout(START_LIMIT) {
        Ok(Some(Ok(line))) => line,
        Ok(_) => {
            return Err(format!(
                "{what} exited before its URL; see {}",
                log.display()
            ));
        }
        Err(_) => {
            return Err(format!(
                "{what} printed no URL within {}s; see {}",
                START_LIMIT.as_secs(),
                log.display()
            ));
        }
    };
    let url = line
        .strip_prefix("listening on ")
        .ok_or_else(|| format!("{what}'s first line is not `listening on URL`: {line:?}"))?;
    Ok((server, url.trim().to_owned()))
}

/// Waits for `child` at most `limit`, killing it after: its status, or `None` when it ran
/// out of time.
pub(crate) fn wait(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_failures_are_the_server_list_with_reasons() {
        let text =
            "# header\nserver:\n  - tools-call-audio  # no audio here\n\nclient:\n  - initialize\n";
        assert_eq!(
            parse_expected_failures(text).unwrap(),
            [("tools-call-audio".to_owned(), "no audio here".to_owned())]
        );
        assert_eq!(parse_expected_failures("server: []\n").unwrap(), []);
        assert_eq!(parse_expected_failures("# nothing\n").unwrap(), []);
        let without = parse_expected_failures("server:\n  - ping\n").unwrap_err();
        assert!(
            without.contains("ping is listed without its reason"),
            "{without}"
        );
        let garbage = parse_expected_failures("server:\n  ping\n").unwrap_err();
        assert!(garbage.contains("not a list item"), "{garbage}");
    }
}
