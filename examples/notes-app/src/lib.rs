//! The notes app: the agent protocol with notes of its own, served over WebSocket.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use contracts::agent::host::{Hub, HubConfig};
use contracts::agent::{self, ChatListPayload, ChatListResult, Empty, WireError};
use contracts::port::{ListenOptions, WebSocketOptions, WebSocketPort};
use contracts::wire::Event as _;
use tokio::net::TcpListener;

/// The app's protocol, on top of the agent's.
pub mod notes {
    contracts::protocol! {
        name: "notes",
        dir: "schema",
        // The agent's Rust module; its schema directory comes from CONTRACTS_SCHEMA_AGENT.
        extends: { agent: ::contracts::agent },
    }
}

use notes::{
    NoteChangedEvent, NoteReadPayload, NoteReadResult, NoteWritePayload, WireErrorExt as _,
};

/// The app's state: the agent hub, and the notes by id.
pub struct App {
    pub hub: Arc<Hub>,
    notes: Mutex<BTreeMap<String, String>>,
}

impl App {
    pub fn new() -> Arc<App> {
        Arc::new(App {
            hub: Hub::new(HubConfig::default()),
            notes: Mutex::default(),
        })
    }
}

/// The app's own error code (`NotesErrorCode` in its schema, which extends the agent's open
/// `ErrorCode`), built as the agent's codes are.
fn unknown_note(id: &str) -> WireError {
    WireError::unknown_note(format!("no note is called {id:?}"))
}

/// One client's host: the agent requests it does, and the app's.
pub struct Connection {
    pub app: Arc<App>,
}

impl agent::Host for Connection {
    async fn chat_list(&self, payload: ChatListPayload) -> Result<ChatListResult, WireError> {
        self.app.hub.chat_page(&payload)
    }
}

impl notes::Host for Connection {
    async fn note_read(&self, p: NoteReadPayload) -> Result<NoteReadResult, WireError> {
        let notes = self.app.notes.lock().unwrap_or_else(|e| e.into_inner());
        let text = notes.get(&p.id).cloned().ok_or_else(|| unknown_note(&p.id))?;
        Ok(NoteReadResult::new(text))
    }

    async fn note_write(&self, p: NoteWritePayload) -> Result<Empty, WireError> {
        let mut notes = self.app.notes.lock().unwrap_or_else(|e| e.into_inner());
        notes.insert(p.id.clone(), p.text);
        drop(notes);
        // Every client hears it; an event too large for a frame is refused here, not sent.
        let event = NoteChangedEvent::new(p.id);
        self.app.hub.broadcast(notes::events::NoteChanged::NAME, &event)?;
        Ok(Empty::new())
    }
}

/// Accepts WebSocket connections on `/v1/ws` forever, one task per connection, with the
/// runtime's accept loop: accept errors waited out, a cap on connections, a handshake timeout.
pub async fn listen(app: Arc<App>, listener: TcpListener) {
    let options = WebSocketOptions::default().path("/v1/ws");
    let handshake = move |stream| {
        let options = options.clone();
        async move { WebSocketPort::accept(stream, &options).await.ok() }
    };
    let serve = move |port: WebSocketPort| {
        let app = app.clone();
        async move {
            let (client, outgoing) = app.hub.connect();
            let hub = app.hub.clone();
            let host = Connection { app };
            agent::host::serve(&hub, client, outgoing, &port, &notes::Dispatcher(&host)).await;
        }
    };
    contracts::port::listen(listener, &ListenOptions::default(), handshake, serve).await;
}
