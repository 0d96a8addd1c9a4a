//! The twin package: a folder laid out like the parts of a CANN install that a kernel-launch project's
//! cpu mode uses (FACTS.md §5), with the twin standing in for CANN's CPU debug library, so that
//! `cmake -B build -DRUN_MODE=cpu -DSOC_VERSION=<soc> -DASCEND_CANN_PACKAGE_PATH=<package>` builds such a
//! project unchanged and its run leaves a trace the model reads.
//!
//! This module owns the layout and the writing (atomic: staged in a sibling folder, then renamed; an
//! up-to-date package is left alone; a folder that is not a twin package is never overwritten). The
//! files come from the embedded twin (`templates/twin/`): the kernel headers and runtime sources as they
//! are, and `templates/twin/package/` (CMake config, `tikicpulib.h`, the ICPU_RUN_KF glue, env scripts)
//! rendered with this build's SoC table. It knows nothing of building or running projects: CMake builds
//! the twin runtime from the package's sources, once per build folder.
//!
//! Layout (`<pkg>/`):
//! ```text
//! ascend-twin-package.toml                              marker: twin-version, tool-version, socs
//! set_env.sh, bin/setenv.bash                           env scripts (ASCEND_HOME_PATH etc.)
//! compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake    stops: RUN_MODE=cpu only
//! tools/tikicpulib/lib/cmake/tikicpulib-config.cmake    targets tikicpulib::<SOC_VERSION>
//! tools/tikicpulib/lib/cmake/tikicpulib-config-version.cmake, tikicpulib-cache.cmake
//! tools/tikicpulib/cache/<key>/                         runtime archives kept by builds (see the config)
//! tools/tikicpulib/twin/include/kernel/                 kernel_operator.h, tikicpulib.h, twin/*.h, ...
//! tools/tikicpulib/twin/src/                            runtime: kernel_{runtime,math,blocks}.cpp, icpu_runtime.cpp
//! tools/asc/bin/twin-asc                                the ASC compiler for `.asc` sources (CPU, twin)
//! tools/asc/src/asc_rewrite.cpp                         its `<<<...>>>` launch rewrite
//! tools/asc/include/{twin_asc.h, acl/acl.h, acl/acl_prof.h, acl/acl_rt.h} what it force-includes; the ACL subset
//! tools/asc/lib/cmake/ASC/                              find_package(ASC): the ASC language for CMake
//! README.md
//! ```

use super::embedded;
use crate::errors::{Error, Result};
use crate::fsx;
use std::path::{Path, PathBuf};

/// The marker file at the package root; the cann backend treats a CANN root holding it as the twin.
pub const MARKER: &str = "ascend-twin-package.toml";

/// Where the twin's kernel headers and runtime sources go in the package.
const TWIN_DIR: &str = "tools/tikicpulib/twin";
const CMAKE_DIR: &str = "tools/tikicpulib/lib/cmake";
/// The twin's ASC toolchain (CANN 9 `.asc` single-source files), and its CMake package.
const ASC_DIR: &str = "tools/asc";
const ASC_CMAKE_DIR: &str = "tools/asc/lib/cmake/ASC";
/// The CANN host libraries that kernel-launch and `.asc` projects link on a device build and a CPU run
/// needs none of: both CMake packages define them as empty targets (unless the project has them).
pub(super) const ACL_STUB_LIBS: &[&str] = &[
    "ascendcl",
    "runtime",
    "c_sec",
    "tiling_api",
    "register",
    "platform",
    "ascendalog",
    "unified_dlog",
    "graph_base",
    // the profiling calls of acl/acl_prof.h, which the twin's header holds (hicann/cann-samples)
    "msprofiler",
];
/// Package files that must be executable.
const EXECUTABLES: &[&str] = &["tools/asc/bin/twin-asc"];

/// The runtime sources the CMake config compiles into `tikicpulib_twin_runtime`, as they are named
/// under `templates/twin/` (the config template lists the same files).
const RUNTIME_SOURCES: &[&str] = &[
    "src/kernel_runtime.cpp",
    "src/kernel_math.cpp",
    "src/kernel_blocks.cpp",
    "src/kernel_cube.cpp",
    "package/src/icpu_runtime.cpp",
];

/// What `write` found or made.
#[derive(Debug, Clone)]
pub struct PackageInfo {
    /// The package folder (absolute).
    pub root: PathBuf,
    pub twin_version: String,
    /// SoCs with a `tikicpulib::<SOC_VERSION>` target.
    pub socs: Vec<&'static str>,
    /// Files in the package.
    pub files: usize,
    /// False when an up-to-date package was already there and nothing was written.
    pub written: bool,
}

/// The twin version recorded in `dir`'s marker, when `dir` is a twin package.
pub fn installed_version(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(MARKER)).ok()?;
    let table: toml::Table = text.parse().ok()?;
    Some(table.get("twin-version")?.as_str()?.to_string())
}

/// Whether `dir` is a twin package (of any version).
pub fn is_package(dir: &Path) -> bool {
    installed_version(dir).is_some()
}

/// Writes the twin package into `dir` (created with its parents if missing). An existing twin package of
/// this twin version is left as it is; one of another version is replaced; an empty folder is filled; a
/// folder with other files in it is refused.
pub fn write(dir: &Path) -> Result<PackageInfo> {
    let root = std::path::absolute(dir).map_err(|e| Error::io("could not resolve", dir, e))?;
    let version = super::version();
    let files = files(&root);
    let info = |written| PackageInfo {
        root: root.clone(),
        twin_version: version.clone(),
        socs: crate::model::soc::all().iter().map(|s| s.name).collect(),
        files: files.len(),
        written,
    };
    let old = match std::fs::metadata(&root) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Existing::Missing,
        Err(e) => return Err(Error::io("could not read", &root, e)),
        Ok(m) if !m.is_dir() => {
            return Err(Error::bad_input(
                format!(
                    "{} exists and is not a folder: the twin package is a folder",
                    root.display()
                ),
                Some("name a new or empty folder, e.g. target/twin-package".into()),
            ));
        }
        Ok(_) => existing(&root, &version)?,
    };
    if old == Existing::Current {
        return Ok(info(false));
    }
    let parent = root
        .parent()
        .ok_or_else(|| Error::bad_input("the twin package cannot be the root folder", None))?;
    fsx::create_dir_all(parent)?;
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staging = parent.join(format!(".{name}.twin-package.{}", fsx::unique_suffix()));
    let result = stage(&staging, &files).and_then(|()| install(&staging, &root, old, &version));
    let _ = std::fs::remove_dir_all(&staging);
    result.map(|()| info(true))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Existing {
    Missing,
    Empty,
    /// A twin package of another twin version: replaced.
    Stale,
    /// A twin package of this twin version: left alone.
    Current,
}

fn existing(root: &Path, version: &str) -> Result<Existing> {
    if let Some(v) = installed_version(root) {
        return Ok(if v == version {
            Existing::Current
        } else {
            Existing::Stale
        });
    }
    let mut entries = std::fs::read_dir(root).map_err(|e| Error::io("could not read", root, e))?;
    if entries.next().is_none() {
        return Ok(Existing::Empty);
    }
    Err(Error::bad_input(
        format!(
            "{} is not empty and is not a twin package (it has no {MARKER}); twin-package writes only \
             into a new or empty folder, or over an earlier twin package",
            root.display()
        ),
        Some("name a new or empty folder, e.g. target/twin-package".into()),
    ))
}

/// Writes every file into `staging`, the marker last (a folder without it is not a package).
fn stage(staging: &Path, files: &[(String, Vec<u8>)]) -> Result<()> {
    for (rel, bytes) in files {
        let path = staging.join(rel);
        fsx::create_dir_all(path.parent().unwrap())?;
        std::fs::write(&path, bytes).map_err(|e| Error::io("could not write", &path, e))?;
        #[cfg(unix)]
        if EXECUTABLES.contains(&rel.as_str()) {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| Error::io("could not make executable", &path, e))?;
        }
    }
    Ok(())
}

/// Moves the staged package into place.
fn install(staging: &Path, root: &Path, old: Existing, version: &str) -> Result<()> {
    let moved = match old {
        Existing::Missing => std::fs::rename(staging, root),
        Existing::Empty => std::fs::remove_dir(root).and_then(|()| std::fs::rename(staging, root)),
        Existing::Stale => {
            let aside = root.with_file_name(format!(
                ".{}.old.{}",
                root.file_name().unwrap_or_default().to_string_lossy(),
                fsx::unique_suffix()
            ));
            std::fs::rename(root, &aside).map_err(|e| Error::io("could not replace", root, e))?;
            let r = std::fs::rename(staging, root);
            if r.is_err() {
                let _ = std::fs::rename(&aside, root);
            } else {
                let _ = std::fs::remove_dir_all(&aside);
            }
            r
        }
        Existing::Current => Ok(()),
    };
    match moved {
        Ok(()) => Ok(()),
        // Another process wrote the same package first: theirs is identical.
        Err(_) if installed_version(root).as_deref() == Some(version) => Ok(()),
        Err(e) => Err(Error::io("could not write the twin package to", root, e)),
    }
}

fn embedded_file(rel: &str) -> &'static [u8] {
    embedded::FILES
        .iter()
        .find(|(p, _)| *p == rel)
        .map(|(_, b)| *b)
        .unwrap_or_else(|| panic!("templates/twin/{rel} is not embedded"))
}

fn template(rel: &str) -> String {
    String::from_utf8_lossy(embedded_file(rel)).into_owned()
}

/// Every file of the package for a package at `root`: (path relative to the package, contents).
fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let version = super::version();
    let tool_version = env!("CARGO_PKG_VERSION");
    let socs = crate::model::soc::all();
    let mut out: Vec<(String, Vec<u8>)> = vec![];
    // The kernel headers as they are, and the runtime's sources beside its private header.
    for (rel, bytes) in embedded::FILES {
        if rel.starts_with("include/kernel/") || *rel == "src/kernel_internal.h" {
            out.push((format!("{TWIN_DIR}/{rel}"), bytes.to_vec()));
        }
    }
    for rel in RUNTIME_SOURCES {
        let name = Path::new(rel).file_name().unwrap().to_string_lossy();
        out.push((
            format!("{TWIN_DIR}/src/{name}"),
            embedded_file(rel).to_vec(),
        ));
    }
    out.push((
        format!("{TWIN_DIR}/include/kernel/tikicpulib.h"),
        embedded_file("package/include/tikicpulib.h").to_vec(),
    ));

    let table: String = socs
        .iter()
        .map(|s| format!("_twin_tikicpulib_soc({} {})\n", s.name, s.ub_bytes))
        .collect();
    let names: Vec<&str> = socs.iter().map(|s| s.name).collect();
    let config = template("package/cmake/tikicpulib-config.cmake.in")
        .replace("@TWIN_VERSION@", &version)
        .replace("@TWIN_SOC_TABLE@", table.trim_end())
        .replace("@TWIN_SOC_NAMES@", &names.join(", "))
        .replace("@TWIN_STUB_LIBS@", &ACL_STUB_LIBS.join(" "));
    out.push((
        format!("{CMAKE_DIR}/tikicpulib-config.cmake"),
        config.into_bytes(),
    ));
    let config_version = template("package/cmake/tikicpulib-config-version.cmake.in")
        .replace("@TOOL_VERSION@", tool_version);
    out.push((
        format!("{CMAKE_DIR}/tikicpulib-config-version.cmake"),
        config_version.into_bytes(),
    ));
    out.push((
        format!("{CMAKE_DIR}/tikicpulib-cache.cmake"),
        embedded_file("package/cmake/tikicpulib-cache.cmake").to_vec(),
    ));
    out.push((
        "compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake".into(),
        embedded_file("package/cmake/ascendc.cmake").to_vec(),
    ));

    // The ASC toolchain: the compiler script, its rewrite, its headers, and find_package(ASC).
    let asc_soc_cases: String = socs
        .iter()
        .map(|s| {
            format!(
                "    {}) ub_bytes={}; l1_bytes={}; aiv_cores={}; aic_cores={} ;;",
                s.name, s.ub_bytes, s.l1_bytes, s.aiv_cores, s.aic_cores
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    out.push((
        format!("{ASC_DIR}/bin/twin-asc"),
        template("package/asc/bin/twin-asc.in")
            .replace("@TWIN_VERSION@", &version)
            .replace("@TWIN_SOC_CASES@", &asc_soc_cases)
            .replace("@TWIN_SOC_NAMES@", &names.join(", "))
            .into_bytes(),
    ));
    out.push((
        format!("{ASC_DIR}/src/asc_rewrite.cpp"),
        embedded_file("package/src/asc_rewrite.cpp").to_vec(),
    ));
    for rel in [
        "twin_asc.h",
        "cpu_debug_launch.h",
        "acl/acl.h",
        "acl/acl_prof.h",
        "acl/acl_rt.h",
    ] {
        out.push((
            format!("{ASC_DIR}/include/{rel}"),
            embedded_file(&format!("package/include/{rel}")).to_vec(),
        ));
    }
    out.push((
        format!("{ASC_CMAKE_DIR}/ASCConfig.cmake"),
        template("package/asc/cmake/ASCConfig.cmake")
            .replace("@TWIN_VERSION@", &version)
            .into_bytes(),
    ));
    for rel in [
        "ASCConfigVersion.cmake",
        "modules/CMakeDetermineASCCompiler.cmake",
        "modules/CMakeASCCompiler.cmake.in",
        "modules/CMakeTestASCCompiler.cmake",
        "modules/CMakeASCInformation.cmake",
    ] {
        out.push((
            format!("{ASC_CMAKE_DIR}/{rel}"),
            template(&format!("package/asc/cmake/{rel}"))
                .replace("@TWIN_STUB_LIBS@", &ACL_STUB_LIBS.join(" "))
                .into_bytes(),
        ));
    }

    let env = template("package/env/setenv.bash.in")
        .replace("@TWIN_VERSION@", &version)
        .replace("@ROOT@", &root.display().to_string().replace('"', "\\\""));
    out.push((
        "bin/setenv.bash".into(),
        env.replace("@TO_ROOT@", "..").into_bytes(),
    ));
    out.push((
        "set_env.sh".into(),
        env.replace("@TO_ROOT@", ".").into_bytes(),
    ));
    out.push(("README.md".into(), readme(&names).into_bytes()));

    // The marker last: `stage` writes in this order, so a half-written folder is never a package.
    let socs_toml: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    let marker = format!(
        "# Written by `cargo ascend-tune twin-package`: this folder is the ascend-tune twin package, a\n\
         # stand-in for CANN's CPU debug library (RUN_MODE=cpu only). Measurements made with it are modelled.\n\
         twin-version = \"{version}\"\n\
         tool-version = \"{tool_version}\"\n\
         socs = [{}]\n",
        socs_toml.join(", ")
    );
    out.push((MARKER.into(), marker.into_bytes()));
    out
}

fn readme(socs: &[&str]) -> String {
    format!(
        "# ascend-tune twin package\n\n\
         Written by `cargo ascend-tune twin-package`. It stands in for the CPU debug library of a CANN\n\
         install (`tikicpulib`), so a kernel-launch project builds and runs on a machine without CANN:\n\n\
         \x20   cmake -B build -DRUN_MODE=cpu -DSOC_VERSION=Ascend910B1 -DASCEND_CANN_PACKAGE_PATH=<this folder>\n\
         \x20   cmake --build build\n\n\
         `ICPU_RUN_KF` runs every block on the CPU twin of the AscendC API, with every memory access checked,\n\
         and writes the launch's trace to `$ASCEND_TWIN_TRACE` (default `twin.trace`; later launches of the\n\
         same process add `.1`, `.2`, ...). `cargo ascend-tune` turns such a trace into modelled timing.\n\
         A fault prints the API call, source line and block, and exits with code 3.\n\n\
         Only RUN_MODE=cpu is supported: `ascendc.cmake` (sim, npu) stops with an error.\n\
         Targets: {}.\n",
        socs.iter()
            .map(|s| format!("`tikicpulib::{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file<'a>(files: &'a [(String, Vec<u8>)], rel: &str) -> &'a str {
        let (_, b) = files
            .iter()
            .find(|(p, _)| p == rel)
            .unwrap_or_else(|| panic!("{rel} not in the package"));
        std::str::from_utf8(b).unwrap()
    }

    #[test]
    fn the_config_defines_a_target_per_soc_and_builds_the_listed_runtime() {
        let files = files(Path::new("/opt/twin"));
        let config = file(&files, &format!("{CMAKE_DIR}/tikicpulib-config.cmake"));
        assert!(!config.contains('@'), "unrendered placeholder:\n{config}");
        for soc in crate::model::soc::all() {
            let line = format!("_twin_tikicpulib_soc({} {})", soc.name, soc.ub_bytes);
            assert!(config.contains(&line), "{line}");
        }
        // The config compiles exactly the runtime sources the package holds.
        for rel in RUNTIME_SOURCES {
            let name = Path::new(rel).file_name().unwrap().to_string_lossy();
            assert!(
                config.contains(&format!("/src/{name}\"")),
                "{name} not compiled"
            );
            file(&files, &format!("{TWIN_DIR}/src/{name}"));
        }
        assert_eq!(config.matches("/src/").count(), RUNTIME_SOURCES.len());
    }

    #[test]
    fn the_asc_toolchain_knows_every_soc_and_is_found_by_find_package() {
        let files = files(Path::new("/opt/twin"));
        let script = file(&files, &format!("{ASC_DIR}/bin/twin-asc"));
        assert!(
            !script.contains("@TWIN_"),
            "unrendered placeholder:\n{script}"
        );
        for soc in crate::model::soc::all() {
            let case = format!(
                "{}) ub_bytes={}; l1_bytes={}; aiv_cores={}; aic_cores={} ;;",
                soc.name, soc.ub_bytes, soc.l1_bytes, soc.aiv_cores, soc.aic_cores
            );
            assert!(script.contains(&case), "{case}");
        }
        // The script runs the rewrite and force-includes the header that the package holds.
        assert!(
            script.contains("$here/src/asc_rewrite.cpp") && script.contains("-include twin_asc.h")
        );
        file(&files, &format!("{ASC_DIR}/src/asc_rewrite.cpp"));
        file(&files, &format!("{ASC_DIR}/include/twin_asc.h"));
        file(&files, &format!("{ASC_DIR}/include/acl/acl.h"));
        file(&files, &format!("{ASC_DIR}/include/acl/acl_prof.h"));
        file(&files, &format!("{ASC_DIR}/include/acl/acl_rt.h"));
        // find_package(ASC) finds the config below the prefix that the env scripts put on PATH.
        let config = file(&files, &format!("{ASC_CMAKE_DIR}/ASCConfig.cmake"));
        assert!(config.contains("CMAKE_MODULE_PATH") && !config.contains('@'));
        let determine = file(
            &files,
            &format!("{ASC_CMAKE_DIR}/modules/CMakeDetermineASCCompiler.cmake"),
        );
        assert!(determine.contains("../../../../bin/twin-asc"));
        let env = file(&files, "set_env.sh");
        assert!(env.contains("tools/asc/bin${PATH:+") && env.contains("ASC_ROOT"));
        assert!(
            EXECUTABLES
                .iter()
                .all(|e| files.iter().any(|(rel, _)| rel == e))
        );
        // Both CMake packages stub the same host libraries, from one list.
        let stubs = format!("foreach(_twin_stub {})", ACL_STUB_LIBS.join(" "));
        let info = file(
            &files,
            &format!("{ASC_CMAKE_DIR}/modules/CMakeASCInformation.cmake"),
        );
        let tikicpulib = file(&files, &format!("{CMAKE_DIR}/tikicpulib-config.cmake"));
        assert!(
            info.contains(&stubs) && tikicpulib.contains(&stubs),
            "{stubs}"
        );
    }

    #[test]
    fn every_runtime_source_but_the_run_file_main_is_in_the_package() {
        let mut runtime: Vec<&str> = embedded::FILES
            .iter()
            .map(|(p, _)| *p)
            .filter(|p| p.starts_with("src/kernel_") && p.ends_with(".cpp"))
            .filter(|p| *p != "src/kernel_main.cpp")
            .collect();
        runtime.sort();
        let mut listed: Vec<&str> = RUNTIME_SOURCES
            .iter()
            .copied()
            .filter(|p| p.starts_with("src/"))
            .collect();
        listed.sort();
        assert_eq!(runtime, listed);
    }

    #[test]
    fn the_marker_is_last_and_names_the_twin_version() {
        let files = files(Path::new("/opt/twin"));
        let (last, text) = files.last().unwrap();
        assert_eq!(last, MARKER);
        let table: toml::Table = std::str::from_utf8(text).unwrap().parse().unwrap();
        assert_eq!(
            table["twin-version"].as_str(),
            Some(crate::twin::version().as_str())
        );
        assert_eq!(
            table["socs"].as_array().unwrap().len(),
            crate::model::soc::all().len()
        );
    }

    #[test]
    fn env_scripts_find_the_package_from_their_own_place() {
        let files = files(Path::new("/opt/twin"));
        let bin = file(&files, "bin/setenv.bash");
        assert!(bin.contains("dirname \"${BASH_SOURCE[0]}\")/..\""), "{bin}");
        assert!(bin.contains("_twin_pkg=\"/opt/twin\""), "{bin}");
        assert!(bin.contains("export ASCEND_HOME_PATH="), "{bin}");
        let top = file(&files, "set_env.sh");
        assert!(top.contains("dirname \"${BASH_SOURCE[0]}\")/.\""), "{top}");
    }

    #[test]
    fn writes_then_leaves_an_up_to_date_package_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/pkg");
        let first = write(&dir).unwrap();
        assert!(first.written);
        assert_eq!(installed_version(&dir), Some(crate::twin::version()));
        let config = dir.join(CMAKE_DIR).join("tikicpulib-config.cmake");
        let modified = std::fs::metadata(&config).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let second = write(&dir).unwrap();
        assert!(!second.written);
        assert_eq!(second.files, first.files);
        assert_eq!(
            std::fs::metadata(&config).unwrap().modified().unwrap(),
            modified
        );
        // Nothing left beside it.
        let names: Vec<_> = std::fs::read_dir(tmp.path().join("a"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["pkg"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(EXECUTABLES[0]))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o111, 0o111, "twin-asc is not executable");
        }
    }

    #[test]
    fn fills_an_empty_folder_and_replaces_an_older_package() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("pkg");
        std::fs::create_dir(&dir).unwrap();
        assert!(write(&dir).unwrap().written);
        std::fs::write(dir.join(MARKER), "twin-version = \"older\"\n").unwrap();
        std::fs::write(dir.join("leftover.txt"), "from the old package").unwrap();
        assert!(write(&dir).unwrap().written);
        assert_eq!(installed_version(&dir), Some(crate::twin::version()));
        assert!(!dir.join("leftover.txt").exists());
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn refuses_a_folder_that_is_not_a_package() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
        let e = write(tmp.path()).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("is not empty and is not a twin package"),
            "{msg}"
        );
        assert_eq!(e.exit_code(), crate::exit_codes::BAD_INPUT);
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("notes.txt")).unwrap(),
            "mine"
        );
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
        let file = tmp.path().join("notes.txt");
        let e = write(&file).unwrap_err();
        assert!(e.to_string().contains("is not a folder"), "{e}");
    }
}
