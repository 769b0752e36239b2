//! Wire validation: parse JSON straight into generated types, collecting every issue with its
//! path, and render failures exactly as Zod 4's `z.prettifyError` does.
//!
//! Decoding is streaming and typed: a [`Cx`] (path and issues) is threaded through every
//! decoder, each of which reads a [`Src`] (`source`). A value of the wrong shape never fails
//! the parse: its issue is recorded,
//! the value is skipped, and parsing goes on, so one pass finds every issue. Only JSON syntax
//! errors (and serde_json's nesting limit of 128) abort. A value that exists is valid.
//!
//! This file only declares the modules and re-exports their public items; the entry points
//! (`from_str`, `parse_with`, `ParseError`, ...) are in `drive`. The modules are layered, each
//! using only those below it (ARCHITECTURE.md, "Layers").

mod drive;
mod issue;
mod js;
mod object;
mod scan;
mod schema;
mod serde_json_internals;
mod source;
mod table;
mod typed;
mod union;
mod view;

#[cfg(test)]
pub(crate) use drive::decode_in;
pub use drive::{
    ParseError, decode_with, default_from_json, deserialize, from_slice, from_str, from_str_ref,
    from_str_with, parse_with, text_of_bytes, text_of_vec,
};
pub use issue::{Cx, Expect, Issue, MAX_ISSUES, Seg, dot_path, more_issues, prettify};
pub use js::AsJs;
pub use object::{
    Object, ObjectCx, ObjectRef, Rest, RestSlot, WriteFields, decode_object, decode_object_ref,
    scan_object, serialize_object, serialize_tagged,
};
#[cfg(test)]
pub(crate) use scan::without_scanner;
pub use scan::{Items, Key, Keys, MAX_SAFE, MAX_SCAN_DEPTH, Scanner, same_name, scan_str};
pub use schema::{
    Array, Bool, BoolLit, Boxed, Decode, FormatStr, Int, Int64, IntLit, LitBool, LitInt, LitNull,
    LitStr, Map, NONOPTIONAL, Named, Nullable, Number, RawJson, Schema, Str, StrFormat, Uint64,
    Unknown,
};
pub use schema::{DecodeRef, SchemaRef, StrRef, UnknownRef};
pub use source::{DeSrc, Key as SrcKey, Map as SrcMap, Num, Read, Seq as SrcSeq, Sink, Src, Stop};
pub use table::{
    Call, CallError, Entry, ErrorData, Event, HostError, PartialResult, Request, TableError,
    call_typed, notify_typed,
};
pub use typed::{
    ByName, Dispatch, EntrySlot, ObjectTyped, Refused, UnionTyped, VariantsTyped, decode_from_base,
    empty_object, from_str_typed, from_str_union_typed, from_str_variants_typed, parse_by_name,
    read_typed_once, scan_empty_entry, scan_entry, scan_from_base, scan_typed_once,
    typed_from_view, unknown_entry,
};
pub use union::{
    Entries, EntriesOf, LentEntries, Literal, ObjectVariant, ObjectVariantRef, Tagged, TryVariant,
    decode_enum, decode_int_enum, decode_open_enum, decode_open_int_enum, decode_raw,
    decode_raw_with, decode_tagged, decode_untagged, decode_untagged_objects,
    decode_untagged_objects_ref,
};
pub use view::{
    NamedRef, ObjectView, Own, ScanRef, convert_vec, lent_str, owned_str, scan_object_view,
    view_agrees,
};
