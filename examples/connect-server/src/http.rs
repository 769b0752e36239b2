//! Plain HTTP on the WebSocket's listener: the request head read without consuming it (so a
//! WebSocket upgrade is handed to tungstenite untouched), a body read by its length, and a
//! JSON response written.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The largest request head read, in bytes.
pub const MAX_HEAD: usize = 16 * 1024;

/// The largest request body read, in bytes.
pub const MAX_BODY: usize = 1024 * 1024;

/// How long a client has to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

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

/// Peeks at the request head until it is whole; `None` when the peer sent none in time, closed,
/// or sent what is not HTTP.
pub async fn peek_head(stream: &TcpStream) -> Option<Head> {
    let mut buf = vec![0u8; MAX_HEAD];
    let deadline = tokio::time::Instant::now() + HEAD_TIMEOUT;
    let mut seen = 0;
    loop {
        let n = tokio::time::timeout_at(deadline, stream.peek(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut request = httparse::Request::new(&mut headers);
        match request.parse(&buf[..n]) {
            Ok(httparse::Status::Complete(len)) => return Some(head_of(&request, len)),
            Ok(httparse::Status::Partial) if n < MAX_HEAD => {}
            _ => return None,
        }
        // peek answers at once with what is there: wait a little for more.
        if n == seen {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        seen = n;
        if tokio::time::Instant::now() >= deadline {
            return None;
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

/// Consumes the head peeked at and reads the body by its length (at most [`MAX_BODY`]).
pub async fn read_body(stream: &mut TcpStream, head: &Head) -> io::Result<Result<Vec<u8>, String>> {
    let mut skip = vec![0u8; head.len];
    stream.read_exact(&mut skip).await?;
    let len = head.content_length.unwrap_or(0);
    if len > MAX_BODY {
        return Ok(Err(format!(
            "the body is {len} bytes; at most {MAX_BODY} are read"
        )));
    }
    let mut body = vec![0u8; len];
    tokio::time::timeout(HEAD_TIMEOUT, stream.read_exact(&mut body))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "the body did not come"))??;
    Ok(Ok(body))
}

/// Writes a response with a JSON body and closes the connection.
pub async fn respond(
    stream: &mut TcpStream,
    status: u16,
    body: &serde_json::Value,
) -> io::Result<()> {
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
