//! What the deployment tests share: the server binary on a data directory of its own, a
//! WebSocket client that checks every frame with the generated parser, and plain HTTP.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::Duration;

use contracts::connect::{ServerFrame, parse_server_frame};
use contracts::port::{FramePortExt, FrameReceiver, Incoming, WebSocketOptions, WebSocketPort};
use serde_json::{Value, json};
use test_support::KillOnDrop;

/// A data directory removed when dropped.
pub struct DataDir(pub PathBuf);

impl DataDir {
    pub fn new(name: &str) -> DataDir {
        let dir =
            std::env::temp_dir().join(format!("connect-server-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        DataDir(dir)
    }

    pub fn arg(&self) -> String {
        self.0.display().to_string()
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The server binary on a free port with `args`: the process (killed with SIGKILL when
/// dropped) and its ws:// url.
pub fn server(args: &[&str]) -> (KillOnDrop, String) {
    let mut all = vec!["--addr", "127.0.0.1:0"];
    all.extend_from_slice(args);
    test_support::start(env!("CARGO_BIN_EXE_connect-server"), &all)
}

/// `host:port` of a ws:// url.
pub fn host_of(url: &str) -> String {
    url.trim_start_matches("ws://")
        .split('/')
        .next()
        .unwrap()
        .to_owned()
}

/// A client connection.
pub struct Client {
    pub port: WebSocketPort,
    pub frames: FrameReceiver,
}

impl Client {
    /// Connects with `token` and says hello with `accepts`.
    pub async fn hello(url: &str, token: &str, accepts: &[&str]) -> Client {
        Client::try_hello(url, token, accepts)
            .await
            .expect("the server answers hello")
    }

    /// Like [`Client::hello`], but `None` when the server is gone before it answers (a test
    /// that kills the server may do so while a client is still saying hello).
    pub async fn try_hello(url: &str, token: &str, accepts: &[&str]) -> Option<Client> {
        let mut c = Client::try_connect(url, token).await?;
        c.port
            .send_json(&json!({
                "frame": "hello", "protocol": { "min": 1, "max": 1 },
                "client": { "name": "deploy-test", "version": "1" }, "accepts": accepts,
            }))
            .ok()?;
        match c.next().await? {
            ServerFrame::Hello(_) => Some(c),
            other => panic!("hello answered with {other:?}"),
        }
    }

    pub async fn connect(url: &str, token: &str) -> Client {
        Client::try_connect(url, token).await.expect("connects")
    }

    /// A connection, or `None` when the server refuses it or is gone.
    pub async fn try_connect(url: &str, token: &str) -> Option<Client> {
        let port = WebSocketPort::connect(
            &format!("{url}?token={token}"),
            &WebSocketOptions::default(),
        )
        .await
        .ok()?;
        let frames = port.receiver();
        Some(Client { port, frames })
    }

    pub fn send(&self, frame: Value) {
        self.port.send_json(&frame).expect("sent");
    }

    /// Sends `frame`; false when the connection is gone.
    pub fn try_send(&self, frame: Value) -> bool {
        self.port.send_json(&frame).is_ok()
    }

    /// The next frame that is not a ping, within 20 s; `None` when the connection ended.
    pub async fn next(&mut self) -> Option<ServerFrame> {
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(20), self.frames.recv())
                .await
                .expect("a frame in time")?;
            let Incoming::Text(text) = frame else {
                panic!("expected text, got {frame:?}")
            };
            let frame = parse_server_frame(&text)
                .unwrap_or_else(|e| panic!("the server sent an invalid frame: {e}\n{text}"));
            if !matches!(frame, ServerFrame::Ping(_)) {
                return Some(frame);
            }
        }
    }

    /// Writes a message and answers its ack or error, skipping live events.
    pub async fn post(&mut self, space: &str, text: &str, key: &str) -> ServerFrame {
        self.send(post(space, text, key));
        self.answer().await
    }

    /// The next ack or error.
    pub async fn answer(&mut self) -> ServerFrame {
        loop {
            let f = self.next().await.expect("the connection stays up");
            if matches!(f, ServerFrame::Ack(_) | ServerFrame::Error(_)) {
                return f;
            }
        }
    }

    /// Subscribes to the workspace from `since` and reads the replay to its end (marked by a
    /// ping round trip): every event, in the order received, and the frames they came in.
    pub async fn replay(&mut self, workspace: &str, since: i64) -> (Vec<Value>, Vec<ServerFrame>) {
        self.send(json!({ "frame": "subscribe", "workspace_id": workspace, "since": since }));
        self.send(json!({ "frame": "ping", "ts": 4242 }));
        let (mut events, mut frames) = (Vec::new(), Vec::new());
        loop {
            let f = self.next().await.expect("the connection stays up");
            match &f {
                ServerFrame::Pong(p) if p.ts == 4242 => return (events, frames),
                ServerFrame::Events(page) => {
                    events.extend(page.events.iter().map(|e| serde_json::to_value(e).unwrap()))
                }
                ServerFrame::Event(e) => events.push(serde_json::to_value(&e.event).unwrap()),
                ServerFrame::Error(e) => panic!("replay refused: {e:?}"),
                _ => {}
            }
            frames.push(f);
        }
    }
}

pub fn post(space: &str, text: &str, key: &str) -> Value {
    json!({ "frame": "event", "event": { "type": "message.post", "space_id": space, "text": text, "idempotency_key": key } })
}

/// One HTTP request to `host` with `token`: the status and the JSON body.
pub fn http(host: &str, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let auth = token.map_or(String::new(), |t| format!("authorization: Bearer {t}\r\n"));
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {host}\r\n{auth}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not HTTP: {response:?}"));
    let body = response.split("\r\n\r\n").nth(1).unwrap_or("");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// The server's resident memory in bytes, from /proc (Linux).
pub fn rss(server: &KillOnDrop) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.0.id())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
