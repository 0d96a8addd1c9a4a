//! Source rewriting. Today: applying parameter values to the literals tunables own (`params`). Motifs
//! (reversible kernel transformations over the syntax tree) arrive with the kernel-rewriting work.

pub mod params;
