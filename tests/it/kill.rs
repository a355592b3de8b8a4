//! Tests of `finch`: kill.
