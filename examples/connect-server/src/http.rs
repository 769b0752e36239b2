//! Plain HTTP on the WebSocket's listener: the request head read as it comes, in a buffer that
//! grows with it (a [`Conn`] hands what was read to whoever reads next, so a WebSocket upgrade
//! reaches tungstenite whole), a body read by its length, and a JSON response written.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;

/// The largest request head read, in bytes.
pub const MAX_HEAD: usize = 16 * 1024;

/// The largest request body read, in bytes.
pub const MAX_BODY: usize = 1024 * 1024;

/// How long a client has to send a request body.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// How much the head's buffer grows by at a time.
const HEAD_CHUNK: usize = 1024;

/// A connection whose first bytes were read already: reading gives those first, then the
/// socket's; writing goes to the socket.
#[derive(Debug)]
pub struct Conn {
    read: Vec<u8>,
    at: usize,
    stream: TcpStream,
}

impl Conn {
    /// A connection nothing was read from yet.
    pub fn new(stream: TcpStream) -> Conn {
        Conn {
            read: Vec::new(),
            at: 0,
            stream,
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.at < this.read.len() {
            let n = buf.remaining().min(this.read.len() - this.at);
            buf.put_slice(&this.read[this.at..this.at + n]);
            this.at += n;
            if this.at == this.read.len() {
                // Given back: the socket's own buffers hold the rest.
                this.read = Vec::new();
                this.at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// What the server needs of a request head.
#[derive(Clone, Debug, Default)]
pub struct Head {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path without the query.
    pub path: String,
    /// The query, without `?`.
    pub query: Option<String>,
    /// The `Authorization` header.
    pub authorization: Option<String>,
    /// Whether it asks for a WebSocket (`Upgrade: websocket`).
    pub upgrade: bool,
    /// The `Content-Length` header.
    pub content_length: Option<usize>,
    /// The head's length in bytes, up to and with the blank line.
    pub len: usize,
}

impl Head {
    /// The value of query parameter `name`, percent-decoded.
    pub fn param(&self, name: &str) -> Option<String> {
        crate::tokens::query_param(self.query.as_deref()?, name)
    }
}

/// Reads the request head until it is whole, waiting for the socket as it comes (the caller
/// bounds the time): the head and the connection, which reads it again from its start. `None`
/// when the peer closed first or sent what is not HTTP or a head over [`MAX_HEAD`].
pub async fn read_head(mut stream: TcpStream) -> Option<(Head, Conn)> {
    let mut read = Vec::new();
    loop {
        let len = read.len();
        let room = HEAD_CHUNK.min(MAX_HEAD - len);
        if room == 0 {
            return None;
        }
        read.resize(len + room, 0);
        let n = stream.read(&mut read[len..]).await.ok()?;
        read.truncate(len + n);
        if n == 0 {
            return None;
        }
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut request = httparse::Request::new(&mut headers);
        match request.parse(&read) {
            Ok(httparse::Status::Complete(len)) => {
                let head = head_of(&request, len);
                return Some((
                    head,
                    Conn {
                        read,
                        at: 0,
                        stream,
                    },
                ));
            }
            Ok(httparse::Status::Partial) => {}
            Err(_) => return None,
        }
    }
}

fn head_of(request: &httparse::Request<'_, '_>, len: usize) -> Head {
    let target = request.path.unwrap_or("/");
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_owned(), Some(q.to_owned())),
        None => (target.to_owned(), None),
    };
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .and_then(|h| std::str::from_utf8(h.value).ok())
            .map(str::to_owned)
    };
    Head {
        method: request.method.unwrap_or("").to_owned(),
        path,
        query,
        authorization: header("authorization"),
        upgrade: header("upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket")),
        content_length: header("content-length").and_then(|v| v.trim().parse().ok()),
        len,
    }
}

/// Consumes the head read and reads the body by its length (at most [`MAX_BODY`]).
pub async fn read_body(stream: &mut Conn, head: &Head) -> io::Result<Result<Vec<u8>, String>> {
    let mut skip = vec![0u8; head.len];
    stream.read_exact(&mut skip).await?;
    let len = head.content_length.unwrap_or(0);
    if len > MAX_BODY {
        return Ok(Err(format!(
            "the body is {len} bytes; at most {MAX_BODY} are read"
        )));
    }
    let mut body = vec![0u8; len];
    tokio::time::timeout(BODY_TIMEOUT, stream.read_exact(&mut body))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "the body did not come"))??;
    Ok(Ok(body))
}

/// Writes a response with a JSON body and closes the connection.
pub async fn respond(stream: &mut Conn, status: u16, body: &serde_json::Value) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Error",
    };
    let body = body.to_string();
    let text = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(text.as_bytes()).await?;
    stream.shutdown().await
}
