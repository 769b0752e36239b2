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

/// Writes a host's result of request `R` as raw JSON, checked first as its peer will read
/// it (`R::parse_result`, the validators `validate` runs): a result the peer would refuse (an
/// empty `chatId`, a limit out of range) is never sent. It becomes an `internal` failure whose
/// message names the request, the field and the limit, and the same line goes to the host's
/// standard error, since the host's method has already returned.
pub fn result_to_raw<R: Request>(value: &R::Result) -> Result<Box<RawValue>, WireError> {
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
            Err(internal(message))
        }
    }
}
