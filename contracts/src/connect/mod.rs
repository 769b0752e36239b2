//! The Agent Connect protocol: the frames around events on `/v1/ws`.
//!
//! The types are generated from `schema/connect` by [`protocol!`](crate::protocol). Beside them
//! sit the parse functions (a typed frame or Zod's prettified message, never a panic) and
//! [`session`], the sans-IO core of a server that enforces the protocol's rules.

crate::protocol! { name: "connect", dir: "schema/connect" }

pub mod session;

use crate::verdict::{Stage, Verdict};
use crate::wire::{self, ParseError};

/// Which side's frames a text is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// What a client sends: [`ClientFrame`].
    Client,
    /// What a server sends: [`ServerFrame`].
    Server,
}

impl Side {
    /// The side named `client` or `server`, as `cargo xtask validate --as` names it.
    pub fn from_name(name: &str) -> Option<Side> {
        match name {
            "client" => Some(Side::Client),
            "server" => Some(Side::Server),
            _ => None,
        }
    }
}

/// Parses and validates a frame a client sent.
pub fn parse_client_frame(json: &str) -> Result<ClientFrame, ParseError> {
    wire::from_str(json)
}

/// Parses and validates a frame a server sent.
pub fn parse_server_frame(json: &str) -> Result<ServerFrame, ParseError> {
    wire::from_str(json)
}

/// Checks one frame of `side`: `Ok` or the reason it is refused.
pub fn check(side: Side, json: &str) -> Result<(), ParseError> {
    match side {
        Side::Client => parse_client_frame(json).map(drop),
        Side::Server => parse_server_frame(json).map(drop),
    }
}

/// The verdict on one frame of `side`: the one stage is the envelope (a connect frame has no
/// table stage).
pub fn verdict(side: Side, json: &str) -> Verdict {
    match check(side, json) {
        Ok(()) => Verdict::accepted(),
        Err(e) => Verdict::refused(Stage::Envelope, &e),
    }
}

/// The line `cargo xtask validate --protocol connect` writes for one input line:
/// `{"ok":true}` or `{"ok":false,"stage":"envelope","message":"..."}`.
pub fn verdict_line(side: Side, json: &str) -> String {
    verdict(side, json).to_line()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame of `side` with the fast reader and by the decoder alone: the same outcome, value
    /// or message. Whether the decoder accepts, and whether the fast reader answered.
    fn agrees(side: Side, text: &str) -> (bool, bool) {
        fn outcome<T>(r: Result<T, ParseError>) -> Result<T, String> {
            r.map_err(|e| e.to_string())
        }
        match side {
            Side::Client => {
                let slow = outcome(wire::without_scanner(|| parse_client_frame(text)));
                assert_eq!(outcome(parse_client_frame(text)), slow, "{text}");
                let fast = crate::__private::scan_str(text, |r| {
                    crate::__private::Schema::scan(crate::__private::Named::<ClientFrame>::new(), r)
                });
                // The borrowed view: the same verdict, value and fast-reader coverage.
                assert_eq!(
                    crate::__private::view_agrees::<ClientFrameRef<'_>>(text),
                    (slow.is_ok(), fast.is_some())
                );
                (slow.is_ok(), fast.is_some())
            }
            Side::Server => {
                let slow = outcome(wire::without_scanner(|| parse_server_frame(text)));
                assert_eq!(outcome(parse_server_frame(text)), slow, "{text}");
                let fast = crate::__private::scan_str(text, |r| {
                    crate::__private::Schema::scan(crate::__private::Named::<ServerFrame>::new(), r)
                });
                assert_eq!(
                    crate::__private::view_agrees::<ServerFrameRef<'_>>(text),
                    (slow.is_ok(), fast.is_some())
                );
                (slow.is_ok(), fast.is_some())
            }
        }
    }

    #[test]
    fn the_fast_reader_gives_the_decoders_answer_on_the_corpus() {
        let (mut accepted, mut answered) = (0, 0);
        for file in [
            include_str!("../../../tests/corpus/connect.jsonl"),
            include_str!("../../../tests/corpus/derived/connect.jsonl"),
        ] {
            for (kind, _, text) in crate::verdict::corpus_lines(file) {
                let side = Side::from_name(&kind).expect("client or server");
                let (ok, fast) = agrees(side, &text);
                accepted += usize::from(ok);
                answered += usize::from(fast);
            }
        }
        // Many valid lines test on purpose what the fast reader leaves to the decoder.
        assert!(
            answered * 2 >= accepted,
            "the fast reader answered {answered} of {accepted} valid lines"
        );
    }
}
