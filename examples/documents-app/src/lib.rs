//! The documents app: an app that extends the agent protocol with documents.
//!
//! [`documents`] is derived by `protocol!` from `schema/` on top of the agent protocol: the
//! app's own types, the request and event tables that hold the agent's names and the app's,
//! one host trait ([`documents::Host`], with [`contracts::agent::Host`] as its supertrait) and
//! a [`documents::dispatch`] that routes every name.
//!
//! [`Connection`] is one client's host: the agent requests go to the agent [`Hub`], the app's
//! to [`Documents`]. [`serve`] runs one connection over any [`FramePort`] with the agent
//! runtime's loop and the app's [`documents::Dispatcher`]; [`listen`] accepts WebSocket
//! connections. The app's events go out through the same hub as the agent's.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use contracts::agent::host::{ClientId, Hub, HubConfig};
use contracts::agent::{
    self, ChatAttachPayload, ChatCreatePayload, ChatCreated, ChatDetachPayload, ChatHistoryPayload,
    ChatHistoryResult, ChatInfo, ChatListPayload, ChatListResult, ChatState, Empty, WireError,
};
use contracts::port::{FramePort, ListenOptions, WebSocketOptions, WebSocketPort};
use contracts::wire::Event as _;
use tokio::net::TcpListener;

/// The app's protocol, on top of the agent's.
pub mod documents {
    contracts::protocol! {
        name: "documents",
        dir: "schema",
        // The agent schema's directory comes from `CONTRACTS_SCHEMA_AGENT` (see build.rs).
        extends: { agent: ::contracts::agent },
    }
}

/// The app's composed tables (the agent's entries and its own), for the verdict of
/// [`agent::verdict_in`]: what `cargo xtask validate --protocol documents` runs, the corpus
/// tests and the fuzzer's differential run.
#[derive(Debug, Clone, Copy)]
pub struct DocumentsTables;

impl agent::Tables for DocumentsTables {
    type Request = documents::RequestPayload;
    type Result = documents::RequestResult;
    type Event = documents::EventPayload;
    const REQUEST_NAMES: &'static [&'static str] = documents::REQUEST_NAMES;
    const EVENT_NAMES: &'static [&'static str] = documents::EVENT_NAMES;
    fn check_type(name: &str, json: &str) -> Option<Result<(), contracts::wire::ParseError>> {
        documents::check_type(name, json)
    }
}

use documents::{
    DocumentAttachToChatPayload, DocumentAttachToChatResult, DocumentChangedEvent, DocumentHeaders,
    DocumentMeta, DocumentMetaPayload, DocumentReadPayload, DocumentReadResult,
    DocumentSetHeadersPayload, DocumentUploadPayload, DocumentUploadResult, DocumentWritePayload,
    WireErrorExt as _, events,
};

/// The path the WebSocket server answers on.
pub const PATH: &str = "/v1/ws";

/// The app's state: documents by id. Every client of the hub hears `document.changed`.
pub struct Documents {
    texts: Mutex<BTreeMap<String, String>>,
    /// Each document's headers, as a client set them (`document.setHeaders`).
    headers: Mutex<BTreeMap<String, DocumentHeaders>>,
    hub: Arc<Hub>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain data behind; keep serving.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The app's own code (`DocumentsErrorCode` in its schema), built as the agent's are.
fn unknown_document(id: &str) -> WireError {
    WireError::unknown_document(format!("no document is called {id:?}"))
}

impl Documents {
    /// A document's text.
    pub fn read(&self, id: &str) -> Option<String> {
        lock(&self.texts).get(id).cloned()
    }

    /// Replaces a document's text; every client hears `document.changed`.
    pub fn write(&self, id: &str, text: &str) {
        lock(&self.texts).insert(id.to_owned(), text.to_owned());
        let payload = DocumentChangedEvent::new(id);
        // A document change is a short frame: only its id.
        let _ = self.hub.broadcast(events::DocumentChanged::NAME, &payload);
    }
}

/// The whole app: the agent hub and the documents.
pub struct App {
    pub hub: Arc<Hub>,
    pub documents: Documents,
}

impl App {
    pub fn new() -> Arc<App> {
        let hub = Hub::new(HubConfig::default());
        Arc::new(App {
            documents: Documents {
                texts: Mutex::default(),
                headers: Mutex::default(),
                hub: hub.clone(),
            },
            hub,
        })
    }
}

/// One client's host: it implements the agent's requests and the app's.
pub struct Connection {
    app: Arc<App>,
    client: ClientId,
}

/// Milliseconds since the Unix epoch.
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The agent requests this host does; every other one is refused as unsupported.
impl agent::Host for Connection {
    async fn chat_create(&self, payload: ChatCreatePayload) -> Result<ChatCreated, WireError> {
        let chat_id = format!("c{}", self.app.hub.chats().len() + 1);
        let mut info = ChatInfo::new(
            chat_id.clone(),
            payload.title.unwrap_or_else(|| "New chat".to_owned()),
            ChatState::Idle,
            payload.provider.unwrap_or_else(|| "demo".to_owned()),
            now(),
            now(),
            [],
            [],
        );
        info.model = payload.model;
        info.cwd = payload.cwd;
        info.preferences = payload.preferences;
        self.app.hub.create_chat(info.clone())?;
        Ok(ChatCreated::new(chat_id, info))
    }

    async fn chat_list(&self, payload: ChatListPayload) -> Result<ChatListResult, WireError> {
        self.app.hub.chat_page(&payload)
    }

    async fn chat_attach(
        &self,
        payload: ChatAttachPayload,
    ) -> Result<agent::AttachResult, WireError> {
        self.app.hub.attach(self.client, &payload)
    }

    async fn chat_detach(&self, payload: ChatDetachPayload) -> Result<Empty, WireError> {
        self.app.hub.detach(self.client, &payload.chat_id);
        Ok(Empty::new())
    }

    async fn chat_history(
        &self,
        payload: ChatHistoryPayload,
    ) -> Result<ChatHistoryResult, WireError> {
        self.app.hub.history(&payload)
    }
}

/// The app's requests.
impl documents::Host for Connection {
    async fn document_read(
        &self,
        payload: DocumentReadPayload,
    ) -> Result<DocumentReadResult, WireError> {
        let text = self
            .app
            .documents
            .read(&payload.id)
            .ok_or_else(|| unknown_document(&payload.id))?;
        Ok(DocumentReadResult::new(text))
    }

    async fn document_write(&self, payload: DocumentWritePayload) -> Result<Empty, WireError> {
        self.app.documents.write(&payload.id, &payload.text);
        Ok(Empty::new())
    }

    async fn document_attach_to_chat(
        &self,
        payload: DocumentAttachToChatPayload,
    ) -> Result<DocumentAttachToChatResult, WireError> {
        self.app
            .documents
            .read(&payload.id)
            .ok_or_else(|| unknown_document(&payload.id))?;
        let info = self.app.hub.info(&payload.chat_id).ok_or_else(|| {
            WireError::unknown_chat(format!("no chat is called {:?}", payload.chat_id))
        })?;
        Ok(DocumentAttachToChatResult::new(info))
    }

    async fn document_set_headers(
        &self,
        payload: DocumentSetHeadersPayload,
    ) -> Result<Empty, WireError> {
        let docs = &self.app.documents;
        docs.read(&payload.id)
            .ok_or_else(|| unknown_document(&payload.id))?;
        lock(&docs.headers).insert(payload.id, payload.headers);
        Ok(Empty::new())
    }

    /// Checks the document is there and answers the size the client declared: the bytes
    /// themselves are not kept by this example.
    async fn document_upload(
        &self,
        payload: DocumentUploadPayload,
    ) -> Result<DocumentUploadResult, WireError> {
        let docs = &self.app.documents;
        docs.read(&payload.id)
            .ok_or_else(|| unknown_document(&payload.id))?;
        Ok(DocumentUploadResult::new(payload.size))
    }

    /// The metadata is open: the title, then every header as a key of its own.
    async fn document_meta(&self, payload: DocumentMetaPayload) -> Result<DocumentMeta, WireError> {
        let docs = &self.app.documents;
        docs.read(&payload.id)
            .ok_or_else(|| unknown_document(&payload.id))?;
        let mut meta = DocumentMeta::new().title(payload.id.clone());
        if let Some(headers) = lock(&docs.headers).get(&payload.id) {
            for (name, value) in &headers.extra {
                meta.extra
                    .insert(name.clone(), contracts::wire::RawJson::from_value(value)?);
            }
        }
        Ok(meta)
    }
}

/// Runs one connection until the port ends, with the agent runtime's loop: the app's
/// dispatcher routes every name of the composed tables.
pub async fn serve<P: FramePort + ?Sized>(app: Arc<App>, port: &P) {
    let (client, outgoing) = app.hub.connect();
    let hub = app.hub.clone();
    let host = Connection { app, client };
    agent::host::serve(&hub, client, outgoing, port, &documents::Dispatcher(&host)).await;
}

/// Accepts WebSocket connections on `PATH` forever, serving each on a task of its own, with
/// the runtime's accept loop (accept errors waited out, a cap, a handshake timeout).
pub async fn listen(app: Arc<App>, listener: TcpListener) {
    let options = WebSocketOptions::default().path(PATH);
    contracts::port::listen(
        listener,
        &ListenOptions::default(),
        |stream| {
            let options = options.clone();
            async move { WebSocketPort::accept(stream, &options).await.ok() }
        },
        move |port| {
            let app = app.clone();
            async move { serve(app, &port).await }
        },
    )
    .await;
}
