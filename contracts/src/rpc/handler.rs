//! [`Handler`]: what a JSON-RPC connection calls for each request and notification it
//! receives. Generated code implements it (`HostSide`, `ClientSide` of a two-sided protocol),
//! so it is compiled without feature `rpc`: it needs nothing but `std` and serde.

use serde::Serialize;
use serde_json::value::RawValue;
use std::fmt;
use std::future::Future;

/// One side of a JSON-RPC protocol as a connection serves it: a request's method and params
/// in, its result or the protocol's error out; a notification's method and params in.
///
/// A two-sided protocol's generated module implements it twice, by the generated dispatch
/// functions: `HostSide(host)` serves what a client sends (its `Host`), `ClientSide(client)`
/// what a host sends (its `ClientHandler`). A connection calls `request` on a task of its own
/// for every request (so requests run at once, up to a bound) and `notification` for every
/// notification, one at a time, in the order they came.
///
/// The params are the message's `params` as they arrived (`{}` when absent); a generated
/// side parses them by the method's table entry and refuses what the table refuses.
pub trait Handler: Send + Sync + 'static {
    /// The protocol's error (its `#[error]`), written as the JSON-RPC error object of a failed
    /// request's response.
    type Error: Serialize + fmt::Display + Send + 'static;

    /// Answers request `method`: its result as raw JSON, or the error to answer with.
    fn request(
        &self,
        method: &str,
        params: &RawValue,
    ) -> impl Future<Output = Result<Box<RawValue>, Self::Error>> + Send;

    /// Hears notification `method`. Nothing is answered: an error (an unknown method, params
    /// the table refuses) is only logged by the connection.
    fn notification(
        &self,
        method: &str,
        params: &RawValue,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;
}
