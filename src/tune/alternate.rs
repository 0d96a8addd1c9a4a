//! `loop`, the alternating strategy: a host phase (the evolutionary search over tiling parameters) and a
//! kernel phase take turns until the budget is spent or nothing improves. The kernel phase asks the bank
//! for the motifs that fit the kernel's current bottleneck, applies the best-ranked one to the best
//! variant so far, and re-tunes the host parameters briefly around the best point (a rewrite changes which
//! tiling is best); a rewrite is kept only if its best verified trial beats the current best, or, for a
//! rewrite that only relaxes synchronisation, matches it (it frees pipes a later rewrite may overlap). A
//! rewrite that reshapes tiles is first measured at the points it opens next to the best one. A rewrite
//! not kept alone has the motifs it unlocks (`Motif::unlocks`: a deeper queue, the wait it lets move
//! one tile later) tried on top of it as one step, since neither gains without the other. When no
//! motif is left, an external rewriter (if the manifest names one) gets a turn. Finishing motifs (a UB
//! layout polish planned at one tiling, `Motif::finishes`) are tried once the tiling is settled, at the
//! best point, from trials kept back for them. The last trials set the
//! best point's changed tunables back one at a time (ablation), so a change that bought nothing is not
//! written back. Every candidate goes through the runner, so budget, journal and verification are the
//! same as for any trial.

use super::Runner;
use super::variant::Variant;
use crate::backend::{FailureKind, Measurement};
use crate::bank::{Profile, retrieve};
use crate::errors::Result;
use crate::manifest::{Manifest, OpSpec};
use crate::model::soc::Soc;
use crate::rewrite;
use crate::rewrite::motif::Guide;
use crate::search;
use crate::space::Point;
use std::collections::HashSet;
use std::path::Path;

/// What the loop needs to know of the op besides the runner.
pub struct Context<'a> {
    pub manifest: &'a Manifest,
    pub op: &'a OpSpec,
    pub soc: &'static Soc,
    pub work: &'a Path,
    pub baseline: &'a Measurement,
}

/// Share of the budget the first host phase gets; the rest goes to rewrites and their re-tunes, and what
/// they leave to a last host phase on the best variant.
const FIRST_HOST_SHARE: f64 = 0.375;
/// Trials of the short host re-tune around the best point after a rewrite passes its probe (or when the
/// probe fails, to look for a tiling the rewritten kernel accepts: a deeper queue may not fit UB).
const RETUNE_TRIALS: usize = 4;
/// Trials a rewrite that reshapes tiles spends first on the points next to the best one that it opens
/// (valid now, excluded by the old kernel's constraints): where such a rewrite's gain lies.
const OPENED_TRIALS: usize = 3;
/// A rewrite is kept when it makes the best trial at least this much faster.
const KEEP_IF_FASTER: f64 = 0.995;

/// The best so far: variant, point and latency, and the profile retrieval compares lessons with.
struct Current {
    variant: Variant,
    point: Option<Point>,
    latency_us: f64,
    profile: Profile,
    /// The UB layout of the best trial's run (guided motifs plan from it).
    ub_use: Option<std::sync::Arc<crate::model::ub_layout::UbUse>>,
    /// The best trial was served from the journal of an earlier run, which keeps no UB layout: it is
    /// run once more (`ranking`) before a guided motif plans from it.
    ub_use_pending: bool,
}

pub fn run(runner: &mut Runner, cx: &Context, start: Variant) -> Result<()> {
    let budget = runner.budget;
    let seed = runner.seed;
    let first = ((budget as f64 * FIRST_HOST_SHARE).round() as usize)
        .max(8)
        .min(budget);
    let point = start.space.current();
    runner.search(
        &start,
        search::by_name("host", first)?,
        first,
        seed,
        point.clone(),
    )?;
    let mut current = Current {
        variant: start.clone(),
        point,
        latency_us: cx.baseline.latency_us,
        profile: Profile::of(cx.baseline),
        ub_use: cx.baseline.ub_use.clone(),
        ub_use_pending: false,
    };
    update_from_best(runner, &mut current);

    // Trials kept back for the finishing motifs, tried once the tiling is settled (`finish`); the
    // phases and the last host search see a budget that much smaller.
    let mut finish_reserve = FINISH_TRIALS.min(runner.remaining());
    runner.budget -= finish_reserve;
    let mut tried: HashSet<(String, Vec<String>)> = HashSet::new();
    // A motif that cannot be applied (say it would change a tunable) is reported once, not every pass.
    let mut reported_skips: HashSet<&'static str> = HashSet::new();
    let mut round = 0u64;
    'phases: while runner.remaining() > 0 {
        // What the best run so far shows that guided motifs act on (its UB layout): a plan made at
        // another tiling would move other buffers.
        let (guide, ranked) = ranking(runner, cx, &mut current);
        let mut improved = false;
        for candidate in ranked {
            if runner.remaining() == 0 {
                break 'phases;
            }
            if candidate.motif.finishes() {
                continue;
            }
            let name = candidate.motif.name();
            if !tried.insert((name.to_string(), current.variant.rewrites.clone())) {
                continue;
            }
            let variant = match current.variant.with_motif(
                candidate.motif,
                cx.manifest,
                cx.op,
                cx.soc,
                Some(&guide),
            ) {
                Ok(v) => v,
                Err(why) => {
                    if reported_skips.insert(name) {
                        runner.rewrite_outcome(name, format!("skipped: {why}"));
                    }
                    continue;
                }
            };
            round += 1;
            let found = try_variant(
                runner,
                &variant,
                &current,
                seed.wrapping_add(round),
                candidate.motif.reshapes_tiles(),
            )?;
            let verdict = Verdict::of(
                current.latency_us,
                found.as_ref().map(|(_, l)| *l),
                candidate.motif.relaxes_sync(),
            );
            runner.rewrite_outcome(name, verdict.outcome(current.latency_us));
            if verdict.keeps() {
                adopt(runner, &mut current, variant);
                improved = true;
                if matches!(verdict, Verdict::Faster(_)) {
                    // The bottleneck moved: rank again for the new kernel.
                    break;
                }
                // A kept relaxation leaves the profile as it was: go on down the ranking, and the
                // next pass tries again, on the relaxed kernel, what was dropped before it.
            } else if try_unlocked(
                runner,
                cx,
                &mut current,
                &variant,
                candidate.motif,
                &guide,
                &mut round,
            )? {
                improved = true;
                break;
            }
        }
        if !improved && !external_turn(runner, cx, &mut current, &mut round)? {
            break;
        }
    }
    // No finish ranked for the best so far: its trials go back to the last host search rather than
    // being held back for nothing.
    if finish_reserve > 0 && !finish_ranked(runner, cx, &mut current) {
        runner.budget += finish_reserve;
        finish_reserve = 0;
    }
    // What is left goes to the host search on the best variant, starting from its best point, but for
    // a few trials kept back to set the best point's changed tunables back one at a time.
    let left = runner.remaining();
    let kept_back = changed_tunables(&current)
        .len()
        .min(ABLATION_TRIALS)
        .min(left);
    if left > kept_back {
        round += 1;
        runner.search(
            &current.variant,
            search::local(left - kept_back),
            left - kept_back,
            seed.wrapping_add(round),
            current.point.clone(),
        )?;
        update_from_best(runner, &mut current);
    }
    runner.budget += finish_reserve;
    finish(runner, cx, &mut current, seed.wrapping_add(round + 1))?;
    ablate(runner, &current, seed.wrapping_add(round + 1))?;
    // Trials the ablation did not need (its points were measured already, or broke a constraint) go
    // back to the host search, so the run spends its budget.
    let left = runner.remaining();
    if left > 0 {
        runner.search(
            &current.variant,
            search::local(left),
            left,
            seed.wrapping_add(round + 2),
            current.point.clone(),
        )?;
    }
    Ok(())
}

/// The guide of the guided motifs from the best run so far (of `current.variant`'s sources): the UB
/// offsets that take the bank conflicts of its binary vector instructions away (`model::ub_layout`),
/// and the speedup they predict: the vector pipe's cycles the plan saves on a core, counted in the
/// latency as far as the vector pipe is busy (a kernel whose vector work hides behind its copies gains
/// less).
fn guide_of(current: &Current, soc: &Soc) -> Guide {
    let mut guide = Guide::default();
    let Some(plan) = current
        .ub_use
        .as_ref()
        .and_then(|u| u.plan(soc, soc.ub_bytes))
    else {
        return guide;
    };
    guide.ub_offsets = rewrite::motifs::ub_bank_offset::offsets(&plan, &current.variant.sources);
    if !guide.ub_offsets.is_empty() {
        let saved_us = (plan.conflict_cycles - plan.planned_cycles) / (soc.clock_ghz * 1e3);
        let vector = current
            .profile
            .pipes
            .get("aiv_vec_ratio")
            .copied()
            .unwrap_or(0.0);
        let l = current.latency_us;
        let after = (l - saved_us * vector).max(l * 0.5);
        guide
            .predicted_gain
            .insert("ub-bank-offset".into(), l / after);
    }
    guide
}

/// Applies the finishing motifs (`Motif::finishes`) the bank ranks for the best variant, planned from
/// its best run, and measures each at the best point (one trial, kept when faster) while the trials
/// kept back for them last. The tiling is settled by then, so the UB such a motif takes shuts nothing
/// out that the search would still have tried.
fn finish(runner: &mut Runner, cx: &Context, current: &mut Current, seed: u64) -> Result<()> {
    let (guide, ranked) = ranking(runner, cx, current);
    for candidate in ranked.into_iter().filter(|c| c.motif.finishes()) {
        if runner.remaining() == 0 {
            break;
        }
        let name = candidate.motif.name();
        let variant = match current.variant.with_motif(
            candidate.motif,
            cx.manifest,
            cx.op,
            cx.soc,
            Some(&guide),
        ) {
            Ok(v) => v,
            Err(why) => {
                runner.rewrite_outcome(name, format!("skipped: {why}"));
                continue;
            }
        };
        let found = runner.search(&variant, search::local(1), 1, seed, current.point.clone())?;
        let verdict = Verdict::of(current.latency_us, found.as_ref().map(|(_, l)| *l), false);
        runner.rewrite_outcome(name, verdict.outcome(current.latency_us));
        if verdict.keeps() {
            adopt(runner, current, variant);
            // The kept layout moved the buffers another finish was planned around.
            break;
        }
    }
    Ok(())
}

/// Whether the bank ranks a finishing motif for the best variant so far (its plan has sites there).
fn finish_ranked(runner: &Runner, cx: &Context, current: &mut Current) -> bool {
    ranking(runner, cx, current)
        .1
        .iter()
        .any(|c| c.motif.finishes())
}

/// The motifs the bank ranks for the best variant so far, with the guide (planned from its best run:
/// a plan made at another tiling would move other buffers) that guided motifs among them act on. A
/// best trial the journal served is run once more first, for the UB layout the journal does not keep:
/// without it a repeated `tune` would plan nothing and find less than the first.
fn ranking(
    runner: &Runner,
    cx: &Context,
    current: &mut Current,
) -> (Guide, Vec<retrieve::Candidate>) {
    if current.ub_use_pending {
        current.ub_use_pending = false;
        if let Some(point) = &current.point {
            current.ub_use = runner.ub_use_at(&current.variant, point);
        }
    }
    let guide = guide_of(current, cx.soc);
    let ranked = retrieve::rank_in(
        &runner.bank,
        &current.variant.rewrite_targets(cx.op),
        &current.profile,
        Some(&guide),
    );
    (guide, ranked)
}

/// Trials the loop keeps back for the finishing motifs (`finish`).
const FINISH_TRIALS: usize = 1;

/// Trials at most that the loop keeps back for `ablate`.
const ABLATION_TRIALS: usize = 3;

/// The tunables (indices) the current best point has moved from the sources' values.
fn changed_tunables(current: &Current) -> Vec<usize> {
    match (&current.point, current.variant.space.current()) {
        (Some(point), Some(original)) => (0..original.len())
            .filter(|&i| point.get(i) != original.get(i))
            .collect(),
        _ => vec![],
    }
}

/// Measures the current best point with each tunable it changed set back to the sources' value (with
/// one other changed tunable too, when a derived agreement ties the two), on the same (kept) variant,
/// while the budget lasts. A tunable whose change bought nothing then has a candidate as fast and
/// closer to the sources, which write-back prefers (`TuneResult::improvement`): the search moves
/// several tunables at once, and a neutral one rides along with the one that gains (silu_mul's
/// LENGTH_1024 went to 65536).
fn ablate(runner: &mut Runner, current: &Current, seed: u64) -> Result<()> {
    let (Some(best), Some(original)) = (&current.point, current.variant.space.current()) else {
        return Ok(());
    };
    let variant = &current.variant;
    let changed = changed_tunables(current);
    for &i in &changed {
        if runner.remaining() == 0 {
            break;
        }
        let back = |others: &[usize]| {
            let mut p = best.clone();
            for &j in others.iter().chain([&i]) {
                p[j] = original[j];
            }
            p
        };
        let point = std::iter::once(back(&[]))
            .chain(changed.iter().filter(|&&j| j != i).map(|&j| back(&[j])))
            .find(|p| variant.space.check(p).is_ok());
        let Some(point) = point else { continue };
        let known = runner
            .measured
            .iter()
            .any(|(rewrites, p)| *rewrites == variant.rewrites && *p == point);
        if !known {
            runner.search(variant, search::local(1), 1, seed, Some(point))?;
        }
    }
    Ok(())
}

/// Gives the external rewriter one turn on the current best variant, if the manifest names one and it
/// has turns left. Returns whether its kernel was kept. A call that fails costs one trial.
fn external_turn(
    runner: &mut Runner,
    cx: &Context,
    current: &mut Current,
    round: &mut u64,
) -> Result<bool> {
    let Some(command) = runner.rewriter.clone() else {
        return Ok(false);
    };
    // Turns taken so far: every trial of a rewriter's kernel, and a failed call, names its turn.
    let used = runner
        .trials
        .iter()
        .flat_map(|t| t.rewrites.iter())
        .filter(|r| r.starts_with("rewriter#"))
        .collect::<HashSet<_>>()
        .len() as u32;
    if used >= runner.rewriter_attempts || runner.remaining() == 0 {
        return Ok(false);
    }
    let Some(file) = cx.op.kernel.first() else {
        return Ok(false);
    };
    let kernels = current.variant.kernels(cx.op);
    let ranked = retrieve::rank(&runner.bank, &kernels, &current.profile);
    let lessons: Vec<(&str, &str, f64, &str)> = ranked
        .iter()
        .flat_map(|c| {
            c.evidence
                .iter()
                .take(1)
                .map(move |l| (c.motif.name(), c.motif.summary(), l.gain, l.diff.as_str()))
        })
        .take(3)
        .collect();
    let busy: Vec<String> = current
        .profile
        .pipes
        .iter()
        .filter(|(_, r)| **r > 0.05)
        .map(|(k, r)| format!("{k} {r:.2}"))
        .collect();
    let profile = format!(
        "{:.3} us ({}), {}-bound; busy pipes: {}",
        current.latency_us,
        crate::report::provenance(cx.baseline.modelled),
        current.profile.bound,
        busy.join(", ")
    );
    let n = used + 1;
    let name = format!("rewriter#{n}");
    let prompt = rewrite::external::Prompt {
        op: &cx.op.name,
        file,
        kernel: &kernels[file],
        profile: &profile,
        lessons,
    };
    let dir = cx
        .work
        .join("rewriter")
        .join(&cx.op.name)
        .join(n.to_string());
    let answer = rewrite::external::run(
        &command,
        &cx.manifest.root,
        &dir,
        &prompt,
        rewrite::external::limit(),
    );
    let variant = answer.and_then(|text| {
        let mut sources = (*current.variant.sources).clone();
        sources.insert(file.clone(), text);
        current
            .variant
            .rebound(sources, name.clone(), cx.manifest, cx.op, cx.soc)
    });
    let variant = match variant {
        Ok(v) => v,
        Err(why) => {
            let mut rewrites = current.variant.rewrites.clone();
            rewrites.push(name.clone());
            runner.rewrite_outcome(&name, format!("failed: {why}"));
            runner.record_failure(rewrites, FailureKind::Rewrite, why)?;
            return Ok(true); // a failed turn is spent; the next pass may try again
        }
    };
    *round += 1;
    let seed = runner.seed.wrapping_add(*round);
    // Whatever the rewriter changed, it may have changed the best tiling too.
    let found = try_variant(runner, &variant, current, seed, true)?;
    match found {
        Some((_, l)) if l < current.latency_us * KEEP_IF_FASTER => {
            runner.rewrite_outcome(
                &name,
                format!("kept: {:.3} -> {l:.3} us", current.latency_us),
            );
            adopt(runner, current, variant);
        }
        other => {
            let why = other.map_or("no trial of it passed".to_string(), |(_, l)| {
                format!("{l:.3} us")
            });
            runner.rewrite_outcome(&name, format!("dropped: {why}"));
        }
    }
    Ok(true)
}

/// What the loop makes of a rewrite, from its best verified trial (None: no trial of it passed).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Verdict {
    Faster(f64),
    /// A relaxation of synchronisation, no slower: kept for what it may enable.
    NoSlowerRelaxation(f64),
    Slower(f64),
    Failed,
}

impl Verdict {
    fn of(best_us: f64, found_us: Option<f64>, relaxes_sync: bool) -> Verdict {
        match found_us {
            None => Verdict::Failed,
            Some(l) if l < best_us * KEEP_IF_FASTER => Verdict::Faster(l),
            Some(l) if relaxes_sync && l <= best_us => Verdict::NoSlowerRelaxation(l),
            Some(l) => Verdict::Slower(l),
        }
    }

    fn keeps(self) -> bool {
        matches!(self, Verdict::Faster(_) | Verdict::NoSlowerRelaxation(_))
    }

    fn outcome(self, best_us: f64) -> String {
        match self {
            Verdict::Faster(l) => format!("kept: {best_us:.3} -> {l:.3} us"),
            Verdict::NoSlowerRelaxation(l) => {
                format!(
                    "kept: {l:.3} us, no slower, and it frees pipes a later rewrite may overlap"
                )
            }
            Verdict::Slower(l) => format!("dropped: {l:.3} us, best stays {best_us:.3} us"),
            Verdict::Failed => "dropped: no trial of it passed".to_string(),
        }
    }
}

/// Tries each motif that `motif` unlocks (`Motif::unlocks`) on top of `variant` (`motif` applied,
/// not kept alone) as one rewrite: applied together, re-tuned as a tile reshape, and kept only when
/// faster than the best so far. Returns whether one was kept.
fn try_unlocked(
    runner: &mut Runner,
    cx: &Context,
    current: &mut Current,
    variant: &Variant,
    motif: &dyn rewrite::motif::Motif,
    guide: &Guide,
    round: &mut u64,
) -> Result<bool> {
    for &follow in motif.unlocks() {
        if runner.remaining() == 0 {
            return Ok(false);
        }
        let Some(next) = rewrite::motifs::by_name(follow) else {
            continue;
        };
        let Ok(pair) = variant.with_motif(next, cx.manifest, cx.op, cx.soc, Some(guide)) else {
            continue;
        };
        *round += 1;
        let found = try_variant(
            runner,
            &pair,
            current,
            runner.seed.wrapping_add(*round),
            true,
        )?;
        let verdict = Verdict::of(current.latency_us, found.as_ref().map(|(_, l)| *l), false);
        runner.rewrite_outcome(
            &format!("{} + {follow}", motif.name()),
            verdict.outcome(current.latency_us),
        );
        if verdict.keeps() {
            adopt(runner, current, pair);
            return Ok(true);
        }
    }
    Ok(false)
}

/// Measures a rewritten variant: first at the current best point (one trial). A rewrite that works but
/// is slower there is dropped at that cost, unless it reshapes tiles (then only a re-tune can judge
/// it: it first measures the best point with the UB split the host search owns doubled, then the
/// points next to the best one that the rewrite opens); one that is faster
/// gets a short re-tune around the point; one whose probe fails gets the re-tune to find a tiling it
/// accepts. Returns its best verified trial.
fn try_variant(
    runner: &mut Runner,
    variant: &Variant,
    current: &Current,
    seed: u64,
    reshapes_tiles: bool,
) -> Result<Option<(Point, f64)>> {
    let probe = runner.search(variant, search::local(1), 1, seed, current.point.clone())?;
    if let Some((_, l)) = &probe
        && *l >= current.latency_us * KEEP_IF_FASTER
        && !reshapes_tiles
    {
        return Ok(probe);
    }
    let mut best = probe;
    if reshapes_tiles
        && let Some(halved) = current
            .point
            .as_ref()
            .and_then(|p| ub_split_doubled(&variant.space.tunables, p))
    {
        // The host companion's step taken through the tunable that owns the UB split: twice the
        // buffers in half the UB each (a deeper queue at the old split overflows the UB).
        let split = runner.search(variant, search::local(1), 1, seed, Some(halved))?;
        best = better(best, split);
    }
    if reshapes_tiles {
        let opened = runner.search(
            variant,
            search::opened(current.variant.space.clone(), OPENED_TRIALS),
            OPENED_TRIALS,
            seed,
            current.point.clone(),
        )?;
        best = better(best, opened);
    }
    let start = best
        .as_ref()
        .map(|(p, _)| p.clone())
        .or(current.point.clone());
    let retuned = runner.search(
        variant,
        search::local_beside(RETUNE_TRIALS),
        RETUNE_TRIALS,
        seed,
        start,
    )?;
    Ok(better(best, retuned))
}

/// `point` with every `ub-parts-of` tunable (the UB split the host search owns) at twice its value,
/// when that value is in its domain: where a rewrite that deepens the queues has its tiles fit.
fn ub_split_doubled(tunables: &[crate::space::Tunable], point: &Point) -> Option<Point> {
    let mut out = point.clone();
    for (dim, t) in tunables.iter().enumerate() {
        if t.site.divides.is_none() {
            continue;
        }
        let now = t.domain.value(*point.get(dim)?);
        if let Some(i) = now.checked_mul(2).and_then(|v| t.domain.index_of(v)) {
            out[dim] = i;
        }
    }
    (out != *point).then_some(out)
}

/// The faster of two search results.
fn better(a: Option<(Point, f64)>, b: Option<(Point, f64)>) -> Option<(Point, f64)> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.1 < a.1 { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Makes a kept rewrite the current variant. Its best trial beat the best so far, so it is the
/// runner's overall best, which supplies the point, latency and profile.
fn adopt(runner: &mut Runner, current: &mut Current, variant: Variant) {
    runner.accept(&variant);
    current.variant = variant;
    update_from_best(runner, current);
}

/// Takes the runner's overall best as the current best when it is the current variant's.
fn update_from_best(runner: &Runner, current: &mut Current) {
    let Some(best) = &runner.best else { return };
    let (Some(l), Some(profile)) = (best.trial.latency_us, Profile::of_trial(&best.trial)) else {
        return;
    };
    if l <= current.latency_us && best.variant.rewrites == current.variant.rewrites {
        current.point = Some(best.point.clone());
        current.latency_us = l;
        current.profile = profile;
        // The layout of this run, never an earlier best's: a plan made at another tiling or on
        // another variant would move other buffers.
        current.ub_use = best.trial.ub_use.clone();
        current.ub_use_pending = best.from_journal;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_is_kept_when_faster_and_a_relaxation_when_no_slower() {
        assert_eq!(Verdict::of(10.0, Some(9.0), false), Verdict::Faster(9.0));
        // Within half a percent is noise for an ordinary rewrite, and not enough to keep it.
        assert_eq!(Verdict::of(10.0, Some(9.96), false), Verdict::Slower(9.96));
        assert_eq!(Verdict::of(10.0, Some(10.0), false), Verdict::Slower(10.0));
        // A relaxation of synchronisation that costs nothing is kept for what it may enable.
        assert_eq!(
            Verdict::of(10.0, Some(10.0), true),
            Verdict::NoSlowerRelaxation(10.0)
        );
        assert!(Verdict::of(10.0, Some(10.0), true).keeps());
        assert_eq!(Verdict::of(10.0, Some(10.01), true), Verdict::Slower(10.01));
        assert_eq!(Verdict::of(10.0, None, true), Verdict::Failed);
        assert!(!Verdict::Failed.keeps() && !Verdict::Slower(1.0).keeps());
        assert_eq!(
            Verdict::of(10.0, Some(10.0), true).outcome(10.0),
            "kept: 10.000 us, no slower, and it frees pipes a later rewrite may overlap"
        );
    }

    /// A deeper queue at the old UB split overflows the UB: its first trial after the current point is
    /// that point with the UB split the host search owns doubled (truncate_div's depth-1 queues failed
    /// at `ub_parts = 1` and the search wandered off to `ub_parts = 6` before).
    #[test]
    fn a_deeper_queue_is_tried_first_with_the_ub_split_doubled() {
        use crate::space::binding::{Divides, Site};
        use crate::space::{Domain, Tunable};
        let tunable = |name: &str, domain: Domain, value: i64, ub: bool| Tunable {
            name: name.into(),
            domain,
            site: Site {
                file: "op_host/t.cpp".into(),
                range: 0..1,
                value,
                radix: 10,
                line: 1,
                divides: ub.then(|| Divides {
                    var: "ubSize".into(),
                    indent: "    ".into(),
                }),
            },
        };
        let tunables = [
            tunable(
                "min_per_core",
                Domain::pow2(16, 65536).unwrap(),
                1024,
                false,
            ),
            tunable("ub_parts", Domain::range(1, 8, 1).unwrap(), 1, true),
        ];
        // min_per_core = 1024 (index 6), ub_parts = 1 (index 0) -> ub_parts = 2, the other kept.
        assert_eq!(ub_split_doubled(&tunables, &vec![6, 0]), Some(vec![6, 1]));
        assert_eq!(ub_split_doubled(&tunables, &vec![6, 3]), Some(vec![6, 7]));
        // Twice the split outside its domain, or no UB split at all: nothing to try.
        assert_eq!(ub_split_doubled(&tunables, &vec![6, 4]), None);
        assert_eq!(ub_split_doubled(&tunables[..1], &vec![6]), None);
    }
}
