//! What an ack costs: `message.post` frames through the session core to their acks, with the
//! in-memory log and with the SQLite log on a file at each durability, side by side in one
//! run (`cargo bench -p adecore-contracts --features connect,sqlite --bench connect_log`).
//!
//! Group `acks`: one iteration is one write with a fresh key: the frame parsed, the key looked
//! up, the event made, stored (for SQLite, one transaction committed: with `Durability::Full`
//! the WAL is fsynced), and the ack made. Throughput is in acks.
//!
//! Group `writers`: group commit against one transaction per event. One iteration is one
//! frame from each of 1, 4 or 16 writers (sockets of one workspace), as a server gets them
//! when they write at once: `per-event` hands them to the hub one by one (one commit each),
//! `grouped` as one group (`Hub::receive_group`: one commit, every ack after it); the memory
//! log answers one by one. Throughput is in acks, all writers together.
//!
//! Group `ping`: what an idle client's ping waits for when it arrives behind one frame from
//! each of the writers (its pong is answered after them: one commit each, or the group's
//! one). The time of an iteration is the time to its pong.
//!
//! The files live in the system's temp directory, so the figures are that disk's fsync. See
//! docs/benchmarks.md.

use std::hint::black_box;
use std::time::Duration;

use contracts::connect::session::{
    Config, Durability, EventLog, Hub, Identity, MemoryLog, Role, SocketId, SqliteLog,
};
use contracts::port::Incoming;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const HELLO: &str =
    r#"{"frame":"hello","protocol":{"min":1,"max":1},"client":{"name":"bench","version":"1"}}"#;

fn post(key: u64) -> String {
    format!(
        r#"{{"frame":"event","event":{{"type":"message.post","space_id":"spc_1","text":"On it: a message of a typical length, a line or two.","idempotency_key":"k-{key}"}}}}"#
    )
}

fn writes<L: EventLog>(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    log: L,
) {
    let mut hub = Hub::new(Config::default(), log);
    let socket = hub.open(Identity::person("ws_1", "usr_mo", "Mo", Role::Member), 0);
    hub.receive(socket, HELLO, 0);
    let mut key = 0u64;
    c.bench_function(name, |b| {
        b.iter(|| {
            key += 1;
            black_box(hub.receive(socket, &post(key), 1));
        })
    });
}

fn acks(c: &mut Criterion) {
    let dir = temp_dir("acks");
    let mut group = c.benchmark_group("acks");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(5));
    writes(&mut group, "memory", MemoryLog::default());
    for (name, durability) in [
        ("sqlite-normal", Durability::Normal),
        ("sqlite-full", Durability::Full),
    ] {
        let log = SqliteLog::open(&dir.join(format!("{name}.sqlite3")), durability).expect("opens");
        writes(&mut group, name, log);
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

fn temp_dir(what: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("connect-log-bench-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    dir
}

/// How a round of frames reaches the hub.
#[derive(Clone, Copy)]
enum Mode {
    /// One by one: one commit per write.
    PerEvent,
    /// As one group: one commit.
    Grouped,
}

/// A hub with `writers` writing sockets and one idle one, every socket past hello.
struct Writers<L: EventLog> {
    hub: Hub<L>,
    writers: Vec<SocketId>,
    idle: SocketId,
    key: u64,
}

impl<L: EventLog> Writers<L> {
    fn new(log: L, writers: usize) -> Self {
        let mut hub = Hub::new(Config::default(), log);
        let mut open = |name: String| {
            let socket = hub.open(Identity::person("ws_1", &name, &name, Role::Member), 0);
            hub.receive(socket, HELLO, 0);
            socket
        };
        let writers = (0..writers).map(|n| open(format!("usr_{n}"))).collect();
        let idle = open("usr_idle".to_owned());
        Writers {
            hub,
            writers,
            idle,
            key: 0,
        }
    }

    /// One frame from each writer, then (with `ping`) the idle client's ping, handed to the
    /// hub as `mode` says. Answers how many actions came back.
    fn round(&mut self, mode: Mode, ping: bool) -> usize {
        let mut frames: Vec<(SocketId, Incoming)> = Vec::with_capacity(self.writers.len() + 1);
        for socket in &self.writers {
            self.key += 1;
            frames.push((*socket, Incoming::Text(post(self.key))));
        }
        if ping {
            frames.push((
                self.idle,
                Incoming::Text(r#"{"frame":"ping","ts":1}"#.to_owned()),
            ));
        }
        match mode {
            Mode::PerEvent => frames
                .iter()
                .map(|(socket, frame)| self.hub.receive_incoming(*socket, frame, 1).len())
                .sum(),
            Mode::Grouped => self.hub.receive_group(&frames, 1).len(),
        }
    }
}

/// The logs measured side by side: memory, then SQLite at each durability, one by one and
/// grouped.
fn each_log(mut bench: impl FnMut(&str, Option<(Durability, Mode)>)) {
    bench("memory", None);
    for (durability, name) in [(Durability::Normal, "normal"), (Durability::Full, "full")] {
        for (mode, how) in [(Mode::PerEvent, "per-event"), (Mode::Grouped, "grouped")] {
            bench(&format!("sqlite-{name}-{how}"), Some((durability, mode)));
        }
    }
}

fn writers(c: &mut Criterion) {
    let dir = temp_dir("writers");
    for (group_name, ping) in [("writers", false), ("ping", true)] {
        let mut group = c.benchmark_group(group_name);
        for n in [1usize, 4, 16] {
            if !ping {
                group.throughput(Throughput::Elements(n as u64));
            }
            each_log(|name, sqlite| {
                let id = BenchmarkId::new(name, n);
                match sqlite {
                    None => {
                        let mut w = Writers::new(MemoryLog::default(), n);
                        group.bench_function(id, |b| {
                            b.iter(|| black_box(w.round(Mode::PerEvent, ping)))
                        });
                    }
                    Some((durability, mode)) => {
                        let path = dir.join(format!("{group_name}-{name}-{n}.sqlite3"));
                        let log = SqliteLog::open(&path, durability).expect("opens");
                        let mut w = Writers::new(log, n);
                        group.bench_function(id, |b| b.iter(|| black_box(w.round(mode, ping))));
                    }
                }
            });
        }
        group.finish();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, acks, writers);
criterion_main!(benches);
