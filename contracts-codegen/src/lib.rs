//! The contract compiler.
//!
//! ```text
//! schema text --parse--> syntax tree (file:line:col) --lower--> model --check--> model + diagnostics
//!     model --> emit::rust (tokens, via the macro)
//!           --> emit::typescript, emit::json_schema, emit::docs (via xtask)
//!           --> corpus::derive (test frames, via xtask)
//!     (base model, head model) --> compat::diff
//! ```
//!
//! [`load`] is the only phase that does IO; `generate`, the library an xtask is made of, also
//! reads and writes the files it plans. Everything after `load` is a pure function of the model.
//!
//! The `protocol!` macro builds the default: the front end ([`load`]: parse, lower, check),
//! the [`analysis`] and the Rust emitter ([`emit::rust`]). Features the xtasks turn on add the
//! rest: `format` (the Rust output formatted), `typescript`, `json-schema`, `docs` (the
//! emitters), `corpus` (the corpus and examples, and `flows`), `generate` (every output
//! written or checked) and `compat` (the differ).

// On docs.rs (every feature, `--cfg docsrs`), each item behind a feature says which one.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod analysis;
pub mod check;
#[cfg(feature = "compat")]
pub mod compat;
pub mod compat_rules;
#[cfg(feature = "corpus")]
pub mod corpus;
pub mod diag;
pub mod emit;
#[cfg(feature = "corpus")]
pub mod flows;
#[cfg(feature = "generate")]
pub mod generate;
pub mod load;
pub mod lower;
pub mod model;
pub mod names;
pub mod parse;
pub mod syntax;
