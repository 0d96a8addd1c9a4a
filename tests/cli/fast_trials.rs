//! Points that differ only in tunable values share one twin build (`src/twin/runtime.rs`), and the
//! shared build computes exactly what the compiled-in one does: same tiling, outputs and trace text
//! at every point, valid or not.

use super::*;
use ascend_tune::backend::{Artifact, SourceSet};
use ascend_tune::twin::{RunOutput, Twin};

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    manifest: ascend_tune::manifest::Manifest,
    twin: Twin,
    variant: ascend_tune::tune::variant::Variant,
    originals: std::collections::BTreeMap<String, String>,
    inputs: Vec<PathBuf>,
}

/// A copy of fixture `name`, with `edit` applied to its files (path, from, to), ready to build.
fn open(name: &str, edit: &[(&str, &str, &str)]) -> Project {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(FIXTURES).join(name), dir.path());
    for (file, from, to) in edit {
        let p = dir.path().join(file);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{file} has no `{from}`");
        std::fs::write(&p, text.replace(from, to)).unwrap();
    }
    let root = dir.path().to_path_buf();
    open_at(dir, root)
}

/// The project at `root` (inside `dir`), ready to build.
fn open_at(dir: tempfile::TempDir, root: PathBuf) -> Project {
    let manifest = ascend_tune::manifest::Manifest::load(&root.join("ascend.toml")).unwrap();
    let op = manifest.ops[0].clone();
    let soc = ascend_tune::model::soc::lookup(&manifest.soc).unwrap();
    let originals = ascend_tune::tune::read_sources(&manifest, &op).unwrap();
    let variant =
        ascend_tune::tune::variant::original(&manifest, &op, soc, originals.clone()).unwrap();
    let mut twin = Twin::prepare(&root.join("target/ascend-tune"), &build_cache()).unwrap();
    twin.set_mounts(manifest.include_as.clone());
    let data = ascend_tune::tune::inputs(&op);
    let inputs = data
        .tensors
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            let p = root.join(format!("input{i}.bin"));
            std::fs::write(&p, bytes).unwrap();
            p
        })
        .collect();
    Project {
        _dir: dir,
        root,
        manifest,
        twin,
        variant,
        originals,
        inputs,
    }
}

impl Project {
    /// The point whose tunables take `values` (in manifest order).
    fn point(&self, values: &[i64]) -> Vec<usize> {
        self.variant
            .space
            .tunables
            .iter()
            .zip(values)
            .map(|(t, v)| {
                (0..t.domain.len())
                    .find(|&i| t.domain.value(i) == *v)
                    .unwrap_or_else(|| panic!("{} has no value {v}", t.name))
            })
            .collect()
    }

    /// The point built as written (values compiled in) and in its run-time form.
    fn both_builds(&self, values: &[i64]) -> (Artifact, Artifact) {
        let op = &self.manifest.ops[0];
        let point = self.point(values);
        let mut patched = self.variant.patched(&point);
        let placed = ascend_tune::rewrite::params::placed(
            &self.variant.space,
            &point,
            &self.variant.sources,
        );
        patched.retain(|f, t| self.originals.get(f) != Some(t));
        let sources = SourceSet { overrides: patched };
        let include = &self.manifest.include;
        let compiled = self
            .twin
            .build(&self.root, include, op, &sources)
            .unwrap_or_else(|f| panic!("{values:?} compiled in: {}", f.message));
        let runtime = self
            .twin
            .build_point(&self.root, include, op, &sources, &placed)
            .unwrap_or_else(|f| panic!("{values:?} run time: {}", f.message));
        (compiled, runtime)
    }

    fn run(&self, a: &Artifact) -> Result<RunOutput, ascend_tune::backend::TrialFailure> {
        let soc = ascend_tune::model::soc::lookup(&self.manifest.soc).unwrap();
        self.twin.run(&self.manifest.ops[0], a, soc, &self.inputs)
    }

    /// Builds and runs every point both ways and asserts the runs agree; returns the run-time
    /// artifacts in order.
    fn agree_at(&self, points: &[&[i64]]) -> Vec<Artifact> {
        let mut out = vec![];
        for values in points {
            let (compiled, runtime) = self.both_builds(values);
            assert!(compiled.run_env.is_empty());
            assert!(
                !runtime.run_env.is_empty(),
                "{values:?}: nothing was read at run time"
            );
            match (self.run(&compiled), self.run(&runtime)) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.tiling.block_dim, b.tiling.block_dim, "{values:?}");
                    assert_eq!(a.tiling.tiling_key, b.tiling.tiling_key, "{values:?}");
                    assert_eq!(a.tiling.tiling_data, b.tiling.tiling_data, "{values:?}");
                    assert_eq!(a.tiling.workspace, b.tiling.workspace, "{values:?}");
                    assert_eq!(a.outputs, b.outputs, "{values:?}: outputs differ");
                    assert!(a.trace == b.trace, "{values:?}: traces differ");
                    assert!(a.trace.lines().count() > 10, "{values:?}: {}", a.trace);
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a.kind, b.kind, "{values:?}: {} vs {}", a.message, b.message)
                }
                (a, b) => panic!(
                    "{values:?}: compiled in {:?}, run time {:?}",
                    a.map(|_| "ran").map_err(|f| f.message),
                    b.map(|_| "ran").map_err(|f| f.message)
                ),
            }
            out.push(runtime);
        }
        out
    }
}

/// add_custom: block_dim and tile_length (host constants) go run-time, buffer_num (a TQue template
/// argument) stays compiled in. Points with one buffer_num share both programs.
#[test]
fn add_custom_points_share_builds_and_agree_with_compiled_in_builds() {
    let p = open("add_custom", &[]);
    // The last point leaves a tail no block copies (40 does not divide the rows): wrong outputs, the
    // same both ways.
    let one = p.agree_at(&[&[8, 256, 1], &[48, 1024, 1], &[16, 2048, 1], &[40, 1024, 1]]);
    let two = p.agree_at(&[&[8, 256, 2], &[24, 512, 2]]);
    for a in one.iter().chain(&two) {
        assert_eq!(a.host, one[0].host, "one host program for every point");
    }
    for a in &one {
        assert_eq!(a.kernel, one[0].kernel);
    }
    assert_eq!(two[0].kernel, two[1].kernel);
    assert_ne!(one[0].kernel, two[0].kernel, "buffer_num is compiled in");
    // Artifacts still tell the points apart (the soak's `wrong` fault is keyed by them).
    assert_ne!(one[0].key, one[1].key);
    // Each program says what it reads at run time and why the rest is compiled in.
    let said =
        |p: &Path| std::fs::read_to_string(p.parent().unwrap().join("tunables.txt")).unwrap();
    let host = said(&one[0].host);
    assert!(host.contains("block_dim: run time"), "{host}");
    assert!(host.contains("tile_length: run time"), "{host}");
    assert!(
        host.contains("buffer_num: compiled in: this side does not read op_kernel/add_custom.cpp"),
        "{host}"
    );
    let kernel = said(&two[0].kernel);
    assert!(
        kernel.contains("buffer_num: compiled in: `BUFFER_NUM` is a template argument (op_kernel/add_custom.cpp:"),
        "{kernel}"
    );
    assert!(
        kernel.contains("block_dim: compiled in: this side does not read op_host/add_custom.cpp"),
        "{kernel}"
    );
}

/// A kernel-side tunable goes run-time too when the kernel uses it only in arithmetic: add_custom with
/// its queue depth written out, so BUFFER_NUM only sizes InitBuffer and the tile.
#[test]
fn a_kernel_tunable_used_in_arithmetic_is_read_at_run_time() {
    let depth = "AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueueX, inQueueY;\n    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueueZ;";
    let p = open(
        "add_custom",
        &[(
            "op_kernel/add_custom.cpp",
            "AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;\n    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;",
            depth,
        )],
    );
    let runs = p.agree_at(&[&[8, 256, 1], &[8, 256, 2], &[16, 512, 2]]);
    assert!(
        runs.iter()
            .all(|a| a.kernel == runs[0].kernel && a.host == runs[0].host)
    );
    // The program reads its values from the environment and says so when they are missing.
    let mut bare = runs[0].clone();
    bare.run_env.clear();
    let failure = p.run(&bare).err().expect("runs without its values");
    assert!(
        failure
            .message
            .contains("ASCEND_TUNE_TWIN_TUNABLES is not set"),
        "{}",
        failure.message
    );
}

/// softmax_custom keeps rows per tile in its host tiling arithmetic; its points agree too.
#[test]
fn softmax_points_agree_with_compiled_in_builds() {
    let p = open("softmax_custom", &[]);
    let current: Vec<i64> = p
        .variant
        .space
        .tunables
        .iter()
        .map(|t| t.site.value)
        .collect();
    let mut other = current.clone();
    // Another block count from the manifest's list.
    let bd = &p.variant.space.tunables[0];
    other[0] = (0..bd.domain.len())
        .map(|i| bd.domain.value(i))
        .find(|v| *v != current[0])
        .unwrap();
    let runs = p.agree_at(&[&current, &other]);
    assert_eq!(runs[0].host, runs[1].host);
    assert_eq!(runs[0].kernel, runs[1].kernel);
}

/// What the analysis lets through but the compiler refuses is built compiled in, and the refusal is
/// remembered: here BLOCK_DIM is a local constant read by a lambda that captures nothing, which C++
/// allows only while its value is known at compile time.
#[test]
fn a_run_time_form_the_compiler_refuses_falls_back_to_the_compiled_in_build() {
    let p = open(
        "add_custom",
        &[
            (
                "op_host/add_custom.cpp",
                "const uint32_t BLOCK_DIM = 8;     // blocks the op is split over\n",
                "",
            ),
            (
                "op_host/add_custom.cpp",
                "    TilingData tiling;\n",
                "    TilingData tiling;\n    const uint32_t BLOCK_DIM = 8;\n    auto blocks = [] { return BLOCK_DIM; };\n",
            ),
            (
                "op_host/add_custom.cpp",
                "context->SetBlockDim(BLOCK_DIM);",
                "context->SetBlockDim(blocks());",
            ),
        ],
    );
    for values in [&[16, 512, 1][..], &[8, 1024, 1]] {
        let (compiled, runtime) = p.both_builds(values);
        assert_eq!(
            runtime.host, compiled.host,
            "{values:?}: the host fell back"
        );
        let a = p.run(&compiled).unwrap();
        let b = p.run(&runtime).unwrap();
        assert_eq!(a.tiling.block_dim, values[0] as u32);
        assert_eq!((a.outputs, a.trace), (b.outputs, b.trace), "{values:?}");
    }
    // The refused form is remembered beside the builds, with the compiler's reason.
    let refused: Vec<String> = std::fs::read_dir(build_cache().join("build"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name()?.to_string_lossy().into_owned();
            (name.starts_with("host-") && name.ends_with(".compiled-in"))
                .then(|| std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    assert!(
        refused.iter().any(|r| r.contains("BLOCK_DIM")),
        "{refused:?}"
    );
}

/// ops-nn's foreach operators plan their tile in a header of a sibling folder (`../foreach_utils/op_host`,
/// an include folder) and keep their tile loop in another, which the kernel sees through `include-as`.
/// Points that differ only in the shared plan's UB split share one host and one kernel program, also
/// after a rewrite of the mounted kernel header. Before: the host build was cached under the name of
/// its staging folder's copy of the plan (a miss at every point), and the kernel's run-time form took
/// the rewritten mounted header for one it never reads (it never compiled): every point of every
/// foreach operator was compiled twice.
#[test]
fn points_of_a_tunable_in_a_shared_header_share_their_builds() {
    let dir = test_project("shared_tile");
    let root = dir.path().join("inplace_shared");
    let manifest = root.join("ascend.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text.push_str(
        "\n[[op.tunable]]\nname = \"ub_parts\"\nfile = \"../tile_utils/op_host/tile_plan.h\"\n\
         ub-parts-of = \"ubSize\"\nub-parts-in = \"PlanTile\"\nrange = [1, 8]\n",
    );
    std::fs::write(&manifest, text).unwrap();
    let mut p = open_at(dir, root);
    // Programs built inside the project, as the command line builds them (the staging folders then lie
    // inside the project too); the twin runtime shared with the other tests.
    let work = p.root.join("target/ascend-tune");
    p.twin = Twin::prepare_in(&work, &work, &build_cache().join("twin")).unwrap();
    p.twin.set_mounts(p.manifest.include_as.clone());
    // a kept kernel rewrite of the mounted header, as the candidate's text
    let header = "../tile_utils/op_kernel/inplace_tile.h";
    let original = std::fs::read_to_string(p.root.join(header)).unwrap();
    let rewritten = format!("{original}\n// rewritten\n");
    let built: Vec<Artifact> = [1i64, 2, 4]
        .iter()
        .map(|&parts| {
            let op = &p.manifest.ops[0];
            let point = p.point(&[parts]);
            let mut patched = p.variant.patched(&point);
            let placed =
                ascend_tune::rewrite::params::placed(&p.variant.space, &point, &p.variant.sources);
            patched.retain(|f, t| p.originals.get(f) != Some(t));
            patched.insert(header.to_string(), rewritten.clone());
            let sources = SourceSet { overrides: patched };
            p.twin
                .build_point(&p.root, &p.manifest.include, op, &sources, &placed)
                .unwrap_or_else(|f| panic!("ub_parts {parts}: {}", f.message))
        })
        .collect();
    for (i, a) in built.iter().enumerate() {
        assert!(!a.run_env.is_empty(), "nothing read at run time");
        assert_eq!(a.cached, i > 0, "point {i}: built again");
        assert_eq!(a.host, built[0].host, "one host program for every point");
        assert_eq!(
            a.kernel, built[0].kernel,
            "one kernel program for every point"
        );
    }
    let said = |p: &Path| std::fs::read_to_string(p.parent().unwrap().join("tunables.txt"));
    assert_eq!(said(&built[0].host).unwrap(), "ub_parts: run time\n");
    // the kernel's run-time form compiled (its tiling struct generated from the host's header, the
    // rewritten mounted header read): a compiled-in fallback has no such file
    assert_eq!(
        said(&built[0].kernel).unwrap(),
        "ub_parts: compiled in: this side does not read ../tile_utils/op_host/tile_plan.h\n"
    );
    // the programs compute what the points say: the tile shrinks with the UB share
    let tiles: Vec<Vec<u8>> = built
        .iter()
        .map(|a| p.run(a).unwrap().tiling.tiling_data)
        .collect();
    assert_ne!(tiles[0], tiles[1]);
    assert_ne!(tiles[1], tiles[2]);
}
