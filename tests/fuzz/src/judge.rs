//! The streaming judges: one node process per protocol that reads Rust's verdicts as they
//! are made and answers only where Zod or ajv disagrees.
//!
//! Each judge is the package's corpus adapter (`dist/test/corpus.test.js`) run with
//! `CONTRACTS_JUDGE=stream` (`tests/corpus/runner.mjs`, `judgeStream`): a line in, written as a
//! corpus line with Rust's message on it, is judged as the corpus tests judge a line; a
//! disagreement comes back with the line's number and text. The long runs
//! (`cargo xtask fuzz --figure`) feed them instead of writing a corpus file per batch, so
//! node's rate, not its start-up, bounds them.
//!
//! A judge that answers nothing would pass every input, so each judge's first line is a
//! canary: an input sent with Rust's verdict flipped, which the judge must report as a
//! disagreement (line 0) or the run fails.

use crate::differential;
use crate::targets::Target;
use contracts::verdict::Verdict;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// A disagreement a judge reported: the input and what node said of it.
#[derive(Clone, Debug)]
pub struct Said {
    pub target: Target,
    pub text: String,
    pub said: String,
}

/// One protocol's judge process.
struct Judge {
    protocol: &'static str,
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    /// The count of lines judged and whether the canary was reported.
    reader: Option<JoinHandle<Result<(u64, bool), String>>>,
    sent: u64,
}

/// The judges of every protocol, started on demand.
pub struct Judges {
    root: std::path::PathBuf,
    judges: Vec<Judge>,
    said: Arc<Mutex<Vec<Said>>>,
}

/// What the judges did, once closed.
#[derive(Debug, Default)]
pub struct Judged {
    /// Lines judged by Zod and ajv.
    pub lines: u64,
    /// The disagreements, in the order node reported them.
    pub said: Vec<Said>,
}

impl Judges {
    /// No judge started yet; each starts with the first line of its protocol.
    pub fn new(root: &Path) -> Judges {
        Judges {
            root: root.to_owned(),
            judges: Vec::new(),
            said: Arc::default(),
        }
    }

    /// Sends an input with Rust's verdict to its protocol's judge.
    pub fn send(&mut self, target: &Target, text: &str, verdict: &Verdict) -> Result<(), String> {
        let i = match self
            .judges
            .iter()
            .position(|j| j.protocol == target.protocol)
        {
            Some(i) => i,
            None => {
                let mut judge = start(&self.root, target.protocol, Arc::clone(&self.said))?;
                let flipped = if verdict.ok {
                    Verdict::refused_with(contracts::verdict::Stage::Envelope, "canary")
                } else {
                    Verdict::accepted()
                };
                judge.write(0, target, text, &flipped)?;
                self.judges.push(judge);
                self.judges.len() - 1
            }
        };
        let judge = &mut self.judges[i];
        judge.sent += 1;
        let n = judge.sent;
        judge.write(n, target, text, verdict)
    }

    /// Closes every judge's input, waits for its answers, and checks that each judged every
    /// line it was sent.
    pub fn close(mut self) -> Result<Judged, String> {
        let mut lines = 0;
        let mut first_error = None;
        for judge in &mut self.judges {
            match judge.finish() {
                Ok(n) => lines += n,
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        let said = std::mem::take(&mut *self.said.lock().map_err(|e| e.to_string())?);
        Ok(Judged { lines, said })
    }
}

impl Judge {
    /// Closes the judge's input and waits for it: the count of lines it judged, the canary
    /// not counted.
    fn finish(&mut self) -> Result<u64, String> {
        drop(self.stdin.take());
        let reader = self.reader.take().ok_or("closed twice")?;
        let answered = reader.join();
        let status = self.child.wait().map_err(|e| e.to_string())?;
        let (judged, canary) = answered.map_err(|_| "a judge's reader panicked".to_owned())??;
        if !status.success() {
            return Err(format!("the {} judge exited with {status}", self.protocol));
        }
        if !canary {
            return Err(format!(
                "the {} judge did not report its canary (an input sent with Rust's verdict flipped): it would pass anything",
                self.protocol
            ));
        }
        // The canary is judged too, and is not one of the inputs.
        let judged = judged.saturating_sub(1);
        if judged != self.sent {
            return Err(format!(
                "the {} judge judged {judged} of {} lines",
                self.protocol, self.sent
            ));
        }
        Ok(judged)
    }
}

impl Drop for Judge {
    /// A judge not finished (the run ended early) is stopped, not left writing to nobody.
    fn drop(&mut self) {
        if self.reader.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Starts `protocol`'s judge, with a thread that collects its answers into `said` and
/// answers the count of lines it judged.
fn start(
    root: &Path,
    protocol: &'static str,
    said: Arc<Mutex<Vec<Said>>>,
) -> Result<Judge, String> {
    let (pkg, script) = differential::judge_script(root, protocol)?;
    let mut child = Command::new("node")
        .arg(&script)
        .current_dir(&pkg)
        .env("CONTRACTS_JUDGE", "stream")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("could not run node: {e}"))?;
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let (mut done, mut canary) = (None, false);
        for line in BufReader::new(stdout).lines() {
            let line = line.map_err(|e| e.to_string())?;
            let v: serde_json::Value = serde_json::from_str(&line)
                .map_err(|e| format!("the {protocol} judge wrote {line:?}: {e}"))?;
            if let Some(n) = v["done"].as_u64() {
                done = Some(n);
                continue;
            }
            if v["n"].as_u64() == Some(0) {
                canary = true;
                continue;
            }
            let target = Target {
                protocol,
                kind: v["as"].as_str().unwrap_or_default().to_owned(),
                ty: v["type"].as_str().map(str::to_owned),
            };
            let entry = Said {
                target,
                text: v["raw"].as_str().unwrap_or_default().to_owned(),
                said: v["said"].as_str().unwrap_or_default().to_owned(),
            };
            said.lock().map_err(|e| e.to_string())?.push(entry);
        }
        let done = done.ok_or_else(|| format!("the {protocol} judge ended without its count"))?;
        Ok((done, canary))
    });
    Ok(Judge {
        protocol,
        child,
        stdin: Some(BufWriter::with_capacity(1 << 16, stdin)),
        reader: Some(reader),
        sent: 0,
    })
}

impl Judge {
    /// Writes line `n`: the input as a corpus line with `verdict`, Rust's message on it.
    fn write(
        &mut self,
        n: u64,
        target: &Target,
        text: &str,
        verdict: &Verdict,
    ) -> Result<(), String> {
        let mut line: serde_json::Value =
            serde_json::from_str(&crate::corpus_line(target, text, verdict, "generated"))
                .map_err(|e| e.to_string())?;
        line["n"] = n.into();
        if let Some(m) = &verdict.message {
            line["message"] = m.clone().into();
        }
        let stdin = self.stdin.as_mut().ok_or("the judge is closed")?;
        writeln!(stdin, "{line}").map_err(|e| {
            format!(
                "the {} judge stopped reading ({e}); its exit: {:?}",
                self.protocol,
                self.child.try_wait()
            )
        })
    }
}
