//! Random search: new points drawn uniformly from the valid part of the space. The baseline every other
//! strategy must beat.

use super::{Observation, SearchContext, Strategy};
use crate::space::Point;

pub struct Random;

impl Strategy for Random {
    fn name(&self) -> &'static str {
        "random"
    }
    fn propose(&mut self, ctx: &mut SearchContext, max: usize) -> Vec<Point> {
        (0..max.min(8))
            .map_while(|_| ctx.random_new_point())
            .collect()
    }
    fn observe(&mut self, _: &mut SearchContext, _: &[Observation]) {}
}
