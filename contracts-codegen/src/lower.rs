//! lower: syntax trees to the model; hoists inline objects, resolves imports.
