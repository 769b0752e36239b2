//! Frames per second through the Hub over a real WebSocket (127.0.0.1): the echo host's hub
//! publishes chat.event deltas, the hub routes them to the attached clients, `serve` queues
//! them on each client's port, and the client ports read them off the socket. One group each
//! for 1 and 4 attached clients (the throughput counts frames received, all clients
//! together), and one for request round trips (chat.list, one at a time). Each runs twice, on
//! the memory store and on the SQLite store the host uses by default, so the cost of writing
//! every event before it is sent is a ratio of one run. Figures are in docs/benchmarks.md.
//!
//! Group `writers`: group commit against one transaction per event, on the hub alone (no
//! socket). 1, 4 or 16 threads, each publishing deltas to a chat of its own as fast as the
//! hub answers: the memory store, the SQLite store with one transaction per event
//! (`group_commit: false`), and with group commit (the events that wait while another caller
//! stores go in one transaction). Throughput is in events, all writers together. Group
//! `list_while_writing`: what a chat.list (the hub's `chats()`) of an idle client waits while
//! those writers write. Run: `cargo bench -p agent-host --bench hub`.

use agent_host::{EchoAgent, Options};
use contracts::agent::client::Client;
use contracts::agent::host::{Hub, HubConfig};
use contracts::agent::sqlite::SqliteStore;
use contracts::agent::{
    ChatAttachPayload, ChatCreatePayload, ChatEventDelta, ChatEventItem, ChatItemReply,
    ChatListPayload, requests,
};
use contracts::agent::{ChatInfo, ChatState};
use contracts::port::{FrameReceiver, WebSocketOptions, WebSocketPort};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where the hub keeps its chats.
#[derive(Clone, Copy)]
enum Store {
    Memory,
    Sqlite,
}

impl Store {
    fn name(self) -> &'static str {
        match self {
            Store::Memory => "memory",
            Store::Sqlite => "sqlite",
        }
    }
}

struct Bench {
    rt: tokio::runtime::Runtime,
    /// The SQLite store's data directory, removed when the bench ends.
    data_dir: Option<std::path::PathBuf>,
    agent: Arc<EchoAgent>,
    chat_id: String,
    /// Each attached client's raw frames.
    readers: Vec<FrameReceiver>,
    client: Client,
    /// The other clients: a port closes when its last handle (here, its client) drops, so
    /// they are kept for as long as their readers read.
    _others: Vec<Client>,
}

impl Drop for Bench {
    fn drop(&mut self) {
        if let Some(dir) = &self.data_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn setup(clients: usize, store: Store) -> Bench {
    let data_dir = match store {
        Store::Memory => None,
        Store::Sqlite => {
            let dir = std::env::temp_dir()
                .join(format!("agent-host-bench-{}-{clients}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            Some(dir)
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (agent, chat_id, readers, mut others) = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}", listener.local_addr().unwrap());
        let agent = match &data_dir {
            None => EchoAgent::new(Options::default()),
            Some(dir) => EchoAgent::open(Options::default(), dir).unwrap(),
        };
        let serving = agent.clone();
        tokio::spawn(async move { serving.serve(listener).await });
        let mut readers = Vec::new();
        let mut clients_made = Vec::new();
        let mut chat_id = String::new();
        for n in 0..clients {
            let port = WebSocketPort::connect(&url, &WebSocketOptions::default())
                .await
                .unwrap();
            let client = Client::new(port.clone());
            if n == 0 {
                chat_id = client
                    .request::<requests::ChatCreate>(ChatCreatePayload::new())
                    .await
                    .unwrap()
                    .chat_id;
            }
            client
                .request::<requests::ChatAttach>(ChatAttachPayload::new(chat_id.clone()))
                .await
                .unwrap();
            readers.push(port.receiver());
            clients_made.push(client);
        }
        (agent, chat_id, readers, clients_made)
    });
    let bench = Bench {
        rt,
        data_dir,
        agent,
        chat_id,
        readers,
        client: others.remove(0),
        _others: others,
    };
    // A reply to append the deltas to.
    bench
        .agent
        .hub()
        .publish(
            &bench.chat_id,
            ChatEventItem::new(
                ChatItemReply::new("bench", "", 0)
                    .history_index(0)
                    .streaming(true),
            )
            .into(),
        )
        .unwrap();
    bench
}

/// Publishes `n` deltas and waits until every client has read them all.
fn publish_and_read(bench: &mut Bench, n: u64) -> Duration {
    let start = Instant::now();
    let hub = bench.agent.hub().clone();
    let chat_id = bench.chat_id.clone();
    let readers = &mut bench.readers;
    bench.rt.block_on(async {
        for _ in 0..n {
            hub.publish(
                &chat_id,
                ChatEventDelta::new("bench", "a few words of a reply ").into(),
            )
            .unwrap();
        }
        for reader in readers.iter_mut() {
            let mut got = 0;
            while got < n {
                let frame = reader.recv().await.expect("the connection ended");
                if frame
                    .as_text()
                    .is_some_and(|t| t.contains("\"chat.event\""))
                {
                    got += 1;
                }
            }
        }
    });
    start.elapsed()
}

fn frames(c: &mut Criterion) {
    let mut group = c.benchmark_group("hub_websocket");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(5));
    for store in [Store::Memory, Store::Sqlite] {
        for clients in [1usize, 4] {
            let mut bench = setup(clients, store);
            const BATCH: u64 = 200;
            group.throughput(Throughput::Elements(BATCH * clients as u64));
            group.bench_function(
                format!("chat_event_to_{clients}_clients/{}", store.name()),
                |b| {
                    b.iter_custom(|iters| {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            total += publish_and_read(&mut bench, BATCH);
                        }
                        total
                    })
                },
            );
        }
        let bench = setup(1, store);
        group.throughput(Throughput::Elements(1));
        group.bench_function(format!("request_round_trip/{}", store.name()), |b| {
            b.iter(|| {
                bench.rt.block_on(async {
                    bench
                        .client
                        .request::<requests::ChatList>(ChatListPayload::new())
                        .await
                        .unwrap()
                })
            })
        });
    }
    group.finish();
}

/// A hub for the `writers` groups: its store and whether it groups commits.
fn writers_hub(store: &str, writers: usize) -> (Arc<Hub>, Vec<String>, Option<std::path::PathBuf>) {
    let grouped = store == "sqlite-grouped";
    let config = HubConfig {
        group_commit: grouped,
        ..HubConfig::default()
    };
    let (hub, dir) = if store == "memory" {
        (Hub::new(config), None)
    } else {
        let dir = std::env::temp_dir().join(format!(
            "agent-host-bench-writers-{}-{store}-{writers}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = SqliteStore::open(dir.join("agent.sqlite3")).unwrap();
        (Hub::open(config, store).unwrap(), Some(dir))
    };
    let chats = (0..writers)
        .map(|n| {
            let chat_id = format!("w{n}");
            let info = ChatInfo::new(
                chat_id.clone(),
                "bench",
                ChatState::Running,
                "echo",
                0,
                0,
                [],
                [],
            );
            hub.create_chat(info).unwrap();
            let reply = ChatItemReply::new("bench", "", 0)
                .history_index(0)
                .streaming(true);
            hub.publish(&chat_id, ChatEventItem::new(reply).into())
                .unwrap();
            chat_id
        })
        .collect();
    (hub, chats, dir)
}

fn delta() -> contracts::agent::ChatEvent {
    ChatEventDelta::new("bench", "a few words of a reply ").into()
}

const STORES: [&str; 3] = ["memory", "sqlite-per-event", "sqlite-grouped"];

fn writers(c: &mut Criterion) {
    let mut group = c.benchmark_group("writers");
    for writers in [1usize, 4, 16] {
        group.throughput(Throughput::Elements(writers as u64));
        for store in STORES {
            let (hub, chats, dir) = writers_hub(store, writers);
            group.bench_function(BenchmarkId::new(store, writers), |b| {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    std::thread::scope(|scope| {
                        for chat_id in &chats {
                            let hub = &hub;
                            scope.spawn(move || {
                                for _ in 0..iters {
                                    hub.publish(chat_id, delta()).unwrap();
                                }
                            });
                        }
                    });
                    start.elapsed()
                })
            });
            drop(hub);
            if let Some(dir) = dir {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
    group.finish();

    let mut group = c.benchmark_group("list_while_writing");
    for writers in [1usize, 4, 16] {
        for store in STORES {
            let (hub, chats, dir) = writers_hub(store, writers);
            let stop = std::sync::atomic::AtomicBool::new(false);
            std::thread::scope(|scope| {
                for chat_id in &chats {
                    let (hub, stop) = (&hub, &stop);
                    scope.spawn(move || {
                        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                            hub.publish(chat_id, delta()).unwrap();
                        }
                    });
                }
                group.bench_function(BenchmarkId::new(store, writers), |b| {
                    b.iter(|| hub.chats().len())
                });
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            drop(hub);
            if let Some(dir) = dir {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
    group.finish();
}

criterion_group!(benches, frames, writers);
criterion_main!(benches);
