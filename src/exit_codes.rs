//! The exit codes of the command-line contract (DESIGN.md). Scripts rely on these numbers: never renumber.

/// Everything went as asked.
pub const OK: i32 = 0;
/// `check` found a regression (or a stale lock under `--locked`), or `tune` found no valid candidate.
pub const FAILED: i32 = 1;
/// Bad input: manifest, lockfile, flags or project layout. The message says what and where.
pub const BAD_INPUT: i32 = 2;
/// A bug in cargo-ascend-tune itself.
pub const INTERNAL: i32 = 101;
