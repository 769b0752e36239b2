//! Server-Sent Events as Streamable HTTP uses them: the events a server writes (a message
//! with its id, the priming event with `retry`), event ids that name their stream, and a
//! parser of an event stream for the client.

use bytes::Bytes;
use std::time::Duration;

/// An event's id: its stream (0 is the session's `GET` stream, then one per request answered
/// as a stream) and its place in it. Unique within a session, and enough to find the stream
/// a `Last-Event-ID` resumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EventId {
    pub(crate) stream: u64,
    pub(crate) seq: u64,
}

impl EventId {
    /// Reads `STREAM-SEQ`; `None` for anything else.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let (stream, seq) = text.trim().split_once('-')?;
        Some(EventId {
            stream: stream.parse().ok()?,
            seq: seq.parse().ok()?,
        })
    }
}

impl std::fmt::Display for EventId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.stream, self.seq)
    }
}

/// A message event. `data` is one line (the connection writes frames without line breaks).
pub(crate) fn message(id: EventId, data: &str) -> Bytes {
    Bytes::from(format!("id: {id}\nevent: message\ndata: {data}\n\n"))
}

/// The priming event: an id and empty data, so the client can resume from here, and how long
/// it waits before it reconnects when the server ends the connection.
pub(crate) fn priming(id: EventId, retry: Duration) -> Bytes {
    Bytes::from(format!(
        "id: {id}\nretry: {}\ndata: \n\n",
        retry.as_millis()
    ))
}

/// One event read from a stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Event {
    /// The event's `id`, if it had one.
    pub(crate) id: Option<String>,
    /// Its `event` type (`message` when absent).
    pub(crate) event: Option<String>,
    /// Its data lines, joined by line breaks; empty for a priming event.
    pub(crate) data: String,
}

/// Reads an event stream chunk by chunk (the HTML standard's interpretation: lines end with
/// CRLF, LF or CR; `data` lines join; a blank line dispatches; `:` starts a comment).
#[derive(Debug, Default)]
pub(crate) struct Parser {
    line: Vec<u8>,
    after_cr: bool,
    event: Event,
    has_data: bool,
    /// The last `retry` the stream gave, in milliseconds.
    pub(crate) retry: Option<u64>,
    /// Bytes of the event being read; bounded by the caller.
    pub(crate) pending: usize,
}

impl Parser {
    /// Feeds a chunk; answers the events it completed.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Vec<Event> {
        let mut out = Vec::new();
        for &b in chunk {
            if self.after_cr && b == b'\n' {
                self.after_cr = false;
                continue;
            }
            self.after_cr = b == b'\r';
            if b == b'\n' || b == b'\r' {
                let line = std::mem::take(&mut self.line);
                self.field(&String::from_utf8_lossy(&line), &mut out);
            } else {
                self.line.push(b);
                self.pending += 1;
            }
        }
        out
    }

    fn field(&mut self, line: &str, out: &mut Vec<Event>) {
        if line.is_empty() {
            if self.has_data {
                let mut event = std::mem::take(&mut self.event);
                if event.data.ends_with('\n') {
                    event.data.pop();
                }
                out.push(event);
            } else {
                // An event without data dispatches nothing, but its id counts.
                let id = self.event.id.take();
                self.event = Event {
                    id,
                    ..Event::default()
                };
                if self.event.id.is_some() {
                    out.push(std::mem::take(&mut self.event));
                }
            }
            self.has_data = false;
            self.pending = 0;
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (name, value) = match line.split_once(':') {
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match name {
            "data" => {
                self.event.data.push_str(value);
                self.event.data.push('\n');
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.event.id = Some(value.to_owned()),
            "event" => self.event.event = Some(value.to_owned()),
            "retry" => {
                if let Ok(ms) = value.parse() {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_their_stream() {
        let id = EventId { stream: 3, seq: 7 };
        assert_eq!(EventId::parse(&id.to_string()), Some(id));
        assert_eq!(EventId::parse("x-1"), None);
        assert_eq!(EventId::parse("17"), None);
    }

    #[test]
    fn reads_what_the_server_writes_split_anywhere() {
        let mut text = Vec::new();
        text.extend_from_slice(&priming(
            EventId { stream: 1, seq: 0 },
            Duration::from_millis(1500),
        ));
        text.extend_from_slice(&message(EventId { stream: 1, seq: 1 }, r#"{"a":1}"#));
        text.extend_from_slice(b": a comment\r\ndata: two\r\ndata: lines\r\n\r\n");
        for split in 0..text.len() {
            let mut parser = Parser::default();
            let mut events = parser.push(&text[..split]);
            events.extend(parser.push(&text[split..]));
            assert_eq!(
                events,
                [
                    Event {
                        id: Some("1-0".into()),
                        event: None,
                        data: String::new()
                    },
                    Event {
                        id: Some("1-1".into()),
                        event: Some("message".into()),
                        data: r#"{"a":1}"#.into()
                    },
                    Event {
                        id: None,
                        event: None,
                        data: "two\nlines".into()
                    },
                ],
                "split at {split}"
            );
            assert_eq!(parser.retry, Some(1500));
        }
    }
}
