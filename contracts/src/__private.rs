//! The only path generated code uses to reach the runtime. Not a public API.

pub use crate::wire::*;
/// The proc macro behind [`crate::protocol!`], which hands it this module's path.
pub use contracts_macros::protocol as protocol_impl;
pub use serde;
pub use serde_json;
pub use serde_json::value::RawValue;

/// The error a generated host answers with when its protocol declares no `#[error]` of its
/// own nor has a base that does: the agent protocol's `WireError`.
pub use crate::agent::WireError;

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
