//! The only path generated code uses to reach the runtime. Not a public API.

pub use crate::wire::*;
/// The proc macro behind [`crate::protocol!`], which hands it this module's path.
pub use contracts_macros::protocol as protocol_impl;
pub use serde;
pub use serde_json;
pub use serde_json::value::RawValue;

/// The error a generated host answers with: the agent protocol's `WireError`, the error of the
/// frame envelope every request table travels in.
pub use crate::agent::WireError;

/// The frame machinery's view of a host, which every generated `Dispatcher` implements.
pub use crate::agent::Dispatch;

/// The error for a request the host does not do.
pub fn unsupported(method: &str) -> WireError {
    <WireError as HostError>::unsupported(method)
}

/// The error for a request name no table knows.
pub fn unknown_request(name: &str) -> WireError {
    <WireError as HostError>::unknown_request(name)
}

/// The error for a payload that is not valid for its request.
pub fn invalid_payload(name: &str, error: &ParseError) -> WireError {
    <WireError as HostError>::invalid_payload(name, error)
}

/// The error for a request the table refused: its name is unknown, or its payload invalid.
pub fn table_refusal(error: &TableError) -> WireError {
    match error {
        TableError::UnknownName(name) => unknown_request(name),
        TableError::Invalid { name, error } => invalid_payload(name, error),
    }
}

/// The error for a result that could not be written.
pub fn internal(message: String) -> WireError {
    <WireError as HostError>::internal(message)
}

/// Writes a result as raw JSON.
pub fn to_raw<T: serde::Serialize>(value: &T) -> Result<Box<RawValue>, WireError> {
    serde_json::value::to_raw_value(value).map_err(|e| internal(e.to_string()))
}
