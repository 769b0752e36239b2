//! The Streamable HTTP client ([`connect`]): a connection whose frames go out as POSTs and
//! come back as their answers (JSON, or an event stream resumed with `Last-Event-ID` when the
//! server ends it early) and, after `notifications/initialized`, on a `GET` stream.
//!
//! Requests are POSTed at once, each on a task of its own, so a long one holds nothing up;
//! notifications and responses go one after the other, in the order sent. The session id and
//! the negotiated revision are read off the initialize answer and sent on every later request.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming as HttpBody;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::{Client, connect::HttpConnector};
use tokio::sync::mpsc;

use super::server::{LAST_EVENT_ID, PROTOCOL_VERSION, SESSION_ID};
use super::sse::Parser;
use crate::port::{Incoming, SendError};
use crate::rpc::connection::{Core, Route, Transport};
use crate::rpc::message::{self, Id, Message};
use crate::rpc::{Error, Handler, Options, Peer};

/// The largest answer or event read, in bytes.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;
/// Reconnections of a stream in a row that may fail before it is given up.
const MAX_RECONNECTS: u32 = 5;
/// The wait before a reconnection when the server gave no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// Why [`connect`] refused a URL.
#[derive(Debug)]
pub struct ClientError(String);

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClientError {}

/// Connects to the Streamable HTTP endpoint `url` (`http://127.0.0.1:PORT/mcp`): the
/// answered [`Peer`] calls the server, and `make` builds the handler of what the server
/// sends (sampling, elicitation, logging). Nothing is sent until the first call (MCP's
/// `initialize`). [`Peer::close`] ends the session (`DELETE`).
///
/// Must be called within a Tokio runtime.
pub fn connect<H, F>(url: &str, options: Options, make: F) -> Result<Peer, ClientError>
where
    H: Handler,
    F: FnOnce(Peer) -> H,
{
    let uri: Uri = url
        .parse()
        .map_err(|e| ClientError(format!("invalid URL {url:?}: {e}")))?;
    if uri.scheme_str() != Some("http") || uri.authority().is_none() {
        return Err(ClientError(format!(
            "invalid URL {url:?}: an http:// URL with a host is needed"
        )));
    }
    let (ordered, queue) = mpsc::unbounded_channel();
    let inner = Arc::new(Inner {
        uri,
        http: Client::builder(hyper_util::rt::TokioExecutor::new()).build(nodelay_connector()),
        core: OnceLock::new(),
        state: Mutex::new(State::default()),
        ordered,
    });
    let (core, queues) = Core::new(Arc::new(ClientTransport(inner.clone())), options);
    let _ = inner.core.set(Arc::downgrade(&core));
    let peer = Peer::new(core.clone());
    core.start(make(peer.clone()), queues);
    tokio::spawn(send_in_order(inner, queue));
    Ok(peer)
}

#[derive(Default)]
struct State {
    session: Option<String>,
    version: Option<String>,
    /// Our initialize request's id, until its answer says the revision.
    initialize: Option<i64>,
    listening: bool,
    closed: bool,
}

struct Inner {
    uri: Uri,
    http: Client<HttpConnector, Full<Bytes>>,
    core: OnceLock<Weak<Core>>,
    state: Mutex<State>,
    ordered: mpsc::UnboundedSender<String>,
}

struct ClientTransport(Arc<Inner>);

impl Transport for ClientTransport {
    fn send(&self, frame: String, _route: Route<'_>) -> Result<(), SendError> {
        let inner = &self.0;
        if inner.state().closed {
            return Err(SendError::Closed);
        }
        match message::read(&frame) {
            Ok(Message::Request {
                id: Id::Number(n),
                method,
                ..
            }) => {
                if method == "initialize" {
                    inner.state().initialize = Some(n);
                }
                tokio::spawn(inner.clone().request(frame, n));
                Ok(())
            }
            _ => inner.ordered.send(frame).map_err(|_| SendError::Closed),
        }
    }

    fn close(&self) {
        let session = {
            let mut state = self.0.state();
            state.closed = true;
            state.session.take()
        };
        if let Some(session) = session {
            let inner = self.0.clone();
            tokio::spawn(async move {
                let _ = inner
                    .send_http(Method::DELETE, None, Some(&session), None)
                    .await;
            });
        }
    }
}

/// Posts the notifications and responses one after the other; after
/// `notifications/initialized`, opens the `GET` stream.
async fn send_in_order(inner: Arc<Inner>, mut queue: mpsc::UnboundedReceiver<String>) {
    while let Some(frame) = queue.recv().await {
        if inner.state().closed {
            break;
        }
        let initialized = frame.contains("\"notifications/initialized\"")
            && matches!(message::read(&frame), Ok(Message::Notification { method, .. }) if method == "notifications/initialized");
        match inner.post(frame).await {
            Ok(response) if response.status() == StatusCode::ACCEPTED => {}
            Ok(response) => {
                tracing::warn!(status = %response.status(), "Streamable HTTP server refused a message");
                if response.status() == StatusCode::NOT_FOUND {
                    inner.session_gone();
                }
            }
            Err(e) => tracing::warn!(error = %e, "Streamable HTTP message not sent"),
        }
        if initialized {
            let start = {
                let mut state = inner.state();
                !std::mem::replace(&mut state.listening, true)
            };
            if start {
                tokio::spawn(inner.clone().listen());
            }
        }
    }
}

impl Inner {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn core(&self) -> Option<Arc<Core>> {
        self.core.get().and_then(Weak::upgrade)
    }

    /// The session ended at the server (404): the connection closes.
    fn session_gone(&self) {
        self.state().session = None;
        if let Some(core) = self.core() {
            core.close();
        }
    }

    /// Sends one HTTP request to the endpoint with the session's headers.
    async fn send_http(
        &self,
        method: Method,
        body: Option<String>,
        session: Option<&str>,
        last_event: Option<&str>,
    ) -> Result<Response<HttpBody>, String> {
        let (session, version) = {
            let state = self.state();
            (
                session.map(str::to_owned).or_else(|| state.session.clone()),
                state.version.clone(),
            )
        };
        let mut request = Request::builder()
            .method(method.clone())
            .uri(self.uri.clone());
        let accept = if method == Method::POST {
            "application/json, text/event-stream"
        } else {
            "text/event-stream"
        };
        request = request.header(header::ACCEPT, accept);
        if body.is_some() {
            request = request.header(header::CONTENT_TYPE, "application/json");
        }
        if let Some(session) = session {
            request = request.header(SESSION_ID, session);
        }
        if let Some(version) = version {
            request = request.header(PROTOCOL_VERSION, version);
        }
        if let Some(last) = last_event {
            request = request.header(LAST_EVENT_ID, last);
        }
        let request = request
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|e| e.to_string())?;
        let response = self
            .http
            .request(request)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(id) = response
            .headers()
            .get(SESSION_ID)
            .and_then(|v| v.to_str().ok())
        {
            self.state().session = Some(id.to_owned());
        }
        Ok(response)
    }

    async fn post(&self, frame: String) -> Result<Response<HttpBody>, String> {
        self.send_http(Method::POST, Some(frame), None, None).await
    }

    /// POSTs request `n` and reads its answer; fails the call when none can come.
    async fn request(self: Arc<Self>, frame: String, n: i64) {
        let Some(core) = self.core() else { return };
        let failed = match self.post(frame).await {
            Err(e) => Some(Error::Transport(e)),
            Ok(response) => {
                let status = response.status();
                let media = media_type(&response);
                if status == StatusCode::OK && media == "text/event-stream" {
                    self.follow(response, &core, Some(n)).await;
                    None
                } else if status == StatusCode::OK && media == "application/json" {
                    match read_body(response).await {
                        Ok(text) => {
                            self.receive(&core, text);
                            None
                        }
                        Err(e) => Some(Error::Transport(e)),
                    }
                } else {
                    if status == StatusCode::NOT_FOUND && self.state().session.is_some() {
                        self.session_gone();
                    }
                    let body = read_body(response).await.unwrap_or_default();
                    Some(Error::Transport(format!("HTTP {status}: {body}")))
                }
            }
        };
        let failed = failed.or_else(|| {
            core.is_waiting(n).then(|| {
                Error::InvalidResponse("the server's answer ended without a response".into())
            })
        });
        if let Some(error) = failed {
            core.fail_call(n, error);
        }
    }

    /// Hands one message of the server to the connection; reads the revision off the
    /// initialize answer.
    fn receive(&self, core: &Core, text: String) {
        let initialize = self.state().initialize;
        if let Some(n) = initialize
            && let Ok(Message::Response {
                id: Some(Id::Number(id)),
                outcome: Ok(result),
            }) = message::read(&text)
            && id == n
        {
            #[derive(serde::Deserialize)]
            struct Negotiated {
                #[serde(rename = "protocolVersion")]
                protocol_version: Option<String>,
            }
            let mut state = self.state();
            state.initialize = None;
            state.version = serde_json::from_str::<Negotiated>(result.get())
                .ok()
                .and_then(|r| r.protocol_version);
        }
        core.receive_now(Incoming::Text(text));
    }

    /// Reads an event stream to its end and resumes it (`GET` with `Last-Event-ID`, after the
    /// `retry` it gave) while it ends early: for a request, before its response; for the
    /// `GET` stream, until the connection closes.
    async fn follow(&self, mut response: Response<HttpBody>, core: &Core, request: Option<i64>) {
        let mut parser = Parser::default();
        let mut last: Option<String> = None;
        let mut failures = 0;
        loop {
            let ended = self
                .read_events(response, core, &mut parser, &mut last)
                .await;
            let done = match request {
                Some(n) => !core.is_waiting(n),
                None => false,
            };
            if done || self.state().closed || (request.is_some() && last.is_none()) {
                return;
            }
            if ended.is_err() {
                failures += 1;
            }
            let retry = parser.retry.map_or(DEFAULT_RETRY, Duration::from_millis);
            loop {
                if failures >= MAX_RECONNECTS || self.state().closed {
                    return;
                }
                tokio::time::sleep(retry).await;
                match self
                    .send_http(Method::GET, None, None, last.as_deref())
                    .await
                {
                    Ok(r) if r.status() == StatusCode::OK => {
                        response = r;
                        break;
                    }
                    Ok(r) if r.status() == StatusCode::NOT_FOUND => {
                        self.session_gone();
                        return;
                    }
                    Ok(r) if r.status() == StatusCode::METHOD_NOT_ALLOWED => return,
                    _ => failures += 1,
                }
            }
        }
    }

    /// Reads events until the stream ends; `Err` when it broke.
    async fn read_events(
        &self,
        response: Response<HttpBody>,
        core: &Core,
        parser: &mut Parser,
        last: &mut Option<String>,
    ) -> Result<(), String> {
        let mut body = response.into_body();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| e.to_string())?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            for event in parser.push(&data) {
                if let Some(id) = event.id {
                    *last = Some(id);
                }
                let message = event.event.as_deref().is_none_or(|e| e == "message");
                if message && !event.data.is_empty() {
                    self.receive(core, event.data);
                }
            }
            if parser.pending > MAX_MESSAGE {
                return Err(format!("an event over {MAX_MESSAGE} bytes"));
            }
        }
        Ok(())
    }

    /// The `GET` stream: what the server sends related to no request.
    async fn listen(self: Arc<Self>) {
        let Some(core) = self.core() else { return };
        match self.send_http(Method::GET, None, None, None).await {
            Ok(response) if response.status() == StatusCode::OK => {
                self.follow(response, &core, None).await;
            }
            Ok(response) => {
                tracing::debug!(status = %response.status(), "Streamable HTTP server has no GET stream");
            }
            Err(e) => tracing::debug!(error = %e, "Streamable HTTP GET stream not opened"),
        }
    }
}

/// The media type of a response, lower case, without parameters.
fn media_type(response: &Response<HttpBody>) -> String {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v: &HeaderValue| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

async fn read_body(response: Response<HttpBody>) -> Result<String, String> {
    let body = http_body_util::Limited::new(response.into_body(), MAX_MESSAGE)
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    String::from_utf8(body.to_vec()).map_err(|e| e.to_string())
}

/// An HTTP connector whose sockets send each write at once (`TCP_NODELAY`), as the server's
/// do: with Nagle's algorithm a write could wait for the server's delayed ACK (40 ms).
fn nodelay_connector() -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector
}
