//! compat: the differ between a base and a head model (direction-aware rules).
