//! cargo-ascend-tune: tunes AscendC operators in a closed loop of host tiling search and kernel rewrites.
//!
//! The parts follow DESIGN.md: `manifest` reads `ascend.toml`; `space` holds tunables and constraints;
//! `rewrite` applies parameter values to sources; `twin` builds and runs operators on the CPU twin; `model`
//! turns a twin trace into modelled time; `backend` is the build/run interface the tuner sees; `search` holds
//! the strategies and the one door to evaluation; `tune` is the loop; `lockfile`, `report` and `cli` face
//! the user. `build` is the library API for operator crates' build scripts; `workspace` finds cargo
//! workspaces' operator members.

// Errors carry their source text and spans for good messages; they are built only on the cold path, so
// their size does not matter.
#![allow(clippy::result_large_err)]

pub mod backend;
pub mod bank;
pub mod bench;
pub mod build;
pub mod child;
pub mod cli;
pub mod commands;
pub mod errors;
pub mod executor;
pub mod exit_codes;
pub mod fsx;
pub mod fuzz;
pub mod lockfile;
pub mod manifest;
pub mod measure;
pub mod model;
pub mod project;
pub mod project_lock;
pub mod report;
pub mod rewrite;
pub mod search;
pub mod space;
pub mod tune;
pub mod twin;
pub mod verify;
pub mod workspace;
pub mod writeback;
