//! The syntax tree: what a `.contract` file says, with locations, before any resolution.
