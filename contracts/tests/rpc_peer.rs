//! `contracts::rpc` over ports (feature `rpc`), with the two-sided test protocol
//! (`tests/two_sided`): calls both ways at once (a server that calls its client back while it
//! serves), answers that never overtake the notifications before them, cancellation both ways
//! (MCP's unanswered, ACP's answered -32800, a handler that takes its cancellation over),
//! every refusal code, garbage, newline-delimited JSON over a duplex stream (as stdio) and
//! WebSocket. Every wait is bounded by [`bounded`]; nothing asserts a timing.

mod proto {
    contracts::protocol! { name: "rpc", dir: "tests/two_sided" }
}

use contracts::port::{
    FramePort, FramePortExt, Incoming, MemoryPort, NdjsonOptions, NdjsonPort, memory_pair,
};
use contracts::rpc::{self, Cancel, Id, Options, Peer};
use contracts::wire::CallError;
use proto::{Code, RpcFailure};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Barrier, Notify, mpsc};

/// Fails the test instead of hanging when `future` does not finish (a deadlock, a lost answer).
async fn bounded<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), future)
        .await
        .expect("did not finish within 20 s")
}

/// What the server's handlers share with the test.
#[derive(Default)]
struct Shared {
    /// Met by every `tools/call` named `wait` before any goes on.
    barrier: Mutex<Option<Arc<Barrier>>>,
    /// Released by the test for `tools/call` named `hold`.
    release: Notify,
    /// Handlers of `hold` (and `stoppable`) that started, and that were dropped before they
    /// finished.
    started: AtomicUsize,
    dropped: AtomicUsize,
    /// Handlers of `stoppable` that saw their cancellation and ended.
    stopped: AtomicUsize,
    heard: Mutex<Vec<String>>,
}

/// A server that calls its client back while it serves.
struct Server {
    client: Peer,
    shared: Arc<Shared>,
}

/// Counts a handler dropped before it finished.
struct DropCount<'a>(&'a AtomicUsize, bool);

impl Drop for DropCount<'_> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl proto::Host for Server {
    async fn tools_call(
        &self,
        payload: proto::ToolsCallPayload,
    ) -> Result<proto::ToolsCallResult, RpcFailure> {
        let shared = &self.shared;
        match payload.name.as_str() {
            // Asks the client while serving: the client's answer comes on the same connection.
            name if name.starts_with("ask ") => {
                let barrier = shared.barrier.lock().unwrap().clone();
                if let Some(barrier) = barrier {
                    barrier.wait().await;
                }
                let calls = proto::HostCalls(&self.client);
                calls
                    .log(proto::LogEvent::new(format!("serving {name}")))
                    .await
                    .map_err(|e| RpcFailure::internal_error(e.to_string()))?;
                let reply = calls
                    .sampling_create(proto::SamplingCreatePayload::new(&name[4..]))
                    .await
                    .map_err(|e| RpcFailure::internal_error(e.to_string()))?;
                Ok(proto::ToolsCallResult::new(reply.reply))
            }
            "hold" => {
                shared.started.fetch_add(1, Ordering::SeqCst);
                let mut guard = DropCount(&shared.dropped, false);
                shared.release.notified().await;
                guard.1 = true;
                Ok(proto::ToolsCallResult::new("released"))
            }
            // Sends `progress` events `N` times, then answers.
            name if name.starts_with("notify ") => {
                let (token, n) = name[7..].split_once(' ').unwrap();
                let n: i64 = n.parse().unwrap();
                for done in 1..=n {
                    proto::HostCalls(&self.client)
                        .progress(proto::ProgressEvent::new(token, done))
                        .await
                        .map_err(|e| RpcFailure::internal_error(e.to_string()))?;
                }
                Ok(proto::ToolsCallResult::new(format!("sent {n}")))
            }
            // Takes its cancellation over: once cancelled, says so and answers.
            "stoppable" => {
                let stop = rpc::take_cancellation().expect("a handler's request");
                assert!(!stop.is_cancelled());
                shared.started.fetch_add(1, Ordering::SeqCst);
                let mut guard = DropCount(&shared.dropped, false);
                stop.cancelled().await;
                guard.1 = true;
                proto::HostCalls(&self.client)
                    .progress(proto::ProgressEvent::new("stopping", 0))
                    .await
                    .map_err(|e| RpcFailure::internal_error(e.to_string()))?;
                shared.stopped.fetch_add(1, Ordering::SeqCst);
                Ok(proto::ToolsCallResult::new("stopped"))
            }
            // Asks the client to ping back while it hears a log line, and logs another after.
            "ping back" => {
                let calls = proto::HostCalls(&self.client);
                for line in ["ping back", "after"] {
                    calls
                        .log(proto::LogEvent::new(line))
                        .await
                        .map_err(|e| RpcFailure::internal_error(e.to_string()))?;
                }
                Ok(proto::ToolsCallResult::new("asked"))
            }
            "whoami" => Ok(proto::ToolsCallResult::new(format!(
                "{:?} {:?}",
                rpc::current_request(),
                self.client.relation()
            ))),
            "panic" => panic!("a handler that panics"),
            "own code" => Err(RpcFailure::new(
                Code::from(-32042),
                "the protocol's own code",
            )),
            other => Ok(proto::ToolsCallResult::new(format!("ran {other}"))),
        }
    }

    async fn ping(&self, _: proto::PingPayload) -> Result<proto::PingResult, RpcFailure> {
        Ok(proto::PingResult::new())
    }

    async fn progress(&self, payload: proto::ProgressEvent) {
        self.shared
            .heard
            .lock()
            .unwrap()
            .push(format!("{} {}", payload.token, payload.done));
    }
}

/// A client that answers sampling by upper-casing, keeps the log lines and the progress it
/// hears (progress slowly: a few turns of the scheduler each), and, given the server, pings
/// it while hearing a log line that says `ping back`.
#[derive(Default)]
struct Client {
    lines: Arc<Mutex<Vec<String>>>,
    progress: Arc<Mutex<Vec<String>>>,
    server: Option<Peer>,
}

impl proto::ClientHandler for Client {
    async fn sampling_create(
        &self,
        payload: proto::SamplingCreatePayload,
    ) -> Result<proto::SamplingCreateResult, RpcFailure> {
        Ok(proto::SamplingCreateResult::new(
            payload.prompt.to_uppercase(),
        ))
    }

    async fn log(&self, payload: proto::LogEvent) {
        if payload.line == "ping back"
            && let Some(server) = &self.server
        {
            let pinged = proto::ClientCalls(server)
                .ping(proto::PingPayload::new())
                .await;
            self.lines
                .lock()
                .unwrap()
                .push(format!("pinged: {}", pinged.is_ok()));
        }
        self.lines.lock().unwrap().push(payload.line);
    }

    async fn progress(&self, payload: proto::ProgressEvent) {
        for _ in 0..3 {
            tokio::task::yield_now().await;
        }
        self.progress
            .lock()
            .unwrap()
            .push(format!("{} {}", payload.token, payload.done));
    }
}

/// A server on one end of `port`, and its shared state.
fn server<P: FramePort + 'static>(port: P, options: Options) -> (Peer, Arc<Shared>) {
    let shared = Arc::new(Shared::default());
    let state = shared.clone();
    let peer = rpc::connect(port, options, move |client| {
        proto::HostSide(Server {
            client,
            shared: state,
        })
    });
    (peer, shared)
}

#[tokio::test]
async fn calls_go_both_ways_at_once() {
    let (a, b) = memory_pair();
    let (_server, shared) = server(a, Options::default());
    let client = Client::default();
    let lines = client.lines.clone();
    let to_server = rpc::connect(b, Options::default(), |_| proto::ClientSide(client));

    // Eight calls, each held in the server until all eight are there: they are served at
    // once, and each calls the client back while the others wait.
    const N: usize = 8;
    *shared.barrier.lock().unwrap() = Some(Arc::new(Barrier::new(N)));
    let calls = proto::ClientCalls(&to_server);
    let replies =
        bounded(futures_util::future::join_all((0..N).map(|i| {
            calls.tools_call(proto::ToolsCallPayload::new(format!("ask q{i}")))
        })))
        .await;
    for (i, reply) in replies.into_iter().enumerate() {
        assert_eq!(reply.unwrap().text, format!("Q{i}"));
    }
    let mut lines = lines.lock().unwrap().clone();
    lines.sort();
    let expected: Vec<String> = (0..N).map(|i| format!("serving ask q{i}")).collect();
    assert_eq!(lines, expected);
    // A notification of the client's reaches the server's handler, in order.
    for done in 0..3 {
        calls
            .progress(proto::ProgressEvent::new("t", done))
            .await
            .unwrap();
    }
    bounded(async {
        while shared.heard.lock().unwrap().len() < 3 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert_eq!(*shared.heard.lock().unwrap(), ["t 0", "t 1", "t 2"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_never_overtakes_the_notifications_before_it() {
    let (a, b) = memory_pair();
    let (_server, _) = server(a, Options::default());
    let client = Client::default();
    let progress = client.progress.clone();
    let to_server = rpc::connect(b, Options::default(), |_| proto::ClientSide(client));
    let calls = proto::ClientCalls(&to_server);
    // The server sends N notifications, then answers: each time, when the call returns, the
    // client's handler has heard all N (it hears them slowly; the answer came right after).
    const N: i64 = 20;
    for round in 0..200 {
        let token = format!("r{round}");
        let reply =
            bounded(calls.tools_call(proto::ToolsCallPayload::new(format!("notify {token} {N}"))))
                .await
                .unwrap();
        assert_eq!(reply.text, format!("sent {N}"));
        let heard = std::mem::take(&mut *progress.lock().unwrap());
        let expected: Vec<String> = (1..=N).map(|done| format!("{token} {done}")).collect();
        assert_eq!(heard, expected, "round {round}");
    }
}

#[tokio::test]
async fn a_call_made_while_hearing_a_notification_is_answered_at_once() {
    let (a, b) = memory_pair();
    let (_server, _) = server(a, Options::default());
    let lines = Arc::new(Mutex::new(Vec::new()));
    let heard = lines.clone();
    let to_server = rpc::connect(b, Options::default(), move |server| {
        proto::ClientSide(Client {
            lines: heard,
            server: Some(server),
            ..Client::default()
        })
    });
    // The client pings the server while it hears "ping back"; the ping's answer comes after
    // "after", which cannot be heard before "ping back" is: it resolves at once, and the
    // call's answer waits for both lines.
    let reply = bounded(
        proto::ClientCalls(&to_server).tools_call(proto::ToolsCallPayload::new("ping back")),
    )
    .await
    .unwrap();
    assert_eq!(reply.text, "asked");
    assert_eq!(
        *lines.lock().unwrap(),
        ["pinged: true", "ping back", "after"]
    );
}

#[tokio::test]
async fn a_handler_knows_the_request_it_serves() {
    let (a, b) = memory_pair();
    let (_server, _) = server(a, Options::default());
    let raw = Raw::new(b);
    raw.send(json!({"jsonrpc":"2.0","id":"w-1","method":"tools/call","params":{"name":"whoami"}}));
    let answer = raw.next().await;
    assert_eq!(
        answer["result"]["text"],
        r#"Some(String("w-1")) Some(String("w-1"))"#
    );
    assert_eq!(rpc::current_request(), None);
}

/// The other end of a port, driven frame by frame.
struct Raw {
    port: MemoryPort,
    frames: tokio::sync::Mutex<mpsc::UnboundedReceiver<Incoming>>,
    _subscription: contracts::port::Subscription,
}

impl Raw {
    fn new(port: MemoryPort) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let subscription = port.listen(move |frame| {
            let _ = tx.send(frame);
        });
        Raw {
            port,
            frames: tokio::sync::Mutex::new(rx),
            _subscription: subscription,
        }
    }

    fn send(&self, frame: Value) {
        self.port.send_json(&frame).unwrap();
    }

    fn send_text(&self, text: &str) {
        self.port.send(text.into()).unwrap();
    }

    /// The next frame, as JSON.
    async fn next(&self) -> Value {
        let frame = bounded(self.frames.lock().await.recv())
            .await
            .expect("a frame");
        serde_json::from_str(&frame.to_text().unwrap()).unwrap()
    }
}

#[tokio::test]
async fn refusals_carry_json_rpc_codes_and_garbage_never_ends_the_connection() {
    let (a, b) = memory_pair();
    let (_server, _) = server(a, Options::default());
    let raw = Raw::new(b);
    let cases: Vec<(&str, Value, i64)> = vec![
        ("not JSON", Value::Null, -32700),
        ("{\"jsonrpc\":", Value::Null, -32700),
        ("[]", Value::Null, -32600),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            Value::Null,
            -32600,
        ),
        ("42", Value::Null, -32600),
        ("{}", Value::Null, -32600),
        (
            r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#,
            json!(2),
            -32600,
        ),
        (r#"{"jsonrpc":"2.0","id":3,"method":7}"#, json!(3), -32600),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}"#,
            json!(4),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            Value::Null,
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"nope"}"#,
            json!(5),
            -32601,
        ),
        // Sent by a server, never answered by one.
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"sampling/create","params":{"prompt":"p"}}"#,
            json!(6),
            -32601,
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":""}}"#,
            json!(7),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"panic"}}"#,
            json!(8),
            -32603,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"own","method":"tools/call","params":{"name":"own code"}}"#,
            json!("own"),
            -32042,
        ),
    ];
    for (text, id, code) in &cases {
        raw.send_text(text);
        let answer = raw.next().await;
        assert_eq!(answer["jsonrpc"], "2.0", "{text}");
        assert_eq!(&answer["id"], id, "{text}: {answer}");
        assert_eq!(answer["error"]["code"], *code, "{text}: {answer}");
        assert!(answer["error"]["message"].is_string(), "{text}: {answer}");
    }
    // A response to no call of the server's, and a notification nobody has: nothing answered.
    raw.send_text(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#);
    raw.send_text(r#"{"jsonrpc":"2.0","method":"no/such/notification"}"#);
    // Still serving: a ping without params is read as `{}`.
    raw.send_text(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#);
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","id":9,"result":{}})
    );
}

#[tokio::test]
async fn a_cancel_notification_aborts_the_handler_and_nothing_is_answered() {
    let (a, b) = memory_pair();
    let (_server, shared) = server(a, Options::mcp());
    let raw = Raw::new(b);
    raw.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold"}}));
    bounded(async {
        while shared.started.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    // An id used while it is served is refused, and the one served goes on.
    raw.send(json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    let duplicate = raw.next().await;
    assert_eq!(duplicate["id"], Value::Null);
    assert_eq!(duplicate["error"]["code"], -32600);
    raw.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"no longer needed"}}));
    bounded(async {
        while shared.dropped.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    // Released now, the handler is gone: request 1 is never answered. The next answer is the
    // ping's, and the id can be used again.
    shared.release.notify_waiters();
    raw.send(json!({"jsonrpc":"2.0","id":2,"method":"ping"}));
    assert_eq!(raw.next().await["id"], 2);
    raw.send(json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","id":1,"result":{}})
    );
    // A cancel of nothing being served changes nothing.
    raw.send(
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"gone"}}),
    );
    raw.send(json!({"jsonrpc":"2.0","id":3,"method":"ping"}));
    assert_eq!(raw.next().await["id"], 3);
}

/// Waits until `count` reaches `n`.
async fn reaches(count: &AtomicUsize, n: usize) {
    bounded(async {
        while count.load(Ordering::SeqCst) < n {
            tokio::task::yield_now().await;
        }
    })
    .await;
}

#[tokio::test]
async fn acp_cancel_aborts_the_handler_and_still_answers_request_cancelled() {
    let (a, b) = memory_pair();
    let (_server, shared) = server(a, Options::acp().max_in_flight(1));
    let raw = Raw::new(b);
    // Served, then cancelled: the handler is dropped, and the request answered -32800.
    raw.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold"}}));
    reaches(&shared.started, 1).await;
    raw.send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}));
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"Request cancelled"}})
    );
    reaches(&shared.dropped, 1).await;
    // One served and one waiting for its place: the waiting one, cancelled, is answered
    // -32800 at once and never served; the served one goes on.
    raw.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold"}}));
    reaches(&shared.started, 2).await;
    raw.send(json!({"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"hold"}}));
    raw.send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"w"}}));
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","id":"w","error":{"code":-32800,"message":"Request cancelled"}})
    );
    // A second cancel of it, and a cancel of nothing served, change nothing.
    raw.send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"w"}}));
    raw.send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":99}}));
    shared.release.notify_waiters();
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","id":2,"result":{"text":"released"}})
    );
    raw.send(json!({"jsonrpc":"2.0","id":3,"method":"ping"}));
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","id":3,"result":{}})
    );
    assert_eq!(shared.started.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_handler_that_takes_its_cancellation_over_ends_as_it_sees_fit() {
    // ACP: the handler is not aborted; it sends what it still has to, and its own answer
    // goes out after.
    let (a, b) = memory_pair();
    let (_server, shared) = server(a, Options::acp());
    let raw = Raw::new(b);
    raw.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stoppable"}}));
    reaches(&shared.started, 1).await;
    raw.send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}));
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","method":"progress","params":{"token":"stopping","done":0}})
    );
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","id":1,"result":{"text":"stopped"}})
    );
    assert_eq!(shared.dropped.load(Ordering::SeqCst), 0);

    // MCP: the same handler ends the same way, and its answer is not sent.
    let (a, b) = memory_pair();
    let (_server, shared) = server(a, Options::mcp());
    let raw = Raw::new(b);
    raw.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stoppable"}}));
    reaches(&shared.started, 1).await;
    raw.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}));
    assert_eq!(raw.next().await["params"]["token"], "stopping");
    reaches(&shared.stopped, 1).await;
    raw.send(json!({"jsonrpc":"2.0","id":2,"method":"ping"}));
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","id":2,"result":{}})
    );
    assert_eq!(shared.dropped.load(Ordering::SeqCst), 0);

    // Outside a handler there is nothing to take.
    assert!(rpc::take_cancellation().is_none());
}

#[tokio::test]
async fn dropping_a_call_sends_acp_cancel_request() {
    let (a, b) = memory_pair();
    let caller = rpc::connect(a, Options::acp(), |_| proto::ClientSide(Client::default()));
    let raw = Raw::new(b);
    let params = serde_json::value::to_raw_value(&json!({"name":"slow"})).unwrap();
    {
        let call = caller.request("tools/call", &params);
        tokio::select! {
            _ = call => panic!("answered"),
            request = raw.next() => assert_eq!(request["id"], 1),
        }
    }
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}})
    );
    // The -32800 that follows is dropped: the next call gets its own answer.
    raw.send(json!({"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"Request cancelled"}}));
    let ping = tokio::spawn({
        let caller = caller.clone();
        async move {
            proto::ClientCalls(&caller)
                .ping(proto::PingPayload::new())
                .await
        }
    });
    let request = raw.next().await;
    assert_eq!(request["id"], 2);
    raw.send(json!({"jsonrpc":"2.0","id":2,"result":{}}));
    assert!(bounded(ping).await.unwrap().is_ok());
}

#[tokio::test]
async fn dropping_a_call_sends_the_cancel_notification() {
    let (a, b) = memory_pair();
    let caller = rpc::connect(a, Options::default().cancel(Cancel::lsp()), |_| {
        proto::ClientSide(Client::default())
    });
    let raw = Raw::new(b);
    let params = serde_json::value::to_raw_value(&json!({"name":"slow"})).unwrap();
    {
        let call = caller.request("tools/call", &params);
        // Polled until the request is out, then dropped unanswered.
        tokio::select! {
            _ = call => panic!("answered"),
            request = raw.next() => {
                assert_eq!(request["method"], "tools/call");
                assert_eq!(request["id"], 1);
            }
        }
    }
    assert_eq!(
        raw.next().await,
        json!({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}})
    );
    // The answer that comes anyway is dropped; the next call gets its own.
    raw.send(json!({"jsonrpc":"2.0","id":1,"result":{"text":"late"}}));
    let call = tokio::spawn({
        let caller = caller.clone();
        async move {
            proto::ClientCalls(&caller)
                .tools_call(proto::ToolsCallPayload::new("x"))
                .await
        }
    });
    let request = raw.next().await;
    assert_eq!(request["id"], 2);
    raw.send(json!({"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad","data":[1]}}));
    match bounded(call).await.unwrap() {
        Err(CallError::Call(rpc::Error::Remote(e))) => {
            assert_eq!((e.code, e.message.as_str()), (-32602, "bad"));
            assert_eq!(e.data, Some(json!([1])));
        }
        other => panic!("{other:?}"),
    }
    // A result the table refuses is the caller's error, naming the field.
    let call = tokio::spawn({
        let caller = caller.clone();
        async move {
            proto::ClientCalls(&caller)
                .tools_call(proto::ToolsCallPayload::new("x"))
                .await
        }
    });
    let request = raw.next().await;
    raw.send(json!({"jsonrpc":"2.0","id":request["id"],"result":{"text":7}}));
    let e = bounded(call).await.unwrap().unwrap_err();
    assert!(
        matches!(
            e,
            CallError::InvalidResult {
                method: "tools/call",
                ..
            }
        ),
        "{e}"
    );
    // A response that breaks JSON-RPC.
    let call = tokio::spawn({
        let caller = caller.clone();
        async move {
            proto::ClientCalls(&caller)
                .ping(proto::PingPayload::new())
                .await
        }
    });
    let request = raw.next().await;
    raw.send(json!({"jsonrpc":"2.0","id":request["id"],"error":{"code":"x"}}));
    match bounded(call).await.unwrap() {
        Err(CallError::Call(rpc::Error::InvalidResponse(why))) => {
            assert!(why.contains("error object"), "{why}")
        }
        other => panic!("{other:?}"),
    }
    // The port ends: a call waiting fails as closed, and so does a new one.
    let call = tokio::spawn({
        let caller = caller.clone();
        async move {
            proto::ClientCalls(&caller)
                .ping(proto::PingPayload::new())
                .await
        }
    });
    raw.next().await;
    raw.port.close();
    assert!(matches!(
        bounded(call).await.unwrap(),
        Err(CallError::Call(rpc::Error::Closed))
    ));
    bounded(caller.closed()).await;
    assert!(matches!(
        proto::ClientCalls(&caller)
            .ping(proto::PingPayload::new())
            .await,
        Err(CallError::Call(rpc::Error::Closed))
    ));
}

#[tokio::test]
async fn requests_over_the_bounds_are_refused_not_buffered() {
    let (a, b) = memory_pair();
    let (_server, shared) = server(a, Options::default().max_in_flight(1).max_waiting(1));
    let raw = Raw::new(b);
    const N: i64 = 6;
    for id in 0..N {
        raw.send(json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"hold"}}));
    }
    // One served and one waiting at most: the rest are refused at once.
    let mut refused = Vec::new();
    while refused.len() < (N - 2) as usize {
        let answer = raw.next().await;
        assert_eq!(answer["error"]["code"], -32000, "{answer}");
        assert_eq!(
            answer["error"]["message"],
            "overloaded: 1 requests are waiting to be served; send this one again after an answer"
        );
        refused.push(answer["id"].as_i64().unwrap());
    }
    // Released one at a time, the others are answered.
    let mut answered = Vec::new();
    while answered.len() + refused.len() < N as usize {
        bounded(async {
            while shared.started.load(Ordering::SeqCst) <= answered.len() {
                tokio::task::yield_now().await;
            }
        })
        .await;
        shared.release.notify_one();
        let answer = raw.next().await;
        if answer["error"]["code"] == -32000 {
            refused.push(answer["id"].as_i64().unwrap());
        } else {
            assert_eq!(answer["result"]["text"], "released", "{answer}");
            answered.push(answer["id"].as_i64().unwrap());
        }
    }
    assert!(answered.len() <= 2 && !answered.is_empty(), "{answered:?}");
    let mut all: Vec<i64> = answered.iter().chain(&refused).copied().collect();
    all.sort();
    assert_eq!(all, (0..N).collect::<Vec<_>>());
}

#[tokio::test]
async fn ndjson_over_a_duplex_stream_as_stdio() {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let stdio = NdjsonPort::from_parts(server_read, server_write, &NdjsonOptions::default());
    let shared = Arc::new(Shared::default());
    let state = shared.clone();
    let served = tokio::spawn(rpc::serve(stdio, Options::mcp(), move |client| {
        proto::HostSide(Server {
            client,
            shared: state,
        })
    }));
    let client = Client::default();
    let lines = client.lines.clone();
    let port = NdjsonPort::new(client_end, &NdjsonOptions::default());
    let to_server = rpc::connect(port, Options::mcp(), |_| proto::ClientSide(client));
    let calls = proto::ClientCalls(&to_server);
    let reply = bounded(calls.tools_call(proto::ToolsCallPayload::new("ask over stdio")))
        .await
        .unwrap();
    assert_eq!(reply.text, "OVER STDIO");
    assert_eq!(*lines.lock().unwrap(), ["serving ask over stdio"]);
    // The client goes: the server's input ends, it answers what it took, and `serve` returns.
    to_server.close();
    bounded(served).await.unwrap();
}

#[tokio::test]
async fn ndjson_input_that_ends_still_gets_its_answers() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let stdio = NdjsonPort::new(server_end, &NdjsonOptions::default());
    let served = tokio::spawn(rpc::serve(stdio, Options::default(), |client| {
        proto::HostSide(Server {
            client,
            shared: Arc::default(),
        })
    }));
    let (read, mut write) = tokio::io::split(client_end);
    // `cat requests | server`: lines, garbage among them, then the end of input.
    write
        .write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n\
              garbage\n\
              {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
        )
        .await
        .unwrap();
    write.shutdown().await.unwrap();
    let mut answers = Vec::new();
    let mut lines = BufReader::new(read).lines();
    while let Some(line) = bounded(lines.next_line()).await.unwrap() {
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    bounded(served).await.unwrap();
    answers.sort_by_key(|a| a["id"].as_i64().unwrap_or(0));
    assert_eq!(
        answers,
        [
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":answers[0]["error"]["message"]}}),
            json!({"jsonrpc":"2.0","id":1,"result":{"text":"ran a"}}),
            json!({"jsonrpc":"2.0","id":2,"result":{}}),
        ]
    );
}

#[tokio::test]
async fn over_websocket() {
    use contracts::port::{WebSocketOptions, WebSocketPort};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let accepted = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let port = WebSocketPort::accept(stream, &WebSocketOptions::default())
            .await
            .unwrap();
        rpc::serve(port, Options::mcp(), |client| {
            proto::HostSide(Server {
                client,
                shared: Arc::default(),
            })
        })
        .await;
    });
    let port = WebSocketPort::connect(&url, &WebSocketOptions::default())
        .await
        .unwrap();
    let to_server = rpc::connect(port, Options::mcp(), |_| {
        proto::ClientSide(Client::default())
    });
    let reply =
        bounded(proto::ClientCalls(&to_server).tools_call(proto::ToolsCallPayload::new("ask ws")))
            .await
            .unwrap();
    assert_eq!(reply.text, "WS");
    to_server.close();
    bounded(accepted).await.unwrap();
}

#[test]
fn ids_read_and_print_as_json_rpc_has_them() {
    assert_eq!(serde_json::from_str::<Id>("7").unwrap(), Id::Number(7));
    assert_eq!(serde_json::from_str::<Id>("\"a\"").unwrap(), Id::from("a"));
    assert_eq!(Id::from("a").to_string(), "\"a\"");
    assert!(serde_json::from_str::<Id>("1.5").is_err());
}
