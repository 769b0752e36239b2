//! load: the only IO; reads a schema directory and runs parse, lower and check.
