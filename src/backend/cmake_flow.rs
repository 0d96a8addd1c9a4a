//! The CMake flow of a kernel-launch project (FACTS.md §5, "Kernel-launch project"): each candidate is
//! built in a patched copy of the project under `target/ascend-tune/cann/<content key>/` with the
//! project's own `CMakeLists.txt` (`cmake -B build -DRUN_MODE=<mode> -DSOC_VERSION=<soc>
//! -DASCEND_CANN_PACKAGE_PATH=<cann> -DCMAKE_BUILD_TYPE=Release`, or for CANN 9 `find_package(ASC)`
//! projects `-DCMAKE_ASC_RUN_MODE=<mode> -DCMAKE_ASC_ARCHITECTURES=<arch>` and no build type, as their
//! READMEs configure them, then `cmake --build build`),
//! and run in a folder of its own per trial, with the inputs written where the program reads them and the
//! outputs read where it writes them. In cpu mode against the twin package the run leaves a twin trace
//! that the performance model times (modelled); in sim and npu mode the run is profiled with msprof
//! (`cann::profile`).
//!
//! Also here, because the custom-op flow shares them: the candidate folder (content key, file lock,
//! patched copy) and the per-trial run folder. Every child runs through `crate::child` (time limit,
//! memory limit, process-group kill). Knows nothing of where CANN was found, of searching, journals or
//! lockfiles.

use super::cann::locate::Install;
use super::cann::profile::{self, Profiler};
use super::{Artifact, FailureKind, Inputs, Measurement, SourceSet, TrialFailure};
use crate::child::{self, Finished, Trust};
use crate::errors::{Error, Result};
use crate::fsx::{self, KeyHasher};
use crate::manifest::{OpSpec, RunMode};
use crate::model::soc::Soc;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

const CONFIGURE_LIMIT: Duration = Duration::from_secs(300);
const BUILD_LIMIT: Duration = Duration::from_secs(900);
/// Wall-clock limit of one program run on the CPU unless `ASCEND_TUNE_RUN_TIMEOUT` (seconds) says
/// otherwise.
const RUN_LIMIT: Duration = Duration::from_secs(120);
/// The twin's exit code for a kernel fault (templates/twin/README.md).
const TWIN_EXIT_FAULT: i32 = 3;

/// Top-level folders of a project that are build products or working files, never part of a candidate.
const SKIPPED_DIRS: &[&str] = &[
    "target",
    ".git",
    "build",
    "build_out",
    "out",
    "input",
    "output",
];
/// Top-level files of this tool's own, which no build reads: left out so that writing the lock does not
/// make the tuned candidate a new build.
const SKIPPED_FILES: &[&str] = &["ascend.toml", "ascend-tune.lock", "ascend-bank.toml"];

/// The wall-clock limit of one run: `ASCEND_TUNE_RUN_TIMEOUT` seconds when set, else `default`.
pub fn run_limit(default: Duration) -> Duration {
    std::env::var("ASCEND_TUNE_RUN_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(default, Duration::from_secs_f64)
}

/// The CANN a flow builds against, with the environment its set-up script exported.
#[derive(Debug, Clone)]
pub struct Toolchain {
    pub install: Install,
    /// Set on every build and run, on top of this process's environment.
    pub env: Vec<(OsString, OsString)>,
    /// Part of every cache key: the install's path and version.
    pub fingerprint: String,
}

impl Toolchain {
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd
    }

    /// The value a variable has in the toolchain's environment (exported by the set-up script, else
    /// this process's).
    pub fn var(&self, name: &str) -> Option<OsString> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var_os(name))
    }
}

/// Which CMake interface a kernel-launch project has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    /// The samples' `RUN_MODE` / `SOC_VERSION` / `ASCEND_CANN_PACKAGE_PATH` cache variables.
    RunMode,
    /// CANN 9: `find_package(ASC)` with `CMAKE_ASC_RUN_MODE` and `CMAKE_ASC_ARCHITECTURES`.
    Asc,
}

/// Whether `cmakelists` calls the CMake command `command` (lower case) outside a comment, with a first
/// argument starting with `first` (lower case; "" for any).
fn calls(cmakelists: &str, command: &str, first: &str) -> bool {
    cmakelists.lines().any(|line| {
        let code = line.split('#').next().unwrap_or("");
        let lower = code.to_ascii_lowercase();
        let mut rest = lower.as_str();
        while let Some(at) = rest.find(command) {
            let before = rest[..at].chars().next_back();
            let after = rest[at + command.len()..].trim_start();
            if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                if let Some(args) = after.strip_prefix('(') {
                    if let Some(tail) = args.trim_start().strip_prefix(first) {
                        if first.is_empty()
                            || !tail.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                        {
                            return true;
                        }
                    }
                }
            }
            rest = &rest[at + 1..];
        }
        false
    })
}

/// `Asc` when a `CMakeLists.txt` calls `find_package(ASC ...)` outside a comment.
pub fn generation(cmakelists: &str) -> Generation {
    if calls(cmakelists, "find_package", "asc") {
        Generation::Asc
    } else {
        Generation::RunMode
    }
}

/// Whether a `CMakeLists.txt` declares a `project()`: one that does not is part of a larger build and
/// cannot be configured alone (CMake would make a C/C++ project of it, without the ASC language).
pub fn declares_project(cmakelists: &str) -> bool {
    calls(cmakelists, "project", "")
}

/// The `CMAKE_ASC_ARCHITECTURES` value of a SoC: `dav-2201` for the A2/A3 chips (910B, 910_93), as the
/// CANN 9 samples pass it, `dav-3510` for Ascend950. None for SoCs whose architecture name this tool does
/// not know.
pub fn asc_architecture(soc: &Soc) -> Option<&'static str> {
    if soc.name == "Ascend950" {
        return Some("dav-3510");
    }
    (soc.name.starts_with("Ascend910B") || soc.name.starts_with("Ascend910_93"))
        .then_some("dav-2201")
}

/// The top-level CMakeLists.txt that builds a project whose CMakeLists.txt is part of a larger build
/// (no project() of its own; hicann/cann-samples build every sample from the repository root): the
/// ASC package and a project, as that build declares them, `NPU_ARCH` (what the samples pass their
/// compiler and check their architecture against) set to the SoC's, the larger build's CMake files
/// that define what the project calls, and the project's folder. The rest of the larger build (its
/// toolkit search, third-party checkouts) stays out.
pub fn wrapper(source: &Path, includes: &[PathBuf], arch: Option<&str>) -> String {
    let mut out = String::from(
        "# Written by cargo-ascend-tune: the project's CMakeLists.txt is part of a larger build.\n\
         cmake_minimum_required(VERSION 3.16)\n\
         find_package(ASC REQUIRED)\n\
         project(ascend_tune_wrapper LANGUAGES C CXX ASC)\n",
    );
    if let Some(arch) = arch {
        out.push_str(&format!("set(NPU_ARCH {arch})\n"));
    }
    for i in includes {
        out.push_str(&format!("include({})\n", quoted(i)));
    }
    out.push_str(&format!("add_subdirectory({} project)\n", quoted(source)));
    out
}

/// `p` as a quoted CMake path (forward slashes).
fn quoted(p: &Path) -> String {
    format!("\"{}\"", p.display().to_string().replace('\\', "/"))
}

/// The CMakeLists.txt of a `.asc` program with none of its own (the learning hub's answers): the ASC
/// package, a project, `NPU_ARCH` as the samples pass it, and the program made of the one file, as the
/// programming guide's CMake page builds a `.asc` (find_package(ASC), LANGUAGES ASC, add_executable).
pub fn alone_lists(program: &str, asc: &Path, arch: Option<&str>, include: &[PathBuf]) -> String {
    let mut out = String::from(
        "# Written by cargo-ascend-tune: the project has no CMakeLists.txt; its .asc program is built alone.\n\
         cmake_minimum_required(VERSION 3.16)\n\
         find_package(ASC REQUIRED)\n\
         project(ascend_tune_asc LANGUAGES C CXX ASC)\n",
    );
    if let Some(arch) = arch {
        out.push_str(&format!("set(NPU_ARCH {arch})\n"));
    }
    out.push_str(&format!("add_executable({program} {})\n", quoted(asc)));
    // the manifest's `include` folders: the program has no build of its own to name them
    if !include.is_empty() {
        let dirs: Vec<String> = include.iter().map(|d| quoted(d)).collect();
        out.push_str(&format!(
            "target_include_directories({program} PRIVATE {})\n",
            dirs.join(" ")
        ));
    }
    out
}

/// Whether `dir` holds a `.asc` source at its top.
fn has_asc(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.path().extension().is_some_and(|x| x == "asc"))
}

/// The configure command's arguments (after `cmake`).
pub fn configure_args(
    generation: Generation,
    mode: RunMode,
    soc: &Soc,
    cann_root: &Path,
    src: &Path,
    build: &Path,
    install_prefix: &Path,
) -> std::result::Result<Vec<OsString>, String> {
    let mut args: Vec<OsString> = vec!["-S".into(), src.into(), "-B".into(), build.into()];
    match generation {
        // The CANN samples' run.sh configures them as Release (FACTS.md §5).
        Generation::RunMode => {
            args.push("-DCMAKE_BUILD_TYPE=Release".into());
            args.push(join("-DCMAKE_INSTALL_PREFIX=", install_prefix));
            args.push(format!("-DRUN_MODE={}", mode.as_str()).into());
            args.push(format!("-DSOC_VERSION={}", soc.name).into());
            args.push(join("-DASCEND_CANN_PACKAGE_PATH=", cann_root));
        }
        Generation::Asc => {
            let arch = asc_architecture(soc).ok_or_else(|| {
                format!(
                    "this tool does not know the CMAKE_ASC_ARCHITECTURES name of {}; CANN 9 \
                     find_package(ASC) projects are supported on the 910B and 910_93 families (dav-2201)",
                    soc.name
                )
            })?;
            // CANN 9 projects are configured as their READMEs do it (`cmake -S . -B build
            // -DNPU_ARCH=...`, `cmake -DCMAKE_ASC_ARCHITECTURES=dav-3510 ..`): no build type, so no
            // NDEBUG, which would drop the side effects of the asserts their hosts wrap calls in
            // (cann-samples' simd_vf_story: `assert(aclrtMalloc(...) == ACL_SUCCESS)`).
            args.push(join("-DCMAKE_INSTALL_PREFIX=", install_prefix));
            args.push(format!("-DCMAKE_ASC_RUN_MODE={}", mode.as_str()).into());
            args.push(format!("-DCMAKE_ASC_ARCHITECTURES={arch}").into());
        }
    }
    Ok(args)
}

/// The build command's arguments (after `cmake`), with one job per core this process may use.
pub fn build_args(build: &Path, target: Option<&str>) -> Vec<OsString> {
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut args: Vec<OsString> = vec!["--build".into(), build.into()];
    if let Some(t) = target {
        args.push("--target".into());
        args.push(t.into());
    }
    args.push("--parallel".into());
    args.push(jobs.to_string().into());
    args
}

fn join(flag: &str, path: &Path) -> OsString {
    let mut s = OsString::from(flag);
    s.push(path.as_os_str());
    s
}

// ---------------------------------------------------------------------------------------------------
// The candidate folder

/// The project's files as a candidate sees them: every file under the root except build products and
/// working folders (`SKIPPED_DIRS` at the top, `.git` anywhere), with the candidate's patched sources in
/// place of the originals. Keys are `/`-separated paths relative to the root.
pub fn candidate_files(
    root: &Path,
    sources: &SourceSet,
) -> std::io::Result<BTreeMap<String, Vec<u8>>> {
    let mut out = BTreeMap::new();
    let walk = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            let top = e.depth() == 1 && SKIPPED_DIRS.contains(&name.as_ref());
            !(e.file_type().is_dir() && (top || name == ".git"))
        });
    for entry in walk {
        let entry = entry.map_err(std::io::Error::other)?;
        let own = entry.depth() == 1
            && SKIPPED_FILES.contains(&entry.file_name().to_string_lossy().as_ref());
        if !entry.file_type().is_file() || own {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(root)
            .map_err(std::io::Error::other)?
            .to_string_lossy()
            .replace('\\', "/");
        out.insert(rel, std::fs::read(entry.path())?);
    }
    for (rel, text) in &sources.overrides {
        out.insert(rel.clone(), text.clone().into_bytes());
    }
    Ok(out)
}

/// Folders beside the project root that its files reach one level up (`${CMAKE_CURRENT_SOURCE_DIR}/../op_kernel`
/// in a root `CMakeLists.txt`, `#include "../../op_kernel/x.h"` in a file one folder down): ops-nn's
/// `experimental/optim/apply_adam_d/examples` takes its kernel's tiling header from `../op_kernel`. The
/// candidate's copy lives in `<candidate>/src/`, so such a path would land in `<candidate>/`; the flow puts
/// a link there to the real folder (`CandidateDir::link_outside`). A name is kept only when the folder
/// exists beside the root and is not one of the candidate folder's own entries (`src`, `build`, ...).
/// Paths two or more levels above the root are not reached. Sorted by name, without repeats.
pub fn outside_siblings(root: &Path, files: &BTreeMap<String, Vec<u8>>) -> Vec<(String, PathBuf)> {
    let Some(parent) = root.parent() else {
        return vec![];
    };
    let mut names = std::collections::BTreeSet::new();
    for (rel, bytes) in files {
        let depth = rel.matches('/').count();
        let text = String::from_utf8_lossy(bytes);
        let up = "../".repeat(depth + 1);
        let mut from = 0;
        while let Some(at) = text[from..].find(&up) {
            let start = from + at;
            from = start + up.len();
            // The whole run of `../` must be exactly depth + 1 long: not more before or after it.
            let before = &text[..start];
            if before.ends_with("../") || before.ends_with('.') {
                continue;
            }
            let name: String = text[from..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                .collect();
            if name.is_empty() || name.starts_with('.') {
                continue;
            }
            names.insert(name);
        }
    }
    names
        .into_iter()
        .filter(|n| !CANDIDATE_ENTRIES.contains(&n.as_str()))
        .map(|n| {
            let target = parent.join(&n);
            (n, target)
        })
        .filter(|(_, t)| t.is_dir())
        .collect()
}

/// The entries `CandidateDir` and the flows make in a candidate folder, which an outside link must not take.
const CANDIDATE_ENTRIES: &[&str] = &[
    "src",
    "build",
    "out",
    "configure",
    "compile",
    "install",
    BUILT_MARKER,
];

/// Feeds the folders `outside_siblings` found into a candidate's key: each file's path, size and
/// modification time (not its bytes: such a folder can be large), so an edit there makes a new build.
pub fn hash_outside(h: &mut KeyHasher, outside: &[(String, PathBuf)]) {
    for (name, dir) in outside {
        h.part("outside").part(name);
        for e in walkdir::WalkDir::new(dir)
            .sort_by_file_name()
            .into_iter()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_file())
        {
            let meta = e.metadata().ok();
            let size = meta.as_ref().map_or(0, |m| m.len());
            let mtime = meta
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            h.part(e.path().to_string_lossy().as_bytes())
                .part(format!("{size} {mtime}"));
        }
    }
}

/// `target/ascend-tune/cann/<key>/` of one candidate, held under an OS file lock (`flock` on
/// `<key>.lock`) while it is built or read, so two trials (or two tuners) never build into one folder
/// at once. The lock goes with the process, even a killed one.
pub struct CandidateDir {
    pub dir: PathBuf,
    _lock: std::fs::File,
}

const BUILT_MARKER: &str = ".built";

impl CandidateDir {
    pub fn open(work: &Path, key: &str) -> std::io::Result<CandidateDir> {
        let parent = work.join("cann");
        std::fs::create_dir_all(&parent)?;
        let lock = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(parent.join(format!("{key}.lock")))?;
        lock_exclusive(&lock)?;
        Ok(CandidateDir {
            dir: parent.join(key),
            _lock: lock,
        })
    }

    /// What a finished build left: the marker's lines (the program, then anything else the flow keeps),
    /// when the build finished and the program is still there.
    pub fn built(&self) -> Option<Vec<String>> {
        let text = std::fs::read_to_string(self.dir.join(BUILT_MARKER)).ok()?;
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let program = lines.first()?;
        self.dir.join(program).exists().then_some(lines)
    }

    /// The artifact of a finished build of this candidate (`key`), served from its folder.
    pub fn cached_artifact(&self, key: &str) -> Option<Artifact> {
        let lines = self.built()?;
        Some(Artifact {
            key: key.to_string(),
            host: self.dir.join(&lines[0]),
            kernel: self.dir.clone(),
            cached: true,
            run_env: vec![],
        })
    }

    /// Starts over: removes what a broken build left and writes the files into `src/`.
    pub fn reset(&self, files: &BTreeMap<String, Vec<u8>>) -> std::io::Result<PathBuf> {
        if self.dir.exists() {
            std::fs::remove_dir_all(&self.dir)?;
        }
        let src = self.dir.join("src");
        for (rel, bytes) in files {
            let p = src.join(rel);
            std::fs::create_dir_all(p.parent().unwrap_or(&src))?;
            std::fs::write(&p, bytes)?;
        }
        // Build scripts must stay runnable in the copy.
        #[cfg(unix)]
        for rel in files.keys().filter(|r| r.ends_with(".sh")) {
            use std::os::unix::fs::PermissionsExt;
            let p = src.join(rel);
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))?;
        }
        Ok(src)
    }

    /// Puts a link `<candidate>/<name>` to each folder `outside_siblings` found, so that the copy in
    /// `src/` reaches `../<name>` as the project does. Where links cannot be made (not unix), an error.
    pub fn link_outside(&self, outside: &[(String, PathBuf)]) -> std::io::Result<()> {
        for (name, target) in outside {
            let link = self.dir.join(name);
            #[cfg(unix)]
            std::os::unix::fs::symlink(target, &link)?;
            #[cfg(not(unix))]
            return Err(std::io::Error::other(format!(
                "the project reaches ../{name} ({}), which this tool can only link on unix",
                target.display()
            )));
        }
        Ok(())
    }

    /// Records a finished build of this candidate (`key`) whose program is `program` (inside the
    /// folder) and returns its artifact: the counterpart of `cached_artifact`.
    pub fn finish(&self, key: &str, program: PathBuf) -> std::io::Result<Artifact> {
        let rel = program
            .strip_prefix(&self.dir)
            .unwrap_or(&program)
            .to_string_lossy()
            .into_owned();
        self.mark_built(std::slice::from_ref(&rel))?;
        Ok(Artifact {
            key: key.to_string(),
            host: program,
            kernel: self.dir.clone(),
            cached: false,
            run_env: vec![],
        })
    }

    /// Records a finished build: `lines[0]` is the program (relative to the folder).
    pub fn mark_built(&self, lines: &[String]) -> std::io::Result<()> {
        let mut text = lines.join("\n");
        text.push('\n');
        fsx::write_atomic(&self.dir.join(BUILT_MARKER), text.as_bytes())
            .map_err(|e| std::io::Error::other(e.to_string()))
    }
}

#[cfg(unix)]
fn lock_exclusive(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: flock on a descriptor we own; no memory is shared with the call.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(not(unix))]
fn lock_exclusive(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

/// Runs one step of a build (a tool: it may start processes), turning every way it can fail into a
/// build failure that quotes the first errors, with the candidate's paths shown as project paths.
pub fn build_step(
    cmd: Command,
    what: &str,
    limit: Duration,
    log_stem: &Path,
    src: &Path,
) -> std::result::Result<(), TrialFailure> {
    let io = |e: std::io::Error| {
        TrialFailure::new(FailureKind::Build, format!("could not run {what}: {e}"))
    };
    match child::run(cmd, limit, log_stem).map_err(io)? {
        Finished::Exited { status, .. } if status.success() => Ok(()),
        Finished::Exited { status, stderr } => {
            let stdout =
                std::fs::read_to_string(log_stem.with_extension("out")).unwrap_or_default();
            let prefix = format!("{}/", src.display());
            let text = format!("{stderr}\n{stdout}").replace(&prefix, "");
            Err(TrialFailure::new(
                FailureKind::Build,
                format!(
                    "{what} failed ({}):\n{}",
                    child::describe(status, &stderr),
                    first_errors(&text)
                ),
            ))
        }
        Finished::TimedOut => Err(TrialFailure::new(
            FailureKind::Timeout,
            format!("{what} took longer than {}s", limit.as_secs()),
        )),
    }
}

/// Whether the configured build tree `build` defines the target `name`: CMake's Makefile and Ninja
/// generators give every target a `CMakeFiles/<name>.dir` folder in its directory's build folder.
fn has_target(build: &Path, name: &str) -> bool {
    let want = format!("{name}.dir");
    walkdir::WalkDir::new(build)
        .max_depth(6)
        .into_iter()
        .flatten()
        .any(|e| {
            e.file_type().is_dir()
                && e.file_name().to_str() == Some(want.as_str())
                && e.path()
                    .parent()
                    .and_then(|p| p.file_name())
                    .is_some_and(|p| p == "CMakeFiles")
        })
}

/// The first lines that say "error" (and the ones after them), which explain the rest.
fn first_errors(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines
        .iter()
        .position(|l| l.to_ascii_lowercase().contains("error"))
        .unwrap_or(0);
    lines[start..]
        .iter()
        .take(15)
        .copied()
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------------------------------------------
// The run folder

/// `target/ascend-tune/cann-runs/<unique>/`: where one trial's program runs, reads its inputs and writes
/// its outputs. Removed afterwards unless `ASCEND_TUNE_KEEP_RUNS` is set.
pub struct RunDir {
    pub dir: PathBuf,
}

impl RunDir {
    pub fn new(work: &Path) -> std::result::Result<RunDir, TrialFailure> {
        let dir = work.join("cann-runs").join(fsx::unique_suffix());
        std::fs::create_dir_all(&dir).map_err(|e| crash(&dir, e))?;
        Ok(RunDir { dir })
    }

    /// Writes each input where the op's program reads it and makes the folders its outputs go to.
    pub fn write_inputs(
        &self,
        op: &OpSpec,
        inputs: &Inputs,
    ) -> std::result::Result<(), TrialFailure> {
        for (file, bytes) in op.input_files.iter().zip(&inputs.tensors) {
            let p = self.dir.join(file);
            std::fs::create_dir_all(p.parent().unwrap_or(&self.dir)).map_err(|e| crash(&p, e))?;
            std::fs::write(&p, bytes).map_err(|e| crash(&p, e))?;
        }
        for file in &op.output_files {
            let p = self.dir.join(file);
            std::fs::create_dir_all(p.parent().unwrap_or(&self.dir)).map_err(|e| crash(&p, e))?;
        }
        Ok(())
    }

    /// The outputs the program wrote, each checked against its tensor's size.
    pub fn read_outputs(&self, op: &OpSpec) -> std::result::Result<Vec<Vec<u8>>, TrialFailure> {
        op.outputs
            .iter()
            .zip(&op.output_files)
            .map(|(t, file)| {
                let bytes = std::fs::read(self.dir.join(file)).map_err(|e| {
                    TrialFailure::new(
                        FailureKind::Crash,
                        format!(
                            "the program wrote no output `{}` to {file} ({e}); it must write each output to the `file` the manifest gives it",
                            t.name
                        ),
                    )
                })?;
                if bytes.len() as u64 != t.bytes() {
                    return Err(TrialFailure::new(
                        FailureKind::Crash,
                        format!(
                            "the program wrote {} bytes to {file}, but output `{}` is {} {:?} = {} bytes; fix the shape or dtype in ascend.toml, or the program",
                            bytes.len(),
                            t.name,
                            t.dtype.name(),
                            t.shape,
                            t.bytes()
                        ),
                    ));
                }
                Ok(bytes)
            })
            .collect()
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        if std::env::var_os("ASCEND_TUNE_KEEP_RUNS").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn crash(path: &Path, e: std::io::Error) -> TrialFailure {
    TrialFailure::new(
        FailureKind::Crash,
        format!("run folder {}: {e}", path.display()),
    )
}

/// Runs the op's program (or the profiler around it) and turns how it ended into a trial outcome.
/// `twin`: the program runs on the twin package, whose exit code 3 is a kernel fault.
pub fn run_program(
    cmd: Command,
    trust: Trust,
    twin: bool,
    limit: Duration,
    log_stem: &Path,
) -> std::result::Result<(), TrialFailure> {
    let io = |e: std::io::Error| {
        TrialFailure::new(
            FailureKind::Crash,
            format!("could not start the program: {e}"),
        )
    };
    match child::run_as(cmd, limit, log_stem, trust).map_err(io)? {
        Finished::Exited { status, .. } if status.success() => Ok(()),
        Finished::Exited { status, stderr } => {
            let kind = if twin && status.code() == Some(TWIN_EXIT_FAULT) {
                FailureKind::Fault
            } else {
                FailureKind::Crash
            };
            let stdout =
                std::fs::read_to_string(log_stem.with_extension("out")).unwrap_or_default();
            let tail: Vec<&str> = stdout.lines().rev().take(8).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            Err(TrialFailure::new(
                kind,
                format!(
                    "the program failed ({}):\n{}{}",
                    child::describe(status, &stderr),
                    stderr.trim(),
                    if tail.is_empty() {
                        String::new()
                    } else {
                        format!("\nits last output:\n{}", tail.join("\n"))
                    }
                ),
            ))
        }
        Finished::TimedOut => Err(TrialFailure::new(
            FailureKind::Timeout,
            format!(
                "the program ran longer than {}s (an endless loop?)",
                limit.as_secs_f64()
            ),
        )),
    }
}

// ---------------------------------------------------------------------------------------------------
// The kernel-launch flow

pub struct CmakeFlow {
    project: PathBuf,
    /// The folder under the project whose CMakeLists.txt is configured (empty: the project root).
    cmake_source: PathBuf,
    /// CMake files of the larger build the project's CMakeLists.txt is part of (absolute): when any,
    /// the project is configured through `wrapper`.
    cmake_include: Vec<PathBuf>,
    /// Configured through `wrapper`: `cmake_include` is not empty, or the CMakeLists.txt declares no
    /// project() (a CANN sample that calls nothing of the larger build's).
    wrapped: bool,
    /// The project has no CMakeLists.txt: the op's one `.asc` program is built alone (`alone`).
    alone: bool,
    /// The manifest's `include` folders (absolute), which a program built alone is given.
    include: Vec<PathBuf>,
    work: PathBuf,
    tool: Arc<Toolchain>,
    soc: &'static Soc,
    mode: RunMode,
    generation: Generation,
    /// sim and npu: the profiler that measures each run.
    profiler: Option<Profiler>,
}

impl CmakeFlow {
    /// A flow for the kernel-launch project at `project`, configured from `cmake_source` under it (None:
    /// the project root); `profiler` is needed in sim and npu mode.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        project: &Path,
        cmake_source: Option<&Path>,
        cmake_include: &[PathBuf],
        include: &[PathBuf],
        work: &Path,
        tool: Arc<Toolchain>,
        soc: &'static Soc,
        mode: RunMode,
        profiler: Option<Profiler>,
    ) -> Result<CmakeFlow> {
        let cmake_source = cmake_source.map(Path::to_path_buf).unwrap_or_default();
        let lists = project.join(&cmake_source).join("CMakeLists.txt");
        // a folder with no CMakeLists.txt but `.asc` sources: its program is built alone
        let alone = !lists.exists() && has_asc(&project.join(&cmake_source));
        let text = if alone {
            Ok(String::new())
        } else {
            std::fs::read_to_string(&lists)
        };
        let text = text.map_err(|e| {
            Error::bad_input(
                format!(
                    "{} has no readable CMakeLists.txt ({e}), which a kernel-launch project builds with",
                    project.join(&cmake_source).display()
                ),
                Some(
                    "add the project's CMakeLists.txt with the RUN_MODE switch (see fixtures/*_launch), name the folder that holds it with cmake-source = \"...\" under [project], or set layout = \"custom-op\""
                        .into(),
                ),
            )
        })?;
        // a wrapper finds the ASC package for a CMakeLists.txt that is part of a larger build: one
        // calling what that build's cmake files define, or one with no project() of its own
        let wrapped = alone || !cmake_include.is_empty() || !declares_project(&text);
        let generation = if wrapped {
            Generation::Asc
        } else {
            generation(&text)
        };
        // Refuse what cannot be configured now, not once per trial.
        configure_args(
            generation,
            mode,
            soc,
            &tool.install.root,
            Path::new("src"),
            Path::new("build"),
            Path::new("out"),
        )
        .map_err(|m| Error::bad_input(m, None))?;
        if mode != RunMode::Cpu && profiler.is_none() {
            return Err(Error::Internal(format!(
                "run mode {} needs a profiler",
                mode.as_str()
            )));
        }
        Ok(CmakeFlow {
            project: project.to_path_buf(),
            cmake_source,
            cmake_include: cmake_include.to_vec(),
            wrapped,
            alone,
            include: include.to_vec(),
            work: work.to_path_buf(),
            tool,
            soc,
            mode,
            generation,
            profiler,
        })
    }

    pub fn generation(&self) -> Generation {
        self.generation
    }

    pub fn build(
        &self,
        op: &OpSpec,
        sources: &SourceSet,
    ) -> std::result::Result<Artifact, TrialFailure> {
        let io = |e: std::io::Error| {
            TrialFailure::new(FailureKind::Build, format!("candidate folder: {e}"))
        };
        let program = op
            .program
            .clone()
            .unwrap_or_else(|| crate::manifest::DEFAULT_PROGRAM.to_string());
        let files = candidate_files(&self.project, sources).map_err(io)?;
        let mut h = KeyHasher::new();
        h.part("cmake-flow 1")
            .part(&self.tool.fingerprint)
            .part(self.mode.as_str())
            .part(self.soc.name)
            .part(format!("{:?}", self.generation))
            .part(self.cmake_source.to_string_lossy().as_bytes())
            .part(&program);
        for d in &op.cmake_defines {
            h.part("define").part(d);
        }
        for (rel, bytes) in &files {
            h.part(rel).part(bytes);
        }
        let outside = outside_siblings(&self.project, &files);
        hash_outside(&mut h, &outside);
        for c in &self.cmake_include {
            h.part("cmake-include")
                .part(c.to_string_lossy().as_bytes())
                .part(std::fs::read(c).unwrap_or_default());
        }
        let key = h.finish();
        let cand = CandidateDir::open(&self.work, &key).map_err(io)?;
        if let Some(artifact) = cand.cached_artifact(&key) {
            return Ok(artifact);
        }
        let src = cand.reset(&files).map_err(io)?;
        cand.link_outside(&outside).map_err(io)?;
        let build = cand.dir.join("build");
        let prefix = cand.dir.join("out");
        let mut source = src.join(&self.cmake_source);
        if self.wrapped {
            let dir = cand.dir.join("wrapper");
            std::fs::create_dir_all(&dir).map_err(io)?;
            let text = if self.alone {
                let asc = op
                    .kernel
                    .iter()
                    .find(|k| k.ends_with(".asc"))
                    .ok_or_else(|| {
                        TrialFailure::new(
                            FailureKind::Build,
                            format!(
                                "{} has no CMakeLists.txt, and op `{}` lists no `.asc` kernel to build alone; add the project's CMakeLists.txt",
                                self.project.display(),
                                op.name
                            ),
                        )
                    })?;
                alone_lists(
                    &program,
                    &source.join(asc),
                    asc_architecture(self.soc),
                    &self.include,
                )
            } else {
                wrapper(&source, &self.cmake_include, asc_architecture(self.soc))
            };
            std::fs::write(dir.join("CMakeLists.txt"), text).map_err(io)?;
            source = dir;
        }
        let args = configure_args(
            self.generation,
            self.mode,
            self.soc,
            &self.tool.install.root,
            &source,
            &build,
            &prefix,
        )
        .map_err(|m| TrialFailure::new(FailureKind::Build, m))?;
        let mut cmd = self.tool.command("cmake");
        cmd.args(&args)
            .args(op.cmake_defines.iter().map(|d| format!("-D{d}")))
            .current_dir(&cand.dir);
        build_step(
            cmd,
            "configuring with cmake",
            CONFIGURE_LIMIT,
            &cand.dir.join("configure"),
            &src,
        )?;
        // Only the op's program where the build defines it as a target: a folder making a program per
        // stage of a story (the CANN samples) builds the one the op runs, and a stage the twin cannot
        // compile does not fail the others.
        let target = has_target(&build, &program).then_some(program.as_str());
        let mut cmd = self.tool.command("cmake");
        cmd.args(build_args(&build, target)).current_dir(&cand.dir);
        build_step(
            cmd,
            "building with cmake",
            BUILD_LIMIT,
            &cand.dir.join("compile"),
            &src,
        )?;
        let found = match find_program(&build, &program) {
            Some(p) => Some(p),
            None => {
                // Some projects only put the program in place on install (`out/bin`).
                let mut cmd = self.tool.command("cmake");
                cmd.arg("--install").arg(&build).current_dir(&cand.dir);
                build_step(
                    cmd,
                    "installing with cmake",
                    CONFIGURE_LIMIT,
                    &cand.dir.join("install"),
                    &src,
                )?;
                find_program(&prefix, &program)
            }
        };
        let Some(found) = found else {
            return Err(TrialFailure::new(
                FailureKind::Build,
                format!(
                    "the build made no program `{program}` (looked in build/ and, after cmake --install, out/); name the executable the project builds with program = \"...\" under [[op]]"
                ),
            ));
        };
        cand.finish(&key, found).map_err(io)
    }

    pub fn run(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
        keep_trace: bool,
    ) -> std::result::Result<Measurement, TrialFailure> {
        let run = RunDir::new(&self.work)?;
        run.write_inputs(op, inputs)?;
        use super::data_flow::{Step, run_step};
        for prepare in op.prepare.iter().flatten() {
            run_step(Step::Prepare, prepare, &self.project, &run.dir)?;
        }
        let program: Vec<OsString> = vec![artifact.host.clone().into_os_string()];
        let measured = match &self.profiler {
            None => self.run_cpu(op, &run, &program, keep_trace)?,
            Some(p) => {
                let measured = p.measure(&op.name, &program, &run.dir, &self.tool, &[])?;
                let outputs = run.read_outputs(op)?;
                profile::measurement(measured, op, outputs, self.soc)
            }
        };
        for verify in op.verify.iter().flatten() {
            run_step(Step::Verify, verify, &self.project, &run.dir)?;
        }
        Ok(measured)
    }

    /// cpu mode: the program runs on the twin package's CPU library and leaves a trace the model times.
    fn run_cpu(
        &self,
        op: &OpSpec,
        run: &RunDir,
        program: &[OsString],
        keep_trace: bool,
    ) -> std::result::Result<Measurement, TrialFailure> {
        let trace_path = run.dir.join("twin.trace");
        let mut cmd = self.tool.command(&program[0]);
        cmd.args(&program[1..])
            .current_dir(&run.dir)
            .env("ASCEND_TWIN_TRACE", &trace_path);
        // The twin package runs blocks as threads, so the program needs no processes of its own,
        // unless the manifest says its host code starts some (`starts-processes`).
        let trust = if op.starts_processes {
            Trust::Tool
        } else {
            Trust::Candidate
        };
        run_program(
            cmd,
            trust,
            true,
            run_limit(RUN_LIMIT),
            &run.dir.join("program"),
        )?;
        let outputs = run.read_outputs(op)?;
        let text = std::fs::read_to_string(&trace_path).map_err(|e| {
            TrialFailure::new(
                FailureKind::Crash,
                format!(
                    "the program left no twin trace at {} ({e}); does it launch the kernel with ICPU_RUN_KF?",
                    trace_path.display()
                ),
            )
        })?;
        let mut m = Measurement::modelled(&text, self.soc, outputs, keep_trace, "the program")?;
        let launches = 1
            + (1..)
                .take_while(|i| run.dir.join(format!("twin.trace.{i}")).is_file())
                .count();
        if launches > 1 {
            m.timing.notes.push(format!(
                "the program launched {launches} kernels; the first launch is the one timed"
            ));
        }
        Ok(m)
    }
}

/// The program a build made: `dir/<program>`, or the one file of that name under `dir` (CMake puts
/// executables in subfolders when the project says so).
fn find_program(dir: &Path, program: &str) -> Option<PathBuf> {
    let direct = dir.join(program);
    if direct.is_file() {
        return Some(direct);
    }
    let name = Path::new(program).file_name()?;
    let mut hits: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file() && e.file_name() == name && is_executable(e.path()))
        .map(|e| e.into_path())
        .collect();
    hits.sort_by_key(|p| p.components().count());
    hits.into_iter().next()
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_p: &Path) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn soc(name: &str) -> &'static Soc {
        crate::model::soc::lookup(name).unwrap()
    }

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    /// A `.asc` built alone gets the manifest's `include` folders (a tutorial answer's header kept
    /// in its exercise folder was not found).
    #[test]
    fn a_program_built_alone_is_given_the_include_folders() {
        let text = alone_lists(
            "demo",
            Path::new("/p/a.asc"),
            Some("dav-2201"),
            &[PathBuf::from("/repo/src/02.05")],
        );
        assert!(text.contains("add_executable(demo \"/p/a.asc\")"), "{text}");
        assert!(
            text.contains("target_include_directories(demo PRIVATE \"/repo/src/02.05\")"),
            "{text}"
        );
        assert!(!alone_lists("demo", Path::new("/p/a.asc"), None, &[]).contains("target_include"));
    }

    #[test]
    fn configure_passes_the_samples_cache_variables_for_each_mode() {
        for mode in [RunMode::Cpu, RunMode::Sim, RunMode::Npu] {
            let args = configure_args(
                Generation::RunMode,
                mode,
                soc("Ascend910B1"),
                Path::new("/opt/cann"),
                Path::new("/c/src"),
                Path::new("/c/build"),
                Path::new("/c/out"),
            )
            .unwrap();
            assert_eq!(
                strings(&args),
                [
                    "-S",
                    "/c/src",
                    "-B",
                    "/c/build",
                    "-DCMAKE_BUILD_TYPE=Release",
                    "-DCMAKE_INSTALL_PREFIX=/c/out",
                    &format!("-DRUN_MODE={}", mode.as_str()),
                    "-DSOC_VERSION=Ascend910B1",
                    "-DASCEND_CANN_PACKAGE_PATH=/opt/cann",
                ]
            );
        }
    }

    #[test]
    fn cann9_projects_get_the_asc_variables_instead_of_run_mode() {
        let args = configure_args(
            Generation::Asc,
            RunMode::Sim,
            soc("Ascend910B2"),
            Path::new("/opt/cann"),
            Path::new("s"),
            Path::new("b"),
            Path::new("o"),
        )
        .unwrap();
        let args = strings(&args);
        assert_eq!(
            args[4..],
            [
                "-DCMAKE_INSTALL_PREFIX=o",
                "-DCMAKE_ASC_RUN_MODE=sim",
                "-DCMAKE_ASC_ARCHITECTURES=dav-2201"
            ]
        );
        // no build type: a Release build's NDEBUG would drop what a host's asserts call
        assert!(!args.iter().any(|a| a.starts_with("-DCMAKE_BUILD_TYPE")));
        assert!(!args.iter().any(|a| a.starts_with("-DRUN_MODE")));
        let e = configure_args(
            Generation::Asc,
            RunMode::Npu,
            soc("Ascend310P3"),
            Path::new("/opt/cann"),
            Path::new("s"),
            Path::new("b"),
            Path::new("o"),
        )
        .unwrap_err();
        assert!(e.contains("Ascend310P3") && e.contains("dav-2201"), "{e}");
        assert_eq!(asc_architecture(soc("Ascend950")), Some("dav-3510"));
    }

    #[test]
    fn find_package_asc_is_told_apart_from_other_packages_and_comments() {
        assert_eq!(
            generation("cmake_minimum_required(VERSION 3.16)\nfind_package(ASC REQUIRED)\n"),
            Generation::Asc
        );
        assert_eq!(generation("FIND_PACKAGE ( asc )"), Generation::Asc);
        assert_eq!(
            generation("find_package(tikicpulib REQUIRED)\nfind_package(ASCENDC)\n"),
            Generation::RunMode
        );
        assert_eq!(generation("# find_package(ASC)\n"), Generation::RunMode);
    }

    /// A CANN sample's CMakeLists.txt that calls nothing of the larger build (gelu_eltwise_regbase_story:
    /// `if(NOT "${NPU_ARCH}" IN_LIST ...)`, no project()) was configured alone, without the ASC
    /// language or NPU_ARCH: it is wrapped like one that calls the build's macros.
    #[test]
    fn a_cmakelists_without_project_is_told_apart() {
        assert!(declares_project(
            "cmake_minimum_required(VERSION 3.16)\nproject(demo LANGUAGES CXX ASC)\n"
        ));
        assert!(declares_project("PROJECT (x)"));
        assert!(!declares_project(
            "set(SUPPORTED_NPU_ARCHS dav-3510)\n# project(no)\nadd_executable(a a.asc)\n"
        ));
        assert!(!declares_project("set(MY_project(x)\nsub_project(y)\n"));
    }

    /// A folder making a program per stage of a story built every stage for each op, so one stage the
    /// twin cannot compile failed them all: the op's own target is built where the tree defines it.
    #[test]
    fn a_target_is_found_in_the_configured_tree() {
        let dir = tempfile::tempdir().unwrap();
        let b = dir.path();
        std::fs::create_dir_all(b.join("project/CMakeFiles/rms_0_naive.dir")).unwrap();
        std::fs::create_dir_all(b.join("CMakeFiles/other.dir")).unwrap();
        std::fs::create_dir_all(b.join("src/loose.dir")).unwrap();
        assert!(has_target(b, "rms_0_naive"));
        assert!(has_target(b, "other"));
        assert!(!has_target(b, "loose"));
        assert!(!has_target(b, "rms_1_vf"));
    }

    #[test]
    fn build_runs_in_parallel_and_names_a_target_when_asked() {
        let args = strings(&build_args(Path::new("b"), Some("package")));
        assert_eq!(args[..4], ["--build", "b", "--target", "package"]);
        assert_eq!(args[4], "--parallel");
        assert!(args[5].parse::<usize>().unwrap() >= 1);
    }

    #[test]
    fn candidate_files_leave_out_build_products_and_apply_overrides() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for f in [
            "CMakeLists.txt",
            "ascend.toml",
            "ascend-tune.lock",
            "scripts/ascend.toml",
            "main.cpp",
            "scripts/gen.py",
            "cmake/build/keep.cmake",
            "build/CMakeCache.txt",
            "target/ascend-tune/x",
            "out/bin/prog",
            "input/input_x.bin",
            ".git/HEAD",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, f).unwrap();
        }
        let mut sources = SourceSet::default();
        sources
            .overrides
            .insert("main.cpp".into(), "patched".into());
        let files = candidate_files(root, &sources).unwrap();
        let names: Vec<&str> = files.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "CMakeLists.txt",
                "cmake/build/keep.cmake",
                "main.cpp",
                "scripts/ascend.toml",
                "scripts/gen.py"
            ]
        );
        assert_eq!(files["main.cpp"], b"patched");
    }

    #[test]
    fn a_candidate_folder_is_rebuilt_unless_its_build_finished() {
        let tmp = tempfile::tempdir().unwrap();
        let files: BTreeMap<String, Vec<u8>> = [("a/run.sh".to_string(), b"echo".to_vec())].into();
        {
            let cand = CandidateDir::open(tmp.path(), "k1").unwrap();
            assert!(cand.built().is_none());
            let src = cand.reset(&files).unwrap();
            assert_eq!(std::fs::read(src.join("a/run.sh")).unwrap(), b"echo");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(src.join("a/run.sh"))
                    .unwrap()
                    .permissions()
                    .mode();
                assert_eq!(mode & 0o111, 0o111);
            }
            // A marker naming a program that is not there does not count.
            cand.mark_built(&["build/prog".into()]).unwrap();
            assert!(cand.built().is_none());
            std::fs::create_dir_all(cand.dir.join("build")).unwrap();
            std::fs::write(cand.dir.join("build/prog"), "").unwrap();
            cand.mark_built(&["build/prog".into(), "extra".into()])
                .unwrap();
        }
        let cand = CandidateDir::open(tmp.path(), "k1").unwrap();
        assert_eq!(
            cand.built(),
            Some(vec!["build/prog".to_string(), "extra".to_string()])
        );
    }

    #[test]
    fn folders_one_level_above_the_root_are_linked_beside_the_copy() {
        let tmp = tempfile::tempdir().unwrap();
        let parent = tmp.path().join("apply_adam_d");
        let root = parent.join("examples");
        for d in ["op_kernel", "inc", "build", "unused"] {
            std::fs::create_dir_all(parent.join(d)).unwrap();
        }
        std::fs::write(parent.join("op_kernel/t.h"), "tiling").unwrap();
        let files: BTreeMap<String, Vec<u8>> = [
            (
                "CMakeLists.txt".to_string(),
                b"set(K ${CMAKE_CURRENT_SOURCE_DIR}/../op_kernel)\ninclude(../build/x.cmake)\n\
                  set(D ../../deep) set(M ../missing)"
                    .to_vec(),
            ),
            // One folder down: two levels of ../ reach beside the root, one level stays inside.
            (
                "sub/a.cpp".to_string(),
                b"#include \"../../inc/x.h\"\n#include \"../sub2/y.h\"".to_vec(),
            ),
        ]
        .into();
        let outside = outside_siblings(&root, &files);
        let names: Vec<&str> = outside.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["inc", "op_kernel"]);
        assert_eq!(outside[1].1, parent.join("op_kernel"));

        let mut a = KeyHasher::new();
        hash_outside(&mut a, &outside);
        std::fs::write(parent.join("op_kernel/t.h"), "tiling, edited").unwrap();
        let mut b = KeyHasher::new();
        hash_outside(&mut b, &outside);
        assert_ne!(a.finish(), b.finish(), "an edit outside makes a new key");

        let cand = CandidateDir::open(&tmp.path().join("work"), "k").unwrap();
        let src = cand.reset(&files).unwrap();
        cand.link_outside(&outside).unwrap();
        assert_eq!(
            std::fs::read_to_string(src.join("../op_kernel/t.h")).unwrap(),
            "tiling, edited"
        );
        assert!(!src.join("../unused").exists());
    }

    #[test]
    fn program_is_found_directly_or_once_under_the_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let exe = |p: &Path| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        };
        exe(&tmp.path().join("deep/er/prog"));
        exe(&tmp.path().join("bin/prog"));
        std::fs::write(tmp.path().join("bin/data"), "").unwrap();
        assert_eq!(
            find_program(tmp.path(), "prog"),
            Some(tmp.path().join("bin/prog"))
        );
        assert_eq!(find_program(tmp.path(), "missing"), None);
        exe(&tmp.path().join("prog"));
        assert_eq!(
            find_program(tmp.path(), "prog"),
            Some(tmp.path().join("prog"))
        );
    }
}
