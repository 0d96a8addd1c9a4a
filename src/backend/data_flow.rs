//! The data flow of a kernel-launch program that makes and checks its own data, as the asc-devkit
//! examples do (their README: `python3 ../scripts/gen_data.py`, `./demo`, `python3
//! ../scripts/verify_result.py output/output.bin output/golden.bin`, all in the build folder): the op's
//! `prepare` command runs in the trial's run folder before the program, its `verify` command there after
//! it. Owns running those two commands and turning how they ended into a trial outcome; knows nothing of
//! CMake, the twin or the manifest's syntax.

use super::{FailureKind, TrialFailure};
use crate::child::{self, Finished};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long `prepare` or `verify` may take unless `ASCEND_TUNE_RUN_TIMEOUT` says otherwise.
const STEP_LIMIT: Duration = Duration::from_secs(120);

/// Which of the two steps, for messages and the outcome of a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Writes the program's inputs (and the expected results) before it runs: a failure is a crash.
    Prepare,
    /// Checks what the program wrote: a failure is a wrong result.
    Verify,
}

impl Step {
    fn key(self) -> &'static str {
        match self {
            Step::Prepare => "prepare",
            Step::Verify => "verify",
        }
    }
}

/// The program of `command`: a relative path with a `/` is the project's (`scripts/gen_data.py` is not,
/// `./scripts/check` is; for the usual `python3 scripts/x.py` the script argument is resolved too),
/// whatever folder the command runs in; a bare name is looked up on PATH.
fn resolve(arg: &str, root: &Path) -> String {
    if arg.contains('/') && Path::new(arg).is_relative() && root.join(arg).is_file() {
        root.join(arg).to_string_lossy().into_owned()
    } else {
        arg.to_string()
    }
}

/// The command as the process sees it: every argument naming a file of the project (relative, with a
/// `/`, and there) becomes its path under `root`; the rest (the output files the script reads in the run
/// folder) stay as written.
pub fn argv(command: &[String], root: &Path) -> Vec<String> {
    command.iter().map(|a| resolve(a, root)).collect()
}

/// Runs `command` (a program and its arguments, no shell) in `run_dir` for `step`.
pub fn run_step(
    step: Step,
    command: &[String],
    root: &Path,
    run_dir: &Path,
) -> Result<(), TrialFailure> {
    let argv = argv(command, root);
    let Some((program, args)) = argv.split_first() else {
        return Err(TrialFailure::new(
            FailureKind::Crash,
            format!("the {} command is empty", step.key()),
        ));
    };
    let mut cmd = Command::new(PathBuf::from(program));
    cmd.args(args).current_dir(run_dir);
    let limit = super::cmake_flow::run_limit(STEP_LIMIT);
    let log = run_dir.join(step.key());
    let shown = command.join(" ");
    let finished = child::run(cmd, limit, &log).map_err(|e| {
        TrialFailure::new(
            FailureKind::Crash,
            format!("the {} command `{shown}` could not start: {e}", step.key()),
        )
    })?;
    let kind = match step {
        Step::Prepare => FailureKind::Crash,
        Step::Verify => FailureKind::Wrong,
    };
    match finished {
        Finished::Exited { status, .. } if status.success() => Ok(()),
        Finished::Exited { status, stderr } => {
            let stdout = std::fs::read_to_string(log.with_extension("out")).unwrap_or_default();
            let text = format!("{}\n{}", stdout.trim(), stderr.trim());
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            let tail = lines[lines.len().saturating_sub(12)..].join("\n");
            // A script that imports what is not installed (asc-devkit add_broadcast's gen_data.py
            // imports tensorflow): said first, since the traceback's top line does not say it.
            let missing = missing_python_module(&text)
                .map(|m| format!(": the script needs the Python module `{m}`, which is not installed here (install it, e.g. `pip install {m}`, then run again)"))
                .unwrap_or_default();
            Err(TrialFailure::new(
                kind,
                format!(
                    "the {} command `{shown}` failed ({}){missing}{}",
                    step.key(),
                    child::describe(status, &stderr),
                    if tail.is_empty() {
                        String::new()
                    } else {
                        format!(":\n{tail}")
                    }
                ),
            ))
        }
        Finished::TimedOut => Err(TrialFailure::new(
            kind,
            format!(
                "the {} command `{shown}` ran longer than {}s",
                step.key(),
                limit.as_secs_f64()
            ),
        )),
    }
}

/// The module a Python traceback says could not be imported (`ModuleNotFoundError: No module named
/// 'x'`), its top-level package name.
fn missing_python_module(text: &str) -> Option<String> {
    let at = text.rfind("No module named ")?;
    let rest = text[at + "No module named ".len()..].lines().next()?.trim();
    let name = rest.trim_matches(|c| c == '\'' || c == '"');
    let top = name.split('.').next()?;
    (!top.is_empty() && top.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| top.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found in the new-user run (asc-devkit add_broadcast: its gen_data.py imports tensorflow):
    /// the error's first line said only "Traceback (most recent call last):".
    #[test]
    fn a_missing_python_module_is_named() {
        let tb = "Traceback (most recent call last):\n  File \"scripts/gen_data.py\", line 17, in <module>\n    import tensorflow as tf\nModuleNotFoundError: No module named 'tensorflow'";
        assert_eq!(missing_python_module(tb).as_deref(), Some("tensorflow"));
        assert_eq!(
            missing_python_module("ModuleNotFoundError: No module named 'google.protobuf'")
                .as_deref(),
            Some("google")
        );
        assert_eq!(missing_python_module("ValueError: bad shape"), None);
    }

    #[test]
    fn project_scripts_are_resolved_and_run_folder_files_are_not() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("scripts")).unwrap();
        std::fs::write(root.path().join("scripts/verify_result.py"), "").unwrap();
        let cmd: Vec<String> = ["python3", "scripts/verify_result.py", "output/output.bin"]
            .map(String::from)
            .to_vec();
        let a = argv(&cmd, root.path());
        assert_eq!(a[0], "python3");
        assert_eq!(
            a[1],
            root.path()
                .join("scripts/verify_result.py")
                .to_string_lossy()
        );
        assert_eq!(a[2], "output/output.bin");
    }

    #[cfg(unix)]
    #[test]
    fn a_failing_verify_is_a_wrong_trial_quoting_what_it_said_and_prepare_writes_in_the_run_folder()
    {
        let root = tempfile::tempdir().unwrap();
        let run = tempfile::tempdir().unwrap();
        let sh = |s: &str| -> Vec<String> { vec!["sh".into(), "-c".into(), s.into()] };
        run_step(
            Step::Prepare,
            &sh("mkdir -p input && echo hi > input/x.bin"),
            root.path(),
            run.path(),
        )
        .unwrap();
        assert!(run.path().join("input/x.bin").is_file());
        let e = run_step(
            Step::Verify,
            &sh("echo 'error ratio: 0.5'; exit 1"),
            root.path(),
            run.path(),
        )
        .unwrap_err();
        assert_eq!(e.kind, FailureKind::Wrong);
        assert!(
            e.message.contains("error ratio: 0.5") && e.message.contains("verify"),
            "{}",
            e.message
        );
        let e = run_step(Step::Prepare, &sh("exit 2"), root.path(), run.path()).unwrap_err();
        assert_eq!(e.kind, FailureKind::Crash);
    }
}
