//! The verdict of a JSON-RPC 2.0 protocol generated here (MCP, feature `mcp`; ACP, feature
//! `acp`): what `cargo xtask validate --protocol mcp|acp` runs (`contracts-validate`).
//!
//! A message of either side (a request, a notification, a result or an error response) is
//! read as the protocol's generated message union, its `params` typed by its `method` through
//! the request or the notification table in the same pass (`wire::from_str_variants_typed`
//! over the generated `…MessageTyped`): the verdict is the union's, then the table's. A
//! result is judged by the envelope (the protocol's open result base, or any value): the
//! message says nothing of the request it answers; `--as result --type METHOD` judges a bare
//! result by the request's table entry. A JSON array (a batch) is refused: neither MCP
//! 2025-11-25 nor ACP has batches.
//!
//! With `echo`, an accepted input's verdict carries `value`: the input as the generated Rust
//! types write it back (the envelope by the generated message type, the params by the table's
//! payload type), so a key the types drop or a number they respell shows.

use crate::verdict::{Stage, Verdict};
use crate::wire::{ByName, ParseError, RawJson, Refused, TableError};
use serde::Serialize;

/// What `validate --protocol mcp|acp --as KIND` checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole JSON-RPC message of either side, its params by its method.
    Message,
    /// The params of the request (or, failing that, the notification) `--type METHOD`.
    Payload,
    /// The result of the request `--type METHOD`.
    Result,
    /// The params of the notification `--type METHOD` (an event of the table).
    Event,
    /// A bare value of the named type `--type NAME`, one no table entry reaches (no echo).
    Type,
}

impl std::str::FromStr for Kind {
    type Err = String;
    fn from_str(s: &str) -> Result<Kind, String> {
        Ok(match s {
            "message" => Kind::Message,
            "payload" => Kind::Payload,
            "result" => Kind::Result,
            "event" => Kind::Event,
            "type" => Kind::Type,
            _ => {
                return Err(format!(
                    "unknown kind {s:?}: expected message, payload, result, event or type"
                ));
            }
        })
    }
}

/// A JSON-RPC protocol's generated items, as its verdict reads them: implemented by
/// `json_rpc_tables!` in each protocol's module (`contracts::mcp::McpTables`).
pub trait JsonRpcTables {
    /// The protocol as a message names it: `MCP 2025-11-25`.
    const PROTOCOL: &'static str;
    /// The request table's payloads by name (the module's `RequestPayload`).
    type Request: for<'a> ByName<'a> + Serialize;
    /// The request table's results by name (`RequestResult`).
    type Result: for<'a> ByName<'a> + Serialize;
    /// The notification table's payloads by name (`EventPayload`).
    type Event: for<'a> ByName<'a> + Serialize;
    /// Every request method (`REQUEST_NAMES`).
    const REQUEST_NAMES: &'static [&'static str];
    /// Every notification method (`EVENT_NAMES`).
    const EVENT_NAMES: &'static [&'static str];
    /// The protocol's structs, enums and unions by name (`check_type`).
    fn check_type(name: &str, json: &str) -> Option<Result<(), ParseError>>;
    /// Reads one message, its params by its method; with `echo`, the message as the generated
    /// types write it back. `Err`: the refusal's verdict.
    fn message(text: &str, echo: bool) -> Result<Option<RawJson>, Verdict>;
}

/// `--type NAME` names no request, no notification, or (for `type`) no struct, enum or
/// union: a usage error, not a verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownType(pub String, pub Kind);

impl std::fmt::Display for UnknownType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Kind::Type => f.write_str(&crate::verdict::no_named_type(&self.0)),
            _ => f.write_str(&crate::verdict::no_table_entry(&self.0)),
        }
    }
}

impl std::error::Error for UnknownType {}

/// The verdict on one input line of `kind` over the protocol `T`; with `echo`, an accepted
/// line's verdict carries the value as the generated types write it back (not for `type`).
/// `type_name` is required for every kind but `message`, and must name an entry or a type.
pub fn verdict<T: JsonRpcTables>(
    kind: Kind,
    type_name: Option<&str>,
    text: &str,
    echo: bool,
) -> Result<Verdict, UnknownType> {
    let known = |names: &[&str], name: Option<&str>| match name {
        Some(n) if names.contains(&n) => Ok(n.to_owned()),
        other => Err(UnknownType(other.unwrap_or("").to_owned(), kind)),
    };
    Ok(match kind {
        Kind::Message => {
            if is_batch(text) {
                return Ok(Verdict::refused_with(
                    Stage::Envelope,
                    format!(
                        "a batch (a JSON array of messages) is not a message: {} has no batches; send each message on its own line",
                        T::PROTOCOL
                    ),
                ));
            }
            match T::message(text, echo) {
                Ok(value) => accepted(value),
                Err(refused) => refused,
            }
        }
        Kind::Payload => match known(T::REQUEST_NAMES, type_name) {
            Ok(name) => entry::<T::Request>(&name, text, echo),
            Err(e) => {
                let name = known(T::EVENT_NAMES, type_name).map_err(|_| e)?;
                entry::<T::Event>(&name, text, echo)
            }
        },
        Kind::Result => entry::<T::Result>(&known(T::REQUEST_NAMES, type_name)?, text, echo),
        Kind::Event => entry::<T::Event>(&known(T::EVENT_NAMES, type_name)?, text, echo),
        Kind::Type => {
            let name = type_name.unwrap_or_default();
            match T::check_type(name, text) {
                None => return Err(UnknownType(name.to_owned(), kind)),
                Some(Ok(())) => Verdict::accepted(),
                Some(Err(e)) if e.is_syntax() => Verdict::refused(Stage::Envelope, &e),
                Some(Err(e)) => Verdict::refused(Stage::Table, &e),
            }
        }
    })
}

/// Whether `text` is a JSON array: a batch, which neither protocol has.
fn is_batch(text: &str) -> bool {
    text.trim_start().starts_with('[')
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

fn accepted(value: Option<RawJson>) -> Verdict {
    let mut v = Verdict::accepted();
    v.value = value;
    v
}

/// A bare value of the table entry `name` of `E`, written back with `echo`.
fn entry<E: for<'a> ByName<'a> + Serialize>(name: &str, text: &str, echo: bool) -> Verdict {
    match E::read_named(name, text) {
        Ok(value) if echo => match RawJson::from_value(&value) {
            Ok(raw) => accepted(Some(raw)),
            Err(e) => unwritable(&e),
        },
        Ok(_) => Verdict::accepted(),
        Err(e) => table_refusal(e),
    }
}

/// The verdict of the table stage. A bare value that is not JSON is refused at the envelope.
fn table_refusal(e: TableError) -> Verdict {
    match e {
        TableError::UnknownName(name) => {
            Verdict::refused_with(Stage::Table, crate::verdict::no_table_entry(&name))
        }
        TableError::Invalid { error, .. } if error.is_syntax() => {
            Verdict::refused(Stage::Envelope, &error)
        }
        TableError::Invalid { error, .. } => Verdict::refused(Stage::Table, &error),
    }
}

/// The verdict on a message the typed read refused.
#[doc(hidden)]
pub fn refused<V>(refused: Refused<V>) -> Verdict {
    match refused {
        Refused::Envelope(e) => Verdict::refused(Stage::Envelope, &e),
        Refused::Table(_, e) => table_refusal(e),
    }
}

/// An accepted value the types could not write back (never expected: a bug to report).
#[doc(hidden)]
pub fn unwritable(e: &dyn std::fmt::Display) -> Verdict {
    Verdict::refused_with(
        Stage::Envelope,
        format!("accepted, but the generated types could not write it back: {e}"),
    )
}

/// Implements [`JsonRpcTables`] for a protocol generated in the current module, over its
/// message union (`JSONRPCMessage`), that union's typed form and its request and notification
/// variants.
macro_rules! json_rpc_tables {
    (
        $(#[$attr:meta])*
        $tables:ident, $protocol:literal, $message:ident, $typed:ident, $request:ident,
        $notification:ident
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy)]
        pub struct $tables;

        impl $crate::jsonrpc::JsonRpcTables for $tables {
            const PROTOCOL: &'static str = $protocol;
            type Request = RequestPayload;
            type Result = RequestResult;
            type Event = EventPayload;
            const REQUEST_NAMES: &'static [&'static str] = REQUEST_NAMES;
            const EVENT_NAMES: &'static [&'static str] = EVENT_NAMES;
            fn check_type(
                name: &str,
                json: &str,
            ) -> Option<Result<(), $crate::wire::ParseError>> {
                check_type(name, json)
            }
            fn message(
                text: &str,
                echo: bool,
            ) -> Result<Option<$crate::wire::RawJson>, $crate::verdict::Verdict> {
                use $crate::jsonrpc::refused;
                use $crate::wire::{self, RawJson, Refused};
                let typed = wire::from_str_variants_typed::<$typed<'_>>(text).map_err(refused)?;
                if !echo {
                    return Ok(None);
                }
                // The envelope as its owned type holds it (absent params stay absent), the
                // params as the table's payload type writes them.
                let mut owned =
                    wire::from_str::<$message>(text).map_err(|e| refused(Refused::<()>::Envelope(e)))?;
                let unwritable = |e: serde_json::Error| $crate::jsonrpc::unwritable(&e);
                let params = match (&mut owned, &typed) {
                    ($message::$request(r), $typed::$request(t)) => {
                        r.params.as_mut().map(|p| (p, RawJson::from_value(&t.params)))
                    }
                    ($message::$notification(n), $typed::$notification(t)) => {
                        n.params.as_mut().map(|p| (p, RawJson::from_value(&t.params)))
                    }
                    ($message::$request(_) | $message::$notification(_), _) => {
                        return Err($crate::jsonrpc::unwritable(
                            &"the message union and its typed form picked different variants",
                        ));
                    }
                    _ => None,
                };
                if let Some((params, written)) = params {
                    *params = written.map_err(unwritable)?;
                }
                RawJson::from_value(&owned).map(Some).map_err(unwritable)
            }
        }
    };
}
pub(crate) use json_rpc_tables;
