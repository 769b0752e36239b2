//! `cargo xtask bench-mcp`: `tools/call` round trips per second, `examples/mcp-server` against
//! a server built with the official TypeScript SDK (`@modelcontextprotocol/sdk`, pinned in
//! `tests/conformance/package-lock.json`), over stdio and Streamable HTTP on 127.0.0.1, in one
//! run (docs/benchmarks.md, "MCP servers: tools/call round trips"). A benchmark: never a step
//! of `cargo xtask test`.
//!
//! 1. `npm ci` in `tests/conformance` when it has no `node_modules`; `cargo build --release`
//!    of the Rust driver, the example `mcp-bench-client`, then apart of the `mcp-server`
//!    binary (as a user builds it: without the dev-dependencies' features an example brings);
//! 2. one driver process per client, both speaking the line protocol of
//!    `examples/mcp-server/examples/mcp-bench-client.rs`: the generated Rust client
//!    (`mcp-bench-client`) and the SDK's `Client` (`tests/conformance/sdk/bench-client.mjs`);
//! 3. each driver connects to its own servers: over stdio it starts them itself
//!    (`mcp-server --stdio`, `node sdk/bench-server.mjs`); over HTTP this command starts them
//!    on free ports (`mcp-server --http 127.0.0.1:0`; `bench-server.mjs --http`, answers as
//!    event streams, the SDK's default; `--http --json`, answers as JSON, as ours gives a
//!    call that sends nothing else). Each driver initializes, finds the tool, calls it once;
//!    the results must be the same from every server, or nothing is measured;
//! 4. a warm-up of `--warmup` calls on each connection at each concurrency, not measured but
//!    for its second half's rate, which sets the connection's calls per turn: as many as take
//!    about `--turn` seconds (at least [`MIN_CALLS`], at most [`MAX_CALLS`]), fixed for the
//!    run, so a server 100 times faster is not measured over a turn 100 times shorter, more
//!    exposed to a hiccup of the machine (`--calls N` fixes every turn at N calls instead);
//! 5. `--rounds` rounds: in each, for each client, transport and concurrency, every server
//!    takes its turn, the order rotated by one server every round (each server comes first,
//!    in the middle and last as often), so that the servers compared are measured next to
//!    each other in time on a machine others share. Each turn's wall time, and the CPU time
//!    its server and its driver spent (`/proc/PID/stat`, Linux), is one sample;
//! 6. the report: per client, transport and concurrency, each server's median calls per
//!    second, the ratio ours / SDK (the median of each round's ratio, and every round's), CPU
//!    per call on both sides, with the machine's state (load before and after); the samples
//!    go to `<target>/bench-mcp/samples.json`.
//!
//! Every answer is awaited at most `--round-limit` seconds (the run fails and every child is
//! killed after it), and no round starts after `--time-limit`.

use crate::conformance::{self, KillOnDrop};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The tool every server is called with: the conformance suite's simplest fixture, no
/// arguments and one text block (`examples/mcp-server/src/tools.rs`; `bench-server.mjs`
/// registers the same).
const TOOL: &str = "test_simple_text";

/// The SDK's server, from the conformance package.
const SDK_SERVER: &str = "sdk/bench-server.mjs";

/// The SDK's driver, from the conformance package.
const SDK_DRIVER: &str = "sdk/bench-client.mjs";

/// The fewest and the most calls of a turn set from the warm-up.
const MIN_CALLS: usize = 100;
const MAX_CALLS: usize = 100_000;

/// How long a driver has to end after its stdin closes.
const CLOSE_LIMIT: Duration = Duration::from_secs(5);

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Measured rounds; each measures every server once per client, transport and
    /// concurrency.
    #[arg(long, default_value_t = 9)]
    rounds: usize,
    /// Every turn this many calls, instead of as many as last about `--turn` seconds.
    #[arg(long)]
    calls: Option<usize>,
    /// The seconds a turn should last: each connection's calls per turn are set from its
    /// warm-up's rate.
    #[arg(long, default_value_t = 1.0)]
    turn: f64,
    /// Calls per connection and concurrency before the rounds (JIT, caches); the second half's
    /// rate sets the calls per turn.
    #[arg(long, default_value_t = 1000)]
    warmup: usize,
    /// Calls in flight at a time, a list: each is measured.
    #[arg(long, value_delimiter = ',', default_value = "1,8")]
    concurrency: Vec<usize>,
    /// The clients that drive every server: `rust` (the generated client), `sdk` (the SDK's).
    #[arg(long, value_delimiter = ',', default_value = "rust,sdk")]
    clients: Vec<Client>,
    /// The transports: `stdio`, `http` (Streamable HTTP).
    #[arg(long, value_delimiter = ',', default_value = "stdio,http")]
    transports: Vec<Transport>,
    /// Seconds a driver may take to answer one command (a connection, a warm-up, a turn).
    #[arg(long, default_value_t = 120)]
    round_limit: u64,
    /// Seconds after which no new round starts (the report then says how many ran).
    #[arg(long, default_value_t = 1800)]
    time_limit: u64,
}

/// A client the servers are driven with.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Client {
    /// The generated Rust client over `contracts::rpc`.
    Rust,
    /// The SDK's `Client`.
    Sdk,
}

impl Client {
    fn name(self) -> &'static str {
        match self {
            Client::Rust => "rust",
            Client::Sdk => "sdk",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Client::Rust => "generated Rust client",
            Client::Sdk => "SDK `Client`",
        }
    }
}

/// A transport.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Transport {
    Stdio,
    Http,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
        }
    }

    /// The servers measured over this transport, ours first.
    fn servers(self) -> &'static [Server] {
        match self {
            Transport::Stdio => &[Server::Ours, Server::OursAgain, Server::Sdk],
            Transport::Http => &[
                Server::Ours,
                Server::OursAgain,
                Server::Sdk,
                Server::SdkJson,
            ],
        }
    }
}

/// A server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Server {
    /// `mcp-server`.
    Ours,
    /// A second `mcp-server`, measured like the others: the A/A control, whose ratio to the
    /// first is the noise of the measurement.
    OursAgain,
    /// The SDK's `McpServer` as configured by default (over HTTP: answers as event streams).
    Sdk,
    /// The SDK's `McpServer` answering POSTs as JSON (`enableJsonResponse`), HTTP only.
    SdkJson,
}

impl Server {
    fn name(self) -> &'static str {
        match self {
            Server::Ours => "ours",
            Server::OursAgain => "ours-again",
            Server::Sdk => "sdk",
            Server::SdkJson => "sdk-json",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Server::Ours => "mcp-server",
            Server::OursAgain => "mcp-server again (A/A)",
            Server::Sdk => "SDK",
            Server::SdkJson => "SDK, JSON answers",
        }
    }
}

/// One turn of one server: `calls` calls in `seconds`, and the CPU seconds its server and its
/// driver spent meanwhile (none where `/proc` cannot say).
#[derive(Clone, Debug, PartialEq)]
struct Sample {
    client: Client,
    transport: Transport,
    concurrency: usize,
    server: Server,
    round: usize,
    calls: usize,
    seconds: f64,
    server_cpu: Option<f64>,
    client_cpu: Option<f64>,
}

impl Sample {
    fn rate(&self) -> f64 {
        self.calls as f64 / self.seconds
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "client": self.client.name(),
            "transport": self.transport.name(),
            "concurrency": self.concurrency,
            "server": self.server.name(),
            "round": self.round,
            "calls": self.calls,
            "seconds": self.seconds,
            "server_cpu_seconds": self.server_cpu,
            "client_cpu_seconds": self.client_cpu,
        })
    }
}

pub fn run(root: &Path, args: Args) -> Result<(), String> {
    bench(root, &args)
}

fn bench(root: &Path, args: &Args) -> Result<(), String> {
    check(args)?;
    let package = root.join(conformance::DIR);
    conformance::install(&package)?;
    let bins = build(root)?;
    let out = conformance::target_dir(root).join("bench-mcp");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot make {}: {e}", out.display()))?;
    let limit = Duration::from_secs(args.round_limit);
    let before = Machine::read(root, &package);
    let mut clients = Vec::new();
    for &kind in &args.clients {
        clients.push(connect(kind, args, &bins, &package, &out, limit)?);
    }
    warm_up(&mut clients, args, limit)?;
    let deadline = Instant::now() + Duration::from_secs(args.time_limit);
    let mut samples = Vec::new();
    let mut rounds = 0;
    while rounds < args.rounds {
        if Instant::now() >= deadline {
            eprintln!(
                "bench-mcp: the time limit ({} s) is reached after {rounds} round(s)",
                args.time_limit
            );
            break;
        }
        measure_round(&mut clients, args, rounds, limit, &mut samples)?;
        rounds += 1;
    }
    let after = Machine::read(root, &package);
    let servers: BTreeMap<(Client, Server), String> = clients
        .iter()
        .flat_map(|c| c.names.iter().map(|(s, n)| ((c.kind, *s), n.clone())))
        .collect();
    drop(clients);
    let raw = serde_json::json!({
        "command": command_line(args),
        "rounds": rounds,
        "servers": servers.iter().map(|((c, s), n)| serde_json::json!({
            "client": c.name(), "server": s.name(), "says": n,
        })).collect::<Vec<_>>(),
        "samples": samples.iter().map(Sample::to_json).collect::<Vec<_>>(),
    });
    let raw_path = out.join("samples.json");
    std::fs::write(&raw_path, format!("{raw:#}\n"))
        .map_err(|e| format!("cannot write {}: {e}", raw_path.display()))?;
    print!(
        "{}",
        report(args, rounds, &samples, &before, &after, &servers)
    );
    eprintln!("bench-mcp: every sample is in {}", raw_path.display());
    Ok(())
}

/// Refuses arguments that would measure nothing.
fn check(args: &Args) -> Result<(), String> {
    if args.rounds == 0 || args.calls == Some(0) {
        return Err("--rounds and --calls must be at least 1".into());
    }
    if args.calls.is_none()
        && (args.warmup < 2 || args.turn.is_nan() || args.turn <= 0.0 || args.turn > 60.0)
    {
        return Err(
            "without --calls, the calls per turn come from the warm-up: --warmup must be at \
             least 2 and --turn between 0 and 60 seconds"
                .into(),
        );
    }
    if args.concurrency.is_empty() || args.concurrency.contains(&0) {
        return Err("--concurrency needs numbers of at least 1".into());
    }
    if args.clients.is_empty() || args.transports.is_empty() {
        return Err("--clients and --transports need at least one each".into());
    }
    if args.round_limit == 0 {
        return Err("--round-limit must be at least 1 second".into());
    }
    Ok(())
}

/// The release binaries: the server and the Rust driver.
struct Bins {
    server: PathBuf,
    driver: PathBuf,
}

/// Builds `mcp-bench-client`, then `mcp-server`, in release, their paths as cargo reports
/// them. Two builds: an example brings its package's dev-dependencies' features in (tokio's
/// `process`), and the server measured is the binary `cargo build --release -p mcp-server`
/// gives; the server comes last, so its path holds that build.
fn build(root: &Path) -> Result<Bins, String> {
    let driver = cargo_build(root, &["--example", "mcp-bench-client"])?;
    let server = cargo_build(root, &["--bin", "mcp-server"])?;
    Ok(Bins { server, driver })
}

/// `cargo build --release -p mcp-server` of one `target` (`--bin NAME`, `--example NAME`):
/// its executable's path.
fn cargo_build(root: &Path, target: &[&str; 2]) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut args = vec!["build", "--release", "-p", "mcp-server"];
    args.extend(target);
    eprintln!("bench-mcp: cargo {}", args.join(" "));
    let out = Command::new(cargo)
        .args(&args)
        .arg("--message-format=json-render-diagnostics")
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`cargo {}` failed ({})",
            args.join(" "),
            out.status
        ));
    }
    let name = target[1];
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| format!("cargo reported no {name} executable"))
}

/// A driver process: its stdin for commands, its answers read on a thread.
struct Driver {
    child: KillOnDrop,
    stdin: Option<ChildStdin>,
    answers: mpsc::Receiver<Option<String>>,
    log: PathBuf,
}

impl Driver {
    /// Starts `command` as a driver, its stderr (and its stdio servers') into `log`.
    fn start(mut command: Command, log: PathBuf) -> Result<Driver, String> {
        let stderr = std::fs::File::create(&log)
            .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| format!("cannot start {command:?}: {e}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or("the driver has no stdout")?;
        let (send, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(Some(line)).is_err() {
                    return;
                }
            }
            let _ = send.send(None);
        });
        Ok(Driver {
            child: KillOnDrop(child),
            stdin,
            answers,
            log,
        })
    }

    fn pid(&self) -> u32 {
        self.child.0.id()
    }

    /// Sends `command` and waits for its answer at most `limit`: the answer's fields when it
    /// says `"ok": true`, else its error.
    fn ask(
        &mut self,
        command: &serde_json::Value,
        limit: Duration,
    ) -> Result<serde_json::Value, String> {
        let log = self.log.display();
        let stdin = self.stdin.as_mut().ok_or("the driver's stdin is closed")?;
        writeln!(stdin, "{command}")
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("cannot write to the driver ({e}); see {log}"))?;
        let line = match self.answers.recv_timeout(limit) {
            Ok(Some(line)) => line,
            Ok(None) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(format!("the driver exited; see {log}"));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "no answer to {command} within {} s; see {log}",
                    limit.as_secs()
                ));
            }
        };
        let answer: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| format!("the driver answered {line:?}: {e}"))?;
        if answer["ok"] == true {
            Ok(answer)
        } else {
            Err(format!(
                "{command} failed: {}; see {log}",
                answer["error"].as_str().unwrap_or(&line)
            ))
        }
    }
}

impl Drop for Driver {
    /// Closes the driver's stdin (it closes its connections and ends its stdio servers), then
    /// waits for it, killing it after [`CLOSE_LIMIT`].
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = conformance::wait(&mut self.child.0, CLOSE_LIMIT);
    }
}

/// A client with its connections: its driver, each server's process id (for its CPU time)
/// and what it says it is, and the HTTP servers started for it.
struct Connected {
    kind: Client,
    driver: Driver,
    pids: BTreeMap<(Transport, Server), Option<u32>>,
    /// Each connection's calls per turn at each concurrency, set by the warm-up.
    calls: BTreeMap<(Transport, Server, usize), usize>,
    names: BTreeMap<Server, String>,
    /// Dropped after the driver (field order): the session ends before its server.
    _http: Vec<KillOnDrop>,
}

/// A connection's name in the driver's commands.
fn connection(transport: Transport, server: Server) -> String {
    format!("{}-{}", transport.name(), server.name())
}

/// Starts the driver of `kind` and connects it to every server of every transport asked;
/// fails unless every server's first result is the same.
fn connect(
    kind: Client,
    args: &Args,
    bins: &Bins,
    package: &Path,
    out: &Path,
    limit: Duration,
) -> Result<Connected, String> {
    let mut command = match kind {
        Client::Rust => Command::new(&bins.driver),
        Client::Sdk => {
            let mut node = Command::new("node");
            node.arg(SDK_DRIVER);
            node
        }
    };
    command.current_dir(package);
    let log = out.join(format!("{}-client.log", kind.name()));
    let mut client = Connected {
        kind,
        driver: Driver::start(command, log)?,
        pids: BTreeMap::new(),
        calls: BTreeMap::new(),
        names: BTreeMap::new(),
        _http: Vec::new(),
    };
    let sdk_server = package.join(SDK_SERVER);
    let mut first: Option<(Server, serde_json::Value)> = None;
    for &transport in &args.transports {
        for &server in transport.servers() {
            let mut connect = serde_json::json!({
                "op": "connect",
                "name": connection(transport, server),
                "tool": TOOL,
            });
            let mut http_pid = None;
            match transport {
                Transport::Stdio => {
                    let line = match server {
                        Server::Ours | Server::OursAgain => {
                            vec![bins.server.display().to_string(), "--stdio".to_owned()]
                        }
                        Server::Sdk | Server::SdkJson => {
                            vec!["node".to_owned(), sdk_server.display().to_string()]
                        }
                    };
                    connect["stdio"] = line.into();
                }
                Transport::Http => {
                    let mut start = match server {
                        Server::Ours | Server::OursAgain => Command::new(&bins.server),
                        Server::Sdk | Server::SdkJson => {
                            let mut node = Command::new("node");
                            node.arg(&sdk_server);
                            node
                        }
                    };
                    match server {
                        Server::Ours | Server::OursAgain => start.args(["--http", "127.0.0.1:0"]),
                        Server::Sdk => start.arg("--http"),
                        Server::SdkJson => start.args(["--http", "--json"]),
                    };
                    let log = out.join(format!("{}-{}-http.log", kind.name(), server.name()));
                    let (child, url) = conformance::start_listening(start, server.label(), &log)?;
                    http_pid = Some(child.0.id());
                    client._http.push(child);
                    connect["url"] = url.into();
                }
            }
            eprintln!(
                "bench-mcp: {} client, {} {}",
                kind.name(),
                transport.name(),
                server.label()
            );
            let answer = client.driver.ask(&connect, limit)?;
            let pid = http_pid.or(answer["pid"].as_u64().and_then(|p| u32::try_from(p).ok()));
            client.pids.insert((transport, server), pid);
            let says = answer["server"].as_str().unwrap_or("?").to_owned();
            client.names.entry(server).or_insert(says);
            let result = answer["result"].clone();
            match &first {
                None => first = Some((server, result)),
                Some((_, same)) if *same == result => {}
                Some((earlier, other)) => {
                    return Err(format!(
                        "the {} client got different results: {} over {} answered {result}, {} {other}",
                        kind.name(),
                        server.label(),
                        transport.name(),
                        earlier.label()
                    ));
                }
            }
        }
    }
    Ok(client)
}

/// Runs `--warmup` calls on every connection at every concurrency, unmeasured, and sets each
/// connection's calls per turn: `--calls`, or as many as the warm-up's second half says take
/// `--turn` seconds.
fn warm_up(clients: &mut [Connected], args: &Args, limit: Duration) -> Result<(), String> {
    eprintln!(
        "bench-mcp: warm-up, {} calls per connection and concurrency",
        args.warmup
    );
    for client in clients {
        for &transport in &args.transports {
            for &server in transport.servers() {
                for &concurrency in &args.concurrency {
                    let half = args.warmup / 2;
                    let mut seconds = 0.0;
                    for calls in [args.warmup - half, half] {
                        if calls == 0 {
                            continue;
                        }
                        let round = serde_json::json!({
                            "op": "round",
                            "name": connection(transport, server),
                            "calls": calls,
                            "concurrency": concurrency,
                        });
                        let answer = client.driver.ask(&round, limit)?;
                        seconds = answer["seconds"].as_f64().unwrap_or(0.0);
                    }
                    let calls = args
                        .calls
                        .unwrap_or_else(|| calls_per_turn(half, seconds, args.turn));
                    client.calls.insert((transport, server, concurrency), calls);
                }
            }
        }
    }
    Ok(())
}

/// The calls that take about `turn` seconds at the rate of `calls` in `seconds`, rounded to
/// a hundred, between [`MIN_CALLS`] and [`MAX_CALLS`].
fn calls_per_turn(calls: usize, seconds: f64, turn: f64) -> usize {
    if seconds.is_nan() || seconds <= 0.0 {
        return MIN_CALLS;
    }
    let wanted = (calls as f64 / seconds * turn / 100.0).round() * 100.0;
    (wanted as usize).clamp(MIN_CALLS, MAX_CALLS)
}

/// One round: each client, transport and concurrency, every server in turn (the order rotated
/// by `round`), one sample each.
fn measure_round(
    clients: &mut [Connected],
    args: &Args,
    round: usize,
    limit: Duration,
    samples: &mut Vec<Sample>,
) -> Result<(), String> {
    eprintln!("bench-mcp: round {} of {}", round + 1, args.rounds);
    for client in clients {
        let driver_pid = client.driver.pid();
        for &transport in &args.transports {
            for &concurrency in &args.concurrency {
                let mut order = transport.servers().to_vec();
                let first = round % order.len();
                order.rotate_left(first);
                for server in order {
                    let calls = client.calls[&(transport, server, concurrency)];
                    let command = serde_json::json!({
                        "op": "round",
                        "name": connection(transport, server),
                        "calls": calls,
                        "concurrency": concurrency,
                    });
                    let server_pid = client.pids[&(transport, server)];
                    let cpu_before = (server_pid.and_then(cpu_seconds), cpu_seconds(driver_pid));
                    let answer = client.driver.ask(&command, limit)?;
                    let cpu_after = (server_pid.and_then(cpu_seconds), cpu_seconds(driver_pid));
                    let seconds = answer["seconds"]
                        .as_f64()
                        .filter(|s| *s > 0.0)
                        .ok_or_else(|| format!("the driver answered no time: {answer}"))?;
                    let spent = |a: Option<f64>, b: Option<f64>| Some(b? - a?);
                    samples.push(Sample {
                        client: client.kind,
                        transport,
                        concurrency,
                        server,
                        round,
                        calls,
                        seconds,
                        server_cpu: spent(cpu_before.0, cpu_after.0),
                        client_cpu: spent(cpu_before.1, cpu_after.1),
                    });
                }
            }
        }
    }
    Ok(())
}

/// The CPU seconds (user and system, every thread) process `pid` has spent, from
/// `/proc/PID/stat`; none off Linux or when the process is gone.
pub(crate) fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let ticks = cpu_ticks(&stat)?;
    Some(ticks as f64 / clock_ticks() as f64)
}

/// utime + stime of a `/proc/PID/stat` line: fields 14 and 15, counted after the command
/// name's closing parenthesis (the name may hold spaces and parentheses).
fn cpu_ticks(stat: &str) -> Option<u64> {
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

/// The kernel's clock ticks per second (`getconf CLK_TCK`, 100 when it cannot say).
fn clock_ticks() -> u64 {
    static TICKS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .filter(|t| *t > 0)
            .unwrap_or(100)
    })
}

/// What the machine was doing and running, for the report.
struct Machine {
    utc: String,
    commit: String,
    cpu: String,
    cores: usize,
    load: String,
    rustc: String,
    node: String,
    sdk: String,
}

impl Machine {
    fn read(root: &Path, package: &Path) -> Machine {
        let output = |program: &str, args: &[&str]| {
            Command::new(program)
                .args(args)
                .current_dir(root)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
                .unwrap_or_else(|| "?".into())
        };
        let dirty = output("git", &["status", "--porcelain", "--untracked-files=no"]);
        let commit = output("git", &["rev-parse", "--short", "HEAD"]);
        let sdk_package = package.join("node_modules/@modelcontextprotocol/sdk/package.json");
        let sdk = std::fs::read_to_string(sdk_package)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|p| p["version"].as_str().map(str::to_owned))
            .unwrap_or_else(|| "?".into());
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("model name"))
                    .map(|l| l.trim_start_matches([' ', '\t', ':']).to_owned())
            })
            .unwrap_or_else(|| "?".into());
        let load = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|| "?".into());
        Machine {
            utc: output("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
            commit: if dirty.is_empty() || dirty == "?" {
                commit
            } else {
                format!("{commit} (with uncommitted changes)")
            },
            cpu,
            cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
            load,
            rustc: output("rustc", &["--version"]),
            node: output("node", &["--version"]),
            sdk,
        }
    }
}

/// The command that gives this run.
fn command_line(args: &Args) -> String {
    let concurrency: Vec<String> = args.concurrency.iter().map(ToString::to_string).collect();
    let clients: Vec<&str> = args.clients.iter().map(|c| c.name()).collect();
    let transports: Vec<&str> = args.transports.iter().map(|t| t.name()).collect();
    let per_turn = match args.calls {
        Some(calls) => format!("--calls {calls}"),
        None => format!("--turn {}", args.turn),
    };
    format!(
        "cargo xtask bench-mcp --rounds {} {per_turn} --warmup {} --concurrency {} --clients {} \
         --transports {}",
        args.rounds,
        args.warmup,
        concurrency.join(","),
        clients.join(","),
        transports.join(","),
    )
}

/// The median of `values` (the mean of the middle two for an even count); none when empty.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    })
}

/// A comparison's figures: ours against one other server, for one client, transport and
/// concurrency, from the rounds where both were measured.
#[derive(Debug, PartialEq)]
struct Comparison {
    ours_rate: f64,
    sdk_rate: f64,
    /// Each round's ours / SDK, in round order.
    ratios: Vec<f64>,
    /// CPU microseconds per call of the server: ours, the other.
    server_cpu: (Option<f64>, Option<f64>),
    /// The driver's CPU time over the wall time, with ours and with the other: near 1 (a
    /// core, for the one-threaded drivers) says the client set the pace.
    client_busy: (Option<f64>, Option<f64>),
}

impl Comparison {
    fn ratio(&self) -> f64 {
        median(&self.ratios).unwrap_or(f64::NAN)
    }
}

/// Ours against `other` in the samples of one client, transport and concurrency, from the
/// rounds where both were measured; none when there is no such round.
fn compare(samples: &[Sample], other: Server) -> Option<Comparison> {
    let of = |server: Server| -> BTreeMap<usize, &Sample> {
        samples
            .iter()
            .filter(|s| s.server == server)
            .map(|s| (s.round, s))
            .collect()
    };
    let (ours, theirs) = (of(Server::Ours), of(other));
    let (ours, theirs): (Vec<&Sample>, Vec<&Sample>) = ours
        .iter()
        .filter_map(|(round, o)| theirs.get(round).map(|t| (*o, *t)))
        .unzip();
    if ours.is_empty() {
        return None;
    }
    let (ours_rate, ours_cpu, ours_busy) = figures(&ours);
    let (sdk_rate, sdk_cpu, sdk_busy) = figures(&theirs);
    Some(Comparison {
        ours_rate,
        sdk_rate,
        ratios: ours
            .iter()
            .zip(&theirs)
            .map(|(o, t)| o.rate() / t.rate())
            .collect(),
        server_cpu: (ours_cpu, sdk_cpu),
        client_busy: (ours_busy, sdk_busy),
    })
}

/// One server's figures over its samples: the median calls per second; its CPU microseconds
/// per call and its driver's CPU time over the wall time, each over the samples' sums (so the
/// clock tick's rounding, 10 ms, averages out), none when a sample lacks them.
fn figures(samples: &[&Sample]) -> (f64, Option<f64>, Option<f64>) {
    let rates: Vec<f64> = samples.iter().map(|s| s.rate()).collect();
    let calls: usize = samples.iter().map(|s| s.calls).sum();
    let seconds: f64 = samples.iter().map(|s| s.seconds).sum();
    let server: Option<f64> = samples.iter().map(|s| s.server_cpu).sum();
    let client: Option<f64> = samples.iter().map(|s| s.client_cpu).sum();
    (
        median(&rates).unwrap_or(f64::NAN),
        server.map(|cpu| cpu * 1e6 / calls as f64),
        client.map(|cpu| cpu / seconds),
    )
}

/// The report in Markdown: the machine, the command, and a table per client.
fn report(
    args: &Args,
    rounds: usize,
    samples: &[Sample],
    before: &Machine,
    after: &Machine,
    servers: &BTreeMap<(Client, Server), String>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### tools/call round trips per second, {}\n",
        before.utc
    );
    let calls = samples.iter().map(|s| s.calls);
    let (fewest, most) = (calls.clone().min().unwrap_or(0), calls.max().unwrap_or(0));
    let per_turn = match args.calls {
        Some(n) => format!("{n} calls per turn"),
        None => format!(
            "{fewest} to {most} calls per turn, as many as the warm-up said take {} s",
            args.turn
        ),
    };
    let _ = writeln!(
        out,
        "`{}`: {rounds} round(s), {per_turn}.\n",
        command_line(args),
    );
    let _ = writeln!(
        out,
        "At `{}`; {} ({} cores), load average {} before and {} after; {}, node {}, `@modelcontextprotocol/sdk` {}.\n",
        before.commit,
        before.cpu,
        before.cores,
        before.load,
        after.load,
        before.rustc,
        before.node,
        before.sdk
    );
    let says: Vec<String> = servers
        .iter()
        .filter(|((c, _), _)| *c == args.clients[0])
        .map(|((_, s), n)| format!("{} is `{n}`", s.label()))
        .collect();
    if !says.is_empty() {
        let _ = writeln!(out, "Servers: {}.\n", says.join(", "));
    }
    let cpu = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.0}"));
    let busy = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{:.0}%", v * 100.0));
    for &client in &args.clients {
        let _ = writeln!(out, "Client: the {}.\n", client.label());
        let _ = writeln!(
            out,
            "| transport | in flight | against | mcp-server calls/s | its calls/s | **mcp-server / it** | each round | server CPU µs/call (mcp-server, it) | client busy (with mcp-server, with it) |\n|---|---|---|---|---|---|---|---|---|"
        );
        for &transport in &args.transports {
            for &concurrency in &args.concurrency {
                let cell: Vec<Sample> = samples
                    .iter()
                    .filter(|s| {
                        s.client == client
                            && s.transport == transport
                            && s.concurrency == concurrency
                    })
                    .cloned()
                    .collect();
                for &other in &transport.servers()[1..] {
                    let Some(c) = compare(&cell, other) else {
                        continue;
                    };
                    let each: Vec<String> = c.ratios.iter().map(|r| format!("{r:.2}")).collect();
                    let _ = writeln!(
                        out,
                        "| {} | {concurrency} | {} | {:.0} | {:.0} | **{:.2}x** | {} | {}, {} | {}, {} |",
                        transport.name(),
                        other.label(),
                        c.ours_rate,
                        c.sdk_rate,
                        c.ratio(),
                        each.join(" "),
                        cpu(c.server_cpu.0),
                        cpu(c.server_cpu.1),
                        busy(c.client_busy.0),
                        busy(c.client_busy.1),
                    );
                }
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(server: Server, round: usize, seconds: f64, cpu: f64) -> Sample {
        Sample {
            client: Client::Rust,
            transport: Transport::Stdio,
            concurrency: 1,
            server,
            round,
            calls: 1000,
            seconds,
            server_cpu: Some(cpu),
            // The driver busy half the time.
            client_cpu: Some(seconds / 2.0),
        }
    }

    #[test]
    fn medians_take_the_middle() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN, 2.0]), Some(2.0));
    }

    #[test]
    fn a_turn_lasts_about_the_time_asked() {
        assert_eq!(calls_per_turn(500, 0.5, 1.0), 1000);
        assert_eq!(calls_per_turn(500, 0.5, 0.5), 500);
        assert_eq!(calls_per_turn(1234, 1.0, 1.0), 1200);
        assert_eq!(calls_per_turn(10, 1.0, 1.0), MIN_CALLS);
        assert_eq!(calls_per_turn(500, 0.000_1, 1.0), MAX_CALLS);
        assert_eq!(calls_per_turn(500, 0.0, 1.0), MIN_CALLS);
        assert_eq!(calls_per_turn(500, f64::NAN, 1.0), MIN_CALLS);
    }

    #[test]
    fn cpu_ticks_are_utime_plus_stime_after_the_name() {
        // A name with a space and a parenthesis; utime 1234, stime 56.
        let stat = "4242 (node (x) y) S 1 4242 4242 0 -1 4194304 100 0 0 0 1234 56 0 0 20 0 11 0";
        assert_eq!(cpu_ticks(stat), Some(1290));
        assert_eq!(cpu_ticks("4242 (short) S 1"), None);
        assert_eq!(cpu_ticks("no parenthesis"), None);
    }

    #[test]
    fn ratios_pair_the_servers_round_by_round() {
        let samples = [
            // Round 0: ours 4000/s, the SDK 1000/s; round 1: ours 2000/s, the SDK 1000/s.
            sample(Server::Ours, 0, 0.25, 0.05),
            sample(Server::Sdk, 0, 1.0, 0.4),
            sample(Server::Sdk, 1, 1.0, 0.6),
            sample(Server::Ours, 1, 0.5, 0.07),
            // A round the SDK lacks is left out.
            sample(Server::Ours, 2, 0.1, 0.01),
        ];
        let c = compare(&samples, Server::Sdk).expect("two rounds");
        assert_eq!(c.ratios, [4.0, 2.0]);
        assert_eq!(c.ratio(), 3.0);
        assert_eq!(c.ours_rate, 3000.0);
        assert_eq!(c.sdk_rate, 1000.0);
        // CPU per call in microseconds: (50 + 70) ms over 2000 calls, (400 + 600) ms too.
        let (ours, sdk) = c.server_cpu;
        assert!((ours.unwrap() - 60.0).abs() < 1e-9, "{ours:?}");
        assert!((sdk.unwrap() - 500.0).abs() < 1e-9, "{sdk:?}");
        assert_eq!(c.client_busy, (Some(0.5), Some(0.5)));
        assert_eq!(compare(&samples, Server::SdkJson), None);
    }

    #[test]
    fn the_report_has_a_row_per_comparison() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            args: Args,
        }
        let args = Cli::parse_from([
            "bench",
            "--clients",
            "rust",
            "--transports",
            "stdio",
            "--concurrency",
            "1",
        ])
        .args;
        let samples = [
            sample(Server::Ours, 0, 0.25, 0.05),
            sample(Server::Sdk, 0, 1.0, 0.4),
        ];
        let machine = Machine {
            utc: "2026-01-01 00:00 UTC".into(),
            commit: "abc1234".into(),
            cpu: "a CPU".into(),
            cores: 2,
            load: "1.00 1.00 1.00".into(),
            rustc: "rustc 1".into(),
            node: "v20".into(),
            sdk: "1.32.2".into(),
        };
        let text = report(&args, 1, &samples, &machine, &machine, &BTreeMap::new());
        assert!(
            text.contains(
                "| stdio | 1 | SDK | 4000 | 1000 | **4.00x** | 4.00 | 50, 400 | 50%, 50% |"
            ),
            "{text}"
        );
        assert!(text.contains("--clients rust --transports stdio"), "{text}");
        assert!(check(&args).is_ok());
        let none = Cli::parse_from(["bench", "--concurrency", "0"]).args;
        assert!(check(&none).is_err());
    }
}
