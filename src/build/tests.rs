//! The build-script API on a copy of the add_custom fixture with a lock made from its own sources.

use super::*;
use crate::lockfile::Entry;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/add_custom");

/// A copy of the fixture's project files and, unless `lock` is false, a lock that matches them.
fn project(lock: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["op_host", "op_kernel"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        for e in std::fs::read_dir(Path::new(FIXTURE).join(sub)).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, dir.path().join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(
        Path::new(FIXTURE).join("ascend.toml"),
        dir.path().join("ascend.toml"),
    )
    .unwrap();
    if lock {
        let m = Manifest::load(&dir.path().join("ascend.toml")).unwrap();
        let op = &m.ops[0];
        let sources = crate::tune::read_sources(&m, op).unwrap();
        let mut l = Lockfile::default();
        l.upsert(Entry {
            name: op.name.clone(),
            shape: op.shape_key(),
            soc: m.soc.clone(),
            backend: "twin".into(),
            latency_us: 10.0,
            latency_samples: None,
            baseline_latency_us: 20.0,
            modelled: true,
            strategy: "host".into(),
            seed: 0,
            trials: 4,
            tool: "0.1.0".into(),
            toolchain: "t".into(),
            space: "s".into(),
            params: [
                ("block_dim".to_string(), 8),
                ("tile_length".to_string(), 512),
            ]
            .into(),
            rewrites: vec![],
            sources: sources
                .iter()
                .map(|(f, t)| (f.clone(), crate::fsx::hash_hex(t.as_bytes())))
                .collect(),
        });
        l.write(&Lockfile::path(dir.path())).unwrap();
    }
    dir
}

#[test]
fn matching_sources_pass_and_every_file_is_watched() {
    let dir = project(true);
    let locked = verify_dir(dir.path(), false).unwrap();
    assert_eq!(locked.ops.len(), 1);
    let op = &locked.ops[0];
    assert_eq!(op.name, "add_custom");
    assert_eq!(op.params["block_dim"], 8);
    let watched = locked.rerun_if_changed();
    let root = std::path::absolute(dir.path()).unwrap();
    for f in [
        "ascend.toml",
        "ascend-tune.lock",
        "op_host/add_custom.cpp",
        "op_kernel/add_custom.cpp",
    ] {
        assert!(watched.contains(&root.join(f)), "{f} not in {watched:?}");
    }
    assert_eq!(
        op.param_env_lines(),
        [
            "cargo:rustc-env=ASCEND_TUNE_ADD_CUSTOM_BLOCK_DIM=8",
            "cargo:rustc-env=ASCEND_TUNE_ADD_CUSTOM_TILE_LENGTH=512"
        ]
    );
    assert!(locked.warnings.is_empty());
}

#[test]
fn a_changed_kernel_is_refused_with_the_op_the_file_and_the_fix() {
    let dir = project(true);
    let kernel = dir.path().join("op_kernel/add_custom.cpp");
    let text = std::fs::read_to_string(&kernel).unwrap();
    std::fs::write(&kernel, format!("{text}\n// edited\n")).unwrap();
    let err = verify_dir(dir.path(), false).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("op `add_custom`")
            && message.contains("op_kernel/add_custom.cpp")
            && message.contains("ascend-tune.lock"),
        "{message}"
    );
    let help = miette::Diagnostic::help(&err).unwrap().to_string();
    assert!(help.contains("cargo ascend-tune tune"), "{help}");

    // Let through on request, with the same words as a warning.
    let locked = verify_dir(dir.path(), true).unwrap();
    assert_eq!(locked.warnings.len(), 1);
    assert!(locked.warnings[0].contains("op_kernel/add_custom.cpp"));
}

#[test]
fn an_op_missing_from_the_lock_is_refused() {
    let dir = project(false);
    let err = verify_dir(dir.path(), false).unwrap_err();
    assert!(
        matches!(&err, BuildError::NotLocked { op, .. } if op == "add_custom"),
        "{err}"
    );
    let help = miette::Diagnostic::help(&err).unwrap().to_string();
    assert!(help.contains("cargo ascend-tune tune"), "{help}");
}

#[test]
fn a_broken_lockfile_names_itself() {
    let dir = project(true);
    std::fs::write(
        Lockfile::path(dir.path()),
        "version = 1\n[[op]]\nname = 3\n",
    )
    .unwrap();
    let err = verify_dir(dir.path(), false).unwrap_err();
    assert!(
        matches!(&err, BuildError::Tool(Error::Lockfile(_))),
        "{err:?}"
    );
    assert!(err.to_string().contains("ascend-tune.lock"), "{err}");
}

#[test]
fn env_words_are_upper_snake_case() {
    assert_eq!(env_word("add_custom"), "ADD_CUSTOM");
    assert_eq!(env_word("tile-length.x"), "TILE_LENGTH_X");
}
