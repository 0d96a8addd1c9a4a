//! One tuner per project: the lock file `tune.lock` in the project's working folder
//! (`target/ascend-tune/`). The exclusion itself is an OS file lock (`flock`), so a run that is killed,
//! even by `kill -9`, releases it with its last file descriptor; the file's text (pid, host, start time,
//! command) is only there to name the holder in the message another run prints, and to notice a stale
//! lock left by a killed run. Knows nothing of what the run does while it holds the lock.

use crate::errors::{Error, Result};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "tune.lock";

/// Held while a run may write the journal, the sources or `ascend-tune.lock`; released on drop.
#[derive(Debug)]
pub struct ProjectLock {
    file: std::fs::File,
    path: PathBuf,
}

/// What taking the lock found: a stale holder's description when a killed run left its text behind.
#[derive(Debug)]
pub struct Taken {
    pub lock: ProjectLock,
    pub stale: Option<String>,
}

impl ProjectLock {
    pub fn path(work: &Path) -> PathBuf {
        work.join(FILE_NAME)
    }

    /// Takes the lock of the project whose working folder is `work`, or fails at once (exit 2) naming
    /// the run that holds it. Never waits.
    pub fn acquire(work: &Path, command: &str) -> Result<Taken> {
        crate::fsx::create_dir_all(work)?;
        let path = Self::path(work);
        // Never deleted: removing it would let a run that opened the old file and one that creates a new
        // one both hold "the" lock.
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io("could not open", &path, e))?;
        let mut previous = String::new();
        if let Err(e) = try_lock(&file) {
            let _ = file.read_to_string(&mut previous);
            if e.kind() == std::io::ErrorKind::WouldBlock {
                let holder = describe(&previous);
                return Err(Error::bad_input(
                    format!(
                        "another cargo-ascend-tune run ({holder}) is tuning this project; its lock is {}",
                        path.display()
                    ),
                    Some(
                        "wait for it to finish, or stop it; the lock is released when that process exits, even if it is killed"
                            .into(),
                    ),
                ));
            }
            return Err(Error::io("could not lock", &path, e));
        }
        let _ = file.read_to_string(&mut previous);
        // We hold the lock, so whoever wrote text into the file is gone without cleaning up.
        let stale = (!previous.trim().is_empty()).then(|| describe(&previous));
        let text = format!(
            "pid {}\nhost {}\nstarted {}\ncommand {command}\n",
            std::process::id(),
            hostname(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        );
        let write = (|| {
            file.set_len(0)?;
            file.rewind()?;
            file.write_all(text.as_bytes())?;
            file.flush()
        })();
        write.map_err(|e| Error::io("could not write", &path, e))?;
        Ok(Taken {
            lock: ProjectLock { file, path },
            stale,
        })
    }

    pub fn file_path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ProjectLock {
    fn drop(&mut self) {
        // Empty text means "released cleanly"; the OS lock goes with the descriptor.
        let _ = self.file.set_len(0);
    }
}

/// "pid 123 on host, started at 1700000000 (tune)" from the lock file's text, or what can be read of it.
fn describe(text: &str) -> String {
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key).map(|v| v.trim().to_string()))
            .filter(|v| !v.is_empty())
    };
    let mut s = match field("pid ") {
        Some(pid) => format!("pid {pid}"),
        None => "pid unknown".to_string(),
    };
    if let Some(host) = field("host ") {
        s.push_str(&format!(" on {host}"));
    }
    if let Some(cmd) = field("command ") {
        s.push_str(&format!(", `{cmd}`"));
    }
    if let Some(started) = field("started ").and_then(|v| v.parse::<u64>().ok()) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        s.push_str(&format!(", started {}s ago", now.saturating_sub(started)));
    }
    s
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown host".to_string())
}

#[cfg(unix)]
fn try_lock(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor we own; no memory is shared with the call.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        return Err(std::io::Error::new(std::io::ErrorKind::WouldBlock, e));
    }
    Err(e)
}

#[cfg(not(unix))]
fn try_lock(file: &std::fs::File) -> std::io::Result<()> {
    file.try_lock().map_err(|e| match e {
        std::fs::TryLockError::WouldBlock => std::io::ErrorKind::WouldBlock.into(),
        std::fs::TryLockError::Error(e) => e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_with_the_first_ones_pid_and_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let first = ProjectLock::acquire(dir.path(), "tune").unwrap();
        assert!(first.stale.is_none());
        // flock locks belong to the open file description, so a second open in this process conflicts too.
        let err = ProjectLock::acquire(dir.path(), "tune").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        assert!(msg.contains(FILE_NAME), "{msg}");
        assert_eq!(err.exit_code(), crate::exit_codes::BAD_INPUT);
        drop(first);
        let again = ProjectLock::acquire(dir.path(), "tune").unwrap();
        assert!(again.stale.is_none(), "a clean release is not stale");
    }

    #[test]
    fn text_left_by_a_killed_run_is_reported_as_stale_and_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            ProjectLock::path(dir.path()),
            "pid 999999\nhost elsewhere\nstarted 1\ncommand tune\n",
        )
        .unwrap();
        let taken = ProjectLock::acquire(dir.path(), "tune").unwrap();
        let stale = taken.stale.unwrap();
        assert!(stale.contains("pid 999999 on elsewhere"), "{stale}");
        let now = std::fs::read_to_string(ProjectLock::path(dir.path())).unwrap();
        assert!(
            now.starts_with(&format!("pid {}\n", std::process::id())),
            "{now}"
        );
    }

    #[test]
    fn garbage_in_the_lock_file_does_not_stop_a_run() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(ProjectLock::path(dir.path()), b"\xff\xfe not text").unwrap();
        assert!(ProjectLock::acquire(dir.path(), "tune").is_ok());
    }
}
