//! A connection over any [`FramePort`]: stdio (an `NdjsonPort` on stdin and stdout), a
//! WebSocket, the in-memory pair. [`connect`] starts one and answers its [`Peer`]; [`serve`]
//! runs one to its end.

use std::sync::{Arc, Mutex, PoisonError, RwLock};

use super::connection::{Core, Route, Transport};
use super::handler::Handler;
use super::options::Options;
use super::peer::Peer;
use crate::port::{FramePort, Incoming, Outgoing, SendError, Subscription};

/// Starts a JSON-RPC connection over `port`: `make` builds the handler of what the other side
/// sends from the connection's [`Peer`] (so it can call back), and the answered `Peer` calls
/// the other side. The connection runs on tasks of its own until the port's input ends (then
/// it answers what it took and lets go of the port) or [`Peer::close`].
///
/// Must be called within a Tokio runtime. Give the port by value: the connection lets go of
/// it when it is over, which closes a port nobody else holds (an `NdjsonPort` then flushes and
/// shuts its output down).
pub fn connect<P, H, F>(port: P, options: Options, make: F) -> Peer
where
    P: FramePort + 'static,
    H: Handler,
    F: FnOnce(Peer) -> H,
{
    let transport = Arc::new(PortTransport {
        port: RwLock::new(Some(port)),
        subscription: Mutex::new(Slot::Empty),
    });
    let (core, queues) = Core::new(transport.clone(), options);
    let peer = Peer::new(core.clone());
    core.start(make(peer.clone()), queues);
    let input = Input(core);
    let subscription = match &*transport
        .port
        .read()
        .unwrap_or_else(PoisonError::into_inner)
    {
        Some(port) => port.on_frame(Box::new(move |frame| input.take(frame))),
        None => Subscription::noop(),
    };
    transport.keep(subscription);
    peer
}

/// Serves `port` until the connection is over: [`connect`], then [`Peer::closed`].
///
/// ```no_run
/// # async fn run() {
/// # struct MyServer { client: contracts::rpc::Peer }
/// # impl contracts::rpc::Handler for MyServer {
/// #     type Error = contracts::rpc::ErrorObject;
/// #     async fn request(&self, _: &str, _: &serde_json::value::RawValue)
/// #         -> Result<Box<serde_json::value::RawValue>, Self::Error> { unimplemented!() }
/// #     async fn notification(&self, _: &str, _: &serde_json::value::RawValue)
/// #         -> Result<(), Self::Error> { Ok(()) }
/// # }
/// use contracts::port::memory_pair;
/// use contracts::rpc::{self, Options};
///
/// // Over stdio: `NdjsonPort::from_parts(stdin, stdout, &NdjsonOptions::default())`
/// // (feature `ndjson`). Here one end of an in-memory pair.
/// let (port, _client_end) = memory_pair();
/// rpc::serve(port, Options::mcp(), |peer| MyServer { client: peer }).await;
/// # }
/// ```
pub async fn serve<P, H, F>(port: P, options: Options, make: F)
where
    P: FramePort + 'static,
    H: Handler,
    F: FnOnce(Peer) -> H,
{
    connect(port, options, make).closed().await;
}

/// The port's listener: every frame to the connection; dropped when the port stops
/// delivering (or the connection stops listening), which ends the connection's input.
struct Input(Arc<Core>);

impl Input {
    fn take(&self, frame: Incoming) {
        self.0.receive_now(frame);
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        self.0.end_input();
    }
}

enum Slot {
    Empty,
    Kept(Subscription),
    Closed,
}

/// A port as a connection's transport: every frame goes to the port, whatever it relates to.
struct PortTransport<P> {
    port: RwLock<Option<P>>,
    subscription: Mutex<Slot>,
}

impl<P> PortTransport<P> {
    /// Holds the listener's subscription, or stops it at once if the connection closed first.
    fn keep(&self, subscription: Subscription) {
        let mut slot = self
            .subscription
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match *slot {
            Slot::Closed => {
                drop(slot);
                subscription.unsubscribe();
            }
            _ => *slot = Slot::Kept(subscription),
        }
    }
}

impl<P: FramePort + 'static> Transport for PortTransport<P> {
    fn send(&self, frame: String, _route: Route<'_>) -> Result<(), SendError> {
        match &*self.port.read().unwrap_or_else(PoisonError::into_inner) {
            Some(port) => port.send(Outgoing::Text(frame)),
            None => Err(SendError::Closed),
        }
    }

    fn close(&self) {
        let slot = std::mem::replace(
            &mut *self
                .subscription
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
            Slot::Closed,
        );
        if let Slot::Kept(subscription) = slot {
            subscription.unsubscribe();
        }
        let port = self
            .port
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(port);
    }
}
