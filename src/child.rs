//! Running a child program (the twin's compiler and programs, an external rewriter) with a wall-clock
//! limit, no inherited terminal, and its output captured to files (pipes could fill and stall it).

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub enum Finished {
    Exited { status: ExitStatus, stderr: String },
    TimedOut,
}

/// Runs `cmd`, writing its stdout and stderr to `<log_stem>.out` / `<log_stem>.err`.
pub fn run(mut cmd: Command, limit: Duration, log_stem: &Path) -> std::io::Result<Finished> {
    let out = std::fs::File::create(log_stem.with_extension("out"))?;
    let err_path = log_stem.with_extension("err");
    let err = std::fs::File::create(&err_path)?;
    cmd.stdin(Stdio::null()).stdout(out).stderr(err);
    let mut child = cmd.spawn()?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            let mut stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
            if stderr.len() > 8000 {
                let cut = (0..=8000)
                    .rev()
                    .find(|&i| stderr.is_char_boundary(i))
                    .unwrap_or(0);
                stderr.truncate(cut);
                stderr.push_str("\n[... cut]");
            }
            return Ok(Finished::Exited { status, stderr });
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Finished::TimedOut);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}
