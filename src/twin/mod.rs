//! The twin: building an operator's host tiling program and kernel against the embedded C++
//! implementation of the AscendC API (`templates/twin/`), and running them on the CPU.
//!
//! Building goes through the `cc` crate's view of the system C++ compiler. The twin's own runtime is
//! compiled once per machine and toolchain, in the user's cache folder (`runtime_root`), keyed by the
//! twin's content hash, the compiler and its flags; each candidate compiles only the operator's
//! sources, and both programs are cached by a content hash of everything they read. Running is a
//! child process per program with a time limit. This module knows nothing of timing models, searching or lockfiles: it hands
//! back the trace text and the outputs.

use crate::child as process;
mod build_cache;
pub mod package;
pub mod protocol;
pub(crate) mod reads;
pub mod runtime;
mod stubs;
mod tiling_extract;

use crate::backend::{Artifact, FailureKind, SourceSet, TrialFailure};
use crate::errors::{Error, Result};
use crate::fsx::{self, KeyHasher};
use crate::manifest::OpSpec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/twin_files.rs"));
}

const COMPILE_LIMIT: Duration = Duration::from_secs(300);
const TILING_LIMIT: Duration = Duration::from_secs(30);
/// Wall-clock limit of one kernel run unless `ASCEND_TUNE_RUN_TIMEOUT` (seconds) says otherwise.
const KERNEL_LIMIT: Duration = Duration::from_secs(120);

fn kernel_limit() -> Duration {
    std::env::var("ASCEND_TUNE_RUN_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(KERNEL_LIMIT, Duration::from_secs_f64)
}
/// Exit codes of the twin's programs (templates/twin/README.md).
const EXIT_FAULT: i32 = 3;
const EXIT_TILING: i32 = 4;
/// The most blocks a launch may ask for (the hardware's limit).
const MAX_BLOCK_DIM: u32 = 65535;

/// Source extensions that take part in a build and its cache key.
const SOURCE_EXTENSIONS: &[&str] = &[
    "h", "hh", "hpp", "hxx", "inc", "inl", "c", "cc", "cpp", "cxx", "asc",
];

/// What preparing the twin did: where its runtime lives and what had to be made now (nothing when
/// an earlier run on this machine, in any project, had made it).
#[derive(Debug, Clone)]
pub struct RuntimeReport {
    /// The folder of the compiled runtime (`<runtime root>/<twin version>/obj-<toolchain>/`).
    pub dir: PathBuf,
    /// The twin's sources were unpacked now.
    pub unpacked: bool,
    /// Runtime units compiled now (`src/kernel_main.cpp`, ..., `host_pch.h` for the precompiled header).
    pub compiled: Vec<String>,
    /// How long preparing took (wall clock).
    pub elapsed: Duration,
}

impl RuntimeReport {
    /// Everything came from the cache.
    pub fn cached(&self) -> bool {
        !self.unpacked && self.compiled.is_empty()
    }
}

/// Where the twin runtime is kept when the caller does not say: with the build cache when
/// `ASCEND_TUNE_BUILD_CACHE` names one (so CI caches and test suites keep everything in one place),
/// else the user's cache folder, `$XDG_CACHE_HOME/cargo-ascend-tune/twin` or
/// `~/.cache/cargo-ascend-tune/twin`, shared by every project on the machine; `fallback` (the
/// project's own cache) when there is no home.
pub fn runtime_root(fallback: &Path) -> PathBuf {
    if let Some(cache) = std::env::var_os("ASCEND_TUNE_BUILD_CACHE").filter(|v| !v.is_empty()) {
        return PathBuf::from(cache).join("twin");
    }
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(xdg) = std::env::var_os("XDG_CACHE_HOME").and_then(absolute) {
        return xdg.join("cargo-ascend-tune").join("twin");
    }
    if let Some(home) = std::env::var_os("HOME").and_then(absolute) {
        return home.join(".cache").join("cargo-ascend-tune").join("twin");
    }
    fallback.join("twin")
}

/// The twin toolchain, extracted and with its runtime compiled.
pub struct Twin {
    dir: PathBuf,
    /// Where the runtime's objects and precompiled header live (one folder per toolchain).
    obj_dir: PathBuf,
    runtime: RuntimeReport,
    /// Where runs happen (the project's `target/ascend-tune/`).
    work: PathBuf,
    /// Where built programs are cached (shared between projects with `ASCEND_TUNE_BUILD_CACHE`).
    cache: PathBuf,
    version: String,
    /// `toolchain_key`: the compiler, its version and flags.
    toolchain: String,
    compiler: cc::Tool,
    host_objects: Vec<PathBuf>,
    kernel_objects: Vec<PathBuf>,
    /// `obj/host_pch.h`, with its precompiled `.gch` beside it, when the compiler is GCC.
    host_pch: Option<PathBuf>,
    /// The manifest's `include-as`: (path inside the project, folder shown there) for every build.
    mounts: Vec<(PathBuf, PathBuf)>,
    /// Builds under way in this process, one gate per first key.
    gates: build_cache::Gates,
}

/// What one run of the two programs produced.
pub struct RunOutput {
    pub tiling: protocol::TilingResult,
    pub outputs: Vec<Vec<u8>>,
    pub trace: String,
    /// What the kernel warned of on a run that succeeded (`kernel_warnings`).
    pub warnings: Vec<String>,
}

/// The warnings a kernel that ran to its end printed (the twin's `warn_once`: "warning: <what>" and
/// a "  --> file:line (block N)" line under it), each as one line "<what> (file:line, block N)";
/// at most 20.
pub fn kernel_warnings(stderr: &str) -> Vec<String> {
    let mut out = vec![];
    let mut lines = stderr.lines().peekable();
    while let Some(l) = lines.next() {
        let Some(what) = l.strip_prefix("warning: ") else {
            continue;
        };
        let at = lines
            .peek()
            .and_then(|n| n.trim_start().strip_prefix("--> "))
            .map(|w| w.replacen(" (", ", ", 1).trim_end_matches(')').to_string());
        if at.is_some() {
            lines.next();
        }
        out.push(match at {
            Some(at) => format!("{what} ({at})"),
            None => what.to_string(),
        });
        if out.len() == 20 {
            break;
        }
    }
    out
}

/// Whether the twin's own headers hold `header` (as an `#include` names it) for kernel or host code,
/// so that `init` need not look for it in the operator's repository.
pub fn provides_header(header: &str) -> bool {
    let header = header.trim_start_matches("./");
    embedded::FILES.iter().any(|(rel, _)| {
        rel.strip_prefix("include/kernel/")
            .or_else(|| rel.strip_prefix("include/host/"))
            == Some(header)
    })
}

/// Whether the twin's header `header` reads the operator repository's own header of that name as
/// well (`#include_next`, as the twin's `op_host/tiling_util.h` does, which ops-nn ships with its
/// own helpers): then `init` still looks for the repository's, to put its folder on the path.
pub fn reads_repository_header(header: &str) -> bool {
    let header = header.trim_start_matches("./");
    embedded::FILES.iter().any(|(rel, bytes)| {
        rel.strip_prefix("include/kernel/")
            .or_else(|| rel.strip_prefix("include/host/"))
            == Some(header)
            && String::from_utf8_lossy(bytes).contains("#include_next")
    })
}

/// Version of the embedded twin: a hash of its files and of this tool's version.
pub fn version() -> String {
    let mut h = KeyHasher::new();
    h.part(env!("CARGO_PKG_VERSION"));
    for (path, bytes) in embedded::FILES {
        h.part(path).part(bytes);
    }
    // written into the package's CMake files: a new library there is a new package
    h.part(package::ACL_STUB_LIBS.join(" "));
    h.finish()
}

impl Twin {
    /// Extracts the twin under `cache/twin/<version>/` and compiles its runtime there, both only once.
    pub fn prepare(work: &Path, cache: &Path) -> Result<Twin> {
        Self::prepare_in(work, cache, &cache.join("twin"))
    }

    /// Extracts the twin under `runtime/<version>/` and compiles its runtime into
    /// `runtime/<version>/obj-<toolchain>/`, each only once per machine; built programs go to `cache`.
    /// Concurrent first runs (other projects, other processes) never see each other's half-made files:
    /// everything is written under a temporary name and renamed into place.
    pub fn prepare_in(work: &Path, cache: &Path, runtime: &Path) -> Result<Twin> {
        let started = std::time::Instant::now();
        let version = version();
        let dir = runtime.join(&version);
        let mut unpacked = false;
        if !dir.join(".complete").is_file() {
            fsx::create_dir_all(runtime)?;
            let staging = runtime.join(format!(".{version}.{}", fsx::unique_suffix()));
            for (rel, bytes) in embedded::FILES {
                let path = staging.join(rel);
                fsx::create_dir_all(path.parent().unwrap())?;
                std::fs::write(&path, bytes).map_err(|e| Error::io("could not write", &path, e))?;
            }
            std::fs::write(staging.join(".complete"), b"")
                .map_err(|e| Error::io("could not write", &staging, e))?;
            match std::fs::rename(&staging, &dir) {
                Ok(()) => unpacked = true,
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&staging);
                    // Another process may have got there first; its copy is identical.
                    if !dir.join(".complete").is_file() {
                        return Err(Error::io("could not unpack the twin into", &dir, e));
                    }
                }
            }
        }
        let compiler = cc::Build::new()
            .cpp(true)
            .cargo_metadata(false)
            .cargo_warnings(false)
            .opt_level(2)
            .target(env!("TWIN_TARGET"))
            .host(env!("TWIN_TARGET"))
            .try_get_compiler()
            .map_err(|e| {
                Error::bad_input(
                    format!("no C++ compiler found: {e}"),
                    Some("install g++ or clang++ (e.g. `apt-get install g++`), or set CXX".into()),
                )
            })?;
        let toolchain = toolchain_key(&compiler);
        let obj_dir = dir.join(format!("obj-{toolchain}"));
        let mut twin = Twin {
            dir,
            obj_dir,
            runtime: RuntimeReport {
                dir: PathBuf::new(),
                unpacked,
                compiled: vec![],
                elapsed: Duration::ZERO,
            },
            work: work.to_path_buf(),
            cache: cache.to_path_buf(),
            version,
            toolchain,
            compiler,
            host_objects: vec![],
            kernel_objects: vec![],
            host_pch: None,
            mounts: vec![],
            gates: build_cache::Gates::default(),
        };
        twin.runtime.dir = twin.obj_dir.clone();
        twin.host_objects = twin.compile_runtime("host")?;
        twin.kernel_objects = twin.compile_runtime("kernel")?;
        twin.host_pch = twin.precompile_host_headers();
        twin.runtime.elapsed = started.elapsed();
        Ok(twin)
    }

    /// What preparing the twin did, and how long it took.
    /// Folders every build shows at a path inside the project (the manifest's `include-as`).
    pub fn set_mounts(&mut self, mounts: Vec<(PathBuf, PathBuf)>) {
        self.mounts = mounts;
    }

    pub fn runtime(&self) -> &RuntimeReport {
        &self.runtime
    }

    pub fn version(&self) -> &str {
        &self.version
    }

    /// The compiler command with the flags every twin compile uses.
    fn cxx(&self, side: &str) -> Command {
        let mut cmd = Command::new(self.compiler.path());
        cmd.args(
            self.compiler
                .args()
                .iter()
                .filter(|a| !a.to_string_lossy().starts_with("-O")),
        );
        cmd.args(own_flags());
        cmd.arg("-I").arg(self.dir.join("include").join(side));
        cmd
    }

    fn compile_runtime(&mut self, side: &str) -> Result<Vec<PathBuf>> {
        let obj_dir = self.obj_dir.clone();
        fsx::create_dir_all(&obj_dir)?;
        let mut objects = vec![];
        let mut sources: Vec<&str> = embedded::FILES
            .iter()
            .map(|(p, _)| *p)
            .filter(|p| p.starts_with(&format!("src/{side}_")) && p.ends_with(".cpp"))
            .collect();
        sources.sort();
        for rel in sources {
            let stem = Path::new(rel)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let obj = obj_dir.join(format!("{stem}.o"));
            if !obj.is_file() {
                let tmp = obj_dir.join(format!(".{stem}.{}.o", fsx::unique_suffix()));
                let mut cmd = self.cxx(side);
                cmd.arg("-c").arg(self.dir.join(rel)).arg("-o").arg(&tmp);
                let finished =
                    process::run(cmd, COMPILE_LIMIT, &obj_dir.join(format!("{stem}.log")));
                if !matches!(&finished, Ok(process::Finished::Exited { status, .. }) if status.success())
                {
                    // Nothing half-made stays in the cache folder all projects share.
                    let _ = std::fs::remove_file(&tmp);
                }
                match finished {
                    Ok(process::Finished::Exited { status, .. }) if status.success() => {
                        std::fs::rename(&tmp, &obj)
                            .map_err(|e| Error::io("could not write", &obj, e))?;
                        self.runtime.compiled.push(rel.to_string());
                    }
                    Ok(process::Finished::Exited { stderr, .. }) => {
                        return Err(Error::Internal(format!(
                            "the twin runtime {rel} does not compile:\n{stderr}"
                        )));
                    }
                    Ok(process::Finished::TimedOut) => {
                        return Err(Error::Internal(format!(
                            "compiling the twin runtime {rel} timed out"
                        )));
                    }
                    Err(e) => return Err(Error::io("could not run the C++ compiler for", &obj, e)),
                }
            }
            objects.push(obj);
        }
        Ok(objects)
    }

    /// Precompiles the host API headers (about half of a host build's time is parsing them). Any failure
    /// only means builds read the headers as usual, so it is not an error.
    fn precompile_host_headers(&mut self) -> Option<PathBuf> {
        if !self.compiler.is_like_gnu() || self.compiler.is_like_clang() {
            return None;
        }
        let obj_dir = self.obj_dir.clone();
        let header = obj_dir.join("host_pch.h");
        let gch = obj_dir.join("host_pch.h.gch");
        if header.is_file() && gch.is_file() {
            return Some(header);
        }
        let source = self.dir.join("include/host/twin_host/pch.h");
        let tmp = obj_dir.join(format!(".host_pch.{}.gch", fsx::unique_suffix()));
        let mut cmd = self.cxx("host");
        cmd.arg("-x")
            .arg("c++-header")
            .arg(&source)
            .arg("-o")
            .arg(&tmp);
        match process::run(cmd, COMPILE_LIMIT, &obj_dir.join("host_pch.log")) {
            Ok(process::Finished::Exited { status, .. }) if status.success() => {
                let text = std::fs::read_to_string(&source).ok()?;
                // Header first, then its .gch, each renamed into place: a concurrent build sees either
                // no header, a header alone (parsed as usual), or both.
                let tmp_header = obj_dir.join(format!(".host_pch.{}.h", fsx::unique_suffix()));
                std::fs::write(&tmp_header, text).ok()?;
                std::fs::rename(&tmp_header, &header).ok()?;
                std::fs::rename(&tmp, &gch).ok()?;
                self.runtime.compiled.push("host_pch.h".into());
                Some(header)
            }
            _ => {
                let _ = std::fs::remove_file(&tmp);
                None
            }
        }
    }

    /// Builds (or finds in the cache) the host tiling program and the kernel program of one candidate.
    pub fn build(
        &self,
        root: &Path,
        include: &[PathBuf],
        op: &OpSpec,
        sources: &SourceSet,
    ) -> std::result::Result<Artifact, TrialFailure> {
        let io = |e: std::io::Error| {
            TrialFailure::new(
                io_kind(&e, FailureKind::Build),
                format!("build folder: {e}"),
            )
        };
        let (host, kernel) = both_sides(
            || self.build_side(root, include, op, sources, "host"),
            || self.build_side(root, include, op, sources, "kernel"),
        );
        let (host, host_cached) = host.map_err(|e| e.or_io(io))?;
        let (kernel, kernel_cached) = kernel.map_err(|e| e.or_io(io))?;
        let key = KeyHasher::new()
            .part(host.to_string_lossy().as_bytes())
            .part(kernel.to_string_lossy().as_bytes())
            .finish();
        Ok(Artifact {
            key,
            host,
            kernel,
            cached: host_cached && kernel_cached,
            run_env: vec![],
        })
    }

    /// The op as one side's build sees it, that side's units and its files: on the kernel side, a
    /// tiling struct generated from the host's tiling header where the kernel cannot read that header
    /// itself. The compiled-in build and the run-time form (runtime.rs) both start from it, so they
    /// compile the same sources.
    fn side_view(
        &self,
        root: &Path,
        include: &[PathBuf],
        op: &OpSpec,
        sources: &SourceSet,
        side: &str,
    ) -> std::result::Result<(OpSpec, Vec<String>, BTreeMap<String, String>), BuildError> {
        // A tiling header that includes host-only headers (the registries, `util/math_util.h`: the
        // ops-nn layout) would drag gert::/ge:: types into the kernel build; the kernel gets its tiling
        // struct generated from the header's blocks instead, as CANN's build does.
        let kernel_view;
        let op = match &op.tiling_header {
            Some(h)
                if side == "kernel"
                    && !tiling_extract::kernel_readable(
                        root,
                        &self.dir.join("include").join("kernel"),
                        h,
                    ) =>
            {
                kernel_view = OpSpec {
                    tiling_header: None,
                    ..op.clone()
                };
                let (_, files) = side_files(root, &kernel_view, sources, side)?;
                if tiling_extract::kernel_tiling_header(
                    root,
                    include,
                    &self.mounts,
                    &kernel_view,
                    &files,
                )
                .is_some()
                {
                    &kernel_view
                } else {
                    op
                }
            }
            _ => op,
        };
        let (units, mut files) = side_files(root, op, sources, side)?;
        let units: Vec<String> = units.into_iter().cloned().collect();
        if side == "kernel" && op.tiling_header.is_none() {
            if let Some(h) =
                tiling_extract::kernel_tiling_header(root, include, &self.mounts, op, &files)
            {
                files.insert(tiling_extract::GENERATED.to_string(), h);
            }
        }
        Ok((op.clone(), units, files))
    }

    fn build_side(
        &self,
        root: &Path,
        include: &[PathBuf],
        op: &OpSpec,
        sources: &SourceSet,
        side: &str,
    ) -> std::result::Result<(PathBuf, bool), BuildError> {
        let (op, units, files) = self.side_view(root, include, op, sources, side)?;
        let op = &op;
        let defines = defines(op, side);
        let shim = (side == "kernel").then(|| kernel_shim(op, &files));
        let mut key = side_key(
            [self.version.as_str(), side, self.toolchain.as_str()],
            &units,
            &defines,
            &files,
            shim.as_deref(),
            include,
        );
        if op.stub_undefined {
            key = KeyHasher::new().part(&key).part("stub-undefined").finish();
        }
        // Sibling folders shown beside the sources (`include-as`) are part of what the build reads.
        if !self.mounts.is_empty() {
            let mut h = KeyHasher::new();
            h.part(&key);
            for (at, dir) in &self.mounts {
                h.part(at.to_string_lossy().as_bytes())
                    .part(dir.to_string_lossy().as_bytes());
            }
            key = h.finish();
        }
        let build = self.cache.join("build");
        let stem = format!("{side}-{key}");
        let name = if side == "host" { "tiling" } else { "kernel" };
        let gate = self.gates.of(&stem);
        let _building = gate.lock().unwrap_or_else(|e| e.into_inner());
        let program = build_cache::entry(&build, &stem, root, &files).join(name);
        if program.is_file() {
            return Ok((program, true));
        }
        // Build in a folder of our own, so concurrent builds of the same key never see each other's
        // half-written files; only the finished program is moved into the cache.
        let attempt = |defines: &[String]| {
            let staging = build.join(format!(".{stem}.{}", fsx::unique_suffix()));
            let result = self
                .compile_side(
                    root,
                    include,
                    op,
                    side,
                    &files,
                    defines,
                    shim.as_deref(),
                    &staging,
                )
                .and_then(|built| {
                    build_cache::store(&build, &stem, root, &files, &staging, &built, name)
                        .map_err(BuildError::Io)
                });
            let _ = std::fs::remove_dir_all(&staging);
            result
        };
        let result = match attempt(&defines) {
            // An ASCENDC_TPL_SEL the twin cannot compile (ops-nn's clipped_swiglu_grad names an
            // undefined `TPL_FLOOR` in it): CANN's build reads the selection with its own tools and the
            // C++ compiler never sees it, so the twin builds again with the selection ignored (every
            // declared combination instantiated, as before it read them).
            Err(BuildError::Failed(f)) if selection_failed(&f.message) => {
                let mut defines = defines.clone();
                defines.push("-DTWIN_TPL_IGNORE_SEL".into());
                attempt(&defines)
            }
            other => other,
        };
        result.map(|program| (program, false))
    }

    #[allow(clippy::too_many_arguments)]
    fn compile_side(
        &self,
        root: &Path,
        include: &[PathBuf],
        op: &OpSpec,
        side: &str,
        files: &BTreeMap<String, String>,
        defines: &[String],
        shim: Option<&str>,
        staging: &Path,
    ) -> std::result::Result<PathBuf, BuildError> {
        let mirror = staging.join("src");
        // A shared header of an `include-as` folder, rewritten (its key `../<folder>/x.h`), is written
        // where the sources see it: in the mount, beside links to the folder's other files.
        let files = &mount_view(root, &self.mounts, files);
        for (rel, text) in files {
            let p = mirror.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).map_err(BuildError::Io)?;
            let launches = (side == "kernel").then(|| device_launches(text)).flatten();
            fsx::write_file(&p, launches.as_deref().unwrap_or(text)).map_err(BuildError::Io)?;
        }
        // `include-as`: the folder shown at its path beside the sources, so `#include "../utils/x.h"`
        // from `op_kernel/` reads it as the original build's layout has it.
        for (at, dir) in &self.mounts {
            let link = mirror.join(at);
            let target = std::fs::canonicalize(dir).map_err(BuildError::Io)?;
            if link.exists() {
                // Rewritten files of the folder are there: link the rest beside them.
                link_missing(&target, &link).map_err(BuildError::Io)?;
                continue;
            }
            std::fs::create_dir_all(link.parent().unwrap()).map_err(BuildError::Io)?;
            std::os::unix::fs::symlink(&target, &link).map_err(BuildError::Io)?;
        }
        let mut cmd = self.cxx(side);
        // Source locations in compiler errors and in the twin's fault messages read as project paths.
        let mirror_prefix = format!("{}/", mirror.display());
        cmd.arg(format!("-fmacro-prefix-map={mirror_prefix}="));
        let mut dirs: Vec<PathBuf> = files
            .keys()
            .filter_map(|r| Path::new(r).parent().map(Path::to_path_buf))
            .collect();
        dirs.sort();
        dirs.dedup();
        for d in &dirs {
            cmd.arg("-I").arg(mirror.join(d));
        }
        // A header in a subfolder (`op_kernel/arch22/x.h`) is read from the project, so its
        // `../../<name>/y.h` climbs from there and misses the mount (ops-math's circular_pad_grad):
        // the subfolders, empty, in the mirror and on the path let the compiler find it as the
        // original build's layout has it.
        if !self.mounts.is_empty() {
            for d in &dirs {
                for sub in subfolders(&root.join(d)) {
                    let shown = mirror.join(d).join(&sub);
                    std::fs::create_dir_all(&shown).map_err(BuildError::Io)?;
                    cmd.arg("-I").arg(shown);
                }
            }
        }
        for d in &dirs {
            cmd.arg("-I").arg(root.join(d));
        }
        cmd.arg("-I").arg(root);
        for inc in include {
            cmd.arg("-I").arg(inc);
        }
        if let Some(pch) = self.host_pch.as_ref().filter(|_| side == "host") {
            // First, so GCC can use the precompiled form; the headers' guards make later includes no-ops.
            cmd.arg("-include").arg(pch);
        }
        cmd.args(defines);
        if let Some(header) = op.tiling_header.as_ref().filter(|h| {
            side == "kernel"
                && !kernel_defines_tiling_struct(
                    h,
                    files,
                    &tiling_extract::kernel_compiled(
                        root,
                        include,
                        &self.mounts,
                        &op.kernel,
                        files,
                    ),
                )
        }) {
            // A tiling header whose include guard a kernel header also uses (ops-nn ctc_loss_v3: both
            // `CTC_LOSS_V3_H_`) would hide that header once force-included: the guard is dropped after it.
            let guard = shared_include_guard(header, files);
            let clash = tiling_extract::optiling_clash(header, files);
            if guard.is_none() && clash.is_none() {
                cmd.arg("-include").arg(mirror.join(header));
            } else {
                let wrap = staging.join("twin_tiling_header.h");
                let mut text = String::new();
                if clash.is_some() {
                    text.push_str("#define TWIN_TILING_NO_USING_NAMESPACE\n");
                }
                text.push_str(&format!("#include \"{}\"\n", mirror.join(header).display()));
                if let Some(guard) = guard {
                    text.push_str(&format!("#undef {guard}\n"));
                }
                for s in clash.iter().flatten() {
                    text.push_str(&format!("using optiling::{s};\n"));
                }
                fsx::write_file(&wrap, &text).map_err(BuildError::Io)?;
                cmd.arg("-include").arg(wrap);
            }
        } else if side == "kernel" && files.contains_key(tiling_extract::GENERATED) {
            cmd.arg("-include")
                .arg(mirror.join(tiling_extract::GENERATED));
        }
        let units = if side == "host" { &op.host } else { &op.kernel };
        for u in units
            .iter()
            .filter(|u| shim.is_none_or(|s| !s.contains(&format!("\"src/{u}\""))))
        {
            cmd.arg(mirror.join(u));
        }
        if let Some(shim) = shim {
            let p = staging.join("launch.cpp");
            fsx::write_file(&p, shim).map_err(BuildError::Io)?;
            cmd.arg(p);
        }
        cmd.args(if side == "host" {
            &self.host_objects
        } else {
            &self.kernel_objects
        });
        // `-H`: the headers each unit includes, on stderr, for `reads.txt` (twin/reads.rs).
        cmd.arg("-H");
        let out = staging.join("program");
        // The compiler's whole stderr: `process::run` keeps its first 8000 bytes, which `-H` alone
        // fills; the log file it came from holds all of it.
        let compile = |cmd: Command, stem: &str| {
            let log = staging.join(stem);
            process::run(cmd, COMPILE_LIMIT, &log).map(|f| match f {
                process::Finished::Exited { status, stderr } => process::Finished::Exited {
                    status,
                    stderr: std::fs::read_to_string(log.with_extension("err")).unwrap_or(stderr),
                },
                other => other,
            })
        };
        // `stub-undefined`: a first link that names what nothing defines, then the real one with a
        // stub for each (twin/stubs.rs). Without it a missing definition is a link error, as in CANN.
        let finished = if op.stub_undefined {
            let again = rebuilt(&cmd);
            cmd.args(stubs::PROBE_LINK_FLAGS);
            cmd.arg("-o").arg(&out);
            let probe = compile(cmd, "probe-link");
            match &probe {
                Ok(process::Finished::Exited { status, stderr }) if status.success() => {
                    let missing = stubs::undefined_symbols(stderr);
                    if missing.is_empty() {
                        probe
                    } else {
                        let unit = staging.join("twin_stubs.cpp");
                        fsx::write_file(&unit, stubs::stub_unit(&missing))
                            .map_err(BuildError::Io)?;
                        let mut cmd = again;
                        cmd.arg(&unit).arg("-o").arg(&out);
                        compile(cmd, "build")
                    }
                }
                _ => probe,
            }
        } else {
            cmd.arg("-o").arg(&out);
            compile(cmd, "build")
        };
        // What the build read of the project, kept beside the program; the `-H` lines are no errors.
        let finished = finished.map(|f| match f {
            process::Finished::Exited { status, stderr } => {
                if status.success() {
                    let mut read: std::collections::BTreeSet<String> =
                        units.iter().cloned().collect();
                    read.extend(
                        reads::included(&stderr)
                            .iter()
                            .filter_map(|p| reads::project_path(p, root, &mirror, &self.mounts)),
                    );
                    let _ = fsx::write_file(&staging.join(reads::FILE), reads::render(&read));
                }
                process::Finished::Exited {
                    status,
                    stderr: reads::without_h_lines(&stderr).chars().take(8000).collect(),
                }
            }
            other => other,
        });
        match finished {
            Ok(process::Finished::Exited { status, .. }) if status.success() => Ok(out),
            // A compiler killed by a signal (the OOM killer, a user) or out of disk says nothing of the
            // candidate: the machine failed.
            Ok(process::Finished::Exited { status, stderr })
                if status.code().is_none() || stderr.contains("No space left on device") =>
            {
                let said = first_errors(&stderr.replace(&mirror_prefix, ""));
                Err(BuildError::Failed(TrialFailure::new(
                    FailureKind::Infra,
                    format!(
                        "compiling the {side} code was cut short ({}){}",
                        process::describe(status, &stderr),
                        if said.is_empty() {
                            String::new()
                        } else {
                            format!(":\n{said}")
                        }
                    ),
                )))
            }
            Ok(process::Finished::Exited { stderr, .. }) => {
                let stderr = stderr.replace(&mirror_prefix, "");
                // A library header the system lacks: say what to install on the first line (init's
                // warning and run's one-line summary show only that line).
                let install = missing_package(&stderr)
                    .map(|(h, pkg)| {
                        format!(
                            " `{h}` is not installed: install {pkg} (Debian/Ubuntu: `apt-get install {pkg}`)"
                        )
                    })
                    .unwrap_or_default();
                Err(BuildError::Failed(TrialFailure::new(
                    FailureKind::Build,
                    format!(
                        "the {side} code does not compile:{install}\n{}",
                        first_errors(&stderr)
                    ),
                )))
            }
            Ok(process::Finished::TimedOut) => Err(BuildError::Failed(TrialFailure::new(
                FailureKind::Timeout,
                format!(
                    "compiling the {side} code took longer than {}s",
                    COMPILE_LIMIT.as_secs()
                ),
            ))),
            Err(e) => Err(BuildError::Io(e)),
        }
    }

    /// Runs the tiling program, then the kernel program on `inputs`, returning outputs and trace.
    pub fn run(
        &self,
        op: &OpSpec,
        programs: &Artifact,
        soc: &crate::model::soc::Soc,
        inputs: &[PathBuf],
    ) -> std::result::Result<RunOutput, TrialFailure> {
        let dir = self.work.join("runs").join(fsx::unique_suffix());
        let io = |e: std::io::Error| {
            TrialFailure::new(
                io_kind(&e, FailureKind::Crash),
                format!("run folder {}: {e}", dir.display()),
            )
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let result = self.run_in(op, programs, soc, inputs, &dir);
        if std::env::var_os("ASCEND_TUNE_KEEP_RUNS").is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        result
    }

    /// Runs the op's own InferShape (and InferDataType) in its host program, built as for a tiling,
    /// on the op's input shapes, dtypes, attrs and input data. Ok(None) when the op registers no
    /// InferShape; Err says why it could not be run.
    pub fn infer_outputs(
        &self,
        root: &Path,
        include: &[PathBuf],
        op: &OpSpec,
        soc: &crate::model::soc::Soc,
        inputs: &[PathBuf],
        built: Option<&Artifact>,
    ) -> std::result::Result<Option<Vec<protocol::InferredOutput>>, String> {
        match self.run_host_alone(root, include, op, soc, inputs, "infer", "infer 1\n", built)? {
            HostAlone::Result(text) => {
                // One result per instance (a tensor list has several): each output takes its first
                // instance's (a list's tensors share the manifest's shape).
                let n: usize = op.outputs.iter().map(|t| t.instances()).sum();
                protocol::parse_infer_result(&text, n).map(|r| {
                    r.map(|all| {
                        let mut at = 0;
                        op.outputs
                            .iter()
                            .map(|t| {
                                let first = all[at].clone();
                                at += t.instances();
                                first
                            })
                            .collect()
                    })
                })
            }
            HostAlone::Failed { status, stderr } => Err(host_failed(status, &stderr)),
        }
    }

    /// Runs the op's tiling function alone in its host program on the op's inputs and attrs, as `run`
    /// would before the kernel: Ok(None) when it accepts them (and sets a block_dim in range),
    /// Ok(Some(why)) when it refuses them (its own failure status, or a block_dim out of range), Err
    /// when the host program does not build or fails otherwise.
    pub fn tiling_refusal(
        &self,
        root: &Path,
        include: &[PathBuf],
        op: &OpSpec,
        soc: &crate::model::soc::Soc,
        inputs: &[PathBuf],
    ) -> std::result::Result<Option<String>, String> {
        match self.run_host_alone(root, include, op, soc, inputs, "tiling", "", None)? {
            HostAlone::Result(text) => {
                let tiling = match protocol::parse_tiling_result(&text) {
                    Ok(t) => t,
                    Err(m) => return Ok(Some(m)),
                };
                Ok(
                    (tiling.block_dim == 0 || tiling.block_dim > MAX_BLOCK_DIM).then(|| {
                        format!(
                            "the tiling function set block_dim {}; it must be 1..={MAX_BLOCK_DIM}",
                            tiling.block_dim
                        )
                    }),
                )
            }
            HostAlone::Failed { status, stderr } if status.code() == Some(EXIT_TILING) => {
                Ok(Some(stderr.trim().to_string()))
            }
            HostAlone::Failed { status, stderr } => Err(host_failed(status, &stderr)),
        }
    }

    /// Builds the op's host program and runs it alone (no kernel) on a tiling spec of the op, with
    /// `extra` lines after it, in a run folder of its own (kept under `ASCEND_TUNE_KEEP_RUNS`): the
    /// result file's text when it exits 0, else its exit. `stem` names the spec and result files.
    #[allow(clippy::too_many_arguments)]
    fn run_host_alone(
        &self,
        root: &Path,
        include: &[PathBuf],
        op: &OpSpec,
        soc: &crate::model::soc::Soc,
        inputs: &[PathBuf],
        stem: &str,
        extra: &str,
        built: Option<&Artifact>,
    ) -> std::result::Result<HostAlone, String> {
        // A build given is the op's sources' (a tune's run-time form, its values in `run_env`)
        let (host, env) = match built {
            Some(a) => (a.host.clone(), a.run_env.clone()),
            None => {
                let (host, _) = self
                    .build_side(root, include, op, &SourceSet::default(), "host")
                    .map_err(|e| match e {
                        BuildError::Io(e) => format!("build folder: {e}"),
                        BuildError::Failed(t) => t.message,
                    })?;
                (host, vec![])
            }
        };
        let dir = self.work.join("runs").join(fsx::unique_suffix());
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let data: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        let spec = dir.join(format!("{stem}.spec"));
        let result_path = dir.join(format!("{stem}.result"));
        let result = (|| {
            fsx::write_file(
                &spec,
                format!("{}{extra}", protocol::tiling_spec(op, soc, &data)),
            )
            .map_err(|e| e.to_string())?;
            let mut cmd = Command::new(&host);
            cmd.arg(&spec).arg(&result_path).current_dir(&dir);
            cmd.envs(env.iter().map(|(k, v)| (k, v)));
            match process::run_candidate(cmd, TILING_LIMIT, &dir.join(stem))
                .map_err(|e| e.to_string())?
            {
                process::Finished::Exited { status, .. } if status.success() => {
                    std::fs::read_to_string(&result_path)
                        .map(HostAlone::Result)
                        .map_err(|e| e.to_string())
                }
                process::Finished::Exited { status, stderr } => {
                    Ok(HostAlone::Failed { status, stderr })
                }
                process::Finished::TimedOut => Err(format!(
                    "the host program ran longer than {}s",
                    TILING_LIMIT.as_secs()
                )),
            }
        })();
        if std::env::var_os("ASCEND_TUNE_KEEP_RUNS").is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        result
    }

    fn run_in(
        &self,
        op: &OpSpec,
        programs: &Artifact,
        soc: &crate::model::soc::Soc,
        inputs: &[PathBuf],
        dir: &Path,
    ) -> std::result::Result<RunOutput, TrialFailure> {
        let io = |e: std::io::Error| {
            TrialFailure::new(
                io_kind(&e, FailureKind::Crash),
                format!("run folder {}: {e}", dir.display()),
            )
        };
        let spec = dir.join("tiling.spec");
        let data: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        fsx::write_file(&spec, protocol::tiling_spec(op, soc, &data)).map_err(io)?;
        // Not `tiling.out`: that is where the program's stdout goes (`process::run_candidate` logs to
        // `<stem>.out`), and an operator's own `printf` in its tiling function overwrote the result.
        let result_path = dir.join("tiling.result");
        let mut cmd = Command::new(&programs.host);
        cmd.arg(&spec).arg(&result_path).current_dir(dir);
        cmd.envs(programs.run_env.iter().map(|(k, v)| (k, v)));
        let tiling =
            match process::run_candidate(cmd, TILING_LIMIT, &dir.join("tiling")).map_err(io)? {
                process::Finished::Exited { status, .. } if status.success() => {
                    let text = std::fs::read_to_string(&result_path).map_err(io)?;
                    protocol::parse_tiling_result(&text)
                        .map_err(|m| TrialFailure::new(FailureKind::Tiling, m))?
                }
                process::Finished::Exited { status, stderr } => {
                    let kind = if status.code() == Some(EXIT_TILING) {
                        FailureKind::Tiling
                    } else {
                        FailureKind::Crash
                    };
                    return Err(TrialFailure::new(
                        kind,
                        format!(
                            "the tiling program failed ({}): {}",
                            process::describe(status, &stderr),
                            stderr.trim()
                        ),
                    ));
                }
                process::Finished::TimedOut => {
                    return Err(TrialFailure::new(
                        FailureKind::Timeout,
                        format!(
                            "the tiling program ran longer than {}s",
                            TILING_LIMIT.as_secs()
                        ),
                    ));
                }
            };
        if tiling.block_dim == 0 || tiling.block_dim > MAX_BLOCK_DIM {
            return Err(TrialFailure::new(
                FailureKind::Tiling,
                format!(
                    "the tiling function set block_dim {}; it must be 1..={MAX_BLOCK_DIM}",
                    tiling.block_dim
                ),
            ));
        }
        let tiling_path = dir.join("tiling.bin");
        fsx::write_file(&tiling_path, &tiling.tiling_data).map_err(io)?;
        let output_paths: Vec<PathBuf> = op
            .outputs
            .iter()
            .map(|t| dir.join(format!("{}.out.bin", t.key)))
            .collect();
        let trace_path = dir.join("trace.txt");
        let run = protocol::RunFile {
            block_dim: tiling.block_dim,
            ub_bytes: soc.ub_bytes,
            cube_bytes: [soc.l1_bytes, soc.l0a_bytes, soc.l0b_bytes, soc.l0c_bytes],
            tiling: &tiling_path,
            tiling_key: tiling.tiling_key,
            workspace: tiling.workspace.iter().sum(),
            inputs: op
                .inputs
                .iter()
                .zip(inputs)
                .map(|(t, p)| protocol::RunTensor::of(t, p))
                .collect(),
            absent: &op.absent,
            outputs: op
                .outputs
                .iter()
                .zip(&output_paths)
                .map(|(t, p)| protocol::RunTensor::output_of(t, p, &op.inputs))
                .collect(),
            trace: &trace_path,
        };
        let run_path = dir.join("kernel.run");
        fsx::write_file(&run_path, run.render()).map_err(io)?;
        let mut cmd = Command::new(&programs.kernel);
        cmd.arg(&run_path).current_dir(dir);
        cmd.envs(programs.run_env.iter().map(|(k, v)| (k, v)));
        let limit = kernel_limit();
        let warnings = match process::run_candidate(cmd, limit, &dir.join("kernel")).map_err(io)? {
            process::Finished::Exited { status, stderr } if status.success() => {
                kernel_warnings(&stderr)
            }
            process::Finished::Exited { status, stderr } => {
                let kind = if status.code() == Some(EXIT_FAULT) {
                    FailureKind::Fault
                } else {
                    FailureKind::Crash
                };
                return Err(TrialFailure::new(
                    kind,
                    format!(
                        "the kernel failed ({}):\n{}",
                        process::describe(status, &stderr),
                        stderr.trim()
                    ),
                ));
            }
            process::Finished::TimedOut => {
                return Err(TrialFailure::new(
                    FailureKind::Timeout,
                    format!(
                        "the kernel ran longer than {}s (an endless loop?)",
                        limit.as_secs_f64()
                    ),
                ));
            }
        };
        let outputs = output_paths
            .iter()
            .map(std::fs::read)
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(io)?;
        let trace = std::fs::read_to_string(&trace_path).map_err(io)?;
        Ok(RunOutput {
            tiling,
            outputs,
            trace,
            warnings,
        })
    }
}

/// The flags the tool adds to the compiler's own for one side of a build. Both sides at -O1: a
/// kernel's build at -O2 took 1.4-1.7 times as long (ops-nn's selu_grad 3.49 -> 2.27 s, clipped_swiglu_grad
/// 2.77 -> 1.66 s, ops-math's less 1.67 -> 1.23 s, g++ 13 on this 2-core machine) and its run in the
/// twin no less time (0.036 / 0.131 / 0.062 s against 0.038 / 0.130 / 0.056 s); -O0 builds in about
/// 1 s but runs 1.4-2.7 times as long. A tune builds each candidate once and runs it about a dozen times.
fn own_flags() -> [&'static str; 4] {
    ["-std=c++17", "-O1", "-w", "-fno-strict-aliasing"]
}

/// A command that runs the same program with the same arguments as `cmd` (no environment or folder is
/// set on the compiler commands built here).
fn rebuilt(cmd: &Command) -> Command {
    let mut again = Command::new(cmd.get_program());
    again.args(cmd.get_args());
    again
}

/// The toolchain part of the runtime's cache key: the compiler's path, what it says it is
/// (`--version`: an upgraded compiler at the same path gets a fresh runtime), and every flag.
fn toolchain_key(compiler: &cc::Tool) -> String {
    let mut h = KeyHasher::new();
    h.part(compiler.path().to_string_lossy().as_bytes());
    if let Ok(out) = Command::new(compiler.path())
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
    {
        h.part(&out.stdout);
    }
    for a in compiler.args() {
        h.part(a.to_string_lossy().as_bytes());
    }
    for f in own_flags() {
        h.part(f);
    }
    h.part(env!("TWIN_TARGET"));
    h.finish()[..16].to_string()
}

enum BuildError {
    Failed(TrialFailure),
    Io(std::io::Error),
}

impl BuildError {
    fn or_io(self, f: impl Fn(std::io::Error) -> TrialFailure) -> TrialFailure {
        match self {
            BuildError::Failed(t) => t,
            BuildError::Io(e) => f(e),
        }
    }
}

/// The failure kind of an I/O error in the tool's own folders: a full disk is the machine's fault
/// (`Infra`, retried), anything else counts as `otherwise`.
fn io_kind(e: &std::io::Error, otherwise: FailureKind) -> FailureKind {
    if fsx::is_disk_full(e) {
        FailureKind::Infra
    } else {
        otherwise
    }
}

/// The launch file of the kernel program. An `extern "C"` entry is declared and called; one with C++
/// linkage or a template is reached by including the kernel unit that defines it (its mangled name
/// depends on its parameter types and namespace; a template must be instantiated where it is seen),
/// and that unit is then not compiled on its own. An entry found in none of the files (say, one a
/// macro writes) is taken to be `extern "C"`, as CANN's samples write them.
/// The translation units of one side (`host` or `kernel`) and the texts of the files its build reads.
/// Both sides read the tiling header (the host fills it, the kernel reads it), wherever it lives: it
/// takes part in both builds and cache keys.
/// The build cache key of one side: the twin and toolchain, which files are compiled (not only what they
/// and the files beside them hold: a manifest that lists one more host file, an InferShape's, must not
/// get the program built without it), the defines, every file's text, the launch shim and the include
/// folders.
fn side_key(
    what: [&str; 3],
    units: &[String],
    defines: &[String],
    files: &BTreeMap<String, String>,
    shim: Option<&str>,
    include: &[PathBuf],
) -> String {
    let mut h = KeyHasher::new();
    for w in what {
        h.part(w);
    }
    for u in units {
        h.part("unit").part(u);
    }
    for d in defines {
        h.part(d);
    }
    for (rel, text) in files {
        h.part(rel).part(text);
    }
    h.part(shim.unwrap_or(""));
    for inc in include {
        h.part(inc.to_string_lossy().as_bytes());
    }
    h.finish()
}

fn side_files<'o>(
    root: &Path,
    op: &'o OpSpec,
    sources: &SourceSet,
    side: &str,
) -> std::result::Result<(Vec<&'o String>, BTreeMap<String, String>), BuildError> {
    let units: Vec<&String> = if side == "host" {
        op.host.iter().collect()
    } else {
        op.kernel.iter().collect()
    };
    let mut extra_headers: Vec<&String> = op.tiling_header.iter().collect();
    extra_headers.retain(|h| !units.contains(h));
    let files = gather(
        root,
        units.iter().chain(extra_headers.iter()).copied(),
        sources,
    )
    .map_err(BuildError::Io)?;
    Ok((units, files))
}

/// `kernel<<<blocks, l2ctrl, stream>>>(args)` launches in a kernel source (the device compiler's
/// host-side launcher, which g++ cannot read) as `(::twin::device_launch(__FILE__, __LINE__), kernel(args))`:
/// the twin launches the entry itself and faults if a run reaches one
/// (templates/twin/include/kernel/twin/runtime.h). The launch arguments' line breaks are kept, so the
/// compiler's line numbers stay the source's. `None` when there is nothing to rewrite.
fn device_launches(text: &str) -> Option<String> {
    if !text.contains("<<<") {
        return None;
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 64);
    let mut done = 0; // text[..done] is in `out`
    let mut from = 0;
    let mut changed = false;
    while let Some(at) = text[from..].find("<<<").map(|i| i + from) {
        from = at + 3;
        let Some(close) = text[at + 3..].find(">>>").map(|i| i + at + 3) else {
            break;
        };
        // The call's arguments: `(` right after `>>>`, to its matching `)`.
        let mut open = close + 3;
        while open < b.len() && b[open].is_ascii_whitespace() {
            open += 1;
        }
        if b.get(open) != Some(&b'(') {
            continue;
        }
        let mut depth = 0usize;
        let mut end = None;
        for (i, &c) in b.iter().enumerate().skip(open) {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            break;
        };
        // The kernel's name before `<<<`: identifiers, `::` and balanced template arguments.
        let mut start = at;
        while start > done && b[start - 1].is_ascii_whitespace() {
            start -= 1;
        }
        let name_end = start;
        loop {
            if start > done && (b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_') {
                start -= 1;
            } else if start >= done + 2 && &b[start - 2..start] == b"::" {
                start -= 2;
            } else if start > done && b[start - 1] == b'>' {
                let mut d = 0usize;
                let mut i = start;
                while i > done {
                    i -= 1;
                    match b[i] {
                        b'>' => d += 1,
                        b'<' => {
                            d -= 1;
                            if d == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if d != 0 {
                    break;
                }
                start = i;
                while start > done && b[start - 1].is_ascii_whitespace() {
                    start -= 1;
                }
            } else {
                break;
            }
        }
        if start == name_end {
            continue;
        }
        let breaks = text[name_end..open].matches('\n').count();
        out.push_str(&text[done..start]);
        out.push_str("(::twin::device_launch(__FILE__, __LINE__), ");
        out.push_str(&text[start..name_end]);
        out.push_str(&"\n".repeat(breaks));
        if breaks == 0 && text[name_end..open].ends_with(char::is_whitespace) {
            out.push(' ');
        }
        out.push_str(&text[open..=end]);
        out.push(')');
        done = end + 1;
        from = done;
        changed = true;
    }
    if !changed {
        return None;
    }
    out.push_str(&text[done..]);
    Some(out)
}

/// The include guard of `text` (`#ifndef G` then `#define G` as its first two directives), if any.
fn include_guard(text: &str) -> Option<&str> {
    let mut directives = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('#'))
        .map(|l| l[1..].trim_start());
    let first = directives.next()?.strip_prefix("ifndef")?.trim();
    let second = directives.next()?.strip_prefix("define")?.trim();
    let guard = first.split_whitespace().next()?;
    (second.split_whitespace().next() == Some(guard)).then_some(guard)
}

/// Whether a kernel source defines, as a plain struct, tiling data that the tiling header `header`
/// defines with BEGIN_TILING_DATA_DEF (ops-cv's upsample_nearest3d: `struct UpsampleNearest3dTilingData`
/// in its kernel's namespace, read with GET_TILING_DATA_WITH_STRUCT). The kernel then brings its own
/// and the header is not forced on it: both at once are ambiguous under the kernel's `using namespace`.
/// Only what the kernel build compiles counts (`compiled`, from `tiling_extract::kernel_compiled`): a
/// struct in a header of another generation's branch, or under `#ifdef __CCE_KT_TEST__`, does not.
fn kernel_defines_tiling_struct(
    header: &str,
    files: &BTreeMap<String, String>,
    compiled: &[(PathBuf, String)],
) -> bool {
    let Some(text) = files.get(header) else {
        return false;
    };
    let names: Vec<&str> = text
        .match_indices("BEGIN_TILING_DATA_DEF(")
        .filter_map(|(at, m)| text[at + m.len()..].split(')').next().map(str::trim))
        .collect();
    compiled
        .iter()
        .filter(|(path, _)| !path.ends_with(header))
        .any(|(_, t)| {
            names.iter().any(|n| {
                t.match_indices(&format!("struct {n}"))
                    .any(|(at, m)| t[at + m.len()..].trim_start().starts_with('{'))
            })
        })
}

/// The include guard of the force-included tiling `header` when another of the side's files has the
/// same one (so force-including the header would make the compiler skip that file).
fn shared_include_guard(header: &str, files: &BTreeMap<String, String>) -> Option<String> {
    let guard = include_guard(files.get(header)?)?;
    files
        .iter()
        .any(|(rel, text)| rel != header && include_guard(text) == Some(guard))
        .then(|| guard.to_string())
}

fn kernel_shim(op: &OpSpec, files: &BTreeMap<String, String>) -> String {
    use crate::project::{Linkage, find_entry};
    let in_units = op
        .kernel
        .iter()
        .find_map(|k| Some((k, find_entry(files.get(k)?, &op.name)?)));
    // Defined in a header beside the kernel: the first kernel unit includes it, directly or not.
    let found = in_units.or_else(|| {
        let entry = files
            .iter()
            .filter(|(rel, _)| !op.kernel.contains(rel))
            .find_map(|(_, text)| find_entry(text, &op.name))?;
        Some((op.kernel.first()?, entry))
    });
    // One parameter more than a launch passes: the output-shape buffer (protocol::launch_args). A
    // template entry (TWIN_TPL_LAUNCH) does not get one yet.
    let shape_out = found
        .as_ref()
        .is_some_and(|(_, e)| e.params.len() == protocol::launch_arg_count(op) + 1);
    match found {
        Some((unit, e)) if e.linkage == Linkage::Template => {
            let key_header = tiling_key_header(op, unit, files).map(|h| format!("src/{h}"));
            protocol::template_launch_shim(
                op,
                &format!("src/{unit}"),
                &e.qualified,
                key_header.as_deref(),
            )
        }
        Some((unit, e)) if e.linkage == Linkage::Cpp => {
            protocol::included_launch_shim(op, &format!("src/{unit}"), &e.qualified, shape_out)
        }
        _ => protocol::launch_shim(op, shape_out),
    }
}

/// Whether a compile error is in an `ASCENDC_TPL_SEL` (the source line the compiler quotes).
fn selection_failed(message: &str) -> bool {
    message
        .lines()
        .any(|l| l.contains('|') && l.contains("ASCENDC_TPL_") && l.contains("_SEL("))
}

/// The tiling-key header of a template kernel (`<op>_tiling_key.h`, or `tiling_key_<op>.h` as the
/// "Tiling Template Programming" guide names it) beside the kernel `unit`, if there is one. Its
/// `ASCENDC_TPL_ARGS_DECL` is what lets the twin pick the instance from the tiling key. The device build
/// always sees it, but kernels often include it only `#if !defined(ASCENDC_CPU_DEBUG)` (CANN's CPU
/// debug flow names the instance itself, e.g. ops-math truncate_div), and the twin is a CPU-debug
/// build: so the launch file includes it before the kernel, whose own include is then a no-op.
/// https://www.hiascend.com/document/detail/en/canncommercial/latest/opdevg/Ascendcopdevg/atlas_ascendc_10_00025.html
fn tiling_key_header<'a>(
    op: &OpSpec,
    unit: &str,
    files: &'a BTreeMap<String, String>,
) -> Option<&'a String> {
    let dir = Path::new(unit).parent().unwrap_or(Path::new(""));
    [
        format!("{}_tiling_key.h", op.name),
        format!("tiling_key_{}.h", op.name),
    ]
    .iter()
    .find_map(|name| {
        let rel = dir.join(name).to_string_lossy().replace('\\', "/");
        files.get_key_value(&rel).map(|(k, _)| k)
    })
}

/// `-D` flags the CANN build generates for an op: `DTYPE_<NAME>`, `ORIG_DTYPE_<NAME>`, `FORMAT_<NAME>`,
/// and the op type.
/// An output named like an input gets `DTYPE_<NAME>_REF` (its `key`), as CANN's op build does
/// (`get_dtype_fmt_options` in cmake/asc/fwk_modules/util/ascendc_impl_build.py of
/// https://gitcode.com/cann/asc-devkit). Not `__CCE_KT_TEST__`: CANN defines it only for its CPU unit-test
/// build of a kernel (the tikicpulib CMake package, with ASCENDC_CPU_DEBUG: ops-nn
/// experimental/optim/apply_ftrl/tests/ut/op_kernel/CMakeLists.txt), and kernels take other paths under
/// it (bnll: a fixed single buffer instead of the tiling's buffer mode; dynamic_quant: a `static` entry;
/// apply_centered_rms_prop: a template entry for a multi-dtype test binary), while the twin stands for
/// the device build that is tuned. What the device build alone reads, the `<<<...>>>` launcher those
/// kernels keep under `#ifndef __CCE_KT_TEST__`, the twin reads through `device_launches`.
fn defines(op: &OpSpec, side: &str) -> Vec<String> {
    let mut d = vec![format!("-DTWIN_OP_TYPE={}", op.op_type)];
    if side == "kernel" {
        // The device compiler predefines the core's generation for every line of a kernel source, not
        // only after kernel_operator.h (which defines the same values for what it sees first): ops-cv's
        // grid_sampler2_d_grad chooses its A2 headers with `#if __CCE_AICORE__ == 220` above its first
        // include, and took its arch35 SIMT branch without them. The values are the twin's one
        // architecture, dav-c220: "__NPU_ARCH__ is a preprocessing macro in the AI Core code on the
        // device", 2201 for Atlas A2 / A3 (CANN Ascend C guide, "Predefined Macros", SIMD built-in
        // keywords, atlas_ascendc_10_00044).
        d.push("-D__CCE_AICORE__=220".into());
        d.push("-D__NPU_ARCH__=2201".into());
        // kernel_operator.h then defines the DT_* / FORMAT_* numbers ORIG_DTYPE_* is compared with.
        d.push("-DTWIN_DTYPE_IDS".into());
        let tensors = op.inputs.iter().chain(op.outputs.iter());
        let absent = op.absent.iter().map(|a| (&a.name, a.dtype));
        for (key, dtype) in tensors.map(|t| (&t.key, t.dtype)).chain(absent) {
            let upper = key.to_ascii_uppercase();
            d.push(format!("-DDTYPE_{upper}={}", dtype.c_type()));
            d.push(format!("-DORIG_DTYPE_{upper}={}", dtype.ge_name()));
            // CANN passes each tensor's format too; the twin's tensors are ND (the manifest has no
            // other layout). ops-nn's max_pool3_d reads `FORMAT_Y == FORMAT_NDC1HWC0` in C++ code.
            d.push(format!("-DFORMAT_{upper}=FORMAT_ND"));
        }
    }
    d
}

/// The listed files and the C/C++ files beside them, with overrides applied, by relative path.
fn gather<'a>(
    root: &Path,
    listed: impl Iterator<Item = &'a String>,
    sources: &SourceSet,
) -> std::io::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for rel in listed {
        let dir = Path::new(rel).parent().unwrap_or(Path::new(""));
        for entry in std::fs::read_dir(root.join(dir))? {
            let path = entry?.path();
            let ext_ok = path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e));
            if path.is_file() && ext_ok {
                let r = dir
                    .join(path.file_name().unwrap())
                    .to_string_lossy()
                    .replace('\\', "/");
                if let std::collections::btree_map::Entry::Vacant(slot) = out.entry(r) {
                    slot.insert(std::fs::read_to_string(&path)?);
                }
            }
        }
    }
    for (rel, text) in &sources.overrides {
        out.insert(rel.clone(), text.clone());
    }
    Ok(out)
}

/// `files` with each key that lies in an `include-as` folder (`../foreach_utils/op_kernel/x.h`, a
/// shared header a rewrite changed) renamed to where the sources see it (`foreach_utils/x.h`).
fn mount_view(
    root: &Path,
    mounts: &[(PathBuf, PathBuf)],
    files: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(rel, text)| {
            let real = fsx::lexical(&root.join(rel));
            let view = rel.starts_with("../").then(|| {
                mounts.iter().find_map(|(at, dir)| {
                    real.strip_prefix(fsx::lexical(dir))
                        .ok()
                        .map(|rest| at.join(rest).to_string_lossy().replace('\\', "/"))
                })
            });
            (view.flatten().unwrap_or_else(|| rel.clone()), text.clone())
        })
        .collect()
}

/// Links every entry of `target` missing from `shown` (a folder holding some rewritten files of it),
/// descending into folders that exist in both.
fn link_missing(target: &Path, shown: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(target)? {
        let entry = entry?;
        let at = shown.join(entry.file_name());
        if at.is_dir() && !at.is_symlink() {
            link_missing(&entry.path(), &at)?;
        } else if !at.exists() {
            std::os::unix::fs::symlink(entry.path(), &at)?;
        }
    }
    Ok(())
}

/// The names of the folders in `dir` (not hidden), sorted.
fn subfolders(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    out.sort();
    out
}

/// The compiler's first error lines, which are the ones that explain the rest.
/// Third-party libraries operator sources include from the system (header prefix, Debian package):
/// ops-nn's pooling and conv tilings read their compile info with nlohmann/json (49 host files).
const SYSTEM_PACKAGES: &[(&str, &str)] = &[("nlohmann/", "nlohmann-json3-dev")];

/// The header a compile stopped at for want of it, with the package that installs it, when it is one of
/// SYSTEM_PACKAGES' (`fatal error: nlohmann/json.hpp: No such file or directory`).
fn missing_package(stderr: &str) -> Option<(String, &'static str)> {
    stderr.lines().find_map(|l| {
        let rest = &l[l.find("fatal error: ")? + "fatal error: ".len()..];
        let header = rest.strip_suffix(": No such file or directory")?.trim();
        SYSTEM_PACKAGES
            .iter()
            .find(|(prefix, _)| header.starts_with(prefix))
            .map(|(_, pkg)| (header.to_string(), *pkg))
    })
}

fn first_errors(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    // A link failure says what is wrong in lines that hold no "error" ("undefined reference to",
    // "multiple definition of"): the last line, "collect2: error: ld returned 1", says nothing.
    let start = lines
        .iter()
        .position(|l| {
            l.contains("error")
                || l.contains("undefined reference")
                || l.contains("multiple definition")
        })
        .unwrap_or(0);
    lines[start..]
        .iter()
        .take(12)
        .copied()
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the host program run alone (`Twin::run_host_alone`) gave.
enum HostAlone {
    /// It exited 0: its result file's text.
    Result(String),
    /// It exited otherwise.
    Failed {
        status: std::process::ExitStatus,
        stderr: String,
    },
}

/// The error of a host program run alone that failed other than by the op's own refusal.
fn host_failed(status: std::process::ExitStatus, stderr: &str) -> String {
    format!(
        "the host program failed ({}): {}",
        process::describe(status, stderr),
        stderr.trim()
    )
}

/// Runs the host and the kernel build of one candidate at once: they share nothing, and a cold build
/// (a first `run`, a tune's baseline, a rewrite's first trial) then waits for the slower side only,
/// not for both in turn. The host side's result comes first.
pub(super) fn both_sides<T: Send>(
    host: impl FnOnce() -> T,
    kernel: impl FnOnce() -> T + Send,
) -> (T, T) {
    std::thread::scope(|s| {
        let kernel = s.spawn(kernel);
        let host = host();
        let kernel = kernel
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (host, kernel)
    })
}

#[cfg(test)]
mod tests {

    /// The host and the kernel side build at once: the host side waits for a message the kernel side
    /// sends, which it would never get if the two ran in turn (host first).
    #[test]
    fn the_two_sides_of_a_build_run_at_once() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (host, kernel) = super::both_sides(
            || rx.recv_timeout(std::time::Duration::from_secs(10)).is_ok(),
            || tx.send(()).is_ok(),
        );
        assert!(host, "the host side did not hear from the kernel side");
        assert!(kernel);
    }

    /// The public header paths of templates/twin_aliases.txt are embedded, each including a twin
    /// header that is embedded too (a typo in a target would otherwise only show in a user's build).
    #[test]
    fn header_aliases_lead_to_embedded_headers() {
        use super::embedded::FILES;
        let aliases: Vec<_> = FILES
            .iter()
            .filter(|(_, b)| {
                b.starts_with(b"// twin: ") && b.windows(17).any(|w| w == b"twin_aliases.txt)")
            })
            .collect();
        assert!(aliases.len() > 300, "{} aliases", aliases.len());
        for (rel, bytes) in aliases {
            let text = std::str::from_utf8(bytes).unwrap();
            let target = text.split('"').nth(1).unwrap();
            let mut path: Vec<&str> = rel.split('/').collect();
            path.pop();
            for part in target.split('/') {
                match part {
                    ".." => {
                        path.pop();
                    }
                    p => path.push(p),
                }
            }
            let resolved = path.join("/");
            assert!(
                FILES.iter().any(|(r, _)| *r == resolved),
                "{rel} includes {target}, which is not embedded ({resolved})"
            );
        }
        assert!(super::provides_header("adv_api/pad/broadcast.h"));
        assert!(super::provides_header("adv_api/math/sign.h"));
        assert!(!super::provides_header("adv_api/hccl/hccl.h"));
    }

    #[test]
    fn a_tiling_header_sharing_a_kernel_headers_guard_is_found() {
        let files: BTreeMap<String, String> = [
            (
                "op_host/x_tiling.h",
                "/* c */\n#ifndef X_H_\n#define X_H_\nstruct T {};\n#endif\n",
            ),
            (
                "op_kernel/x.h",
                "// k\n#ifndef X_H_\n#define X_H_\nnamespace NS {}\n#endif // X_H_\n",
            ),
            ("op_kernel/y.h", "#pragma once\n"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(include_guard(&files["op_kernel/x.h"]), Some("X_H_"));
        assert_eq!(include_guard("#pragma once\n#define A 1\n"), None);
        assert_eq!(include_guard("#ifndef A\n#define B\n"), None);
        assert_eq!(
            shared_include_guard("op_host/x_tiling.h", &files).as_deref(),
            Some("X_H_")
        );
        let mut alone = files.clone();
        alone.remove("op_kernel/x.h");
        assert_eq!(shared_include_guard("op_host/x_tiling.h", &alone), None);
    }
    use super::*;

    /// A kernel's warnings on a run that succeeded reach the user (they were dropped: add_rms_norm_quant_v2
    /// ran none of its branches and only "all zeros" was said).
    #[test]
    fn kernel_warnings_are_read_one_a_line_with_their_place() {
        let stderr = "warning: tiling key 11000 matches none of the TILING_KEY_IS branches\n  --> op_kernel/k.cpp:35 (block 0)\n\
                      something else\nwarning: bare\n";
        assert_eq!(
            kernel_warnings(stderr),
            [
                "tiling key 11000 matches none of the TILING_KEY_IS branches (op_kernel/k.cpp:35, block 0)",
                "bare"
            ]
        );
        assert!(kernel_warnings("").is_empty());
    }

    /// ops-cv's upsample_nearest3d: its kernel defines `struct UpsampleNearest3dTilingData {` in its own
    /// namespace, and the host tiling header defines the same name with BEGIN_TILING_DATA_DEF.
    #[test]
    fn a_kernel_with_its_own_tiling_struct_is_not_given_the_host_header() {
        let files: BTreeMap<String, String> = [
            (
                "op_host/u_tiling.h",
                "BEGIN_TILING_DATA_DEF(UTilingData)\nTILING_DATA_FIELD_DEF(int64_t, n);\nEND_TILING_DATA_DEF;\n",
            ),
            ("op_kernel/u_struct.h", "namespace U {\nstruct UTilingData {\n int64_t n;\n};\n}\n"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        // As `tiling_extract::kernel_compiled` gives them: every file reached, untaken branches blanked.
        let compiled = |files: &BTreeMap<String, String>| -> Vec<(PathBuf, String)> {
            files
                .iter()
                .map(|(r, t)| {
                    (
                        Path::new("/p").join(r),
                        crate::project::preproc::compiled_text(t),
                    )
                })
                .collect()
        };
        assert!(kernel_defines_tiling_struct(
            "op_host/u_tiling.h",
            &files,
            &compiled(&files)
        ));
        let mut named_only = files.clone();
        named_only.insert(
            "op_kernel/u_struct.h".into(),
            "void k(const struct UTilingData *t);\n".into(),
        );
        assert!(!kernel_defines_tiling_struct(
            "op_host/u_tiling.h",
            &named_only,
            &compiled(&named_only)
        ));
        // ops-nn's chamfer_distance_grad: its own struct is for the old CPU unit tests only.
        let mut unit_tests_only = files.clone();
        unit_tests_only.insert(
            "op_kernel/u_struct.h".into(),
            "#ifdef __CCE_KT_TEST__\nstruct UTilingData {\n int64_t n;\n};\n#endif\n".into(),
        );
        assert!(!kernel_defines_tiling_struct(
            "op_host/u_tiling.h",
            &unit_tests_only,
            &compiled(&unit_tests_only)
        ));
    }

    /// Found in the new-user run (ops-nn modulate): a link failure was reported as "collect2: error:
    /// ld returned 1 exit status", hiding the symbol that was missing.
    #[test]
    fn a_link_failure_names_the_missing_symbol() {
        let stderr = "/usr/bin/ld: /tmp/cc1.o: in function `f()':\n\
                      a.cpp:(.text+0x5): undefined reference to `g()'\n\
                      collect2: error: ld returned 1 exit status\n";
        let said = first_errors(stderr);
        assert!(
            said.starts_with("a.cpp:(.text+0x5): undefined reference to `g()'"),
            "{said}"
        );
        let compile = "a.cpp: In function 'f':\na.cpp:3:1: error: 'x' was not declared\n";
        assert!(first_errors(compile).starts_with("a.cpp:3:1: error"));
    }

    fn add_custom() -> OpSpec {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/add_custom/ascend.toml");
        crate::manifest::Manifest::load(&path).unwrap().ops[0].clone()
    }

    /// add_custom with its output renamed `x`, like its first input.
    fn in_place_add() -> OpSpec {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/add_custom/ascend.toml");
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("name = \"z\"", "name = \"x\"")
            .replacen(
                "dtype = \"float16\"\nshape = [48, 16384]\n\n[op.tune]",
                "dtype = \"float32\"\nshape = [48, 16384]\n\n[op.tune]",
                1,
            );
        crate::manifest::Manifest::parse(text, &path).unwrap().ops[0].clone()
    }

    /// Found when init listed an op's InferShape file in `host`: the file was already beside the others
    /// (so in the key's texts), and the program built without it was taken from the cache.
    #[test]
    fn the_build_key_changes_with_the_files_compiled() {
        let files = BTreeMap::from([
            ("op_host/a.cpp".to_string(), "int a;".to_string()),
            ("op_host/a_infershape.cpp".to_string(), "int b;".to_string()),
        ]);
        let (a, b) = (
            "op_host/a.cpp".to_string(),
            "op_host/a_infershape.cpp".to_string(),
        );
        let key = |units: &[String]| side_key(["v", "host", "t"], units, &[], &files, None, &[]);
        assert_ne!(key(&[a.clone()]), key(&[a.clone(), b.clone()]));
        assert_eq!(key(&[a.clone(), b.clone()]), key(&[a, b]));
    }

    /// An output named like an input gets the macros DTYPE_<NAME>_REF, as CANN's build names them.
    #[test]
    fn an_output_named_like_an_input_gets_ref_macros() {
        let d = defines(&in_place_add(), "kernel");
        for want in [
            "-DDTYPE_X=half",
            "-DDTYPE_Y=half",
            "-DDTYPE_X_REF=float",
            "-DORIG_DTYPE_X_REF=DT_FLOAT",
        ] {
            assert!(d.contains(&want.to_string()), "{want} not in {d:?}");
        }
        assert_eq!(d.iter().filter(|f| f.starts_with("-DDTYPE_X=")).count(), 1);
        let d = defines(&add_custom(), "kernel");
        assert!(d.contains(&"-DDTYPE_Z=half".to_string()), "{d:?}");
        // and each tensor's format, ND as the twin lays every tensor out
        assert!(d.contains(&"-DFORMAT_Z=FORMAT_ND".to_string()), "{d:?}");
    }

    /// Found in the new-user run (ops-nn avg_pool3_d, avg_pool3_d_grad: their host tilings include
    /// `<nlohmann/json.hpp>`): a build stopped at a header of a packaged library names the package.
    #[test]
    fn a_missing_library_header_names_its_package() {
        let err = "op_host/avg_pool_cube_tiling.h:19:10: fatal error: nlohmann/json.hpp: No such file or directory\n   19 | #include <nlohmann/json.hpp>\ncompilation terminated.\n";
        assert_eq!(
            missing_package(err),
            Some(("nlohmann/json.hpp".to_string(), "nlohmann-json3-dev"))
        );
        assert_eq!(
            missing_package("a.cpp:1:10: fatal error: own_header.h: No such file or directory\n"),
            None
        );
        assert_eq!(missing_package("a.cpp:3:1: error: expected ';'\n"), None);
    }

    /// Found in the new-user run (ops-nn add_layer_norm_grad, also rms_norm_grad: a
    /// `kernel<<<blocks, l2ctrl, stream>>>(args)` launcher, which only the device compiler reads, beside
    /// the entry): the twin's kernel build reads each launch as a call that faults if reached, then the
    /// kernel; `<<<` in a comment or without a call after it stays as it is, and lines keep their numbers.
    #[test]
    fn device_launches_become_calls_that_fault_if_reached() {
        let src = "void k_do(uint32_t n, void *l2, void *s, uint8_t *x)\n{\n    k<<<n, l2,\n      s>>>(x, f(1, 2));\n}\n\
                   void t_do(uint8_t *x) { ns::tk<float, 2>  <<<1, nullptr, nullptr>>> (x); }\n\
                   // a thin <<<>>> entry\n";
        let got = device_launches(src).unwrap();
        assert_eq!(
            got,
            "void k_do(uint32_t n, void *l2, void *s, uint8_t *x)\n{\n    (::twin::device_launch(__FILE__, __LINE__), k\n(x, f(1, 2)));\n}\n\
             void t_do(uint8_t *x) { (::twin::device_launch(__FILE__, __LINE__), ns::tk<float, 2> (x)); }\n\
             // a thin <<<>>> entry\n"
        );
        assert_eq!(got.lines().count(), src.lines().count());
        assert_eq!(device_launches("int a = b << 2;\n"), None);
        // The CPU unit-test macro is not defined: the twin builds the device paths.
        let k = defines(&add_custom(), "kernel");
        assert!(!k.iter().any(|f| f.contains("__CCE_KT_TEST__")), "{k:?}");
    }

    /// The launch file reaches the entry as the kernel declares it: declared `extern "C"`, or through
    /// the kernel source for C++ linkage (by its qualified name) and templates. The kernel may define
    /// the entry in a header beside it.
    #[test]
    fn the_launch_file_follows_the_entry_linkage() {
        let op = add_custom();
        let unit = "op_kernel/add_custom.cpp";
        let shim_of = |files: &[(&str, &str)]| {
            let files: BTreeMap<String, String> = files
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            kernel_shim(&op, &files)
        };
        let c = shim_of(&[(
            unit,
            "extern \"C\" __global__ __aicore__ void add_custom(GM_ADDR x) {}",
        )]);
        assert!(c.contains("extern \"C\" void add_custom("), "{c}");
        assert!(!c.contains("#include \"src/"), "{c}");

        let cpp = shim_of(&[(
            unit,
            "namespace k {\n__global__ __aicore__ void add_custom(GM_ADDR x) {}\n}",
        )]);
        assert!(
            cpp.contains("#include \"src/op_kernel/add_custom.cpp\""),
            "{cpp}"
        );
        assert!(
            cpp.contains("{ k::add_custom(args[0], args[1], args[2], args[3], args[4]); }"),
            "{cpp}"
        );
        assert!(!cpp.contains("extern \"C\" void add_custom"), "{cpp}");

        let tpl_text = "template <int M>\n__global__ __aicore__ void add_custom(GM_ADDR x) {}";
        let tpl = shim_of(&[(unit, tpl_text)]);
        assert!(tpl.contains("TWIN_TPL_LAUNCH(add_custom, 5)"), "{tpl}");
        assert!(!tpl.contains("tiling_key"), "{tpl}");
        // A tiling-key header beside a template kernel comes first, under either documented name.
        for key in ["add_custom_tiling_key.h", "tiling_key_add_custom.h"] {
            let path = format!("op_kernel/{key}");
            let tpl = shim_of(&[(unit, tpl_text), (&path, "")]);
            let at = |s: &str| tpl.find(s).unwrap_or_else(|| panic!("{s} not in {tpl}"));
            assert!(
                at(&format!("#include \"src/{path}\""))
                    < at("#include \"src/op_kernel/add_custom.cpp\""),
                "{tpl}"
            );
        }

        let in_header = shim_of(&[
            (unit, "#include \"entry.h\"\n"),
            (
                "op_kernel/entry.h",
                "__global__ __aicore__ void add_custom(GM_ADDR x) {}",
            ),
        ]);
        assert!(
            in_header.contains("#include \"src/op_kernel/add_custom.cpp\""),
            "{in_header}"
        );

        // Nowhere to be found (a macro writes it): declared extern "C", as before.
        let hidden = shim_of(&[(unit, "ENTRY_MACRO(add_custom)\n")]);
        assert!(hidden.contains("extern \"C\" void add_custom("), "{hidden}");
    }
}
