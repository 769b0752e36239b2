//! The seeds: every line of the shared corpus (hand-written and derived) and every benchmark
//! frame, each with the entry point it is read by; bare payloads and events taken out of the
//! frames, for the by-name entry points; the documents app's frames from the agent's (its
//! tables hold the agent's entries), its own corpus (`tests/corpus/documents.jsonl`) and a
//! small object for each entry of its own.

use crate::json::J;
use crate::targets::Target;
use std::path::{Path, PathBuf};

/// One seed input and its entry point.
#[derive(Clone, Debug)]
pub struct Seed {
    pub target: Target,
    pub text: String,
}

/// The workspace root (this crate lives in `tests/fuzz`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

fn target(protocol: &'static str, kind: &str, ty: Option<&str>) -> Target {
    Target {
        protocol,
        kind: kind.to_owned(),
        ty: ty.map(str::to_owned),
    }
}

/// Reads one corpus file's lines as seeds.
fn corpus(path: &Path, protocol: &'static str, out: &mut Vec<Seed>) -> Result<(), String> {
    let file = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    for (i, line) in file.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        let text = match (v.get("raw").and_then(|r| r.as_str()), v.get("input")) {
            (Some(raw), _) => raw.to_owned(),
            (None, Some(input)) => input.to_string(),
            (None, None) => continue,
        };
        let kind = v.get("as").and_then(|a| a.as_str()).unwrap_or_default();
        let ty = v.get("type").and_then(|t| t.as_str());
        out.push(Seed {
            target: target(protocol, kind, ty),
            text,
        });
    }
    Ok(())
}

/// Every seed.
pub fn load() -> Result<Vec<Seed>, String> {
    let root = root();
    let mut seeds = Vec::new();
    for protocol in ["agent", "connect"] {
        corpus(
            &root.join(format!("tests/corpus/{protocol}.jsonl")),
            protocol,
            &mut seeds,
        )?;
        corpus(
            &root.join(format!("tests/corpus/derived/{protocol}.jsonl")),
            protocol,
            &mut seeds,
        )?;
    }
    for (file, kind) in [
        ("requests", "request"),
        ("server", "server"),
        ("replies", "server"),
    ] {
        let path = root.join(format!("contracts/benches/data/{file}.jsonl"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            seeds.push(Seed {
                target: target("agent", kind, None),
                text: line.to_owned(),
            });
        }
    }
    // Bare payloads and events out of the frames, for the by-name entry points.
    let mut bare = Vec::new();
    for s in &seeds {
        if s.target.protocol != "agent" {
            continue;
        }
        let Some(J::Obj(entries)) = J::parse(&s.text) else {
            continue;
        };
        let get = |k: &str| {
            entries
                .iter()
                .rev()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v)
        };
        let name_key = match s.target.kind.as_str() {
            "request" => "type",
            "server" => "event",
            _ => continue,
        };
        if let (Some(J::Str(name)), Some(payload)) = (get(name_key), get("payload")) {
            let kind = if name_key == "type" {
                "payload"
            } else {
                "event"
            };
            bare.push(Seed {
                target: target("agent", kind, Some(name)),
                text: payload.text(),
            });
        }
        if let (Some(J::Bool(true)), Some(result)) = (get("ok"), get("result")) {
            // A reply's result, for the result entry point of each request it may answer.
            for name in contracts::agent::REQUEST_NAMES {
                if s.text.len() < 4096 {
                    bare.push(Seed {
                        target: target("agent", "result", Some(name)),
                        text: result.text(),
                    });
                }
            }
        }
    }
    seeds.extend(bare);
    // The app's composed tables: the agent's frames and bare values, and its own entries.
    let agent_seeds: Vec<Seed> = seeds
        .iter()
        .filter(|s| s.target.protocol == "agent" && s.target.kind != "type")
        .cloned()
        .collect();
    for s in agent_seeds {
        seeds.push(Seed {
            target: Target {
                protocol: "documents",
                ..s.target
            },
            text: s.text,
        });
    }
    corpus(
        &root.join("tests/corpus/documents.jsonl"),
        "documents",
        &mut seeds,
    )?;
    use documents_app::documents;
    for name in documents::REQUEST_NAMES {
        if !contracts::agent::REQUEST_NAMES.contains(name) {
            for kind in ["payload", "result"] {
                seeds.push(Seed {
                    target: target("documents", kind, Some(name)),
                    text: r#"{"id":"d","text":"t"}"#.to_owned(),
                });
            }
            seeds.push(Seed {
                target: target("documents", "request", None),
                text: format!(r#"{{"id":"1","type":"{name}","payload":{{"id":"d","text":"t"}}}}"#),
            });
        }
    }
    for name in documents::EVENT_NAMES {
        if !contracts::agent::EVENT_NAMES.contains(name) {
            seeds.push(Seed {
                target: target("documents", "event", Some(name)),
                text: r#"{"id":"d","text":"t"}"#.to_owned(),
            });
            seeds.push(Seed {
                target: target("documents", "server", None),
                text: format!(
                    r#"{{"type":"event","event":"{name}","payload":{{"id":"d","text":"t"}}}}"#
                ),
            });
        }
    }
    // A bare kind of the documents app answers only for names its tables know.
    seeds.retain(|s| {
        let known = |names: &[&str]| s.target.ty.as_deref().is_some_and(|t| names.contains(&t));
        match (s.target.protocol, s.target.kind.as_str()) {
            ("agent" | "documents", "payload" | "result") => {
                known(if s.target.protocol == "agent" {
                    contracts::agent::REQUEST_NAMES
                } else {
                    documents::REQUEST_NAMES
                })
            }
            ("agent" | "documents", "event") => known(if s.target.protocol == "agent" {
                contracts::agent::EVENT_NAMES
            } else {
                documents::EVENT_NAMES
            }),
            _ => true,
        }
    });
    Ok(seeds)
}
