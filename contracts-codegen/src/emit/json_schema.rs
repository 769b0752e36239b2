//! emit::json_schema: the model to JSON Schema (draft 2020-12).
