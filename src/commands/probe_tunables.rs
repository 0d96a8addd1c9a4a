//! `init`'s trace probe: builds and runs an op once as it is and once with each offered tunable moved to
//! the next value of its domain, and compares what the runs did (the trace of every block, the block
//! count and the outputs). A literal whose change leaves all of that unchanged, at both neighbours and
//! at the domain's ends, decides nothing at the shape the manifest declares, so `init` does not offer
//! it. One whose change gives outputs that differ
//! from the op's own (beyond its tolerance), or fails, is moved the other way too: when neither
//! neighbour runs right it is a constant of the computation (a shift, a bound, a sentinel), not of the
//! tiling, and would only spend the tuning budget on wrong trials. When the values that run change
//! nothing and the others fail, it is a bound the tiling checks the shape against: left out too. Owns
//! only that comparison; knows
//! nothing of how tunables are discovered or how the manifest is written.

use crate::backend::{Backend, Measurement, SourceSet};
use crate::manifest::{Manifest, OpSpec};
use crate::space::binding;

/// What moving one tunable did.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The run differs and its outputs are still the op's: the literal decides something.
    Changed,
    /// Build, trace, block count and outputs are all the same.
    Unchanged,
    /// One neighbouring value fails to build or run, or gives other outputs, and the other one (if
    /// any) was not tried or works: the literal matters (kept, with why).
    Fails(String),
    /// Every neighbouring value tried fails or gives other outputs: not a tiling parameter.
    NoOtherValueRuns(String),
    /// The neighbouring values that run leave it all unchanged, and the others fail or give other
    /// outputs: a bound the tiling checks (`lastDimSize > LENGTH_1024` is an error), not a tiling
    /// parameter; moving it could only fail or do nothing.
    Limit(String),
    /// No build of the op reads the tunable's file for this SoC (a header another SoC's kernel
    /// includes): a value written there would never be built, run or checked.
    NotRead,
    /// The probe's time ran out before this tunable: nothing is known, so it is kept.
    NotReached,
    /// No other value of this kernel constant runs alone, but one does moved together with the host
    /// constant `symbol` of `file`, which holds the same value under another name: the host sizes the
    /// work by it (ops-cv's stack_group_points: the kernel's `BYTE_SIZE = 16` elements per pass, the
    /// host's `NUM = 16`). The two are one tiling choice.
    TiedWith { file: String, symbol: String },
}

/// The integer constants of the op's host files (`constexpr` / `const` / `#define`, read as bindings
/// read them) that hold `value`, that no tunable binds and whose name is not one of what a name alone
/// rules out (an alignment unit, a data-type size, a workspace size): (file, symbol).
fn host_constants_of_value(
    op: &OpSpec,
    sources: &std::collections::BTreeMap<String, String>,
    value: i64,
) -> Vec<(String, String)> {
    let bound: Vec<&str> = op
        .tunables
        .iter()
        .filter_map(|t| match &t.bind {
            crate::manifest::Bind::Symbol(s) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    let mut out = vec![];
    for file in &op.host {
        let Some(text) = sources.get(file) else {
            continue;
        };
        let mut names: Vec<&str> = vec![];
        for line in text.lines() {
            let line = line.trim_start();
            let name = if let Some(rest) = line.strip_prefix("#define") {
                rest.split_whitespace().next()
            } else if line.contains("constexpr ")
                || line.starts_with("const ")
                || line.contains(" const ")
            {
                line.split('=').next().and_then(|lhs| {
                    lhs.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .filter(|w| !w.is_empty())
                        .last()
                })
            } else {
                None
            };
            if let Some(n) = name
                && crate::manifest::is_identifier(n)
                && crate::space::discover::rejected_by_name(n, value).is_none()
                && !bound.contains(&n)
                && !names.contains(&n)
            {
                names.push(n);
            }
        }
        for n in names {
            let bind = crate::manifest::Bind::Symbol(n.to_string());
            if binding::find_site(text, file, &bind).is_ok_and(|site| site.value == value) {
                out.push((file.clone(), n.to_string()));
            }
        }
    }
    out
}

/// What a run did, as one hash: every block's trace, the block count and the outputs.
fn signature(m: &Measurement) -> String {
    let mut h = crate::fsx::KeyHasher::new();
    h.part(m.block_dim.to_string());
    if let Some(t) = &m.trace {
        h.part(format!("{:?}", t.blocks));
    }
    for o in &m.outputs {
        h.part(o);
    }
    h.finish()
}

/// Probes every tunable of `op`, in manifest order; tunables bound to the same symbol with the same value
/// (host and kernel `BUFFER_NUM`) are moved together, as the search moves them. Err when the op itself does not build or run (then
/// nothing can be said).
pub fn probe(
    manifest: &Manifest,
    op: &OpSpec,
    backend: &dyn Backend,
    deadline: std::time::Instant,
) -> Result<Vec<(String, Verdict)>, String> {
    let sources = crate::tune::read_sources(manifest, op).map_err(|e| e.to_string())?;
    let inputs = crate::tune::inputs(op);
    // Every build is a point of the op's tunables: where each sits in the texts built (an override, or
    // the project's file), so a backend that reads tunable values at run time builds one program for
    // every probe of a tunable it reads at run time, the sources as they are included (the twin:
    // `init` on ops-nn's gelu, five tunables probed, went from 24-26 s to 7 s on the 2-core machine).
    // A kernel constant that is a template argument is still compiled in, so its probes still build.
    let placed_in = |texts: &std::collections::BTreeMap<String, String>| {
        op.tunables
            .iter()
            .filter_map(|t| {
                let text = texts.get(&t.file).or_else(|| sources.get(&t.file))?;
                let site = binding::find_site(text, &t.file, &t.bind).ok()?;
                Some(crate::rewrite::params::Placed {
                    name: t.name.clone(),
                    file: t.file.clone(),
                    range: site.range.clone(),
                    value: site.value,
                    divides: site.divides.clone(),
                })
            })
            .collect::<Vec<_>>()
    };
    let build = |set: &SourceSet| {
        backend
            .build_point(op, set, &placed_in(&set.overrides))
            .map_err(|f| said(&f))
    };
    let run_built = |artifact: &crate::backend::Artifact| -> Result<Measurement, String> {
        backend
            .run(op, artifact, &inputs, true)
            .map_err(|f| said(&f))
    };
    let run = |set: &SourceSet| -> Result<Measurement, String> { run_built(&build(set)?) };
    // The sources as they are, built once: what the build read (the run-time form says it too, from
    // the same compiler list), and the run every probe compares with.
    let base_artifact = build(&SourceSet::default())?;
    let read = base_artifact.files_read();
    let base_run = run_built(&base_artifact)?;
    let base = signature(&base_run);
    // Where each tunable lives now, and the values it is moved to: the next smaller one of its domain
    // first, then the next larger.
    let mut moves = vec![];
    for t in &op.tunables {
        let text = &sources[&t.file];
        let site = binding::find_site(text, &t.file, &t.bind).ok();
        let to = site
            .as_ref()
            .map(|s| probe_values(t.domain.values(), s.value))
            .unwrap_or_default();
        let symbol = match &t.bind {
            crate::manifest::Bind::Symbol(s) => Some(s.clone()),
            crate::manifest::Bind::Call { .. }
            | crate::manifest::Bind::UbParts { .. }
            | crate::manifest::Bind::Field { .. } => None,
        };
        moves.push((t, site, to, symbol));
    }
    let mut out: Vec<(String, Verdict)> = vec![];
    // A file the builds do not read (when they say what they read) holds nothing to probe, and moves
    // with nothing: ops-cv's upsample_nearest has BUFFER_NUM both in the header its 910B kernel includes
    // and in its 310P one, and the two were tied.
    // Only the op's own files are judged: a header above its folder may be read under another path
    // (an `include-as` sibling is read through the build's mount of it).
    let unread =
        |file: &str| !file.starts_with("../") && read.as_ref().is_some_and(|r| !r.contains(file));
    for (t, ..) in &moves {
        if unread(&t.file) {
            out.push((t.name.clone(), Verdict::NotRead));
        }
    }
    for (i, (t, site, to, symbol)) in moves.iter().enumerate() {
        if out.iter().any(|(n, _)| *n == t.name) {
            continue;
        }
        if std::time::Instant::now() >= deadline {
            out.push((t.name.clone(), Verdict::NotReached));
            continue;
        }
        let Some(site) = site.as_ref().filter(|_| !to.is_empty()) else {
            out.push((t.name.clone(), Verdict::Changed));
            continue;
        };
        // A constant defined alike on host and kernel (tied by a derived agreement) moves as one.
        let group: Vec<usize> = (0..moves.len())
            .filter(|&j| {
                j == i
                    || (symbol.is_some()
                        && !unread(&moves[j].0.file)
                        && moves[j].3 == *symbol
                        && moves[j].1.as_ref().is_some_and(|s| s.value == site.value)
                        && moves[j].2 == *to)
            })
            .collect();
        // Every neighbour that fails or gives other outputs, with why; the verdict is that of the first
        // neighbour that runs right, or NoOtherValueRuns when none does.
        let try_value = |value: i64| -> Result<Measurement, String> {
            let mut patched: std::collections::BTreeMap<String, String> = Default::default();
            for &j in &group {
                let (t, Some(site), _, _) = &moves[j] else {
                    continue;
                };
                let text = patched
                    .get(&t.file)
                    .cloned()
                    .unwrap_or_else(|| sources[&t.file].clone());
                let again =
                    binding::find_site(&text, &t.file, &t.bind).unwrap_or_else(|_| site.clone());
                let new =
                    crate::rewrite::cst::splice(&text, again.range.clone(), &again.render(value));
                patched.insert(t.file.clone(), new);
            }
            run(&SourceSet { overrides: patched })
        };
        // The deadline holds inside one tunable's probe too (each value may be a build of a large
        // kernel: ops-nn's max_pool3_d passed its 180 s by 105 s): a probe cut short says nothing.
        let cut = std::cell::Cell::new(false);
        let late = || {
            let l = std::time::Instant::now() >= deadline;
            cut.set(cut.get() || l);
            l
        };
        let mut why_not: Vec<String> = vec![];
        let mut ran_right = None;
        for &value in to {
            if late() {
                break;
            }
            match try_value(value) {
                Ok(m) if signature(&m) == base => ran_right = Some(false),
                Ok(m) => match crate::verify::outputs_match(op, &m.outputs, &base_run.outputs) {
                    Ok(()) => ran_right = Some(true),
                    Err(diff) => why_not.push(format!(
                        "{value}: outputs differ from the op's own ({diff})"
                    )),
                },
                Err(why) => why_not.push(format!("{value}: {why}")),
            }
            if ran_right.is_some() {
                break;
            }
        }
        // Whether one of `values` runs with a changed trace and the op's own outputs: evidence that the
        // literal decides something (a value that fails is no evidence either way).
        let one_changes = |values: Vec<i64>| {
            values.into_iter().any(|value| {
                !late()
                    && try_value(value).is_ok_and(|m| {
                        signature(&m) != base
                            && crate::verify::outputs_match(op, &m.outputs, &base_run.outputs)
                                .is_ok()
                    })
            })
        };
        // A neighbour that changes nothing does not show the literal decides nothing: tiling rules clamp
        // and compare (`min(ubFactor, maxUbFactor)`, `size < 1 << 21`), so a value only a few steps away
        // may cross the bound (ops-math tensor_move: its UB parts change nothing at 2 and cut each
        // core's copy into two tiles at 4). The other neighbour and the domain's ends are tried too.
        if ran_right == Some(false)
            && one_changes(further_values(t.domain.values(), site.value, to))
        {
            ran_right = Some(true);
        }
        // Both neighbours failing does not show the literal is a constant of the computation either: a
        // block count of 8 over 128 x 2048 halves into a UB overflow at 4 and leaves a remainder at 12,
        // and runs at 16 (the learning hub's 08 custom_op). The next values outward and the domain's
        // ends are tried before the literal is left out.
        if ran_right.is_none() && one_changes(outward_values(t.domain.values(), site.value, to)) {
            ran_right = Some(true);
        }
        // A kernel constant that runs at no other value alone, moved with each host constant of the same
        // value in turn (at most a few: each is a build and a run).
        const PARTNERS: usize = 4;
        let partner = if ran_right.is_none() && !cut.get() && !op.host.contains(&t.file) {
            host_constants_of_value(op, &sources, site.value)
                .into_iter()
                .take(PARTNERS)
                .find(|(file, symbol)| {
                    let bind = crate::manifest::Bind::Symbol(symbol.clone());
                    to.iter().any(|&value| {
                        if late() {
                            return false;
                        }
                        let mut patched: std::collections::BTreeMap<String, String> =
                            Default::default();
                        for (f, b) in [(&t.file, &t.bind), (file, &bind)] {
                            let text = patched
                                .get(f)
                                .cloned()
                                .unwrap_or_else(|| sources[f].clone());
                            let Ok(at) = binding::find_site(&text, f, b) else {
                                return false;
                            };
                            let new = crate::rewrite::cst::splice(
                                &text,
                                at.range.clone(),
                                &at.render(value),
                            );
                            patched.insert(f.clone(), new);
                        }
                        run(&SourceSet { overrides: patched }).is_ok_and(|m| {
                            signature(&m) != base
                                && crate::verify::outputs_match(op, &m.outputs, &base_run.outputs)
                                    .is_ok()
                        })
                    })
                })
        } else {
            None
        };
        let verdict = match (ran_right, partner) {
            (None, Some((file, symbol))) => Verdict::TiedWith { file, symbol },
            (None | Some(false), _) if cut.get() => Verdict::NotReached,
            (None, _) => Verdict::NoOtherValueRuns(why_not.join("; ")),
            (Some(false), _) if !why_not.is_empty() => Verdict::Limit(why_not.join("; ")),
            (Some(_), _) if !why_not.is_empty() => Verdict::Fails(why_not.join("; ")),
            (Some(true), _) => Verdict::Changed,
            (Some(false), _) => Verdict::Unchanged,
        };
        for &j in &group {
            out.push((moves[j].0.name.clone(), verdict.clone()));
        }
    }
    Ok(out)
}

/// The values a probe moves `current` to, in order: the next smaller one of the domain (smaller tiles
/// and fewer buffers still fit the UB), then the next larger one.
pub fn probe_values(domain: &[i64], current: i64) -> Vec<i64> {
    let below = domain.iter().copied().filter(|&v| v < current).max();
    let above = domain.iter().copied().filter(|&v| v > current).min();
    below.into_iter().chain(above).collect()
}

/// The values tried after a neighbour left the run unchanged, in order: the neighbours not yet tried,
/// then the domain's smallest and largest values; never `current` nor a value in `tried`.
pub fn further_values(domain: &[i64], current: i64, tried: &[i64]) -> Vec<i64> {
    let mut out: Vec<i64> = vec![];
    let ends = [domain.iter().copied().min(), domain.iter().copied().max()];
    for v in probe_values(domain, current)
        .into_iter()
        .chain(ends.into_iter().flatten())
    {
        if v != current && !tried.contains(&v) && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The values tried when both neighbours failed, in order: the second smaller and the second larger
/// value of the domain, then its smallest and largest; never `current` nor a value in `tried`.
pub fn outward_values(domain: &[i64], current: i64, tried: &[i64]) -> Vec<i64> {
    let mut below: Vec<i64> = domain.iter().copied().filter(|&v| v < current).collect();
    below.sort_unstable_by(|a, b| b.cmp(a));
    let mut above: Vec<i64> = domain.iter().copied().filter(|&v| v > current).collect();
    above.sort_unstable();
    let ends = [domain.iter().copied().min(), domain.iter().copied().max()];
    let mut out: Vec<i64> = vec![];
    for v in [below.get(1).copied(), above.get(1).copied()]
        .into_iter()
        .chain(ends)
        .flatten()
    {
        if v != current && !tried.contains(&v) && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// A failed probe run as init's lines say it: the kind, then the first line of the message with the
/// error it goes on to name (a kernel fault's first line ends in `:` and its error follows its warnings).
fn said(f: &crate::backend::TrialFailure) -> String {
    format!(
        "{}: {}",
        f.kind.as_str(),
        crate::backend::failure_line(&f.message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// init said "no neighbouring value runs (2: fault: the kernel failed (exit code 3):)" for ops-nn's
    /// rms_norm: the error the twin named was on a later line.
    #[test]
    fn a_failed_probe_names_the_kernels_error() {
        let f = crate::backend::TrialFailure::new(
            crate::backend::FailureKind::Fault,
            "the kernel failed (exit code 3):\nwarning: DataCopy: GM read past the end\n  --> k.cpp:31 (block 0)\nerror: InitBuffer: UB overflow: need 200704 bytes\n  --> k.h:126 (block 0)",
        );
        assert_eq!(
            said(&f),
            "fault: the kernel failed (exit code 3): error: InitBuffer: UB overflow: need 200704 bytes --> k.h:126 (block 0)"
        );
    }

    #[test]
    fn after_two_failed_neighbours_the_probe_goes_one_further_out_then_to_the_ends() {
        let cores = [1, 2, 4, 8, 12, 16, 20, 24, 32, 40, 48];
        assert_eq!(outward_values(&cores, 8, &[4, 12]), [2, 16, 1, 48]);
        assert_eq!(outward_values(&[1, 2], 1, &[2]), Vec::<i64>::new());
        assert_eq!(outward_values(&[1, 2, 4, 8], 1, &[2]), [4, 8]);
    }

    #[test]
    fn probes_move_to_the_next_smaller_value_then_the_next_larger() {
        assert_eq!(probe_values(&[1, 2], 2), [1]);
        assert_eq!(probe_values(&[1, 2], 1), [2]);
        assert_eq!(probe_values(&[16, 32, 64, 128, 256], 64), [32, 128]);
        assert_eq!(probe_values(&[3, 4, 5, 6, 12], 6), [5, 12]);
        assert!(probe_values(&[8], 8).is_empty());
    }

    #[test]
    fn after_an_unchanged_neighbour_the_other_neighbour_then_the_domain_ends_are_tried() {
        // UB parts 1 of [1, 4]: 2 was tried and changed nothing; 4 is left.
        assert_eq!(further_values(&[1, 2, 3, 4], 1, &[2]), [4]);
        // 64 of a power-of-two list: 32 tried; 128, then the ends 16 and 256.
        assert_eq!(
            further_values(&[16, 32, 64, 128, 256], 64, &[32]),
            [128, 16, 256]
        );
        // Nothing left when the neighbours are the ends.
        assert!(further_values(&[1, 2], 1, &[2]).is_empty());
        assert!(further_values(&[8], 8, &[]).is_empty());
    }
}
