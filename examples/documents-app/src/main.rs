//! `documents-app`: the example app's host, serving the agent requests and the app's on
//! `ws://ADDR/v1/ws`.
//!
//! ```text
//! documents-app [ADDR]     ADDR defaults to 127.0.0.1:8788; port 0 picks a free one
//! ```
//!
//! Prints `listening on ws://HOST:PORT/v1/ws` once the socket is bound, then serves until
//! killed. A document `welcome` exists from the start.

use std::io::Write as _;
use std::process::ExitCode;

use documents_app::{App, PATH, listen};

#[tokio::main]
async fn main() -> ExitCode {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8788".to_owned());
    let listener = match tokio::net::TcpListener::bind(&addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("documents-app: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let app = App::new();
    app.documents
        .write("welcome", "Hello from the documents app.");
    match listener.local_addr() {
        Ok(local) => println!("listening on ws://{local}{PATH}"),
        Err(e) => {
            eprintln!("documents-app: {e}");
            return ExitCode::FAILURE;
        }
    }
    let _ = std::io::stdout().flush();
    listen(app, listener).await;
    ExitCode::SUCCESS
}
