//! `turn-driver`: the client side of `cargo xtask bench-turns`. N WebSocket clients, each with
//! a chat of its own, run turns back to back against one server (agent-host, or the
//! benchmark's `broadcast-server`) for a fixed time, and the driver prints one JSON line:
//! the chat.event frames received, the turns, the seconds, and each turn's latency.
//!
//! ```text
//! turn-driver --url 'ws://127.0.0.1:PORT/?token=T' --clients 10 --seconds 2
//! ```
//!
//! A turn is what a person's message makes: the client sends chat.send and reads until its
//! chat's `info` event says idle again. Its latency runs from the send to that event. A client
//! moves to a new chat every `--turns-per-chat` turns, so a long run does not measure an ever
//! longer chat. Every
//! client must see the same number of chat.event frames in every turn, the number its first
//! turn showed, or the driver fails (exit 1) without a figure; the `shape` of the first turn
//! (each chat.event's `event.type`, in order) is printed for the caller to compare across
//! servers. Frames are recognised by their text in the measured turns (the driver shares the
//! machine with the server, so it reads as little as it can) and parsed as JSON in the first.
//!
//! Bounded: no turn starts after `--seconds`, a frame awaited longer than `--frame-limit`
//! seconds fails the run, and so does a connection that ends.

use clap::Parser;
use contracts::agent::{ChatAttachPayload, ChatCreatePayload, ChatSendPayload, Request, requests};
use contracts::wire::{RawJson, Request as Call};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Drives turns against a server and prints what it measured as one JSON line.
#[derive(Parser)]
#[command(name = "turn-driver")]
struct Args {
    /// The server's WebSocket URL, with its token (`?token=`) when it needs one.
    #[arg(long)]
    url: String,
    /// Clients, each with a chat of its own, all running turns at once.
    #[arg(long, default_value_t = 1)]
    clients: usize,
    /// Seconds of turns measured; no turn starts after them.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Turns per client before the measured ones (not counted).
    #[arg(long, default_value_t = 20)]
    warmup: usize,
    /// The message every turn sends: the echo's reply streams one delta per word.
    #[arg(
        long,
        default_value = "the quick brown fox jumps over the lazy dog once more"
    )]
    text: String,
    /// Turns a chat takes before the client moves to a new one (chat.create, chat.attach);
    /// 0: one chat for the whole run. Keeps what a turn costs from growing with the chat.
    #[arg(long, default_value_t = 200)]
    turns_per_chat: u64,
    /// Seconds one frame may be awaited before the run fails.
    #[arg(long, default_value_t = 10)]
    frame_limit: u64,
    /// Each client's socket with Nagle's algorithm on (tokio-tungstenite's `connect_async`
    /// default); off by default, as a browser's and `WebSocketPort::connect`'s.
    #[arg(long)]
    nagle: bool,
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// One client: its socket, its chat, its next request id.
struct Driver {
    socket: Socket,
    chat_id: String,
    next_id: u64,
    limit: Duration,
}

/// What one client measured.
#[derive(Default)]
struct Counts {
    turns: u64,
    events: u64,
    statuses: u64,
    latencies_us: Vec<u64>,
}

impl Driver {
    /// Connects, creates a chat and attaches to it.
    async fn open(args: &Args) -> Result<Driver, String> {
        let (socket, _) =
            tokio_tungstenite::connect_async_with_config(args.url.as_str(), None, !args.nagle)
                .await
                .map_err(|e| format!("cannot connect to {}: {e}", args.url))?;
        let mut driver = Driver {
            socket,
            chat_id: String::new(),
            next_id: 1,
            limit: Duration::from_secs(args.frame_limit),
        };
        driver.new_chat().await?;
        Ok(driver)
    }

    /// Creates a chat and attaches to it: the client's turns go there from now on.
    async fn new_chat(&mut self) -> Result<(), String> {
        let created = self
            .call::<requests::ChatCreate>(ChatCreatePayload::new().title("bench"))
            .await?;
        self.chat_id = created["chatId"]
            .as_str()
            .ok_or_else(|| format!("chat.create answered no chatId: {created}"))?
            .to_owned();
        self.call::<requests::ChatAttach>(ChatAttachPayload::new(self.chat_id.clone()))
            .await?;
        Ok(())
    }

    /// Sends a request made from the generated types; answers its request id.
    async fn send<R: Call>(&mut self, payload: R::Payload) -> Result<String, String> {
        let id = self.next_id.to_string();
        self.next_id += 1;
        let payload = RawJson::from_value(&payload).map_err(|e| e.to_string())?;
        let text = serde_json::to_string(&Request::new(id.clone(), R::METHOD, payload))
            .map_err(|e| e.to_string())?;
        self.socket
            .send(Message::text(text))
            .await
            .map_err(|e| format!("cannot send {}: {e}", R::METHOD))?;
        Ok(id)
    }

    /// The next text frame, within the frame limit.
    async fn next(&mut self) -> Result<String, String> {
        loop {
            let message = tokio::time::timeout(self.limit, self.socket.next())
                .await
                .map_err(|_| format!("no frame for {:?}", self.limit))?;
            match message {
                Some(Ok(Message::Text(text))) => return Ok(text.as_str().to_owned()),
                Some(Ok(Message::Close(_))) | None => {
                    return Err("the server closed the connection".to_owned());
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(format!("the connection failed: {e}")),
            }
        }
    }

    /// A request and its result (events meanwhile are skipped: a setup request's).
    async fn call<R: Call>(&mut self, payload: R::Payload) -> Result<Value, String> {
        let id = self.send::<R>(payload).await?;
        loop {
            let frame: Value =
                serde_json::from_str(&self.next().await?).map_err(|e| e.to_string())?;
            if frame["id"].as_str() != Some(id.as_str()) {
                continue;
            }
            return match frame["ok"].as_bool() {
                Some(true) => Ok(frame["result"].clone()),
                _ => Err(format!("{} refused: {frame}", R::METHOD)),
            };
        }
    }

    /// One turn read as JSON: each chat.event's `event.type` in order (its shape).
    async fn first_turn(&mut self, text: &str) -> Result<Vec<String>, String> {
        let payload = ChatSendPayload::new(self.chat_id.clone(), text);
        let id = self.send::<requests::ChatSend>(payload).await?;
        let (mut shape, mut answered) = (Vec::new(), false);
        loop {
            let frame: Value =
                serde_json::from_str(&self.next().await?).map_err(|e| e.to_string())?;
            if frame["id"].as_str() == Some(id.as_str()) {
                if frame["ok"].as_bool() != Some(true) {
                    return Err(format!("chat.send refused: {frame}"));
                }
                answered = true;
                continue;
            }
            if frame["event"].as_str() != Some("chat.event") {
                continue;
            }
            let event = &frame["payload"]["event"];
            let kind = event["type"].as_str().unwrap_or("?").to_owned();
            let idle = kind == "info" && event["info"]["state"].as_str() == Some("idle");
            shape.push(kind);
            if idle {
                if !answered {
                    return Err("the turn ended before chat.send was answered".to_owned());
                }
                return Ok(shape);
            }
        }
    }

    /// One measured turn: the chat.event frames it brought (the idle one included) and the
    /// chat.status frames that came meanwhile, recognised by their text.
    async fn turn(&mut self, text: &str, counts: &mut Counts) -> Result<u64, String> {
        let payload = ChatSendPayload::new(self.chat_id.clone(), text);
        let started = Instant::now();
        self.send::<requests::ChatSend>(payload).await?;
        let mut events = 0;
        loop {
            let frame = self.next().await?;
            if frame.contains("\"chat.status\"") {
                counts.statuses += 1;
            } else if frame.contains("\"chat.event\"") {
                events += 1;
                if frame.contains("\"state\":\"idle\"") {
                    break;
                }
            } else if frame.contains("\"ok\":false") {
                return Err(format!("a request was refused: {frame}"));
            }
        }
        counts
            .latencies_us
            .push(started.elapsed().as_micros() as u64);
        Ok(events)
    }
}

/// One client's run: a first turn for its shape, the warm-up, then turns for `seconds`
/// (a new chat every `--turns-per-chat` turns).
async fn run_client(
    mut driver: Driver,
    args: Arc<Args>,
    start: Arc<tokio::sync::Barrier>,
    seconds: Duration,
) -> Result<(Vec<String>, Counts), String> {
    let shape = driver.first_turn(&args.text).await?;
    let per_turn = shape.len() as u64;
    let mut on_chat = 1 + args.warmup as u64;
    let mut scratch = Counts::default();
    for _ in 0..args.warmup {
        let events = driver.turn(&args.text, &mut scratch).await?;
        check_count(events, per_turn)?;
    }
    start.wait().await;
    let until = Instant::now() + seconds;
    let mut counts = Counts::default();
    while Instant::now() < until {
        if args.turns_per_chat > 0 && on_chat >= args.turns_per_chat {
            driver.new_chat().await?;
            on_chat = 0;
        }
        on_chat += 1;
        let events = driver.turn(&args.text, &mut counts).await?;
        check_count(events, per_turn)?;
        counts.turns += 1;
        counts.events += events;
    }
    let _ = driver.socket.close(None).await;
    Ok((shape, counts))
}

fn check_count(events: u64, per_turn: u64) -> Result<(), String> {
    if events == per_turn {
        Ok(())
    } else {
        Err(format!(
            "a turn brought {events} chat.event frames, the first {per_turn}"
        ))
    }
}

/// The value at quantile `q` of sorted values.
fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

async fn run(args: Args) -> Result<Value, String> {
    let args = Arc::new(args);
    let mut drivers = Vec::with_capacity(args.clients);
    for _ in 0..args.clients {
        drivers.push(Driver::open(&args).await?);
    }
    let start = Arc::new(tokio::sync::Barrier::new(args.clients + 1));
    let seconds = Duration::from_secs_f64(args.seconds);
    let tasks: Vec<_> = drivers
        .into_iter()
        .map(|driver| tokio::spawn(run_client(driver, args.clone(), start.clone(), seconds)))
        .collect();
    start.wait().await;
    let began = Instant::now();
    let mut shape: Option<Vec<String>> = None;
    let mut all = Counts::default();
    for task in tasks {
        let (first, counts) = task.await.map_err(|e| e.to_string())??;
        if shape.as_ref().is_some_and(|s| *s != first) {
            return Err(format!(
                "two clients' turns differ: {shape:?} and {first:?}"
            ));
        }
        shape = Some(first);
        all.turns += counts.turns;
        all.events += counts.events;
        all.statuses += counts.statuses;
        all.latencies_us.extend(counts.latencies_us);
    }
    let elapsed = began.elapsed().as_secs_f64();
    all.latencies_us.sort_unstable();
    let ms = |us: u64| us as f64 / 1000.0;
    Ok(serde_json::json!({
        "clients": args.clients,
        "turns": all.turns,
        "events": all.events,
        "statuses": all.statuses,
        "seconds": elapsed,
        "events_per_second": all.events as f64 / elapsed,
        "turn_ms": {
            "p50": ms(quantile(&all.latencies_us, 0.5)),
            "p90": ms(quantile(&all.latencies_us, 0.9)),
            "p99": ms(quantile(&all.latencies_us, 0.99)),
            "max": ms(quantile(&all.latencies_us, 1.0)),
        },
        "shape": shape.unwrap_or_default(),
    }))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    if args.clients == 0 {
        eprintln!("turn-driver: --clients must be at least 1");
        return ExitCode::from(2);
    }
    match run(args).await {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("turn-driver: {e}");
            ExitCode::FAILURE
        }
    }
}
