//! Frames per second through the Hub over a real WebSocket (127.0.0.1): the echo host's hub
//! publishes chat.event deltas, the hub routes them to the attached clients, `serve` queues
//! them on each client's port, and the client ports read them off the socket. One group each
//! for 1 and 4 attached clients (the throughput counts frames received, all clients
//! together), and one for request round trips (chat.list, one at a time). Figures are in
//! docs/benchmarks.md. Run: `cargo bench -p agent-host --bench hub`.

use agent_host::{EchoAgent, Options};
use contracts::agent::client::Client;
use contracts::agent::{
    ChatAttachPayload, ChatCreatePayload, ChatEvent, ChatEventDelta, ChatEventItem, ChatItem,
    ChatItemReply, Empty, requests,
};
use contracts::port::{FrameReceiver, WebSocketOptions, WebSocketPort};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Bench {
    rt: tokio::runtime::Runtime,
    agent: Arc<EchoAgent>,
    chat_id: String,
    /// Each attached client's raw frames.
    readers: Vec<FrameReceiver>,
    client: Client,
}

fn setup(clients: usize) -> Bench {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (agent, chat_id, readers, client) = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}", listener.local_addr().unwrap());
        let agent = EchoAgent::new(Options::default());
        let serving = agent.clone();
        tokio::spawn(async move { serving.serve(listener).await });
        let mut readers = Vec::new();
        let mut first = None;
        let mut chat_id = String::new();
        for n in 0..clients {
            let port = WebSocketPort::connect(&url, &WebSocketOptions::default())
                .await
                .unwrap();
            let client = Client::new(port.clone());
            if n == 0 {
                chat_id = client
                    .request::<requests::ChatCreate>(ChatCreatePayload {
                        title: None,
                        provider: None,
                        model: None,
                        cwd: None,
                        preferences: None,
                    })
                    .await
                    .unwrap()
                    .chat_id;
            }
            client
                .request::<requests::ChatAttach>(ChatAttachPayload {
                    chat_id: chat_id.clone(),
                    history_limit: None,
                    since: None,
                })
                .await
                .unwrap();
            readers.push(port.receiver());
            first.get_or_insert(client);
        }
        (agent, chat_id, readers, first.unwrap())
    });
    let bench = Bench {
        rt,
        agent,
        chat_id,
        readers,
        client,
    };
    // A reply to append the deltas to.
    bench
        .agent
        .hub()
        .publish(
            &bench.chat_id,
            ChatEvent::Item(ChatEventItem {
                item: ChatItem::Reply(ChatItemReply {
                    id: "bench".into(),
                    history_index: Some(0),
                    text: String::new(),
                    model: None,
                    streaming: Some(true),
                    created_at: 0,
                }),
            }),
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
                ChatEvent::Delta(ChatEventDelta {
                    item_id: "bench".into(),
                    text: "a few words of a reply ".into(),
                }),
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
    for clients in [1usize, 4] {
        let mut bench = setup(clients);
        const BATCH: u64 = 200;
        group.throughput(Throughput::Elements(BATCH * clients as u64));
        group.bench_function(format!("chat_event_to_{clients}_clients"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += publish_and_read(&mut bench, BATCH);
                }
                total
            })
        });
    }
    let bench = setup(1);
    group.throughput(Throughput::Elements(1));
    group.bench_function("request_round_trip", |b| {
        b.iter(|| {
            bench.rt.block_on(async {
                bench
                    .client
                    .request::<requests::ChatList>(Empty {})
                    .await
                    .unwrap()
            })
        })
    });
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
