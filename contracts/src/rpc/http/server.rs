//! The Streamable HTTP server ([`HttpServer`], MCP 2025-11-25): one endpoint; `POST` of one
//! JSON-RPC message (a request answered as JSON or as an event stream, a notification or a
//! response accepted with 202); `GET` for the session's stream, or to resume one with
//! `Last-Event-ID`; `DELETE` to end a session. Sessions start with `initialize`
//! (`Mcp-Session-Id` assigned; required after: 400 without, 404 unknown or ended),
//! `MCP-Protocol-Version` is checked, and `Host` and `Origin` against allow lists (403).

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited, StreamBody, combinators::UnsyncBoxBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::{Semaphore, mpsc};

use super::options::HttpOptions;
use super::session::{Accept, Refused, Reply, SessionTransport, Streams};
use crate::rpc::connection::{Core, Transport};
use crate::rpc::message::{self, ErrorObject, INVALID_REQUEST, Message, Refusal};
use crate::rpc::{Handler, Peer};

/// The session header.
pub(crate) const SESSION_ID: &str = "mcp-session-id";
/// The revision header.
pub(crate) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The resumption header.
pub(crate) const LAST_EVENT_ID: &str = "last-event-id";
/// The code of a transport-level refusal's JSON-RPC error (as the official SDKs answer).
const TRANSPORT_ERROR: i64 = -32000;

type Body = UnsyncBoxBody<Bytes, Infallible>;

/// Builds a session's connection: the user's handler over the session's streams.
type Start = dyn Fn(Arc<dyn Transport>) -> Peer + Send + Sync;

/// One session: its id, its connection, its streams.
struct Session {
    peer: Peer,
    streams: Arc<Streams>,
    last_seen: Mutex<Instant>,
}

impl Session {
    fn touch(&self) {
        *self
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        self.last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .elapsed()
    }
}

struct State {
    options: HttpOptions,
    start: Box<Start>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

impl State {
    fn sessions(&self) -> MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A Streamable HTTP server: every session gets a connection whose handler `make` builds
/// from the session's [`Peer`].
///
/// ```no_run
/// # async fn run() -> std::io::Result<()> {
/// # struct MyServer { client: contracts::rpc::Peer }
/// # impl contracts::rpc::Handler for MyServer {
/// #     type Error = contracts::rpc::ErrorObject;
/// #     async fn request(&self, _: &str, _: &serde_json::value::RawValue)
/// #         -> Result<Box<serde_json::value::RawValue>, Self::Error> { unimplemented!() }
/// #     async fn notification(&self, _: &str, _: &serde_json::value::RawValue)
/// #         -> Result<(), Self::Error> { Ok(()) }
/// # }
/// use contracts::rpc::http::{HttpOptions, HttpServer};
///
/// let server = HttpServer::bind("127.0.0.1:0", HttpOptions::default(), |peer| MyServer { client: peer }).await?;
/// println!("listening on {}", server.url());
/// server.run().await
/// # }
/// ```
pub struct HttpServer {
    listener: TcpListener,
    state: Arc<State>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("listener", &self.listener)
            .field("options", &self.state.options)
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// Binds `addr` (give `127.0.0.1:PORT` for a local server: the default host allow list
    /// takes local names only) and serves sessions with handlers made by `make`.
    pub async fn bind<A, H, F>(addr: A, options: HttpOptions, make: F) -> std::io::Result<Self>
    where
        A: ToSocketAddrs,
        H: Handler,
        F: Fn(Peer) -> H + Send + Sync + 'static,
    {
        Ok(Self::from_listener(
            TcpListener::bind(addr).await?,
            options,
            make,
        ))
    }

    /// Serves on a listener already bound.
    pub fn from_listener<H, F>(listener: TcpListener, options: HttpOptions, make: F) -> Self
    where
        H: Handler,
        F: Fn(Peer) -> H + Send + Sync + 'static,
    {
        let rpc = options.rpc.clone();
        let start = move |transport: Arc<dyn Transport>| {
            let (core, queues) = Core::new(transport, rpc.clone());
            let peer = Peer::new(core.clone());
            core.start(make(peer.clone()), queues);
            peer
        };
        HttpServer {
            listener,
            state: Arc::new(State {
                options,
                start: Box::new(start),
                sessions: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The address bound.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The endpoint's URL: `http://HOST:PORT/mcp`.
    pub fn url(&self) -> String {
        match self.local_addr() {
            Ok(addr) => format!("http://{addr}{}", self.state.options.path),
            Err(_) => self.state.options.path.clone(),
        }
    }

    /// Accepts connections and serves them until the task is dropped, and ends idle sessions
    /// ([`HttpOptions::idle_timeout`]) as it goes. Accept errors (out of descriptors) are
    /// waited out; connections over the cap wait to be accepted.
    pub async fn run(self) -> std::io::Result<()> {
        // Both in this one future: the sweep ends with the server.
        tokio::select! {
            never = sweep(&self.state) => match never {},
            ended = self.accept() => ended,
        }
    }

    /// Accepts connections, each served on a task of its own.
    async fn accept(&self) -> std::io::Result<()> {
        let places = Arc::new(Semaphore::new(self.state.options.max_connections));
        loop {
            let place = places
                .clone()
                .acquire_owned()
                .await
                .expect("the semaphore is never closed");
            let stream = match self.listener.accept().await {
                Ok((stream, _)) => {
                    // Each write goes out at once: with Nagle's algorithm, an event of a
                    // stream could wait for the client's delayed ACK (40 ms).
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::debug!(error = %e, "TCP_NODELAY not set");
                    }
                    stream
                }
                Err(e) => {
                    tracing::warn!(error = %e, "Streamable HTTP accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let state = self.state.clone();
            tokio::spawn(async move {
                let _place = place;
                let service = hyper::service::service_fn(move |request| {
                    let state = state.clone();
                    async move { Ok::<_, Infallible>(handle(&state, request).await) }
                });
                let served = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
                if let Err(e) = served {
                    tracing::debug!(error = %e, "Streamable HTTP connection ended with an error");
                }
            });
        }
    }
}

/// Answers one HTTP request.
async fn handle(state: &State, request: Request<Incoming>) -> Response<Body> {
    let options = &state.options;
    if request.uri().path() != options.path {
        return plain(StatusCode::NOT_FOUND, "not found");
    }
    let headers = request.headers();
    let host = header_str(headers, header::HOST.as_str());
    if !options.host_allowed(host) {
        return refusal(
            StatusCode::FORBIDDEN,
            format!(
                "Forbidden: Host {} is not allowed",
                host.unwrap_or("(none)")
            ),
        );
    }
    if let Some(origin) = header_str(headers, header::ORIGIN.as_str())
        && !options.origin_allowed(origin)
    {
        return refusal(
            StatusCode::FORBIDDEN,
            format!("Forbidden: Origin {origin} is not allowed"),
        );
    }
    match *request.method() {
        Method::POST => post(state, request).await,
        Method::GET => get(state, request.headers()),
        Method::DELETE => delete(state, request.headers()),
        _ => {
            let mut response =
                refusal(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed.".into());
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            response
        }
    }
}

/// A POST: one JSON-RPC message.
async fn post(state: &State, request: Request<Incoming>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    let accept = header_str(headers, header::ACCEPT.as_str()).unwrap_or("");
    let accept = match (
        accepts(accept, "application/json"),
        accepts(accept, "text/event-stream"),
    ) {
        (true, true) => Accept::Both,
        (true, false) => Accept::Json,
        (false, true) => Accept::Sse,
        (false, false) => {
            return refusal(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: the client must accept application/json and text/event-stream"
                    .into(),
            );
        }
    };
    let json = header_str(headers, header::CONTENT_TYPE.as_str())
        .is_some_and(|t| t.to_ascii_lowercase().starts_with("application/json"));
    if !json {
        return refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json".into(),
        );
    }
    if let Some(response) = unsupported_version(&state.options, headers) {
        return response;
    }
    let body = match Limited::new(body, state.options.max_body).collect().await {
        Ok(body) => body.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            return refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "Payload Too Large: the limit is {} bytes",
                    state.options.max_body
                ),
            );
        }
        Err(e) => return refusal(StatusCode::BAD_REQUEST, format!("Bad Request: {e}")),
    };
    let text = String::from_utf8_lossy(&body);
    let message = match message::read(&text) {
        Ok(message) => message,
        Err(refused) => return json_error(StatusCode::BAD_REQUEST, &refused),
    };
    let initialize = matches!(&message, Message::Request { method, .. } if method == "initialize");
    let (session, created) = match header_str(headers, SESSION_ID) {
        Some(id) => match state.sessions().get(id) {
            None => return session_not_found(),
            Some(_) if initialize => {
                let id = match &message {
                    Message::Request { id, .. } => Some(id.clone()),
                    _ => None,
                };
                return json_error(
                    StatusCode::BAD_REQUEST,
                    &Refusal::invalid(id, "Invalid Request: the session is already initialized"),
                );
            }
            Some(session) => (session.clone(), None),
        },
        None if initialize => match open_session(state) {
            Ok((id, session)) => (session, Some(id)),
            Err(response) => return *response,
        },
        None => {
            return refusal(
                StatusCode::BAD_REQUEST,
                "Bad Request: the Mcp-Session-Id header is required".into(),
            );
        }
    };
    session.touch();
    let mut response = match message {
        Message::Request { ref id, .. } => {
            let Some(reply) = session.streams.open_request(id, accept, initialize) else {
                return json_error(
                    StatusCode::BAD_REQUEST,
                    &Refusal::invalid(
                        None,
                        format!(
                            "Invalid Request: request {id} is still open in this session; an id is used once"
                        ),
                    ),
                );
            };
            // A POST dropped while the request waits for room takes its stream along.
            let handing = Handing(&session.streams, Some(id.clone()));
            session.peer.core.receive(message).await;
            handing.done();
            match reply.await {
                Ok(Reply::Json(frame)) => with_type(Response::new(full(frame)), "application/json"),
                Ok(Reply::Sse(events)) => event_stream(events),
                Ok(Reply::Cancelled) => event_stream(mpsc::channel(1).1),
                Ok(Reply::Ended) | Err(_) => return session_not_found(),
            }
        }
        other => {
            session.peer.core.receive(other).await;
            let mut accepted = Response::new(empty());
            *accepted.status_mut() = StatusCode::ACCEPTED;
            accepted
        }
    };
    if let Some(id) = created
        && let Ok(value) = HeaderValue::from_str(&id)
    {
        response.headers_mut().insert(SESSION_ID, value);
    }
    response
}

/// A request on its way to the connection: dropped before [`Handing::done`], its stream is
/// forgotten.
struct Handing<'a>(&'a Streams, Option<crate::rpc::Id>);

impl Handing<'_> {
    fn done(mut self) {
        self.1 = None;
    }
}

impl Drop for Handing<'_> {
    fn drop(&mut self) {
        if let Some(id) = &self.1 {
            self.0.forget_request(id);
        }
    }
}

/// How often idle sessions are looked for: a quarter of the idle timeout, between 10 ms and
/// a minute. A session ends at most that long after its timeout.
fn sweep_period(idle: Duration) -> Duration {
    (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(60))
}

/// Ends idle sessions every [`sweep_period`], for as long as it is polled.
async fn sweep(state: &State) -> Infallible {
    let mut ticks = tokio::time::interval(sweep_period(state.options.idle_timeout));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        end_idle(&state.options, &mut state.sessions());
    }
}

/// Ends the sessions without a request or a stream read for longer than the idle timeout,
/// unless an HTTP connection uses them now.
fn end_idle(options: &HttpOptions, sessions: &mut HashMap<String, Arc<Session>>) {
    sessions.retain(|id, session| {
        let idle = session.idle_for() > options.idle_timeout && !session.streams.is_in_use();
        if idle {
            tracing::debug!(session = %id, "Streamable HTTP session idle too long: ended");
            session.peer.close();
        }
        !idle
    });
}

/// A new session, if there is room (sessions idle too long are ended first).
fn open_session(state: &State) -> Result<(String, Arc<Session>), Box<Response<Body>>> {
    let options = &state.options;
    let mut sessions = state.sessions();
    end_idle(options, &mut sessions);
    if sessions.len() >= options.max_sessions {
        return Err(Box::new(refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("Service Unavailable: {} sessions are open", sessions.len()),
        )));
    }
    let id = session_id().map_err(|e| {
        Box::new(refusal(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("no session id: {e}"),
        ))
    })?;
    let streams = Arc::new(Streams::new(options.replay, options.retry));
    let peer = (state.start)(Arc::new(SessionTransport(streams.clone())));
    let session = Arc::new(Session {
        peer,
        streams,
        last_seen: Mutex::new(Instant::now()),
    });
    sessions.insert(id.clone(), session.clone());
    Ok((id, session))
}

/// 128 random bits in hex: visible ASCII, as the spec requires, and not guessable.
fn session_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A GET: the session's stream, or a stream resumed.
fn get(state: &State, headers: &HeaderMap) -> Response<Body> {
    if !accepts(
        header_str(headers, header::ACCEPT.as_str()).unwrap_or(""),
        "text/event-stream",
    ) {
        return refusal(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: the client must accept text/event-stream".into(),
        );
    }
    let session = match session_of(state, headers) {
        Ok(session) => session,
        Err(response) => return *response,
    };
    if let Some(response) = unsupported_version(&state.options, headers) {
        return response;
    }
    session.touch();
    let events = match header_str(headers, LAST_EVENT_ID) {
        Some(last) => session.streams.resume(last),
        None => session.streams.listen(),
    };
    match events {
        Ok(events) => event_stream(events),
        Err(Refused::Conflict) => refusal(
            StatusCode::CONFLICT,
            "Conflict: the stream already has a connection".into(),
        ),
        Err(Refused::Unknown) => refusal(
            StatusCode::BAD_REQUEST,
            "Bad Request: Last-Event-ID names no stream of this session (or one no longer kept)"
                .into(),
        ),
        Err(Refused::Ended) => session_not_found(),
    }
}

/// A DELETE: the session ends.
fn delete(state: &State, headers: &HeaderMap) -> Response<Body> {
    if let Err(response) = session_of(state, headers) {
        return *response;
    }
    if let Some(response) = unsupported_version(&state.options, headers) {
        return response;
    }
    let removed = header_str(headers, SESSION_ID).and_then(|id| state.sessions().remove(id));
    if let Some(session) = removed {
        session.peer.close();
    }
    Response::new(empty())
}

/// The session a request names: 400 without the header, 404 for an unknown or ended one.
fn session_of(state: &State, headers: &HeaderMap) -> Result<Arc<Session>, Box<Response<Body>>> {
    let Some(id) = header_str(headers, SESSION_ID) else {
        return Err(Box::new(refusal(
            StatusCode::BAD_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required".into(),
        )));
    };
    match state.sessions().get(id) {
        Some(session) if !session.streams.is_ended() => Ok(session.clone()),
        _ => Err(Box::new(session_not_found())),
    }
}

/// 400 for an `MCP-Protocol-Version` the server does not speak.
fn unsupported_version(options: &HttpOptions, headers: &HeaderMap) -> Option<Response<Body>> {
    let version = header_str(headers, PROTOCOL_VERSION)?;
    if options.protocol_versions.iter().any(|v| v == version) {
        return None;
    }
    Some(refusal(
        StatusCode::BAD_REQUEST,
        format!(
            "Bad Request: unsupported protocol version {version} (supported: {})",
            options.protocol_versions.join(", ")
        ),
    ))
}

fn session_not_found() -> Response<Body> {
    let mut response = refusal(StatusCode::NOT_FOUND, "Session not found".into());
    // The official SDKs' code for it.
    if let Ok(body) = message::error_without_id(&ErrorObject::new(-32001, "Session not found")) {
        *response.body_mut() = full(body);
    }
    response
}

/// Whether an `Accept` header takes `media` (or `*/*`, or its type's `*`).
fn accepts(accept: &str, media: &str) -> bool {
    let kind = media.split('/').next().unwrap_or("");
    accept.split(',').any(|range| {
        let range = range.split(';').next().unwrap_or("").trim();
        range.eq_ignore_ascii_case(media)
            || range == "*/*"
            || range
                .strip_suffix("/*")
                .is_some_and(|t| t.eq_ignore_ascii_case(kind))
    })
}

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn full(body: impl Into<Bytes>) -> Body {
    UnsyncBoxBody::new(Full::new(body.into()))
}

fn empty() -> Body {
    full(Bytes::new())
}

fn with_type(mut response: Response<Body>, media: &'static str) -> Response<Body> {
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(media));
    response
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = with_type(Response::new(full(text)), "text/plain");
    *response.status_mut() = status;
    response
}

/// An HTTP refusal whose body is a JSON-RPC error without an id.
fn refusal(status: StatusCode, message: String) -> Response<Body> {
    json_error(
        status,
        &Refusal {
            id: None,
            error: ErrorObject::new(
                if status == StatusCode::BAD_REQUEST && message.starts_with("Invalid Request") {
                    INVALID_REQUEST
                } else {
                    TRANSPORT_ERROR
                },
                message,
            ),
        },
    )
}

/// A refusal as an HTTP response. Streamable HTTP is MCP's transport: an answer whose id
/// cannot be read has no `id` (MCP's error response has an optional id, never `null`).
fn json_error(status: StatusCode, refused: &Refusal) -> Response<Body> {
    let mut response = with_type(
        Response::new(full(message::refusal(refused, false))),
        "application/json",
    );
    *response.status_mut() = status;
    response
}

/// A `text/event-stream` response of the events that come on `events`, ending when its
/// sender is dropped.
fn event_stream(mut events: mpsc::Receiver<Bytes>) -> Response<Body> {
    let stream = futures_util::stream::poll_fn(move |cx| {
        events
            .poll_recv(cx)
            .map(|event| event.map(|bytes| Ok(Frame::data(bytes))))
    });
    let mut response = with_type(
        Response::new(UnsyncBoxBody::new(StreamBody::new(stream))),
        "text/event-stream",
    );
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, no-transform"),
    );
    response
}
