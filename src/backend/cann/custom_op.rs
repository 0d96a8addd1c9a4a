//! The custom-op flow on a real CANN (FACTS.md §5, "Custom-op project"): each candidate is built in a
//! patched copy of the project with its own `build.sh` (else `cmake --preset=default` and the `package`
//! target; CANN 9 `find_package(ASC)` projects: `cmake` and the `binary` and `package` targets), with the
//! preset's `ASCEND_CANN_PACKAGE_PATH` pointed at the CANN in use. The `custom_opp_*.run` package the build
//! makes is installed with `--install-path` into the candidate's own folder, never into the user's CANN.
//! Running needs the op's aclnn caller (`[[op]] app`): it runs in the trial's folder with the installed
//! vendor's environment, under msprof. Knows nothing of where CANN was found, searching or lockfiles.

use super::locate;
use super::profile::{self, Profiler};
use crate::backend::cmake_flow::{
    self, CandidateDir, Generation, RunDir, Toolchain, build_args, build_step, candidate_files,
};
use crate::backend::{Artifact, FailureKind, Inputs, Measurement, SourceSet, TrialFailure};
use crate::fsx::KeyHasher;
use crate::manifest::OpSpec;
use crate::model::soc::Soc;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

const BUILD_LIMIT: Duration = Duration::from_secs(1800);
const INSTALL_LIMIT: Duration = Duration::from_secs(300);
const PRESETS: &str = "CMakePresets.json";

/// How a custom-op project is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildScript {
    /// The msopgen `build.sh`.
    BuildSh,
    /// `cmake --preset=default`, then the `package` target in the preset's `build_out`.
    Preset,
    /// CANN 9: `cmake -S . -B build`, then the `binary` and `package` targets.
    Asc,
}

/// Which way the project in `files` is built, or why it cannot be.
pub fn build_script(files: &BTreeMap<String, Vec<u8>>) -> std::result::Result<BuildScript, String> {
    if files.contains_key("build.sh") {
        return Ok(BuildScript::BuildSh);
    }
    if files.contains_key(PRESETS) {
        return Ok(BuildScript::Preset);
    }
    let lists = files
        .get("CMakeLists.txt")
        .map(|b| String::from_utf8_lossy(b).into_owned());
    match lists {
        Some(text) if cmake_flow::generation(&text) == Generation::Asc => Ok(BuildScript::Asc),
        _ => Err(
            "the custom-op project has no build.sh, no CMakePresets.json and no CMakeLists.txt calling find_package(ASC), so the tool does not know how to build it (msopgen writes build.sh and CMakePresets.json)"
                .into(),
        ),
    }
}

/// The build steps of a project: (what, argv), run in the candidate's source folder in order.
pub fn build_steps(script: &BuildScript) -> Vec<(&'static str, Vec<OsString>)> {
    let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
    match script {
        BuildScript::BuildSh => vec![("build.sh", os(&["bash", "build.sh"]))],
        BuildScript::Preset => {
            let mut build = vec![OsString::from("cmake")];
            build.extend(build_args(Path::new("build_out"), Some("package")));
            vec![
                ("cmake --preset=default", os(&["cmake", "--preset=default"])),
                ("building the package target", build),
            ]
        }
        BuildScript::Asc => {
            let mut binary = vec![OsString::from("cmake")];
            binary.extend(build_args(Path::new("build"), Some("binary")));
            let mut package = vec![OsString::from("cmake")];
            package.extend(build_args(Path::new("build"), Some("package")));
            vec![
                (
                    "configuring with cmake",
                    os(&["cmake", "-S", ".", "-B", "build"]),
                ),
                ("building the binary target", binary),
                ("building the package target", package),
            ]
        }
    }
}

/// `CMakePresets.json` with every configure preset's `ASCEND_CANN_PACKAGE_PATH` set to `cann` (added to
/// the `default` preset when none has it), so the copy builds against the CANN in use.
pub fn patch_presets(text: &str, cann: &Path) -> std::result::Result<String, String> {
    let mut doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("{PRESETS} is not valid JSON: {e}"))?;
    let value = serde_json::Value::String(cann.to_string_lossy().into_owned());
    let presets = doc
        .get_mut("configurePresets")
        .and_then(|p| p.as_array_mut())
        .ok_or_else(|| format!("{PRESETS} has no configurePresets list"))?;
    let mut set = false;
    for preset in presets.iter_mut() {
        if let Some(var) = preset
            .get_mut("cacheVariables")
            .and_then(|c| c.get_mut("ASCEND_CANN_PACKAGE_PATH"))
        {
            match var {
                serde_json::Value::Object(o) => {
                    o.insert("value".into(), value.clone());
                }
                other => *other = value.clone(),
            }
            set = true;
        }
    }
    if !set {
        let default = presets
            .iter_mut()
            .find(|p| p.get("name").and_then(|n| n.as_str()) == Some("default"))
            .ok_or_else(|| format!("{PRESETS} has no configure preset named `default`"))?;
        let obj = default
            .as_object_mut()
            .ok_or_else(|| format!("the `default` preset of {PRESETS} is not an object"))?;
        let vars = obj
            .entry("cacheVariables")
            .or_insert_with(|| serde_json::json!({}));
        vars.as_object_mut()
            .ok_or_else(|| format!("cacheVariables of {PRESETS} is not an object"))?
            .insert(
                "ASCEND_CANN_PACKAGE_PATH".into(),
                serde_json::json!({"type": "PATH", "value": value}),
            );
    }
    serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())
}

/// The caller app's argv: a relative program path with a `/` is resolved in the candidate's sources;
/// a bare name is looked up on the PATH as usual.
pub fn app_argv(app: &[String], src: &Path) -> Vec<OsString> {
    let mut argv: Vec<OsString> = app.iter().map(OsString::from).collect();
    if let Some(first) = app.first() {
        let p = Path::new(first);
        if p.is_relative() && first.contains('/') {
            argv[0] = src.join(p).into_os_string();
        }
    }
    argv
}

pub struct CustomOpFlow {
    project: PathBuf,
    work: PathBuf,
    tool: Arc<Toolchain>,
    soc: &'static Soc,
    profiler: Profiler,
}

impl CustomOpFlow {
    pub fn new(
        project: &Path,
        work: &Path,
        tool: Arc<Toolchain>,
        soc: &'static Soc,
        profiler: Profiler,
    ) -> CustomOpFlow {
        CustomOpFlow {
            project: project.to_path_buf(),
            work: work.to_path_buf(),
            tool,
            soc,
            profiler,
        }
    }

    pub fn build(
        &self,
        _op: &OpSpec,
        sources: &SourceSet,
    ) -> std::result::Result<Artifact, TrialFailure> {
        let io = |e: std::io::Error| {
            TrialFailure::new(FailureKind::Build, format!("candidate folder: {e}"))
        };
        let build_fail = |m: String| TrialFailure::new(FailureKind::Build, m);
        let mut files = candidate_files(&self.project, sources).map_err(io)?;
        if let Some(bytes) = files.get(PRESETS) {
            let patched = patch_presets(&String::from_utf8_lossy(bytes), &self.tool.install.root)
                .map_err(build_fail)?;
            files.insert(PRESETS.into(), patched.into_bytes());
        }
        let script = build_script(&files).map_err(build_fail)?;
        let mut h = KeyHasher::new();
        h.part("custom-op 1")
            .part(&self.tool.fingerprint)
            .part(self.soc.name);
        for (rel, bytes) in &files {
            h.part(rel).part(bytes);
        }
        let key = h.finish();
        let cand = CandidateDir::open(&self.work, &key).map_err(io)?;
        if let Some(artifact) = cand.cached_artifact(&key) {
            return Ok(artifact);
        }
        let src = cand.reset(&files).map_err(io)?;
        for (i, (what, argv)) in build_steps(&script).into_iter().enumerate() {
            let mut cmd = self.tool.command(&argv[0]);
            cmd.args(&argv[1..])
                .current_dir(&src)
                .env("ASCEND_CANN_PACKAGE_PATH", &self.tool.install.root);
            build_step(
                cmd,
                what,
                BUILD_LIMIT,
                &cand.dir.join(format!("step{i}")),
                &src,
            )?;
        }
        let package = find_package(&src).ok_or_else(|| {
            build_fail(format!(
                "the build made no custom_opp_*.run package (looked under build_out/ and build/; see {})",
                cand.dir.display()
            ))
        })?;
        // Installed into the candidate's folder: the user's CANN is never written to.
        let opp = cand.dir.join("opp");
        let mut install_path = OsString::from("--install-path=");
        install_path.push(&opp);
        let mut cmd = self.tool.command("bash");
        cmd.arg(&package).arg(install_path).current_dir(&cand.dir);
        build_step(
            cmd,
            "installing the custom_opp package",
            INSTALL_LIMIT,
            &cand.dir.join("install"),
            &src,
        )?;
        let vendor_env = vendor_setup(&opp).ok_or_else(|| {
            build_fail(format!(
                "installing {} made no vendors/<vendor>/bin/set_env.bash under {}",
                package.display(),
                opp.display()
            ))
        })?;
        cand.finish(&key, vendor_env).map_err(io)
    }

    pub fn run(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
    ) -> std::result::Result<Measurement, TrialFailure> {
        let app = op.app.as_ref().ok_or_else(|| {
            TrialFailure::new(
                FailureKind::Crash,
                format!("op `{}` has no app to run it", op.name),
            )
        })?;
        let run = RunDir::new(&self.work)?;
        run.write_inputs(op, inputs)?;
        let mut env = locate::capture_env(&artifact.host, &run.dir)
            .map_err(|m| TrialFailure::new(FailureKind::Crash, m))?;
        let src = artifact.kernel.join("src");
        env.push((
            "ASCEND_TUNE_CANDIDATE_DIR".into(),
            src.clone().into_os_string(),
        ));
        let argv = app_argv(app, &src);
        // A custom op's kernels are named after its OpDef type (`AddCustom_<hash>_...`), not after the
        // kernel function, so msprof is told to look for the type.
        let measured = self
            .profiler
            .measure(&op.op_type, &argv, &run.dir, &self.tool, &env)?;
        let outputs = run.read_outputs(op)?;
        Ok(profile::measurement(measured, op, outputs, self.soc))
    }
}

/// The `custom_opp_*.run` the build made, under `build_out/` or `build/`.
fn find_package(src: &Path) -> Option<PathBuf> {
    ["build_out", "build"].iter().find_map(|d| {
        walkdir::WalkDir::new(src.join(d))
            .max_depth(3)
            .sort_by_file_name()
            .into_iter()
            .filter_map(|e| e.ok())
            .find(|e| {
                let name = e.file_name().to_string_lossy();
                e.file_type().is_file() && name.starts_with("custom_opp_") && name.ends_with(".run")
            })
            .map(|e| e.into_path())
    })
}

/// `vendors/<vendor>/bin/set_env.bash` of an installed package.
fn vendor_setup(opp: &Path) -> Option<PathBuf> {
    let mut vendors: Vec<PathBuf> = std::fs::read_dir(opp.join("vendors"))
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin/set_env.bash"))
        .filter(|p| p.is_file())
        .collect();
    vendors.sort();
    vendors.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
        names
            .iter()
            .map(|(n, t)| (n.to_string(), t.as_bytes().to_vec()))
            .collect()
    }

    fn strings(argv: &[OsString]) -> Vec<String> {
        argv.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn build_sh_comes_first_then_the_preset_then_cann9() {
        let both = files(&[("build.sh", ""), (PRESETS, "{}")]);
        assert_eq!(build_script(&both), Ok(BuildScript::BuildSh));
        assert_eq!(
            build_script(&files(&[(PRESETS, "{}")])),
            Ok(BuildScript::Preset)
        );
        assert_eq!(
            build_script(&files(&[("CMakeLists.txt", "find_package(ASC REQUIRED)")])),
            Ok(BuildScript::Asc)
        );
        let e = build_script(&files(&[("CMakeLists.txt", "project(x)")])).unwrap_err();
        assert!(
            e.contains("build.sh") && e.contains("CMakePresets.json"),
            "{e}"
        );
    }

    #[test]
    fn build_steps_follow_each_script() {
        let steps = build_steps(&BuildScript::BuildSh);
        assert_eq!(strings(&steps[0].1), ["bash", "build.sh"]);
        let steps = build_steps(&BuildScript::Preset);
        assert_eq!(strings(&steps[0].1), ["cmake", "--preset=default"]);
        assert_eq!(
            strings(&steps[1].1)[..5],
            ["cmake", "--build", "build_out", "--target", "package"]
        );
        let steps = build_steps(&BuildScript::Asc);
        assert_eq!(strings(&steps[0].1), ["cmake", "-S", ".", "-B", "build"]);
        assert_eq!(strings(&steps[1].1)[4], "binary");
        assert_eq!(strings(&steps[2].1)[4], "package");
    }

    #[test]
    fn presets_point_at_the_cann_in_use() {
        let text = r#"{"version": 1, "configurePresets": [{"name": "default",
            "cacheVariables": {"ASCEND_CANN_PACKAGE_PATH": {"type": "PATH", "value": "/usr/local/Ascend/ascend-toolkit/latest"},
                               "vendor_name": {"type": "STRING", "value": "customize"}}}]}"#;
        let out = patch_presets(text, Path::new("/opt/cann")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let vars = &v["configurePresets"][0]["cacheVariables"];
        assert_eq!(vars["ASCEND_CANN_PACKAGE_PATH"]["value"], "/opt/cann");
        assert_eq!(vars["ASCEND_CANN_PACKAGE_PATH"]["type"], "PATH");
        assert_eq!(vars["vendor_name"]["value"], "customize");
        // Added to `default` when no preset sets it.
        let out = patch_presets(
            r#"{"configurePresets": [{"name": "default"}]}"#,
            Path::new("/c"),
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["configurePresets"][0]["cacheVariables"]["ASCEND_CANN_PACKAGE_PATH"]["value"],
            "/c"
        );
        assert!(
            patch_presets("{", Path::new("/c"))
                .unwrap_err()
                .contains("not valid JSON")
        );
        assert!(
            patch_presets(r#"{"configurePresets": [{"name": "x"}]}"#, Path::new("/c"))
                .unwrap_err()
                .contains("no configure preset named `default`")
        );
    }

    #[test]
    fn app_paths_resolve_in_the_candidate() {
        let argv = app_argv(
            &["./build/caller".into(), "--n".into(), "3".into()],
            Path::new("/c/src"),
        );
        assert_eq!(strings(&argv), ["/c/src/./build/caller", "--n", "3"]);
        assert_eq!(
            strings(&app_argv(
                &["python3".into(), "run.py".into()],
                Path::new("/c/src")
            )),
            ["python3", "run.py"]
        );
    }

    #[test]
    fn the_package_and_vendor_script_are_found_where_the_build_puts_them() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("build_out/custom_opp_ubuntu_x86_64.run");
        std::fs::create_dir_all(run.parent().unwrap()).unwrap();
        std::fs::write(&run, "").unwrap();
        assert_eq!(find_package(tmp.path()), Some(run));
        let script = tmp.path().join("opp/vendors/customize/bin/set_env.bash");
        std::fs::create_dir_all(script.parent().unwrap()).unwrap();
        std::fs::write(&script, "").unwrap();
        assert_eq!(vendor_setup(&tmp.path().join("opp")), Some(script));
        assert_eq!(vendor_setup(tmp.path()), None);
    }
}
