//! Tests of `finch`: add.
