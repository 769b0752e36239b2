//! Group commit in the real server: writes per second and an idle client's ping latency, with
//! group commit (the default) and with one transaction per write (`--no-group-commit`), at
//! `--sync full` and `--sync normal`, with 1, 4 and 16 writers, side by side in one run.
//!
//! Each writer is a WebSocket that posts a message, waits for its ack and posts the next; an
//! idle client pings every 10 ms and times each pong. Every setting runs twice, the two modes
//! alternating (per event, grouped, grouped, per event), on a server of its own on a fresh
//! data directory, 3 s each. Prints writes per second, the pong's median and 99th percentile,
//! and the ratios of grouped to per event. Run:
//! `cargo bench -p connect-server --bench group_commit`. Figures in docs/benchmarks.md.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{Client, DataDir, post, server};
use contracts::connect::ServerFrame;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const TOKENS: [&str; 4] = ["scout-token", "dana-token", "mo-token", "gus-token"];
const RUN: Duration = Duration::from_secs(3);

struct Figures {
    writes_per_s: f64,
    p50_ms: f64,
    p99_ms: f64,
}

async fn measure(sync: &str, grouped: bool, writers: usize, run: usize) -> Figures {
    let data = DataDir::new(&format!("group-{sync}-{grouped}-{writers}-{run}"));
    let dir = data.arg();
    let mut args = vec!["--data-dir", &dir, "--sync", sync];
    if !grouped {
        args.push("--no-group-commit");
    }
    let (_server, url) = server(&args);
    let stop = Arc::new(AtomicBool::new(false));
    let acks = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for w in 0..writers {
        let (url, stop, acks) = (url.clone(), stop.clone(), acks.clone());
        tasks.push(tokio::spawn(async move {
            let mut c = Client::hello(&url, TOKENS[w % TOKENS.len()], &[]).await;
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                i += 1;
                c.send(post(
                    "spc_1",
                    "a message of a typical length",
                    &format!("w{w}-{i}"),
                ));
                match c.answer().await {
                    ServerFrame::Ack(_) => {
                        acks.fetch_add(1, Ordering::Relaxed);
                    }
                    other => panic!("a write refused: {other:?}"),
                }
            }
        }));
    }
    let mut idle = Client::hello(&url, "dana-token", &[]).await;
    // Let every writer say hello and start.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = acks.load(Ordering::Relaxed);
    let start = Instant::now();
    let mut pongs = Vec::new();
    let mut ts = 0i64;
    while start.elapsed() < RUN {
        ts += 1;
        let sent = Instant::now();
        idle.send(json!({ "frame": "ping", "ts": ts }));
        loop {
            match idle.next().await.expect("the idle client stays up") {
                ServerFrame::Pong(p) if p.ts == ts => break,
                _ => {}
            }
        }
        pongs.push(sent.elapsed());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let elapsed = start.elapsed();
    let written = acks.load(Ordering::Relaxed) - before;
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(20), t).await;
    }
    pongs.sort_unstable();
    let at = |q: f64| pongs[((pongs.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    Figures {
        writes_per_s: written as f64 / elapsed.as_secs_f64(),
        p50_ms: at(0.5),
        p99_ms: at(0.99),
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!("sync    writers  mode        writes/s   pong p50 ms  pong p99 ms");
    rt.block_on(async {
        for sync in ["full", "normal"] {
            for writers in [1usize, 4, 16] {
                let mut per_event = Vec::new();
                let mut grouped = Vec::new();
                for (run, mode) in [false, true, true, false].into_iter().enumerate() {
                    let f = measure(sync, mode, writers, run).await;
                    println!(
                        "{sync:7} {writers:7}  {:10} {:9.0}   {:11.2}  {:11.2}",
                        if mode { "grouped" } else { "per-event" },
                        f.writes_per_s,
                        f.p50_ms,
                        f.p99_ms
                    );
                    if mode {
                        grouped.push(f);
                    } else {
                        per_event.push(f);
                    }
                }
                let mean = |v: &[Figures], g: fn(&Figures) -> f64| {
                    v.iter().map(g).sum::<f64>() / v.len() as f64
                };
                println!(
                    "{sync:7} {writers:7}  grouped / per event: writes {:.2}x, pong p50 {:.2}x, p99 {:.2}x (per event / grouped)",
                    mean(&grouped, |f| f.writes_per_s) / mean(&per_event, |f| f.writes_per_s),
                    mean(&per_event, |f| f.p50_ms) / mean(&grouped, |f| f.p50_ms),
                    mean(&per_event, |f| f.p99_ms) / mean(&grouped, |f| f.p99_ms),
                );
            }
        }
    });
}
