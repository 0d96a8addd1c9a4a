//! The fuzz targets at test size, on stable: each entry point of `ascend_tune::fuzz` gets its seed files
//! (`fuzz/seeds/<target>/`: the fixtures' manifests, the default bank, a real lockfile, journal, run
//! record, trace and tiling result, and the recorded msprof folders of `fixtures/msprof/` as bundles)
//! and a fixed number of deterministic mutations of them (byte flips, truncations, insertions of
//! interesting bytes, splices of two seeds, duplicated and dropped lines), from a fixed seed. A panic
//! fails the test and names the target and the mutation's input file, which is written under the
//! test's temporary folder. Longer runs: `cargo +nightly fuzz run <target>` in `fuzz/`;
//! `FUZZ_SMOKE_ITERATIONS` raises the count here.

use rand::{Rng, RngExt, SeedableRng};
use std::path::{Path, PathBuf};

const DEFAULT_ITERATIONS: usize = 1500;

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    seeds
}

const INTERESTING: &[&[u8]] = &[
    b"\0",
    b"\xff",
    b"\n",
    b"\"",
    b"[",
    b"]]",
    b"{",
    b"=",
    b"-1",
    b"0",
    b"4294967296",
    b"18446744073709551616",
    b"9223372036854775807",
    b"-9223372036854775808",
    b"1e309",
    b"NaN",
    b"inf",
    b"..",
    b"../../",
    b"/",
    b"\xc3",
    b"\xe2\x80\xae",
];

fn mutate(rng: &mut impl Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut d = seeds[rng.random_range(0..seeds.len())].clone();
    for _ in 0..rng.random_range(1..=4) {
        let len = d.len();
        match rng.random_range(0..7) {
            0 if len > 0 => {
                let i = rng.random_range(0..len);
                d[i] ^= 1 << rng.random_range(0..8);
            }
            1 if len > 0 => d.truncate(rng.random_range(0..len)),
            2 => {
                let i = rng.random_range(0..=len);
                let s = INTERESTING[rng.random_range(0..INTERESTING.len())];
                d.splice(i..i, s.iter().copied());
            }
            3 => {
                // Splice: the head of this input, the tail of another.
                let other = &seeds[rng.random_range(0..seeds.len())];
                let a = rng.random_range(0..=len);
                let b = rng.random_range(0..=other.len());
                d.truncate(a);
                d.extend_from_slice(&other[b..]);
            }
            4 | 5 => {
                // Whole lines, the unit of every format here: duplicate or drop one.
                let mut lines: Vec<Vec<u8>> =
                    d.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
                let i = rng.random_range(0..lines.len());
                if rng.random_bool(0.5) {
                    let l = lines[i].clone();
                    lines.insert(i, l);
                } else {
                    lines.remove(i);
                }
                d = lines.join(&b'\n');
            }
            _ if len > 0 => {
                // Overwrite a digit run with another number.
                let i = rng.random_range(0..len);
                if d[i].is_ascii_digit() {
                    let n = INTERESTING[rng.random_range(8..15)];
                    let end = (i..len).find(|&j| !d[j].is_ascii_digit()).unwrap_or(len);
                    d.splice(i..end, n.iter().copied());
                }
            }
            _ => {}
        }
    }
    d
}

fn smoke(target: &str) {
    let (_, entry) = ascend_tune::fuzz::TARGETS
        .iter()
        .find(|(n, _)| *n == target)
        .unwrap();
    let seeds = seeds(target);
    let n = std::env::var("FUZZ_SMOKE_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_ITERATIONS);
    // The seeds themselves first: they must parse without a panic too.
    for s in &seeds {
        entry(s);
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed ^ target.len() as u64);
    let keep = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-smoke");
    for i in 0..n {
        let input = mutate(&mut rng, &seeds);
        let caught = std::panic::catch_unwind(|| entry(&input));
        if caught.is_err() {
            std::fs::create_dir_all(&keep).unwrap();
            let f = keep.join(format!("{target}-{i}"));
            std::fs::write(&f, &input).unwrap();
            panic!(
                "fuzz target `{target}` panicked on mutation {i}; input saved to {}",
                f.display()
            );
        }
    }
}

#[test]
fn every_target_has_seeds_and_a_test() {
    let names: Vec<&str> = ascend_tune::fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "manifest",
            "lockfile",
            "journal",
            "bank",
            "trace",
            "last_run",
            "tiling_result",
            "msprof"
        ]
    );
    // The cargo-fuzz crate has a binary per target.
    let fuzz_toml =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/Cargo.toml"))
            .unwrap();
    for n in names {
        assert!(
            fuzz_toml.contains(&format!("name = \"{n}\"")),
            "fuzz/Cargo.toml has no target {n}"
        );
    }
}

#[test]
fn manifest() {
    smoke("manifest");
}
#[test]
fn lockfile() {
    smoke("lockfile");
}
#[test]
fn journal() {
    smoke("journal");
}
#[test]
fn bank() {
    smoke("bank");
}
#[test]
fn trace() {
    smoke("trace");
}
#[test]
fn last_run() {
    smoke("last_run");
}
#[test]
fn tiling_result() {
    smoke("tiling_result");
}
#[test]
fn msprof() {
    smoke("msprof");
}
