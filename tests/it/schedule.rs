//! Tests of `finch`: schedule.
