//! The only path generated code uses to reach the runtime. Not a public API.
