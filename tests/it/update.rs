//! Tests of `finch`: update.
