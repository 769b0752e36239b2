//! Parse plus payload validation of a realistic frame mix (`benches/data/*.jsonl`), side by
//! side in one run:
//!
//! - `generated`: the generated agent protocol, both stages, as the host and the client run
//!   them: `parse_request_typed` (what `dispatch_frame` and `verdict` run: the verdict of
//!   `parse_request_ref` then `RequestPayload::parse`, the payload read by its name in the
//!   frame's own pass) and `parse_server_frame_typed` (the client's and `verdict`'s: the
//!   verdict of `parse_server_frame_ref` then `EventPayload::parse`, in one pass), the payload
//!   read as its borrowed view (`RequestPayloadRef`, `EventPayloadRef`: its strings borrowed
//!   from the frame's text where they have no escape, as the envelope's are).
//! - `generated-owned`: the same with the owned payload (`RequestPayload`, `EventPayload`:
//!   every string copied).
//! - `handwritten`: a hand-written serde_json two-stage parse into plain `#[derive(Deserialize)]`
//!   mirrors of the same types (borrowed envelope, `RawValue` payload, then the typed payload).
//!
//! A third group, `replies`, reads reply frames as the client does (not in the Zod mix): the
//! generated union's fast reader against a hand-written serde_json envelope.
//!
//! Two groups measure the check before a send (a result or an event a client would refuse is
//! never sent): `dispatch`, the mix's chat.history and chat.send frames answered by a host of
//! the mix's results, through `dispatch_frame` (`checked`: parse, the host, the result written
//! and checked, the reply frame) against the same steps without the check (`unchecked`, as the
//! dispatcher ran before); `send-event`, the server mix's events written by
//! `event_frame_checked` against `event_frame`.
//!
//! Two groups read refused frames, the slow path every valid frame skips: `refused-requests`
//! and `refused-server`, the corpus's refused requests and server frames
//! (`tests/corpus/agent.jsonl`), each read to its verdict (every issue with its path) with the
//! payload as its view (`generated`) and owned (`generated-owned`). There is no hand-written
//! line: its mirrors hold the mix's names only, and refuse less. The decoders' changes are
//! measured here (instruction counts through `FRAMES_PASSES`, below).
//!
//! Two groups read the mixes' payloads by name alone, the table stage a caller runs on a
//! payload it holds apart from its frame: `by-name-requests` and `by-name-events`, the table's
//! `parse` (`parse`: the decoder alone, what the generated crate compiles) against
//! `ByName::read_named` (`read_named`: the fast reader first, compiled where it is called).
//!
//! One iteration parses the whole mix; throughput is in frames. Each answer is kept where the
//! parse returned it (`black_box` of a reference, then dropped), as the Zod side keeps the
//! object `safeParse` returns: moving the payload out of it is the caller's work, not the
//! parse's. Compare the two lines of a group (a ratio measured in one run), not absolute
//! times. See docs/benchmarks.md.
//!
//! `UPDATE_EXPECT=1 cargo bench -p adecore-contracts --bench frames` rewrites the stored frames.

#[path = "../tests/common/mod.rs"]
mod common;
mod frames {
    pub mod baseline;
    pub mod mix;
}

use contracts::agent::{
    ChatHistoryPayload, ChatHistoryResult, ChatSendPayload, ChatSendResult, Dispatcher,
    EventPayload, EventPayloadRef, Host, RequestPayload, RequestPayloadRef, RequestRef,
    RequestTyped, ServerFrameRef, ServerFrameTyped, WireError, dispatch_frame, event_frame,
    event_frame_checked, parse_request_ref, parse_request_typed, parse_server_frame_ref,
    parse_server_frame_typed, reply_frame,
};
use contracts::wire::ByName;
use contracts::wire::Refused;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use frames::{baseline, mix};
use futures_util::FutureExt;
use std::hint::black_box;
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/data")
}

/// The stored frames (requests, server frames, replies), checked against the values they are
/// built from.
fn load() -> (Vec<String>, Vec<String>, Vec<String>) {
    let dir = data_dir();
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    for (name, want) in mix::files() {
        let path = dir.join(name);
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            if update {
                std::fs::create_dir_all(&dir).expect("create benches/data");
                std::fs::write(&path, &want).expect("write the frame mix");
            } else {
                panic!("{} is stale: run with UPDATE_EXPECT=1", path.display());
            }
        }
    }
    (mix::requests(), mix::server(), mix::replies())
}

/// The corpus's refused requests and server frames, as their text (read by the corpus
/// runner of the tests).
fn refused() -> (Vec<String>, Vec<String>) {
    let lines = common::read("agent.jsonl");
    let texts = |kind: &str| -> Vec<String> {
        lines
            .iter()
            .filter(|l| !l.ok && l.kind == kind)
            .map(|l| l.text.clone())
            .collect()
    };
    (texts("request"), texts("server"))
}

/// The generated path's answer to a request frame, as the host gets it, its payload `E`
/// (the view or the owned payload).
fn generated_request<'a, E: ByName<'a>>(
    text: &'a str,
) -> Result<RequestTyped<'a, E>, Refused<RequestRef<'a>>> {
    parse_request_typed::<E>(text)
}

/// The generated path's answer to a server frame, as the client gets it, its payload `E`.
fn generated_event<'a, E: ByName<'a>>(
    text: &'a str,
) -> Result<ServerFrameTyped<'a, E>, Refused<ServerFrameRef<'a>>> {
    parse_server_frame_typed::<E>(text)
}

/// A host that answers the mix's chat.history and chat.send with the mix's results.
struct MixHost {
    history: ChatHistoryResult,
    send: ChatSendResult,
}

impl Host for MixHost {
    async fn chat_history(&self, _: ChatHistoryPayload) -> Result<ChatHistoryResult, WireError> {
        Ok(self.history.clone())
    }
    async fn chat_send(&self, _: ChatSendPayload) -> Result<ChatSendResult, WireError> {
        Ok(self.send.clone())
    }
}

/// What `dispatch_frame` does with the mix's requests, without the check of the result: the
/// dispatcher as it was before it checked.
fn dispatch_unchecked(host: &MixHost, text: &str) -> String {
    let request = parse_request_typed::<RequestPayload>(text).expect("a valid request");
    let raw = match request.payload {
        RequestPayload::ChatHistory(p) => {
            let result = host
                .chat_history(*p)
                .now_or_never()
                .expect("ready")
                .expect("ok");
            serde_json::value::to_raw_value(&result)
        }
        RequestPayload::ChatSend(p) => {
            let result = host
                .chat_send(*p)
                .now_or_never()
                .expect("ready")
                .expect("ok");
            serde_json::value::to_raw_value(&result)
        }
        _ => unreachable!("the dispatch group holds chat.history and chat.send only"),
    };
    reply_frame(&request.id, raw.expect("a generated value serialises"))
}

/// What hosts run: `dispatch_frame`, whose dispatcher checks the result before it is sent.
fn dispatch_checked(host: &MixHost, text: &str) -> String {
    dispatch_frame(&Dispatcher(host), text)
        .now_or_never()
        .expect("ready")
}

fn bench(c: &mut Criterion) {
    let (requests, server, replies) = load();
    // Every path accepts every frame before anything is measured, the view with the owned
    // payload's value.
    for f in &requests {
        let view = generated_request::<RequestPayloadRef>(f).expect("a valid frame and payload");
        let owned = generated_request::<RequestPayload>(f).expect("a valid frame and payload");
        assert_eq!(view.payload.into_owned(), owned.payload, "{f}");
        baseline::parse_request(f).expect("a valid frame");
    }
    for f in &server {
        let view = generated_event::<EventPayloadRef>(f);
        let owned = generated_event::<EventPayload>(f);
        match (view, owned) {
            (Ok(ServerFrameTyped::Event(v)), Ok(ServerFrameTyped::Event(o))) => {
                assert_eq!(v.payload.into_owned(), o.payload, "{f}");
            }
            (Ok(_), Ok(_)) => panic!("the mix holds events only"),
            (v, o) => panic!("a valid frame and payload: {v:?} {o:?}"),
        }
        baseline::parse_event(f).expect("a valid frame");
    }
    for f in &replies {
        match generated_event::<EventPayloadRef>(f) {
            Ok(ServerFrameTyped::ReplyOk(_) | ServerFrameTyped::ReplyError(_)) => {}
            Ok(_) => panic!("a reply"),
            Err(e) => panic!("a valid frame: {e:?}"),
        }
        baseline::parse_reply(f).expect("a valid reply");
    }

    // Every refused frame is refused by both paths before anything is measured.
    let (refused_requests, refused_server) = refused();
    assert!(!refused_requests.is_empty() && !refused_server.is_empty());
    for f in &refused_requests {
        assert!(generated_request::<RequestPayloadRef>(f).is_err(), "{f}");
        assert!(generated_request::<RequestPayload>(f).is_err(), "{f}");
    }
    for f in &refused_server {
        assert!(generated_event::<EventPayloadRef>(f).is_err(), "{f}");
        assert!(generated_event::<EventPayload>(f).is_err(), "{f}");
    }

    // The check before a send: the mix's requests a host answers with a result, and the
    // server mix's events as a host writes them.
    let host = MixHost {
        history: mix::history_result(),
        send: mix::send_result(),
    };
    let answered: Vec<String> = requests
        .iter()
        .filter(|f| f.contains(r#""type":"chat.history""#) || f.contains(r#""type":"chat.send""#))
        .cloned()
        .collect();
    assert_eq!(answered.len(), 3, "chat.history and two chat.send");
    for f in &answered {
        assert_eq!(
            dispatch_checked(&host, f),
            dispatch_unchecked(&host, f),
            "{f}"
        );
    }
    let events: Vec<(String, EventPayload)> = server
        .iter()
        .map(|f| match generated_event::<EventPayload>(f) {
            Ok(ServerFrameTyped::Event(e)) => (e.event.to_string(), e.payload),
            _ => panic!("the mix holds events only"),
        })
        .collect();
    for (name, payload) in &events {
        let checked = event_frame_checked(name, payload).expect("a valid event");
        assert_eq!(checked, event_frame(name, payload));
    }

    // The generated lines, the payload as its view and owned: on the mix, then on the refused
    // frames.
    let request_lines: [Line<'_>; 2] = [
        ("generated", &|f| {
            black_box(&generated_request::<RequestPayloadRef>(f));
        }),
        ("generated-owned", &|f| {
            black_box(&generated_request::<RequestPayload>(f));
        }),
    ];
    let server_lines: [Line<'_>; 2] = [
        ("generated", &|f| {
            black_box(&generated_event::<EventPayloadRef>(f));
        }),
        ("generated-owned", &|f| {
            black_box(&generated_event::<EventPayload>(f));
        }),
    ];
    let handwritten_request: Line<'_> = ("handwritten", &|f| {
        black_box(&baseline::parse_request(f));
    });
    let handwritten_event: Line<'_> = ("handwritten", &|f| {
        black_box(&baseline::parse_event(f));
    });
    compare(
        c,
        "requests",
        &requests,
        &[request_lines[0], request_lines[1], handwritten_request],
    );
    compare(
        c,
        "server",
        &server,
        &[server_lines[0], server_lines[1], handwritten_event],
    );
    // Replies, as the client reads them (not in the Zod mix): the generated union's fast
    // reader against a hand-written serde_json envelope, each keeping the result as raw JSON.
    compare(
        c,
        "replies",
        &replies,
        &[
            server_lines[0],
            ("handwritten", &|f| {
                black_box(&baseline::parse_reply(f));
            }),
        ],
    );
    // The mixes' payloads by name, each as `name NUL payload`: the decoder alone against the
    // fast reader first. Both give every payload's value before anything is measured.
    let request_payloads: Vec<String> = requests
        .iter()
        .map(|f| {
            let r = parse_request_ref(f).expect("a valid frame");
            format!("{}\0{}", r.r#type, r.payload.get())
        })
        .collect();
    let event_payloads: Vec<String> = server
        .iter()
        .map(|f| match parse_server_frame_ref(f) {
            Ok(ServerFrameRef::Event(e)) => format!("{}\0{}", e.event, e.payload.get()),
            _ => panic!("the mix holds events only"),
        })
        .collect();
    for p in &request_payloads {
        let (name, json) = by_name(p);
        let slow = RequestPayload::parse(name, json).expect("a valid payload");
        assert_eq!(
            RequestPayload::read_named(name, json).ok(),
            Some(slow),
            "{p}"
        );
    }
    for p in &event_payloads {
        let (name, json) = by_name(p);
        let slow = EventPayload::parse(name, json).expect("a valid payload");
        assert_eq!(EventPayload::read_named(name, json).ok(), Some(slow), "{p}");
    }
    compare(
        c,
        "by-name-requests",
        &request_payloads,
        &[
            ("parse", &|p| {
                let (name, json) = by_name(p);
                black_box(&RequestPayload::parse(name, json));
            }),
            ("read_named", &|p| {
                let (name, json) = by_name(p);
                black_box(&RequestPayload::read_named(name, json));
            }),
        ],
    );
    compare(
        c,
        "by-name-events",
        &event_payloads,
        &[
            ("parse", &|p| {
                let (name, json) = by_name(p);
                black_box(&EventPayload::parse(name, json));
            }),
            ("read_named", &|p| {
                let (name, json) = by_name(p);
                black_box(&EventPayload::read_named(name, json));
            }),
        ],
    );
    // Refused frames, the decoder's slow path: each read to its verdict.
    compare(c, "refused-requests", &refused_requests, &request_lines);
    compare(c, "refused-server", &refused_server, &server_lines);
    compare(
        c,
        "dispatch",
        &answered,
        &[
            ("checked", &|f| {
                black_box(&dispatch_checked(&host, f));
            }),
            ("unchecked", &|f| {
                black_box(&dispatch_unchecked(&host, f));
            }),
        ],
    );
    let mut g = c.benchmark_group("send-event");
    g.throughput(Throughput::Elements(events.len() as u64));
    g.bench_function("checked", |b| {
        b.iter(|| {
            for (name, payload) in &events {
                black_box(&event_frame_checked(black_box(name), black_box(payload)));
            }
        })
    });
    g.bench_function("unchecked", |b| {
        b.iter(|| {
            for (name, payload) in &events {
                black_box(&event_frame(black_box(name), black_box(payload)));
            }
        })
    });
    g.finish();
}

/// A line of a group: its name, and what it does to one frame.
type Line<'a> = (&'a str, &'a dyn Fn(&str));

/// `FRAMES_PASSES=N FRAMES_LINE=<group>/<line>`: that line alone, `N` passes over its frames,
/// and no criterion: for instruction counts (callgrind at two `N`, the difference divided by
/// the passes between them; `float-roundtrip.sh` does so).
fn passes() -> Option<(usize, String)> {
    let n = std::env::var("FRAMES_PASSES").ok()?.parse().ok()?;
    Some((n, std::env::var("FRAMES_LINE").unwrap_or_default()))
}

/// A by-name input's entry name and payload (`name NUL payload`).
fn by_name(p: &str) -> (&str, &str) {
    p.split_once('\0').expect("a name and a payload")
}

/// One group: its lines over the same frames, side by side. Each line parses one frame and
/// keeps its answer (`black_box`).
fn compare(c: &mut Criterion, group: &str, frames: &[String], lines: &[Line<'_>]) {
    if let Some((n, only)) = passes() {
        for (name, line) in lines {
            if format!("{group}/{name}") == only {
                for _ in 0..n {
                    frames.iter().for_each(|f| line(black_box(f)));
                }
            }
        }
        return;
    }
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(frames.len() as u64));
    for (name, line) in lines {
        g.bench_function(*name, |b| {
            b.iter(|| frames.iter().for_each(|f| line(black_box(f))))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
