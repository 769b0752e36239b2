//! `broadcast-server`: the yardstick of `cargo xtask bench-turns`, a minimal tokio-tungstenite
//! server that answers a turn with the same frames agent-host sends, and nothing else: no hub,
//! no store, no check of what it sends, no queue bound, no heartbeat, no access check.
//!
//! ```text
//! broadcast-server --addr 127.0.0.1:0
//! ```
//!
//! Prints `listening on ws://HOST:PORT` once bound, then serves until killed. It knows three
//! requests: chat.create (a chat), chat.attach (the connection hears the chat's events) and
//! chat.send, which it answers `{queued: false}` and follows with the echo agent's turn, each
//! event as a chat.event frame to every connection attached to the chat, and each `info` also
//! as a chat.status to every connection: the user item, the chat running, the reply item, one
//! delta per word of `echo: TEXT`, the finished reply, the chat idle with its usage. Frames are
//! made from the generated types with the functions the hub uses (`event_frame`,
//! `reply_frame`). Each connection's frames are written by a task of its own, one WebSocket
//! message per write, the usual shape of such a server. Any other request is answered
//! `chat-unsupported`.
//!
//! `--nagle` leaves Nagle's algorithm on for accepted sockets (tokio's default); without it
//! each has `TCP_NODELAY`, as agent-host's do.

use agent_host::now;
use clap::Parser;
use contracts::agent::{
    AttachResult, ChatCreated, ChatEvent, ChatEventDelta, ChatEventEvent, ChatEventInfo,
    ChatEventItem, ChatInfo, ChatItemReply, ChatItemUser, ChatSendResult, ChatState,
    ChatStatusEvent, ChatUsage, WireError, error_frame, event_frame, events, reply_frame,
};
use contracts::wire::{Event as _, RawJson};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

/// A minimal WebSocket broadcast server speaking the echo agent's turn.
#[derive(Parser)]
#[command(name = "broadcast-server")]
struct Args {
    /// The address to listen on; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: String,
    /// Leave Nagle's algorithm on for accepted sockets.
    #[arg(long)]
    nagle: bool,
}

/// What every connection shares: who is connected, the chats and who attached to each.
#[derive(Default)]
struct Shared {
    next: u64,
    connections: HashMap<u64, UnboundedSender<Message>>,
    chats: HashMap<String, Chat>,
}

struct Chat {
    info: ChatInfo,
    seq: i64,
    next_index: i64,
    attached: Vec<u64>,
}

type State = Arc<Mutex<Shared>>;

fn lock(state: &State) -> MutexGuard<'_, Shared> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// Sends a chat's event to every connection attached to it, and an `info` as chat.status
    /// to every connection.
    fn publish(&mut self, chat_id: &str, event: ChatEvent) {
        let Some(chat) = self.chats.get_mut(chat_id) else {
            return;
        };
        chat.seq += 1;
        let status = match &event {
            ChatEvent::Info(e) => Some(ChatStatusEvent::new(chat_id, e.info.clone())),
            _ => None,
        };
        let frame = Utf8Bytes::from(event_frame(
            events::ChatEvent::NAME,
            &ChatEventEvent::new(chat_id, event).seq(chat.seq),
        ));
        for id in &chat.attached {
            if let Some(out) = self.connections.get(id) {
                let _ = out.send(Message::Text(frame.clone()));
            }
        }
        if let Some(status) = status {
            let frame = Utf8Bytes::from(event_frame(events::ChatStatus::NAME, &status));
            for out in self.connections.values() {
                let _ = out.send(Message::Text(frame.clone()));
            }
        }
    }

    /// The echo agent's turn for `text`, every event at once.
    fn turn(&mut self, chat_id: &str, text: &str) {
        let Some(chat) = self.chats.get_mut(chat_id) else {
            return;
        };
        let (user_index, reply_index) = (chat.next_index, chat.next_index + 1);
        chat.next_index += 2;
        chat.info.state = ChatState::Running;
        chat.info.updated_at = now();
        let running = chat.info.clone();
        let seq = chat.seq;
        let user = ChatItemUser::new(format!("u{seq}"), text, now()).history_index(user_index);
        self.publish(chat_id, ChatEventItem::new(user).into());
        self.publish(chat_id, ChatEventInfo::new(running).into());
        let id = format!("r{seq}");
        let reply = ChatItemReply::new(id.clone(), "", now())
            .history_index(reply_index)
            .model("echo-1")
            .streaming(true);
        self.publish(chat_id, ChatEventItem::new(reply.clone()).into());
        let answer = format!("echo: {text}");
        for chunk in answer.split_inclusive(' ') {
            self.publish(chat_id, ChatEventDelta::new(id.clone(), chunk).into());
        }
        let mut done = reply.streaming(false);
        done.text.clone_from(&answer);
        self.publish(chat_id, ChatEventItem::new(done).into());
        let Some(chat) = self.chats.get_mut(chat_id) else {
            return;
        };
        let words = |s: &str| s.split_whitespace().count() as i64;
        let usage = chat
            .info
            .usage
            .get_or_insert_with(|| ChatUsage::new(0, 0).cost_usd(0.0));
        usage.input_tokens += words(text);
        usage.output_tokens += words(&answer);
        chat.info.state = ChatState::Idle;
        chat.info.updated_at = now();
        let idle = chat.info.clone();
        self.publish(chat_id, ChatEventInfo::new(idle).into());
    }
}

/// A success frame with `result` (as `RawJson::from_value` wrote it).
fn reply(id: &str, result: Result<RawJson, serde_json::Error>) -> String {
    match result {
        Ok(raw) => reply_frame(id, raw.0),
        Err(e) => error_frame(Some(id), &WireError::internal(e.to_string())),
    }
}

/// Answers one request frame from connection `me`; the answer goes out before the turn's
/// events.
fn answer(state: &State, me: u64, text: &str) -> Option<String> {
    let frame: Value = serde_json::from_str(text).ok()?;
    let id = frame["id"].as_str()?;
    let payload = &frame["payload"];
    let chat_id = payload["chatId"].as_str().unwrap_or_default();
    let mut shared = lock(state);
    let missing = || {
        error_frame(
            Some(id),
            &WireError::unknown_chat(format!("no chat is called {chat_id:?}")),
        )
    };
    match frame["type"].as_str()? {
        "chat.create" => {
            shared.next += 1;
            let chat_id = format!("c{}", shared.next);
            let title = payload["title"].as_str().unwrap_or("New chat");
            let at = now();
            let info = ChatInfo::new(
                chat_id.clone(),
                title,
                ChatState::Idle,
                "echo",
                at,
                at,
                [],
                [],
            );
            let chat = Chat {
                info: info.clone(),
                seq: 0,
                next_index: 0,
                attached: Vec::new(),
            };
            shared.chats.insert(chat_id.clone(), chat);
            Some(reply(
                id,
                RawJson::from_value(&ChatCreated::new(chat_id, info)),
            ))
        }
        "chat.attach" => {
            let Some(chat) = shared.chats.get_mut(chat_id) else {
                return Some(missing());
            };
            chat.attached.push(me);
            let result = AttachResult::new(chat.info.clone(), Vec::new()).seq(chat.seq);
            Some(reply(id, RawJson::from_value(&result)))
        }
        "chat.send" => {
            if !shared.chats.contains_key(chat_id) {
                return Some(missing());
            }
            if let Some(out) = shared.connections.get(&me) {
                let _ = out.send(Message::text(reply(
                    id,
                    RawJson::from_value(&ChatSendResult::new(false)),
                )));
            }
            let text = payload["text"].as_str().unwrap_or_default();
            shared.turn(chat_id, text);
            None
        }
        other => Some(error_frame(
            Some(id),
            &WireError::chat_unsupported(format!("{other} is not served here")),
        )),
    }
}

/// Serves one connection until it ends.
async fn serve(state: State, stream: TcpStream) {
    let Ok(socket) = tokio_tungstenite::accept_async(stream).await else {
        return;
    };
    let (mut sink, mut source) = socket.split();
    let (out, mut queue) = unbounded_channel::<Message>();
    let me = {
        let mut shared = lock(&state);
        shared.next += 1;
        let me = shared.next;
        shared.connections.insert(me, out.clone());
        me
    };
    let writer = tokio::spawn(async move {
        while let Some(message) = queue.recv().await {
            if sink.send(message).await.is_err() {
                break;
            }
        }
    });
    while let Some(Ok(message)) = source.next().await {
        let Message::Text(text) = message else {
            continue;
        };
        if let Some(answer) = answer(&state, me, text.as_str()) {
            let _ = out.send(Message::text(answer));
        }
    }
    {
        let mut shared = lock(&state);
        shared.connections.remove(&me);
        for chat in shared.chats.values_mut() {
            chat.attached.retain(|c| *c != me);
        }
    }
    writer.abort();
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let listener = match TcpListener::bind(&args.addr).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("broadcast-server: cannot listen on {}: {e}", args.addr);
            return ExitCode::FAILURE;
        }
    };
    match listener.local_addr() {
        Ok(addr) => println!("listening on ws://{addr}"),
        Err(e) => {
            eprintln!("broadcast-server: {e}");
            return ExitCode::FAILURE;
        }
    }
    let state = State::default();
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors, say: wait a little rather than spin.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        if !args.nagle {
            let _ = stream.set_nodelay(true);
        }
        tokio::spawn(serve(state.clone(), stream));
    }
}
