//! `cargo xtask bench-turns`: chat.event frames per second of agent-host's turns against a
//! minimal tokio-tungstenite broadcast server that sends the same frames, with 1, 10 and 100
//! clients, on 127.0.0.1, in one run (docs/benchmarks.md, "Turns against a broadcast
//! server"). A benchmark: never a step of `cargo xtask test`.
//!
//! 1. `cargo build --release -p agent-host` of the driver (`examples/turn-driver.rs`) and the
//!    yardstick (`examples/broadcast-server.rs`), then apart of the `agent-host` binary (as a
//!    user builds it, without the features the examples' dev-dependencies bring);
//! 2. both servers start on free ports: `agent-host --memory --delta-delay-ms 0` with a token
//!    made for the run (the echo turn streamed as fast as it can be, kept in memory, so the
//!    comparison is of the turn's path and the sockets, not of a disk), and
//!    `broadcast-server`;
//! 3. `--rounds` rounds: in each, for each number of clients, each server takes its turn (the
//!    order swapped every round, so neither is always first on a machine others share): one
//!    `turn-driver` process connects that many clients, each with a chat of its own, runs
//!    `--warmup` turns each, then turns for `--seconds`, and prints the chat.event frames
//!    received, the turns and their latency. The CPU time the server spent meanwhile
//!    (`/proc/PID/stat`) is read around it. Every turn must bring the same frames from both
//!    servers (their `shape`, each chat.event's type in order, is compared) and the same
//!    number in every turn (the driver checks), or nothing is reported;
//! 4. the report: per number of clients, each server's median events per second, the ratio
//!    agent-host / broadcast server (the median of each round's, and every round's), the
//!    median turn latency (p50, p99), server CPU per event, and the machine's load before and
//!    after; the samples go to `<target>/bench-turns/samples.json`.
//!
//! Bounded: each driver runs at most `--seconds` plus its setup and warm-up, and is killed
//! after `--run-limit` seconds (the run then fails); the servers are killed when it ends.

use crate::bench_mcp::{cpu_seconds, median};
use crate::conformance::{self, KillOnDrop};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Measured rounds; each measures both servers once per number of clients.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Seconds of turns per measurement.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Numbers of clients, each measured: all connected at once, each in a chat of its own.
    #[arg(long, value_delimiter = ',', default_value = "1,10,100")]
    clients: Vec<usize>,
    /// Turns per client before each measurement (not counted).
    #[arg(long, default_value_t = 20)]
    warmup: usize,
    /// Turns a chat takes before its client moves to a new one; 0: one chat a client for the
    /// whole measurement (agent-host's cost then grows with the chat: docs/benchmarks.md).
    #[arg(long, default_value_t = 200)]
    turns_per_chat: u64,
    /// Seconds a driver process may run before it is killed and the run fails.
    #[arg(long, default_value_t = 60)]
    run_limit: u64,
}

/// The servers compared, agent-host first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Server {
    AgentHost,
    Broadcast,
}

impl Server {
    fn name(self) -> &'static str {
        match self {
            Server::AgentHost => "agent-host",
            Server::Broadcast => "broadcast-server",
        }
    }
}

/// One measurement: a server, a number of clients, what the driver printed.
struct Sample {
    round: usize,
    server: Server,
    clients: usize,
    events_per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
    /// Server CPU microseconds per chat.event frame received.
    cpu_us_per_event: Option<f64>,
    report: serde_json::Value,
}

pub fn run(root: &Path, args: Args) -> Result<(), String> {
    bench(root, &args)
}

fn bench(root: &Path, args: &Args) -> Result<(), String> {
    check(args)?;
    let driver = cargo_build(root, "--example", "turn-driver")?;
    let broadcast = cargo_build(root, "--example", "broadcast-server")?;
    let host = cargo_build(root, "--bin", "agent-host")?;
    let out = conformance::target_dir(root).join("bench-turns");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot make {}: {e}", out.display()))?;
    let token = format!("bench-turns-{}", std::process::id());
    let mut command = Command::new(&host);
    command
        .args(["--addr", "127.0.0.1:0", "--memory", "--delta-delay-ms", "0"])
        .arg("--data-dir")
        .arg(out.join("data"))
        .args(["--token", &token]);
    let (host_child, host_url) =
        conformance::start_listening(command, "agent-host", &out.join("agent-host.log"))?;
    let (broadcast_child, broadcast_url) = conformance::start_listening(
        Command::new(&broadcast),
        "broadcast-server",
        &out.join("broadcast-server.log"),
    )?;
    let servers = [
        (Server::AgentHost, &host_child, host_url),
        (Server::Broadcast, &broadcast_child, broadcast_url),
    ];
    let load_before = load();
    let mut samples = Vec::new();
    let mut shape: Option<serde_json::Value> = None;
    for round in 0..args.rounds {
        for &clients in &args.clients {
            let mut order: Vec<_> = servers.iter().collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for (server, child, url) in order {
                let url = format!("{url}/?token={token}");
                let sample = measure(&driver, &url, *server, child, clients, round, args)?;
                let seen = &sample.report["shape"];
                match &shape {
                    Some(first) if first != seen => {
                        return Err(format!(
                            "{} sent other frames in a turn: {seen} against {first}",
                            server.name()
                        ));
                    }
                    Some(_) => {}
                    None => shape = Some(seen.clone()),
                }
                eprintln!(
                    "bench-turns: round {} {:>3} clients {:<16} {:>9.0} events/s, turn p50 {:.2} ms",
                    round + 1,
                    clients,
                    server.name(),
                    sample.events_per_second,
                    sample.p50_ms
                );
                samples.push(sample);
            }
        }
    }
    let load_after = load();
    drop(servers);
    drop(host_child);
    drop(broadcast_child);
    let raw = serde_json::json!({
        "command": command_line(args),
        "samples": samples.iter().map(|s| serde_json::json!({
            "round": s.round + 1,
            "server": s.server.name(),
            "cpu_us_per_event": s.cpu_us_per_event,
            "driver": s.report,
        })).collect::<Vec<_>>(),
    });
    let raw_path = out.join("samples.json");
    std::fs::write(&raw_path, format!("{raw:#}\n"))
        .map_err(|e| format!("cannot write {}: {e}", raw_path.display()))?;
    let turn = shape.map_or_else(String::new, |s| s.to_string());
    print!(
        "{}",
        report(args, &samples, &turn, &load_before, &load_after, root)
    );
    eprintln!("bench-turns: every sample is in {}", raw_path.display());
    Ok(())
}

/// Refuses arguments that would measure nothing.
fn check(args: &Args) -> Result<(), String> {
    if args.rounds == 0 || args.clients.is_empty() || args.clients.contains(&0) {
        return Err("--rounds and each of --clients must be at least 1".into());
    }
    if !(args.seconds > 0.0 && args.seconds <= 60.0) {
        return Err("--seconds must be between 0 and 60".into());
    }
    if args.run_limit == 0 {
        return Err("--run-limit must be at least 1 second".into());
    }
    Ok(())
}

/// `cargo build --release -p agent-host KIND NAME`: the executable's path, as cargo reports
/// it. The binary is built last, on its own: its path then holds the build a user gets.
fn cargo_build(root: &Path, kind: &str, name: &str) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let args = ["build", "--release", "-p", "agent-host", kind, name];
    eprintln!("bench-turns: cargo {}", args.join(" "));
    let out = Command::new(cargo)
        .args(args)
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
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| format!("cargo reported no {name} executable"))
}

/// One driver run against one server: its report, and the server's CPU meanwhile.
fn measure(
    driver: &Path,
    url: &str,
    server: Server,
    child: &KillOnDrop,
    clients: usize,
    round: usize,
    args: &Args,
) -> Result<Sample, String> {
    let cpu_before = cpu_seconds(child.0.id());
    let mut run = Command::new(driver)
        .args(["--url", url])
        .args(["--clients", &clients.to_string()])
        .args(["--seconds", &args.seconds.to_string()])
        .args(["--warmup", &args.warmup.to_string()])
        .args(["--turns-per-chat", &args.turns_per_chat.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start turn-driver: {e}"))?;
    // The driver prints one short line, so its pipes never fill while it runs.
    let status =
        conformance::wait(&mut run, Duration::from_secs(args.run_limit)).ok_or_else(|| {
            format!(
                "turn-driver against {} with {clients} clients ran over {} s",
                server.name(),
                args.run_limit
            )
        })?;
    let cpu_after = cpu_seconds(child.0.id());
    let output = run.wait_with_output().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!(
            "turn-driver against {} with {clients} clients failed ({status}): {}",
            server.name(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("turn-driver printed no report: {e}"))?;
    let number = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    let events = number(&report["events"]);
    Ok(Sample {
        round,
        server,
        clients,
        events_per_second: number(&report["events_per_second"]),
        p50_ms: number(&report["turn_ms"]["p50"]),
        p99_ms: number(&report["turn_ms"]["p99"]),
        cpu_us_per_event: cpu_before
            .zip(cpu_after)
            .filter(|_| events > 0.0)
            .map(|(b, a)| (a - b) * 1e6 / events),
        report,
    })
}

/// The load averages (1, 5, 15 minutes), from `/proc/loadavg`.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "?".into())
}

/// The command that gives this run.
fn command_line(args: &Args) -> String {
    let clients: Vec<String> = args.clients.iter().map(ToString::to_string).collect();
    format!(
        "cargo xtask bench-turns --rounds {} --seconds {} --clients {} --warmup {} \
         --turns-per-chat {}",
        args.rounds,
        args.seconds,
        clients.join(","),
        args.warmup,
        args.turns_per_chat,
    )
}

/// The Markdown report: a table per number of clients, ratios side by side.
fn report(
    args: &Args,
    samples: &[Sample],
    shape: &str,
    load_before: &str,
    load_after: &str,
    root: &Path,
) -> String {
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "?".into());
    let mut text = String::new();
    let _ = writeln!(text, "# bench-turns\n");
    let _ = writeln!(text, "`{}` at `{commit}`", command_line(args));
    let _ = writeln!(
        text,
        "load average before {load_before}, after {load_after}; {} core(s)\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let _ = writeln!(text, "A turn's chat.event frames: {shape}\n");
    let _ = writeln!(
        text,
        "| clients | agent-host events/s | broadcast events/s | ratio (median of rounds) | each round | turn p50 / p99 ms, host | broadcast | server CPU µs/event, host | broadcast |"
    );
    let _ = writeln!(text, "|---|---|---|---|---|---|---|---|---|");
    for &clients in &args.clients {
        let of = |server: Server| -> Vec<&Sample> {
            samples
                .iter()
                .filter(|s| s.server == server && s.clients == clients)
                .collect()
        };
        let (host, broadcast) = (of(Server::AgentHost), of(Server::Broadcast));
        let med = |v: &[&Sample], f: fn(&Sample) -> f64| {
            median(&v.iter().map(|s| f(s)).collect::<Vec<_>>()).unwrap_or(f64::NAN)
        };
        let ratios: Vec<f64> = host
            .iter()
            .filter_map(|h| {
                broadcast
                    .iter()
                    .find(|b| b.round == h.round)
                    .map(|b| h.events_per_second / b.events_per_second)
            })
            .collect();
        let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        let cpu = |v: &[&Sample]| {
            median(
                &v.iter()
                    .filter_map(|s| s.cpu_us_per_event)
                    .collect::<Vec<_>>(),
            )
            .map_or("?".into(), |c| format!("{c:.1}"))
        };
        let _ = writeln!(
            text,
            "| {clients} | {:.0} | {:.0} | **{:.2}** | {} | {:.2} / {:.2} | {:.2} / {:.2} | {} | {} |",
            med(&host, |s| s.events_per_second),
            med(&broadcast, |s| s.events_per_second),
            median(&ratios).unwrap_or(f64::NAN),
            each.join(", "),
            med(&host, |s| s.p50_ms),
            med(&host, |s| s.p99_ms),
            med(&broadcast, |s| s.p50_ms),
            med(&broadcast, |s| s.p99_ms),
            cpu(&host),
            cpu(&broadcast),
        );
    }
    text
}
