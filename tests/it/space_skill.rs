//! Tests of `finch`: space_skill.
