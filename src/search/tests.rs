//! One conformance test that runs every strategy against a synthetic objective (no building, no running),
//! plus the properties each must keep: no duplicates, no invalid points, reproducible by seed.

use super::*;
use crate::space::{Constraint, Domain, Site, Space, Tunable};
use std::collections::BTreeMap;

fn space() -> Space {
    let tunable = |name: &str, domain: Domain| Tunable {
        name: name.into(),
        domain,
        site: Site {
            file: "k.cpp".into(),
            range: 0..1,
            value: 1,
            radix: 10,
            line: 1,
        },
    };
    let facts: BTreeMap<String, i64> = [("x_elems".to_string(), 786432)].into();
    let constraints = vec![
        Constraint::compile(
            "x_elems % (block_dim * tile) == 0",
            &["block_dim", "tile"],
            &facts,
        )
        .unwrap(),
    ];
    Space {
        tunables: vec![
            tunable(
                "block_dim",
                Domain::list(vec![1, 2, 4, 8, 12, 16, 24, 32, 40, 48]).unwrap(),
            ),
            tunable("tile", Domain::pow2(32, 32768).unwrap()),
            tunable("buffers", Domain::range(1, 2, 1).unwrap()),
        ],
        constraints,
        derived: vec![],
        facts,
    }
}

/// A made-up latency surface with one best point (48, 8192, 2).
fn objective(space: &Space, p: &Point) -> Option<f64> {
    let v = space.values(p);
    let (b, t, n) = (v["block_dim"] as f64, v["tile"] as f64, v["buffers"] as f64);
    if t > 16384.0 {
        return None; // "UB overflow"
    }
    let per_tile = 0.3 + t / 40_000.0 / n;
    Some(786432.0 / b / t * per_tile + (8192.0f64.log2() - t.log2()).abs() * 0.01)
}

fn drive(name: &str, budget: usize, seed: u64) -> Vec<(Point, Option<f64>)> {
    let space = space();
    let mut ctx = SearchContext::new(&space, seed).starting_at(Some(vec![3, 3, 0]));
    let mut s = by_name(name, budget).unwrap();
    let mut seen = vec![];
    while seen.len() < budget {
        let batch = s.propose(&mut ctx, budget - seen.len());
        if batch.is_empty() {
            break;
        }
        let results: Vec<Observation> = batch
            .iter()
            .map(|p| (p.clone(), objective(&space, p)))
            .collect();
        s.observe(&mut ctx, &results);
        seen.extend(results);
    }
    seen
}

#[test]
fn every_strategy_conforms() {
    for name in ["host", "random", "grid", "best-of-n"] {
        let space = space();
        let trials = drive(name, 40, 3);
        assert!(
            !trials.is_empty() && trials.len() <= 40,
            "{name}: {} trials",
            trials.len()
        );
        let mut uniq = std::collections::HashSet::new();
        for (p, _) in &trials {
            assert!(uniq.insert(p.clone()), "{name} proposed {p:?} twice");
            assert!(space.check(p).is_ok(), "{name} proposed invalid {p:?}");
        }
        assert_eq!(
            trials,
            drive(name, 40, 3),
            "{name} is not reproducible by seed"
        );
    }
}

#[test]
fn grid_covers_exactly_the_valid_points() {
    let space = space();
    let all = drive("grid", 10_000, 0);
    let valid = (0..10)
        .flat_map(|a| (0..11).flat_map(move |b| (0..2).map(move |c| vec![a, b, c])))
        .filter(|p| space.check(p).is_ok())
        .count();
    assert_eq!(all.len(), valid);
}

#[test]
fn evolutionary_beats_random_and_nears_the_grid_optimum() {
    let best = |t: &[(Point, Option<f64>)]| {
        t.iter()
            .filter_map(|(_, l)| *l)
            .fold(f64::INFINITY, f64::min)
    };
    let optimum = best(&drive("grid", 10_000, 0));
    let (mut ga, mut rnd) = (0.0, 0.0);
    const SEEDS: u64 = 40;
    for seed in 0..SEEDS {
        ga += (best(&drive("host", 32, seed)) / optimum).ln();
        rnd += (best(&drive("random", 32, seed)) / optimum).ln();
    }
    let (ga, rnd) = ((ga / SEEDS as f64).exp(), (rnd / SEEDS as f64).exp());
    assert!(
        ga < rnd,
        "evolutionary {ga:.3}x of optimum should beat random {rnd:.3}x"
    );
    // 32 trials on ~190 valid points; the host-search work raises this bar (within 2% at a quarter of the grid).
    assert!(
        ga < 1.5,
        "evolutionary reaches {ga:.3}x of the optimum with 32 trials"
    );
}
