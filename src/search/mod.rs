//! Search strategies over a `Space`, behind one trait, one module each, looked up by name. A strategy
//! proposes points and is told their outcomes; it never builds or runs anything. Its random state lives in
//! the `SearchContext`, seeded by the user, so a seed reproduces a run trial by trial.

mod best_of_n;
mod evolutionary;
mod grid;
mod opened;
mod random;

use crate::errors::{Error, Result};
use crate::space::{Point, Space};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;

/// Every strategy name the command line and the manifest accept.
pub const STRATEGY_NAMES: &[&str] = &["loop", "host", "random", "best-of-n", "grid"];
/// The strategy used when none is named: host search alternating with kernel rewrites (`tune::alternate`).
pub const DEFAULT_STRATEGY: &str = "loop";

/// What a strategy is told about a point it proposed: the latency, or None when the trial failed.
pub type Observation = (Point, Option<f64>);

pub trait Strategy {
    fn name(&self) -> &'static str;
    /// Up to `max` new points to evaluate. An empty answer means the strategy has nothing left to try.
    fn propose(&mut self, ctx: &mut SearchContext, max: usize) -> Vec<Point>;
    /// The outcomes of the last proposal, in proposal order.
    fn observe(&mut self, ctx: &mut SearchContext, results: &[Observation]);
}

/// State shared by every strategy: the space, the seeded random stream and the points already proposed.
pub struct SearchContext<'a> {
    pub space: &'a Space,
    pub rng: ChaCha8Rng,
    /// The point the sources hold now, when every value lies in its domain.
    pub start: Option<Point>,
    proposed: HashSet<Point>,
}

impl<'a> SearchContext<'a> {
    pub fn new(space: &'a Space, seed: u64) -> Self {
        SearchContext {
            space,
            rng: ChaCha8Rng::seed_from_u64(seed),
            start: None,
            proposed: HashSet::new(),
        }
    }

    /// Points measured already (by an earlier search over the same sources): never proposed again.
    pub fn knowing(mut self, known: impl IntoIterator<Item = Point>) -> Self {
        self.proposed.extend(known);
        self
    }

    /// Tells strategies where the sources are now (Best-of-N samples around it).
    pub fn starting_at(mut self, start: Option<Point>) -> Self {
        self.start = start;
        self
    }

    /// Takes `p` as a proposal if it is new and satisfies the constraints; remembers it either way.
    pub fn accept(&mut self, p: &Point) -> bool {
        self.proposed.insert(p.clone()) && self.space.check(p).is_ok()
    }

    pub fn was_proposed(&self, p: &Point) -> bool {
        self.proposed.contains(p)
    }

    pub fn random_point(&mut self) -> Point {
        self.space
            .dims()
            .into_iter()
            .map(|n| self.rng.random_range(0..n))
            .collect()
    }

    /// A random new point that satisfies the constraints, if one turns up within a bounded number of draws.
    pub fn random_new_point(&mut self) -> Option<Point> {
        for _ in 0..2000 {
            let p = self.random_point();
            if !self.was_proposed(&p) && self.accept(&p) {
                return Some(p);
            }
        }
        None
    }
}

/// The evolutionary search started around the context's start point (the start, then mutants of it):
/// the short re-tune after a kernel rewrite, and the last host phase of `loop`.
pub fn local(budget: usize) -> Box<dyn Strategy> {
    Box::new(evolutionary::Evolutionary::around(budget))
}

/// The same search when the start point has been measured already: it begins with mutants of it.
pub fn local_beside(budget: usize) -> Box<dyn Strategy> {
    Box::new(evolutionary::Evolutionary::beside(budget))
}

/// The points next to the start that the constraints of `before` (the sources before a rewrite)
/// excluded and the current ones allow, nearest first, at most `budget` of them (`opened`).
pub fn opened(before: std::sync::Arc<Space>, budget: usize) -> Box<dyn Strategy> {
    Box::new(opened::Opened { before, budget })
}

/// The strategy named `name`, sized for `budget` trials.
pub fn by_name(name: &str, budget: usize) -> Result<Box<dyn Strategy>> {
    match name {
        "host" => Ok(Box::new(evolutionary::Evolutionary::new(budget))),
        "random" => Ok(Box::new(random::Random)),
        "grid" => Ok(Box::new(grid::Grid::default())),
        // `loop` alternates host searches with kernel rewrites (`tune::alternate`); its host phases are
        // this evolutionary search.
        "loop" => Ok(Box::new(evolutionary::Evolutionary::new(budget))),
        "best-of-n" => Ok(Box::new(best_of_n::BestOfN)),
        other => Err(Error::bad_input(
            format!("unknown strategy `{other}`"),
            Some(format!("use one of: {}", STRATEGY_NAMES.join(", "))),
        )),
    }
}

#[cfg(test)]
mod tests;
