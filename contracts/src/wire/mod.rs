//! Wire validation: parse JSON straight into generated types, collecting every issue with its
//! path, and render failures exactly as Zod 4's `z.prettifyError` does.
//!
//! Decoding is streaming and typed: a context (`Cx`: path and issues) is threaded through
//! every decoder, each of which reads a source (`Src`, in `source`). A value of the wrong
//! shape never fails the parse: its issue is recorded, the value is skipped, and parsing goes
//! on, so one pass finds every issue. Only JSON syntax errors (and serde_json's nesting limit
//! of 128) abort. A value that exists is valid.
//!
//! This module is what an app names: the entry points ([`from_str`], [`from_str_ref`],
//! [`from_slice`], [`from_str_typed`] for a frame with its payload), the verdicts ([`ParseError`], [`Issue`], [`TableError`], [`Refused`],
//! [`CallError`]), the traits a generated item implements and an app calls or bounds by
//! ([`Request`], [`Event`], [`Entry`], [`ByName`], [`Dispatch`], [`HostError`], [`Call`],
//! [`Decode`], [`DecodeRef`]) and the value types generated fields hold ([`RawJson`], [`Rest`],
//! [`IntLit`], [`BoolLit`]). The machinery generated code calls (schemas, decoders, fast
//! readers, views' traits) is reached through the hidden `contracts::__private`, which
//! re-exports it from the modules below; their impls on generated types are hidden from the
//! types' pages.
//!
//! This file only declares the modules and re-exports; the entry points are in `drive`. The
//! modules are layered, each using only those below it (ARCHITECTURE.md, "Layers").

pub(crate) mod drive;
pub(crate) mod issue;
pub(crate) mod js;
pub(crate) mod object;
pub(crate) mod scan;
pub(crate) mod schema;
mod serde_json_internals;
pub(crate) mod source;
pub(crate) mod table;
pub(crate) mod typed;
pub(crate) mod union;
pub(crate) mod view;

#[cfg(test)]
pub(crate) use drive::decode_in;
#[cfg(test)]
pub(crate) use scan::without_scanner;
#[cfg(feature = "sqlite")]
pub(crate) use schema::string_bound_of;

// Parse and validate: a generated type, a view, a typed frame (its payload read by name).
pub use drive::{ParseError, from_slice, from_str, from_str_ref, text_of_bytes, text_of_vec};
pub use issue::{Issue, MAX_ISSUES, Seg};
pub use typed::{
    ObjectTyped, Refused, UnionTyped, VariantsTyped, from_str_typed, from_str_union_typed,
    from_str_variants_typed,
};
// What generated types are and hold.
pub use object::Rest;
pub use scan::MAX_SAFE;
pub use schema::{BoolLit, Decode, DecodeRef, IntLit, RawJson};
// Tables, hosts and callers.
pub use table::{
    Call, CallError, Entry, ErrorData, Event, HostError, PartialResult, Request, TableError,
    call_typed, notify_typed,
};
pub use typed::{ByName, Dispatch};
