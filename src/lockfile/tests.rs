use super::*;
use crate::measure::samples::Summary;

fn entry(name: &str, latency: f64) -> Entry {
    Entry {
        name: name.into(),
        shape: "x:float16[48,16384] z:float16[48,16384]".into(),
        soc: "Ascend910B1".into(),
        backend: "twin".into(),
        latency_us: latency,
        latency_samples: None,
        baseline_latency_us: 100.0,
        modelled: true,
        strategy: "host".into(),
        seed: 1,
        trials: 32,
        tool: "0.1.0".into(),
        toolchain: "twin-abc".into(),
        space: "def".into(),
        params: BTreeMap::from([("block_dim".into(), 48), ("tile_length".into(), 8192)]),
        rewrites: vec![],
        sources: BTreeMap::from([("op_host/a.cpp".into(), "hash1".into())]),
    }
}

#[test]
fn render_is_deterministic_sorted_and_reads_back() {
    let mut a = Lockfile::default();
    a.upsert(entry("zeta", 2.0));
    a.upsert(entry("alpha", 1.23456));
    let mut b = Lockfile::default();
    b.upsert(entry("alpha", 1.23456));
    b.upsert(entry("zeta", 2.0));
    assert_eq!(a.render(), b.render());
    let text = a.render();
    assert!(text.find("alpha").unwrap() < text.find("zeta").unwrap());
    assert!(text.contains("latency-us = 1.235\n"));
    let back = Lockfile::parse(&text, Path::new("ascend-tune.lock")).unwrap();
    assert_eq!(back.entries.len(), 2);
    assert_eq!(
        back.find("alpha", &entry("alpha", 0.0).shape, "Ascend910B1", "twin")
            .unwrap()
            .params["block_dim"],
        48
    );
}

#[test]
fn pinned_text_of_version_1() {
    let mut l = Lockfile::default();
    l.upsert(entry("add_custom", 4.5));
    let expected = r#"# This file is written by cargo-ascend-tune. Commit it; do not edit it by hand.
# `cargo ascend-tune check` fails when an op is slower than recorded here.
version = 1

[[op]]
name = "add_custom"
shape = "x:float16[48,16384] z:float16[48,16384]"
soc = "Ascend910B1"
backend = "twin"
latency-us = 4.500
baseline-latency-us = 100.000
modelled = true
strategy = "host"
seed = 1
trials = 32
tool = "0.1.0"
toolchain = "twin-abc"
space = "def"
params = { block_dim = 48, tile_length = 8192 }
rewrites = []

[op.sources]
"op_host/a.cpp" = "hash1"
"#;
    assert_eq!(l.render(), expected);
    // An old lockfile reads back to the same text.
    assert_eq!(
        Lockfile::parse(expected, Path::new("x")).unwrap().render(),
        expected
    );
}

#[test]
fn bad_and_newer_lockfiles_are_clear_errors() {
    let p = Path::new("ascend-tune.lock");
    assert!(
        Lockfile::parse("version = 2\n", p)
            .unwrap_err()
            .message
            .contains("newer")
    );
    assert!(
        Lockfile::parse("nonsense = [", p)
            .unwrap_err()
            .message
            .contains("TOML")
    );
    assert!(
        Lockfile::parse("[[op]]\nname = 1\n", p)
            .unwrap_err()
            .message
            .contains("version")
    );
    let e = Lockfile::parse("version = 1\n[[op]]\nname = \"a\"\n", p).unwrap_err();
    assert!(e.message.contains("line"), "{}", e.message);
}

#[test]
fn unchanged_lockfile_is_not_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(FILE_NAME);
    let mut l = Lockfile::default();
    l.upsert(entry("a", 1.0));
    assert!(l.write(&p).unwrap());
    assert!(!l.write(&p).unwrap());
}

#[test]
fn a_measured_entry_keeps_its_spread_and_reads_back() {
    let mut e = entry("add_custom", 12.42);
    e.backend = "cann".into();
    e.modelled = false;
    e.latency_samples = Some(Summary {
        n: 11,
        median: 12.42,
        p20: 12.39,
        p80: 12.45,
        min: 12.36,
        max: 12.52,
    });
    let mut l = Lockfile::default();
    l.upsert(e.clone());
    let text = l.render();
    assert!(
        text.contains(
            "latency-us = 12.420\nlatency-samples = { n = 11, median = 12.420, p20 = 12.390, p80 = 12.450, min = 12.360, max = 12.520 }\nbaseline-latency-us = 100.000\n"
        ),
        "{text}"
    );
    let back = Lockfile::parse(&text, Path::new("x")).unwrap();
    assert_eq!(back.entries[0], e);
    assert_eq!(back.render(), text);
}

#[test]
fn a_summary_out_of_order_is_a_clear_error() {
    let mut l = Lockfile::default();
    l.upsert(entry("a", 1.0));
    let text = l.render().replace(
        "latency-us = 1.000\n",
        "latency-us = 1.000\nlatency-samples = { n = 3, median = 1.0, p20 = 1.2, p80 = 1.1, min = 0.9, max = 1.3 }\n",
    );
    let e = Lockfile::parse(&text, Path::new("ascend-tune.lock")).unwrap_err();
    assert!(
        e.message.contains("line 11") && e.message.contains("min <= p20 <= median"),
        "{}",
        e.message
    );
    let unknown = l.render().replace(
        "latency-us = 1.000\n",
        "latency-us = 1.000\nlatency-samples = { n = 3, median = 1.0, p20 = 1.0, p80 = 1.0, min = 1.0, max = 1.0, mean = 1.0 }\n",
    );
    assert!(Lockfile::parse(&unknown, Path::new("x")).is_err());
}
