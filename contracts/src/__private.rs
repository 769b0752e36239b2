//! The only path generated code uses to reach the runtime, protocol-neutral. Not a public
//! API: `contracts::wire`'s items (what an app names) and the machinery beside them (schemas,
//! decoders, fast readers, views' traits), each re-exported from the module that has it.

pub use crate::wire::*;

pub use crate::wire::drive::{
    decode_with, default_from_json, deserialize, from_str_with, parse_with,
};
pub use crate::wire::issue::{Cx, Expect, dot_path, more_issues, prettify};
pub use crate::wire::js::AsJs;
pub use crate::wire::object::{
    Object, ObjectCx, ObjectRef, RestSlot, WriteFields, decode_object, decode_object_ref,
    scan_object, serialize_object, serialize_tagged,
};
pub use crate::wire::scan::{Items, Key, Keys, MAX_SCAN_DEPTH, Scanner, same_name, scan_str};
pub use crate::wire::schema::{
    Array, Bool, Boxed, FormatStr, Int, Int64, LitBool, LitInt, LitNull, LitStr, Map, NONOPTIONAL,
    Named, Nullable, Number, Schema, SchemaRef, Str, StrFormat, StrRef, Uint64, Unknown,
    UnknownRef,
};
pub use crate::wire::source::{
    DeSrc, Key as SrcKey, Map as SrcMap, Num, Read, Seq as SrcSeq, Sink, Src, Stop,
};
pub use crate::wire::typed::{
    EntrySlot, decode_from_base, empty_object, parse_by_name, read_typed_once, scan_empty_entry,
    scan_entry, scan_from_base, scan_typed_once, typed_from_view, unknown_entry,
};
pub use crate::wire::union::{
    Entries, EntriesOf, LentEntries, Literal, ObjectVariant, ObjectVariantRef, Tagged, TryVariant,
    decode_enum, decode_int_enum, decode_open_enum, decode_open_int_enum, decode_raw,
    decode_raw_with, decode_tagged, decode_untagged, decode_untagged_objects,
    decode_untagged_objects_ref,
};
pub use crate::wire::view::{
    NamedRef, ObjectView, Own, ScanRef, convert_vec, lent_str, owned_str, scan_object_view,
    view_agrees,
};
/// The proc macro behind [`crate::protocol!`], which hands it this module's path.
pub use contracts_macros::protocol as protocol_impl;
pub use serde;
pub use serde_json;
pub use serde_json::value::RawValue;

/// What a two-sided protocol's `HostSide` and `ClientSide` implement: a side as a JSON-RPC
/// connection serves it.
pub use crate::rpc::Handler as RpcHandler;

/// The error for a request the host does not do.
pub fn unsupported<E: HostError>(method: &str) -> E {
    E::unsupported(method)
}

/// The error for a request the table refused: its name is unknown, or its payload invalid.
pub fn table_refusal<E: HostError>(error: &TableError) -> E {
    match error {
        TableError::UnknownName(name) => E::unknown_request(name),
        TableError::Invalid { name, error } => E::invalid_payload(name, error),
    }
}

/// The error for a request this side does not receive: the other side answers it, so here
/// its name is as unknown as a name no table has.
pub fn not_received<E: HostError>(method: &str) -> E {
    E::unknown_request(method)
}

/// Writes a result as raw JSON.
pub fn to_raw<T: serde::Serialize, E: HostError>(value: &T) -> Result<Box<RawValue>, E> {
    serde_json::value::to_raw_value(value).map_err(|e| E::internal(e.to_string()))
}

/// Writes a host's result of request `R` as raw JSON, checked first as its peer will read
/// it (`R::parse_result`, the validators `validate` runs): a result the peer would refuse (an
/// empty `chatId`, a limit out of range) is never sent. It becomes an `internal` failure whose
/// message names the request, the field and the limit, and the same line goes to the host's
/// standard error, since the host's method has already returned.
pub fn result_to_raw<R: Request, E: HostError>(value: &R::Result) -> Result<Box<RawValue>, E> {
    let raw = to_raw(value)?;
    match R::parse_result(raw.get()) {
        Ok(_) => Ok(raw),
        Err(e) => {
            let message = format!(
                "the host's result of {} is not valid, so it was not sent: {e}",
                R::METHOD
            );
            // One line: each issue's path beside it, the issues apart.
            let line = message.replace("\n  → ", " → ").replace('\n', "; ");
            eprintln!("contracts: {line}");
            Err(E::internal(message))
        }
    }
}
