//! emit::rust: the model to Rust tokens (types, tables, validators), for the macro.
