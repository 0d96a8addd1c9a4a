//! What `run` says about an op's outputs and about the time the user waited: the manifest's `golden`
//! command as part of the verdict, warnings for degenerate outputs, and the twin runtime compiled once
//! per machine in the user's cache folder, not once per project.

use super::*;

/// A golden script in the style of the CANN samples' verify scripts, independent of the tool: reads
/// the fp16 files it is given (x, y, z) and checks z == x + y within fp16 rounding.
const ADD_GOLDEN: &str = r#"import struct, sys
x, y, z = (open(p, "rb").read() for p in sys.argv[1:4])
n = len(z) // 2
x, y, z = (struct.unpack("<%de" % n, b) for b in (x, y, z))
bad = [i for i in range(n) if abs(z[i] - (x[i] + y[i])) > 1e-3 * (1 + abs(x[i] + y[i]))]
if bad:
    print("%d of %d elements differ, first at %d: %r, want %r" % (len(bad), n, bad[0], z[bad[0]], x[bad[0]] + y[bad[0]]))
    sys.exit(1)
"#;

fn with_golden(p: &Path) {
    std::fs::create_dir_all(p.join("scripts")).unwrap();
    std::fs::write(p.join("scripts/golden.py"), ADD_GOLDEN).unwrap();
    let manifest = std::fs::read_to_string(p.join("ascend.toml"))
        .unwrap()
        .replace(
            "host = [\"op_host/add_custom.cpp\"]\n",
            "host = [\"op_host/add_custom.cpp\"]\ngolden = [\"python3\", \"scripts/golden.py\"]\n",
        );
    assert!(manifest.contains("golden = "));
    std::fs::write(p.join("ascend.toml"), manifest).unwrap();
}

/// The fixture's kernel with its `Add` call replaced by `call`.
fn replace_add(p: &Path, call: &str) {
    let kernel = p.join("op_kernel/add_custom.cpp");
    let text =
        std::fs::read_to_string(Path::new(FIXTURES).join("add_custom/op_kernel/add_custom.cpp"))
            .unwrap();
    let add = "AscendC::Add(zLocal, xLocal, yLocal, this->tileLength);";
    assert!(text.contains(add));
    std::fs::write(&kernel, text.replace(add, call)).unwrap();
}

#[test]
fn the_golden_command_is_part_of_the_verdict_of_run() {
    let dir = project("add_custom");
    let p = dir.path();
    with_golden(p);
    let out = cargo_ascend_tune(p, &["run", "--message-format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let g = record(&out, "op-golden");
    assert_eq!(g["passed"], true, "{g}");
    assert_eq!(
        g["command"],
        serde_json::json!(["python3", "scripts/golden.py"])
    );
    assert_eq!(record(&out, "op-timings")["golden"], true);

    // The same op computing x - y: it runs, but its outputs are wrong, and run says so (exit 1).
    replace_add(p, "AscendC::Sub(zLocal, xLocal, yLocal, this->tileLength);");
    let out = cargo_ascend_tune(p, &["run"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("us modelled"),
        "the measurement is still shown: {stdout}"
    );
    assert!(
        stderr.contains("`python3 scripts/golden.py` rejected the outputs (exit code 1)")
            && stderr.contains("elements differ, first at"),
        "{stderr}"
    );
}

#[test]
fn degenerate_outputs_draw_warnings() {
    let dir = project("add_custom");
    let p = dir.path();
    // x - x: all zeros.
    replace_add(p, "AscendC::Sub(zLocal, xLocal, xLocal, this->tileLength);");
    let out = cargo_ascend_tune(p, &["run", "--message-format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let warnings: Vec<String> = records(&out)
        .into_iter()
        .filter(|r| r["reason"] == "warning")
        .map(|r| r["message"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("output `z` of op `add_custom` is all zeros (786432 elements)"),
        "{warnings:?}"
    );
    // x + 0: a copy of x.
    replace_add(
        p,
        "AscendC::Adds(zLocal, xLocal, (DTYPE_Z)0.0f, this->tileLength);",
    );
    let out = cargo_ascend_tune(p, &["run"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning: output `z` of op `add_custom` is identical to input `x`"),
        "{stderr}"
    );
}

/// A block that never writes its share (ops-nn's hinge_loss_grad wrote 188160 of its 786432 output
/// elements at [48, 16384]): the twin starts outputs as zeros, so the outputs looked plausible; `run`
/// now runs again with the outputs filled and names the elements that depend on what they held.
#[test]
fn outputs_a_block_never_writes_draw_a_warning_that_says_where() {
    let dir = project("add_custom");
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["run"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("depend on what the output held"),
        "{stderr}"
    );
    let kernel = p.join("op_kernel/add_custom.cpp");
    let source = std::fs::read_to_string(&kernel).unwrap();
    let skipped = source.replace(
        "    op.Process();",
        "    if (AscendC::GetBlockIdx() != 3) {\n        op.Process();\n    }",
    );
    assert_ne!(skipped, source);
    std::fs::write(&kernel, skipped).unwrap();
    let out = cargo_ascend_tune(p, &["run"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "output `z` of op `add_custom`: 98304 of 786432 elements (elements 294912..393216) depend on what the output held before the kernel ran"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("does every block and every tile get its share?"),
        "{stderr}"
    );
    // An output the OpDef has the framework fill first (`InitValue`) may be left as it is.
    let host = p.join("op_host/add_custom.cpp");
    let def = std::fs::read_to_string(&host).unwrap();
    let filled = def.replace(
        "this->Output(\"z\")\n            .ParamType(REQUIRED)",
        "this->Output(\"z\")\n            .ParamType(REQUIRED)\n            .InitValue(0)",
    );
    assert_ne!(filled, def);
    std::fs::write(&host, filled).unwrap();
    let out = cargo_ascend_tune(p, &["run"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("depend on what the output held"),
        "{stderr}"
    );
}

/// `run` in `dir` with the user cache at `xdg` and no shared build cache, as a new user runs it.
fn fresh_run(dir: &Path, xdg: &Path) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_cargo-ascend-tune"))
        .args(["ascend-tune", "run", "--message-format", "json"])
        .current_dir(dir)
        .env_remove("ASCEND_TUNE_BUILD_CACHE")
        .env("XDG_CACHE_HOME", xdg)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// The twin runtime is compiled once per machine, in the user's cache folder: two first runs at once
/// (fresh projects, empty cache) both succeed, and a third project's first run finds it, and says so.
#[test]
fn the_twin_runtime_is_compiled_once_per_machine_in_the_user_cache() {
    let xdg = tempfile::tempdir().unwrap();
    let projects: Vec<_> = (0..3).map(|_| project("add_custom")).collect();
    let first: Vec<_> = projects[..2]
        .iter()
        .map(|p| fresh_run(p.path(), xdg.path()))
        .collect();
    let mut latencies = vec![];
    for child in first {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
        let t = record(&out, "op-timings");
        assert!(t["setup_s"].as_f64().unwrap() > 0.0, "{t}");
        latencies.push(record(&out, "op-measured")["latency_us"].clone());
    }
    let out = fresh_run(projects[2].path(), xdg.path())
        .wait_with_output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let t = record(&out, "op-timings");
    assert_eq!(t["setup_cached"], true, "{t}");
    let root = xdg.path().join("cargo-ascend-tune/twin");
    assert!(
        t["setup"]
            .as_str()
            .unwrap()
            .contains(&root.display().to_string()),
        "{t}"
    );
    // Every second is counted: the parts add up to no more than the total.
    let parts: f64 = ["setup_s", "inputs_s", "build_s", "run_s", "checks_s"]
        .iter()
        .map(|k| t[*k].as_f64().unwrap())
        .sum();
    assert!(parts <= t["total_s"].as_f64().unwrap() + 0.01, "{t}");
    assert_eq!(record(&out, "op-measured")["latency_us"], latencies[0]);
    assert_eq!(latencies[0], latencies[1]);
    // No project built a runtime of its own, and no half-made entry is left in the cache.
    for p in &projects {
        assert!(!p.path().join("target/ascend-tune/twin").exists());
    }
    let leftovers: Vec<_> = walk(&root)
        .into_iter()
        .filter(|f| {
            f.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.') && n != ".complete")
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

/// A header the build reaches outside the folders of the listed sources (here a subfolder) is part of
/// what a cached program stands for: editing it builds again. Before, `run` served the program built
/// before the edit (found on ops-nn's foreach ops, whose tiling lives in `../foreach_utils/`).
#[test]
fn editing_a_header_in_another_folder_builds_again() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::create_dir_all(p.join("op_host/params")).unwrap();
    std::fs::write(
        p.join("op_host/params/blocks.h"),
        "#pragma once\nconst uint32_t BLOCK_DIM = 8; // blocks the op is split over\n",
    )
    .unwrap();
    let host = p.join("op_host/add_custom.cpp");
    let source = std::fs::read_to_string(&host).unwrap().replace(
        "const uint32_t BLOCK_DIM = 8;     // blocks the op is split over\n",
        "#include \"params/blocks.h\"\n",
    );
    std::fs::write(&host, source).unwrap();
    // the block_dim tunable names the header now
    let manifest = std::fs::read_to_string(p.join("ascend.toml"))
        .unwrap()
        .replacen(
            "file = \"op_host/add_custom.cpp\"\nsymbol = \"BLOCK_DIM\"",
            "file = \"op_host/params/blocks.h\"\nsymbol = \"BLOCK_DIM\"",
            1,
        );
    assert!(manifest.contains("op_host/params/blocks.h"));
    std::fs::write(p.join("ascend.toml"), manifest).unwrap();
    let measured = |p: &Path| {
        let o = cargo_ascend_tune(p, &["run", "--message-format", "json"]);
        assert!(o.status.success(), "{:?}", text(&o));
        record(&o, "op-measured")
    };
    let before = measured(p);
    assert_eq!(before["block_dim"], 8, "{before}");
    std::fs::write(
        p.join("op_host/params/blocks.h"),
        "#pragma once\nconst uint32_t BLOCK_DIM = 4; // blocks the op is split over\n",
    )
    .unwrap();
    let after = measured(p);
    assert_eq!(
        after["block_dim"], 4,
        "the edited header was built: {after}"
    );
}

/// `inplace_scale_custom`'s kernel without its own wait for the copy-out before the next copy-in.
fn drop_copy_out_wait(p: &Path) {
    let kernel = p.join("op_kernel/inplace_scale_custom.cpp");
    let source = std::fs::read_to_string(&kernel).unwrap();
    let wait = "            AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(copiedOut);\n";
    assert!(source.contains(wait));
    std::fs::write(&kernel, source.replace(wait, "")).unwrap();
}

/// A kernel that copies a tile out of the buffer it computed in and frees that buffer for the next
/// copy-in: with its own MTE3 -> MTE2 wait `run` is clean; without it the twin's outputs are still
/// right (it runs copies in program order), and `run` names the copy-in that may overwrite UB the
/// copy-out is still reading.
#[test]
fn run_names_a_copy_in_that_may_overwrite_a_copy_out_nothing_waits_for() {
    let dir = test_project("inplace_scale_custom");
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["run", "--color", "never"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(!text(&out).1.contains("UB race"), "{:?}", text(&out));

    drop_copy_out_wait(p);
    let out = cargo_ascend_tune(p, &["run", "--color", "never"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let (_, err) = text(&out);
    assert!(
        err.contains(
            "UB race: the copy into UB at line 22 may overwrite UB bytes 0..4096 that the copy out at line 29 is still reading (block 0)"
        ),
        "{err}"
    );
}

/// The same kernel without its wait, at a shape where no core reuses a buffer (two tiles, two
/// buffers): `run` has nothing to say, but the largest shape probe gives each core four tiles, and the
/// probe is checked for races as the timed run is (the twin's outputs are right either way).
#[test]
fn a_shape_probe_that_reuses_a_buffer_is_checked_for_ub_races() {
    let dir = test_project("inplace_scale_custom");
    let p = dir.path();
    drop_copy_out_wait(p);
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(manifest.contains("shape = [8, 4096]"));
    std::fs::write(
        p.join("ascend.toml"),
        manifest.replace("shape = [8, 4096]", "shape = [8, 2048]"),
    )
    .unwrap();
    let out = cargo_ascend_tune(p, &["run", "--color", "never"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(!text(&out).1.contains("UB race"), "{:?}", text(&out));
    let out = cargo_ascend_tune(
        p,
        &["tune", "--allow-dirty", "--budget", "1", "--color", "never"],
    );
    let (_, err) = text(&out);
    assert!(
        err.contains("shape probe `largest [16, 2048]` left out: the sources as they are fail on it (fault): UB race: the copy into UB at line 22"),
        "{err}"
    );
}

/// The model's notes (here UB bank conflicts in the layernorm fixture's naive kernel) reach the user:
/// a `note:` line under the pipes in `run`'s report, and `notes` in its JSON record. Before, they
/// reached only `model-trace`.
#[test]
fn run_prints_the_model_notes() {
    let dir = project("layernorm_custom");
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["run"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "run failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("  note: UB bank conflicts: 13% of the vector pipe's modelled cycles"),
        "{stdout}"
    );
    let out = cargo_ascend_tune(p, &["run", "--message-format", "json"]);
    let measured = records(&out)
        .into_iter()
        .find(|r| r["reason"] == "op-measured")
        .expect("an op-measured record");
    let notes = measured["notes"].as_array().expect("notes");
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("UB bank conflicts: 13%")),
        "{measured}"
    );
}
