//! check: the rules a model must pass, one commented function per rule.
