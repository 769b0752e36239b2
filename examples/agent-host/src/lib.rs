//! An example agent host: a small echo agent behind the generated agent [`Host`] trait,
//! served over WebSocket.
//!
//! [`EchoAgent`] owns the [`Hub`] (which chats exist, who attached to what, the replay log)
//! and a fake provider CLI for accounts ([`FakeCli`]). Each connection gets a [`Connection`],
//! which holds the agent and the connection's [`ClientId`] and implements [`Host`]. A sent
//! message is answered with `echo: <text>`: the user item at once, then in a task of its own
//! the reply as an item, its text as delta events, and the chat's state from running back to
//! idle as info events. Requests the echo agent does not do (the forks, subagents, approvals,
//! usage summaries) keep the trait's default answer, `chat-unsupported`.
//!
//! What a real host needs, and this one does:
//!
//! - [`EchoAgent::open`] keeps the hub in a SQLite file in a data directory (what the binary
//!   does by default): after a crash and a restart every chat is there, seqs continue, a
//!   `since` resumes exactly, and a turn the crash cut short is closed (its reply stops
//!   streaming). What was acked is answered: a message whose turn had not begun its reply is
//!   answered, and the queue goes on ([`EchoAgent::resume`]).
//! - An acked message is stored: `chat.send` answers `{queued: false}` once the message's user
//!   item (with the chat's state running) is stored, `{queued: true}` once the info with the
//!   message queued is. A queued message leaves the queue in the same change that publishes
//!   its user item ([`Hub::publish_with`]: one transaction), so a crash between the two
//!   cannot lose it or answer it twice.
//! - A full disk refuses changes, never wedges a chat: a send or a turn whose events cannot
//!   be stored is refused with the store's error (nothing acked that is not stored), and a
//!   turn that stops that way ends visibly once the store takes changes again (its reply
//!   closed, a notice saying why, the chat `failed`), the queue then going on. What waits for
//!   the store (that end, the turns a restart left, replies a restart cut) is retried every
//!   [`MEND_EVERY`] by a task of its own, so service resumes by itself when space returns;
//!   reads never wait. The host opens on a full disk too, read-only.
//! - Every change of a chat's info (the queue, the state, the usage) is one
//!   [`Hub::update_info`] under the hub's lock, and the queue changes under the agent's turn
//!   lock too (always taken before the hub's), so no update is lost under concurrent sends.
//! - A message whose user item or reply could never be sent in one frame is refused with
//!   `frame-too-large` before anything happens; a queued message that would make the chat's
//!   info too large likewise.
//! - Connections use the hub's [`Limits`](contracts::port::Limits): the same frame size limit,
//!   the outgoing queue bound (a client that falls behind is closed as a slow consumer and
//!   resumes with `since`), a heartbeat and an idle timeout.
//! - [`EchoAgent::serve`] accepts with [`contracts::port::listen()`]: accept errors (out of file
//!   descriptors) waited out, a cap on connections, a handshake timeout. With
//!   [`Options::access`] (what the binary always sets) a client must present the token, and a
//!   browser page must come from an allowed origin, or the upgrade is refused (401, 403).

mod accounts;

pub use accounts::{FakeCli, LoginMode};

use contracts::agent::host::{ClientId, Hub, HubConfig, serve};
use contracts::agent::sqlite::SqliteStore;
use contracts::agent::store::StoreError;
use contracts::agent::thread::history_index;
use contracts::agent::{
    AccountSnapshot, AccountsCreatePayload, AccountsCreateResult, AccountsSavePayload,
    AccountsWatchLoginPayload, AttachResult, Bookmark, ChatAddBookmarkPayload,
    ChatAddBookmarkResult, ChatAttachPayload, ChatCancelPayload, ChatClearPayload,
    ChatCreatePayload, ChatCreated, ChatDetachPayload, ChatEvent, ChatEventDelta, ChatEventInfo,
    ChatEventItem, ChatEventReset, ChatHistoryPayload, ChatHistoryResult, ChatInfo, ChatItem,
    ChatItemNotice, ChatItemReply, ChatItemUser, ChatKillPayload, ChatListPayload, ChatListResult,
    ChatRemoveBookmarkPayload, ChatRemoveVisualPayload, ChatRenameBookmarkPayload, ChatSendPayload,
    ChatSendResult, ChatState, ChatUsage, Empty, ErrorCode, Host, NoticeLevel, Provider,
    ProviderListResult, ProviderModel, QueuedMessage, Timestamp, Visual, WireError,
};
use contracts::port::{Access, FramePort, ListenOptions, WebSocketOptions, WebSocketPort};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// Milliseconds since the Unix epoch.
pub fn now() -> Timestamp {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as Timestamp)
}

/// How the echo agent behaves.
#[derive(Clone, Debug)]
pub struct Options {
    /// What the hub keeps (the replay log per chat, the default snapshot size) and the limits
    /// its connections share (frame size, outgoing queue bound).
    pub hub: HubConfig,
    /// The pause between two deltas of a reply, so a person sees it stream; zero in tests.
    pub delta_delay: Duration,
    /// How a login started with accounts.watchLogin ends.
    pub login: LoginMode,
    /// How long each provider CLI takes to answer accounts.refresh.
    pub cli_delay: Duration,
    /// How often the host pings each client.
    pub heartbeat: Option<Duration>,
    /// How long a client may be silent (no frame, no pong) before it is closed.
    pub idle_timeout: Option<Duration>,
    /// Who may connect: the client token and the browser origins allowed. `None` admits
    /// everyone (tests in one process); the binary always sets it.
    pub access: Option<Access>,
    /// The cap on connections and the handshake timeout.
    pub listen: ListenOptions,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hub: HubConfig::default(),
            delta_delay: Duration::from_millis(30),
            login: LoginMode::After(Duration::from_millis(1500)),
            cli_delay: Duration::from_millis(100),
            heartbeat: Some(Duration::from_secs(15)),
            idle_timeout: Some(Duration::from_secs(45)),
            access: None,
            listen: ListenOptions::default(),
        }
    }
}

/// The echo agent: every chat, every connection, the fake provider CLI.
pub struct EchoAgent {
    hub: Arc<Hub>,
    options: Options,
    cli: FakeCli,
    chats: Mutex<HashMap<String, Turns>>,
    next_id: AtomicU64,
    /// Turns a restart left to run (the chat, and the text of a message whose reply had not
    /// begun), until [`EchoAgent::resume`] starts them.
    resumable: Mutex<Vec<(String, Option<String>)>>,
    /// The task that retries what waits for the store runs ([`EchoAgent::mend`]).
    mending: Mutex<bool>,
}

/// How often what waits for the store (a full disk) is tried again.
pub const MEND_EVERY: Duration = Duration::from_millis(500);

/// A chat's turns: the next historyIndex and the running turn. The queue is the chat's
/// `info.queued`, in the hub.
#[derive(Default)]
struct Turns {
    next_index: i64,
    /// A turn runs (set when it starts, so two sends at once never start two turns).
    busy: bool,
    running: Option<JoinHandle<()>>,
    /// The reply item of the running turn, to close it when the turn is cancelled.
    reply: Option<String>,
    /// The end of a turn the store did not take (a full disk), stored by
    /// [`EchoAgent::settle`] before anything else happens in the chat.
    unsettled: Option<Unsettled>,
}

/// What is still to store of a turn that ended while the store failed.
#[derive(Debug, Default)]
struct Unsettled {
    /// The reply it left streaming, to close.
    reply: Option<String>,
    /// Why it stopped: a notice saying so and the chat `failed`. `None`: the chat goes idle.
    error: Option<String>,
}

/// The name of the database file in a data directory.
pub const DATABASE: &str = "agent-host.sqlite3";

impl EchoAgent {
    /// An agent with these options whose chats live in memory only.
    pub fn new(options: Options) -> Arc<EchoAgent> {
        let hub = Hub::new(options.hub.clone());
        EchoAgent::on(hub, options)
    }

    /// An agent whose chats live in `data_dir` (made if missing), in a SQLite file: what it
    /// finds there it serves again, and a turn a crash cut short is closed.
    pub fn open(options: Options, data_dir: &Path) -> Result<Arc<EchoAgent>, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            StoreError(format!(
                "cannot make the data directory {}: {e}",
                data_dir.display()
            ))
        })?;
        let store = SqliteStore::open(data_dir.join(DATABASE))?;
        let hub = Hub::open(options.hub.clone(), store)?;
        let agent = EchoAgent::on(hub, options);
        agent.recover().map_err(|e| StoreError(e.message))?;
        if tokio::runtime::Handle::try_current().is_ok() {
            agent.resume();
        }
        Ok(agent)
    }

    fn on(hub: Arc<Hub>, options: Options) -> Arc<EchoAgent> {
        let cli = FakeCli::new(options.login.clone(), options.cli_delay);
        Arc::new(EchoAgent {
            hub,
            options,
            cli,
            chats: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            resumable: Mutex::new(Vec::new()),
            mending: Mutex::new(false),
        })
    }

    /// After a restart: every chat's turn state starts from its thread (the next
    /// historyIndex). A chat left running had its turn cut: when its reply had not begun, the
    /// message is answered again; else the chat goes idle (its cut reply was closed by the
    /// hub). A chat with queued messages goes on answering them. What is to answer waits for
    /// [`EchoAgent::resume`].
    fn recover(&self) -> Result<(), WireError> {
        let mut turns = self.turns();
        let mut resumable = Vec::new();
        for info in self.hub.chats() {
            // The newest item is the echo agent's latest index (it numbers items in order).
            let last = self.hub.latest_items(&info.chat_id, 1)?.pop();
            let next_index = last.as_ref().and_then(history_index).map_or(0, |h| h + 1);
            let cut = info.state != ChatState::Idle;
            let unanswered = match last {
                Some(ChatItem::User(user)) if cut => Some(user.text.clone()),
                _ => None,
            };
            // The store may refuse (a full disk): the chat then goes idle once it takes changes.
            let idle = (cut && unanswered.is_none())
                .then(|| {
                    self.hub.update_info(&info.chat_id, |info| {
                        info.state = ChatState::Idle;
                        info.updated_at = now();
                    })
                })
                .and_then(Result::err)
                .map(|_| Unsettled::default());
            let resume = idle.is_none() && (unanswered.is_some() || !info.queued.is_empty());
            turns.insert(
                info.chat_id.clone(),
                Turns {
                    next_index,
                    busy: resume,
                    unsettled: idle,
                    ..Turns::default()
                },
            );
            if resume {
                resumable.push((info.chat_id.clone(), unanswered));
            }
        }
        *self.resumable.lock().unwrap_or_else(|e| e.into_inner()) = resumable;
        Ok(())
    }

    /// Starts the turns a restart left to run (a message whose reply had not begun, the queued
    /// messages), each chat's on a task of its own, and the task that retries what waits for
    /// the store (`mend`). [`EchoAgent::open`] calls it when it runs in a Tokio
    /// runtime, [`EchoAgent::serve`] and [`EchoAgent::serve_port`] otherwise.
    pub fn resume(self: &Arc<Self>) {
        let resumable =
            std::mem::take(&mut *self.resumable.lock().unwrap_or_else(|e| e.into_inner()));
        for (chat_id, unanswered) in resumable {
            let agent = self.clone();
            let chat = chat_id.clone();
            let handle = tokio::spawn(async move {
                if let Some(text) = &unanswered
                    && agent
                        .update_info(&chat, |info| info.state = ChatState::Running)
                        .is_err()
                {
                    // The store refused (a full disk): the chat stays busy, so a send queues
                    // behind the message, and the turn starts again in MEND_EVERY.
                    agent
                        .resumable
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((chat, Some(text.clone())));
                    agent.mend();
                    return;
                }
                agent.run_turns(chat, unanswered).await;
            });
            match self.turns().get_mut(&chat_id) {
                Some(t) if t.busy => t.running = Some(handle),
                _ => handle.abort(),
            }
        }
    }

    /// Starts the task that retries, every [`MEND_EVERY`], what waits for the store (a full
    /// disk): replies a restart cut short, turns a restart left, the end of turns that stopped
    /// ([`EchoAgent::settle`]). It ends once nothing waits. Outside a Tokio runtime it waits
    /// for [`EchoAgent::resume`].
    fn mend(self: &Arc<Self>) {
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        let mut mending = self.mending.lock().unwrap_or_else(|e| e.into_inner());
        if std::mem::replace(&mut *mending, true) {
            return;
        }
        let agent = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(MEND_EVERY).await;
                let mut mending = agent.mending.lock().unwrap_or_else(|e| e.into_inner());
                if agent.mend_once() {
                    *mending = false;
                    return;
                }
            }
        });
    }

    /// Tries once what waits for the store; answers whether nothing waits any more.
    fn mend_once(self: &Arc<Self>) -> bool {
        let mut done = self.hub.close_interrupted().is_ok();
        let resumable = !self
            .resumable
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty();
        if resumable {
            // Its tasks ask for another round if the store still refuses.
            self.resume();
        }
        let waiting: Vec<String> = self
            .turns()
            .iter()
            .filter(|(_, t)| t.unsettled.is_some())
            .map(|(chat_id, _)| chat_id.clone())
            .collect();
        for chat_id in waiting {
            let mut turns = self.turns();
            if let Some(t) = turns.get_mut(&chat_id) {
                done &= self.settle(&chat_id, t).is_ok();
            }
        }
        done
    }

    /// Stores the end of a turn that stopped while the store failed (called with the turn
    /// lock held): its reply closed, and a notice saying why with the chat `failed`, or (a
    /// turn a restart cut) the chat idle; all one change. Then the queue goes on. Nothing to
    /// do when nothing is unsettled; an error: the store still refuses, and all waits.
    fn settle(self: &Arc<Self>, chat_id: &str, t: &mut Turns) -> Result<(), WireError> {
        let Some(unsettled) = &t.unsettled else {
            return Ok(());
        };
        let open_reply = unsettled.reply.as_ref().and_then(|id| {
            match self.hub.item(chat_id, id).ok().flatten()? {
                ChatItem::Reply(r) if r.streaming == Some(true) => Some(r),
                _ => None,
            }
        });
        let notice = unsettled.error.as_ref().map(|error| {
            ChatItemNotice::new(
                self.id("n"),
                NoticeLevel::Error,
                format!("This turn stopped: its events could not be stored ({error}). Send again to retry."),
            )
            .history_index(t.next_index)
        });
        let state = match notice {
            Some(_) => ChatState::Failed,
            None => ChatState::Idle,
        };
        let queued = self.hub.publish_with(chat_id, |info| {
            let mut events = Vec::new();
            if let Some(reply) = open_reply {
                events.push(ChatEventItem::new(reply.streaming(false)).into());
            }
            if let Some(notice) = notice {
                events.push(ChatEventItem::new(notice).into());
            }
            if info.state != state || !events.is_empty() {
                let mut info = info.clone();
                info.state = state;
                info.updated_at = now();
                events.push(info_event(info));
            }
            Ok((!info.queued.is_empty(), events))
        })?;
        if t.unsettled.take().and_then(|u| u.error).is_some() {
            t.next_index += 1;
        }
        if queued && !t.busy {
            t.busy = true;
            let agent = self.clone();
            let chat = chat_id.to_owned();
            t.running = Some(tokio::spawn(
                async move { agent.run_turns(chat, None).await },
            ));
        }
        Ok(())
    }

    /// The hub, for tests that look at what the host holds.
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// The fake provider CLI, for tests that drive logins and count refreshes.
    pub fn cli(&self) -> &FakeCli {
        &self.cli
    }

    /// An id never made before, in this life of the hub or an earlier one.
    fn id(&self, prefix: &str) -> String {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        format!("{prefix}{}.{n}", self.hub.life())
    }

    fn turns(&self) -> MutexGuard<'_, HashMap<String, Turns>> {
        self.chats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The WebSocket options of every connection: the hub's limits, the heartbeat, the idle
    /// timeout.
    pub fn websocket_options(&self) -> WebSocketOptions {
        let mut options = WebSocketOptions::default().limits(self.options.hub.limits);
        if let Some(every) = self.options.heartbeat {
            options = options.heartbeat(every);
        }
        if let Some(after) = self.options.idle_timeout {
            options = options.idle_timeout(after);
        }
        if let Some(access) = &self.options.access {
            options = options.access(access.clone());
        }
        options
    }

    /// Accepts WebSocket connections until the task is dropped, serving each on a task of its
    /// own (it never returns: accept errors are waited out).
    pub async fn serve(self: &Arc<Self>, listener: TcpListener) {
        self.resume();
        let options = self.websocket_options();
        let agent = self.clone();
        contracts::port::listen(
            listener,
            &self.options.listen,
            |stream| {
                let options = options.clone();
                async move { WebSocketPort::accept(stream, &options).await.ok() }
            },
            move |port| {
                let agent = agent.clone();
                async move { agent.serve_port(&port).await }
            },
        )
        .await;
    }

    /// Runs one connection over any port until it ends.
    pub async fn serve_port<P: FramePort + ?Sized>(self: &Arc<Self>, port: &P) {
        self.resume();
        let (client, outgoing) = self.hub.connect();
        let connection = Connection {
            agent: self.clone(),
            client,
        };
        serve(
            &self.hub,
            client,
            outgoing,
            port,
            &contracts::agent::Dispatcher(&connection),
        )
        .await;
    }

    /// Changes a chat's info atomically and publishes it (an info event and chat.status).
    fn update_info<R>(
        &self,
        chat_id: &str,
        change: impl FnOnce(&mut ChatInfo) -> R,
    ) -> Result<R, WireError> {
        self.hub.update_info(chat_id, |info| {
            info.updated_at = now();
            change(info)
        })
    }

    /// The next historyIndex of a chat.
    fn next_index(&self, chat_id: &str) -> i64 {
        let mut turns = self.turns();
        let t = turns.entry(chat_id.to_owned()).or_default();
        t.next_index += 1;
        t.next_index - 1
    }

    /// The user item and the finished reply a message makes: both must fit in a frame, or the
    /// message is refused before anything happens. Each is measured at the widest index the
    /// wire allows (the hub checks an event against its schema as well as its size).
    fn check_fits(&self, chat_id: &str, text: &str) -> Result<(), WireError> {
        let widest = contracts::wire::MAX_SAFE;
        let user = ChatItemUser::new(self.id("u"), text, now()).history_index(widest);
        let reply = ChatItemReply::new(self.id("r"), answer_to(text), now())
            .history_index(widest)
            .model("echo-1")
            .streaming(false);
        for item in [ChatItem::from(user), reply.into()] {
            self.hub
                .check_event(chat_id, &ChatEventItem::new(item).into())?;
        }
        Ok(())
    }

    /// Publishes the user's message (its user item, and the chat running, as one change) and
    /// starts the turn that answers it.
    fn start_turn(self: &Arc<Self>, chat_id: &str, text: String) -> Result<(), WireError> {
        let user = ChatItemUser::new(self.id("u"), text.clone(), now())
            .history_index(self.next_index(chat_id));
        let published = self.hub.publish_with(chat_id, |info| {
            let mut info = info.clone();
            info.state = ChatState::Running;
            info.updated_at = now();
            Ok(((), vec![ChatEventItem::new(user).into(), info_event(info)]))
        });
        if let Err(e) = published {
            if let Some(t) = self.turns().get_mut(chat_id) {
                t.busy = false;
            }
            return Err(e);
        }
        let agent = self.clone();
        let chat = chat_id.to_owned();
        let handle = tokio::spawn(async move { agent.run_turns(chat, Some(text)).await });
        match self.turns().get_mut(chat_id) {
            // Still wanted: no cancel came in between.
            Some(t) if t.busy => t.running = Some(handle),
            _ => handle.abort(),
        }
        Ok(())
    }

    /// Answers a message (`None`: the first queued one), then every message queued meanwhile,
    /// one turn each.
    async fn run_turns(self: Arc<Self>, chat_id: String, first: Option<String>) {
        let mut text = match first {
            Some(text) => text,
            None => match self.take_next(&chat_id) {
                Some(text) => text,
                None => return self.mend_if_unsettled(&chat_id),
            },
        };
        loop {
            match self.run_turn(&chat_id, &text).await {
                // The chat went idle with nothing queued: it is free already.
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => {
                    // The chat is gone (killed: no turns left), or the store refused the turn's
                    // events (a full disk): its end is stored as soon as the store takes it.
                    let mut turns = self.turns();
                    if let Some(t) = turns.get_mut(&chat_id) {
                        t.busy = false;
                        t.running = None;
                        t.unsettled = Some(Unsettled {
                            reply: t.reply.take(),
                            error: Some(e.message),
                        });
                        if self.settle(&chat_id, t).is_err() {
                            drop(turns);
                            self.mend();
                        }
                    }
                    return;
                }
            }
            match self.take_next(&chat_id) {
                Some(next) => text = next,
                None => break,
            }
        }
        self.mend_if_unsettled(&chat_id);
    }

    /// Starts [`EchoAgent::mend`] when the store refused to take the chat's queue on.
    fn mend_if_unsettled(self: &Arc<Self>, chat_id: &str) {
        let unsettled = self
            .turns()
            .get(chat_id)
            .is_some_and(|t| t.unsettled.is_some());
        if unsettled {
            self.mend();
        }
    }

    /// Under the turn lock: the first queued message taken off the queue, the chat running
    /// and the message's user item published, as one change (stored all or none); its text.
    /// `None` when the queue is empty, or when the store refused the change (the queue left
    /// as it is, to go on once the store takes changes: [`EchoAgent::settle`]): the chat's
    /// turns are over for now.
    fn take_next(&self, chat_id: &str) -> Option<String> {
        let mut turns = self.turns();
        let t = turns.get_mut(chat_id)?;
        t.reply = None;
        // The queue changes only under the turn lock, so what is read here stays.
        let queued = self
            .hub
            .info(chat_id)
            .is_some_and(|info| !info.queued.is_empty());
        let next = if queued {
            let user_id = self.id("u");
            let index = t.next_index;
            self.hub
                .publish_with(chat_id, |info| {
                    let mut info = info.clone();
                    if info.queued.is_empty() {
                        return Ok((None, Vec::new()));
                    }
                    let next = info.queued.remove(0);
                    info.updated_at = now();
                    let dequeued = info_event(info.clone());
                    info.state = ChatState::Running;
                    let user =
                        ChatItemUser::new(user_id, next.text.clone(), now()).history_index(index);
                    let events = vec![dequeued, ChatEventItem::new(user).into(), info_event(info)];
                    Ok((Some(next.text), events))
                })
                .unwrap_or_else(|_| {
                    t.unsettled = Some(Unsettled::default());
                    None
                })
        } else {
            None
        };
        match next {
            Some(_) => t.next_index += 1,
            None => {
                t.busy = false;
                t.running = None;
            }
        }
        next
    }

    /// One turn (the chat is running already): the reply item, its deltas, the finished
    /// reply, idle. Answers whether messages wait in the queue (the chat still busy, for
    /// [`EchoAgent::take_next`]); when none does, the chat was freed with the idle event.
    async fn run_turn(&self, chat_id: &str, text: &str) -> Result<bool, WireError> {
        let id = self.id("r");
        let reply = ChatItemReply::new(id.clone(), "", now())
            .history_index(self.next_index(chat_id))
            .model("echo-1")
            .streaming(true);
        if let Some(t) = self.turns().get_mut(chat_id) {
            t.reply = Some(id.clone());
        }
        self.hub
            .publish(chat_id, ChatEventItem::new(reply.clone()).into())?;
        let answer = answer_to(text);
        for chunk in answer.split_inclusive(' ') {
            if !self.options.delta_delay.is_zero() {
                tokio::time::sleep(self.options.delta_delay).await;
            }
            self.hub
                .publish(chat_id, ChatEventDelta::new(id.clone(), chunk).into())?;
        }
        let mut done = reply.streaming(false);
        done.text.clone_from(&answer);
        self.hub.publish(chat_id, ChatEventItem::new(done).into())?;
        // `/visual TITLE` draws something, so visuals have something to show.
        if let Some(title) = text.strip_prefix("/visual ") {
            let visual = Visual::new(
                self.id("v"),
                title,
                "image/svg+xml",
                "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='8' height='8'/%3E",
            )
            .item_id(id);
            self.hub.update_visuals(chat_id, |visuals| {
                visuals.push(visual);
                Ok(())
            })?;
        }
        // Before the final status, so a client that sees idle has seen usage.changed too.
        self.hub.usage_changed(now())?;
        let words = |s: &str| s.split_whitespace().count() as i64;
        // Idle is published and, with nothing queued, the chat freed under one hold of the
        // turn lock: a send that follows the idle event starts a turn, never queues behind
        // one that is over.
        let mut turns = self.turns();
        let queued = self.update_info(chat_id, |info| {
            info.state = ChatState::Idle;
            let usage = info
                .usage
                .get_or_insert_with(|| ChatUsage::new(0, 0).cost_usd(0.0));
            usage.input_tokens += words(text);
            usage.output_tokens += words(&answer);
            !info.queued.is_empty()
        })?;
        if !queued && let Some(t) = turns.get_mut(chat_id) {
            t.busy = false;
            t.running = None;
            t.reply = None;
        }
        Ok(queued)
    }

    /// Stops the running turn, closes its reply, and with the turn lock still held lets
    /// `after` change the info (so no send comes between). Answers whether a turn ran.
    fn stop_turn(
        self: &Arc<Self>,
        chat_id: &str,
        after: impl FnOnce(bool) -> Result<(), WireError>,
    ) -> Result<bool, WireError> {
        let mut turns = self.turns();
        if let Some(t) = turns.get_mut(chat_id) {
            self.settle(chat_id, t)?;
        }
        let (busy, handle, reply) = match turns.get_mut(chat_id) {
            Some(t) => (
                std::mem::take(&mut t.busy),
                t.running.take(),
                t.reply.take(),
            ),
            None => (false, None, None),
        };
        if let Some(handle) = handle {
            handle.abort();
        }
        if busy
            && let Some(reply) = reply
            && let Some(ChatItem::Reply(r)) = self.hub.item(chat_id, &reply)?
        {
            self.hub
                .publish(chat_id, ChatEventItem::new(r.streaming(false)).into())?;
        }
        after(busy)?;
        drop(turns);
        Ok(busy)
    }

    fn known(&self, chat_id: &str) -> Result<ChatInfo, WireError> {
        self.hub
            .info(chat_id)
            .ok_or_else(|| WireError::unknown_chat(format!("no chat is called {chat_id:?}")))
    }

    /// Sends the account snapshot to every client and answers it.
    fn accounts_changed(&self) -> Result<AccountSnapshot, WireError> {
        let snapshot = self.cli.snapshot();
        self.hub.accounts_changed(&snapshot)?;
        Ok(snapshot)
    }
}

/// An `info` event.
fn info_event(info: ChatInfo) -> ChatEvent {
    ChatEventInfo::new(info).into()
}

/// What the echo agent answers to a message.
fn answer_to(text: &str) -> String {
    format!("echo: {text}")
}

/// One connection: the agent and the client id the hub gave it.
pub struct Connection {
    agent: Arc<EchoAgent>,
    client: ClientId,
}

impl Host for Connection {
    async fn chat_create(&self, payload: ChatCreatePayload) -> Result<ChatCreated, WireError> {
        let a = &self.agent;
        let chat_id = a.hub.new_chat_id()?;
        let at = now();
        let mut info = ChatInfo::new(
            chat_id.clone(),
            payload.title.unwrap_or_else(|| "New chat".to_owned()),
            ChatState::Idle,
            payload.provider.unwrap_or_else(|| "echo".to_owned()),
            at,
            at,
            [],
            [],
        );
        info.model = payload.model;
        info.cwd = payload.cwd;
        info.preferences = payload.preferences;
        // A cwd (or model, or provider) over ChatInfo's bounds is refused, naming the bound.
        contracts::agent::host::check_info(&info)?;
        a.turns().insert(chat_id.clone(), Turns::default());
        a.hub.create_chat(info.clone())?;
        Ok(ChatCreated::new(chat_id, info))
    }

    async fn chat_list(&self, payload: ChatListPayload) -> Result<ChatListResult, WireError> {
        self.agent.hub.chat_page(&payload)
    }

    async fn chat_attach(&self, payload: ChatAttachPayload) -> Result<AttachResult, WireError> {
        self.agent.hub.attach(self.client, &payload)
    }

    async fn chat_detach(&self, payload: ChatDetachPayload) -> Result<Empty, WireError> {
        self.agent.known(&payload.chat_id)?;
        self.agent.hub.detach(self.client, &payload.chat_id);
        Ok(Empty::new())
    }

    async fn chat_history(
        &self,
        payload: ChatHistoryPayload,
    ) -> Result<ChatHistoryResult, WireError> {
        self.agent.hub.history(&payload)
    }

    async fn chat_send(&self, payload: ChatSendPayload) -> Result<ChatSendResult, WireError> {
        let a = &self.agent;
        a.known(&payload.chat_id)?;
        a.check_fits(&payload.chat_id, &payload.text)?;
        // The turn lock is held while the queue changes (the hub's lock inside it), so a turn
        // that ends meanwhile sees the message or starts after it.
        let mut turns = a.turns();
        let t = turns.entry(payload.chat_id.clone()).or_default();
        // The end of a turn the store refused comes first; while it still refuses, so does
        // this send.
        a.settle(&payload.chat_id, t)?;
        if t.busy {
            let message = QueuedMessage::new(a.id("q"), payload.text, now());
            a.update_info(&payload.chat_id, |info| info.queued.push(message))?;
            return Ok(ChatSendResult::new(true));
        }
        t.busy = true;
        drop(turns);
        a.start_turn(&payload.chat_id, payload.text)?;
        Ok(ChatSendResult::new(false))
    }

    async fn chat_cancel(&self, payload: ChatCancelPayload) -> Result<Empty, WireError> {
        let a = &self.agent;
        a.known(&payload.chat_id)?;
        a.stop_turn(&payload.chat_id, |ran| {
            if ran {
                a.update_info(&payload.chat_id, |info| {
                    info.state = ChatState::Idle;
                    info.queued.clear();
                })?;
            }
            Ok(())
        })?;
        Ok(Empty::new())
    }

    async fn chat_clear(&self, payload: ChatClearPayload) -> Result<Empty, WireError> {
        let a = &self.agent;
        let chat_id = &payload.chat_id;
        a.known(chat_id)?;
        a.stop_turn(chat_id, |_| {
            let mut info = a.known(chat_id)?;
            info.state = ChatState::Idle;
            info.queued.clear();
            info.usage = None;
            info.updated_at = now();
            a.hub
                .publish(chat_id, ChatEventReset::new(info, []).into())?;
            a.hub.set_bookmarks(chat_id, Vec::new())?;
            a.hub.set_visuals(chat_id, Vec::new())
        })?;
        if let Some(t) = a.turns().get_mut(chat_id) {
            t.next_index = 0;
        }
        Ok(Empty::new())
    }

    async fn chat_kill(&self, payload: ChatKillPayload) -> Result<Empty, WireError> {
        let a = &self.agent;
        a.known(&payload.chat_id)?;
        a.stop_turn(&payload.chat_id, |_| a.hub.remove_chat(&payload.chat_id))?;
        a.turns().remove(&payload.chat_id);
        Ok(Empty::new())
    }

    async fn chat_add_bookmark(
        &self,
        payload: ChatAddBookmarkPayload,
    ) -> Result<ChatAddBookmarkResult, WireError> {
        let a = &self.agent;
        if a.hub.item(&payload.chat_id, &payload.item_id)?.is_none() {
            return Err(WireError::new(
                ErrorCode::UnknownItem,
                format!("the chat has no item called {:?}", payload.item_id),
            ));
        }
        let bookmark = Bookmark::new(
            a.id("b"),
            payload.item_id,
            payload.label.unwrap_or_default(),
            now(),
        );
        a.hub.update_bookmarks(&payload.chat_id, |bookmarks| {
            bookmarks.push(bookmark.clone());
            Ok(())
        })?;
        Ok(ChatAddBookmarkResult::new(bookmark))
    }

    async fn chat_rename_bookmark(
        &self,
        payload: ChatRenameBookmarkPayload,
    ) -> Result<Empty, WireError> {
        self.agent
            .hub
            .update_bookmarks(&payload.chat_id, |bookmarks| {
                let b = bookmarks
                    .iter_mut()
                    .find(|b| b.bookmark_id == payload.bookmark_id)
                    .ok_or_else(|| no_bookmark(&payload.bookmark_id))?;
                b.label = payload.label.clone();
                Ok(())
            })?;
        Ok(Empty::new())
    }

    async fn chat_remove_bookmark(
        &self,
        payload: ChatRemoveBookmarkPayload,
    ) -> Result<Empty, WireError> {
        self.agent
            .hub
            .update_bookmarks(&payload.chat_id, |bookmarks| {
                let before = bookmarks.len();
                bookmarks.retain(|b| b.bookmark_id != payload.bookmark_id);
                if bookmarks.len() == before {
                    return Err(no_bookmark(&payload.bookmark_id));
                }
                Ok(())
            })?;
        Ok(Empty::new())
    }

    async fn chat_remove_visual(
        &self,
        payload: ChatRemoveVisualPayload,
    ) -> Result<Empty, WireError> {
        self.agent.hub.update_visuals(&payload.chat_id, |visuals| {
            let before = visuals.len();
            visuals.retain(|v| v.visual_id != payload.visual_id);
            if visuals.len() == before {
                return Err(WireError::new(
                    ErrorCode::UnknownVisual,
                    format!("the chat has no visual called {:?}", payload.visual_id),
                ));
            }
            Ok(())
        })?;
        Ok(Empty::new())
    }
    async fn provider_list(&self, _: Empty) -> Result<ProviderListResult, WireError> {
        let snapshot = self.agent.cli.snapshot();
        let providers: Vec<Provider> = FakeCli::PROVIDERS
            .iter()
            .map(|&p| {
                let available = snapshot.accounts.iter().any(|a| {
                    a.provider == p && a.state == contracts::agent::AccountState::LoggedIn
                });
                let model =
                    ProviderModel::new(format!("{p}-1"), format!("{p} 1")).context_tokens(8192);
                Provider::new(p, format!("{p} (fake CLI)"), [model], available)
            })
            .collect();
        Ok(ProviderListResult::new(providers))
    }

    async fn accounts_list(&self, _: Empty) -> Result<AccountSnapshot, WireError> {
        Ok(self.agent.cli.snapshot())
    }

    async fn accounts_save(
        &self,
        payload: AccountsSavePayload,
    ) -> Result<AccountSnapshot, WireError> {
        self.agent.cli.save(&payload)?;
        self.agent.accounts_changed()
    }

    /// Answers only once every provider CLI was asked again (they are asked at once, side by
    /// side); every client then hears accounts.changed.
    async fn accounts_refresh(&self, _: Empty) -> Result<AccountSnapshot, WireError> {
        self.agent.cli.refresh().await;
        self.agent.accounts_changed()
    }

    async fn accounts_create(
        &self,
        payload: AccountsCreatePayload,
    ) -> Result<AccountsCreateResult, WireError> {
        let account = self.agent.cli.create(&payload)?;
        self.agent.accounts_changed()?;
        Ok(AccountsCreateResult::new(account))
    }

    /// Answers at once with the account logging in; what the CLI says later (logged in)
    /// arrives as accounts.changed.
    async fn accounts_watch_login(
        &self,
        payload: AccountsWatchLoginPayload,
    ) -> Result<Empty, WireError> {
        let agent = self.agent.clone();
        let done = agent.cli.start_login(&payload.account_id)?;
        agent.accounts_changed()?;
        tokio::spawn(async move {
            if done.await {
                // Every client hears it; a snapshot too large for a frame is told nobody.
                let _ = agent.accounts_changed();
            }
        });
        Ok(Empty::new())
    }

    async fn usage_subscribe(&self, _: Empty) -> Result<Empty, WireError> {
        self.agent.hub.subscribe_usage(self.client, true);
        Ok(Empty::new())
    }

    async fn usage_unsubscribe(&self, _: Empty) -> Result<Empty, WireError> {
        self.agent.hub.subscribe_usage(self.client, false);
        Ok(Empty::new())
    }
}

fn no_bookmark(id: &str) -> WireError {
    WireError::new(
        ErrorCode::UnknownBookmark,
        format!("the chat has no bookmark called {id:?}"),
    )
}
