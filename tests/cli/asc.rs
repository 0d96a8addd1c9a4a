//! Ascend C single-source programs (`.asc`, CANN 9) on the twin: `fixtures/mul_asc` (kernel, tiling and
//! host program in one file, built by CMake with `find_package(ASC)` and `project(... LANGUAGES ASC)`)
//! runs through the tool, naive and reference, and agrees with z = x * y computed here; the package's
//! `twin-asc` compiles a lone `.asc` as `bisheng` would, reports a kernel fault at the `.asc` line, and
//! refuses a launch it cannot read, naming the line. Skipped, with the reason printed, only when cmake is
//! missing and CI is not set (`.ci/run` installs it).

use super::cann::without_cann;
use super::cmake::have_cmake;
use super::*;
use std::process::Command;

fn read_f32(path: &Path) -> Vec<f32> {
    std::fs::read(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `cargo ascend-tune run` in `project` with no CANN about, keeping the run folder: the op-measured
/// record (checked to be the twin's, modelled) and the one run folder, which holds a trace.
fn run_kept(project: &Path) -> (serde_json::Value, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let keep = PathBuf::from("1");
    let out = without_cann(
        project,
        home.path(),
        &["run", "--message-format", "json"],
        &[("ASCEND_TUNE_KEEP_RUNS", &keep)],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let measured = record(&out, "op-measured");
    assert_eq!(measured["backend"], "twin", "{measured}");
    assert_eq!(measured["modelled"], true, "{measured}");
    let mut runs = kept_runs(project);
    assert_eq!(runs.len(), 1, "{runs:?}");
    let run = runs.remove(0);
    assert!(run.join("twin.trace").is_file(), "no trace was left");
    (measured, run)
}

/// The run folder's z is x * y, one fp32 rounding of the exact product as Rust's f32 multiply: bit
/// for bit; and x was generated (not zeros, not y).
fn assert_products(run: &Path, what: &str) {
    let x = read_f32(&run.join("input/input_x.bin"));
    let y = read_f32(&run.join("input/input_y.bin"));
    let z = read_f32(&run.join("output/output_z.bin"));
    assert_eq!(z.len(), 48 * 8192, "{what}");
    assert!(
        x.iter().any(|v| *v != 0.0) && x != y,
        "{what}: inputs were not generated"
    );
    for i in 0..z.len() {
        assert_eq!(
            z[i].to_bits(),
            (x[i] * y[i]).to_bits(),
            "{what}: z[{i}] = {} for {} * {}",
            z[i],
            x[i],
            y[i]
        );
    }
}

#[test]
fn a_single_source_asc_project_runs_through_the_tool_and_agrees_with_rust() {
    if !have_cmake("a_single_source_asc_project_runs_through_the_tool_and_agrees_with_rust") {
        return;
    }
    let base = Path::new(FIXTURES).join("mul_asc");
    let mut latency = vec![];
    for (reference, block_dim) in [(false, 8), (true, 32)] {
        // The naive project, or its reference under the fixture's manifest.
        let dir = tempfile::tempdir().unwrap();
        copy_tree(
            &if reference {
                base.join("reference")
            } else {
                base.clone()
            },
            dir.path(),
        );
        std::fs::copy(base.join("ascend.toml"), dir.path().join("ascend.toml")).unwrap();
        let (measured, run) = run_kept(dir.path());
        assert_eq!(
            measured["block_dim"].as_u64(),
            Some(block_dim),
            "reference {reference}"
        );
        assert_products(&run, &format!("reference {reference}"));
        latency.push(measured["latency_us"].as_f64().unwrap());
    }
    assert!(
        latency[1] < latency[0],
        "the reference ({} us) is not faster than the naive version ({} us)",
        latency[1],
        latency[0]
    );
}

/// The twin package written by the real binary into a fresh folder.
fn package() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pkg");
    let out = cargo_ascend_tune(tmp.path(), &["twin-package", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{:?}", text(&out));
    tmp
}

fn twin_asc(pkg: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(pkg.join("pkg/tools/asc/bin/twin-asc"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn twin_asc_compiles_a_lone_file_and_locates_faults_and_bad_launches() {
    let pkg = package();
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(Path::new(FIXTURES).join("mul_asc/mul_custom.asc")).unwrap();
    std::fs::write(dir.path().join("mul.asc"), &src).unwrap();
    let out = twin_asc(
        pkg.path(),
        dir.path(),
        &["--npu-arch=dav-2201", "mul.asc", "-o", "mul"],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    std::fs::create_dir_all(dir.path().join("input")).unwrap();
    std::fs::create_dir_all(dir.path().join("output")).unwrap();
    let run = Command::new(dir.path().join("mul"))
        .current_dir(dir.path())
        .env("ASCEND_TWIN_TRACE", dir.path().join("t.trace"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{:?}", text(&run));
    assert!(text(&run).0.contains("elements match"), "{:?}", text(&run));
    assert!(dir.path().join("t.trace").is_file());

    // Copy out one tile past each block's share of z: the twin stops it, naming the call, the .asc
    // line and the block, and the program exits 3.
    let bad = src.replace(
        "AscendC::DataCopy(zGm[progress * TILE_LENGTH], zLocal, TILE_LENGTH);",
        "AscendC::DataCopy(zGm[(progress + tileNum) * TILE_LENGTH + 100000000], zLocal, TILE_LENGTH);",
    );
    assert_ne!(bad, src);
    let line = bad
        .lines()
        .position(|l| l.contains("+ 100000000]"))
        .unwrap()
        + 1;
    std::fs::write(dir.path().join("bad.asc"), &bad).unwrap();
    let out = twin_asc(pkg.path(), dir.path(), &["bad.asc", "-o", "bad"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let run = Command::new(dir.path().join("bad"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    let (stdout, stderr) = text(&run);
    assert_eq!(run.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("DataCopy")
            && stderr.contains(&format!("bad.asc:{line}"))
            && stderr.contains("block"),
        "{stderr}"
    );

    // A launch with no kernel name: an error at its line, before any C++ compiler message.
    std::fs::write(
        dir.path().join("nameless.asc"),
        "#include \"kernel_operator.h\"\nint main() {\n    <<<8, nullptr, nullptr>>>();\n}\n",
    )
    .unwrap();
    let out = twin_asc(pkg.path(), dir.path(), &["-c", "nameless.asc", "-o", "n.o"]);
    assert!(!out.status.success());
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("nameless.asc:3: error: kernel launch"),
        "{stderr}"
    );

    // A compiler that is not there: said so, with the fix, not a silent exit.
    let out = Command::new(pkg.path().join("pkg/tools/asc/bin/twin-asc"))
        .args(["mul.asc", "-o", "never"])
        .current_dir(dir.path())
        .env("TWIN_ASC_CXX", "no-such-compiler-here")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("no C++ compiler 'no-such-compiler-here'")
            && stderr.contains("TWIN_ASC_CXX"),
        "{stderr}"
    );
}

/// A kernel-launch project whose CMakeLists.txt lives in a subfolder and builds sources from beside it
/// (`examples/CMakeLists.txt` compiling `../kernel/mul_custom.asc`, as operator repositories lay out
/// their kernel examples): `cmake-source = "examples"` configures from there, the candidate copies the
/// whole project, and the result is still x * y.
#[test]
fn a_project_configured_from_a_subfolder_runs_with_cmake_source() {
    if !have_cmake("a_project_configured_from_a_subfolder_runs_with_cmake_source") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let base = Path::new(FIXTURES).join("mul_asc");
    std::fs::create_dir_all(p.join("kernel")).unwrap();
    std::fs::create_dir_all(p.join("examples")).unwrap();
    std::fs::copy(base.join("mul_custom.asc"), p.join("kernel/mul_custom.asc")).unwrap();
    std::fs::write(
        p.join("examples/CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.16)\nfind_package(ASC REQUIRED)\nproject(nested LANGUAGES ASC CXX)\n\
         add_executable(mul_custom ${CMAKE_CURRENT_SOURCE_DIR}/../kernel/mul_custom.asc)\n",
    )
    .unwrap();
    let manifest = std::fs::read_to_string(base.join("ascend.toml"))
        .unwrap()
        .replace(
            "layout = \"kernel-launch\"",
            "layout = \"kernel-launch\"\ncmake-source = \"examples\"",
        )
        .replace("\"mul_custom.asc\"", "\"kernel/mul_custom.asc\"");
    assert!(manifest.contains("cmake-source") && manifest.contains("kernel/mul_custom.asc"));
    std::fs::write(p.join("ascend.toml"), manifest).unwrap();
    let (_, run) = run_kept(p);
    assert_products(&run, "configured from examples/");
}

/// hicann/cann-samples build every sample from the repository root: a sample's CMakeLists.txt has no
/// project() and calls the repository's `cann_sample_check_arch` (a macro of its
/// `cmake/sample_common.cmake`) with the architectures it supports; init refused it, and before that
/// run failed with CMake's "Unknown CMake command". init now writes `cmake-include` naming the file
/// that defines the macro, the build goes through a wrapper that includes it with `NPU_ARCH` set to
/// the SoC's, and the result is still x * y.
#[test]
fn a_sample_of_a_larger_cmake_build_runs_through_a_wrapper() {
    if !have_cmake("a_sample_of_a_larger_cmake_build_runs_through_a_wrapper") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let p = repo.join("Samples/mul");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::create_dir_all(repo.join("cmake")).unwrap();
    let base = Path::new(FIXTURES).join("mul_asc");
    std::fs::copy(base.join("mul_custom.asc"), p.join("mul_custom.asc")).unwrap();
    std::fs::write(
        repo.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.16)\nif(NOT DEFINED NPU_ARCH)\n  message(FATAL_ERROR \"NPU_ARCH is required\")\nendif()\n\
         find_package(ASC)\nproject(samples LANGUAGES C CXX ASC)\ninclude(cmake/sample_common.cmake)\nadd_subdirectory(Samples/mul)\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("cmake/sample_common.cmake"),
        "macro(cann_sample_check_arch)\n  set(_archs ${ARGN})\n  if(NOT \"${NPU_ARCH}\" IN_LIST _archs)\n    message(STATUS \"skipped\")\n    return()\n  endif()\nendmacro()\n",
    )
    .unwrap();
    std::fs::write(
        p.join("CMakeLists.txt"),
        "cann_sample_check_arch(dav-2201 dav-3510)\nadd_executable(mul_custom mul_custom.asc)\n\
         target_compile_options(mul_custom PRIVATE \"$<$<COMPILE_LANGUAGE:ASC>:--npu-arch=${NPU_ARCH}>\")\n\
         target_link_libraries(mul_custom PRIVATE platform tiling_api msprofiler)\n",
    )
    .unwrap();
    let out = cargo_ascend_tune(&p, &["init", "--probe-seconds", "0"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains("cmake-include = [\"../../cmake/sample_common.cmake\"]"),
        "{manifest}"
    );
    assert!(manifest.contains("soc = \"Ascend910B1\""), "{manifest}");
    // init's manifest reads the program's files; the fixture's names them (x, y, z)
    let fixture = std::fs::read_to_string(base.join("ascend.toml")).unwrap();
    std::fs::write(
        p.join("ascend.toml"),
        fixture.replace(
            "layout = \"kernel-launch\"",
            "layout = \"kernel-launch\"\ncmake-include = [\"../../cmake/sample_common.cmake\"]",
        ),
    )
    .unwrap();
    let (_, run) = run_kept(&p);
    assert_products(&run, "built through the wrapper of a larger build");
}

/// `model-trace` times a trace file as the library's model does (same figure, labelled modelled, for
/// the SoC named), and a file that is not a trace, or a SoC the model does not know, is bad input
/// that names the file and line, or the SoCs there are.
#[test]
fn model_trace_times_a_trace_file_and_names_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let trace_text = "twin-trace 2\nblock 0 2\nI MTE2 DataCopy bytes=65536 bursts=1 burst=65536 gm=0 gap=0 cache=disable line=3\n\
                set MTE2 V e0\nwait MTE2 V e0\nI V Add dt=2 n=32768 rep=256 line=4\nset V MTE3 e0\nwait V MTE3 e0\n\
                I MTE3 DataCopy bytes=65536 bursts=1 burst=65536 gm=0 gap=0 line=5\nend\n\
                block 1 2\nI MTE2 DataCopy bytes=65536 bursts=1 burst=65536 gm=65536 gap=0 line=3\nend\n";
    let trace = dir.path().join("twin.trace");
    std::fs::write(&trace, trace_text).unwrap();
    let soc = ascend_tune::model::soc::lookup("Ascend910B4").unwrap();
    let want = ascend_tune::model::model_trace(trace_text, soc, &Default::default()).unwrap();
    let out = cargo_ascend_tune(
        dir.path(),
        &[
            "model-trace",
            "twin.trace",
            "--soc",
            "Ascend910B4",
            "--message-format",
            "json",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let r = record(&out, "trace-modelled");
    assert_eq!(r["latency_us"].as_f64().unwrap(), want.latency_us, "{r}");
    assert_eq!(r["soc"], "Ascend910B4");
    assert_eq!(r["modelled"], true);
    assert_eq!(r["block_dim"], 2);
    assert_eq!(r["pipes"].as_array().unwrap().len(), want.pipes.len());

    let human = cargo_ascend_tune(
        dir.path(),
        &["model-trace", "twin.trace", "--soc", "Ascend910B4"],
    );
    let (stdout, _) = text(&human);
    assert!(
        stdout.contains(&format!(
            "{:.3} us modelled on Ascend910B4",
            want.latency_us
        )),
        "{stdout}"
    );
    assert!(stdout.contains("not measured on hardware"), "{stdout}");

    std::fs::write(
        dir.path().join("bad.trace"),
        "twin-trace 2\nblock 0 1\nI V Add oops\nend\n",
    )
    .unwrap();
    let bad = cargo_ascend_tune(dir.path(), &["model-trace", "bad.trace"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad).1.contains("bad.trace:3"), "{:?}", text(&bad));

    let unknown = cargo_ascend_tune(
        dir.path(),
        &["model-trace", "twin.trace", "--soc", "Ascend999"],
    );
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        text(&unknown).1.contains("Ascend910B1"),
        "{:?}",
        text(&unknown)
    );
}

/// A program in the style of cann-learning-hub's tutorial answers: it reads its inputs and writes its
/// output with `ReadFile` / `WriteFile` of a size its `main` computes (`length * sizeof(float)`, 3 x
/// 8192 floats here, where init's default is [48, 16384] float16). `init` gives each tensor that many
/// float32 elements, and `run` runs the program unedited; z is x * y. The
/// tutorial answer 02.05 had failed at `run` ("the program wrote 4092 bytes ...").
#[test]
fn init_sizes_a_programs_tensors_by_what_its_own_read_and_write_calls_move() {
    if !have_cmake("init_sizes_a_programs_tensors_by_what_its_own_read_and_write_calls_move") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    copy_tree(&Path::new(FIXTURES).join("mul_asc"), p);
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let file = p.join("mul_custom.asc");
    let mut s = std::fs::read_to_string(&file).unwrap();
    for (from, to) in [
        (
            "constexpr uint32_t ROWS = 48;",
            "constexpr uint32_t ROWS = 3;",
        ),
        (
            "static bool LoadOrGenerate(",
            "#include <string>\n\
             static bool ReadFile(const std::string &path, size_t &fileSize, void *buffer, size_t bufferSize)\n\
             {\n\
                 FILE *f = std::fopen(path.c_str(), \"rb\");\n\
                 if (f == nullptr) return false;\n\
                 size_t got = std::fread(buffer, 1, bufferSize, f);\n\
                 std::fclose(f);\n\
                 fileSize = got;\n\
                 return got == bufferSize;\n\
             }\n\
             static bool WriteFile(const std::string &path, const void *buffer, size_t size)\n\
             {\n\
                 FILE *f = std::fopen(path.c_str(), \"wb\");\n\
                 bool ok = f != nullptr && std::fwrite(buffer, 1, size, f) == size;\n\
                 return f != nullptr && std::fclose(f) == 0 && ok;\n\
             }\n\
             static bool LoadOrGenerate(",
        ),
        (
            "if (!LoadOrGenerate(\"input/input_x.bin\", x, 1) || !LoadOrGenerate(\"input/input_y.bin\", y, 2)) {",
            "size_t dataSize = length * sizeof(float);\n    \
             if (!ReadFile(\"./input/input_x.bin\", dataSize, x.data(), dataSize) ||\n        \
             !ReadFile(\"./input/input_y.bin\", dataSize, y.data(), dataSize)) {",
        ),
        (
            "FILE *f = std::fopen(\"output/output_z.bin\", \"wb\");\n    \
             if (f == nullptr || std::fwrite(z.data(), 1, bytes, f) != bytes || std::fclose(f) != 0) {",
            "if (!WriteFile(\"./output/output_z.bin\", z.data(), dataSize)) {",
        ),
    ] {
        assert!(s.contains(from), "{from}");
        s = s.replace(from, to);
    }
    std::fs::write(&file, s).unwrap();

    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    // (the files the calls name are the manifest's default ones; the run below reads and writes them)
    for (kind, name) in [("input", "x"), ("input", "y"), ("output", "z")] {
        let want = format!(
            "[[op.{kind}]]\nname = \"{name}\"\ndtype = \"float32\"\nshape = [24576]   # float32 24576 elements: the program's"
        );
        assert!(
            manifest.contains(&want),
            "{want:?} missing from\n{manifest}"
        );
    }

    let (measured, run) = run_kept(p);
    assert!(measured["latency_us"].as_f64().unwrap() > 0.0);
    let x = read_f32(&run.join("input/input_x.bin"));
    let y = read_f32(&run.join("input/input_y.bin"));
    let z = read_f32(&run.join("output/output_z.bin"));
    assert_eq!((x.len(), y.len(), z.len()), (24576, 24576, 24576));
    assert!(
        x.iter().any(|v| *v != 0.0) && x != y,
        "inputs were not generated"
    );
    for i in 0..z.len() {
        assert_eq!(z[i].to_bits(), (x[i] * y[i]).to_bits(), "z[{i}]");
    }
}
