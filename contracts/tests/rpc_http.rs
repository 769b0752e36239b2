//! `contracts::rpc::http` (feature `http`), MCP's Streamable HTTP, on 127.0.0.1 with the test
//! protocol `tests/rpc_http` (MCP's shape in small): the session rules (header required,
//! unknown and ended sessions, DELETE, the revision header), refusals by HTTP status, `Host`
//! and `Origin` checks, answers as JSON or as an event stream carrying related messages,
//! resumption by `Last-Event-ID` (SSE polling), idle sessions ended on a timer, and the Rust
//! client against the Rust server.
//! Every wait is bounded; nothing asserts a timing.

mod proto {
    contracts::protocol! { name: "rpc", dir: "tests/rpc_http" }
}

use bytes::Bytes;
use contracts::rpc::http::{HttpOptions, HttpServer};
use contracts::rpc::{self, Options, Peer};
use contracts::wire::CallError;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::client::legacy::{Client, connect::HttpConnector};
use proto::Failure;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

async fn bounded<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), future)
        .await
        .expect("did not finish within 20 s")
}

#[derive(Default)]
struct Shared {
    /// Released by the test for `poll`.
    release: Notify,
    /// `hold` handlers that started, and that were dropped unfinished.
    started: AtomicUsize,
    dropped: AtomicUsize,
    /// Each session's peer, in the order the sessions were made.
    sessions: Mutex<Vec<Peer>>,
}

struct Server {
    client: Peer,
    shared: Arc<Shared>,
}

struct DropCount<'a>(&'a AtomicUsize);

impl Drop for DropCount<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn failure(e: impl std::fmt::Display) -> Failure {
    Failure::internal_error(e.to_string())
}

impl proto::Host for Server {
    async fn initialize(
        &self,
        payload: proto::InitializePayload,
    ) -> Result<proto::InitializeResult, Failure> {
        Ok(proto::InitializeResult::new(payload.protocol_version))
    }

    async fn tools_call(
        &self,
        payload: proto::ToolsCallPayload,
    ) -> Result<proto::ToolsCallResult, Failure> {
        let calls = proto::HostCalls(&self.client);
        let text = match payload.name.as_str() {
            "echo" => "echo".to_owned(),
            "progress" => {
                let steps = payload.steps.unwrap_or(3);
                for i in 1..=steps {
                    calls
                        .notifications_progress(proto::NotificationsProgressEvent::new(i, steps))
                        .await
                        .map_err(failure)?;
                }
                "done".to_owned()
            }
            "sample" => {
                let reply = calls
                    .sampling_create_message(proto::SamplingCreateMessagePayload::new("hi"))
                    .await
                    .map_err(failure)?;
                reply.reply
            }
            "poll" => {
                // Ends this request's stream, goes on, and answers on the stream resumed.
                let closed = self.client.close_sse_stream();
                self.shared.release.notified().await;
                calls
                    .notifications_progress(proto::NotificationsProgressEvent::new(1, 1))
                    .await
                    .map_err(failure)?;
                format!("polled {closed}")
            }
            "hold" => {
                self.shared.started.fetch_add(1, Ordering::SeqCst);
                let _count = DropCount(&self.shared.dropped);
                std::future::pending::<()>().await;
                unreachable!()
            }
            "unrelated" => {
                // A task of its own: related to no request, so on the GET stream.
                let peer = self.client.clone();
                tokio::spawn(async move {
                    proto::HostCalls(&peer)
                        .notifications_message(proto::NotificationsMessageEvent::new("unprompted"))
                        .await
                })
                .await
                .map_err(failure)?
                .map_err(failure)?;
                "sent".to_owned()
            }
            other => return Err(Failure::invalid_params(format!("no tool {other}"))),
        };
        Ok(proto::ToolsCallResult::new(text))
    }

    async fn ping(&self, _: proto::PingPayload) -> Result<proto::PingResult, Failure> {
        Ok(proto::PingResult::new())
    }
}

/// A server on 127.0.0.1, port 0, with `options`.
async fn start(options: HttpOptions) -> (String, Arc<Shared>) {
    let shared = Arc::new(Shared::default());
    let state = shared.clone();
    let server = HttpServer::bind("127.0.0.1:0", options, move |client| {
        state.sessions.lock().unwrap().push(client.clone());
        proto::HostSide(Server {
            client,
            shared: state.clone(),
        })
    })
    .await
    .unwrap();
    let url = server.url();
    tokio::spawn(server.run());
    (url, shared)
}

/// A plain HTTP client, every header as the test gives it.
struct Raw {
    http: Client<HttpConnector, Full<Bytes>>,
    url: String,
}

const BOTH: &str = "application/json, text/event-stream";

impl Raw {
    fn new(url: &str) -> Self {
        Raw {
            http: Client::builder(hyper_util::rt::TokioExecutor::new()).build_http(),
            url: url.to_owned(),
        }
    }

    async fn send(
        &self,
        method: Method,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Response<Incoming> {
        let mut request = Request::builder().method(method).uri(&self.url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_owned())))
            .unwrap();
        bounded(self.http.request(request)).await.unwrap()
    }

    /// POSTs `message` as a client does, in `session` if given.
    async fn post(&self, session: Option<&str>, message: &Value) -> Response<Incoming> {
        self.post_accepting(session, BOTH, message).await
    }

    async fn post_accepting(
        &self,
        session: Option<&str>,
        accept: &str,
        message: &Value,
    ) -> Response<Incoming> {
        let mut headers = vec![("content-type", "application/json"), ("accept", accept)];
        if let Some(session) = session {
            headers.push(("mcp-session-id", session));
        }
        self.send(Method::POST, &headers, &message.to_string())
            .await
    }

    /// Initializes a session speaking `version`; answers its id.
    async fn initialize(&self, version: &str) -> String {
        let response = self
            .post(None, &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":version}}))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(media(&response), "application/json");
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(session.len() >= 32 && session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        let answer = body_json(response).await;
        assert_eq!(answer["result"]["protocolVersion"], version);
        session
    }

    async fn delete(&self, session: Option<&str>) -> StatusCode {
        let headers: Vec<(&str, &str)> = session
            .map(|s| vec![("mcp-session-id", s)])
            .unwrap_or_default();
        self.send(Method::DELETE, &headers, "").await.status()
    }

    async fn get(&self, session: &str, last_event: Option<&str>) -> Response<Incoming> {
        let mut headers = vec![("accept", "text/event-stream"), ("mcp-session-id", session)];
        if let Some(last) = last_event {
            headers.push(("last-event-id", last));
        }
        self.send(Method::GET, &headers, "").await
    }
}

fn media(response: &Response<Incoming>) -> String {
    response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

async fn body_json(response: Response<Incoming>) -> Value {
    let bytes = bounded(response.into_body().collect())
        .await
        .unwrap()
        .to_bytes();
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

/// One SSE event as the test reads it.
#[derive(Debug, Default, Clone)]
struct Event {
    id: Option<String>,
    retry: Option<String>,
    data: String,
}

impl Event {
    fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

/// The events of a response, one at a time; `None` at the end of the stream.
struct Events {
    body: Incoming,
    text: String,
}

impl Events {
    fn of(response: Response<Incoming>) -> Self {
        assert_eq!(media(&response), "text/event-stream");
        Events {
            body: response.into_body(),
            text: String::new(),
        }
    }

    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.text.find("\n\n") {
                let block: String = self.text.drain(..end + 2).collect();
                let mut event = Event::default();
                for line in block.lines() {
                    let (name, value) = line
                        .split_once(": ")
                        .unwrap_or((line.trim_end_matches(':'), ""));
                    match name {
                        "id" => event.id = Some(value.to_owned()),
                        "retry" => event.retry = Some(value.to_owned()),
                        "data" => event.data.push_str(value),
                        _ => {}
                    }
                }
                return Some(event);
            }
            let frame = bounded(self.body.frame()).await?;
            let data = frame.unwrap().into_data().unwrap_or_default();
            self.text.push_str(std::str::from_utf8(&data).unwrap());
        }
    }

    async fn all(mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }
}

fn call(id: i64, name: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name}})
}

#[tokio::test]
async fn sessions_start_with_initialize_and_end_with_delete() {
    let (url, _) = start(HttpOptions::default()).await;
    let raw = Raw::new(&url);
    // Anything but initialize needs a session.
    let response = raw.post(None, &call(1, "echo")).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(body_json(response).await["error"]["code"], -32000);
    let session = raw.initialize("2025-11-25").await;
    // A request whose only message is its response is answered as JSON.
    let response = raw.post(Some(&session), &call(1, "echo")).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        body_json(response).await,
        json!({"jsonrpc":"2.0","id":1,"result":{"text":"echo"}})
    );
    // A notification, and a response to nothing asked: 202, no body.
    for message in [
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":77,"result":{}}),
    ] {
        let response = raw.post(Some(&session), &message).await;
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        assert!(
            bounded(response.into_body().collect())
                .await
                .unwrap()
                .to_bytes()
                .is_empty()
        );
    }
    // A second initialize in the session, an unknown session.
    let again = json!({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25"}});
    let response = raw.post(Some(&session), &again).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(body_json(response).await["error"]["code"], -32600);
    let response = raw.post(Some("no-such-session"), &call(3, "echo")).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    // DELETE ends it: 404 from then on, for every method.
    assert_eq!(raw.delete(None).await, StatusCode::BAD_REQUEST);
    assert_eq!(raw.delete(Some(&session)).await, StatusCode::OK);
    assert_eq!(
        raw.post(Some(&session), &call(4, "echo")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        raw.get(&session, None).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(raw.delete(Some(&session)).await, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn idle_sessions_end_on_a_timer() {
    let options = HttpOptions::default().idle_timeout(Duration::from_millis(100));
    let (url, shared) = start(options).await;
    let raw = Raw::new(&url);
    // One session reads its GET stream all along; the other is left alone after it is made.
    let listening = raw.initialize("2025-11-25").await;
    let stream = raw.get(&listening, None).await;
    assert_eq!(stream.status(), StatusCode::OK);
    let idle = raw.initialize("2025-11-25").await;
    let peers = shared.sessions.lock().unwrap().clone();
    assert_eq!(peers.len(), 2);
    // No request comes and no session is made: the idle one ends by itself, its connection
    // closed.
    bounded(peers[1].closed()).await;
    assert_eq!(
        raw.post(Some(&idle), &call(1, "echo")).await.status(),
        StatusCode::NOT_FOUND
    );
    // The one listening had been idle longer (its last request came first), and lives on.
    assert!(!peers[0].is_closed());
    let response = raw.post(Some(&listening), &call(2, "echo")).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(body_json(response).await["result"]["text"], "echo");
    // Its stream closed, it ends in its turn.
    drop(stream);
    bounded(peers[0].closed()).await;
    assert_eq!(
        raw.post(Some(&listening), &call(3, "echo")).await.status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn bad_requests_are_refused_by_status() {
    let (url, shared) = start(HttpOptions::default().max_body(1000)).await;
    let raw = Raw::new(&url);
    let session = raw.initialize("2025-11-25").await;
    let s = session.as_str();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    // Method, headers, body; the status and the JSON-RPC code of the body.
    type Case<'a> = (
        Method,
        Vec<(&'a str, &'a str)>,
        String,
        StatusCode,
        Option<i64>,
    );
    let cases: Vec<Case<'_>> = vec![
        // Not JSON, a batch, not a message.
        (
            Method::POST,
            vec![
                ("content-type", "application/json"),
                ("accept", BOTH),
                ("mcp-session-id", s),
            ],
            "{".into(),
            StatusCode::BAD_REQUEST,
            Some(-32700),
        ),
        (
            Method::POST,
            vec![
                ("content-type", "application/json"),
                ("accept", BOTH),
                ("mcp-session-id", s),
            ],
            format!("[{ping}]"),
            StatusCode::BAD_REQUEST,
            Some(-32600),
        ),
        (
            Method::POST,
            vec![
                ("content-type", "application/json"),
                ("accept", BOTH),
                ("mcp-session-id", s),
            ],
            "{}".into(),
            StatusCode::BAD_REQUEST,
            Some(-32600),
        ),
        // Neither media type accepted, not JSON sent.
        (
            Method::POST,
            vec![
                ("content-type", "application/json"),
                ("accept", "text/html"),
                ("mcp-session-id", s),
            ],
            ping.into(),
            StatusCode::NOT_ACCEPTABLE,
            Some(-32000),
        ),
        (
            Method::POST,
            vec![
                ("content-type", "text/plain"),
                ("accept", BOTH),
                ("mcp-session-id", s),
            ],
            ping.into(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Some(-32000),
        ),
        // A revision the server does not speak.
        (
            Method::POST,
            vec![
                ("content-type", "application/json"),
                ("accept", BOTH),
                ("mcp-session-id", s),
                ("mcp-protocol-version", "1999-01-01"),
            ],
            ping.into(),
            StatusCode::BAD_REQUEST,
            Some(-32000),
        ),
        // Over the body limit.
        (
            Method::POST,
            vec![
                ("content-type", "application/json"),
                ("accept", BOTH),
                ("mcp-session-id", s),
            ],
            format!(
                r#"{{"jsonrpc":"2.0","method":"x","params":{{"p":"{}"}}}}"#,
                "x".repeat(2000)
            ),
            StatusCode::PAYLOAD_TOO_LARGE,
            Some(-32000),
        ),
        // GET without text/event-stream, without a session; another method.
        (
            Method::GET,
            vec![("accept", "application/json"), ("mcp-session-id", s)],
            String::new(),
            StatusCode::NOT_ACCEPTABLE,
            Some(-32000),
        ),
        (
            Method::GET,
            vec![("accept", "text/event-stream")],
            String::new(),
            StatusCode::BAD_REQUEST,
            Some(-32000),
        ),
        (
            Method::PUT,
            vec![("mcp-session-id", s)],
            String::new(),
            StatusCode::METHOD_NOT_ALLOWED,
            Some(-32000),
        ),
    ];
    for (method, headers, body, status, code) in cases {
        let response = raw.send(method.clone(), &headers, &body).await;
        assert_eq!(response.status(), status, "{method} {headers:?} {body:.60}");
        let answer = body_json(response).await;
        assert_eq!(
            answer["error"]["code"].as_i64(),
            code,
            "{method} {headers:?}: {answer}"
        );
        // No id at all: MCP's error response has an optional id, never null.
        if code.is_some() {
            assert_eq!(answer.get("id"), None, "{method} {headers:?}: {answer}");
        }
    }
    // The revisions the server speaks pass; another path is not the endpoint.
    let response = raw
        .send(
            Method::POST,
            &[
                ("content-type", "application/json"),
                ("accept", BOTH),
                ("mcp-session-id", s),
                ("mcp-protocol-version", "2025-03-26"),
            ],
            ping,
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let other = Raw::new(&url.replace("/mcp", "/other"));
    assert_eq!(
        other.post(Some(s), &call(1, "echo")).await.status(),
        StatusCode::NOT_FOUND
    );
    // A request whose id is still open in the session is refused; the first goes on.
    let held = {
        let raw = Raw::new(&url);
        let session = session.clone();
        tokio::spawn(async move { raw.post(Some(&session), &call(9, "hold")).await.status() })
    };
    bounded(async {
        while shared.started.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    let response = raw.post(Some(s), &call(9, "echo")).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(body_json(response).await["error"]["code"], -32600);
    // Cancelled, the held request's POST is answered with an empty stream.
    let cancel =
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}});
    assert_eq!(
        raw.post(Some(s), &cancel).await.status(),
        StatusCode::ACCEPTED
    );
    assert_eq!(bounded(held).await.unwrap(), StatusCode::OK);
    assert_eq!(shared.dropped.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn host_and_origin_are_checked_against_the_allow_list() {
    let (url, _) = start(HttpOptions::default()).await;
    let raw = Raw::new(&url);
    let authority = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}).to_string();
    let attempt = |host: String, origin: Option<String>| {
        let raw = &raw;
        let init = init.clone();
        async move {
            let mut headers = vec![
                ("content-type", "application/json".to_owned()),
                ("accept", BOTH.to_owned()),
                ("host", host),
            ];
            if let Some(origin) = origin {
                headers.push(("origin", origin));
            }
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
            let response = raw.send(Method::POST, &headers, &init).await;
            let status = response.status();
            (status, body_json(response).await)
        }
    };
    // What the conformance suite's dns-rebinding-protection sends: both headers the attacker's.
    let (status, body) = attempt(
        "evil.example.com".into(),
        Some("http://evil.example.com".into()),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["error"]["code"], -32000);
    // The local host with a foreign origin, a foreign host alone.
    assert_eq!(
        attempt(authority.clone(), Some("http://evil.example.com".into()))
            .await
            .0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        attempt("evil.example.com:80".into(), None).await.0,
        StatusCode::FORBIDDEN
    );
    // The server's own host and origin, and the other local names.
    assert_eq!(
        attempt(authority.clone(), Some(format!("http://{authority}")))
            .await
            .0,
        StatusCode::OK
    );
    assert_eq!(
        attempt(
            "localhost:1234".into(),
            Some("http://localhost:5173".into())
        )
        .await
        .0,
        StatusCode::OK
    );
    assert_eq!(attempt("[::1]".into(), None).await.0, StatusCode::OK);
}

#[tokio::test]
async fn related_messages_turn_the_answer_into_an_event_stream() {
    let (url, _) = start(HttpOptions::default()).await;
    let raw = Raw::new(&url);
    let session = raw.initialize("2025-11-25").await;
    let progress = json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"progress","steps":3}});
    let response = raw.post(Some(&session), &progress).await;
    assert_eq!(response.status(), StatusCode::OK);
    let events = bounded(Events::of(response).all()).await;
    // The priming event first (an id, `retry`, empty data), the progress, the response; then
    // the stream ends.
    assert_eq!(events.len(), 5, "{events:?}");
    assert_eq!(
        (events[0].data.as_str(), events[0].retry.as_deref()),
        ("", Some("1000"))
    );
    for (i, event) in events[1..4].iter().enumerate() {
        assert_eq!(
            event.json(),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":i + 1,"total":3}})
        );
    }
    assert_eq!(
        events[4].json(),
        json!({"jsonrpc":"2.0","id":5,"result":{"text":"done"}})
    );
    // Every event has an id of the same stream, in order.
    let ids: Vec<String> = events.iter().map(|e| e.id.clone().unwrap()).collect();
    let stream = ids[0].split('-').next().unwrap().to_owned();
    assert_eq!(
        ids,
        (0..5).map(|i| format!("{stream}-{i}")).collect::<Vec<_>>()
    );

    // A request to the client while serving goes on the stream too; the client answers
    // with a POST (202), and the response follows on the stream.
    let response = raw.post(Some(&session), &call(6, "sample")).await;
    let mut events = Events::of(response);
    assert_eq!(events.next().await.unwrap().data, "");
    let ask = events.next().await.unwrap().json();
    assert_eq!(ask["method"], "sampling/createMessage");
    let answer = json!({"jsonrpc":"2.0","id":ask["id"],"result":{"reply":"HELLO"}});
    assert_eq!(
        raw.post(Some(&session), &answer).await.status(),
        StatusCode::ACCEPTED
    );
    assert_eq!(
        events.next().await.unwrap().json(),
        json!({"jsonrpc":"2.0","id":6,"result":{"text":"HELLO"}})
    );
    assert!(events.next().await.is_none());

    // A client that takes JSON only gets the response as JSON; what went before it comes
    // on the session's GET stream.
    let listening = Events::of(raw.get(&session, None).await);
    let response = raw
        .post_accepting(Some(&session), "application/json", &json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","steps":1}}))
        .await;
    assert_eq!(media(&response), "application/json");
    assert_eq!(body_json(response).await["result"]["text"], "done");
    let mut listening = listening;
    let event = listening.next().await.unwrap();
    assert_eq!(event.json()["method"], "notifications/progress");
    assert!(event.id.unwrap().starts_with("0-"));
    // One GET stream at a time.
    assert_eq!(raw.get(&session, None).await.status(), StatusCode::CONFLICT);
    // A message related to no request goes there too.
    let response = raw.post(Some(&session), &call(8, "unrelated")).await;
    assert_eq!(body_json(response).await["result"]["text"], "sent");
    assert_eq!(
        listening.next().await.unwrap().json(),
        json!({"jsonrpc":"2.0","method":"notifications/message","params":{"data":"unprompted"}})
    );
}

#[tokio::test]
async fn a_stream_ended_early_is_resumed_by_last_event_id() {
    let (url, shared) = start(HttpOptions::default().retry(Duration::from_millis(5))).await;
    let raw = Raw::new(&url);
    let session = raw.initialize("2025-11-25").await;
    // `poll` ends its stream at once: the priming event, then the end.
    let response = raw.post(Some(&session), &call(1, "poll")).await;
    let events = bounded(Events::of(response).all()).await;
    assert_eq!(events.len(), 1, "{events:?}");
    let primed = events[0].id.clone().unwrap();
    assert_eq!(events[0].retry.as_deref(), Some("5"));
    // Resumed from the priming event: what came meanwhile, then the rest live, then the end.
    let resumed = raw.get(&session, Some(&primed)).await;
    assert_eq!(resumed.status(), StatusCode::OK);
    shared.release.notify_one();
    let events = bounded(Events::of(resumed).all()).await;
    let messages: Vec<Value> = events.iter().map(Event::json).collect();
    assert_eq!(
        messages,
        [
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"total":1}}),
            json!({"jsonrpc":"2.0","id":1,"result":{"text":"polled true"}}),
        ]
    );
    // The stream is kept: resuming from its first event replays the response alone.
    let first = events[0].id.clone().unwrap();
    let again = bounded(Events::of(raw.get(&session, Some(&first)).await).all()).await;
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].json()["id"], 1);
    // An id of no stream of the session.
    assert_eq!(
        raw.get(&session, Some("999-0")).await.status(),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        raw.get(&session, Some("garbage")).await.status(),
        StatusCode::BAD_REQUEST
    );

    // A client of an older revision reads no empty data: no priming event, no polling.
    let old = raw.initialize("2025-06-18").await;
    shared.release.notify_one();
    let response = raw.post(Some(&old), &call(1, "poll")).await;
    assert_eq!(media(&response), "text/event-stream");
    let events = bounded(Events::of(response).all()).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1].json()["result"]["text"], "polled false");
}

/// A client that answers sampling and keeps what it hears.
#[derive(Default)]
struct ClientState {
    progress: Mutex<Vec<i64>>,
    messages: Mutex<Vec<String>>,
}

struct TestClient(Arc<ClientState>);

impl proto::ClientHandler for TestClient {
    async fn sampling_create_message(
        &self,
        payload: proto::SamplingCreateMessagePayload,
    ) -> Result<proto::SamplingCreateMessageResult, Failure> {
        Ok(proto::SamplingCreateMessageResult::new(
            payload.prompt.to_uppercase(),
        ))
    }

    async fn notifications_progress(&self, payload: proto::NotificationsProgressEvent) {
        self.0.progress.lock().unwrap().push(payload.progress);
    }

    async fn notifications_message(&self, payload: proto::NotificationsMessageEvent) {
        self.0.messages.lock().unwrap().push(payload.data);
    }
}

#[tokio::test]
async fn the_rust_client_against_the_rust_server() {
    let (url, shared) = start(HttpOptions::default().retry(Duration::from_millis(5))).await;
    let heard = Arc::new(ClientState::default());
    let state = heard.clone();
    let server = rpc::http::connect(&url, Options::mcp(), move |_| {
        proto::ClientSide(TestClient(state))
    })
    .unwrap();
    let calls = proto::ClientCalls(&server);
    let init = bounded(calls.initialize(proto::InitializePayload::new("2025-11-25")))
        .await
        .unwrap();
    assert_eq!(init.protocol_version, "2025-11-25");
    calls
        .notifications_initialized(proto::NotificationsInitializedEvent::new())
        .await
        .unwrap();
    // Three calls at once, each answered after the server asked the client on its stream.
    let tool = |name: &str| calls.tools_call(proto::ToolsCallPayload::new(name));
    let (a, b, c) =
        bounded(async { tokio::join!(tool("sample"), tool("sample"), tool("echo")) }).await;
    assert_eq!(
        (a.unwrap().text, b.unwrap().text, c.unwrap().text),
        ("HI".into(), "HI".into(), "echo".into())
    );
    // Progress reaches the client's handler, in order, before the result.
    let done = bounded(calls.tools_call(proto::ToolsCallPayload::new("progress").steps(4)))
        .await
        .unwrap();
    assert_eq!(done.text, "done");
    bounded(async {
        while heard.progress.lock().unwrap().len() < 4 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert_eq!(*heard.progress.lock().unwrap(), [1, 2, 3, 4]);
    // The server ends the stream early; the client resumes it after `retry`.
    shared.release.notify_one();
    let polled = bounded(calls.tools_call(proto::ToolsCallPayload::new("poll")))
        .await
        .unwrap();
    assert_eq!(polled.text, "polled true");
    // What the server sends unprompted comes on the GET stream the client opened.
    assert_eq!(
        bounded(calls.tools_call(proto::ToolsCallPayload::new("unrelated")))
            .await
            .unwrap()
            .text,
        "sent"
    );
    bounded(async {
        while heard.messages.lock().unwrap().is_empty() {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert_eq!(*heard.messages.lock().unwrap(), ["unprompted"]);
    // The server's refusal is the caller's error.
    match bounded(calls.tools_call(proto::ToolsCallPayload::new("nope"))).await {
        Err(CallError::Call(rpc::Error::Remote(e))) => assert_eq!(e.code, -32602),
        other => panic!("{other:?}"),
    }
    // A call dropped before its answer: the cancel notification stops the server's handler.
    {
        let held = calls.tools_call(proto::ToolsCallPayload::new("hold"));
        tokio::select! {
            _ = held => panic!("answered"),
            () = bounded(async {
                while shared.started.load(Ordering::SeqCst) == 0 {
                    tokio::task::yield_now().await;
                }
            }) => {}
        }
    }
    bounded(async {
        while shared.dropped.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    // Closing ends the session (DELETE): calls fail from then on.
    server.close();
    assert!(matches!(
        calls.ping(proto::PingPayload::new()).await,
        Err(CallError::Call(rpc::Error::Closed))
    ));
}

#[tokio::test]
async fn a_session_ended_under_the_client_fails_its_calls() {
    let (url, _) = start(HttpOptions::default()).await;
    let server = rpc::http::connect(&url, Options::mcp(), |_| {
        proto::ClientSide(TestClient(Arc::default()))
    })
    .unwrap();
    let calls = proto::ClientCalls(&server);
    bounded(calls.initialize(proto::InitializePayload::new("2025-11-25")))
        .await
        .unwrap();
    // A second client deletes nothing it does not know; an unknown session is refused.
    let raw = Raw::new(&url);
    assert_eq!(raw.delete(Some("unknown")).await, StatusCode::NOT_FOUND);
    assert!(
        rpc::http::connect("ftp://x/mcp", Options::mcp(), |_| proto::ClientSide(
            TestClient(Arc::default())
        ))
        .is_err()
    );
    // The server is gone: the call fails, it does not hang.
    let dead = rpc::http::connect("http://127.0.0.1:9/mcp", Options::mcp(), |_| {
        proto::ClientSide(TestClient(Arc::default()))
    })
    .unwrap();
    match bounded(proto::ClientCalls(&dead).ping(proto::PingPayload::new())).await {
        Err(CallError::Call(rpc::Error::Transport(_))) => {}
        other => panic!("{other:?}"),
    }
}
