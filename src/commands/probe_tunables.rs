//! `init`'s trace probe: builds and runs an op once as it is and once with each offered tunable moved to
//! the next value of its domain, and compares what the runs did (the trace of every block, the block
//! count and the outputs). A literal whose change leaves all of that unchanged decides nothing at the
//! shape the manifest declares, so `init` does not offer it. Owns only that comparison; knows nothing of
//! how tunables are discovered or how the manifest is written.

use crate::backend::{Backend, Measurement, SourceSet};
use crate::manifest::{Manifest, OpSpec};
use crate::space::binding;

/// What moving one tunable did.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The run differs: the literal decides something.
    Changed,
    /// Build, trace, block count and outputs are all the same.
    Unchanged,
    /// The changed value fails to build or run; the literal matters (kept, with why).
    Fails(String),
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
) -> Result<Vec<(String, Verdict)>, String> {
    let sources = crate::tune::read_sources(manifest, op).map_err(|e| e.to_string())?;
    let inputs = crate::tune::inputs(op);
    let run = |set: &SourceSet| -> Result<Measurement, String> {
        let artifact = backend
            .build(op, set)
            .map_err(|f| format!("{}: {}", f.kind.as_str(), first_line(&f.message)))?;
        backend
            .run(op, &artifact, &inputs, true)
            .map_err(|f| format!("{}: {}", f.kind.as_str(), first_line(&f.message)))
    };
    let base = signature(&run(&SourceSet::default())?);
    // Where each tunable lives now, and the value it is moved to.
    let mut moves = vec![];
    for t in &op.tunables {
        let text = &sources[&t.file];
        let site = binding::find_site(text, &t.file, &t.bind).ok();
        let to = site
            .as_ref()
            .and_then(|s| probe_value(t.domain.values(), s.value));
        let symbol = match &t.bind {
            crate::manifest::Bind::Symbol(s) => Some(s.clone()),
            crate::manifest::Bind::Call { .. } => None,
        };
        moves.push((t, site, to, symbol));
    }
    let mut out: Vec<(String, Verdict)> = vec![];
    for (i, (t, site, to, symbol)) in moves.iter().enumerate() {
        if out.iter().any(|(n, _)| *n == t.name) {
            continue;
        }
        let (Some(site), Some(_)) = (site, to) else {
            out.push((t.name.clone(), Verdict::Changed));
            continue;
        };
        // A constant defined alike on host and kernel (tied by a derived agreement) moves as one.
        let group: Vec<usize> = (0..moves.len())
            .filter(|&j| {
                j == i
                    || (symbol.is_some()
                        && moves[j].3 == *symbol
                        && moves[j].1.as_ref().is_some_and(|s| s.value == site.value)
                        && moves[j].2 == *to)
            })
            .collect();
        let mut patched: std::collections::BTreeMap<String, String> = Default::default();
        for &j in &group {
            let (t, Some(site), Some(value), _) = &moves[j] else {
                continue;
            };
            let text = patched
                .get(&t.file)
                .cloned()
                .unwrap_or_else(|| sources[&t.file].clone());
            let again =
                binding::find_site(&text, &t.file, &t.bind).unwrap_or_else(|_| site.clone());
            let new =
                crate::rewrite::cst::splice(&text, again.range.clone(), &again.render(*value));
            patched.insert(t.file.clone(), new);
        }
        let verdict = match run(&SourceSet { overrides: patched }) {
            Ok(m) if signature(&m) == base => Verdict::Unchanged,
            Ok(_) => Verdict::Changed,
            Err(why) => Verdict::Fails(why),
        };
        for &j in &group {
            out.push((moves[j].0.name.clone(), verdict.clone()));
        }
    }
    Ok(out)
}

/// The value a probe moves `current` to: the next smaller one of the domain (smaller tiles and fewer
/// buffers still fit the UB), else the next larger one.
pub fn probe_value(domain: &[i64], current: i64) -> Option<i64> {
    let below = domain.iter().copied().filter(|&v| v < current).max();
    let above = domain.iter().copied().filter(|&v| v > current).min();
    below.or(above)
}

fn first_line(s: &str) -> &str {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_move_to_the_next_smaller_value_else_the_next_larger() {
        assert_eq!(probe_value(&[1, 2], 2), Some(1));
        assert_eq!(probe_value(&[1, 2], 1), Some(2));
        assert_eq!(probe_value(&[16, 32, 64, 128, 256], 256), Some(128));
        assert_eq!(probe_value(&[3, 4, 5, 6, 12], 6), Some(5));
        assert_eq!(probe_value(&[8], 8), None);
    }
}
