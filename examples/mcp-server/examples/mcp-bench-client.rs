//! `mcp-bench-client`: the generated Rust MCP client (`mcp::ClientCalls` over
//! `contracts::rpc`) as a driver of `cargo xtask bench-mcp` (`xtask/src/bench_mcp.rs`), which
//! measures `tools/call` round trips against this package's server and the official
//! TypeScript SDK's. It speaks the same line protocol as the SDK's driver
//! (`tests/conformance/sdk/bench-client.mjs`): one JSON command per line on stdin, one JSON
//! answer per line on stdout.
//!
//! ```text
//! {"op":"connect","name":N,"tool":T,"stdio":[CMD,ARG...]}   spawn CMD and talk over its pipes
//! {"op":"connect","name":N,"tool":T,"url":U}                Streamable HTTP to U
//!   -> {"ok":true,"pid":PID|null,"server":"NAME VERSION","result":{...}}: initialized,
//!      `tools/list` holds T, and one `tools/call` of T answered `result`
//! {"op":"round","name":N,"calls":K,"concurrency":C}
//!   -> {"ok":true,"seconds":S}: K calls of T (no arguments), C in flight at a time, each
//!      answer checked (one content block, not an error)
//! end of stdin: every connection closed (stdio servers end with their stdin), then exit
//! ```
//!
//! A failure answers `{"ok":false,"error":MESSAGE}` and the driver goes on reading. It runs on
//! one thread (a current-thread runtime), so the client takes as little of the machine from
//! the server it measures as it can.

use contracts::mcp::{
    self, CallToolOutcome, CallToolRequestParams, CallToolResult, ClientCalls, ClientCapabilities,
    Implementation, InitializeRequestParams, NotificationParams, PaginatedRequestParams,
};
use contracts::port::{NdjsonOptions, NdjsonPort};
use contracts::rpc::{self, Options, Peer};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::Child;

/// One command line.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
enum Command {
    Connect {
        name: String,
        tool: String,
        #[serde(default)]
        stdio: Vec<String>,
        url: Option<String>,
    },
    Round {
        name: String,
        calls: usize,
        concurrency: usize,
    },
}

/// A connected server: the client's peer, the tool it calls, the process when this driver
/// started it.
struct Server {
    peer: Peer,
    tool: String,
    child: Option<Child>,
}

/// The handler of what a server sends this client: nothing the benchmark asks for, so every
/// method keeps its generated default.
struct Quiet;

impl mcp::ClientHandler for Quiet {}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut servers = BTreeMap::new();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut out = tokio::io::stdout();
    while let Ok(Some(line)) = lines.next_line().await {
        if line.trim().is_empty() {
            continue;
        }
        let answer = match answer(&mut servers, &line).await {
            Ok(Value::Object(mut fields)) => {
                fields.insert("ok".into(), true.into());
                Value::Object(fields)
            }
            Ok(other) => json!({ "ok": false, "error": format!("not an object: {other}") }),
            Err(e) => json!({ "ok": false, "error": e }),
        };
        let written = out.write_all(format!("{answer}\n").as_bytes()).await;
        if written.is_err() || out.flush().await.is_err() {
            break;
        }
    }
    close(servers).await;
}

/// Runs one command line.
async fn answer(servers: &mut BTreeMap<String, Server>, line: &str) -> Result<Value, String> {
    let command: Command =
        serde_json::from_str(line).map_err(|e| format!("unreadable command: {e}"))?;
    match command {
        Command::Connect {
            name,
            tool,
            stdio,
            url,
        } => {
            if servers.contains_key(&name) {
                return Err(format!("{name} is already connected"));
            }
            let (peer, child) = match (stdio.split_first(), url) {
                (Some((program, args)), None) => {
                    let (peer, child) = spawn(program, args)?;
                    (peer, Some(child))
                }
                (None, Some(url)) => {
                    let peer = rpc::http::connect(&url, Options::mcp(), |_| mcp::ClientSide(Quiet))
                        .map_err(|e| e.to_string())?;
                    (peer, None)
                }
                _ => return Err("connect needs either `stdio` (a command line) or `url`".into()),
            };
            let pid = child.as_ref().and_then(Child::id);
            let server = Server { peer, tool, child };
            let connected = initialize(&server).await;
            servers.insert(name, server);
            let (info, result) = connected?;
            Ok(json!({ "pid": pid, "server": info, "result": result }))
        }
        Command::Round {
            name,
            calls,
            concurrency,
        } => {
            let server = servers
                .get(&name)
                .ok_or_else(|| format!("{name} is not connected"))?;
            if calls == 0 || concurrency == 0 {
                return Err("a round needs positive `calls` and `concurrency`".into());
            }
            let seconds = round(server, calls, concurrency).await?;
            Ok(json!({ "seconds": seconds }))
        }
    }
}

/// Starts `program` with `args`, its stdin and stdout the connection, its stderr this
/// driver's.
fn spawn(program: &str, args: &[String]) -> Result<(Peer, Child), String> {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(format!("{program} has no piped stdin and stdout"));
    };
    let port = NdjsonPort::from_parts(stdout, stdin, &NdjsonOptions::default());
    let peer = rpc::connect(port, Options::mcp(), |_| mcp::ClientSide(Quiet));
    Ok((peer, child))
}

/// Initializes the session, checks the server lists the tool, and calls it once: the
/// server's name and version, and the call's result as JSON.
async fn initialize(server: &Server) -> Result<(String, Value), String> {
    let calls = ClientCalls(&server.peer);
    let init = InitializeRequestParams::new(
        mcp::LATEST_PROTOCOL_VERSION,
        ClientCapabilities::new(),
        Implementation::new("bench-mcp-rust-client", env!("CARGO_PKG_VERSION")),
    );
    let answer = calls
        .initialize(init)
        .await
        .map_err(|e| format!("initialize: {e}"))?;
    calls
        .notifications_initialized(NotificationParams::new())
        .await
        .map_err(|e| format!("notifications/initialized: {e}"))?;
    let listed = calls
        .tools_list(PaginatedRequestParams::new())
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    if !listed.tools.iter().any(|t| t.name == server.tool) {
        let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_str()).collect();
        return Err(format!(
            "the server lists no tool {}: {}",
            server.tool,
            names.join(", ")
        ));
    }
    let result = call(&server.peer, &server.tool).await?;
    let result = serde_json::to_value(&result).map_err(|e| e.to_string())?;
    let info = format!("{} {}", answer.server_info.name, answer.server_info.version);
    Ok((info, result))
}

/// One call of `tool` without arguments, its answer checked: a result of one content block,
/// not an error.
async fn call(peer: &Peer, tool: &str) -> Result<CallToolResult, String> {
    let outcome = ClientCalls(peer)
        .tools_call(CallToolRequestParams::new(tool))
        .await
        .map_err(|e| format!("tools/call {tool}: {e}"))?;
    match outcome {
        CallToolOutcome::CallToolResult(result)
            if result.is_error != Some(true) && result.content.len() == 1 =>
        {
            Ok(result)
        }
        other => Err(format!("tools/call {tool} answered {other:?}")),
    }
}

/// `calls` calls of the server's tool, `concurrency` at a time: the seconds they took.
async fn round(server: &Server, calls: usize, concurrency: usize) -> Result<f64, String> {
    let started = Arc::new(AtomicUsize::new(0));
    let mut workers = tokio::task::JoinSet::new();
    let start = Instant::now();
    for _ in 0..concurrency.min(calls) {
        let (peer, tool, started) = (server.peer.clone(), server.tool.clone(), started.clone());
        workers.spawn(async move {
            while started.fetch_add(1, Ordering::Relaxed) < calls {
                call(&peer, &tool).await?;
            }
            Ok::<(), String>(())
        });
    }
    while let Some(done) = workers.join_next().await {
        done.map_err(|e| format!("a worker failed: {e}"))??;
    }
    Ok(start.elapsed().as_secs_f64())
}

/// Closes every connection; a server this driver started gets a second to end on its own
/// (its stdin closed), then is killed.
async fn close(servers: BTreeMap<String, Server>) {
    for (_, mut server) in servers {
        server.peer.close();
        if let Some(child) = server.child.as_mut() {
            let ended = tokio::time::timeout(Duration::from_secs(1), child.wait()).await;
            if ended.is_err() {
                let _ = child.kill().await;
            }
        }
    }
}
