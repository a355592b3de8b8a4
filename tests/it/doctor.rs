//! Tests of `finch`: doctor.
