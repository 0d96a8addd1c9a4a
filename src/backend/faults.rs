//! Fault injection for the soak test (`cargo ascend-tune bench --inject-faults RATE`): real faults, not
//! simulated ones, so the containment and recovery paths are what gets exercised.
//!
//! A `FaultPlan` decides, from its seed alone, which trials meet which fault: the decision is a hash of
//! (seed, op, trial number), so a plan replays exactly, whatever `--jobs` does to the order of work.
//! Two families:
//!
//! * **hostile candidates** (`crash`, `hang`, `oom`, `fork-bomb`, `wrong`): a copy of the trial's
//!   candidate with a hostile static initializer appended to its kernel, built and run for real through
//!   the twin and `crate::child` (a segfault, a sleep past the run timeout, a 50 GB allocation under the
//!   memory limit, a fork bomb under the no-fork filter), or, for `wrong`, with its outputs corrupted
//!   after the run so that verification must catch it. Each is an *extra* trial, recorded in the journal
//!   with its `injected` name and charged outside the budget: the search sees exactly the trials it would
//!   see without faults, so the best result must come out the same.
//! * **infrastructure faults** (`build-kill`, `disk-full`) strike the trial's own evaluation: the
//!   compiler is SIGKILLed mid-build, or every write of the working folder fails with ENOSPC while the
//!   trial builds, runs, or writes its journal record. These are the machine's fault, not the
//!   candidate's: the tuner retries the trial once (a second fault is drawn for the retry), then records
//!   it as a failed `infra` trial that no journal serves again; a journal record the disk refused stays
//!   in memory until the next write.
//!
//! A killed or full build must really compile, so it builds the candidate with one extra, unused probe
//! file (`FAULT_PROBE`) that no build cache holds. `FaultyBackend` carries out what the evaluator arms
//! for the trial on its thread (`arm`); every fault that fired is logged (`FaultPlan::events`) for the
//! soak's read-back. Nothing here runs unless a bench asks for faults.

use super::{Artifact, Backend, FailureKind, Inputs, Measurement, SourceSet, TrialFailure};
use crate::fsx::KeyHasher;
use crate::manifest::{BackendKind, OpSpec};
use serde::Serialize;
use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    Crash,
    Hang,
    Oom,
    ForkBomb,
    Wrong,
    BuildKill,
    DiskFull,
}

impl Fault {
    pub const ALL: [Fault; 7] = [
        Fault::Crash,
        Fault::Hang,
        Fault::Oom,
        Fault::ForkBomb,
        Fault::Wrong,
        Fault::BuildKill,
        Fault::DiskFull,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fault::Crash => "crash",
            Fault::Hang => "hang",
            Fault::Oom => "oom",
            Fault::ForkBomb => "fork-bomb",
            Fault::Wrong => "wrong",
            Fault::BuildKill => "build-kill",
            Fault::DiskFull => "disk-full",
        }
    }

    pub fn parse(name: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.name() == name)
    }

    /// A hostile candidate (an extra trial) rather than a fault of the machine under a real trial.
    pub fn is_candidate(self) -> bool {
        !matches!(self, Fault::BuildKill | Fault::DiskFull)
    }

    /// How the trial it strikes must end: the failure kind, and words its reason must hold.
    pub fn expected(self) -> (FailureKind, &'static str) {
        match self {
            Fault::Crash => (FailureKind::Crash, "SIGSEGV"),
            Fault::Hang => (FailureKind::Timeout, "longer than"),
            Fault::Oom => (FailureKind::Crash, "memory"),
            Fault::ForkBomb => (FailureKind::Crash, "fork"),
            Fault::Wrong => (FailureKind::Wrong, ""),
            Fault::BuildKill => (FailureKind::Infra, "SIGKILL"),
            Fault::DiskFull => (FailureKind::Infra, "No space left on device"),
        }
    }

    /// Why this fault cannot be injected safely here, if it cannot.
    pub fn unsupported(self) -> Option<String> {
        match self {
            Fault::Oom if crate::child::memory_limit().is_none() => Some(format!(
                "`oom` allocates 50 GB and needs the child memory limit; unset {} or give it a size",
                crate::child::MEMORY_ENV
            )),
            Fault::ForkBomb
                if !(cfg!(target_os = "linux")
                    && (cfg!(target_arch = "x86_64") || cfg!(target_arch = "aarch64"))) =>
            {
                Some("`fork-bomb` needs the no-fork filter of Linux on x86-64 or aarch64".into())
            }
            _ => None,
        }
    }
}

/// When an infrastructure fault strikes a trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Moment {
    Build,
    Run,
    /// The disk fills while the trial's journal record is written.
    Journal,
}

impl Moment {
    pub fn name(self) -> &'static str {
        match self {
            Moment::Build => "build",
            Moment::Run => "run",
            Moment::Journal => "journal",
        }
    }
}

/// An infrastructure fault armed for one attempt at a trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Infra {
    pub fault: Fault,
    pub moment: Moment,
    /// For `build-kill`: how long after the compiler starts it is killed.
    pub after: Duration,
}

/// What the plan holds for one trial.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrialPlan {
    /// A hostile copy of the candidate to run as an extra trial.
    pub hostile: Option<Fault>,
    /// Faults of the first attempt and of its retry (builds and runs).
    pub attempts: [Option<Infra>; 2],
    /// The disk is full while the trial's journal record is written.
    pub journal_full: bool,
}

/// One fault that was armed, and whether it happened.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub op: String,
    /// The trial's index in its run.
    pub index: usize,
    /// The trial's journal key.
    pub key: String,
    pub fault: Fault,
    pub moment: Option<Moment>,
    /// 0 for the first attempt, 1 for the retry.
    pub attempt: u8,
    /// False when the fault could not strike (say the compile ended before the kill).
    pub fired: bool,
}

#[derive(Debug)]
pub struct FaultPlan {
    pub rate: f64,
    pub seed: u64,
    pub kinds: Vec<Fault>,
    events: Mutex<Vec<Event>>,
}

impl FaultPlan {
    /// A plan striking `rate` of the trials with faults drawn evenly from `kinds`.
    pub fn new(rate: f64, seed: u64, kinds: Vec<Fault>) -> Result<FaultPlan, String> {
        if !(rate > 0.0 && rate <= 1.0) {
            return Err(format!(
                "a fault rate of {rate} is not a fraction of trials; give one in (0, 1], e.g. 0.2"
            ));
        }
        if kinds.is_empty() {
            return Err("no fault kinds to inject".into());
        }
        if let Some(why) = kinds.iter().find_map(|f| f.unsupported()) {
            return Err(why);
        }
        let mut kinds = kinds;
        kinds.sort();
        kinds.dedup();
        Ok(FaultPlan {
            rate,
            seed,
            kinds,
            events: Mutex::new(vec![]),
        })
    }

    /// The kinds injected when none are named: every kind this machine can take safely.
    pub fn default_kinds() -> Vec<Fault> {
        Fault::ALL
            .into_iter()
            .filter(|f| f.unsupported().is_none())
            .collect()
    }

    /// A number in [0, 1) from the seed and the parts, the same on every machine.
    fn unit(&self, parts: &[&str]) -> f64 {
        let mut h = KeyHasher::new();
        h.part(self.seed.to_le_bytes());
        parts.iter().for_each(|p| {
            h.part(p);
        });
        let hex = h.finish();
        let n = u64::from_str_radix(&hex[..13], 16).unwrap_or(0);
        n as f64 / (1u64 << 52) as f64
    }

    fn pick<T: Copy>(&self, from: &[T], parts: &[&str]) -> T {
        let i = (self.unit(parts) * from.len() as f64) as usize;
        from[i.min(from.len() - 1)]
    }

    /// The faults of the `number`-th trial (counted without the extra hostile trials) of `op`.
    pub fn for_trial(&self, op: &str, number: usize) -> TrialPlan {
        let n = number.to_string();
        let mut plan = TrialPlan::default();
        if self.unit(&[op, &n, "strike"]) >= self.rate {
            return plan;
        }
        let fault = self.pick(&self.kinds, &[op, &n, "kind"]);
        if fault.is_candidate() {
            plan.hostile = Some(fault);
            return plan;
        }
        let infra = |attempt: &str, fault: Fault, moments: &[Moment]| Infra {
            fault,
            moment: if fault == Fault::BuildKill {
                Moment::Build
            } else {
                self.pick(moments, &[op, &n, attempt, "moment"])
            },
            // Long enough that the compiler is under way, short of any real compile.
            after: Duration::from_millis(
                20 + (self.unit(&[op, &n, attempt, "after"]) * 280.0) as u64,
            ),
        };
        let first = infra("0", fault, &[Moment::Build, Moment::Run, Moment::Journal]);
        if first.moment == Moment::Journal {
            plan.journal_full = true;
            return plan;
        }
        plan.attempts[0] = Some(first);
        // The retry meets a fault of its own at the same rate.
        let machine: Vec<Fault> = self
            .kinds
            .iter()
            .copied()
            .filter(|f| !f.is_candidate())
            .collect();
        if self.unit(&[op, &n, "retry"]) < self.rate {
            let again = self.pick(&machine, &[op, &n, "retry-kind"]);
            plan.attempts[1] = Some(infra("1", again, &[Moment::Build, Moment::Run]));
        }
        plan
    }

    pub fn log(&self, event: Event) {
        self.events.lock().expect("fault log").push(event);
    }

    /// Every fault armed so far, in the order they were armed.
    pub fn events(&self) -> Vec<Event> {
        self.events.lock().expect("fault log").clone()
    }

    /// Forgets the events (between the runs of a soak).
    pub fn take_events(&self) -> Vec<Event> {
        std::mem::take(&mut *self.events.lock().expect("fault log"))
    }
}

/// The path of the probe file a killed or full build adds to the candidate (never written to the
/// project: it exists only in the build's own copy of the sources).
pub const FAULT_PROBE: &str = "ascend-tune-fault-probe.h";
/// Marks a kernel whose outputs `FaultyBackend` corrupts after its run.
const WRONG_MARKER: &str = "// ascend-tune injected fault: wrong";

/// The hostile copy of a candidate: `fault`'s code appended to its first kernel file. `sources` holds
/// the full text of every op source file.
pub fn hostile_sources(
    fault: Fault,
    op: &OpSpec,
    sources: &mut BTreeMap<String, String>,
) -> Option<()> {
    let file = op.kernel.first()?;
    let text = sources.get_mut(file)?;
    let body = match fault {
        // The pointer itself volatile: the compiler cannot see the null and drop the store as UB.
        Fault::Crash => "volatile int *volatile p = nullptr;\n    *p = 1;",
        // Asleep, not spinning: the machine is shared, and a hang is a hang to the timeout.
        Fault::Hang => "for (;;) {\n        sleep(1000);\n    }",
        // One 50 GB allocation: refused at once under the memory limit, and nothing is touched.
        Fault::Oom => {
            "volatile char *p = new char[50ull << 30];\n    p[0] = 1;\n    p[(50ull << 30) - 1] = 1;"
        }
        // A real bomb (2^10 processes unchecked); the no-fork filter stops it at the first fork.
        Fault::ForkBomb => {
            "for (int i = 0; i < 10; i++) {\n        if (fork() < 0) {\n            perror(\"fork\");\n            abort();\n        }\n    }"
        }
        Fault::Wrong => {
            text.push_str(&format!(
                "\n{WRONG_MARKER} (outputs corrupted after the run; `bench --inject-faults`)\n"
            ));
            return Some(());
        }
        Fault::BuildKill | Fault::DiskFull => return None,
    };
    text.push_str(&format!(
        "\n// ---- injected by `cargo ascend-tune bench --inject-faults` (fault `{}`) ----\n\
         #include <cstdio>\n#include <cstdlib>\n#include <new>\n#include <unistd.h>\n\
         namespace ascend_tune_injected_fault {{\n\
         static int fire()\n{{\n    {body}\n    return 0;\n}}\n\
         static const int fired = fire();\n}}\n",
        fault.name()
    ));
    Some(())
}

thread_local! {
    static ARMED: Cell<Option<Infra>> = const { Cell::new(None) };
    static FIRED: Cell<bool> = const { Cell::new(false) };
}

/// While the guard lives, `FaultyBackend` calls on this thread carry out `infra` (a journal-moment
/// disk-full fills the disk at once, for the journal write the caller makes).
pub fn arm(infra: Option<Infra>) -> Armed {
    ARMED.with(|a| a.set(infra));
    FIRED.with(|f| f.set(false));
    let disk = infra
        .filter(|i| i.moment == Moment::Journal)
        .map(|_| crate::fsx::inject::fill_disk());
    Armed { disk }
}

pub struct Armed {
    disk: Option<crate::fsx::inject::DiskFull>,
}

impl Armed {
    /// Whether the armed fault struck.
    pub fn fired(&self) -> bool {
        FIRED.with(|f| f.get()) || self.disk.as_ref().is_some_and(|d| d.refused() > 0)
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        ARMED.with(|a| a.set(None));
    }
}

/// A backend that carries out the faults armed on the calling thread and corrupts the outputs of
/// kernels marked `wrong`; otherwise exactly the backend it wraps.
pub struct FaultyBackend {
    inner: Arc<dyn Backend>,
    /// Artifacts built from kernels marked `wrong`.
    wrong: Mutex<HashSet<String>>,
}

impl FaultyBackend {
    pub fn new(inner: Arc<dyn Backend>) -> FaultyBackend {
        FaultyBackend {
            inner,
            wrong: Mutex::new(HashSet::new()),
        }
    }

    fn fired() {
        FIRED.with(|f| f.set(true));
    }
}

impl Backend for FaultyBackend {
    fn kind(&self) -> BackendKind {
        self.inner.kind()
    }

    fn soc(&self) -> &'static crate::model::soc::Soc {
        self.inner.soc()
    }

    fn fingerprint(&self) -> String {
        self.inner.fingerprint()
    }

    fn build(&self, op: &OpSpec, sources: &SourceSet) -> Result<Artifact, TrialFailure> {
        let armed = ARMED
            .with(|a| a.get())
            .filter(|i| i.moment == Moment::Build);
        let result = match armed {
            None => self.inner.build(op, sources),
            Some(infra) => {
                // A build no cache holds: the candidate plus an unused probe file.
                let mut probed = sources.clone();
                probed.overrides.insert(
                    FAULT_PROBE.to_string(),
                    format!(
                        "// fault probe {} (never included)\n",
                        crate::fsx::unique_suffix()
                    ),
                );
                let outcome = match infra.fault {
                    Fault::BuildKill => {
                        crate::child::inject::kill_next_tool(infra.after);
                        let r = self.inner.build(op, &probed);
                        if crate::child::inject::disarm() {
                            Self::fired();
                        }
                        r
                    }
                    _ => {
                        let full = crate::fsx::inject::fill_disk();
                        let r = self.inner.build(op, &probed);
                        if full.refused() > 0 {
                            Self::fired();
                        }
                        r
                    }
                };
                match outcome {
                    // The fault missed (the compile ended first): build the candidate as it is.
                    Ok(_) => self.inner.build(op, sources),
                    failed => failed,
                }
            }
        };
        if let Ok(a) = &result
            && sources.overrides.values().any(|t| t.contains(WRONG_MARKER))
        {
            self.wrong.lock().expect("wrong set").insert(a.key.clone());
        }
        result
    }

    fn run(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
        keep_trace: bool,
    ) -> Result<Measurement, TrialFailure> {
        let armed = ARMED.with(|a| a.get()).filter(|i| i.moment == Moment::Run);
        let mut result = match armed {
            Some(_) => {
                let full = crate::fsx::inject::fill_disk();
                let r = self.inner.run(op, artifact, inputs, keep_trace);
                if full.refused() > 0 {
                    Self::fired();
                }
                r
            }
            None => self.inner.run(op, artifact, inputs, keep_trace),
        };
        if self
            .wrong
            .lock()
            .expect("wrong set")
            .contains(&artifact.key)
            && let Ok(m) = &mut result
        {
            // Every bit of the first bytes of every output flipped: no tolerance covers that.
            for out in &mut m.outputs {
                out.iter_mut().take(64).for_each(|b| *b = !*b);
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_is_a_function_of_its_seed_and_strikes_about_its_rate() {
        let plan = FaultPlan::new(0.25, 7, FaultPlan::default_kinds()).unwrap();
        let again = FaultPlan::new(0.25, 7, FaultPlan::default_kinds()).unwrap();
        let other = FaultPlan::new(0.25, 8, FaultPlan::default_kinds()).unwrap();
        let plans: Vec<TrialPlan> = (0..2000).map(|i| plan.for_trial("add", i)).collect();
        let replay: Vec<TrialPlan> = (0..2000).map(|i| again.for_trial("add", i)).collect();
        let differ: Vec<TrialPlan> = (0..2000).map(|i| other.for_trial("add", i)).collect();
        assert_eq!(plans, replay);
        assert_ne!(plans, differ);
        let struck = plans
            .iter()
            .filter(|p| p.hostile.is_some() || p.attempts[0].is_some() || p.journal_full)
            .count();
        // 500 expected; a binomial with sd ~19 stays well inside this.
        assert!((420..=580).contains(&struck), "{struck} of 2000");
        for kind in FaultPlan::default_kinds() {
            let seen = plans
                .iter()
                .any(|p| p.hostile == Some(kind) || p.attempts[0].is_some_and(|i| i.fault == kind));
            assert!(seen, "{kind:?} never drawn");
        }
        // Retries are struck only behind a first-attempt fault, and only by machine faults.
        for p in &plans {
            if let Some(i) = p.attempts[1] {
                assert!(p.attempts[0].is_some());
                assert!(!i.fault.is_candidate() && i.moment != Moment::Journal);
            }
        }
    }

    #[test]
    fn bad_rates_and_kinds_are_refused_with_the_fix() {
        for rate in [0.0, -0.5, 1.5, f64::NAN] {
            let e = FaultPlan::new(rate, 0, vec![Fault::Crash]).err().unwrap();
            assert!(e.contains("(0, 1]"), "{e}");
        }
        assert!(FaultPlan::new(0.5, 0, vec![]).is_err());
        assert_eq!(Fault::parse("fork-bomb"), Some(Fault::ForkBomb));
        assert_eq!(Fault::parse("meteor"), None);
    }

    #[test]
    fn hostile_code_goes_at_the_end_of_the_first_kernel_file() {
        let op: OpSpec = crate::manifest::Manifest::load(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/add_custom/ascend.toml"),
        )
        .unwrap()
        .ops[0]
            .clone();
        let kernel = op.kernel[0].clone();
        let mut sources = BTreeMap::from([(kernel.clone(), "int k;\n".to_string())]);
        hostile_sources(Fault::Crash, &op, &mut sources).unwrap();
        let text = &sources[&kernel];
        assert!(text.starts_with("int k;\n"));
        assert!(text.contains("*p = 1;") && text.contains("static const int fired = fire();"));
        assert!(hostile_sources(Fault::DiskFull, &op, &mut sources).is_none());
    }
}
