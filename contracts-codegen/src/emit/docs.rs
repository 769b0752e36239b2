//! emit::docs: the model to the Markdown reference.
