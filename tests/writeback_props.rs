//! Property tests of write-back on every fixture: for any point of an op's space, applying it to the
//! sources and binding the tunables again reads back exactly those values, and no byte outside the
//! tunables' literals changes. Written through `writeback::write`, the files on disk are the patched text.
//! With kernel rewrites: for any point and any ordered set of applicable motifs, the kernel is the motifs
//! applied directly (and the lock's list of rewrites replays to it), parsing gives back the values, no
//! line outside the motifs' sites changes in part, and an interruption at any step of writing the
//! sources and the lock (`fsx::inject`) leaves each file entirely old or entirely new.

use ascend_tune::manifest::Manifest;
use ascend_tune::space::Space;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

struct Case {
    name: String,
    manifest: Manifest,
    op: ascend_tune::manifest::OpSpec,
    sources: BTreeMap<String, String>,
    space: Space,
}

fn cases() -> &'static [Case] {
    static CASES: std::sync::OnceLock<Vec<Case>> = std::sync::OnceLock::new();
    CASES.get_or_init(|| {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut out = vec![];
        let mut dirs: Vec<_> = std::fs::read_dir(&fixtures)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|d| d.join("ascend.toml").is_file())
            // Kernel-launch fixtures are built by their own CMake project (tests/cli/twin_package.rs).
            .filter(|d| !ascend_tune::project::is_kernel_launch(d))
            .collect();
        dirs.sort();
        for dir in dirs {
            let manifest = Manifest::load(&dir.join("ascend.toml")).unwrap();
            let soc = ascend_tune::model::soc::lookup(&manifest.soc).unwrap();
            for op in manifest.ops.clone() {
                let sources = ascend_tune::tune::read_sources(&manifest, &op).unwrap();
                let space = Space::resolve(&manifest, &op, soc, &sources).unwrap();
                out.push(Case {
                    name: format!("{}/{}", dir.file_name().unwrap().to_string_lossy(), op.name),
                    manifest: manifest.clone(),
                    op,
                    sources,
                    space,
                });
            }
        }
        assert!(out.len() >= 10, "only {} fixture ops", out.len());
        out
    })
}

/// A case and a point of its space, each coordinate any index of its domain (constraints ignored:
/// write-back must be exact for every value, valid or not).
fn case_and_point() -> impl Strategy<Value = (usize, Vec<usize>)> {
    (0..cases().len()).prop_flat_map(|c| {
        let dims = cases()[c].space.dims();
        let coords: Vec<_> = dims.into_iter().map(|n| 0..n).collect();
        (Just(c), coords)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn write_back_then_parse_gives_back_the_values_and_touches_nothing_else(
        (c, point) in case_and_point()
    ) {
        let case = &cases()[c];
        let patched = ascend_tune::rewrite::params::apply(&case.space, &point, &case.sources);
        let mut after = case.sources.clone();
        after.extend(patched.clone());
        let soc = ascend_tune::model::soc::lookup(&case.manifest.soc).unwrap();
        let again = Space::resolve(&case.manifest, &case.op, soc, &after)
            .map_err(|e| TestCaseError::fail(format!("{}: {e}", case.name)))?;
        let want = case.space.values(&point);
        let got: BTreeMap<String, i64> = again
            .tunables
            .iter()
            .map(|t| (t.name.clone(), t.site.value))
            .collect();
        prop_assert_eq!(&got, &want, "{}", case.name);

        // Outside the literals' spans every byte is the original's.
        for (file, old) in &case.sources {
            let new = &after[file];
            let mut spans: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = case
                .space
                .tunables
                .iter()
                .zip(&again.tunables)
                .filter(|(t, _)| &t.site.file == file)
                .map(|(t, a)| (t.site.range.clone(), a.site.range.clone()))
                .collect();
            spans.sort_by_key(|(o, _)| o.start);
            let (mut o_at, mut n_at) = (0, 0);
            for (o, n) in &spans {
                prop_assert_eq!(&old[o_at..o.start], &new[n_at..n.start], "{} {}", case.name, file);
                o_at = o.end;
                n_at = n.end;
            }
            prop_assert_eq!(&old[o_at..], &new[n_at..], "{} {}", case.name, file);
        }

        // And through the real writer, on disk.
        let dir = tempfile::tempdir().unwrap();
        for (f, text) in &case.sources {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
        }
        ascend_tune::writeback::write(dir.path(), &patched, &case.sources).unwrap();
        for (f, text) in &after {
            prop_assert_eq!(&std::fs::read_to_string(dir.path().join(f)).unwrap(), text);
        }
    }
}

// ---- Rewrites: any set of parameter values with any applicable motifs, as `tune` writes them back ----

use ascend_tune::lockfile::{Entry, Lockfile};
use ascend_tune::rewrite::Motif;
use ascend_tune::rewrite::motifs;
use ascend_tune::tune::variant::Variant;

/// The motifs with a site in a case's kernel as it is, in registry order. (Whether each is kept is the
/// loop's affair: the test skips one that would change a tunable, as the loop does.)
fn applicable(c: usize) -> &'static [&'static dyn Motif] {
    static APPLICABLE: std::sync::OnceLock<Vec<Vec<&'static dyn Motif>>> =
        std::sync::OnceLock::new();
    &APPLICABLE.get_or_init(|| {
        cases()
            .iter()
            .map(|case| {
                motifs::ALL
                    .iter()
                    .copied()
                    .filter(|m| {
                        case.op
                            .kernel
                            .iter()
                            .any(|k| !m.apply_sites(&case.sources[k]).is_empty())
                    })
                    .collect()
            })
            .collect()
    })[c]
}

/// A case with at least one applicable motif, an ordered subset of its motifs, a point of its space,
/// and where to interrupt the write-back (an index into its steps; past the end: no interruption).
fn case_rewrites_point()
-> impl Strategy<Value = (usize, Vec<&'static dyn Motif>, Vec<usize>, usize)> {
    let with_motifs: Vec<usize> = (0..cases().len())
        .filter(|&c| !applicable(c).is_empty())
        .collect();
    assert!(
        with_motifs.len() >= 10,
        "only {} fixture ops have a motif to apply",
        with_motifs.len()
    );
    proptest::sample::select(with_motifs).prop_flat_map(|c| {
        let motifs = applicable(c).to_vec();
        let n = motifs.len();
        let coords: Vec<_> = cases()[c].space.dims().into_iter().map(|n| 0..n).collect();
        (
            Just(c),
            (
                Just(motifs).prop_shuffle(),
                proptest::collection::vec(any::<bool>(), n),
            )
                .prop_map(|(motifs, keep)| {
                    motifs
                        .into_iter()
                        .zip(keep)
                        .filter_map(|(m, k)| k.then_some(m))
                        .collect::<Vec<_>>()
                }),
            coords,
            0..24usize,
        )
    })
}

/// `motif` applied at every site of `text`, first to last, with apply_sites and apply only (not the
/// tuner's `edit_all`), checking that each edit keeps every byte outside its edited spans: the site's
/// lines, and whole lines the motif adds or removes elsewhere (a buffer's declaration and `InitBuffer`,
/// a hoisted statement). A line outside the site is never changed in part.
fn apply_directly(motif: &dyn Motif, text: &str) -> Result<String, TestCaseError> {
    let mut cur = text.to_string();
    for _ in 0..64 {
        let Some(site) = motif.apply_sites(&cur).into_iter().next() else {
            return Ok(cur);
        };
        let edit = motif
            .apply(&cur, &site)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        // Old lines (0-based) the site covers.
        let first = cur[..site.range.start].matches('\n').count();
        let last = first + cur[site.range.clone()].matches('\n').count();
        let diff = similar::TextDiff::from_lines(cur.as_str(), edit.text.as_str());
        for op in diff.ops() {
            if let similar::DiffOp::Replace {
                old_index, old_len, ..
            } = *op
            {
                let touches_site = old_index <= last && old_index + old_len > first;
                prop_assert!(
                    touches_site,
                    "{} at line {}: lines {}..{} outside its site changed in place:\n{}",
                    motif.name(),
                    site.line,
                    old_index + 1,
                    old_index + old_len + 1,
                    diff.unified_diff().context_radius(1)
                );
            }
        }
        cur = edit.text;
    }
    Err(TestCaseError::fail(format!(
        "{} keeps finding sites",
        motif.name()
    )))
}

fn lock_entry(
    case: &Case,
    params: BTreeMap<String, i64>,
    rewrites: Vec<String>,
    sources: &BTreeMap<String, String>,
) -> Entry {
    Entry {
        name: case.op.name.clone(),
        shape: case.op.shape_key(),
        soc: case.manifest.soc.clone(),
        backend: "twin".into(),
        latency_us: 1.5,
        latency_samples: None,
        baseline_latency_us: 3.0,
        modelled: true,
        strategy: "loop".into(),
        seed: 0,
        trials: 8,
        tool: "test".into(),
        toolchain: "twin-test".into(),
        space: case.space.fingerprint(),
        params,
        rewrites,
        sources: sources
            .iter()
            .map(|(f, t)| (f.clone(), ascend_tune::fsx::hash_hex(t.as_bytes())))
            .collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// For any point and any ordered set of applicable motifs: the kernel text is the motifs applied
    /// directly (and replaying the lock's list of rewrites gives it again); write-back then parse gives
    /// back exactly the point's values; no byte outside the motifs' sites and the tunables' literals
    /// changes; and an interruption at any step of writing the sources and the lock leaves each file
    /// entirely old or entirely new.
    #[test]
    fn rewrites_and_values_write_back_exactly_and_atomically(
        (c, chosen, point, interrupt_at) in case_rewrites_point()
    ) {
        let case = &cases()[c];
        let soc = ascend_tune::model::soc::lookup(&case.manifest.soc).unwrap();

        // The variant as the loop builds it, one kept rewrite at a time; a motif that no longer
        // applies after the earlier ones is skipped, as the loop skips it.
        let mut variant = Variant::original(case.sources.clone(), case.space.clone());
        for m in &chosen {
            let Ok(next) = variant.with_motif(*m, &case.manifest, &case.op, soc, None) else {
                continue;
            };
            for (file, before) in variant.sources.iter() {
                let after = &next.sources[file];
                if case.op.kernel.contains(file) {
                    let direct = apply_directly(*m, before)?;
                    prop_assert_eq!(&direct, after, "{}: {} in {}", case.name, m.name(), file);
                } else {
                    prop_assert_eq!(before, after, "{}: {} touched {}", case.name, m.name(), file);
                }
            }
            variant = next;
        }
        // The lock records `variant.rewrites`; replayed from the sources as they were, they give the
        // same text.
        let mut replayed = case.sources.clone();
        for name in &variant.rewrites {
            let m = motifs::by_name(name).unwrap();
            for file in &case.op.kernel {
                let text = replayed[file].clone();
                replayed.insert(file.clone(), apply_directly(m, &text)?);
            }
        }
        prop_assert_eq!(&replayed, &*variant.sources, "{}: replaying {:?}", case.name, variant.rewrites);

        // The point's values written into the rewritten sources: outside the literals, nothing moves.
        let patched = variant.patched(&point);
        let again = Space::resolve(&case.manifest, &case.op, soc, &patched)
            .map_err(|e| TestCaseError::fail(format!("{}: {e}", case.name)))?;
        let want = case.space.values(&point);
        let got: BTreeMap<String, i64> = again
            .tunables
            .iter()
            .map(|t| (t.name.clone(), t.site.value))
            .collect();
        prop_assert_eq!(&got, &want, "{}", case.name);
        for (file, old) in variant.sources.iter() {
            let new = &patched[file];
            let mut spans: Vec<_> = variant
                .space
                .tunables
                .iter()
                .zip(&again.tunables)
                .filter(|(t, _)| &t.site.file == file)
                .map(|(t, a)| (t.site.range.clone(), a.site.range.clone()))
                .collect();
            spans.sort_by_key(|(o, _)| o.start);
            let (mut o_at, mut n_at) = (0, 0);
            for (o, n) in &spans {
                prop_assert_eq!(&old[o_at..o.start], &new[n_at..n.start], "{} {}", case.name, file);
                o_at = o.end;
                n_at = n.end;
            }
            prop_assert_eq!(&old[o_at..], &new[n_at..], "{} {}", case.name, file);
        }

        // Written back as `tune` writes: the changed sources, then the lock. On disk, read back.
        let changed: BTreeMap<String, String> = patched
            .iter()
            .filter(|(f, t)| case.sources.get(*f) != Some(*t))
            .map(|(f, t)| (f.clone(), t.clone()))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        for (f, text) in &case.sources {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
        }
        let lock_path = Lockfile::path(dir.path());
        let old_lock = Lockfile {
            entries: vec![lock_entry(case, case.space.values(&case.space.current().unwrap()), vec![], &case.sources)],
        };
        old_lock.write(&lock_path).unwrap();
        let old_lock_text = std::fs::read_to_string(&lock_path).unwrap();
        let new_lock = Lockfile {
            entries: vec![lock_entry(case, want.clone(), variant.rewrites.clone(), &patched)],
        };

        // Interrupted at step `interrupt_at` of the whole write (each file takes WRITE_STEPS steps),
        // or not at all when that is past the end.
        let steps = (changed.len() + 1) * ascend_tune::fsx::inject::WRITE_STEPS;
        let interrupted = interrupt_at < steps;
        ascend_tune::fsx::inject::interrupt_after(interrupted.then_some(interrupt_at));
        let result = match ascend_tune::writeback::write(dir.path(), &changed, &case.sources) {
            Ok(_) => new_lock.write(&lock_path).map(|_| ()),
            Err(e) => Err(e),
        };
        let still_armed = ascend_tune::fsx::inject::interrupt_pending();
        ascend_tune::fsx::inject::interrupt_after(None);
        prop_assert_eq!(result.is_err(), interrupted, "{:?}", result);
        prop_assert!(!still_armed, "the interruption never came");

        let mut on_disk = BTreeMap::new();
        let mut new_files = 0;
        for (f, old) in &case.sources {
            let now = std::fs::read_to_string(dir.path().join(f)).unwrap();
            let new = &patched[f];
            prop_assert!(&now == old || &now == new, "{}: {} is neither old nor new", case.name, f);
            if &now == new && new != old {
                new_files += 1;
            }
            on_disk.insert(f.clone(), now);
        }
        let lock_now = std::fs::read_to_string(&lock_path).unwrap();
        let lock_new = new_lock.render();
        prop_assert!(lock_now == old_lock_text || lock_now == lock_new, "the lock is neither old nor new");
        Lockfile::parse(&lock_now, &lock_path).unwrap();
        if interrupted {
            // Files are written in order and each takes WRITE_STEPS steps: those before the
            // interrupted one are new, the rest old, and the lock is only new once all are.
            let done = interrupt_at / ascend_tune::fsx::inject::WRITE_STEPS;
            prop_assert_eq!(new_files, done.min(changed.len()), "{}", case.name);
            prop_assert_eq!(lock_now, old_lock_text);
        } else {
            prop_assert_eq!(new_files, changed.len());
            prop_assert_eq!(&lock_now, &lock_new);
            // The finished project: its sources parse to the values, and match the lock's hashes.
            let read = Space::resolve(&case.manifest, &case.op, soc, &on_disk)
                .map_err(|e| TestCaseError::fail(format!("{}: {e}", case.name)))?;
            let read: BTreeMap<String, i64> =
                read.tunables.iter().map(|t| (t.name.clone(), t.site.value)).collect();
            prop_assert_eq!(&read, &want);
            let lock = Lockfile::parse(&lock_now, &lock_path).unwrap();
            for (f, h) in &lock.entries[0].sources {
                prop_assert_eq!(&ascend_tune::fsx::hash_hex(on_disk[f].as_bytes()), h, "{}", f);
            }
            prop_assert_eq!(&lock.entries[0].rewrites, &variant.rewrites);
        }
        // No temporary file is left behind.
        for f in case.sources.keys() {
            let d = dir.path().join(f);
            let parent = d.parent().unwrap();
            for e in std::fs::read_dir(parent).unwrap() {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                prop_assert!(!name.contains(".ascend-tune-"), "left {}", name);
            }
        }
    }
}
