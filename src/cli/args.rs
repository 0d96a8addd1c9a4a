//! The command line as clap types. The top-level parser is `cargo` with one subcommand, `ascend-tune`, so
//! `cargo ascend-tune ...` and `cargo-ascend-tune ascend-tune ...` parse the same (and `cli::main` adds the
//! word when the binary is run directly). Names and flags here are a contract (DESIGN.md): add, never rename.

use crate::report::MessageFormat;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(name = "cargo", bin_name = "cargo")]
pub enum Cargo {
    #[command(name = "ascend-tune", version, about = "Tune AscendC operators: host tiling search and kernel rewrites, on the CPU twin or real CANN", long_about = None)]
    AscendTune(TopArgs),
}

#[derive(Debug, Args)]
pub struct TopArgs {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Args)]
pub struct Common {
    /// Path to ascend.toml (default: found upward from the current directory)
    #[arg(long, global = true, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Backend that builds and measures: the CPU twin (modelled) or real CANN (measured)
    #[arg(long, global = true, value_enum)]
    pub backend: Option<BackendArg>,
    /// SoC to tune for, e.g. Ascend910B1 (default: the manifest's)
    #[arg(long, global = true, value_name = "SOC")]
    pub soc: Option<String>,
    /// Output format of results
    #[arg(long, global = true, value_enum, default_value = "human")]
    pub message_format: MessageFormat,
    /// No status lines or progress
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// More detail (each trial as it finishes)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// When to use colours
    #[arg(long, global = true, value_enum, default_value = "auto")]
    pub color: ColorArg,
    /// Where working files go, when not `target/ascend-tune/` of the project: set by `--workspace` runs
    /// to a folder under the cargo workspace's target directory, and passed to Slurm jobs so they use the
    /// folder the coordinating command reads. Hidden: not for users.
    #[arg(long, global = true, hide = true, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    Twin,
    Cann,
}

impl From<BackendArg> for crate::manifest::BackendKind {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Twin => crate::manifest::BackendKind::Twin,
            BackendArg::Cann => crate::manifest::BackendKind::Cann,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write an ascend.toml for the project in the current directory, with discovered ops and tunables
    Init(InitArgs),
    /// Build and run the current sources once; print latency, per-pipe utilisation and the bound
    Run(RunArgs),
    /// Tune, then write back the sources and ascend-tune.lock
    Tune(TuneArgs),
    /// Rebuild the current sources and compare their latency with ascend-tune.lock
    Check(CheckArgs),
    /// The experience bank: mine lessons by rewinding optimised kernels; list and show them
    Bank(BankArgs),
    /// Benchmark the tuner over a suite of operator projects (default: this repository's fixtures)
    Bench(BenchArgs),
    /// What the last tuning run of each op did: result, failures, rewrites, trials, convergence picture
    Report(ReportArgs),
    /// Write AscendTune.cmake into DIR: an `ascend_tune` target and an `ascend_tune_check` CTest test
    CmakeModule(CmakeModuleArgs),
    /// Write the twin package into DIR: a CANN-shaped folder whose tikicpulib is the twin, for
    /// kernel-launch projects built with -DRUN_MODE=cpu -DASCEND_CANN_PACKAGE_PATH=DIR
    TwinPackage(TwinPackageArgs),
    /// Time twin trace files (twin.trace of a program built against the twin package) with the
    /// performance model for --soc (else $ASCEND_TWIN_SOC, else Ascend910B1); modelled, not measured
    ModelTrace(ModelTraceArgs),
}

#[derive(Debug, Args)]
pub struct ModelTraceArgs {
    /// Trace files to model, each on its own
    #[arg(required = true, value_name = "TRACE")]
    pub traces: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct TwinPackageArgs {
    /// Folder to write the package into: new, empty, or an earlier twin package
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct CmakeModuleArgs {
    /// Folder to write AscendTune.cmake into (created if missing), e.g. cmake/
    pub dir: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Suite folders (each holding operator projects with ascend.toml, and reference/ where there is a
    /// hand-optimised version), or projects
    pub suite: Vec<PathBuf>,
    /// Noise floor of the tuning runs, in percent (default: each manifest's, else 2)
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub noise_floor: Option<f64>,
    /// Only these ops, comma separated
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub ops: Option<Vec<String>>,
    /// Trial budgets to compare, comma separated
    #[arg(
        long,
        value_name = "N[,N...]",
        value_delimiter = ',',
        default_value = "32"
    )]
    pub budget: Vec<usize>,
    /// Strategies to compare, comma separated
    #[arg(
        long,
        value_name = "S[,S...]",
        value_delimiter = ',',
        default_value = "host,random"
    )]
    pub strategies: Vec<String>,
    /// Kernel phase from a bank mined without the op's own reference
    #[arg(long)]
    pub leave_one_out: bool,
    /// Bank of lessons for the kernel phase (default: the built-in bank)
    #[arg(long, value_name = "FILE")]
    pub bank: Option<PathBuf>,
    /// Replace the table between `<!-- bench-table:start -->` and `<!-- bench-table:end -->` in FILE
    #[arg(long, value_name = "FILE")]
    pub update_readme: Option<PathBuf>,
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Output folder (default: target/ascend-tune/bench/)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The soak test: after each tuning run, run it again on a copy with faults injected into this
    /// fraction of its trials, and report faults injected, survived and results lost
    #[arg(long, value_name = "RATE")]
    pub inject_faults: Option<f64>,
    /// Seed of the fault plan (default: --seed)
    #[arg(long, value_name = "N")]
    pub fault_seed: Option<u64>,
    /// Fault kinds to inject, comma separated: crash, hang, oom, fork-bomb, wrong, build-kill,
    /// disk-full (default: all this machine can take)
    #[arg(long, value_name = "KINDS", value_delimiter = ',')]
    pub faults: Option<Vec<String>>,
    /// Where each op is benchmarked: here, or one Slurm job per op (default: local; `[project] executor`
    /// of the suite's manifests when they all say slurm)
    #[arg(long, value_enum)]
    pub executor: Option<ExecutorArg>,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Shape of a tensor to tune for, e.g. --shape x=48x16384 (repeatable; default 48x16384)
    #[arg(long, value_name = "NAME=DIMS")]
    pub shape: Vec<String>,
    /// Replace an existing ascend.toml
    #[arg(long)]
    pub force: bool,
    /// Keep the existing ascend.toml and rewrite only its tunables ([[op.tunable]] tables)
    #[arg(long)]
    pub tunables_only: bool,
    /// Do not build and run the op to leave out tunables whose change leaves the run unchanged
    #[arg(long)]
    pub no_probe: bool,
    /// Stop probing an op's tunables after this many seconds; those not probed yet are kept, and init
    /// says which
    #[arg(long, value_name = "SECONDS", default_value_t = 180)]
    pub probe_seconds: u64,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Only this op (default: every op in the manifest)
    #[arg(long, value_name = "NAME")]
    pub op: Option<String>,
    /// Write a Chrome/Perfetto trace of the modelled pipelines to FILE
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct TuneArgs {
    #[arg(long, value_name = "NAME")]
    pub op: Option<String>,
    /// Trials to run per op (default: the manifest's, else 32)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub budget: Option<u32>,
    /// Search strategy
    #[arg(long, value_parser = crate::search::STRATEGY_NAMES.to_vec())]
    pub strategy: Option<String>,
    /// Seed of the search: the same seed gives the same trials on the twin
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Candidates built and run at once (default: the number of CPUs)
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: Option<u32>,
    /// Stop starting new trials after this much wall time, e.g. 90s, 20m, 2h
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub time_limit: Option<std::time::Duration>,
    /// Write nothing; print the diff the tuning would apply
    #[arg(long)]
    pub dry_run: bool,
    /// Overwrite sources even when they have uncommitted changes
    #[arg(long)]
    pub allow_dirty: bool,
    /// Write sources even when the project is not under version control
    #[arg(long)]
    pub allow_no_vcs: bool,
    /// Host search only: no kernel rewrites
    #[arg(long)]
    pub no_rewrite: bool,
    /// Tune every member of the cargo workspace that holds an ascend.toml; working files go under the
    /// workspace's target directory
    #[arg(long)]
    pub workspace: bool,
    /// Bank of lessons for kernel rewrites (default: the built-in bank plus the project's ascend-bank.toml)
    #[arg(long, value_name = "FILE")]
    pub bank: Option<PathBuf>,
    /// Where each op is tuned: here, or one Slurm job per op (default: the manifest's `[project] executor`,
    /// else local)
    #[arg(long, value_enum)]
    pub executor: Option<ExecutorArg>,
    /// Search and journal the trials only: no write-back, no lockfile, no project lock (what a Slurm job
    /// of `--executor slurm` runs; the coordinating command finishes the op from the journal). Hidden.
    #[arg(long, hide = true)]
    pub search_only: bool,
    /// Write back only a change faster than the sources by more than this, in percent (default: the
    /// manifest's noise-floor, else 2, check's tolerance)
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub noise_floor: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExecutorArg {
    Local,
    Slurm,
}

impl From<ExecutorArg> for crate::manifest::ExecutorKind {
    fn from(e: ExecutorArg) -> Self {
        match e {
            ExecutorArg::Local => Self::Local,
            ExecutorArg::Slurm => Self::Slurm,
        }
    }
}

fn parse_percent(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..100.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` is not a percentage in [0, 100); for example --noise-floor 2"
        )),
    }
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Only this op (default: every op in the manifest)
    #[arg(long, value_name = "NAME")]
    pub op: Option<String>,
    /// Output folder (default: target/ascend-tune/report/)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BankArgs {
    #[command(subcommand)]
    pub action: BankAction,
}

#[derive(Debug, Subcommand)]
pub enum BankAction {
    /// Rewind each motif on optimised kernels, measure the loss, and keep the losses above a threshold
    /// as lessons (projects with a reference/ folder are mined from it)
    Mine(BankMineArgs),
    /// One line per lesson: index, motif, op, gain, bound before and after
    List(BankListArgs),
    /// A lesson in full (by index from `bank list`), or every lesson of a motif (by name)
    Show(BankShowArgs),
    /// The motif catalogue: what each rewrite does and when it preserves meaning
    Motifs,
    /// Where each motif would apply and rewind in the kernels of operator projects (and the op_kernel/
    /// headers they include), without building anything
    Sites(BankSitesArgs),
}

#[derive(Debug, Args)]
pub struct BankSitesArgs {
    /// Operator projects, or folders holding them (default: the current project)
    pub projects: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BankMineArgs {
    /// Operator projects, or folders holding them (default: the current project)
    pub projects: Vec<PathBuf>,
    /// Bank file to write; lessons of re-mined ops replace the old ones (default: ./ascend-bank.toml)
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Smallest slowdown a rewind must cause to become a lesson, in percent
    #[arg(long, value_name = "PCT", default_value_t = 2.0)]
    pub threshold: f64,
    /// Only these ops, comma separated
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub ops: Option<Vec<String>>,
    /// Only these motifs, comma separated
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub motifs: Option<Vec<String>>,
}

#[derive(Debug, Args)]
pub struct BankListArgs {
    /// Bank file (default: the built-in bank plus ./ascend-bank.toml if present)
    #[arg(long, value_name = "FILE")]
    pub bank: Option<PathBuf>,
    /// Only lessons of this motif
    #[arg(long)]
    pub motif: Option<String>,
    /// Only lessons mined from this op
    #[arg(long)]
    pub op: Option<String>,
}

#[derive(Debug, Args)]
pub struct BankShowArgs {
    /// A lesson index from `bank list`, or a motif name
    pub lesson: String,
    /// Bank file (default: the built-in bank plus ./ascend-bank.toml if present)
    #[arg(long, value_name = "FILE")]
    pub bank: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[arg(long, value_name = "NAME")]
    pub op: Option<String>,
    /// Allowed slowdown over the locked latency, in percent
    #[arg(long, value_name = "PCT", default_value_t = 2.0)]
    pub tolerance: f64,
    /// Fail when the lockfile is stale (sources changed since it was written) or has no entry for an op
    #[arg(long)]
    pub locked: bool,
    /// Also write a JUnit XML report to FILE: one test case per op
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Check every member of the cargo workspace that holds an ascend.toml
    #[arg(long)]
    pub workspace: bool,
}

/// `90`, `90s`, `20m` or `2h`.
fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let (num, unit) = s.trim().split_at(
        s.trim()
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(s.trim().len()),
    );
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration; write e.g. 90s, 20m or 2h"))?;
    let seconds = match unit {
        "" | "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("unknown unit in `{s}`; use s, m or h")),
    };
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(format!("`{s}` must be a positive duration"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}
