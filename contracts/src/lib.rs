//! The runtime for generated wire contracts.
//!
//! Generated code reaches this crate only through [`__private`]. The agent and Agent Connect
//! protocols are generated here by [`protocol!`] from `schema/agent` and `schema/connect`.

extern crate self as contracts;

#[doc(hidden)]
pub mod __private;
pub mod agent;
pub mod connect;
pub mod port;

pub mod verdict;
pub mod wire;

pub use contracts_macros::protocol;
pub use wire::{Event, Request};
