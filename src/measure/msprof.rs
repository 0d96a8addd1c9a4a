//! The msProf operator profiler: the command line of `msprof op` (or `msopprof`, its newer name with the
//! same interface, or `msprof op simulator`) and the reading of the folders it writes.
//!
//! What msprof writes (CANN "msProf" tool pages, e.g. hiascend.com canncommercial 8.0.0 `atlasopdev_16_0081`
//! and the PipeUtilization field table `atlasopdev_16_0099`; FACTS.md §6): an `OPPROF_<timestamp>_<id>/`
//! folder holding `OpBasicInfo.csv`, `PipeUtilization.csv` and other metric files for a single-op run;
//! for several ops or launches, one folder per launch nested as `<OpName>/<launch idx>/` (with a
//! timestamp suffix in the file names, `OpBasicInfo_20240603022812284.csv`), itself under `device<N>/`
//! when several devices ran. The simulator writes `simulator/core<i>.veccore<j>/` (or `.cubecore<j>`)
//! folders with `*_code_exe*.csv` and `*_instr_exe*.csv` per core.
//!
//! Files are found by glob and columns by name, compared case-insensitively with spaces and underscores
//! ignored; cells are trimmed; rows may end with a comma; quoted fields, CRLF line ends and a UTF-8 BOM are
//! accepted; `N/A` and empty cells of optional columns count as absent. Malformed input is an
//! `MsprofError` naming the file, the 1-based row (the header is row 1) and the column. Everything is read
//! from memory (`read_files`), so fuzzing needs no disk; `read_run` only gathers the files.
//!
//! Knows nothing of building, running, backends or lockfiles.

use crate::model::trace::Pipe;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Component, Path, PathBuf};

// ---------------------------------------------------------------------------------------------------
// The command line

/// Which executable runs the profiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `msprof op ...` (the msprof front end with its `op` mode).
    Msprof,
    /// `msopprof ...`: the same interface under the name newer CANN packages ship.
    Msopprof,
}

/// How to profile one program run.
#[derive(Debug, Clone, PartialEq)]
pub struct MsprofOptions {
    pub tool: Tool,
    /// `Some(soc)` runs the instruction-level simulator for that SoC (`--soc-version`) instead of the
    /// device.
    pub simulator: Option<String>,
    /// Where msprof creates its `OPPROF_*` folder (`--output`).
    pub output: PathBuf,
    /// Launches run before the measured ones (`--warm-up`; device runs only).
    pub warm_up: u32,
    /// Launches measured (`--launch-count`): one sample each.
    pub launch_count: u32,
    /// Only kernels whose name contains this are profiled (`--kernel-name`); empty profiles every kernel.
    pub kernel_name: String,
}

/// The argv (program first) that profiles `app` (the program and its arguments):
/// `msprof op --output=DIR --warm-up=N --launch-count=N --kernel-name=K app...`, or for the simulator
/// `msprof op simulator --soc-version=SOC --output=DIR --launch-count=N --kernel-name=K app...` (no
/// warm-up: a simulation has no caches to warm). `msopprof` takes the same options without the `op`.
/// The default metric set (`--aic-metrics` left out) includes PipeUtilization.
pub fn op_command(opts: &MsprofOptions, app: &[OsString]) -> Vec<OsString> {
    let mut argv: Vec<OsString> = match opts.tool {
        Tool::Msprof => vec!["msprof".into(), "op".into()],
        Tool::Msopprof => vec!["msopprof".into()],
    };
    if let Some(soc) = &opts.simulator {
        argv.push("simulator".into());
        argv.push(format!("--soc-version={soc}").into());
    }
    let mut output = OsString::from("--output=");
    output.push(opts.output.as_os_str());
    argv.push(output);
    if opts.simulator.is_none() {
        argv.push(format!("--warm-up={}", opts.warm_up).into());
    }
    argv.push(format!("--launch-count={}", opts.launch_count).into());
    if !opts.kernel_name.is_empty() {
        argv.push(format!("--kernel-name={}", opts.kernel_name).into());
    }
    argv.extend(app.iter().cloned());
    argv
}

// ---------------------------------------------------------------------------------------------------
// Errors

/// What went wrong, for callers that branch on it; the message says it to people.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A file or folder could not be read.
    Io,
    /// No `OpBasicInfo*.csv` (or, for the simulator, no `*_code_exe*.csv`) anywhere in the folder.
    NoOutput,
    /// Two files of one kind in one launch folder: which one is this launch's is unknown.
    Duplicate,
    /// A file with nothing in it.
    Empty,
    /// A header and no data row.
    NoRows,
    /// A column the reader needs is not in the header.
    MissingColumn,
    /// A cell that is not what its column holds (or a row that ends before it).
    BadCell,
}

/// Malformed profiler output: the file, the 1-based row (the header is row 1) and the column when known.
#[derive(Debug, Clone, PartialEq)]
pub struct MsprofError {
    pub kind: ErrorKind,
    pub file: PathBuf,
    pub row: Option<u64>,
    pub column: Option<String>,
    pub message: String,
    pub help: Option<String>,
}

impl fmt::Display for MsprofError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(row) = self.row {
            write!(f, ": row {row}")?;
        }
        if let Some(c) = &self.column {
            write!(f, ", column `{c}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for MsprofError {}

impl miette::Diagnostic for MsprofError {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
}

const RERUN: &str = "msprof stopped before it finished writing; profile the run again";

impl MsprofError {
    fn new(kind: ErrorKind, file: &Path, message: impl Into<String>) -> Self {
        MsprofError {
            kind,
            file: file.to_path_buf(),
            row: None,
            column: None,
            message: message.into(),
            help: None,
        }
    }
    fn at(mut self, row: u64) -> Self {
        self.row = Some(row);
        self
    }
    fn column(mut self, c: &str) -> Self {
        self.column = Some(c.to_string());
        self
    }
    fn help(mut self, h: impl Into<String>) -> Self {
        self.help = Some(h.into());
        self
    }
}

// ---------------------------------------------------------------------------------------------------
// What a run holds

/// One launch of one kernel, from a row of `OpBasicInfo*.csv` and the `PipeUtilization*.csv` beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct OpLaunch {
    pub op_name: String,
    /// As msprof writes it: `vector`, `cube` or `mix` (or what an older version calls them).
    pub op_type: String,
    pub task_duration_us: f64,
    pub block_dim: u32,
    /// Absent on SoCs without split cube and vector cores (310P), or written as N/A.
    pub mix_block_dim: Option<u32>,
    /// From the `Device Id` column, else from a `device<N>` folder above the launch.
    pub device_id: Option<u32>,
    pub pipes: Option<PipeUtilisation>,
    /// The `<launch idx>` folder of a nested layout; `None` for a single-op folder.
    pub launch_index: Option<u32>,
    /// The `OpBasicInfo*.csv` the launch was read from.
    pub source: PathBuf,
}

/// `PipeUtilization*.csv`'s per-block rows reduced to one time ratio per pipe: the pipe's time summed
/// over the blocks over the core's time summed over them (so long blocks weigh more). Blocks whose
/// core time is 0 or N/A (vector rows of a cube column, and the reverse) do not count.
#[derive(Debug, Clone, PartialEq)]
pub struct PipeUtilisation {
    /// Data rows read (one per block or sub-block).
    pub blocks: usize,
    /// Pipes with data, in `Pipe::ALL` order.
    pub pipes: Vec<PipeShare>,
    pub source: PathBuf,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PipeShare {
    pub pipe: Pipe,
    /// Busy time over core time, 0..1 (a profiler's rounding may put it a little over 1).
    pub ratio: f64,
    /// Mean busy time per counted block; `None` when the file gives ratios without times.
    pub busy_us: Option<f64>,
    /// The ratio column read, lower case as the 910B field table names it, e.g. `aiv_mte2_ratio`.
    pub column: &'static str,
}

impl PipeUtilisation {
    pub fn ratio(&self, pipe: Pipe) -> Option<f64> {
        self.pipes.iter().find(|p| p.pipe == pipe).map(|p| p.ratio)
    }
}

/// The task durations (us) of the launches of `kernel` (all launches when it is empty), in launch
/// order: the samples of one measurement. A name matches exactly or as msprof's `--kernel-name` filter
/// does, by containment.
pub fn task_durations(launches: &[OpLaunch], kernel: &str) -> Vec<f64> {
    launches
        .iter()
        .filter(|l| kernel.is_empty() || l.op_name.contains(kernel))
        .map(|l| l.task_duration_us)
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// Reading a run

/// True when `name` matches the glob `<prefix>*.csv`, ignoring case.
fn glob_prefix(name: &str, prefix: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.starts_with(&prefix.to_ascii_lowercase()) && n.ends_with(".csv")
}

/// True when `name` matches `*<infix>*.csv`, ignoring case.
fn glob_infix(name: &str, infix: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.ends_with(".csv") && n[..n.len() - 4].contains(infix)
}

fn is_op_basic_info(name: &str) -> bool {
    glob_prefix(name, "OpBasicInfo")
}
fn is_pipe_utilization(name: &str) -> bool {
    glob_prefix(name, "PipeUtilization")
}
fn is_code_exe(name: &str) -> bool {
    glob_infix(name, "_code_exe")
}
fn is_instr_exe(name: &str) -> bool {
    glob_infix(name, "_instr_exe")
}

/// Reads every file under `dir` that `keep` accepts by name, as (path relative to `dir`, bytes).
/// Symbolic links are not followed; the depth is bounded (the deepest layout is
/// `OPPROF_*/device<N>/<OpName>/<idx>/file`, under at most one folder of runs).
fn gather(dir: &Path, keep: fn(&str) -> bool) -> Result<Vec<(PathBuf, Vec<u8>)>, MsprofError> {
    if !dir.is_dir() {
        return Err(
            MsprofError::new(ErrorKind::Io, dir, "not a folder (or it cannot be read)").help(
                "point at the OPPROF_* folder msprof wrote, or the --output folder holding it",
            ),
        );
    }
    let mut files = vec![];
    for entry in walkdir::WalkDir::new(dir).max_depth(8).follow_links(false) {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(dir).to_path_buf();
            MsprofError::new(ErrorKind::Io, &path, format!("cannot be read: {e}"))
        })?;
        if !entry.file_type().is_file() || !keep(&entry.file_name().to_string_lossy()) {
            continue;
        }
        let bytes = std::fs::read(entry.path()).map_err(|e| {
            MsprofError::new(ErrorKind::Io, entry.path(), format!("cannot be read: {e}"))
        })?;
        let rel = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .to_path_buf();
        files.push((rel, bytes));
    }
    Ok(files)
}

/// Reads an msprof op output folder: an `OPPROF_*` folder, a folder holding several of them, or any
/// folder of the nested layouts. One `OpLaunch` per data row of every `OpBasicInfo*.csv`, in path order
/// (numbers in folder names compared as numbers, so launch 10 follows launch 9).
pub fn read_run(dir: &Path) -> Result<Vec<OpLaunch>, MsprofError> {
    let files = gather(dir, |n| is_op_basic_info(n) || is_pipe_utilization(n))?;
    read_files(dir, &files)
}

/// `read_run` on files already in memory: `(path relative to root, contents)`. Files other than
/// `OpBasicInfo*.csv` and `PipeUtilization*.csv` are ignored. Messages name `root` joined with the path.
pub fn read_files(root: &Path, files: &[(PathBuf, Vec<u8>)]) -> Result<Vec<OpLaunch>, MsprofError> {
    // Launch folders: the folders holding an OpBasicInfo, each with its PipeUtilization if any.
    let mut folders: BTreeMap<FolderKey, (Option<usize>, Option<usize>)> = BTreeMap::new();
    for (i, (path, _)) in files.iter().enumerate() {
        let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else {
            continue;
        };
        let slot = if is_op_basic_info(&name) {
            0
        } else if is_pipe_utilization(&name) {
            1
        } else {
            continue;
        };
        let key = FolderKey::of(path.parent().unwrap_or(Path::new("")));
        let entry = folders.entry(key).or_default();
        let place = if slot == 0 {
            &mut entry.0
        } else {
            &mut entry.1
        };
        if let Some(other) = *place {
            let (a, b) = sorted_pair(&files[other].0, path);
            return Err(MsprofError::new(
                ErrorKind::Duplicate,
                &root.join(b),
                format!(
                    "a second {} file in one launch folder (the first is {})",
                    if slot == 0 { "OpBasicInfo" } else { "PipeUtilization" },
                    a.file_name().unwrap_or_default().to_string_lossy()
                ),
            )
            .help("each launch folder holds one run's files; remove the stray copy or profile into an empty --output folder"));
        }
        *place = Some(i);
    }
    let mut launches = vec![];
    for (folder, (info, pipes)) in &folders {
        let Some(info) = *info else { continue };
        let (path, bytes) = &files[info];
        let file = root.join(path);
        let rows = read_op_basic_info(&file, bytes)?;
        let pipes = match pipes {
            Some(p) => {
                let (ppath, pbytes) = &files[*p];
                Some(read_pipe_utilization(&root.join(ppath), pbytes)?)
            }
            None => None,
        };
        let nested_index = launch_index(&folder.1);
        let folder_device = device_of(&folder.1);
        let single = rows.len() == 1;
        for row in rows {
            launches.push(OpLaunch {
                op_name: row.op_name,
                op_type: row.op_type,
                task_duration_us: row.task_duration_us,
                block_dim: row.block_dim,
                mix_block_dim: row.mix_block_dim,
                device_id: row.device_id.or(folder_device),
                // A PipeUtilization belongs to the folder's launch; with several rows, to none of them.
                pipes: if single { pipes.clone() } else { None },
                launch_index: nested_index,
                source: file.clone(),
            });
        }
    }
    if launches.is_empty() {
        return Err(MsprofError::new(
            ErrorKind::NoOutput,
            root,
            "no OpBasicInfo*.csv in this folder or below it",
        )
        .help("point at the OPPROF_* folder `msprof op` wrote (or the --output folder holding it); without an OpBasicInfo the run did not profile any kernel, so check that --kernel-name matches the kernel"));
    }
    Ok(launches)
}

fn sorted_pair<'a>(a: &'a Path, b: &'a Path) -> (&'a Path, &'a Path) {
    if FolderKey::of(a) > FolderKey::of(b) {
        (b, a)
    } else {
        (a, b)
    }
}

/// A run of a path component: digits compare as numbers (`device2` before `device10`), the rest as
/// bytes. Derived orders only, so the key is a total order whatever the names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Token {
    /// Digits without leading zeros, by length then value; then the raw digits (`01` before `1`).
    Num(usize, Vec<u8>, Vec<u8>),
    Text(Vec<u8>),
}

fn tokens(s: &str) -> Vec<Token> {
    let b = s.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        let digit = b[i].is_ascii_digit();
        let n = b[i..]
            .iter()
            .take_while(|c| c.is_ascii_digit() == digit)
            .count();
        let run = &b[i..i + n];
        out.push(if digit {
            let z = run.iter().take_while(|c| **c == b'0').count();
            Token::Num(n - z, run[z..].to_vec(), run.to_vec())
        } else {
            Token::Text(run.to_vec())
        });
        i += n;
    }
    out
}

/// A folder path ordered component by component in natural order, then by its raw form.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct FolderKey(Vec<Vec<Token>>, PathBuf);

impl FolderKey {
    fn of(p: &Path) -> FolderKey {
        FolderKey(
            p.components()
                .map(|c| tokens(&c.as_os_str().to_string_lossy()))
                .collect(),
            p.to_path_buf(),
        )
    }
}

/// The launch index of a nested layout's `<OpName>/<idx>` folder.
fn launch_index(folder: &Path) -> Option<u32> {
    let mut parts = folder.components().rev();
    let last = parts.next()?;
    parts.next()?;
    match last {
        Component::Normal(s) => s.to_str()?.parse().ok(),
        _ => None,
    }
}

/// The `N` of the nearest `device<N>` folder above a launch.
fn device_of(folder: &Path) -> Option<u32> {
    folder.components().rev().find_map(|c| {
        let s = c.as_os_str().to_str()?;
        let rest = s
            .get(..6)?
            .eq_ignore_ascii_case("device")
            .then(|| &s[6..])?;
        let rest = rest.strip_prefix('_').unwrap_or(rest);
        rest.parse().ok()
    })
}

// ---------------------------------------------------------------------------------------------------
// OpBasicInfo

struct BasicRow {
    op_name: String,
    op_type: String,
    task_duration_us: f64,
    block_dim: u32,
    mix_block_dim: Option<u32>,
    device_id: Option<u32>,
}

fn read_op_basic_info(file: &Path, bytes: &[u8]) -> Result<Vec<BasicRow>, MsprofError> {
    let t = Table::parse(file, bytes)?;
    let name = t.require("Op Name")?;
    let ty = t.require("Op Type")?;
    let duration = t.require("Task Duration(us)")?;
    let block = t.require("Block Dim")?;
    let mix = t.column("Mix Block Dim");
    let device = t.column("Device Id");
    t.rows
        .iter()
        .map(|r| {
            Ok(BasicRow {
                op_name: t.text(r, name)?.to_string(),
                op_type: t.text(r, ty)?.to_string(),
                task_duration_us: t.duration(r, duration)?,
                block_dim: t.count(r, block, 1)?,
                mix_block_dim: mix.map(|c| t.optional_count(r, c)).transpose()?.flatten(),
                device_id: device
                    .map(|c| t.optional_count(r, c))
                    .transpose()?
                    .flatten(),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// PipeUtilization

/// Where one pipe's figures may be: ratio column, busy-time column, and the core-time column both are
/// relative to. Tried in order; the first with data wins (vector-core columns before cube-core ones,
/// and the 910B names before the unprefixed ones of SoCs without split cores).
struct PipeSource {
    pipe: Pipe,
    ratio: &'static str,
    time: &'static str,
    core_time: &'static str,
}

const fn src(
    pipe: Pipe,
    ratio: &'static str,
    time: &'static str,
    core_time: &'static str,
) -> PipeSource {
    PipeSource {
        pipe,
        ratio,
        time,
        core_time,
    }
}

const AIV: &str = "aiv_time(us)";
const AIC: &str = "aic_time(us)";
/// The core time of SoCs whose rows have no aic_/aiv_ prefix (310P); inferred, not from a field table.
const CORE: &str = "aicore_time(us)";

const PIPE_SOURCES: &[PipeSource] = &[
    src(Pipe::Mte2, "aiv_mte2_ratio", "aiv_mte2_time(us)", AIV),
    src(Pipe::Mte2, "aic_mte2_ratio", "aic_mte2_time(us)", AIC),
    src(Pipe::Mte2, "mte2_ratio", "mte2_time(us)", CORE),
    src(Pipe::Mte3, "aiv_mte3_ratio", "aiv_mte3_time(us)", AIV),
    src(Pipe::Mte3, "aic_mte3_ratio", "aic_mte3_time(us)", AIC),
    src(Pipe::Mte3, "mte3_ratio", "mte3_time(us)", CORE),
    src(Pipe::V, "aiv_vec_ratio", "aiv_vec_time(us)", AIV),
    src(Pipe::V, "vec_ratio", "vec_time(us)", CORE),
    src(Pipe::S, "aiv_scalar_ratio", "aiv_scalar_time(us)", AIV),
    src(Pipe::S, "aic_scalar_ratio", "aic_scalar_time(us)", AIC),
    src(Pipe::S, "scalar_ratio", "scalar_time(us)", CORE),
    src(Pipe::Mte1, "aic_mte1_ratio", "aic_mte1_time(us)", AIC),
    src(Pipe::Mte1, "mte1_ratio", "mte1_time(us)", CORE),
    src(Pipe::M, "aic_cube_ratio", "aic_cube_time(us)", AIC),
    src(Pipe::M, "aic_mac_ratio", "aic_mac_time(us)", AIC),
    src(Pipe::M, "cube_ratio", "cube_time(us)", CORE),
    src(Pipe::M, "mac_ratio", "mac_time(us)", CORE),
    src(Pipe::Fix, "aic_fixpipe_ratio", "aic_fixpipe_time(us)", AIC),
    src(Pipe::Fix, "fixpipe_ratio", "fixpipe_time(us)", CORE),
];

fn read_pipe_utilization(file: &Path, bytes: &[u8]) -> Result<PipeUtilisation, MsprofError> {
    let t = Table::parse(file, bytes)?;
    if !PIPE_SOURCES
        .iter()
        .any(|s| t.column(s.ratio).is_some() || t.column(s.time).is_some())
    {
        return Err(MsprofError::new(
            ErrorKind::MissingColumn,
            file,
            "no pipe column in the header (looked for aiv_vec_ratio, aiv_mte2_ratio, aic_cube_ratio, vec_ratio, mte2_ratio and the like)",
        )
        .at(1)
        .help(format!("the header has: {}", t.header_list())));
    }
    let mut pipes = vec![];
    for pipe in Pipe::ALL {
        for s in PIPE_SOURCES.iter().filter(|s| s.pipe == pipe) {
            if let Some(share) = pipe_share(&t, s)? {
                pipes.push(share);
                break;
            }
        }
    }
    Ok(PipeUtilisation {
        blocks: t.rows.len(),
        pipes,
        source: file.to_path_buf(),
    })
}

/// One pipe's share from one source, or `None` when no row has data for it.
fn pipe_share(t: &Table, s: &PipeSource) -> Result<Option<PipeShare>, MsprofError> {
    let (ratio, time, core) = (t.column(s.ratio), t.column(s.time), t.column(s.core_time));
    if ratio.is_none() && time.is_none() {
        return Ok(None);
    }
    let (mut busy, mut total, mut counted) = (0.0, 0.0, 0usize);
    let (mut ratio_sum, mut ratio_rows) = (0.0, 0usize);
    for r in &t.rows {
        let core_t = core.map(|c| t.optional_number(r, c)).transpose()?.flatten();
        let pipe_t = time.map(|c| t.optional_number(r, c)).transpose()?.flatten();
        let rat = ratio
            .map(|c| t.optional_number(r, c))
            .transpose()?
            .flatten();
        match (core_t, pipe_t, rat) {
            (Some(c), _, _) if c <= 0.0 => {}
            (Some(c), Some(p), _) => {
                busy += p;
                total += c;
                counted += 1;
            }
            (Some(c), None, Some(q)) => {
                busy += q * c;
                total += c;
                counted += 1;
            }
            (None, _, Some(q)) => {
                ratio_sum += q;
                ratio_rows += 1;
            }
            _ => {}
        }
    }
    Ok(if total > 0.0 {
        Some(PipeShare {
            pipe: s.pipe,
            ratio: busy / total,
            busy_us: Some(busy / counted as f64),
            column: s.ratio,
        })
    } else if ratio_rows > 0 {
        Some(PipeShare {
            pipe: s.pipe,
            ratio: ratio_sum / ratio_rows as f64,
            busy_us: None,
            column: s.ratio,
        })
    } else {
        None
    })
}

// ---------------------------------------------------------------------------------------------------
// The simulator

/// One core of a simulator run (`core0.veccore1`, `core2.cubecore0`, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct SimCore {
    pub core: String,
    /// The folder of its files, relative to the root read.
    pub folder: PathBuf,
    pub code: Vec<CodeLine>,
    pub instrs: Vec<InstrLine>,
}

/// A row of `*_code_exe*.csv`: the time spent on one source line.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeLine {
    /// `file:line`.
    pub code: String,
    pub call_count: u64,
    pub cycles: u64,
    pub running_time_us: f64,
}

/// A row of `*_instr_exe*.csv`: the time spent on one instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct InstrLine {
    pub instr: String,
    pub addr: Option<String>,
    /// The pipe as the simulator names it (`VECTOR`, `MTE2`, `SCALAR`, ...).
    pub pipe: String,
    pub call_count: u64,
    pub cycles: u64,
    pub running_time_us: f64,
    pub detail: Option<String>,
}

impl SimCore {
    /// The core's running time: the sum over its source lines (over its instructions when it has no
    /// code file).
    pub fn running_time_us(&self) -> f64 {
        if self.code.is_empty() {
            self.instrs.iter().map(|i| i.running_time_us).sum()
        } else {
            self.code.iter().map(|c| c.running_time_us).sum()
        }
    }

    /// Running time per pipe, from the instruction file.
    pub fn pipe_time_us(&self) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::new();
        for i in &self.instrs {
            *m.entry(i.pipe.clone()).or_insert(0.0) += i.running_time_us;
        }
        m
    }
}

/// Reads a simulator output folder (`msprof op simulator`): one `SimCore` per core folder holding a
/// `*_code_exe*.csv` or `*_instr_exe*.csv`, in folder order.
pub fn read_simulator(dir: &Path) -> Result<Vec<SimCore>, MsprofError> {
    let files = gather(dir, |n| is_code_exe(n) || is_instr_exe(n))?;
    read_simulator_files(dir, &files)
}

/// `read_simulator` on files in memory, as `read_files`.
pub fn read_simulator_files(
    root: &Path,
    files: &[(PathBuf, Vec<u8>)],
) -> Result<Vec<SimCore>, MsprofError> {
    // By (folder, core name): the name is the file name before `_code_exe` / `_instr_exe`.
    let mut cores: BTreeMap<(FolderKey, String), (Option<usize>, Option<usize>)> = BTreeMap::new();
    for (i, (path, _)) in files.iter().enumerate() {
        let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let lower = name.to_ascii_lowercase();
        let (slot, cut) = if is_code_exe(&name) {
            (0, lower.find("_code_exe"))
        } else if is_instr_exe(&name) {
            (1, lower.find("_instr_exe"))
        } else {
            continue;
        };
        let core = name[..cut.unwrap_or(0)].to_string();
        let folder = FolderKey::of(path.parent().unwrap_or(Path::new("")));
        let entry = cores.entry((folder, core)).or_default();
        let place = if slot == 0 {
            &mut entry.0
        } else {
            &mut entry.1
        };
        if let Some(other) = *place {
            let (a, b) = sorted_pair(&files[other].0, path);
            return Err(MsprofError::new(
                ErrorKind::Duplicate,
                &root.join(b),
                format!(
                    "a second {} file for this core (the first is {})",
                    if slot == 0 { "code_exe" } else { "instr_exe" },
                    a.file_name().unwrap_or_default().to_string_lossy()
                ),
            ));
        }
        *place = Some(i);
    }
    let mut out = vec![];
    for ((folder, core), (code, instr)) in cores {
        let code = match code {
            Some(i) => read_code_exe(&root.join(&files[i].0), &files[i].1)?,
            None => vec![],
        };
        let instrs = match instr {
            Some(i) => read_instr_exe(&root.join(&files[i].0), &files[i].1)?,
            None => vec![],
        };
        out.push(SimCore {
            core,
            folder: folder.1,
            code,
            instrs,
        });
    }
    if out.is_empty() {
        return Err(MsprofError::new(
            ErrorKind::NoOutput,
            root,
            "no *_code_exe*.csv or *_instr_exe*.csv in this folder or below it",
        )
        .help("point at the OPPROF_* folder `msprof op simulator` wrote; its simulator/core*/ folders hold these files"));
    }
    Ok(out)
}

fn read_code_exe(file: &Path, bytes: &[u8]) -> Result<Vec<CodeLine>, MsprofError> {
    let t = Table::parse(file, bytes)?;
    let code = t.require("code")?;
    let calls = t.require("call_count")?;
    let cycles = t.require("cycles")?;
    let time = t.require("running_time(us)")?;
    t.rows
        .iter()
        .map(|r| {
            Ok(CodeLine {
                code: t.text(r, code)?.to_string(),
                call_count: t.big_count(r, calls)?,
                cycles: t.big_count(r, cycles)?,
                running_time_us: t.duration(r, time)?,
            })
        })
        .collect()
}

fn read_instr_exe(file: &Path, bytes: &[u8]) -> Result<Vec<InstrLine>, MsprofError> {
    let t = Table::parse(file, bytes)?;
    let instr = t.require("instr")?;
    let pipe = t.require("pipe")?;
    let calls = t.require("call_count")?;
    let cycles = t.require("cycles")?;
    let time = t.require("running_time(us)")?;
    let addr = t.column("addr");
    let detail = t.column("detail");
    let opt = |r: &Row, c: Option<usize>| {
        c.and_then(|c| r.cells.get(c))
            .filter(|v| !is_absent(v))
            .cloned()
    };
    t.rows
        .iter()
        .map(|r| {
            Ok(InstrLine {
                instr: t.text(r, instr)?.to_string(),
                addr: opt(r, addr),
                pipe: t.text(r, pipe)?.to_string(),
                call_count: t.big_count(r, calls)?,
                cycles: t.big_count(r, cycles)?,
                running_time_us: t.duration(r, time)?,
                detail: opt(r, detail),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// CSV tables

struct Row {
    /// 1-based line where the record starts (the header is line 1 of a file without blank lines).
    line: u64,
    cells: Vec<String>,
}

/// A CSV file read with its header: cells trimmed, rows of only empty cells skipped.
struct Table {
    file: PathBuf,
    /// Header names as written (trimmed), for messages.
    header: Vec<String>,
    /// Header names compared: lower case, without spaces and underscores.
    keys: Vec<String>,
    header_line: u64,
    rows: Vec<Row>,
}

/// The form column names are compared in: `Task Duration(us)`, `task_duration(us)` and
/// `TASK DURATION (US)` are the same column.
fn column_key(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// A cell that says "no value": empty, or N/A as profilers write it.
fn is_absent(v: &str) -> bool {
    v.is_empty()
        || ["n/a", "na", "-", "--", "null", "none"]
            .iter()
            .any(|a| v.eq_ignore_ascii_case(a))
}

/// At most 40 characters of a cell, for messages.
fn shown(v: &str) -> String {
    let mut s: String = v.chars().take(40).collect();
    if s.len() < v.len() {
        s.push('…');
    }
    s
}

impl Table {
    fn parse(file: &Path, bytes: &[u8]) -> Result<Table, MsprofError> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(MsprofError::new(ErrorKind::Empty, file, "the file is empty").help(RERUN));
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(bytes);
        let mut header: Option<(u64, Vec<String>)> = None;
        let mut rows = vec![];
        let mut record = csv::ByteRecord::new();
        loop {
            match reader.read_byte_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => {
                    let line = e.position().map_or(1, |p| p.line());
                    return Err(MsprofError::new(
                        ErrorKind::BadCell,
                        file,
                        format!("not readable as CSV: {e}"),
                    )
                    .at(line));
                }
            }
            let line = record.position().map_or(1, |p| p.line());
            let cells: Vec<String> = record
                .iter()
                .map(|c| String::from_utf8_lossy(c).trim().to_string())
                .collect();
            if cells.iter().all(String::is_empty) {
                continue;
            }
            if header.is_none() {
                header = Some((line, cells));
            } else {
                rows.push(Row { line, cells });
            }
        }
        let Some((header_line, header)) = header else {
            return Err(MsprofError::new(ErrorKind::Empty, file, "the file is empty").help(RERUN));
        };
        let keys: Vec<String> = header.iter().map(|h| column_key(h)).collect();
        let t = Table {
            file: file.to_path_buf(),
            header,
            keys,
            header_line,
            rows,
        };
        if t.rows.is_empty() {
            return Err(
                MsprofError::new(ErrorKind::NoRows, file, "a header but no data row")
                    .at(header_line)
                    .help(RERUN),
            );
        }
        Ok(t)
    }

    /// The index of a column, by name (see `column_key`); a trailing comma's empty name never matches.
    fn column(&self, name: &str) -> Option<usize> {
        let k = column_key(name);
        self.keys.iter().position(|h| !h.is_empty() && *h == k)
    }

    fn header_list(&self) -> String {
        let names: Vec<&str> = self
            .header
            .iter()
            .filter(|h| !h.is_empty())
            .map(|h| h.as_str())
            .take(24)
            .collect();
        let mut s = names
            .iter()
            .map(|n| shown(n))
            .collect::<Vec<_>>()
            .join(", ");
        if self.header.iter().filter(|h| !h.is_empty()).count() > names.len() {
            s.push_str(", ...");
        }
        s
    }

    fn require(&self, name: &str) -> Result<usize, MsprofError> {
        self.column(name).ok_or_else(|| {
            MsprofError::new(
                ErrorKind::MissingColumn,
                &self.file,
                format!("no column `{name}` in the header"),
            )
            .at(self.header_line)
            .help(format!(
                "the header has: {}; the file may come from a different msprof version or have been edited",
                self.header_list()
            ))
        })
    }

    fn bad(&self, r: &Row, c: usize, message: String) -> MsprofError {
        MsprofError::new(ErrorKind::BadCell, &self.file, message)
            .at(r.line)
            .column(&shown(&self.header[c]))
    }

    /// A required cell's text.
    fn text<'a>(&self, r: &'a Row, c: usize) -> Result<&'a str, MsprofError> {
        match r.cells.get(c) {
            None => Err(self.bad(
                r,
                c,
                format!(
                    "the row ends before this column ({} cells, the header has {})",
                    r.cells.len(),
                    self.header.len()
                ),
            )),
            Some(v) if is_absent(v) => Err(self.bad(r, c, format!("`{v}`: a value is needed"))),
            Some(v) => Ok(v),
        }
    }

    /// A required duration in microseconds: a finite number >= 0.
    fn duration(&self, r: &Row, c: usize) -> Result<f64, MsprofError> {
        let v = self.text(r, c)?;
        match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err(self.bad(
                r,
                c,
                format!("`{}` is not a duration (a number >= 0)", shown(v)),
            )),
        }
    }

    /// A number >= 0, or `None` for an absent cell (or a row that ends before it).
    fn optional_number(&self, r: &Row, c: usize) -> Result<Option<f64>, MsprofError> {
        match r.cells.get(c) {
            None => Ok(None),
            Some(v) if is_absent(v) => Ok(None),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
                _ => Err(self.bad(r, c, format!("`{}` is not a number >= 0", shown(v)))),
            },
        }
    }

    fn whole(v: &str) -> Option<u64> {
        v.parse::<u64>().ok().or_else(|| {
            // `8.0` from a writer that prints every number as a float.
            let x = v.parse::<f64>().ok()?;
            (x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 1.8e19).then_some(x as u64)
        })
    }

    /// A required whole number in `min..=u32::MAX`.
    fn count(&self, r: &Row, c: usize, min: u32) -> Result<u32, MsprofError> {
        let v = self.text(r, c)?;
        match Self::whole(v).and_then(|x| u32::try_from(x).ok()) {
            Some(x) if x >= min => Ok(x),
            _ => Err(self.bad(
                r,
                c,
                format!("`{}` is not a whole number >= {min}", shown(v)),
            )),
        }
    }

    /// An optional whole number (u32), `None` when absent.
    fn optional_count(&self, r: &Row, c: usize) -> Result<Option<u32>, MsprofError> {
        match r.cells.get(c) {
            None => Ok(None),
            Some(v) if is_absent(v) => Ok(None),
            Some(v) => match Self::whole(v).and_then(|x| u32::try_from(x).ok()) {
                Some(x) => Ok(Some(x)),
                None => Err(self.bad(r, c, format!("`{}` is not a whole number", shown(v)))),
            },
        }
    }

    /// A required whole number (u64: cycle and call counts).
    fn big_count(&self, r: &Row, c: usize) -> Result<u64, MsprofError> {
        let v = self.text(r, c)?;
        Self::whole(v)
            .ok_or_else(|| self.bad(r, c, format!("`{}` is not a whole number >= 0", shown(v))))
    }
}

#[cfg(test)]
mod tests;
