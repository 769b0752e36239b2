//! Emitters: pure functions over `&Model` that never fail. Anything that must be refused is a
//! rule in `check`.

pub mod docs;
pub mod json_schema;
pub mod rust;
pub mod typescript;
