//! The server binary on a real full disk: its data directory on a small tmpfs filled to the
//! last page. Writes are refused with an error naming the cause and never acked, reads go on,
//! the disk error is logged once, and writes resume by themselves when space returns; a
//! server started on the full disk (its WAL index gone, as a clean shutdown leaves it) serves
//! reads, says it is read-only, and takes writes once space returns. Every acked event is in
//! the log after all that and a restart. Skips where a tmpfs cannot be mounted (not root),
//! unless `CI` is set.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use common::Client;
use contracts::connect::{ErrorCode, ServerFrame};
use test_support::{SmallDisk, Watched, start_watched};

const WS: &str = "ws_demo";
/// How long a line the server logs may take to reach the test (stderr is read by a thread).
const LOG_WAIT: Duration = Duration::from_secs(10);

/// The server on `data` with its log on stderr.
fn serve(data: &Path) -> Watched {
    let data = data.display().to_string();
    let args = [
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        &data,
        "--sync",
        "normal",
    ];
    start_watched(env!("CARGO_BIN_EXE_connect-server"), &args, None)
}

/// A post answered with an ack: its seq.
async fn acked(writer: &mut Client, key: &str) -> i64 {
    match writer.post("spc_1", "kept", key).await {
        ServerFrame::Ack(a) => {
            assert!(!a.duplicate, "{key} was new");
            a.seq
        }
        other => panic!("{key} was not acked: {other:?}"),
    }
}

/// A post refused because the disk is full: the error names the cause and the key.
async fn refused(writer: &mut Client, key: &str) {
    match writer.post("spc_1", "kept", key).await {
        ServerFrame::Error(e) => {
            assert_eq!(e.code, ErrorCode::Internal, "{key}");
            assert!(
                e.message.contains("the disk is full"),
                "{key}: {}",
                e.message
            );
            assert_eq!(e.idempotency_key.as_deref(), Some(key));
        }
        other => panic!("{key} on a full disk: {other:?}"),
    }
}

/// Every event of the workspace, replayed by a new reader: key to seq, each key once.
async fn stored(url: &str) -> BTreeMap<String, i64> {
    let mut reader = Client::hello(url, "dana-token", &["events"]).await;
    let (events, _) = reader.replay(WS, 0).await;
    let mut by_key = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["seq"].as_i64(), Some(i as i64 + 1), "seqs have no gap");
        let key = e["idempotency_key"].as_str().unwrap().to_owned();
        assert!(by_key.insert(key, i as i64 + 1).is_none(), "a key twice");
    }
    by_key
}

/// Each acked key at the seq it was acked with.
fn has_every(stored: &BTreeMap<String, i64>, acked: &BTreeMap<String, i64>) {
    for (key, seq) in acked {
        assert_eq!(stored.get(key), Some(seq), "acked {key} at {seq}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_writes_serves_reads_and_resumes_by_itself() {
    let Some(disk) = SmallDisk::mount(&std::env::temp_dir(), "connect-server-full-disk", 8) else {
        return;
    };
    let data = disk.path().join("data");
    let server = serve(&data);
    let mut writer = Client::hello(&server.url, "scout-token", &[]).await;
    let mut acks = BTreeMap::new();
    for i in 0..40 {
        let key = format!("before-{i}");
        let seq = acked(&mut writer, &key).await;
        acks.insert(key, seq);
    }

    // Full: each write is refused, naming the cause, and not acked.
    let filled = disk.fill();
    let refusals: Vec<String> = (0..20).map(|i| format!("full-{i}")).collect();
    for key in &refusals {
        refused(&mut writer, key).await;
    }
    // Reads go on, on a new connection too.
    let during = stored(&server.url).await;
    assert_eq!(during.len(), acks.len(), "only the acked events are there");
    has_every(&during, &acks);
    let log = server.said("the event log cannot write", LOG_WAIT);
    assert_eq!(
        log.matches("the event log cannot write").count(),
        1,
        "the disk error is logged once for 20 refusals:\n{log}"
    );

    // Space returns: the refused writes go through on the same connection, no restart.
    disk.free();
    for key in &refusals {
        let seq = acked(&mut writer, key).await;
        acks.insert(key.clone(), seq);
    }
    server.said("the event log takes writes again", LOG_WAIT);
    drop(writer);
    drop(server);

    // Started on a full disk, its WAL index gone (as after a clean shutdown): it serves reads,
    // says it is read-only, refuses writes, and takes them once space returns.
    let _ = std::fs::remove_file(data.join("events.sqlite3-shm"));
    disk.fill();
    let server = serve(&data);
    server.said("the event log opened read-only", LOG_WAIT);
    has_every(&stored(&server.url).await, &acks);
    let mut writer = Client::hello(&server.url, "scout-token", &[]).await;
    refused(&mut writer, "restarted-full").await;
    disk.free();
    let seq = acked(&mut writer, "restarted-full").await;
    acks.insert("restarted-full".to_owned(), seq);
    let seq = acked(&mut writer, "restarted-free").await;
    acks.insert("restarted-free".to_owned(), seq);
    drop(writer);
    drop(server);

    // After a restart with space: every acked event, once, at its seq; nothing else.
    let server = serve(&data);
    let after = stored(&server.url).await;
    has_every(&after, &acks);
    assert_eq!(after.len(), acks.len());
    eprintln!(
        "{} events acked, {} writes refused on a full disk ({filled} filler bytes)",
        acks.len(),
        refusals.len() + 1
    );
}
