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
//! [`load`] is the only phase that does IO; [`generate`], the library an xtask is made of, also
//! reads and writes the files it plans. Everything after `load` is a pure function of the model.

pub mod analysis;
pub mod check;
pub mod compat;
pub mod compat_rules;
pub mod corpus;
pub mod diag;
pub mod emit;
pub mod flows;
pub mod generate;
pub mod load;
pub mod lower;
pub mod model;
pub mod names;
pub mod parse;
pub mod syntax;
