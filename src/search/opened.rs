//! Opened points: after a kernel rewrite that lifts a restriction of the kernel (an even block split, a
//! queue depth), the points next to the start that the old sources' constraints excluded and the new ones
//! allow, nearest first. Such a rewrite is worth nothing at the old best point; its gain, if any, lies
//! exactly there. It proposes only those points and then has nothing left, so a caller follows it with
//! an ordinary local search.

use super::{Observation, SearchContext, Strategy};
use crate::space::{Point, Space};
use std::sync::Arc;

pub struct Opened {
    /// The space of the sources before the rewrite.
    pub before: Arc<Space>,
    pub budget: usize,
}

impl Opened {
    /// Points that differ from `start` in one tunable, valid now and invalid before, nearest first (by
    /// steps along that tunable's domain; ties in tunable order, lower value first).
    fn neighbours(&self, ctx: &SearchContext, start: &Point) -> Vec<Point> {
        let mut out: Vec<(usize, usize, usize, Point)> = vec![];
        for (dim, n) in ctx.space.dims().into_iter().enumerate() {
            for value in 0..n {
                if value == start[dim] {
                    continue;
                }
                let mut p = start.clone();
                p[dim] = value;
                if ctx.space.check(&p).is_ok() && self.before.check(&p).is_err() {
                    out.push((value.abs_diff(start[dim]), dim, value, p));
                }
            }
        }
        out.sort_by_key(|(steps, dim, value, _)| (*steps, *dim, *value));
        out.into_iter().map(|(.., p)| p).collect()
    }
}

impl Strategy for Opened {
    fn name(&self) -> &'static str {
        "opened"
    }

    fn propose(&mut self, ctx: &mut SearchContext, max: usize) -> Vec<Point> {
        let Some(start) = ctx
            .start
            .clone()
            .filter(|s| s.len() == ctx.space.dims().len())
        else {
            return vec![];
        };
        let mut out = vec![];
        for p in self.neighbours(ctx, &start) {
            if out.len() >= max.min(self.budget) {
                break;
            }
            if ctx.accept(&p) {
                out.push(p);
            }
        }
        self.budget -= out.len();
        out
    }

    fn observe(&mut self, _: &mut SearchContext, _: &[Observation]) {}
}
