//! Tests of `finch`: session.
