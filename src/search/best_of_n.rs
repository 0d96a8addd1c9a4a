//! Best-of-N: N independent variations of the starting configuration (the values the sources hold now),
//! drawn without feedback from one another, and the best kept. The baseline for "what one round of
//! guesses around the current code gives", as the AscendOptimizer paper compares against. Each variation
//! changes one or two tunables to a random value of their domain. Without a valid starting point it draws
//! uniformly, like random search.

use super::{Observation, SearchContext, Strategy};
use crate::space::Point;
use rand::RngExt;

pub struct BestOfN;

impl BestOfN {
    fn variation(ctx: &mut SearchContext, start: &Point) -> Point {
        let dims = ctx.space.dims();
        let mut p = start.clone();
        let changes = if dims.len() > 1 && ctx.rng.random_bool(0.5) {
            2
        } else {
            1
        };
        for _ in 0..changes {
            let i = ctx.rng.random_range(0..dims.len());
            p[i] = ctx.rng.random_range(0..dims[i]);
        }
        p
    }
}

impl Strategy for BestOfN {
    fn name(&self) -> &'static str {
        "best-of-n"
    }

    fn propose(&mut self, ctx: &mut SearchContext, max: usize) -> Vec<Point> {
        let Some(start) = ctx.start.clone().filter(|s| !s.is_empty()) else {
            return (0..max.min(8))
                .map_while(|_| ctx.random_new_point())
                .collect();
        };
        let mut out = vec![];
        let mut attempts = 0;
        while out.len() < max.min(8) && attempts < 2000 {
            attempts += 1;
            let p = Self::variation(ctx, &start);
            if !ctx.was_proposed(&p) && ctx.accept(&p) {
                out.push(p);
            }
        }
        if out.is_empty() {
            // Every variation near the start is known: widen to the whole space.
            out.extend((0..max.min(8)).map_while(|_| ctx.random_new_point()));
        }
        out
    }

    fn observe(&mut self, _: &mut SearchContext, _: &[Observation]) {}
}
