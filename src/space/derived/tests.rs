//! Derived constraints: what is read from AscendC sources, and what is refused.

use super::*;

use crate::manifest::Manifest;
use crate::space::Space;
use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("ascend.toml").is_file())
        // Kernel-launch fixtures need the manifest's kernel-launch keys (layout, program, file).
        .filter(|p| !crate::project::is_kernel_launch(p))
        .collect();
    out.sort();
    out
}

/// The space of a fixture's (first) op over the given sources (default: the fixture's own).
fn space_of(dir: &Path, sub: Option<&str>) -> Option<Space> {
    let m = Manifest::load(&dir.join("ascend.toml")).unwrap();
    let op = &m.ops[0];
    let base = sub.map_or(dir.to_path_buf(), |s| dir.join(s));
    let mut sources = BTreeMap::new();
    for f in op.sources().chain(op.tunables.iter().map(|t| &t.file)) {
        sources.insert(f.clone(), std::fs::read_to_string(base.join(f)).ok()?);
    }
    let soc = crate::model::soc::lookup(&m.soc).unwrap();
    Space::resolve(&m, op, soc, &sources).ok()
}

/// Every fixture: the point its sources hold and the point its optimised `reference/` holds satisfy
/// the derived constraints, and a grid over the space shows how many candidates they remove that the
/// manifest's own constraints let through (printed with `--nocapture`).
#[test]
fn fixture_start_and_reference_points_satisfy_derived_constraints() {
    let (mut removed_total, mut alone_total, mut all_total) = (0, 0, 0);
    // grid: every point; manifest: those the manifest's constraints allow; +derived: those the derived
    // ones allow too; derived: the difference; alone: points the derived constraints alone refuse.
    println!(
        "{:<20} {:>6} {:>9} {:>9} {:>8} {:>8}",
        "fixture", "grid", "manifest", "+derived", "derived", "alone"
    );
    for dir in fixtures() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let s = space_of(&dir, None).unwrap();
        assert!(!s.derived.is_empty(), "{name}: nothing derived");
        let start = s.current().unwrap();
        assert!(
            s.check(&start).is_ok(),
            "{name}: start point {:?}: {:?}",
            s.values(&start),
            s.check(&start)
        );
        // The reference's values, read with the same bindings, against the reference's own kernel.
        if let Some(r) = space_of(&dir, Some("reference")) {
            let p: Vec<usize> = r
                .tunables
                .iter()
                .zip(&s.tunables)
                .map(|(rt, st)| st.domain.index_of(rt.site.value).unwrap_or(0))
                .collect();
            let values: BTreeMap<String, i64> = r
                .tunables
                .iter()
                .map(|t| (t.name.clone(), t.site.value))
                .collect();
            for d in &r.derived {
                assert!(
                    d.constraint.check(&values, &r.facts).is_ok(),
                    "{name}: reference {values:?} violates {}",
                    d.describe()
                );
            }
            let _ = p;
        }
        // A grid over the space.
        let dims = s.dims();
        let (mut all, mut manifest, mut both, mut alone, mut wrong) =
            (0usize, 0usize, 0usize, 0usize, 0usize);
        let mut p = vec![0; dims.len()];
        'grid: loop {
            all += 1;
            let values = s.values(&p);
            if s.derived
                .iter()
                .any(|d| d.constraint.check(&values, &s.facts).is_err())
            {
                alone += 1;
            }
            if s.check_manifest(&p).is_ok() {
                manifest += 1;
                if s.check(&p).is_ok() {
                    both += 1;
                }
                // Five row-wise fixtures leave the even split over blocks to the divisibility derived
                // from `Init` (so that a rewrite lifting it opens those points); any other derived
                // constraint refusing what the manifest allows would be a wrong derivation.
                if s.derived.iter().any(|d| {
                    d.kind != Kind::Divisibility && d.constraint.check(&values, &s.facts).is_err()
                }) {
                    wrong += 1;
                }
            }
            let mut i = dims.len();
            loop {
                if i == 0 {
                    break 'grid;
                }
                i -= 1;
                p[i] += 1;
                if p[i] < dims[i] {
                    break;
                }
                p[i] = 0;
            }
        }
        // The fixtures' hand-written constraints were checked against the twin; a derived UB or
        // alignment constraint that refused a point they allow would be a wrong derivation (none does,
        // see the report; divisibility is checked on the twin by the test below).
        assert_eq!(
            wrong, 0,
            "{name}: derived constraints refuse points the manifest allows"
        );
        removed_total += manifest - both;
        alone_total += alone;
        all_total += all;
        println!(
            "{name:<20} {all:>6} {manifest:>9} {both:>9} {:>8} {alone:>8}",
            manifest - both
        );
    }
    println!(
        "derived constraints remove {removed_total} candidates the manifests let through, and alone {alone_total} of {all_total}"
    );
}

/// The add_custom fixture with its kernel edited by `edit`, in a temporary folder.
fn add_custom_with(edit: impl Fn(&str) -> String) -> (tempfile::TempDir, Space) {
    add_custom_edited(|t| t.to_string(), edit)
}

/// add_custom with its host file and its kernel file edited.
fn add_custom_edited(
    host: impl Fn(&str) -> String,
    edit: impl Fn(&str) -> String,
) -> (tempfile::TempDir, Space) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/add_custom");
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "ascend.toml",
        "op_host/add_custom.cpp",
        "op_host/add_custom_tiling.h",
        "op_kernel/add_custom.cpp",
    ] {
        let to = dir.path().join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let text = std::fs::read_to_string(src.join(f)).unwrap();
        let text = match f {
            "op_kernel/add_custom.cpp" => edit(&text),
            "op_host/add_custom.cpp" => host(&text),
            _ => text,
        };
        std::fs::write(to, text).unwrap();
    }
    let space = space_of(dir.path(), None).unwrap();
    (dir, space)
}

fn texts(s: &Space) -> Vec<String> {
    s.derived
        .iter()
        .map(|d| format!("{}: {}", d.kind.as_str(), d.constraint.text()))
        .collect()
}

#[test]
fn add_custom_chain_is_followed_through_host_tiling_and_init() {
    // tileLength = blockLength / tileNum / BUFFER_NUM, with blockLength = totalLength / GetBlockNum()
    // and tileNum = totalLength / BLOCK_DIM / TILE_LENGTH set by the host.
    let (_d, s) = add_custom_with(|t| t.to_string());
    let tile = "x_elems / block_dim / (x_elems / block_dim / tile_length) / buffer_num";
    assert_eq!(
        texts(&s),
        [
            format!("UB capacity: 3 * (buffer_num * ({tile} * 2)) <= ub_bytes"),
            format!("32 B copy alignment: ({tile} * 2) % 32 == 0"),
            "divisibility: x_elems % block_dim == 0".to_string(),
            "divisibility: (x_elems / block_dim / (x_elems / block_dim / tile_length)) % buffer_num == 0".to_string(),
            "divisibility: (x_elems / block_dim) % (x_elems / block_dim / tile_length) == 0".to_string(),
        ]
    );
    // The derived constraints a point breaks.
    let broken = |b: i64, t: i64, n: i64| -> Vec<Kind> {
        let v = BTreeMap::from([
            ("block_dim".to_string(), b),
            ("tile_length".to_string(), t),
            ("buffer_num".to_string(), n),
        ]);
        s.derived
            .iter()
            .filter(|d| d.constraint.check(&v, &s.facts).is_err())
            .map(|d| d.kind)
            .collect()
    };
    assert_eq!(broken(8, 256, 1), []);
    assert_eq!(broken(48, 16384, 2), []);
    // 3 queues of 32768 fp16 elements: 196608 bytes > 196352.
    assert_eq!(broken(24, 32768, 1), [Kind::UbCapacity]);
    // 48 * 16384 / 40 is not whole (and the tiles then do not divide the block either).
    assert!(broken(40, 256, 1).contains(&Kind::Divisibility));
    // 8 fp16 elements per copy: 16 bytes, half a block.
    assert_eq!(broken(8, 16, 2), [Kind::CopyAlignment]);
    // A tile larger than a block's share: the kernel divides by zero tiles.
    assert!(!broken(48, 32768, 1).is_empty());
    assert!(
        s.check(
            &s.point_of(&BTreeMap::from([
                ("block_dim".to_string(), 24),
                ("tile_length".to_string(), 32768),
                ("buffer_num".to_string(), 1),
            ]))
            .unwrap()
        )
        .is_err()
    );
}

/// A tunable written in units (`TILE_LENGTH = 1 * 256`: the factor is the tunable) enters the
/// constraints as the size it stands for.
#[test]
fn a_tunable_written_in_units_enters_as_factor_times_unit() {
    let (_d, s) = add_custom_edited(
        |t| t.replace("TILE_LENGTH = 256;", "TILE_LENGTH = 1 * 256;"),
        |t| t.to_string(),
    );
    let all = texts(&s).join("\n");
    assert!(all.contains("tile_length * 256"), "{all}");
}

#[test]
fn what_cannot_be_followed_derives_nothing() {
    // tileLength set in a branch: no UB or alignment constraint that reads it.
    let (_d, s) = add_custom_with(|t| {
        t.replace(
            "this->tileLength = this->blockLength / tileNum / BUFFER_NUM;",
            "if (tileNum > 0) { this->tileLength = this->blockLength / tileNum / BUFFER_NUM; }",
        )
    });
    assert!(
        texts(&s)
            .iter()
            .all(|t| !t.starts_with("UB") && !t.starts_with("32 B")),
        "{:?}",
        texts(&s)
    );
    // A member changed outside Init (a tail handled in Process): unknown there too.
    let (_d, s) = add_custom_with(|t| {
        t.replace(
            "int32_t loopCount = this->tileNum * BUFFER_NUM;",
            "int32_t loopCount = this->tileNum * BUFFER_NUM; this->tileLength = 64;",
        )
    });
    assert!(
        texts(&s).iter().all(|t| !t.starts_with("32 B")),
        "{:?}",
        texts(&s)
    );
    // A remainder in the kernel: divisions are not taken as exact.
    let (_d, s) = add_custom_with(|t| {
        t.replace(
            "int32_t loopCount = this->tileNum * BUFFER_NUM;",
            "int32_t loopCount = this->tileNum * BUFFER_NUM + this->blockLength % 7;",
        )
    });
    assert!(
        texts(&s).iter().all(|t| !t.starts_with("divisibility")),
        "{:?}",
        texts(&s)
    );
    // An unknown element type: no alignment; an InitBuffer under a branch: a lower bound that says so.
    let (_d, s) = add_custom_with(|t| {
        t.replace("LocalTensor<DTYPE_X> xLocal", "LocalTensor<T> xLocal")
            .replace("xGm;", "xGm2;")
            .replace(
                "pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(DTYPE_Z));",
                "if (BUFFER_NUM > 1) { pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(DTYPE_Z)); }",
            )
    });
    let ub = s
        .derived
        .iter()
        .find(|d| d.kind == Kind::UbCapacity)
        .unwrap();
    assert!(
        ub.constraint.text().starts_with("2 * "),
        "{}",
        ub.describe()
    );
    assert!(ub.origin.contains("2 of 3 buffers"), "{}", ub.origin);
    // A pipe that is reset reuses UB: no capacity constraint at all.
    let (_d, s) =
        add_custom_with(|t| t.replace("op.Process();", "op.Process();\n    pipe2.Reset();"));
    assert!(s.derived.iter().all(|d| d.kind != Kind::UbCapacity));
}

#[test]
fn derive_constraints_false_turns_them_off() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/add_custom");
    let (dir, _) = add_custom_with(|t| t.to_string());
    let text = std::fs::read_to_string(src.join("ascend.toml"))
        .unwrap()
        .replace("seed = 0", "seed = 0\nderive-constraints = false");
    std::fs::write(dir.path().join("ascend.toml"), text).unwrap();
    let s = space_of(dir.path(), None).unwrap();
    assert!(s.derived.is_empty());
}

#[test]
fn rendering_keeps_integer_meaning() {
    // a * (b / c * 2) must not lose its parentheses: in integers it differs from a * b / c * 2.
    let v = |n: &str| Term::Var(n.into(), true);
    let inner = Term::bin('*', Term::bin('/', v("b"), v("c")).unwrap(), Term::Int(2)).unwrap();
    let t = Term::bin('*', v("a"), inner).unwrap();
    assert_eq!(t.render(), "a * (b / c * 2)");
    let c = Constraint::compile(
        &format!("{} == 6", t.render()),
        &["a", "b", "c"],
        &BTreeMap::new(),
    )
    .unwrap();
    // 3 * (5 / 2 * 2) = 12 in C++; the text must evaluate the same way (and evalexpr divides integers).
    let vals = BTreeMap::from([("a".into(), 3), ("b".into(), 5), ("c".into(), 2)]);
    assert!(c.check(&vals, &BTreeMap::new()).is_err());
    let c12 = Constraint::compile(
        &format!("{} == 12", t.render()),
        &["a", "b", "c"],
        &BTreeMap::new(),
    )
    .unwrap();
    assert!(c12.check(&vals, &BTreeMap::new()).is_ok());
    // Sums and products of names only drop their parentheses.
    let p = Term::bin('*', v("a"), Term::bin('*', v("b"), v("c")).unwrap()).unwrap();
    assert_eq!(p.render(), "a * b * c");
    let d = Term::bin('-', v("a"), Term::bin('-', v("b"), v("c")).unwrap()).unwrap();
    assert_eq!(d.render(), "a - (b - c)");
}

/// Soundness on the twin: a grid over mul_custom's whole space with no constraints at all (manifest
/// constraints emptied, `derive-constraints = false`), every point built and run:
/// `cargo ascend-tune bench <copy> --strategies grid --budget 180`, params and outcome per line
/// (`testdata/mul_custom_unconstrained.jsonl`). Every point the derived constraints refuse failed there,
/// and every point that ran (the optimum included) satisfies them.
#[test]
fn on_the_twin_every_refused_point_fails_and_every_success_is_allowed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = space_of(&dir.join("fixtures/mul_custom"), None).unwrap();
    let data = std::fs::read_to_string(
        dir.join("src/space/derived/testdata/mul_custom_unconstrained.jsonl"),
    )
    .unwrap();
    let (mut refused, mut ok, mut failed_allowed) = (0, 0, 0);
    let mut best: Option<(f64, BTreeMap<String, i64>)> = None;
    for line in data.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let values: BTreeMap<String, i64> = v["params"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, x)| (k.clone(), x.as_i64().unwrap()))
            .collect();
        let allowed = s
            .derived
            .iter()
            .all(|d| d.constraint.check(&values, &s.facts).is_ok());
        match v["latency_us"].as_f64() {
            Some(l) => {
                assert!(
                    allowed,
                    "{values:?} ran ({l} us) but a derived constraint refuses it"
                );
                ok += 1;
                if best.as_ref().is_none_or(|(b, _)| l < *b) {
                    best = Some((l, values));
                }
            }
            None if !allowed => refused += 1,
            None => failed_allowed += 1,
        }
    }
    println!(
        "mul_custom unconstrained: {ok} ran, {refused} failed and refused, {failed_allowed} failed and allowed; best {best:?}"
    );
    assert!(refused > 0 && ok > 0);
    // On this fixture they are complete as well: every failure (UB overflow, wrong output from
    // truncated copies and uncovered tiles) is one they refuse.
    assert_eq!(failed_allowed, 0);
}

/// The best points the tuner found (`bench --strategies grid --budget 180` and `--strategies host` at a
/// quarter of each grid, seed 0, on the twin; both found the same point) satisfy every constraint.
#[test]
fn the_best_points_found_satisfy_the_derived_constraints() {
    let found = [
        ("cast_custom", 32, 4096),
        ("div_custom", 32, 4096),
        ("gelu_custom", 32, 4096),
        ("mul_custom", 32, 4096),
        ("sigmoid_custom", 40, 4096),
        ("swiglu_custom", 32, 4096),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for (op, block_dim, tile_length) in found {
        let s = space_of(&root.join(op), None).unwrap();
        let values = BTreeMap::from([
            ("block_dim".to_string(), block_dim),
            ("tile_length".to_string(), tile_length),
            ("buffer_num".to_string(), 1),
        ]);
        let p = s.point_of(&values).unwrap();
        assert!(s.check(&p).is_ok(), "{op}: {values:?}: {:?}", s.check(&p));
    }
}

/// add_custom with a host `BUFFER_NUM` holding `host_value` beside the kernel's (1), both tunables.
fn add_custom_with_host_buffer_num(host_value: i64) -> (tempfile::TempDir, Space) {
    let (dir, _) = add_custom_with(|k| k.to_string());
    let host = dir.path().join("op_host/add_custom.cpp");
    let text = std::fs::read_to_string(&host).unwrap().replacen(
        "const uint32_t TILE_LENGTH",
        &format!("const uint32_t BUFFER_NUM = {host_value};\nconst uint32_t TILE_LENGTH"),
        1,
    );
    std::fs::write(&host, text).unwrap();
    let manifest = dir.path().join("ascend.toml");
    let mut m = std::fs::read_to_string(&manifest).unwrap();
    m.push_str(
        "\n[[op.tunable]]\nname = \"buffer_num_host\"\nfile = \"op_host/add_custom.cpp\"\nsymbol = \"BUFFER_NUM\"\nrange = [1, 2]\n",
    );
    std::fs::write(&manifest, m).unwrap();
    let space = space_of(dir.path(), None).unwrap();
    (dir, space)
}

#[test]
fn a_constant_defined_alike_on_host_and_kernel_is_tied() {
    let (_dir, s) = add_custom_with_host_buffer_num(1);
    let ties: Vec<String> = texts(&s)
        .into_iter()
        .filter(|t| t.starts_with("host/kernel agreement"))
        .collect();
    assert_eq!(
        ties,
        ["host/kernel agreement: buffer_num_host == buffer_num"]
    );
    let tie = s
        .derived
        .iter()
        .find(|d| d.kind == Kind::Agreement)
        .unwrap();
    assert_eq!(
        tie.origin,
        "`BUFFER_NUM` in op_host/add_custom.cpp:9 and op_kernel/add_custom.cpp:5"
    );
    // Tunables in manifest order: block_dim, tile_length, buffer_num, buffer_num_host.
    let start = s.current().unwrap();
    let mut apart = start.clone();
    apart[3] = 1; // host 2, kernel 1
    assert!(s.check(&apart).unwrap_err().contains("agreement"));
    let mut together = apart.clone();
    together[2] = 1; // both 2
    assert!(tie.constraint.check(&s.values(&together), &s.facts).is_ok());

    // Different values now: the sides mean different things, and nothing ties them.
    let (_dir, s) = add_custom_with_host_buffer_num(2);
    assert!(s.derived.iter().all(|d| d.kind != Kind::Agreement));
}
