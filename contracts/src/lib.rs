//! The runtime for generated wire contracts.
//!
//! Generated code reaches this crate only through [`__private`]. The agent protocol is
//! generated here by [`protocol!`] from `schema/agent`.

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
