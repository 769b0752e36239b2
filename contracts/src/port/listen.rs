//! The accept loop of a server that holds: out of file descriptors, flooded, or fed
//! handshakes that never end, it keeps serving the clients it can and comes back when it can.
//!
//! [`listen`] accepts on a [`TcpListener`] until its task is dropped:
//!
//! - An accept error never ends the loop. One that concerns a single connection (aborted or
//!   reset before it was accepted) is skipped; any other (`EMFILE`, `ENFILE`, `ENOBUFS`,
//!   `ENOMEM`...) is waited out with a backoff from 5 ms doubling to 1 s, reset by the next
//!   accept, and logged (`tracing::warn!`, with the error and the wait).
//! - At most [`ListenOptions::max_connections`] connections are served at once. Above it a
//!   connection is accepted, answered `503 Service Unavailable` with `Retry-After: 1` (a
//!   WebSocket client sees its handshake refused with that status) and closed; at most 64
//!   such answers are under way at once, beyond which a connection is closed at once.
//! - The handshake (whatever the server reads before it serves: a request head, a WebSocket
//!   upgrade) must end within [`ListenOptions::handshake_timeout`]; then the connection is
//!   closed.
//! - Every accepted socket has `TCP_NODELAY` set: a frame is sent when it is written. With
//!   Nagle's algorithm on, the small frames that end a turn waited in the kernel for the
//!   client's delayed ACK (40 ms on Linux) before going out: about 44 ms at the end of every
//!   agent-host turn (docs/benchmarks.md, "Turns per second against a broadcast server").
//!
//! The loop logs with `tracing` where it starts (`listening`, with the address), each accept
//! error and the refusals above the cap. Each connection runs in a span `connection` with its
//! `peer` address, so what a server and its ports log about it names the peer.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tracing::Instrument;

/// The first wait after an accept error.
const BACKOFF_MIN: Duration = Duration::from_millis(5);

/// The longest wait after accept errors in a row.
const BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Refusals above the cap written at once; beyond it a connection is closed at once.
const REFUSALS: usize = 64;

/// How long a refused connection is kept open for its answer to be read.
const REFUSAL_LINGER: Duration = Duration::from_secs(1);

/// How often the loop logs the connections it refused above the cap.
const WARN_EVERY: Duration = Duration::from_secs(1);

/// The answer to a connection above the cap.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\ncontent-type: text/plain\r\ncontent-length: 30\r\nconnection: close\r\n\r\ntoo many connections; retry.\r\n";

/// How a server's accept loop bounds what clients may hold.
#[derive(Clone, Debug)]
pub struct ListenOptions {
    /// The most connections served at once (handshakes included); at least 1.
    pub max_connections: usize,
    /// How long a connection's handshake may take before it is closed.
    pub handshake_timeout: Duration,
}

impl Default for ListenOptions {
    fn default() -> Self {
        ListenOptions {
            max_connections: 1024,
            handshake_timeout: Duration::from_secs(5),
        }
    }
}

impl ListenOptions {
    /// The most connections served at once.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n;
        self
    }

    /// How long a handshake may take.
    pub fn handshake_timeout(mut self, after: Duration) -> Self {
        self.handshake_timeout = after;
        self
    }
}

/// Accepts connections on `listener` until the task is dropped (it never returns).
///
/// Each connection runs on a task of its own: `handshake` first, within the handshake timeout
/// (`None` or the timeout closes the connection), then `serve` with what it answered. A
/// connection holds its place under the cap until `serve` ends.
pub async fn listen<T, H, HF, S, SF>(
    listener: TcpListener,
    options: &ListenOptions,
    handshake: H,
    serve: S,
) where
    T: Send + 'static,
    H: Fn(TcpStream) -> HF,
    HF: Future<Output = Option<T>> + Send + 'static,
    S: Fn(T) -> SF + Send + Sync + 'static,
    SF: Future<Output = ()> + Send + 'static,
{
    let places = Arc::new(Semaphore::new(options.max_connections.max(1)));
    let refusing = Arc::new(Semaphore::new(REFUSALS));
    let serve = Arc::new(serve);
    let timeout = options.handshake_timeout;
    let mut backoff = BACKOFF_MIN;
    let mut refused = Refused::default();
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(
            addr = %addr,
            max_connections = options.max_connections,
            "listening"
        );
    }
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => {
                backoff = BACKOFF_MIN;
                accepted
            }
            // Gone before it was accepted: the next one is not concerned.
            Err(e) if one_connection(&e) => continue,
            Err(e) => {
                tracing::warn!(
                    error = %e,
                    retry_ms = backoff.as_millis() as u64,
                    "accept failed"
                );
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF_MAX);
                continue;
            }
        };
        // Frames go out when written, not when the peer's delayed ACK comes (module docs).
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
        let Ok(place) = places.clone().try_acquire_owned() else {
            refused.note(options.max_connections);
            if let Ok(answering) = refusing.clone().try_acquire_owned() {
                tokio::spawn(async move {
                    refuse(stream).await;
                    drop(answering);
                });
            }
            continue;
        };
        let span = tracing::info_span!("connection", peer = %peer);
        let shaking = span.in_scope(|| handshake(stream)).instrument(span.clone());
        let serve = serve.clone();
        let connection = async move {
            match tokio::time::timeout(timeout, shaking).await {
                Ok(Some(accepted)) => serve(accepted).await,
                Ok(None) => tracing::debug!("handshake refused"),
                Err(_) => tracing::info!(
                    timeout_ms = timeout.as_millis() as u64,
                    "handshake timed out"
                ),
            }
            drop(place);
        };
        tokio::spawn(connection.instrument(span));
    }
}

/// The refusals above the cap since the last warning.
#[derive(Default)]
struct Refused {
    since_warned: u64,
    warned: Option<Instant>,
}

impl Refused {
    /// Counts a refusal, warning at most once every [`WARN_EVERY`].
    fn note(&mut self, cap: usize) {
        self.since_warned += 1;
        if self.warned.is_none_or(|at| at.elapsed() >= WARN_EVERY) {
            tracing::warn!(
                refused = self.since_warned,
                max_connections = cap,
                "connections refused above the cap"
            );
            self.since_warned = 0;
            self.warned = Some(Instant::now());
        }
    }
}

/// Whether an accept error concerns one connection only (the next accept may well succeed).
fn one_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    // Linux passes a new socket's pending network error on as accept's (accept(2)).
    #[cfg(target_os = "linux")]
    const PENDING: &[i32] = &[71, 92, 112, 64, 113, 95, 101, 100];
    #[cfg(not(target_os = "linux"))]
    const PENDING: &[i32] = &[];
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
    ) || e.raw_os_error().is_some_and(|c| PENDING.contains(&c))
}

/// Answers 503 and closes, reading what the client sent meanwhile so the close is no reset
/// that could drop the answer before the client reads it.
async fn refuse(mut stream: TcpStream) {
    let answer = async {
        stream.write_all(REFUSAL).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 512];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    };
    let _ = tokio::time::timeout(REFUSAL_LINGER, answer).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server whose handshake waits for one byte and whose service waits for a second.
    async fn server(options: ListenOptions) -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            listen(
                listener,
                &options,
                |mut stream: TcpStream| async move {
                    let mut byte = [0u8; 1];
                    stream.read_exact(&mut byte).await.ok()?;
                    Some(stream)
                },
                |mut stream: TcpStream| async move {
                    let _ = stream.write_all(b"served").await;
                    let mut byte = [0u8; 1];
                    let _ = stream.read(&mut byte).await;
                },
            )
            .await;
        });
        addr
    }

    /// Everything the server sends until it closes, within 5 s.
    async fn read_all(stream: &mut TcpStream) -> String {
        let mut text = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut text));
        read.await.expect("the server closes in time").unwrap_or(0);
        String::from_utf8_lossy(&text).into_owned()
    }

    #[tokio::test]
    async fn above_the_cap_is_answered_503_and_served_again_after() {
        let addr = server(ListenOptions::default().max_connections(2)).await;
        let mut held = Vec::new();
        for _ in 0..2 {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(b"x").await.unwrap();
            let mut served = [0u8; 6];
            s.read_exact(&mut served).await.unwrap();
            held.push(s);
        }
        let mut third = TcpStream::connect(addr).await.unwrap();
        let answer = read_all(&mut third).await;
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
        drop(held);
        // The places come back once the held connections end.
        for _ in 0..100 {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(b"x").await.unwrap();
            let mut served = [0u8; 6];
            if s.read_exact(&mut served).await.is_ok() && &served == b"served" {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("no connection was served after the held ones ended");
    }

    #[tokio::test]
    async fn accepted_sockets_send_without_waiting_for_acks() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (seen, mut nodelay) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            listen(
                listener,
                &ListenOptions::default(),
                move |stream: TcpStream| {
                    let _ = seen.send(stream.nodelay().ok());
                    async { None::<()> }
                },
                |()| async {},
            )
            .await;
        });
        let _client = TcpStream::connect(addr).await.unwrap();
        let set = tokio::time::timeout(Duration::from_secs(5), nodelay.recv()).await;
        assert_eq!(
            set.expect("the connection is accepted in time"),
            Some(Some(true))
        );
    }

    #[tokio::test]
    async fn a_handshake_that_never_ends_is_closed_after_the_timeout() {
        let timeout = Duration::from_millis(200);
        let addr = server(ListenOptions::default().handshake_timeout(timeout)).await;
        let mut silent = TcpStream::connect(addr).await.unwrap();
        let started = Instant::now();
        assert_eq!(read_all(&mut silent).await, "");
        assert!(started.elapsed() >= timeout);
    }
}
