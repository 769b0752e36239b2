//! parse: `.contract` text to the syntax tree, with syn; every error located at file:line:col.
