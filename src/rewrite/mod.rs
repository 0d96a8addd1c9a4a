//! Source rewriting: applying parameter values to the literals tunables own (`params`), and motifs,
//! reversible kernel transformations over the C++ syntax tree (`motif` for the interface, `motifs` for
//! the catalogue, `cst` for the tree helpers they share).

pub mod cst;
pub mod external;
pub mod motif;
pub mod motifs;
pub mod params;

pub use motif::{Direction, Edit, Motif, MotifError, Site};
