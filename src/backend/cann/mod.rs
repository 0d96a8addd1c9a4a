//! The `cann` backend: the user's real CANN toolkit (or the twin package standing in for it) driving the
//! project's own build flow. Opening it finds CANN (`locate`), sources its environment, settles the run
//! mode (cpu on the twin package, npu on a real CANN, unless the manifest says `run-mode`) and picks the
//! flow by layout: kernel-launch projects through `cmake_flow`, custom-op projects through `custom_op`.
//! Measurements in sim and npu mode come from msprof (`profile`) and are labelled measured; cpu-mode runs
//! on the twin package are timed by the model and labelled modelled. Also opens the twin backend's own
//! kernel-launch flow, which is the same CMake flow against a twin package it writes itself.
//! Knows nothing of searching, journals or lockfiles.

pub mod custom_op;
pub mod locate;
pub mod profile;

use super::cmake_flow::{CmakeFlow, Toolchain};
use super::{Artifact, Backend, Inputs, Measurement, SourceSet, TrialFailure};
use crate::errors::{Error, Result};
use crate::fsx::KeyHasher;
use crate::manifest::{BackendKind, Layout, Manifest, OpSpec, RunMode};
use crate::model::soc::Soc;
use custom_op::CustomOpFlow;
use locate::{Install, Located};
use profile::{DevicePool, Profiler};
use std::path::Path;
use std::sync::Arc;

enum Flow {
    KernelLaunch(CmakeFlow),
    CustomOp(CustomOpFlow),
}

pub struct CannBackend {
    kind: BackendKind,
    soc: &'static Soc,
    mode: RunMode,
    tool: Arc<Toolchain>,
    flow: Flow,
}

/// Opens the `cann` backend: CANN is looked for in the documented order; when it is nowhere, the error
/// (exit 2) lists every place looked at and how to fix it.
pub fn open(manifest: &Manifest, soc: &'static Soc, work: &Path) -> Result<CannBackend> {
    let env = |k: &str| std::env::var_os(k);
    let install = match locate::locate(manifest.cann_path.as_ref().map(|c| c.0.as_path()), &env) {
        Located::Found(i) => i,
        Located::NotFound(nf) => {
            return Err(Error::bad_input(
                nf.message(),
                Some(locate::NotFound::help()),
            ));
        }
        Located::BadCannPath(b) => {
            let span = manifest
                .cann_path
                .as_ref()
                .map(|c| c.1.clone())
                .unwrap_or(0..0);
            return Err(manifest
                .source
                .error(
                    span,
                    format!(
                        "`cann-path` points at {}, which cannot be used: {}",
                        b.path.display(),
                        b.why
                    ),
                    Some(
                        "point it at the CANN toolkit (the folder holding bin/setenv.bash, e.g. /usr/local/Ascend/ascend-toolkit/latest) or at a twin package, or remove it to search the environment"
                            .to_string(),
                    ),
                )
                .into());
        }
    };
    CannBackend::with_install(manifest, soc, work, install, BackendKind::Cann)
}

/// The twin backend on a kernel-launch project: the project's CMake flow in cpu mode against a twin
/// package written (once per twin version) to `target/ascend-tune/twin-package/`.
pub fn open_twin_package(
    manifest: &Manifest,
    soc: &'static Soc,
    work: &Path,
) -> Result<CannBackend> {
    let dir = work.join("twin-package");
    let info = crate::twin::package::write(&dir)?;
    let install = Install {
        root: dir.clone(),
        found_by: "the twin backend's own package".into(),
        twin_version: Some(info.twin_version.clone()),
        setup_script: locate::setup_script(&dir),
    };
    CannBackend::with_install(manifest, soc, work, install, BackendKind::Twin)
}

impl CannBackend {
    fn with_install(
        manifest: &Manifest,
        soc: &'static Soc,
        work: &Path,
        install: Install,
        kind: BackendKind,
    ) -> Result<CannBackend> {
        let twin = install.is_twin();
        let mode = manifest
            .run_mode
            .unwrap_or(if twin { RunMode::Cpu } else { RunMode::Npu });
        check_mode(manifest.layout, mode, &install)?;
        let env = match &install.setup_script {
            Some(script) => locate::capture_env(script, work).map_err(|m| {
                Error::bad_input(
                    format!("could not set up the CANN environment: {m}"),
                    Some(format!(
                        "fix {} or point the tool at another CANN (found by {})",
                        script.display(),
                        install.found_by
                    )),
                )
            })?,
            None => vec![],
        };
        let mut env = env;
        if twin {
            // The twin package's ASC compiler (`.asc` sources) builds for this SoC's UB and core counts.
            env.push(("ASCEND_TWIN_SOC".into(), soc.name.into()));
        }
        let tool = Arc::new(Toolchain {
            fingerprint: fingerprint(&install),
            install,
            env,
        });
        require_cmake(&tool)?;
        let profiler = || -> Result<Profiler> {
            let visible = tool.var("ASCEND_RT_VISIBLE_DEVICES");
            let devices = DevicePool::new(
                &manifest.devices,
                visible.as_ref().and_then(|v| v.to_str()),
            )
            .map_err(|m| {
                Error::bad_input(
                    m,
                    Some("set it to the ids of the NPUs to use, or list them with devices = [..] under [project]".into()),
                )
            })?;
            Profiler::new(&tool, mode, soc, devices)
        };
        let flow = match manifest.layout {
            Layout::KernelLaunch => {
                let p = (mode != RunMode::Cpu).then(profiler).transpose()?;
                Flow::KernelLaunch(CmakeFlow::new(
                    &manifest.root,
                    manifest.cmake_source.as_deref(),
                    &manifest
                        .cmake_include
                        .iter()
                        .map(|c| manifest.root.join(c))
                        .collect::<Vec<_>>(),
                    &manifest
                        .include
                        .iter()
                        .map(|i| manifest.root.join(i))
                        .collect::<Vec<_>>(),
                    work,
                    tool.clone(),
                    soc,
                    mode,
                    p,
                )?)
            }
            Layout::CustomOp => {
                if let Some(op) = manifest.ops.iter().find(|o| o.app.is_none()) {
                    return Err(manifest
                        .source
                        .error(
                            op.span.clone(),
                            format!(
                                "op `{}` has no `app`: on CANN a custom-op project's op runs through an aclnn caller program, and the tool needs one to run and measure it",
                                op.name
                            ),
                            Some(format!(
                                "add app = [\"./path/to/caller\", ...] to the [[op]]: a program that calls aclnn{}GetWorkspaceSize and aclnn{}, reads its inputs from {} and writes its outputs to {} (paths relative to the folder it runs in); or use --backend twin",
                                op.op_type,
                                op.op_type,
                                op.input_files.join(", "),
                                op.output_files.join(", ")
                            )),
                        )
                        .into());
                }
                Flow::CustomOp(CustomOpFlow::new(
                    &manifest.root,
                    work,
                    tool.clone(),
                    soc,
                    profiler()?,
                ))
            }
        };
        Ok(CannBackend {
            kind,
            soc,
            mode,
            tool,
            flow,
        })
    }

    pub fn run_mode(&self) -> RunMode {
        self.mode
    }

    pub fn install(&self) -> &Install {
        &self.tool.install
    }
}

/// Refuses, before anything is built, the combinations that cannot work.
fn check_mode(layout: Layout, mode: RunMode, install: &Install) -> Result<()> {
    let twin = install.is_twin();
    if twin && layout == Layout::CustomOp {
        return Err(Error::bad_input(
            format!(
                "{} is the twin package, which stands in for CANN's CPU debug library of kernel-launch projects; a custom-op project's build.sh needs a real CANN",
                install.root.display()
            ),
            Some("use --backend twin for custom-op projects without CANN, or point the tool at a real CANN".into()),
        ));
    }
    if twin && mode != RunMode::Cpu {
        return Err(Error::bad_input(
            format!(
                "run-mode = \"{}\" needs a real CANN, but {} is the twin package, which supports cpu only",
                mode.as_str(),
                install.root.display()
            ),
            Some("use run-mode = \"cpu\" with the twin package, or point ASCEND_CANN_PACKAGE_PATH or cann-path at a real CANN".into()),
        ));
    }
    if !twin && mode == RunMode::Cpu {
        return Err(Error::not_built(
            "timing RUN_MODE=cpu builds on a real CANN",
            "CANN's CPU debug library runs the kernel but records no timing the model can read; use run-mode = \"sim\" or \"npu\", or the twin package (cargo ascend-tune twin-package DIR) for modelled cpu-mode runs",
        ));
    }
    Ok(())
}

/// The install's path and version files (or the twin version): part of every cache key.
fn fingerprint(install: &Install) -> String {
    if let Some(v) = &install.twin_version {
        return format!("cann-twin-package-{v}");
    }
    let mut h = KeyHasher::new();
    h.part(install.root.to_string_lossy().as_bytes());
    for f in [
        "version.cfg",
        "version.info",
        "compiler/version.info",
        "runtime/version.info",
    ] {
        if let Ok(bytes) = std::fs::read(install.root.join(f)) {
            h.part(f).part(bytes);
        }
    }
    format!("cann-{}", h.finish())
}

/// Both flows build with cmake: say so at once when it is missing.
fn require_cmake(tool: &Toolchain) -> Result<()> {
    let ok = tool
        .command("cmake")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Ok(())
    } else {
        Err(Error::bad_input(
            "cmake is not installed (or not on the PATH), and the CANN flow builds the project with it",
            Some("install cmake 3.16 or newer (e.g. `apt-get install cmake`) and run again".into()),
        ))
    }
}

impl Backend for CannBackend {
    fn kind(&self) -> BackendKind {
        self.kind
    }

    fn soc(&self) -> &'static Soc {
        self.soc
    }

    fn fingerprint(&self) -> String {
        format!("{}-{}", self.tool.fingerprint, self.mode.as_str())
    }

    fn build(
        &self,
        op: &OpSpec,
        sources: &SourceSet,
    ) -> std::result::Result<Artifact, TrialFailure> {
        if let Some(a) = op.absent.first() {
            return Err(TrialFailure::new(
                crate::backend::FailureKind::Build,
                format!(
                    "input `{}` of op `{}` is `absent`: the cann backend cannot leave an input out yet (its aclnn caller passes every input); give it a shape in ascend.toml, or use the twin backend",
                    a.name, op.name
                ),
            ));
        }
        match &self.flow {
            Flow::KernelLaunch(f) => f.build(op, sources),
            Flow::CustomOp(f) => f.build(op, sources),
        }
    }

    fn run(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
        keep_trace: bool,
    ) -> std::result::Result<Measurement, TrialFailure> {
        match &self.flow {
            Flow::KernelLaunch(f) => f.run(op, artifact, inputs, keep_trace),
            Flow::CustomOp(f) => f.run(op, artifact, inputs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn install(twin: bool) -> Install {
        Install {
            root: PathBuf::from("/c"),
            found_by: "ASCEND_HOME_PATH".into(),
            twin_version: twin.then(|| "v".to_string()),
            setup_script: None,
        }
    }

    #[test]
    fn the_twin_package_runs_kernel_launch_projects_in_cpu_mode_only() {
        assert!(check_mode(Layout::KernelLaunch, RunMode::Cpu, &install(true)).is_ok());
        for mode in [RunMode::Sim, RunMode::Npu] {
            let e = check_mode(Layout::KernelLaunch, mode, &install(true)).unwrap_err();
            assert_eq!(e.exit_code(), crate::exit_codes::BAD_INPUT);
            assert!(e.to_string().contains("needs a real CANN"), "{e}");
        }
        let e = check_mode(Layout::CustomOp, RunMode::Cpu, &install(true)).unwrap_err();
        assert!(e.to_string().contains("build.sh needs a real CANN"), "{e}");
    }

    #[test]
    fn a_real_cann_measures_in_sim_or_npu_mode() {
        for layout in [Layout::KernelLaunch, Layout::CustomOp] {
            assert!(check_mode(layout, RunMode::Npu, &install(false)).is_ok());
            assert!(check_mode(layout, RunMode::Sim, &install(false)).is_ok());
            let e = check_mode(layout, RunMode::Cpu, &install(false)).unwrap_err();
            assert!(e.to_string().contains("is not built yet"), "{e}");
        }
    }

    #[test]
    fn fingerprints_tell_installs_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let mut a = install(false);
        a.root = tmp.path().to_path_buf();
        let before = fingerprint(&a);
        std::fs::write(tmp.path().join("version.cfg"), "8.0.RC1").unwrap();
        assert_ne!(fingerprint(&a), before);
        assert_eq!(fingerprint(&install(true)), "cann-twin-package-v");
    }
}
