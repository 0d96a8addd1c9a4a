//! Repeated latency samples reduced to a median with spread, and the comparison `check` makes between a
//! locked summary and a fresh one. Hardware timings are noisy: a regression counts only when it is beyond
//! the tolerance *and* statistically real, in the style of asv's continuous comparison (a change is
//! reported only when the samples' intervals do not overlap). When the median moved past the tolerance
//! but the intervals overlap, the verdict is "too noisy to tell" rather than a guess either way.
//!
//! Outliers are trimmed with Tukey's fences (outside `[q1 - 1.5 IQR, q3 + 1.5 IQR]`) before the summary
//! is taken, so one launch that met a cold cache or a busy device does not move the median or the spread.
//! With tightly clustered samples the fences are tight too and a value a hair from the rest may go; that
//! only narrows the spread, and a regression must still pass the tolerance.
//! Percentiles interpolate linearly between closest ranks (numpy's default). Knows nothing of where the
//! samples came from.

/// The reduction of repeated samples (microseconds) after outlier trimming. `n` counts the samples kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub p20: f64,
    pub p80: f64,
    pub min: f64,
    pub max: f64,
}

/// What `compare` concluded about `current` against `baseline`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Within the tolerance (or better, but not clearly so).
    Ok,
    /// Faster beyond the tolerance, and the intervals do not overlap.
    Improved,
    /// Slower beyond the tolerance, and the intervals do not overlap: a real regression.
    /// `ratio` is current median / baseline median.
    Regressed { ratio: f64 },
    /// The median is slower beyond the tolerance, but the intervals overlap: the spread is too wide to
    /// tell a regression from noise.
    TooNoisy { ratio: f64 },
}

/// The value at fraction `q` (0..=1) of sorted, non-empty `v`, interpolated between closest ranks.
fn quantile(v: &[f64], q: f64) -> f64 {
    let pos = q * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

impl Summary {
    /// The summary of `samples` after Tukey trimming; `None` when there is no finite sample. Non-finite
    /// values are dropped (a profiler that printed `inf` measured nothing).
    pub fn of(samples: &[f64]) -> Option<Summary> {
        let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let (q1, q3) = (quantile(&v, 0.25), quantile(&v, 0.75));
        let iqr = q3 - q1;
        let (lo, hi) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
        let kept: Vec<f64> = v.iter().copied().filter(|x| *x >= lo && *x <= hi).collect();
        // The fences keep the middle half, unless the spread overflowed (samples near +-f64::MAX make
        // the IQR infinite minus infinite): then nothing is trimmed.
        let kept = if kept.is_empty() { v } else { kept };
        Some(Summary {
            n: kept.len(),
            median: quantile(&kept, 0.5),
            p20: quantile(&kept, 0.2),
            p80: quantile(&kept, 0.8),
            min: kept[0],
            max: kept[kept.len() - 1],
        })
    }

    /// One exact value (a modelled latency, or a lock written before samples were kept).
    pub fn point(value: f64) -> Summary {
        Summary {
            n: 1,
            median: value,
            p20: value,
            p80: value,
            min: value,
            max: value,
        }
    }

    /// The p20..p80 spread relative to the median (0 for a point).
    pub fn relative_spread(&self) -> f64 {
        if self.median > 0.0 {
            (self.p80 - self.p20) / self.median
        } else {
            0.0
        }
    }
}

/// Compares `current` with `baseline`; `tolerance` is a fraction (0.05 for 5%). Regressed only when the
/// median ratio exceeds `1 + tolerance` and the p20..p80 intervals do not overlap (current's p20 above
/// baseline's p80); when the ratio exceeds it but they overlap, TooNoisy. Improved is the mirror image
/// (ratio below `1 - tolerance`, current's p80 below baseline's p20). Single-value summaries are points,
/// so two exact values compare by the tolerance alone.
pub fn compare(baseline: &Summary, current: &Summary, tolerance: f64) -> Verdict {
    // Nothing to scale against (a zero, negative or NaN baseline): only a clear separation speaks.
    if baseline.median.is_nan() || baseline.median <= 0.0 {
        return if current.p20 > baseline.p80 {
            Verdict::Regressed {
                ratio: f64::INFINITY,
            }
        } else {
            Verdict::Ok
        };
    }
    let ratio = current.median / baseline.median;
    if ratio > 1.0 + tolerance {
        if current.p20 > baseline.p80 {
            Verdict::Regressed { ratio }
        } else {
            Verdict::TooNoisy { ratio }
        }
    } else if ratio < 1.0 - tolerance && current.p80 < baseline.p20 {
        Verdict::Improved
    } else {
        Verdict::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[f64]) -> Summary {
        Summary::of(v).unwrap()
    }

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let sum = s(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(sum.n, 5);
        assert_eq!(sum.median, 3.0);
        // 0.2 * 4 = 0.8 of the way from 1 to 2; 0.8 * 4 = 3.2, 0.2 of the way from 4 to 5.
        assert!((sum.p20 - 1.8).abs() < 1e-12, "{sum:?}");
        assert!((sum.p80 - 4.2).abs() < 1e-12, "{sum:?}");
        assert_eq!((sum.min, sum.max), (1.0, 5.0));
        assert_eq!(s(&[4.0, 2.0]).median, 3.0);
    }

    #[test]
    fn an_outlier_beyond_the_fences_is_trimmed() {
        // q1 = 10.1, q3 = 10.3 (IQR 0.2): the fences are 9.8 and 10.6; 25.0 is out.
        let v = [10.0, 10.1, 10.2, 10.3, 10.4, 25.0, 10.2, 10.1, 10.3];
        let sum = s(&v);
        assert_eq!(sum.n, 8, "{sum:?}");
        assert_eq!(sum.max, 10.4);
        assert_eq!(sum.median, 10.2);
        // Without trimming the maximum would be 25.
        let all = s(&[10.0, 25.0]);
        assert_eq!((all.n, all.max), (2, 25.0));
    }

    #[test]
    fn samples_at_the_ends_of_the_float_range_are_summarised_untrimmed() {
        let sum = s(&[-f64::MAX, f64::MAX]);
        assert_eq!((sum.n, sum.min, sum.max), (2, -f64::MAX, f64::MAX));
    }

    #[test]
    fn no_finite_sample_is_no_summary_and_non_finite_ones_are_dropped() {
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(Summary::of(&[f64::NAN, f64::INFINITY]), None);
        assert_eq!(s(&[f64::NAN, 7.0]), Summary::point(7.0));
    }

    #[test]
    fn a_clear_slowdown_beyond_the_tolerance_is_a_regression() {
        let base = s(&[10.0, 10.1, 10.2, 9.9, 10.0, 10.1]);
        let now = s(&[12.0, 12.1, 11.9, 12.2, 12.0, 12.1]);
        match compare(&base, &now, 0.05) {
            Verdict::Regressed { ratio } => {
                assert!((ratio - 12.05 / 10.05).abs() < 1e-9, "{ratio}")
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn a_real_but_small_slowdown_within_the_tolerance_is_ok() {
        // Separated intervals (3% slower, every sample), but the tolerance is 5%.
        let base = s(&[10.0, 10.0, 10.01, 9.99]);
        let now = s(&[10.3, 10.3, 10.31, 10.29]);
        assert_eq!(compare(&base, &now, 0.05), Verdict::Ok);
        // With a 1% tolerance the same data is a regression.
        assert!(matches!(
            compare(&base, &now, 0.01),
            Verdict::Regressed { .. }
        ));
    }

    #[test]
    fn a_median_past_the_tolerance_with_overlapping_spread_is_too_noisy() {
        let base = s(&[8.0, 9.0, 10.0, 11.0, 12.0, 10.0]);
        let now = s(&[9.0, 10.5, 11.5, 12.5, 13.5, 11.0]);
        match compare(&base, &now, 0.05) {
            Verdict::TooNoisy { ratio } => assert!((ratio - 11.25 / 10.0).abs() < 1e-9, "{ratio}"),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn a_clear_speedup_is_improved_and_a_noisy_one_is_ok() {
        let base = s(&[10.0, 10.1, 9.9, 10.0]);
        assert_eq!(
            compare(&base, &s(&[8.0, 8.1, 7.9, 8.0]), 0.05),
            Verdict::Improved
        );
        assert_eq!(
            compare(&base, &s(&[6.0, 8.0, 10.5, 10.2]), 0.05),
            Verdict::Ok
        );
    }

    #[test]
    fn exact_points_compare_by_the_tolerance_alone() {
        let base = Summary::point(10.0);
        assert!(matches!(
            compare(&base, &Summary::point(10.6), 0.05),
            Verdict::Regressed { ratio } if (ratio - 1.06).abs() < 1e-12
        ));
        assert_eq!(compare(&base, &Summary::point(10.4), 0.05), Verdict::Ok);
        assert_eq!(
            compare(&base, &Summary::point(9.0), 0.05),
            Verdict::Improved
        );
    }

    #[test]
    fn a_zero_baseline_regresses_only_on_a_clear_separation() {
        let zero = Summary::point(0.0);
        assert!(matches!(
            compare(&zero, &Summary::point(1.0), 0.05),
            Verdict::Regressed { ratio } if ratio.is_infinite()
        ));
        assert_eq!(compare(&zero, &Summary::point(0.0), 0.05), Verdict::Ok);
    }

    #[test]
    fn relative_spread_is_the_p20_p80_width_over_the_median() {
        let sum = s(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!((sum.relative_spread() - 2.4 / 3.0).abs() < 1e-12);
        assert_eq!(Summary::point(5.0).relative_spread(), 0.0);
    }
}
