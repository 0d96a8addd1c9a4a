//! Slurm through its own commands: `sbatch` submits a job script, `squeue` and `scontrol show job` say
//! where each job is, `scancel` stops them. Owns the job scripts, their logs and the translation of
//! Slurm's job states into ours. Knows nothing of tuning or benchmarks: a job is a command line to run in
//! a folder on whichever node Slurm picks.
//!
//! The commands are found on `PATH` (`ASCEND_TUNE_SBATCH`, `..._SQUEUE`, `..._SCONTROL`, `..._SCANCEL`
//! override each, e.g. for a wrapper that adds `--clusters`). `SLURM_CONF` and the rest of the
//! environment pass through to them unchanged.

use crate::errors::{Error, Result};
use crate::manifest::SlurmSettings;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One unit of work to submit.
#[derive(Debug, Clone)]
pub struct JobSpec {
    /// A short name, unique within one submission: the job's `--job-name` suffix and its file names.
    pub name: String,
    /// The program and its arguments.
    pub argv: Vec<OsString>,
    /// The folder the job runs in (on the shared file system).
    pub cwd: PathBuf,
    /// Environment set for the job (on top of what Slurm exports).
    pub env: Vec<(String, String)>,
    pub settings: SlurmSettings,
}

/// A job Slurm accepted.
#[derive(Debug, Clone)]
pub struct Submitted {
    pub id: String,
    pub spec: JobSpec,
    /// The job's standard output (`--output`).
    pub stdout: PathBuf,
    /// The job's standard error (`--error`).
    pub stderr: PathBuf,
}

/// Where a job is, in our terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobState {
    Pending,
    Running,
    /// Finished with exit code 0.
    Completed,
    /// Finished some other way: Slurm's state (`FAILED`, `TIMEOUT`, `PREEMPTED`, `CANCELLED`,
    /// `NODE_FAIL`, `OUT_OF_MEMORY`, ...), its reason and the exit code, as Slurm gives them.
    Failed {
        state: String,
        reason: String,
        exit_code: String,
    },
}

impl JobState {
    pub fn is_done(&self) -> bool {
        matches!(self, JobState::Completed | JobState::Failed { .. })
    }
}

fn tool(name: &str) -> OsString {
    let var = format!("ASCEND_TUNE_{}", name.to_ascii_uppercase());
    std::env::var_os(var).unwrap_or_else(|| OsString::from(name))
}

/// Runs a Slurm command, its stdout on success, an error that says which command and why otherwise.
fn slurm_cmd(name: &str, args: &[OsString]) -> Result<String> {
    let program = tool(name);
    let out = Command::new(&program).args(args).output().map_err(|e| {
        Error::bad_input(
            format!("could not run `{}`: {e}", program.to_string_lossy()),
            Some(
                "--executor slurm needs the Slurm client commands (sbatch, squeue, scontrol, scancel) on PATH, \
                 and SLURM_CONF naming the cluster's slurm.conf where it is not the default; \
                 scripts/slurm-local.sh starts a single-node Slurm for trying it"
                    .into(),
            ),
        )
    })?;
    if !out.status.success() {
        return Err(Error::Internal(format!(
            "`{} {}` failed ({}): {}",
            program.to_string_lossy(),
            args.iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Quotes a word for a POSIX shell.
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The batch script of a job: `cd` to its folder, set its environment, `exec` its command.
pub fn script(spec: &JobSpec) -> String {
    let mut s = String::from(
        "#!/bin/sh\n# Written by cargo-ascend-tune (--executor slurm); one job per op.\nset -e\n",
    );
    s.push_str(&format!(
        "cd {}\n",
        shell_quote(&spec.cwd.to_string_lossy())
    ));
    for (k, v) in &spec.env {
        s.push_str(&format!("export {k}={}\n", shell_quote(v)));
    }
    let words: Vec<String> = spec
        .argv
        .iter()
        .map(|a| shell_quote(&a.to_string_lossy()))
        .collect();
    s.push_str(&format!("exec {}\n", words.join(" ")));
    s
}

/// The `sbatch` arguments of a job (without the script).
pub fn sbatch_args(spec: &JobSpec, stdout: &Path, stderr: &Path) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec![
        "--parsable".into(),
        format!("--job-name=ascend-tune:{}", spec.name).into(),
        format!("--output={}", stdout.display()).into(),
        format!("--error={}", stderr.display()).into(),
        format!("--chdir={}", spec.cwd.display()).into(),
        // Slurm may requeue a preempted job; ours resumes from its journal, so that is safe.
        "--requeue".into(),
    ];
    let s = &spec.settings;
    if let Some(p) = &s.partition {
        a.push(format!("--partition={p}").into());
    }
    if let Some(p) = &s.account {
        a.push(format!("--account={p}").into());
    }
    if let Some(t) = &s.time_limit {
        a.push(format!("--time={t}").into());
    }
    if !s.gres.is_empty() {
        a.push(format!("--gres={}", s.gres.join(",")).into());
    }
    a.extend(s.sbatch_args.iter().map(OsString::from));
    a
}

/// Writes the job's script into `dir` and submits it.
pub fn submit(spec: JobSpec, dir: &Path) -> Result<Submitted> {
    crate::fsx::create_dir_all(dir)?;
    let script_path = dir.join(format!("{}.sh", spec.name));
    crate::fsx::write_atomic(&script_path, script(&spec).as_bytes())?;
    let stdout = dir.join(format!("{}.out", spec.name));
    let stderr = dir.join(format!("{}.err", spec.name));
    // Logs of an earlier submission of the same job would be mistaken for this one's.
    let _ = std::fs::remove_file(&stdout);
    let _ = std::fs::remove_file(&stderr);
    let mut args = sbatch_args(&spec, &stdout, &stderr);
    args.push(script_path.into_os_string());
    let out = slurm_cmd("sbatch", &args)?;
    // `--parsable` prints `id` or `id;cluster`.
    let id = out
        .lines()
        .next()
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return Err(Error::Internal(format!(
            "sbatch accepted job `{}` but printed no job id: {out:?}",
            spec.name
        )));
    }
    Ok(Submitted {
        id,
        spec,
        stdout,
        stderr,
    })
}

/// Maps Slurm's job state names to ours.
pub fn state_of(state: &str, reason: &str, exit_code: &str) -> JobState {
    // `scontrol` may add a `+` (e.g. `CANCELLED+`), and squeue's long names.
    let s = state.trim_end_matches('+').to_ascii_uppercase();
    match s.as_str() {
        "PENDING" | "PD" | "CONFIGURING" | "CF" | "REQUEUED" | "RQ" | "REQUEUE_HOLD"
        | "REQUEUE_FED" | "RESV_DEL_HOLD" | "SUSPENDED" | "S" => JobState::Pending,
        "RUNNING" | "R" | "COMPLETING" | "CG" | "STAGE_OUT" | "SO" | "SIGNALING" | "SE"
        | "RESIZING" | "RS" => JobState::Running,
        "COMPLETED" | "CD"
            if exit_code.is_empty() || exit_code.starts_with("0:0") || exit_code == "0" =>
        {
            JobState::Completed
        }
        _ => JobState::Failed {
            state: s,
            reason: reason.to_string(),
            exit_code: exit_code.to_string(),
        },
    }
}

/// The state of each job. Jobs still queued or running are read from `squeue`; the others from
/// `scontrol show job`, which keeps finished jobs for `MinJobAge` (300 s by default) and needs no
/// accounting database.
pub fn poll(ids: &[String]) -> Result<BTreeMap<String, JobState>> {
    let mut states = BTreeMap::new();
    if ids.is_empty() {
        return Ok(states);
    }
    let out = slurm_cmd(
        "squeue",
        &[
            "--noheader".into(),
            "--states=all".into(),
            format!("--jobs={}", ids.join(",")).into(),
            "--format=%i|%T|%r".into(),
        ],
    )
    // squeue fails outright when every id has aged out; scontrol answers for those below.
    .unwrap_or_default();
    for line in out.lines() {
        let f: Vec<&str> = line.split('|').collect();
        if let [id, state, reason] = f.as_slice() {
            let st = state_of(state, reason, "");
            // A finished job's exit code is in scontrol, not squeue.
            if !st.is_done() {
                states.insert(id.trim().to_string(), st);
            }
        }
    }
    for id in ids {
        if states.contains_key(id) {
            continue;
        }
        let st = match slurm_cmd(
            "scontrol",
            &["--oneliner".into(), "show".into(), "job".into(), id.into()],
        ) {
            Ok(text) => {
                let field = |k: &str| {
                    text.split_whitespace()
                        .find_map(|w| w.strip_prefix(&format!("{k}=")))
                        .unwrap_or_default()
                        .to_string()
                };
                state_of(&field("JobState"), &field("Reason"), &field("ExitCode"))
            }
            Err(e) => JobState::Failed {
                state: "UNKNOWN".into(),
                reason: format!("Slurm no longer knows the job ({e})"),
                exit_code: String::new(),
            },
        };
        states.insert(id.clone(), st);
    }
    Ok(states)
}

/// Cancels jobs (those already finished are ignored by Slurm).
pub fn cancel(ids: &[String]) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let args: Vec<OsString> = ids.iter().map(OsString::from).collect();
    slurm_cmd("scancel", &args).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> JobSpec {
        JobSpec {
            name: "add_custom-add".into(),
            argv: vec![
                "/opt/bin/cargo-ascend-tune".into(),
                "tune".into(),
                "it's".into(),
            ],
            cwd: "/shared/proj dir".into(),
            env: vec![("ASCEND_TUNE_X".into(), "a b".into())],
            settings: SlurmSettings {
                partition: Some("npu".into()),
                account: None,
                time_limit: Some("30".into()),
                gres: vec!["npu:1".into()],
                sbatch_args: vec!["--qos=short".into()],
            },
        }
    }

    #[test]
    fn script_quotes_every_word() {
        let s = script(&spec());
        assert!(s.contains("cd '/shared/proj dir'\n"), "{s}");
        assert!(s.contains("export ASCEND_TUNE_X='a b'\n"), "{s}");
        assert!(
            s.contains("exec /opt/bin/cargo-ascend-tune tune 'it'\\''s'\n"),
            "{s}"
        );
    }

    #[test]
    fn sbatch_gets_the_manifest_settings() {
        let a: Vec<String> = sbatch_args(&spec(), Path::new("/l/o"), Path::new("/l/e"))
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        for want in [
            "--parsable",
            "--partition=npu",
            "--time=30",
            "--gres=npu:1",
            "--qos=short",
            "--output=/l/o",
            "--error=/l/e",
        ] {
            assert!(a.contains(&want.to_string()), "{want} in {a:?}");
        }
        assert!(!a.iter().any(|x| x.starts_with("--account")));
    }

    #[test]
    fn slurm_states_map_to_ours() {
        assert_eq!(state_of("PENDING", "Priority", ""), JobState::Pending);
        assert_eq!(state_of("R", "None", ""), JobState::Running);
        assert_eq!(state_of("COMPLETED", "None", "0:0"), JobState::Completed);
        assert!(matches!(
            state_of("COMPLETED", "None", "1:0"),
            JobState::Failed { .. }
        ));
        for s in [
            "FAILED",
            "TIMEOUT",
            "PREEMPTED",
            "CANCELLED+",
            "NODE_FAIL",
            "OUT_OF_MEMORY",
        ] {
            match state_of(s, "r", "2:0") {
                JobState::Failed { state, .. } => assert_eq!(state, s.trim_end_matches('+')),
                other => panic!("{s}: {other:?}"),
            }
        }
    }
}
