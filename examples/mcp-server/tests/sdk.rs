//! The server and the generated Rust MCP client against software nobody here wrote, the
//! official TypeScript SDK (`@modelcontextprotocol/sdk`, pinned by
//! `tests/conformance/package-lock.json`), both ways:
//!
//! - the SDK's `Client` against the `mcp-server` binary over stdio and Streamable HTTP
//!   (`tests/conformance/sdk/client.test.mjs`): initialize, every tool listed and called,
//!   every resource read, every prompt got, completion, the refusals MCP asks for;
//! - the generated client over `contracts::rpc` against a server built with the SDK's
//!   `McpServer` (`tests/conformance/sdk/server.mjs`), over stdio (`rpc::connect` on its
//!   pipes) and over the SDK's Streamable HTTP transport (`rpc::http::connect`): initialize,
//!   `tools/list`, `tools/call` (text, structured content), a tool that asks this client to
//!   sample an LLM (answered by the generated `ClientHandler`), and an unknown tool.
//!
//! Skipped, saying so, only when `node` is missing. `cargo xtask test` installs the package
//! (step `npm-ci:tests/conformance`); run alone, this test runs `npm ci` there when it has no
//! `node_modules`.

use contracts::mcp::{
    self, ClientCalls, ClientCapabilities, ClientCapabilitiesSampling, ContentBlock,
    CreateMessageOutcome, CreateMessageRequestParams, CreateMessageResult, Implementation,
    InitializeRequestParams, JsonRpcError, NotificationParams, PaginatedRequestParams, Role,
    SamplingMessageContent, SamplingMessageContentBlock, TextContent,
};
use contracts::port::{NdjsonOptions, NdjsonPort};
use contracts::rpc::{self, Options};
use contracts::wire::RawJson;
use serde_json::json;
use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;
use test_support::{has, node_test, root};

/// Installs the suite's package once for every test of this file.
fn prepare() -> std::path::PathBuf {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _once = INSTALL.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = root().join("tests/conformance");
    if !dir.join("node_modules").exists() {
        test_support::npm(&dir, &["ci", "--no-audit", "--no-fund"]);
    }
    dir
}

/// Fails the test instead of hanging.
async fn bounded<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .expect("did not finish within 60 s")
}

/// A client that answers sampling by echoing the question, and keeps what it was asked.
#[derive(Clone, Default)]
struct Sampler {
    asked: std::sync::Arc<Mutex<Vec<String>>>,
}

impl mcp::ClientHandler for Sampler {
    async fn sampling_create_message(
        &self,
        payload: CreateMessageRequestParams,
    ) -> Result<CreateMessageOutcome, JsonRpcError> {
        let question = payload
            .messages
            .iter()
            .find_map(|m| match &m.content {
                SamplingMessageContent::SamplingMessageContentBlock(
                    SamplingMessageContentBlock::TextContent(t),
                ) => Some(t.text.clone()),
                _ => None,
            })
            .unwrap_or_default();
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(question.clone());
        let reply = SamplingMessageContent::from(SamplingMessageContentBlock::from(
            TextContent::new(format!("you asked {question:?}")),
        ));
        Ok(CreateMessageResult::new(Role::Assistant, reply, "rust-test-model").into())
    }
}

fn arguments(value: serde_json::Value) -> BTreeMap<String, RawJson> {
    match value {
        serde_json::Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| (k, RawJson::from_value(&v).expect("JSON")))
            .collect(),
        _ => BTreeMap::new(),
    }
}

fn texts(content: &[ContentBlock]) -> Vec<&str> {
    content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::TextContent(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_sdk_client_calls_every_tool_resource_and_prompt_over_stdio_and_http() {
    if !has("node") {
        eprintln!("SKIPPED the SDK's client against mcp-server: node is not installed");
        return;
    }
    let dir = prepare();
    let report = node_test(
        &dir,
        &["sdk/client.test.mjs"],
        &[
            ("MCP_SERVER_BIN", env!("CARGO_BIN_EXE_mcp-server")),
            ("RUST_LOG", "warn"),
        ],
        Duration::from_secs(180),
    );
    assert!(
        report.contains("# pass 2"),
        "not both transports passed:\n{report}"
    );
}

/// Starts the SDK's server (`sdk/server.mjs` with `args`), killed when dropped.
fn sdk_server(dir: &std::path::Path, args: &[&str]) -> tokio::process::Child {
    tokio::process::Command::new("node")
        .arg("sdk/server.mjs")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generated_client_talks_to_an_sdk_server_over_stdio() {
    if !has("node") {
        eprintln!(
            "SKIPPED the generated MCP client against the SDK's server: node is not installed"
        );
        return;
    }
    let mut server = sdk_server(&prepare(), &[]);
    let port = NdjsonPort::from_parts(
        server.stdout.take().expect("piped stdout"),
        server.stdin.take().expect("piped stdin"),
        &NdjsonOptions::default(),
    );
    let sampler = Sampler::default();
    let handler = sampler.clone();
    let peer = rpc::connect(port, Options::mcp(), move |_| mcp::ClientSide(handler));
    exercise(&peer, &sampler).await;
    peer.close();
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generated_client_talks_to_an_sdk_server_over_streamable_http() {
    use tokio::io::AsyncBufReadExt as _;
    if !has("node") {
        eprintln!(
            "SKIPPED the generated MCP client against the SDK's server: node is not installed"
        );
        return;
    }
    let mut server = sdk_server(&prepare(), &["--http"]);
    let mut lines = tokio::io::BufReader::new(server.stdout.take().expect("piped stdout")).lines();
    let first = bounded(lines.next_line())
        .await
        .expect("the SDK server's stdout")
        .expect("the SDK server prints its URL");
    let url = first
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {first:?}"));
    let sampler = Sampler::default();
    let handler = sampler.clone();
    let peer = rpc::http::connect(url, Options::mcp(), move |_| mcp::ClientSide(handler))
        .expect("a valid URL");
    exercise(&peer, &sampler).await;
    peer.close();
    drop(server);
}

/// What the generated client does against the SDK's server, over a connected `peer` whose
/// handler is `sampler`.
async fn exercise(peer: &rpc::Peer, sampler: &Sampler) {
    let calls = ClientCalls(peer);
    let capabilities = ClientCapabilities::new().sampling(ClientCapabilitiesSampling::new());
    let init = InitializeRequestParams::new(
        mcp::LATEST_PROTOCOL_VERSION,
        capabilities,
        Implementation::new("generated-rust-client", "1.0.0"),
    );
    let answer = bounded(calls.initialize(init)).await.expect("initialize");
    assert_eq!(answer.server_info.name, "sdk-fixture-server");
    assert_eq!(answer.protocol_version, mcp::LATEST_PROTOCOL_VERSION);
    assert!(answer.capabilities.tools.is_some());
    bounded(calls.notifications_initialized(NotificationParams::new()))
        .await
        .expect("initialized");

    let listed = bounded(calls.tools_list(PaginatedRequestParams::new()))
        .await
        .expect("tools/list");
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["echo", "add", "ask_llm"]);
    let add = &listed.tools[1];
    let props = add
        .input_schema
        .properties
        .as_ref()
        .expect("add's properties");
    assert_eq!(props["a"]["type"].get(), r#""number""#);
    assert!(add.output_schema.is_some());

    let call = |name: &str, args: serde_json::Value| {
        mcp::CallToolRequestParams::new(name).arguments(arguments(args))
    };
    let result = |outcome: mcp::CallToolOutcome| match outcome {
        mcp::CallToolOutcome::CallToolResult(r) => r,
        other => panic!("a task, not a result: {other:?}"),
    };
    let echo = result(
        bounded(calls.tools_call(call("echo", json!({"text": "héllo"}))))
            .await
            .expect("echo"),
    );
    assert_eq!(texts(&echo.content), ["héllo"]);
    let sum = result(
        bounded(calls.tools_call(call("add", json!({"a": 2, "b": 3.5}))))
            .await
            .expect("add"),
    );
    assert_eq!(texts(&sum.content), ["5.5"]);
    let structured = sum.structured_content.expect("structured content");
    assert_eq!(structured["sum"].get(), "5.5");

    // The server asks this client to sample while it serves the call.
    let asked = result(
        bounded(calls.tools_call(call("ask_llm", json!({"question": "why?"}))))
            .await
            .expect("ask_llm"),
    );
    assert_eq!(
        texts(&asked.content),
        [r#"the model said: you asked "why?""#]
    );
    assert_eq!(
        *sampler.asked.lock().unwrap_or_else(PoisonError::into_inner),
        ["why?"]
    );

    // The SDK's McpServer answers an unknown tool with a result whose isError is true (MCP
    // 2025-11-25 asks for -32602; this server is the SDK's, so this is what it says).
    let unknown = result(
        bounded(calls.tools_call(call("no_such_tool", json!({}))))
            .await
            .expect("an answer"),
    );
    assert_eq!(unknown.is_error, Some(true));
    assert!(texts(&unknown.content)[0].contains("no_such_tool"));
}
