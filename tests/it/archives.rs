//! Tests of `finch`: archives.
