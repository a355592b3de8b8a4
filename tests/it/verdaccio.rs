//! Tests of `finch`: verdaccio.
