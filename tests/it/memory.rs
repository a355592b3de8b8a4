//! Tests of `finch`: memory.
