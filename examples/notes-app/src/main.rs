//! `notes-app [ADDR]`: serves the agent and notes requests on `ws://ADDR/v1/ws`.
//! Prints `listening on ws://HOST:PORT/v1/ws` once bound (port 0 picks a free one).

use std::io::Write as _;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8790".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on ws://{}/v1/ws", listener.local_addr()?);
    std::io::stdout().flush()?;
    notes_app::listen(notes_app::App::new(), listener).await;
    Ok(())
}
