//! What the thread reducer costs a delta as a chat grows: `Thread::apply` of a delta to the
//! newest item (a reply streaming) in threads of 10, 1,000 and 100,000 items, side by side in
//! one run (`cargo bench -p adecore-contracts --bench thread`). A reducer that finds the item
//! in constant time shows about the same time at every size; one that scans from the oldest
//! grows with the thread. See docs/benchmarks.md.

use std::hint::black_box;

use contracts::agent::{ChatEvent, ChatEventDelta, ChatItemReply, Thread};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

/// A thread of `n` finished replies, the newest one streaming.
fn thread_of(n: usize) -> Thread {
    let mut thread = Thread::default();
    for i in 0..n {
        let reply = ChatItemReply::new(format!("r{i}"), "done", 0).streaming(i + 1 == n);
        thread.upsert(reply.into());
    }
    thread
}

fn deltas(c: &mut Criterion) {
    let mut group = c.benchmark_group("delta-to-newest");
    for n in [10, 1_000, 100_000] {
        let mut thread = thread_of(n);
        // No text: the thread stays the same size, and the time is finding the item.
        let delta: ChatEvent = ChatEventDelta::new(format!("r{}", n - 1), "").into();
        group.bench_with_input(BenchmarkId::from_parameter(n), &delta, |b, delta| {
            b.iter(|| thread.apply(black_box(delta)))
        });
    }
    group.finish();
}

criterion_group!(benches, deltas);
criterion_main!(benches);
