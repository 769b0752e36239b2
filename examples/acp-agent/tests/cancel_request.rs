//! ACP's `$/cancel_request` against the agent served as the binary serves it (a
//! `contracts::rpc` connection with `Options::acp()`), driven frame by frame from the other
//! end of an in-memory port. A prompt it names ends its turn as `session/cancel` does: the
//! answer is the stop reason `cancelled` (ACP's cancellation marker for a prompt), not
//! -32800, and nothing of the turn follows. A permission request the cancelled turn stops
//! waiting for is cancelled at the client in turn, with `$/cancel_request` naming it. The
//! session takes a prompt again after each. Every wait is bounded; nothing asserts a timing.

use acp_agent::{Agent, Options};
use contracts::acp;
use contracts::port::{FramePortExt, Incoming, MemoryPort, Subscription, memory_pair};
use contracts::rpc::{self, Peer};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::sync::mpsc;

/// The client's end of the port: frames sent as JSON, and read one at a time.
struct Client {
    port: MemoryPort,
    frames: mpsc::UnboundedReceiver<Incoming>,
    _subscription: Subscription,
    /// Every frame read, in order.
    seen: Vec<Value>,
}

impl Client {
    /// The agent on one end of an in-memory port, this client on the other.
    fn with_agent() -> (Client, Peer) {
        let (agent_end, client_end) = memory_pair();
        let agent = rpc::connect(agent_end, rpc::Options::acp(), |peer| {
            acp::HostSide(Agent::new(peer, Options::default()))
        });
        let (tx, frames) = mpsc::unbounded_channel();
        let subscription = client_end.listen(move |frame| {
            let _ = tx.send(frame);
        });
        let client = Client {
            port: client_end,
            frames,
            _subscription: subscription,
            seen: Vec::new(),
        };
        (client, agent)
    }

    fn send(&self, message: Value) {
        self.port
            .send_json(&message)
            .expect("the agent's end is open");
    }

    /// The next frame from the agent.
    async fn next(&mut self) -> Value {
        let frame = tokio::time::timeout(Duration::from_secs(20), self.frames.recv())
            .await
            .expect("a frame within 20 s")
            .expect("the agent's end is open");
        let value: Value = serde_json::from_str(&frame.to_text().expect("text")).expect("JSON");
        self.seen.push(value.clone());
        value
    }

    /// Reads frames until one satisfies `found`: answers it.
    async fn until(&mut self, found: impl Fn(&Value) -> bool) -> Value {
        loop {
            let frame = self.next().await;
            if found(&frame) {
                return frame;
            }
        }
    }

    /// Calls `method` as request `id` and answers its result, the updates before it read.
    async fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        let answer = self.until(|f| is_answer(f, id)).await;
        answer["result"].clone()
    }

    /// `initialize` offering `fs.readTextFile`, then `session/new`: the session's id.
    async fn open(&mut self) -> String {
        let init = self
            .call(
                1,
                "initialize",
                json!({"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":false}}}),
            )
            .await;
        assert_eq!(init["protocolVersion"], 1);
        let session = self
            .call(2, "session/new", json!({"cwd":"/p","mcpServers":[]}))
            .await;
        session["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned()
    }

    /// Sends prompt `text` as request `id` in `session` (without reading its answer).
    fn prompt(&self, id: i64, session: &str, text: &str) {
        self.send(
            json!({"jsonrpc":"2.0","id":id,"method":"session/prompt","params":{
                "sessionId":session,"prompt":[{"type":"text","text":text}]
            }}),
        );
    }
}

/// Whether `frame` is the answer to request `id` (not a request of the agent's with that id).
fn is_answer(frame: &Value, id: i64) -> bool {
    frame["id"] == id && frame.get("method").is_none()
}

/// Whether `frame` is a `session/update` message chunk saying `text`.
fn says(frame: &Value, text: &str) -> bool {
    frame["method"] == "session/update"
        && frame["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
        && frame["params"]["update"]["content"]["text"] == text
}

#[tokio::test]
async fn a_cancel_request_ends_a_waiting_prompt_cancelled() {
    let (mut client, _agent) = Client::with_agent();
    let session = client.open().await;
    client.prompt(3, &session, "wait\nnever said");
    client
        .until(|f| says(f, "Waiting for session/cancel."))
        .await;
    client.send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}));
    // Nothing more of the turn: its answer is next, the stop reason `cancelled`.
    assert_eq!(
        client.next().await,
        json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}})
    );
    // The session takes a prompt again, and a cancel of a request answered changes nothing.
    client.send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}));
    client.prompt(4, &session, "again");
    let answer = client.until(|f| is_answer(f, 4)).await;
    assert_eq!(answer["result"], json!({"stopReason":"end_turn"}));
    assert!(client.seen.iter().any(|f| says(f, "again")));
    assert!(!client.seen.iter().any(|f| says(f, "never said")));
}

#[tokio::test]
async fn a_cancel_request_while_permission_is_asked_cancels_the_permission_request_too() {
    let (mut client, _agent) = Client::with_agent();
    let session = client.open().await;
    client.prompt(3, &session, "read /p/a.txt\nnever said");
    let asked = client
        .until(|f| f["method"] == "session/request_permission")
        .await;
    let permission = asked["id"].clone();
    assert!(permission.is_number(), "{asked}");
    client.send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}));
    // The turn stops waiting for the permission and cancels it at the client, then answers
    // the prompt `cancelled`.
    assert_eq!(
        client.next().await,
        json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":permission}})
    );
    assert_eq!(
        client.next().await,
        json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}})
    );
    // The client answers the cancelled permission request as ACP's SDK does (-32800); the
    // agent, which stopped waiting, drops it, and the session goes on.
    client.send(json!({"jsonrpc":"2.0","id":permission,"error":{"code":-32800,"message":"Request cancelled"}}));
    client.prompt(4, &session, "again");
    let answer = client.until(|f| is_answer(f, 4)).await;
    assert_eq!(answer["result"], json!({"stopReason":"end_turn"}));
    // Nothing was read, and the turn said nothing after the cancel.
    assert!(
        !client
            .seen
            .iter()
            .any(|f| f["method"] == "fs/read_text_file")
    );
    assert!(!client.seen.iter().any(|f| says(f, "never said")));
}
