//! The Rust half of the cross-side check of JSON-RPC refusals (`tests/rpc-parity/`): each case
//! of `cases.jsonl` is sent, frame by frame, to a fresh connection serving MCP's server side
//! and one serving ACP's agent side, over newline-delimited JSON; what the connection writes
//! back, once its input has ended and every request taken has been answered, is compared with
//! `expected.jsonl` (`UPDATE_EXPECT=1` rewrites it). The TypeScript connection is run on the
//! same cases and compared with the same file (`bindings/acp-contracts/test/parity.test.ts`),
//! so both sides answer every case with the same codes, words and ids.
//!
//! The servers implement one method, which holds its request until the case's frames are all
//! sent: MCP's `tools/call` named `hold`, ACP's `session/prompt` of session `hold`. Everything
//! else is answered as a server that implements nothing answers it.

use contracts::acp;
use contracts::mcp;
use contracts::port::{NdjsonOptions, NdjsonPort};
use contracts::rpc::{self, Options};
use serde_json::{Map, Value};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::watch;

/// Fails the test instead of hanging when `future` does not finish.
async fn bounded<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), future)
        .await
        .expect("did not finish within 20 s")
}

/// What the held handlers share with the runner: how many started, and whether to go on.
struct Hold {
    started: AtomicUsize,
    released: watch::Sender<bool>,
}

impl Hold {
    fn new() -> Arc<Self> {
        Arc::new(Hold {
            started: AtomicUsize::new(0),
            released: watch::Sender::new(false),
        })
    }

    /// Counts a held handler in, and waits until the runner releases them all.
    async fn wait(&self) {
        self.started.fetch_add(1, Ordering::SeqCst);
        let mut released = self.released.subscribe();
        let _ = released.wait_for(|r| *r).await;
    }
}

struct McpServer(Arc<Hold>);

impl mcp::Host for McpServer {
    async fn tools_call(
        &self,
        call: mcp::CallToolRequestParams,
    ) -> Result<mcp::CallToolOutcome, mcp::JsonRpcError> {
        self.0.wait().await;
        Ok(mcp::CallToolResult::new(vec![mcp::TextContent::new(call.name).into()]).into())
    }
}

struct AcpAgent(Arc<Hold>);

impl acp::Host for AcpAgent {
    async fn session_prompt(
        &self,
        _: acp::PromptRequest,
    ) -> Result<acp::PromptResponse, acp::JsonRpcError> {
        self.0.wait().await;
        Ok(acp::PromptResponse::new(acp::StopReason::EndTurn))
    }
}

/// The two sides under test: a protocol's name in the files, and how it marks a held request.
#[derive(Clone, Copy)]
enum Protocol {
    Mcp,
    Acp,
}

impl Protocol {
    fn name(self) -> &'static str {
        match self {
            Protocol::Mcp => "mcp",
            Protocol::Acp => "acp",
        }
    }

    /// Whether `text` is a request the server holds: its handler starts, then waits.
    fn is_held(self, text: &str) -> bool {
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            return false;
        };
        let (method, key) = match self {
            Protocol::Mcp => ("tools/call", "name"),
            Protocol::Acp => ("session/prompt", "sessionId"),
        };
        v.get("id").is_some() && v["method"] == method && v["params"][key] == "hold"
    }

    fn options(self) -> Options {
        match self {
            Protocol::Mcp => Options::mcp(),
            Protocol::Acp => Options::acp(),
        }
    }
}

/// A JSON value as text with every object's keys sorted: the form both sides compare in.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            let mut sorted = Map::new();
            for k in keys {
                sorted.insert(k.clone(), canonical(&o[k]));
            }
            Value::Object(sorted)
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// Sends `texts` to a fresh connection of `protocol`, one line each, waiting after each until
/// every held request that can have a place has started (so the order of the queue is the
/// order sent); then releases the held ones, ends the input, and answers every line the
/// connection wrote until it was done.
async fn run_case(
    protocol: Protocol,
    texts: &[String],
    bounds: Option<(usize, usize)>,
) -> Vec<Value> {
    let (server_end, test_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    let port = NdjsonPort::from_parts(server_read, server_write, &NdjsonOptions::default());
    let mut options = protocol.options();
    let mut in_flight = rpc::DEFAULT_MAX_IN_FLIGHT;
    if let Some((served, waiting)) = bounds {
        options = options.max_in_flight(served).max_waiting(waiting);
        in_flight = served;
    }
    let hold = Hold::new();
    let held = hold.clone();
    let served = tokio::spawn(async move {
        match protocol {
            Protocol::Mcp => rpc::serve(port, options, |_| mcp::HostSide(McpServer(held))).await,
            Protocol::Acp => rpc::serve(port, options, |_| acp::HostSide(AcpAgent(held))).await,
        }
    });
    let (test_read, mut test_write) = tokio::io::split(test_end);
    let written = tokio::spawn(async move {
        let mut lines = BufReader::new(test_read).lines();
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().await.expect("the server's output") {
            out.push(canonical(
                &serde_json::from_str(&line).expect("the server writes JSON"),
            ));
        }
        out
    });
    let mut held_sent = 0;
    for text in texts {
        assert!(
            !text.contains(['\n', '\r']),
            "a case's frame is one line: {text:?}"
        );
        test_write
            .write_all(format!("{text}\n").as_bytes())
            .await
            .unwrap();
        test_write.flush().await.unwrap();
        if protocol.is_held(text) {
            held_sent += 1;
        }
        let due = held_sent.min(in_flight);
        bounded(async {
            while hold.started.load(Ordering::SeqCst) < due {
                tokio::task::yield_now().await;
            }
        })
        .await;
    }
    hold.released.send_replace(true);
    test_write.shutdown().await.unwrap();
    drop(test_write);
    bounded(served).await.unwrap();
    bounded(written).await.unwrap()
}

#[tokio::test]
async fn both_sides_answer_every_case_alike() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/rpc-parity");
    let cases = std::fs::read_to_string(dir.join("cases.jsonl")).unwrap();
    let mut out = String::new();
    for line in cases.lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let bounds = case["bounds"].as_array().map(|b| {
            let n = |i: usize| usize::try_from(b[i].as_u64().unwrap()).unwrap();
            (n(0), n(1))
        });
        for protocol in [Protocol::Mcp, Protocol::Acp] {
            let texts = case
                .get(protocol.name())
                .or_else(|| case.get("send"))
                .and_then(Value::as_array)
                .expect("a case has `send`, or `mcp` and `acp`");
            let texts: Vec<String> = texts
                .iter()
                .map(|t| t.as_str().unwrap().to_owned())
                .collect();
            let answers = run_case(protocol, &texts, bounds).await;
            let record = serde_json::json!({
                "answers": answers,
                "case": case["case"],
                "protocol": protocol.name(),
            });
            out.push_str(&serde_json::to_string(&canonical(&record)).unwrap());
            out.push('\n');
        }
    }
    let path = dir.join("expected.jsonl");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &out).unwrap();
    }
    let recorded = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(recorded, out, "UPDATE_EXPECT=1 rewrites {}", path.display());
}

/// Each protocol's choice of how an unreadable message is answered ([`Options::null_id`]) is
/// what its schema's error response admits: the generated decoder of its message union is
/// asked whether an error response with `"id": null` is a message, and the connection's
/// answer to text that is not JSON is checked against it.
#[tokio::test]
async fn the_id_of_an_unreadable_answer_is_what_each_schema_admits() {
    let null_id = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#;
    let admits = [
        (
            Protocol::Mcp,
            contracts::wire::from_str::<mcp::JSONRPCMessage>(null_id).is_ok(),
        ),
        (
            Protocol::Acp,
            contracts::wire::from_str::<acp::JsonRpcMessage>(null_id).is_ok(),
        ),
    ];
    assert_eq!(
        admits.map(|(_, a)| a),
        [false, true],
        "MCP's id is never null, ACP's may be"
    );
    for (protocol, admits_null) in admits {
        let answers = run_case(protocol, &["hello".to_owned()], None).await;
        let id = answers[0].get("id");
        if admits_null {
            assert_eq!(id, Some(&Value::Null), "{}", protocol.name());
        } else {
            assert_eq!(id, None, "{}", protocol.name());
        }
    }
}
