//! Tests of the abd method.
