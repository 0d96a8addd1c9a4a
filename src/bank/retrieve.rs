//! Retrieval: for a kernel and its current profile, the motifs that apply to it, ranked by the evidence in
//! the bank for similar bottlenecks. A lesson counts by how alike its slow profile is to the kernel's now
//! (same bound, close pipe ratios) times the log of the gain it recorded. Motifs that apply but have no
//! evidence still come back, after every motif with evidence, in catalogue order: the loop may try them
//! when the budget allows. Retrieval reads the bank and asks motifs for sites; it measures nothing.

use super::{Bank, Lesson, Profile};
use crate::rewrite::motif::{Direction, Guide, Motif, Scope, sites_in};
use crate::rewrite::motifs;
use std::collections::BTreeMap;

/// A motif worth trying on a kernel, with why.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub motif: &'static dyn Motif,
    /// Apply sites per kernel file (path relative to the project root).
    pub sites: BTreeMap<String, usize>,
    /// Evidence score (0 when the bank has no lesson for the motif).
    pub score: f64,
    /// Lessons that back the score, most similar first (at most three), for prompts and reports.
    pub evidence: Vec<Lesson>,
}

/// How alike two profiles are, in [0, 1]: 1 for the same bound and the same pipe ratios.
pub fn similarity(a: &Profile, b: &Profile) -> f64 {
    let bound = if a.bound == b.bound { 1.0 } else { 0.4 };
    let keys: std::collections::BTreeSet<&String> = a.pipes.keys().chain(b.pipes.keys()).collect();
    if keys.is_empty() {
        return bound;
    }
    let distance: f64 = keys
        .iter()
        .map(|k| {
            let x = a.pipes.get(*k).copied().unwrap_or(0.0);
            let y = b.pipes.get(*k).copied().unwrap_or(0.0);
            (x - y).abs().min(1.0)
        })
        .sum::<f64>()
        / keys.len() as f64;
    bound * (1.0 - distance)
}

/// The motifs that apply to `kernels` (file -> text), best evidence first.
pub fn rank(bank: &Bank, kernels: &BTreeMap<String, String>, now: &Profile) -> Vec<Candidate> {
    let files = kernels
        .iter()
        .map(|(f, t)| (f.clone(), (Scope::Kernel, t.clone())))
        .collect();
    rank_in(bank, &files, now, None)
}

/// `rank` over the files of both scopes (`Variant::rewrite_targets`): each motif's sites are counted in
/// the files of its own scope only, so a host motif never fires in a kernel nor a kernel motif in a
/// tiling function. A guided motif applies where `guide` says (nowhere without one), and scores by the
/// gain the guide predicts when that beats its lessons.
pub fn rank_in(
    bank: &Bank,
    files: &BTreeMap<String, (Scope, String)>,
    now: &Profile,
    guide: Option<&Guide>,
) -> Vec<Candidate> {
    let mut out = vec![];
    for motif in motifs::ALL.iter().copied() {
        let sites: BTreeMap<String, usize> = files
            .iter()
            .filter(|(_, (scope, _))| *scope == motif.scope())
            .map(|(f, (_, text))| {
                let n = sites_in(motif, text, f, Direction::Apply, guide).len();
                (f.clone(), n)
            })
            .filter(|(_, n)| *n > 0)
            .collect();
        if sites.is_empty() {
            continue;
        }
        let mut weighted: Vec<(f64, &Lesson)> = bank
            .lessons
            .iter()
            .filter(|l| l.motif == motif.name() && l.gain > 1.0)
            .map(|l| (similarity(now, &l.before), l))
            .collect();
        weighted.sort_by(|a, b| b.0.total_cmp(&a.0));
        // A similarity-weighted mean of log gains, damped when the evidence is thin.
        let weight: f64 = weighted.iter().map(|(s, _)| s).sum();
        let score = if weight > 0.0 {
            let mean = weighted.iter().map(|(s, l)| s * l.gain.ln()).sum::<f64>() / weight;
            mean * weight / (weight + 1.0)
        } else {
            0.0
        };
        let predicted = guide
            .and_then(|g| g.predicted_gain.get(motif.name()))
            .map_or(0.0, |g| g.max(1.0).ln());
        let score = score.max(predicted);
        out.push(Candidate {
            motif,
            sites,
            score,
            evidence: weighted
                .into_iter()
                .take(3)
                .map(|(_, l)| l.clone())
                .collect(),
        });
    }
    // Stable: ties keep catalogue order.
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(bound: &str, mte2: f64, v: f64) -> Profile {
        Profile {
            latency_us: 1.0,
            bound: bound.into(),
            pipes: BTreeMap::from([("aiv_mte2_ratio".into(), mte2), ("aiv_vec_ratio".into(), v)]),
        }
    }

    #[test]
    fn similar_bottlenecks_score_higher() {
        let mte2 = profile("mte2", 0.9, 0.2);
        assert!((similarity(&mte2, &mte2) - 1.0).abs() < 1e-12);
        let vector = profile("vector", 0.2, 0.9);
        assert!(similarity(&mte2, &vector) < 0.3);
        assert!(similarity(&mte2, &profile("mte2", 0.8, 0.3)) > 0.8);
    }

    #[test]
    fn ranks_applicable_motifs_by_evidence_for_the_bottleneck() {
        let (naive, _) = crate::rewrite::motif::testing::fixture_kernel("add_custom");
        let kernels = BTreeMap::from([("op_kernel/add_custom.cpp".to_string(), naive)]);
        let now = profile("mte2", 0.9, 0.1);
        let empty = Bank::default();
        let ranked = rank(&empty, &kernels, &now);
        let db = ranked
            .iter()
            .find(|c| c.motif.name() == "double-buffer")
            .expect("double-buffer applies to the naive add_custom");
        assert_eq!(db.score, 0.0);
        assert_eq!(db.sites["op_kernel/add_custom.cpp"], 1);

        let bank = Bank {
            lessons: vec![Lesson {
                motif: "double-buffer".into(),
                op: "other".into(),
                soc: "Ascend910B1".into(),
                backend: "twin".into(),
                modelled: true,
                shape: String::new(),
                file: "k.cpp".into(),
                line: 1,
                site: String::new(),
                gain: 1.8,
                before: profile("mte2", 0.85, 0.15),
                after: profile("mte2", 0.95, 0.3),
                diff: String::new(),
            }],
            source: "t".into(),
        };
        let ranked = rank(&bank, &kernels, &now);
        assert_eq!(ranked[0].motif.name(), "double-buffer");
        assert!(ranked[0].score > 0.0);
        assert_eq!(ranked[0].evidence.len(), 1);
    }

    /// A host motif is ranked on host files only, a kernel motif on kernel files only: the same UB
    /// query text counts for `ub-split-double-buffer` in a tiling function and not in a kernel.
    #[test]
    fn each_motif_is_ranked_on_the_files_of_its_scope() {
        let host = "void T(P p, uint64_t ub) {\n    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);\n}\n";
        let now = profile("mte2", 0.9, 0.1);
        let names = |files: &BTreeMap<String, (Scope, String)>| -> Vec<&'static str> {
            rank_in(&Bank::default(), files, &now, None)
                .iter()
                .map(|c| c.motif.name())
                .collect()
        };
        let as_host =
            BTreeMap::from([("op_host/t.cpp".to_string(), (Scope::Host, host.to_string()))]);
        assert_eq!(names(&as_host), vec!["ub-split-double-buffer"]);
        let as_kernel = BTreeMap::from([(
            "op_kernel/t.cpp".to_string(),
            (Scope::Kernel, host.to_string()),
        )]);
        assert!(!names(&as_kernel).contains(&"ub-split-double-buffer"));
    }
}
