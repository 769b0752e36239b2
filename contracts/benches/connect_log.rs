//! What an ack costs: one `message.post` through the session core to its ack, with the
//! in-memory log and with the SQLite log on a file at each durability, side by side in one
//! run (`cargo bench -p adecore-contracts --features sqlite --bench connect_log`).
//!
//! One iteration is one write with a fresh key: the frame parsed, the key looked up, the event
//! made, stored (for SQLite, one transaction committed: with `Durability::Full` the WAL is
//! fsynced), and the ack made. Throughput is in acks. The file lives in the system's temp
//! directory, so the figure is that disk's fsync. See docs/benchmarks.md.

use std::hint::black_box;
use std::time::Duration;

use contracts::connect::session::{
    Config, Durability, EventLog, Hub, Identity, MemoryLog, Role, SqliteLog,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

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
    hub.receive(
        socket,
        r#"{"frame":"hello","protocol":{"min":1,"max":1},"client":{"name":"bench","version":"1"}}"#,
        0,
    );
    let mut key = 0u64;
    c.bench_function(name, |b| {
        b.iter(|| {
            key += 1;
            black_box(hub.receive(socket, &post(key), 1));
        })
    });
}

fn acks(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("connect-log-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
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

criterion_group!(benches, acks);
criterion_main!(benches);
