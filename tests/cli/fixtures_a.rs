//! Fixtures of group a: each runs naive and reference on the twin and agrees with a Rust reference.

#[allow(unused_imports)]
use super::*;
