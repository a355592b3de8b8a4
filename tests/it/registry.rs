//! Tests of `finch`: registry.
