//! Domains of tunables: explicit lists, ranges with a step, and powers of two, all enumerated to a sorted
//! list of distinct integers so strategies can work on indices.

#[derive(Debug, Clone, PartialEq)]
pub struct Domain {
    values: Vec<i64>,
}

/// Domains larger than this are refused: a search over them should use a coarser step.
const MAX_POINTS: usize = 1 << 16;

impl Domain {
    pub fn list(mut values: Vec<i64>) -> Result<Self, String> {
        if values.is_empty() {
            return Err("`values` is empty".into());
        }
        let n = values.len();
        values.sort_unstable();
        values.dedup();
        if values.len() != n {
            return Err("`values` lists a value twice".into());
        }
        Ok(Domain { values })
    }

    /// `start..=end` by `step`.
    pub fn range(start: i64, end: i64, step: i64) -> Result<Self, String> {
        if step <= 0 {
            return Err(format!("range step {step} must be positive"));
        }
        if start > end {
            return Err(format!(
                "range [{start}, {end}] is empty: start is above end"
            ));
        }
        let count = ((end - start) / step) as u64 + 1;
        if count > MAX_POINTS as u64 {
            return Err(format!("range has {count} values, more than {MAX_POINTS}"));
        }
        Ok(Domain {
            values: (0..count as i64).map(|i| start + i * step).collect(),
        })
    }

    /// Powers of two from `min` to `max`, both included.
    pub fn pow2(min: i64, max: i64) -> Result<Self, String> {
        let is_pow2 = |v: i64| v > 0 && (v & (v - 1)) == 0;
        if !is_pow2(min) || !is_pow2(max) {
            return Err(format!(
                "pow2 bounds [{min}, {max}] must both be powers of two"
            ));
        }
        if min > max {
            return Err(format!("pow2 [{min}, {max}] is empty: min is above max"));
        }
        let mut values = vec![];
        let mut v = min;
        while v <= max {
            values.push(v);
            v *= 2;
        }
        Ok(Domain { values })
    }

    pub fn values(&self) -> &[i64] {
        &self.values
    }
    pub fn len(&self) -> usize {
        self.values.len()
    }
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
    pub fn value(&self, index: usize) -> i64 {
        self.values[index]
    }
    pub fn index_of(&self, value: i64) -> Option<usize> {
        self.values.binary_search(&value).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_enumerate() {
        assert_eq!(Domain::pow2(32, 256).unwrap().values(), &[32, 64, 128, 256]);
        assert_eq!(
            Domain::range(64, 256, 64).unwrap().values(),
            &[64, 128, 192, 256]
        );
        assert_eq!(Domain::range(1, 2, 1).unwrap().values(), &[1, 2]);
        assert_eq!(Domain::list(vec![8, 1, 4]).unwrap().values(), &[1, 4, 8]);
    }

    #[test]
    fn impossible_domains_are_refused() {
        assert!(Domain::pow2(3, 64).is_err());
        assert!(Domain::pow2(64, 32).is_err());
        assert!(Domain::range(5, 1, 1).is_err());
        assert!(Domain::range(1, 5, 0).is_err());
        assert!(Domain::list(vec![]).is_err());
        assert!(Domain::list(vec![1, 1]).is_err());
        assert!(Domain::range(0, i64::MAX / 2, 1).is_err());
    }
}
