//! The binary as deployed, against whoever may reach its port: the client token (made, written
//! to `<data-dir>/token` with mode 0600, or given with `--token`), browser origins, and the
//! accept loop's limits (out of file descriptors, above the connection cap, a handshake that
//! never ends). Every loop is bounded.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use contracts::agent::client::Client;
use contracts::agent::{ChatListPayload, requests};
use contracts::port::{WebSocketOptions, WebSocketPort};
use test_support::{Watched, start_watched};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

const LIMIT: Duration = Duration::from_secs(20);

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn host(data: &std::path::Path, extra: &[&str], nofile: Option<u32>) -> Watched {
    let mut args = vec![
        "--addr",
        "127.0.0.1:0",
        "--memory",
        "--data-dir",
        data.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    start_watched(env!("CARGO_BIN_EXE_agent-host"), &args, nofile)
}

/// Whether a client on `url` with `options` is served (chat.list answered).
async fn served_with(url: &str, options: &WebSocketOptions) -> bool {
    let Ok(Ok(port)) = tokio::time::timeout(LIMIT, WebSocketPort::connect(url, options)).await
    else {
        return false;
    };
    let client = Client::new(port);
    let listed = tokio::time::timeout(
        LIMIT,
        client.request::<requests::ChatList>(ChatListPayload::new()),
    );
    matches!(listed.await, Ok(Ok(_)))
}

/// The HTTP status the upgrade is answered with, with `origin` as the Origin header.
async fn status(url: &str, origin: Option<&str>) -> u16 {
    let mut request = url.into_client_request().unwrap();
    if let Some(origin) = origin {
        let value = HeaderValue::from_str(origin).unwrap();
        request.headers_mut().insert("origin", value);
    }
    let connect = tokio_tungstenite::connect_async(request);
    match tokio::time::timeout(LIMIT, connect)
        .await
        .expect("an answer in time")
    {
        Ok((_, response)) => response.status().as_u16(),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(e) => panic!("no HTTP answer: {e}"),
    }
}

/// Without `--token` the host makes one, writes it to `<data-dir>/token` with mode 0600 and
/// says where (never what it is); only a client presenting it is served, as the `token`
/// parameter or as Bearer; a browser page of any origin is refused, a program (no Origin) is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_made_token_is_written_private_and_only_its_bearer_is_served() {
    let data = tmp("agent-host-token");
    let watched = host(&data, &[], None);
    let file = data.join("token");
    let said = watched.next_line(LIMIT).expect("a second line");
    assert_eq!(said, format!("client token in {}", file.display()));
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the token file's mode is {mode:o}");
    let token = std::fs::read_to_string(&file).unwrap().trim().to_owned();
    assert_eq!(token.len(), 64, "32 random bytes in hex");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    assert!(!said.contains(&token) && !watched.stderr().contains(&token));

    let url = watched.url.clone();
    let none = WebSocketOptions::default();
    assert_eq!(status(&url, None).await, 401);
    assert_eq!(status(&format!("{url}/?token=nope"), None).await, 401);
    assert_eq!(status(&format!("{url}/?token={token}x"), None).await, 401);
    assert!(!served_with(&url, &none.clone().bearer("nope")).await);
    assert!(served_with(&format!("{url}/?token={token}"), &none).await);
    assert!(served_with(&url, &none.clone().bearer(&token)).await);
    // A web page the user opens: refused before the token is even looked at.
    let with_token = format!("{url}/?token={token}");
    assert_eq!(status(&with_token, Some("https://evil.example")).await, 403);
    assert_eq!(status(&with_token, Some("null")).await, 403);
    assert_eq!(status(&url, Some("http://127.0.0.1:1")).await, 403);
    assert_eq!(status(&with_token, None).await, 101);

    // A restart makes a new token: the old one is refused.
    drop(watched);
    let watched = host(&data, &[], None);
    let fresh = std::fs::read_to_string(&file).unwrap().trim().to_owned();
    assert_ne!(fresh, token);
    assert_eq!(
        status(&format!("{}/?token={token}", watched.url), None).await,
        401
    );
    assert_eq!(
        status(&format!("{}/?token={fresh}", watched.url), None).await,
        101
    );
}

/// `--token` sets the token (no file is written) and `--allow-origin` lets a browser origin in,
/// with the token still needed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_given_token_and_an_allowed_origin() {
    let data = tmp("agent-host-origin");
    let page = "http://localhost:5173";
    let watched = host(
        &data,
        &["--token", "given-token", "--allow-origin", page],
        None,
    );
    assert!(!data.join("token").exists(), "no token file with --token");
    let url = watched.url.clone();
    assert_eq!(
        status(&format!("{url}/?token=given-token"), Some(page)).await,
        101
    );
    assert_eq!(
        status(&format!("{url}/?token=wrong"), Some(page)).await,
        401
    );
    assert_eq!(status(&url, Some(page)).await, 401);
    let other = "http://localhost:5174";
    assert_eq!(
        status(&format!("{url}/?token=given-token"), Some(other)).await,
        403
    );
    let bearer = WebSocketOptions::default().bearer("given-token");
    assert!(served_with(&url, &bearer).await);
}

/// Waits until a client with `token` is served (at most 60 tries, 100 ms apart).
async fn served(url: &str, token: &str) {
    let options = WebSocketOptions::default().bearer(token);
    for _ in 0..60 {
        if served_with(url, &options).await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no client was served");
}

/// With 64 file descriptors, 150 idle connections make accept fail (EMFILE): the host says so,
/// stays up, and serves a new client once they are gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_out_of_file_descriptors_is_waited_out() {
    let data = tmp("agent-host-emfile");
    let args = ["--token", "t", "--handshake-timeout-ms", "60000"];
    let mut watched = host(&data, &args, Some(64));
    let addr = watched.url.trim_start_matches("ws://").to_owned();
    let idle: Vec<TcpStream> = (0..150)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    watched.said("accept failed", Duration::from_secs(10));
    drop(idle);
    served(&watched.url, "t").await;
    assert!(
        watched.server.0.try_wait().unwrap().is_none(),
        "the host is up"
    );
}

/// With `--max-connections 2` a third connection is answered 503; a request head that never
/// ends is closed after `--handshake-timeout-ms`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_and_the_handshake_timeout() {
    let data = tmp("agent-host-cap");
    let args = [
        "--token",
        "t",
        "--max-connections",
        "2",
        "--handshake-timeout-ms",
        "500",
    ];
    let watched = host(&data, &args, None);
    let url = watched.url.clone();
    let options = WebSocketOptions::default().bearer("t");
    let mut held = Vec::new();
    for _ in 0..2 {
        let port = WebSocketPort::connect(&url, &options).await.unwrap();
        let client = Client::new(port);
        client
            .request::<requests::ChatList>(ChatListPayload::new())
            .await
            .unwrap();
        held.push(client);
    }
    assert_eq!(status(&format!("{url}/?token=t"), None).await, 503);
    drop(held);
    served(&url, "t").await;

    let addr = url.trim_start_matches("ws://").to_owned();
    let mut partial = TcpStream::connect(&addr).unwrap();
    partial.write_all(b"GET / HTTP/1.1\r\nhost: x\r\n").unwrap();
    partial
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 256];
    let read = partial.read(&mut buf);
    assert!(
        matches!(read, Ok(0))
            || read
                .as_ref()
                .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
        "the partial handshake was closed, not {read:?}"
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(400) && took < Duration::from_secs(5),
        "{took:?}"
    );
}
