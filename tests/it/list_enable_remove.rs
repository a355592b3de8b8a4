//! Tests of `finch`: list_enable_remove.
