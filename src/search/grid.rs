//! Grid search: every valid point, in order (the last tunable varies fastest). Exhaustive and exact on
//! small spaces; the yardstick for the others.

use super::{Observation, SearchContext, Strategy};
use crate::space::Point;

#[derive(Default)]
pub struct Grid {
    next: Option<Point>,
    done: bool,
}

impl Strategy for Grid {
    fn name(&self) -> &'static str {
        "grid"
    }
    fn propose(&mut self, ctx: &mut SearchContext, max: usize) -> Vec<Point> {
        let dims = ctx.space.dims();
        let mut out = vec![];
        while out.len() < max.min(8) && !self.done {
            let p = self.next.take().unwrap_or_else(|| vec![0; dims.len()]);
            // Advance like an odometer.
            let mut n = p.clone();
            let mut i = dims.len();
            loop {
                if i == 0 {
                    self.done = true;
                    break;
                }
                i -= 1;
                n[i] += 1;
                if n[i] < dims[i] {
                    break;
                }
                n[i] = 0;
            }
            self.next = Some(n);
            if ctx.accept(&p) {
                out.push(p);
            }
            if dims.is_empty() {
                self.done = true;
            }
        }
        out
    }
    fn observe(&mut self, _: &mut SearchContext, _: &[Observation]) {}
}
