//! Helpers for the examples' end-to-end tests that drive a node client against a Rust server
//! (`examples/*/tests/`): find the workspace, skip when `node` is missing, install and build an
//! npm package when it is not yet, start a server binary and read its address, wait for a
//! process with a time limit, run `node --test` checking its TAP summary, read a process's
//! memory and CPU time from `/proc`, and a full disk ([`SmallDisk`]: a tmpfs filled to its
//! last page).
//!
//! ```no_run
//! use std::time::Duration;
//! use test_support::{Build, has, node_test, prepare, root, start};
//!
//! if !has("node") {
//!     eprintln!("SKIPPED: node is not installed");
//!     return;
//! }
//! let root = root();
//! prepare(&root.join("bindings/agent-contracts"), Build::WhenMissing);
//! let client = root.join("examples/agent-host/client-test");
//! prepare(&client, Build::WhenMissing);
//! let (server, url) = start("path/to/agent-host", &["--addr", "127.0.0.1:0"]);
//! let report = node_test(&client, &["dist/test/"], &[("AGENT_HOST_URL", &url)], Duration::from_secs(120));
//! assert!(report.contains("# pass 1"));
//! drop(server);
//! ```

mod disk;

pub use disk::SmallDisk;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The workspace's root directory.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether `program --version` runs and succeeds: a test skips, saying so, when `node` is not.
pub fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `npm <args>` in `dir`, panicking, with the command and the directory, when it fails.
pub fn npm(dir: &Path, args: &[&str]) {
    let status = Command::new("npm")
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap_or_else(|e| panic!("cannot run npm in {}: {e}", dir.display()));
    assert!(
        status.success(),
        "`npm {}` failed in {}",
        args.join(" "),
        dir.display()
    );
}

/// When [`prepare`] runs `npm run build`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// Only when the package has no `dist` yet (a package other tests build too).
    WhenMissing,
    /// Every time (the client under test, so it is never stale).
    Always,
}

/// Installs the repository's npm workspaces (every package `dir` may be) from the root's
/// lock file when they are not yet (`npm ci` at the root, its `prepare` scripts left to the
/// builds), then builds `dir` as `build` says (`npm run build`). Prepare packages in
/// dependency order.
pub fn prepare(dir: &Path, build: Build) {
    let root = root();
    if !root.join("node_modules").exists() {
        npm(
            &root,
            &["ci", "--no-audit", "--no-fund", "--ignore-scripts"],
        );
    }
    if build == Build::Always || !dir.join("dist").exists() {
        npm(dir, &["run", "build"]);
    }
}

/// A child process killed (and reaped) when this is dropped, the test passing or not.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a server binary whose first line on stdout is `listening on <url>`, and answers it
/// (killed when dropped) with that url. Panics when it does not start or says something else.
pub fn start(program: &str, args: &[&str]) -> (KillOnDrop, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("the server binary {program} does not start: {e}"));
    let stdout = child.stdout.take().expect("piped stdout");
    let server = KillOnDrop(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the server prints its address");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned();
    (server, url)
}

/// A server started by [`start_watched`]: the process (killed when dropped), its url, the
/// lines it printed on stdout after the first, and everything it printed on stderr so far.
pub struct Watched {
    /// The process.
    pub server: KillOnDrop,
    /// The url of its first line, `listening on <url>`.
    pub url: String,
    /// The lines after the first, as they come.
    pub lines: std::sync::mpsc::Receiver<String>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Watched {
    /// What the server printed on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Everything the server printed on stderr, once it holds `needle`: waits at most
    /// `limit` (stderr is read by a thread of the test's, so a line the server wrote before it
    /// answered may come a moment after the answer); panics with the log when it never does.
    pub fn said(&self, needle: &str, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let said = self.stderr();
            if said.contains(needle) {
                return said;
            }
            if Instant::now() > deadline {
                panic!("the log never said {needle:?}:\n{said}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The next line on stdout after the first, within `limit`.
    pub fn next_line(&self, limit: Duration) -> Option<String> {
        self.lines.recv_timeout(limit).ok()
    }
}

/// Like [`start`], with stdout and stderr read on threads of their own (a test looks at what
/// the server said), and with at most `nofile` file descriptors when given (`ulimit -n`, so
/// a test can make the server run out of them).
pub fn start_watched(program: &str, args: &[&str], nofile: Option<u32>) -> Watched {
    let mut command = match nofile {
        Some(n) => {
            let mut sh = Command::new("sh");
            sh.arg("-c")
                .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                .arg(program)
                .args(args);
            sh
        }
        None => {
            let mut direct = Command::new(program);
            direct.args(args);
            direct
        }
    };
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("the server binary {program} does not start: {e}"));
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let server = KillOnDrop(child);
    let said = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let into = said.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let mut said = into
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            said.push_str(&line);
            said.push('\n');
        }
    });
    let mut stdout = BufReader::new(stdout);
    let mut line = String::new();
    stdout
        .read_line(&mut line)
        .expect("the server prints its address");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| {
            panic!(
                "unexpected first line: {line:?}; stderr: {}",
                said.lock().map(|s| s.clone()).unwrap_or_default()
            )
        })
        .to_owned();
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    Watched {
        server,
        url,
        lines,
        stderr: said,
    }
}

/// Waits for a child at most `limit`, killing it after: its exit status, or `None` when it
/// ran out of time.
pub fn wait(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
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
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Reads a child's pipe to its end on a thread of its own (so neither pipe fills and blocks).
fn drain(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_string(&mut text);
        }
        text
    })
}

/// Runs `node --test <args>` in `dir` with the variables `env` (how the tests find the server),
/// killing it after `limit`, and answers its TAP report (stdout).
///
/// Panics, with the report and stderr, unless node exits successfully within `limit` and the
/// summary says `# skipped 0` (every test ran). A caller checks more of the summary (`# pass N`)
/// on the report.
pub fn node_test(dir: &Path, args: &[&str], env: &[(&str, &str)], limit: Duration) -> String {
    let mut run = Command::new("node")
        .arg("--test")
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let stdout = drain(run.stdout.take());
    let stderr = drain(run.stderr.take());
    let status = wait(&mut run, limit);
    let report = stdout.join().unwrap_or_default();
    let errors = stderr.join().unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "node --test failed in {} ({status:?}):\n{report}\n{errors}",
        dir.display()
    );
    assert!(
        report.contains("# skipped 0"),
        "not every node test ran in {}:\n{report}",
        dir.display()
    );
    report
}

/// A memory figure of a process in bytes, from `/proc/PID/status` (Linux): `VmRSS` (resident
/// now), `VmHWM` (the peak resident).
pub fn memory(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/status: {e}"));
    let line = status
        .lines()
        .find(|l| {
            l.strip_prefix(field)
                .is_some_and(|rest| rest.starts_with(':'))
        })
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"));
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a number of kB");
    kib * 1024
}

/// The CPU time a process used so far, user and system, in clock ticks (`utime + stime` of
/// `/proc/PID/stat`; 100 a second on Linux as built).
pub fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/stat: {e}"));
    // The fields after the command's name, which is in parentheses and may hold spaces.
    let after = &stat[stat.rfind(')').expect("(comm)") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are the 14th and 15th fields, the 12th and 13th after the name.
    let ticks = |i: usize| fields[i].parse::<u64>().expect("a number of ticks");
    ticks(11) + ticks(12)
}
