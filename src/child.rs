//! Running a child program (the twin's compiler and programs, an external rewriter) contained: a
//! wall-clock limit, a memory limit, no inherited terminal, its own session and process group (so a
//! timeout kills everything it started, not just the first process), and its output captured to files
//! (pipes could fill and stall it). Candidate programs, the code under tuning, may not create processes
//! at all. Knows nothing of what the programs are or what their output means.
//!
//! Limits, on Linux (elsewhere only the wall-clock limit, the null stdin and the log files):
//! * memory: `RLIMIT_AS` of `ASCEND_TUNE_CHILD_MEMORY` MiB (default 4096; `0` turns it off), so a 50 GB
//!   allocation fails inside the child instead of swapping the machine to a halt;
//! * processes: candidates run under a seccomp filter that refuses `fork`, `vfork` and `clone` without
//!   `CLONE_THREAD` (threads stay allowed: the twin runs one thread per block), so a fork bomb stops at
//!   its first fork. `RLIMIT_NPROC` is not used: it counts every process of the user, and root ignores it.
//!   Compilers may fork (gcc runs cc1plus, as, ld); their process group is killed on timeout;
//! * a dying tuner takes its direct child with it (`PR_SET_PDEATHSIG`), since the child's own session
//!   no longer gets the terminal's Ctrl-C;
//! * no core files (`RLIMIT_CORE` 0) and, for candidates, no file over 2 GiB (`RLIMIT_FSIZE`).
//!
//! The soak test can arm a SIGKILL of the next tool a thread starts (`inject`), as the OOM killer would
//! kill a compiler; nothing else arms it.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub enum Finished {
    Exited { status: ExitStatus, stderr: String },
    TimedOut,
}

/// Memory limit of every child unless `ASCEND_TUNE_CHILD_MEMORY` says otherwise.
pub const DEFAULT_MEMORY_MIB: u64 = 4096;
pub const MEMORY_ENV: &str = "ASCEND_TUNE_CHILD_MEMORY";

/// The memory limit in bytes, or None when turned off (`0`). An unreadable value keeps the default.
pub fn memory_limit() -> Option<u64> {
    let mib = std::env::var(MEMORY_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_MEMORY_MIB);
    (mib > 0).then(|| mib.saturating_mul(1 << 20))
}

/// How far a child is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// A tool (compiler, rewriter): may start processes of its own.
    Tool,
    /// Code under tuning: may start threads but no processes.
    Candidate,
}

/// Runs the tool `cmd`, writing its stdout and stderr to `<log_stem>.out` / `<log_stem>.err`.
pub fn run(cmd: Command, limit: Duration, log_stem: &Path) -> std::io::Result<Finished> {
    run_as(cmd, limit, log_stem, Trust::Tool)
}

/// Runs a candidate program (see `Trust::Candidate`).
pub fn run_candidate(cmd: Command, limit: Duration, log_stem: &Path) -> std::io::Result<Finished> {
    run_as(cmd, limit, log_stem, Trust::Candidate)
}

pub fn run_as(
    mut cmd: Command,
    limit: Duration,
    log_stem: &Path,
    trust: Trust,
) -> std::io::Result<Finished> {
    let out = crate::fsx::create_file(&log_stem.with_extension("out"))?;
    let err_path = log_stem.with_extension("err");
    let err = crate::fsx::create_file(&err_path)?;
    // The soak test's killed build: armed on this thread for the next tool it starts.
    let kill_at = (trust == Trust::Tool).then(inject::take_kill).flatten();
    cmd.stdin(Stdio::null()).stdout(out).stderr(err);
    #[cfg(target_os = "linux")]
    contain::prepare(&mut cmd, trust);
    #[cfg(not(target_os = "linux"))]
    let _ = trust;
    let mut child = cmd.spawn()?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let mut killed = false;
    loop {
        if exited(&mut child)? {
            // Whatever the program left running in its group goes with it.
            #[cfg(target_os = "linux")]
            contain::kill_group(&child);
            let status = child.wait()?;
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
        if !killed && kill_at.is_some_and(|at| start.elapsed() >= at) {
            killed = true;
            // As the kernel's OOM killer or an impatient user would: SIGKILL to the whole group.
            #[cfg(target_os = "linux")]
            contain::kill_group(&child);
            let _ = child.kill();
            inject::mark_fired();
        }
        if start.elapsed() > limit {
            #[cfg(target_os = "linux")]
            contain::kill_group(&child);
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Finished::TimedOut);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Fault injection for the soak test (`bench --inject-faults`), off unless armed: SIGKILL the next tool
/// (a compiler) this thread starts, mid-run, as the OOM killer would.
pub mod inject {
    use std::cell::Cell;
    use std::time::Duration;

    thread_local! {
        static KILL_AFTER: Cell<Option<Duration>> = const { Cell::new(None) };
        static FIRED: Cell<bool> = const { Cell::new(false) };
    }

    /// The next tool started on this thread is killed `after` it starts (if it is still running then).
    pub fn kill_next_tool(after: Duration) {
        KILL_AFTER.with(|k| k.set(Some(after)));
        FIRED.with(|f| f.set(false));
    }

    /// Disarms, and says whether a tool was killed since `kill_next_tool`.
    pub fn disarm() -> bool {
        KILL_AFTER.with(|k| k.set(None));
        FIRED.with(|f| f.replace(false))
    }

    pub(super) fn take_kill() -> Option<Duration> {
        KILL_AFTER.with(|k| k.take())
    }

    pub(super) fn mark_fired() {
        FIRED.with(|f| f.set(true));
    }
}

/// Whether the child has ended, without reaping it on Unix: its pid, and so its process group's id,
/// stays ours until `wait`, so killing the group cannot hit an unrelated process that reused the pid.
fn exited(child: &mut std::process::Child) -> std::io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        contain::exited(child)
    }
    #[cfg(not(target_os = "linux"))]
    {
        Ok(child.try_wait()?.is_some())
    }
}

/// A few words on how a program ended: the exit code, or the signal by name, and what it most likely
/// means when the program hit the memory limit.
pub fn describe(status: ExitStatus, stderr: &str) -> String {
    let mut s = match status.code() {
        Some(c) => format!("exit code {c}"),
        None => "no exit code".into(),
    };
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                libc::SIGSEGV => " (SIGSEGV, a bad memory access)",
                libc::SIGBUS => " (SIGBUS, a bad memory access)",
                libc::SIGABRT => " (SIGABRT, the program aborted)",
                libc::SIGFPE => " (SIGFPE, an arithmetic fault)",
                libc::SIGILL => " (SIGILL, an illegal instruction)",
                libc::SIGKILL => " (SIGKILL)",
                libc::SIGXFSZ => " (SIGXFSZ, a file over the 2 GiB limit)",
                _ => "",
            };
            s = format!("killed by signal {sig}{name}");
        }
    }
    let oom = ["std::bad_alloc", "Cannot allocate memory", "out of memory"];
    if oom.iter().any(|m| stderr.contains(m)) {
        s.push_str(&match memory_limit() {
            Some(b) => format!(
                "; it ran out of memory under the limit of {} MiB ({MEMORY_ENV})",
                b >> 20
            ),
            None => "; it ran out of memory".to_string(),
        });
    }
    s
}

#[cfg(target_os = "linux")]
mod contain {
    use super::Trust;
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command};

    pub fn prepare(cmd: &mut Command, trust: Trust) {
        let memory = super::memory_limit();
        // Built before the fork: nothing may allocate between fork and exec.
        let filter = (trust == Trust::Candidate).then(no_fork_filter).flatten();
        // SAFETY: the closure runs in the forked child before exec and calls only async-signal-safe
        // functions (setsid, prctl, setrlimit, getppid) on data prepared above.
        unsafe {
            cmd.pre_exec(move || {
                let parent = libc::getppid();
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                // The tuner died between fork and prctl: do not live on as an orphan.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                set_limit(libc::RLIMIT_CORE, 0)?;
                if let Some(bytes) = memory {
                    set_limit(libc::RLIMIT_AS, bytes)?;
                }
                if trust == Trust::Candidate {
                    set_limit(libc::RLIMIT_FSIZE, 2 << 30)?;
                }
                if let Some(filter) = &filter {
                    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    let prog = libc::sock_fprog {
                        len: filter.len() as u16,
                        filter: filter.as_ptr() as *mut libc::sock_filter,
                    };
                    if libc::prctl(
                        libc::PR_SET_SECCOMP,
                        libc::SECCOMP_MODE_FILTER,
                        &prog as *const libc::sock_fprog,
                        0,
                        0,
                    ) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }

    fn set_limit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
        let mut current = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: plain system calls on a local struct.
        unsafe {
            if libc::getrlimit(resource, &mut current) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Never raise a limit the user already set lower.
            // rlim_t is u64 on Linux but not on every Unix.
            #[allow(clippy::useless_conversion)]
            let max: u64 = current.rlim_max.try_into().unwrap_or(u64::MAX);
            let v = value.min(max) as libc::rlim_t;
            let new = libc::rlimit {
                rlim_cur: v.min(current.rlim_cur),
                rlim_max: current.rlim_max,
            };
            if libc::setrlimit(resource, &new) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }

    pub fn exited(child: &mut Child) -> std::io::Result<bool> {
        // SAFETY: waitid on our own child with a zeroed siginfo it fills in.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let r = libc::waitid(
                libc::P_PID,
                child.id() as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            );
            if r != 0 {
                let e = std::io::Error::last_os_error();
                // Already reaped elsewhere: ended.
                if e.raw_os_error() == Some(libc::ECHILD) {
                    return Ok(true);
                }
                return Err(e);
            }
            Ok(info.si_pid() != 0)
        }
    }

    /// SIGKILL to the child's process group (its pid: `setsid` made it the leader), until nothing is left.
    pub fn kill_group(child: &Child) {
        let pgid = child.id() as libc::pid_t;
        for _ in 0..100 {
            // SAFETY: a signal to a process group we created; ESRCH once it is empty.
            if unsafe { libc::kill(-pgid, libc::SIGKILL) } != 0 {
                return;
            }
            // The leader stays a zombie until reaped, so the group never empties while it lives;
            // one round is enough when it has exited, a few more catch children forked mid-signal.
            if unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                libc::waitid(
                    libc::P_PID,
                    pgid as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                ) == 0
                    && info.si_pid() != 0
            } {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// A seccomp filter that fails process creation with EAGAIN, `clone3` with ENOSYS (its flags sit
    /// behind a pointer the filter cannot read; glibc then falls back to `clone`), and allows the rest.
    /// None on architectures it does not know.
    fn no_fork_filter() -> Option<Vec<libc::sock_filter>> {
        #[cfg(target_arch = "x86_64")]
        const ARCH: u32 = 0xC000_003E; // AUDIT_ARCH_X86_64
        #[cfg(target_arch = "aarch64")]
        const ARCH: u32 = 0xC000_00B7; // AUDIT_ARCH_AARCH64
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        return None;
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        {
            const LD_W_ABS: u16 = 0x20;
            const JEQ: u16 = 0x15;
            const JGE: u16 = 0x35;
            const JSET: u16 = 0x45;
            const RET: u16 = 0x06;
            const ALLOW: u32 = 0x7fff_0000;
            const ERRNO: u32 = 0x0005_0000;
            let op = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
            let deny = |errno: i32| op(RET, 0, 0, ERRNO | errno as u32);
            let mut f = vec![
                op(LD_W_ABS, 0, 0, 4), // arch
                op(JEQ, 1, 0, ARCH),
                deny(libc::EPERM), // a foreign ABI (i386 via int 0x80) gets nothing
                op(LD_W_ABS, 0, 0, 0), // syscall number
            ];
            #[cfg(target_arch = "x86_64")]
            {
                f.push(op(JGE, 0, 1, 0x4000_0000)); // the x32 ABI
                f.push(deny(libc::EPERM));
                f.push(op(JEQ, 0, 1, libc::SYS_fork as u32));
                f.push(deny(libc::EAGAIN));
                f.push(op(JEQ, 0, 1, libc::SYS_vfork as u32));
                f.push(deny(libc::EAGAIN));
            }
            #[cfg(target_arch = "aarch64")]
            let _ = JGE;
            f.extend([
                op(JEQ, 0, 1, libc::SYS_clone3 as u32),
                deny(libc::ENOSYS),
                op(JEQ, 0, 3, libc::SYS_clone as u32),
                op(LD_W_ABS, 0, 0, 16), // low word of args[0], the flags
                op(JSET, 1, 0, libc::CLONE_THREAD as u32),
                deny(libc::EAGAIN),
                op(RET, 0, 0, ALLOW),
            ]);
            Some(f)
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }

    #[test]
    fn a_timeout_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("grandchild.pid");
        // The shell starts a sleeper in the background, records its pid, and waits forever.
        let script = format!("sleep 300 & echo $! > {}; wait", pidfile.display());
        // Two seconds give a loaded machine time to start the sleeper before the limit strikes.
        let r = run(sh(&script), Duration::from_secs(2), &dir.path().join("log")).unwrap();
        assert!(matches!(r, Finished::TimedOut));
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // SAFETY: signal 0 only asks whether the process exists.
        let alive = || {
            let exists = unsafe { libc::kill(pid, 0) } == 0;
            exists
                && std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .is_ok_and(|s| !s.contains(") Z "))
        };
        // SIGKILL is delivered at once but a loaded scheduler may take a moment to let it die: the
        // property is that it dies, so allow it five seconds (it was flaky at load 10 without).
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while alive() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !alive(),
            "the background sleeper {pid} outlived the timeout"
        );
    }

    #[test]
    fn an_armed_kill_stops_the_next_tool_mid_run_and_only_that_one() {
        let dir = tempfile::tempdir().unwrap();
        inject::kill_next_tool(Duration::from_millis(50));
        let r = run(
            sh("sleep 30"),
            Duration::from_secs(60),
            &dir.path().join("k"),
        )
        .unwrap();
        assert!(inject::disarm(), "the kill did not fire");
        let Finished::Exited { status, stderr } = r else {
            panic!("timed out")
        };
        assert_eq!(describe(status, &stderr), "killed by signal 9 (SIGKILL)");
        // Consumed: the next tool runs in peace.
        let r = run(sh("true"), Duration::from_secs(10), &dir.path().join("t")).unwrap();
        assert!(matches!(r, Finished::Exited { status, .. } if status.success()));
        assert!(!inject::disarm());
    }

    #[test]
    fn a_child_has_no_terminal_and_its_own_session() {
        let dir = tempfile::tempdir().unwrap();
        let stem = dir.path().join("log");
        // `ps -o sid=` is not everywhere; /proc/self/stat field 6 is the session id.
        let r = run(
            sh("read x; echo read=$?; cut -d' ' -f6 /proc/self/stat; echo $$"),
            Duration::from_secs(10),
            &stem,
        )
        .unwrap();
        assert!(matches!(r, Finished::Exited { status, .. } if status.success()));
        let out = std::fs::read_to_string(stem.with_extension("out")).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "read=1", "stdin is not /dev/null: {out}");
        assert_eq!(
            lines[1], lines[2],
            "the child does not lead its own session: {out}"
        );
    }

    #[test]
    fn a_candidate_cannot_fork_but_a_tool_can() {
        let dir = tempfile::tempdir().unwrap();
        // `sh -c 'X; Y'` must fork to run the external command X.
        let script = "/bin/true && echo forked";
        let stem = dir.path().join("c");
        let r = run_candidate(sh(script), Duration::from_secs(10), &stem).unwrap();
        let Finished::Exited { status, .. } = r else {
            panic!("timed out")
        };
        let out = std::fs::read_to_string(stem.with_extension("out")).unwrap();
        assert!(!status.success() || !out.contains("forked"), "{out}");
        let stem = dir.path().join("t");
        let r = run(sh(script), Duration::from_secs(10), &stem).unwrap();
        assert!(matches!(r, Finished::Exited { status, .. } if status.success()));
        assert_eq!(
            std::fs::read_to_string(stem.with_extension("out")).unwrap(),
            "forked\n"
        );
    }

    #[test]
    fn a_candidate_may_start_threads() {
        // python would do, but is not everywhere; a C++ program is what candidates are.
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("t.cpp");
        std::fs::write(
            &src,
            "#include <thread>\nint main(){int x=0; std::thread t([&]{x=7;}); t.join(); return x==7?0:1;}\n",
        )
        .unwrap();
        let exe = dir.path().join("t");
        let ok = Command::new("c++")
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .arg("-pthread")
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("no C++ compiler; skipped");
            return;
        }
        let r = run_candidate(
            Command::new(&exe),
            Duration::from_secs(10),
            &dir.path().join("l"),
        )
        .unwrap();
        assert!(matches!(r, Finished::Exited { status, .. } if status.success()));
    }

    #[test]
    fn memory_over_the_limit_fails_inside_the_child() {
        let dir = tempfile::tempdir().unwrap();
        // A 64 GiB `head -c` buffer is more than RLIMIT_AS allows by default; dd asks for one block.
        let stem = dir.path().join("m");
        let r = run(
            sh("dd if=/dev/zero of=/dev/null bs=64G count=1"),
            Duration::from_secs(20),
            &stem,
        )
        .unwrap();
        let Finished::Exited { status, stderr } = r else {
            panic!("timed out")
        };
        assert!(!status.success(), "{stderr}");
        assert!(stderr.contains("memory"), "{stderr}");
    }
}
