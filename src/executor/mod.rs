//! Executors: where `tune` and `bench` run their per-op work. `local` is this process, one op after
//! another (the commands' own code, unchanged). `slurm` hands each op to an existing cluster scheduler as
//! one batch job and waits for them here: progress, each result as its job ends, Ctrl-C cancelling the
//! jobs. We write no scheduler of our own.
//!
//! Owns choosing the executor and waiting on a batch of jobs. Knows nothing of what a job computes: the
//! flows that build job command lines and merge their results are in `commands/dispatch.rs`.

pub mod slurm;

use crate::errors::{Error, Result};
use crate::manifest::ExecutorKind;
use crate::report::Printer;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use slurm::{JobSpec, JobState, Submitted};

/// The executor a command uses: `--executor` when given, else what the manifests say (all alike; a
/// workspace whose members disagree must say on the command line).
pub fn choose(
    flag: Option<ExecutorKind>,
    manifests: &[(String, ExecutorKind)],
) -> Result<ExecutorKind> {
    if let Some(k) = flag {
        return Ok(k);
    }
    let mut kinds = manifests.iter().map(|(_, k)| *k);
    let Some(first) = kinds.next() else {
        return Ok(ExecutorKind::Local);
    };
    if let Some((name, k)) = manifests.iter().find(|(_, k)| *k != first) {
        return Err(Error::bad_input(
            format!(
                "the projects disagree on `[project] executor`: `{name}` says {} where `{}` says {}",
                k.as_str(),
                manifests[0].0,
                first.as_str()
            ),
            Some("pass --executor local or --executor slurm".into()),
        ));
    }
    Ok(first)
}

/// How often the queue is asked about the jobs.
fn poll_interval() -> Duration {
    std::env::var("ASCEND_TUNE_SLURM_POLL")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(Duration::from_secs(2), Duration::from_secs_f64)
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// While alive, Ctrl-C (SIGINT) and SIGTERM set a flag instead of killing the process, so the jobs can be
/// cancelled first; the default handlers come back on drop.
struct InterruptGuard;

impl InterruptGuard {
    fn install() -> InterruptGuard {
        INTERRUPTED.store(false, Ordering::SeqCst);
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe {
            libc::signal(
                libc::SIGINT,
                on_sigint as extern "C" fn(libc::c_int) as *const () as libc::sighandler_t,
            );
            libc::signal(
                libc::SIGTERM,
                on_sigint as extern "C" fn(libc::c_int) as *const () as libc::sighandler_t,
            );
        }
        InterruptGuard
    }
}

impl Drop for InterruptGuard {
    fn drop(&mut self) {
        // SAFETY: restoring the default disposition.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
        }
    }
}

/// Submits `specs` as Slurm jobs (scripts and logs under `dir`), waits for all of them with progress, and
/// calls `done` for each as it ends, in the order they end. Returns every job with its final state, in
/// the order of `specs`. Interrupted (Ctrl-C), it cancels the jobs it submitted and returns an error
/// that says so; what the jobs finished stays where they wrote it.
pub fn run_slurm(
    specs: Vec<JobSpec>,
    dir: &std::path::Path,
    printer: &Printer,
    mut done: impl FnMut(&Submitted, &JobState),
) -> Result<Vec<(Submitted, JobState)>> {
    let guard = InterruptGuard::install();
    let mut jobs: Vec<(Submitted, JobState)> = vec![];
    for spec in specs {
        if INTERRUPTED.load(Ordering::SeqCst) {
            break;
        }
        match slurm::submit(spec, dir) {
            Ok(s) => {
                printer.status(
                    "Submitted",
                    format!("{} as Slurm job {}", s.spec.name, s.id),
                );
                jobs.push((s, JobState::Pending));
            }
            Err(e) => {
                let ids: Vec<String> = jobs.iter().map(|(s, _)| s.id.clone()).collect();
                let _ = slurm::cancel(&ids);
                return Err(e);
            }
        }
    }
    let mut last_counts = None;
    loop {
        if INTERRUPTED.load(Ordering::SeqCst) {
            let open: Vec<String> = jobs
                .iter()
                .filter(|(_, st)| !st.is_done())
                .map(|(s, _)| s.id.clone())
                .collect();
            let cancelled = slurm::cancel(&open);
            drop(guard);
            return Err(Error::bad_input(
                format!(
                    "interrupted: cancelled {} Slurm job(s) ({}){}",
                    open.len(),
                    open.join(", "),
                    cancelled
                        .err()
                        .map(|e| format!("; scancel said: {e}"))
                        .unwrap_or_default()
                ),
                Some(
                    "the trials the jobs finished are in their journals: run the same command again to resume"
                        .into(),
                ),
            ));
        }
        let open: Vec<String> = jobs
            .iter()
            .filter(|(_, st)| !st.is_done())
            .map(|(s, _)| s.id.clone())
            .collect();
        if open.is_empty() {
            break;
        }
        let states = slurm::poll(&open)?;
        for (job, state) in jobs.iter_mut() {
            if let Some(new) = states.get(&job.id)
                && *new != *state
            {
                *state = new.clone();
                if state.is_done() {
                    done(job, state);
                }
            }
        }
        let count = |f: fn(&JobState) -> bool| jobs.iter().filter(|(_, s)| f(s)).count();
        let counts = (
            count(|s| *s == JobState::Pending),
            count(|s| *s == JobState::Running),
            count(|s| *s == JobState::Completed),
            count(|s| matches!(s, JobState::Failed { .. })),
        );
        if last_counts != Some(counts) {
            printer.status(
                "Slurm",
                format!(
                    "{} pending, {} running, {} done, {} failed",
                    counts.0, counts.1, counts.2, counts.3
                ),
            );
            last_counts = Some(counts);
        }
        if jobs.iter().all(|(_, s)| s.is_done()) {
            break;
        }
        // Sleep in short steps so Ctrl-C is answered at once.
        let until = std::time::Instant::now() + poll_interval();
        while std::time::Instant::now() < until && !INTERRUPTED.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    drop(guard);
    Ok(jobs)
}

/// A failed job in one line: what Slurm says and where its log is.
pub fn describe_failure(job: &Submitted, state: &JobState) -> String {
    match state {
        JobState::Failed {
            state,
            reason,
            exit_code,
        } => {
            let tail = std::fs::read_to_string(&job.stderr)
                .ok()
                .and_then(|t| {
                    t.lines()
                        .rev()
                        .find(|l| !l.trim().is_empty())
                        .map(|l| l.trim().to_string())
                })
                .map(|l| format!("; last line of its log: {l}"))
                .unwrap_or_default();
            format!(
                "Slurm job {} ({}) ended {state}{}{} (log: {}){tail}",
                job.id,
                job.spec.name,
                if reason.is_empty() || reason == "None" {
                    String::new()
                } else {
                    format!(", reason {reason}")
                },
                if exit_code.is_empty() {
                    String::new()
                } else {
                    format!(", exit code {exit_code}")
                },
                job.stderr.display()
            )
        }
        _ => format!("Slurm job {} ({}) did not finish", job.id, job.spec.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_and_manifests_must_agree() {
        let m = |k| vec![("a".to_string(), k), ("b".to_string(), k)];
        assert_eq!(
            choose(Some(ExecutorKind::Slurm), &m(ExecutorKind::Local)).unwrap(),
            ExecutorKind::Slurm
        );
        assert_eq!(
            choose(None, &m(ExecutorKind::Slurm)).unwrap(),
            ExecutorKind::Slurm
        );
        assert_eq!(choose(None, &[]).unwrap(), ExecutorKind::Local);
        let mixed = vec![
            ("a".to_string(), ExecutorKind::Local),
            ("b".to_string(), ExecutorKind::Slurm),
        ];
        let e = choose(None, &mixed).unwrap_err().to_string();
        assert!(e.contains("`b` says slurm"), "{e}");
    }
}
