//! Property tests of write-back on every fixture: for any point of an op's space, applying it to the
//! sources and binding the tunables again reads back exactly those values, and no byte outside the
//! tunables' literals changes. Written through `writeback::write`, the files on disk are the patched text.

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
