//! Tests of `finch`: cli.
