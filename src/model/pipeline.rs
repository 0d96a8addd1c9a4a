// The pipeline simulation: when each traced instruction runs, per block, per core, for the whole launch;
// the per-pipe utilisation and the bound.
// Owns: scheduling (in-order pipes, scalar issue, flags, barriers), chip-bandwidth sharing between cores,
// waves of blocks over cores, the kernel latency. Costs of single instructions come from costs.rs.
// Does not know how traces are written or read, nor anything about building, running, files or the CLI.
//
// Per block, one forward pass in program order. For in-order pipes this gives the same schedule as a
// discrete-event simulation: an instruction starts at max(scalar issue time, its pipe's free time, its pipe's
// not-before time from waits and barriers) and holds its pipe for its cost. A `set` fires when every earlier
// instruction of its source pipe has finished (and any wait queued before it on that pipe has passed);
// a `wait` raises its destination pipe's not-before time to the set's firing time.
//
// GM copies: memory.rs first decides, for the whole launch, which bytes of each copy come from L2 and which
// from HBM (and the write-backs, split lines and same-address reads); costs.rs turns that into the cycles
// the copy holds its DMA pipe. A copy's data is usable `dma_latency_cycles` after it leaves the pipe: a
// `set` on a DMA pipe fires then, so back-to-back copies pipeline and a wait sees the latency once.
//
// Chip bandwidth: the n blocks running at once share the chip's HBM and L2 bandwidth. Each core gets
// 1/n of each, kept as two calendars of 64-cycle bins over the block's timeline: a copy takes its HBM bytes
// and its L2 bytes from the bins from its start on, no faster than its engine time allows and no more than
// what its core has left in a bin. The copy ends at the latest of its engine time and its last byte placed,
// so a saturated chip streams at exactly its bandwidth. Every core is assumed to see the same share (the
// launch is symmetric); cores that finish early, or wait, leave their share unused.
//
// Cores: block i runs on core i % cores, in waves; the latency is the launch cost plus the busiest core's
// blocks. Mixed kernels (trace version 4): logical block i is one AIC and its AIVs, each its own core with
// its own pipes (cube pipes on the AIC, vector pipes on the AIVs; cube instructions traced on an AIV queue on
// its group's AIC pipes); the groups run on min(AIC cores, AIV
// cores / ratio) group slots in waves, a group holding its cores until its last one ends. Cross-core flags
// (`xset`/`xwait`) pair across the cores of a group (or of the launch), so a group's cores are simulated
// together: a core stops at a wait whose sets have not all been simulated yet and another goes on. `SyncAll` (an `I S SyncAll` record) holds every block until the last one arrives when all blocks are
// resident at once; with more blocks than cores it is costed per block and noted.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;

use super::costs;
use super::memory::{self, MemPlan};
use super::soc::Soc;
use std::collections::HashMap;

use super::trace::{BarrierScope, Block, CoreKind, Instr, Pipe, Record, Trace};
use super::unitflag::UnitFlag;

/// What to record besides the summary.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimOptions {
    /// Record one span per instruction (for the Chrome trace). Costs memory on big traces.
    pub record_spans: bool,
}

/// Busy time of one pipe on the busiest core for that pipe, as msprof's PipeUtilization reports it.
#[derive(Debug, Clone, Serialize)]
pub struct PipeStat {
    pub pipe: Pipe,
    pub busy_us: f64,
    /// busy / that core's total time.
    pub ratio: f64,
    /// The msprof PipeUtilization column of this ratio, e.g. "aiv_mte2_ratio".
    pub name: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct PipeBusy {
    pub pipe: Pipe,
    pub busy_us: f64,
}

/// One block on its core, in kernel time (0 = launch).
#[derive(Debug, Clone, Serialize)]
pub struct BlockTiming {
    pub block: u32,
    pub core: u32,
    /// Which wave (round of blocks over the cores) it ran in.
    pub wave: u32,
    pub start_us: f64,
    pub end_us: f64,
    /// Busy time per pipe used by the block.
    pub busy: Vec<PipeBusy>,
}

/// One instruction on its pipe, in kernel time.
#[derive(Debug, Clone, Serialize)]
pub struct Span {
    pub block: u32,
    pub core: u32,
    pub pipe: Pipe,
    pub api: String,
    pub start_us: f64,
    pub end_us: f64,
    /// Kernel source line (`line=` of the trace record).
    pub line: u32,
}

/// What limits the kernel.
///
/// Chosen in this order:
/// 1. `LaunchOverhead` when the launch's fixed cost is at least half the latency;
/// 2. `ChipBandwidth` when more than one block runs at once and the memory roofline (the launch's HBM or L2
///    traffic at the chip's bandwidth) takes at least 80% of the time after the launch cost (more blocks or
///    bigger copies will not help, fewer bytes will);
/// 3. otherwise the busiest pipe on the critical core (the core that sets the latency), if it is busy at least
///    half of that core's time;
/// 4. otherwise `Dependency`: no pipe is near full, the pipes mostly wait on each other (barriers, single
///    buffering, flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Mte2,
    Vector,
    Mte3,
    Scalar,
    Mte1,
    Cube,
    FixPipe,
    ChipBandwidth,
    LaunchOverhead,
    Dependency,
}

impl Bound {
    /// The bound a busiest pipe stands for.
    pub fn of_pipe(p: Pipe) -> Bound {
        match p {
            Pipe::Mte2 => Bound::Mte2,
            Pipe::Mte3 => Bound::Mte3,
            Pipe::V => Bound::Vector,
            Pipe::S => Bound::Scalar,
            Pipe::Mte1 => Bound::Mte1,
            Pipe::M => Bound::Cube,
            Pipe::Fix => Bound::FixPipe,
        }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Bound::Mte2 => "mte2 (GM->UB copies)",
            Bound::Vector => "vector",
            Bound::Mte3 => "mte3 (UB->GM copies)",
            Bound::Scalar => "scalar",
            Bound::Mte1 => "mte1 (L1->L0 copies)",
            Bound::Cube => "cube",
            Bound::FixPipe => "fixpipe",
            Bound::ChipBandwidth => "chip bandwidth",
            Bound::LaunchOverhead => "launch overhead",
            Bound::Dependency => "pipe dependencies (pipes wait on each other)",
        })
    }
}

/// The modelled timing of one launch.
#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    /// Device time of the kernel: the launch's fixed cost plus the busiest core's blocks.
    pub latency_us: f64,
    pub pipes: Vec<PipeStat>,
    pub bound: Bound,
    pub blocks: Vec<BlockTiming>,
    /// Empty unless `SimOptions::record_spans`.
    pub spans: Vec<Span>,
    /// Always true: these numbers come from the model, not from hardware.
    pub modelled: bool,
    /// The launch's fixed cost (see `MemSys::launch_us`).
    pub launch_us: f64,
    /// How much later the slowest core ends than the modelled one (see `MemSys::core_skew`).
    pub skew_us: f64,
    pub block_dim: u32,
    /// Cores the blocks were spread over (AIV cores, or AIC cores for a cube-only kernel).
    pub cores: u32,
    /// Bytes moved between GM and the cores.
    pub gm_bytes: u64,
    /// The memory roofline: the launch's HBM traffic at the chip's HBM bandwidth or its L2 traffic at the L2
    /// bandwidth, whichever is longer (for measured timings: gm_bytes at the chip's streaming bandwidth).
    pub roofline_us: f64,
    /// The cube's compute roofline: every Mmad's MACs at the cube's documented rate on all the SoC's AIC
    /// cores (`cube::compute_roofline_us`); 0 without Mmads (and for measured timings).
    pub cube_roofline_us: f64,
    /// What the model had to assume (unknown APIs costed by default), and what it found wrong.
    pub notes: Vec<String>,
    /// Copies into UB that may overwrite UB a copy out is still reading (`race::ub_races`): the hardware
    /// may give other outputs than the twin did. Empty for measured timings.
    pub ub_races: Vec<super::race::UbRace>,
}

impl Timing {
    pub fn pipe(&self, pipe: Pipe) -> Option<&PipeStat> {
        self.pipes.iter().find(|p| p.pipe == pipe)
    }

    /// The latency no schedule of this work can beat: the memory roofline, or the cube's compute
    /// roofline where that is longer (a matmul).
    pub fn roofline_bound_us(&self) -> f64 {
        self.roofline_us.max(self.cube_roofline_us)
    }
}

/// Distinct UB races (pairs of source lines) a timing names, at most.
const MAX_RACES_REPORTED: usize = 4;

/// Time to move `total_gm_bytes` at the SoC's achievable chip streaming bandwidth, in microseconds.
pub fn roofline_us(total_gm_bytes: u64, soc: &Soc) -> f64 {
    total_gm_bytes as f64 / (soc.chip_bw_gbps * 1e3)
}

/// Bytes moved between GM and the cores by all blocks of the trace (MTE2, MTE3, and FIX copies to GM).
pub fn trace_gm_bytes(trace: &Trace) -> u64 {
    let mut total = 0u64;
    for block in &trace.blocks {
        for rec in &block.records {
            if let Record::Instr(ins) = rec {
                if matches!(ins.pipe, Pipe::Mte2 | Pipe::Mte3)
                    || (ins.pipe == Pipe::Fix && ins.bytes.is_some())
                {
                    total = total.saturating_add(ins.bytes.unwrap_or(0));
                }
            }
        }
    }
    total
}

fn ratio_name(p: Pipe) -> &'static str {
    match p {
        Pipe::Mte2 => "aiv_mte2_ratio",
        Pipe::Mte3 => "aiv_mte3_ratio",
        Pipe::V => "aiv_vec_ratio",
        Pipe::S => "aiv_scalar_ratio",
        Pipe::Mte1 => "aic_mte1_ratio",
        Pipe::M => "aic_mac_ratio",
        Pipe::Fix => "aic_fixpipe_ratio",
    }
}

/// Per-core share of the chip's bandwidth over time, in bins.
struct Calendar {
    cap: f64,
    used: Vec<f64>,
}

const BIN_CYCLES: f64 = 64.0;
/// Past this many bins (~150 ms at 1.8 GHz) the calendar stops tracking and charges the plain share rate.
const MAX_BINS: usize = 1 << 22;

impl Calendar {
    fn reset(&mut self, bytes_per_cycle: f64) {
        self.cap = bytes_per_cycle * BIN_CYCLES;
        self.used.clear();
    }

    /// Places `bytes` from cycle `start` on, at most `max_rate` bytes per cycle; returns the finish cycle.
    fn place(&mut self, start: f64, bytes: f64, max_rate: f64) -> f64 {
        let (mut t, mut rem) = (start.max(0.0), bytes);
        let positive = |x: f64| x > 0.0; // false for NaN too
        if !positive(rem) || !positive(max_rate) || !positive(self.cap) {
            return t;
        }
        loop {
            let b = (t / BIN_CYCLES) as usize;
            if b >= MAX_BINS {
                return t + rem / max_rate.min(self.cap / BIN_CYCLES);
            }
            if b >= self.used.len() {
                self.used.resize(b + 1, 0.0);
            }
            let span = (b + 1) as f64 * BIN_CYCLES - t;
            let can = (self.cap - self.used[b]).max(0.0).min(max_rate * span);
            if can >= rem {
                self.used[b] += rem;
                return t + rem * span / can;
            }
            self.used[b] += can;
            rem -= can;
            t = (b + 1) as f64 * BIN_CYCLES;
        }
    }
}

struct BlockRunView {
    duration: f64,
    busy: [f64; 7],
    spans: Vec<RawSpan>,
}

/// Per-API facts resolved once per simulation.
struct ApiInfo {
    pad: bool,
    sync_all: bool,
    /// A register instruction of a SIMD vector function (`Reg<Name>`): issued by the vector unit from
    /// the function's own instruction stream, not by the scalar unit (costs::VF_START_CYCLES).
    in_vf: bool,
    /// The scalar record of `asc_vf_call` (`VfCall`): it does not end a run of register instructions.
    vf_call: bool,
    /// Vector class for dt 1, 2, 4, 8: (fixed, per repeat, known).
    vec: [(f64, f64, bool); 4],
}

struct RawSpan {
    pipe: Pipe,
    api: u32,
    start: f64,
    end: f64,
    line: u32,
}

const S: usize = 3; // Pipe::S.index()

/// The pipes of the cube unit. A mixed kernel's logical block has one AIC: whatever core of the group a
/// cube instruction was traced on (the AIVs of a mixed Matmul, whose requests the twin computes where
/// they are made; lib/matmul_intf.h), it queues on the AIC's one MTE1, M and FIX pipe. Measured
/// (../shared/measured/figures.json `bp_pure_cube`): a Matmul split over 48 AIVs in MIX mode 17.85 us,
/// the same over the 24 AICs in pure Cube mode 11.21 us; two AIVs each with a cube of their own would
/// have made MIX the faster.
const CUBE_PIPES: [Pipe; 3] = [Pipe::Mte1, Pipe::M, Pipe::Fix];

/// GM -> L1 copies are the AIC's MTE2 too: an AIV has no L1 of its own, so the loads a mixed Matmul's
/// AIVs ask for queue on their group's one cube MTE2 (asc-devkit guide, Matmul高阶API使能IBShare模板共享B
/// 矩阵数据.md: the MTE2 pipeline of AIV0's and AIV1's requests, which IBShare halves). A core whose copies
/// all go to L1 (the AIC, or an AIV that moves nothing into its UB) queues its MTE2 on the group's; an AIV
/// that also copies into its UB keeps its own.
fn mte2_is_the_cubes(b: &Block) -> bool {
    let mut copies = b.records.iter().filter_map(|r| match r {
        Record::Instr(i) if i.pipe == Pipe::Mte2 => Some(i),
        _ => None,
    });
    match b.core {
        CoreKind::Single => false,
        CoreKind::Aic => true,
        CoreKind::Aiv(_) => copies.next().is_some_and(|c| c.to_l1) && copies.all(|c| c.to_l1),
    }
}

/// One block's machine state, resumable across `SyncAll`s.
struct BlockState {
    free: [f64; 7],
    /// When each pipe's work is done and usable (DMA latency included): what a `set` waits for.
    done: [f64; 7],
    not_before: [f64; 7],
    busy: [f64; 7],
    issue: f64,
    fires: Vec<f64>,
    hbm: Calendar,
    l2: Calendar,
    /// Next record to run, and the number of GM copies run so far (the index into the memory plan).
    pos: usize,
    copies: usize,
    /// The block's position in `trace.blocks` (its memory plan).
    plan: usize,
    spans: Vec<RawSpan>,
    /// Mmad / Fixpipe pairs under UnitFlag (unitflag.rs).
    uf: UnitFlag,
    /// Inside a run of register instructions (one vector function, or several the compiler fuses):
    /// the next register instruction pays no function start (costs::VF_VECTOR_START_CYCLES).
    in_vf_run: bool,
}

impl BlockState {
    fn new(block: &Block, plan: usize, share: Share) -> BlockState {
        let cal = |bytes_per_cycle: f64| {
            let mut c = Calendar {
                cap: 0.0,
                used: Vec::new(),
            };
            c.reset(bytes_per_cycle);
            c
        };
        BlockState {
            free: [0.0; 7],
            done: [0.0; 7],
            not_before: [0.0; 7],
            busy: [0.0; 7],
            issue: 0.0,
            fires: vec![0.0; block.sets as usize],
            hbm: cal(share.hbm),
            l2: cal(share.l2),
            pos: 0,
            copies: 0,
            plan,
            spans: Vec::new(),
            uf: UnitFlag::default(),
            in_vf_run: false,
        }
    }

    fn duration(&self) -> f64 {
        self.done.iter().fold(self.issue, |a, &b| a.max(b))
    }

    /// Finishes a `SyncAll` the block reached: it leaves at `release` (the last block's arrival, or its own
    /// when not aligned) plus the cost of the synchronisation itself.
    fn leave_sync(&mut self, block: &Block, arrival: f64, release: f64, record_spans: bool) {
        let end = release.max(arrival) + costs::SYNC_ALL_CYCLES;
        self.busy[S] += costs::SYNC_ALL_CYCLES;
        self.free[S] = end;
        self.done[S] = end;
        self.issue = end;
        if record_spans {
            if let Some(Record::Instr(ins)) =
                self.pos.checked_sub(1).and_then(|i| block.records.get(i))
            {
                self.spans.push(RawSpan {
                    pipe: Pipe::S,
                    api: ins.api,
                    start: arrival,
                    end,
                    line: ins.src_line,
                });
            }
        }
    }
}

/// A core's share of the chip's bandwidth, bytes per cycle.
#[derive(Debug, Clone, Copy)]
struct Share {
    hbm: f64,
    l2: f64,
}

impl Share {
    fn of(soc: &Soc, running: f64) -> Share {
        let n = running.max(1.0);
        Share {
            hbm: soc.chip_bytes_per_cycle() / n,
            l2: soc.mem.l2_read_gbps / soc.clock_ghz / n,
        }
    }
}

/// Where `Sim::advance` stopped.
enum Stop {
    End,
    /// At a `SyncAll`, arriving at that cycle.
    Sync(f64),
    /// At a cross-core wait whose sets have not all been simulated.
    Blocked,
}

struct Sim<'a> {
    /// Per cross-core flag key: the latest firing of its sets so far and how many have been simulated.
    xfire: HashMap<u32, (f64, u32)>,
    /// Take a blocked cross-core wait as released (cores that cannot run at once: no partner to wait for).
    xforce: bool,
    trace: &'a Trace,
    soc: &'a Soc,
    mem: MemPlan,
    apis: Vec<ApiInfo>,
    unknown: BTreeSet<u32>,
    record_spans: bool,
    /// Vector cycles of every block, and the part of them UB bank conflicts cost (for the note).
    vec_cycles: f64,
    bank_cycles: f64,
}

fn dt_slot(dt: u64) -> Option<usize> {
    match dt {
        1 => Some(0),
        2 => Some(1),
        4 => Some(2),
        8 => Some(3),
        _ => None,
    }
}

impl Sim<'_> {
    fn instr_cost(&mut self, ins: &Instr) -> f64 {
        if ins.pipe == Pipe::V && ins.cycles.is_none() {
            let dt = ins.dt.unwrap_or(2);
            let (fixed, per_rep, known) = match (dt_slot(dt), self.apis.get(ins.api as usize)) {
                (Some(i), Some(info)) => info.vec[i],
                _ => costs::vector_class(self.trace.api_name(ins.api), dt),
            };
            if !known {
                self.unknown.insert(ins.api);
            }
            let conflict = costs::bank_conflict_cycles_per_repeat(ins, self.soc);
            let repeats = costs::vector_repeats(ins, self.soc);
            let cost = fixed + (per_rep + conflict) * repeats;
            self.vec_cycles += cost;
            self.bank_cycles += conflict * repeats;
            return cost;
        }
        let (c, known) = costs::compute_cost(ins, self.trace.api_name(ins.api), self.soc);
        if !known {
            self.unknown.insert(ins.api);
        }
        c
    }

    fn is_sync_all(&self, ins: &Instr) -> bool {
        ins.pipe == Pipe::S && self.apis.get(ins.api as usize).is_some_and(|a| a.sync_all)
    }

    /// Runs the block's records from `st.pos` to the next `SyncAll` (returns the cycle the block arrives
    /// there, every pipe drained) or to the end (returns None).
    fn advance(&mut self, block: &Block, st: &mut BlockState) -> Stop {
        while let Some(rec) = block.records.get(st.pos) {
            st.pos += 1;
            let vf_start = match rec {
                Record::Instr(ins) => match self.apis.get(ins.api as usize) {
                    Some(a) if a.in_vf => !std::mem::replace(&mut st.in_vf_run, true),
                    Some(a) if a.vf_call => false,
                    _ => {
                        st.in_vf_run = false;
                        false
                    }
                },
                _ => {
                    st.in_vf_run = false;
                    false
                }
            };
            match rec {
                Record::Instr(ins) if self.is_sync_all(ins) => {
                    return Stop::Sync(
                        st.duration()
                            .max(st.not_before.iter().fold(0.0, |a: f64, &b| a.max(b))),
                    );
                }
                Record::XSet { pipe, key, .. } => {
                    let s = pipe.index();
                    let fire = st.issue.max(st.done[s]).max(st.not_before[s]);
                    let e = self.xfire.entry(*key).or_insert((0.0, 0));
                    e.0 = e.0.max(fire);
                    e.1 += 1;
                    st.issue += costs::FLAG_CYCLES;
                    st.busy[S] += costs::FLAG_CYCLES;
                }
                Record::XWait {
                    pipe, key, sets, ..
                } => {
                    let fired = self.xfire.get(key).copied().unwrap_or((0.0, 0));
                    if fired.1 < *sets && !self.xforce {
                        st.pos -= 1;
                        return Stop::Blocked;
                    }
                    // The wait holds the issue of every later instruction (CrossCoreWaitFlag(ISASI).md).
                    let fire = fired.0 + costs::XCORE_FLAG_CYCLES;
                    let d = pipe.index();
                    st.not_before[d] = st.not_before[d].max(fire);
                    st.issue = st.issue.max(fire) + costs::FLAG_CYCLES;
                    st.busy[S] += costs::FLAG_CYCLES;
                }
                Record::Instr(ins) => {
                    let p = ins.pipe.index();
                    let (start, end);
                    if ins.pipe == Pipe::S {
                        // Scalar work occupies the scalar pipe and stalls issue until it is done.
                        let c = self.instr_cost(ins);
                        start = st.issue.max(st.free[p]).max(st.not_before[p]);
                        let mut e = start + c;
                        st.busy[p] += c;
                        // `count=N`: the next N - 1 start where the one before ended; summed one by
                        // one, so the figures are those of N separate records to the last bit.
                        for _ in 1..ins.count {
                            e += c;
                            st.busy[p] += c;
                        }
                        end = e;
                        st.issue = end;
                        st.done[p] = st.done[p].max(end);
                    } else {
                        if !self.apis.get(ins.api as usize).is_some_and(|a| a.in_vf) {
                            st.issue += costs::ISSUE_CYCLES;
                            st.busy[S] += costs::ISSUE_CYCLES;
                        }
                        let uf = UnitFlag::applies(ins);
                        let ready = st.issue.max(st.free[p]).max(st.not_before[p]);
                        start = if uf {
                            st.uf.earliest_start(ins, ready)
                        } else {
                            ready
                        };
                        let latency;
                        let own_end = match memory::dma_dir(ins) {
                            Some(dir) => {
                                let pad = self.apis.get(ins.api as usize).is_some_and(|a| a.pad);
                                let m = self.mem.get(st.plan, st.copies);
                                st.copies += 1;
                                let d = costs::dma_cost(ins, dir, pad, &m, self.soc);
                                let engine = d.engine.max(1e-9);
                                let hbm = st.hbm.place(start, d.hbm_bytes, d.hbm_bytes / engine);
                                let l2 = st.l2.place(start, d.l2_bytes, d.l2_bytes / engine);
                                latency = self.soc.mem.dma_latency_cycles;
                                (start + d.engine).max(hbm).max(l2)
                            }
                            None => {
                                latency = super::cube::pipelined_latency(
                                    ins,
                                    self.trace.api_name(ins.api),
                                );
                                let vf = if vf_start {
                                    costs::VF_VECTOR_START_CYCLES
                                } else {
                                    0.0
                                };
                                start + vf + self.instr_cost(ins)
                            }
                        };
                        end = if uf {
                            st.uf.finish(ins, start, own_end)
                        } else {
                            own_end
                        };
                        st.busy[p] += own_end - start;
                        st.done[p] = st.done[p].max(end + latency);
                    }
                    st.free[p] = end;
                    if self.record_spans {
                        st.spans.push(RawSpan {
                            pipe: ins.pipe,
                            api: ins.api,
                            start,
                            end,
                            line: ins.src_line,
                        });
                    }
                }
                Record::Set { src, slot, .. } => {
                    let s = src.index();
                    let fire = st.issue.max(st.done[s]).max(st.not_before[s]);
                    if let Some(f) = st.fires.get_mut(*slot as usize) {
                        *f = fire;
                    }
                    st.issue += costs::FLAG_CYCLES;
                    st.busy[S] += costs::FLAG_CYCLES;
                }
                Record::Wait { dst, set_slot, .. } => {
                    let fire = st.fires.get(*set_slot as usize).copied().unwrap_or(0.0);
                    let d = dst.index();
                    st.not_before[d] = st.not_before[d].max(fire);
                    if *dst == Pipe::S {
                        st.issue = st.issue.max(fire);
                    }
                    st.issue += costs::FLAG_CYCLES;
                    st.busy[S] += costs::FLAG_CYCLES;
                }
                Record::Barrier {
                    scope: BarrierScope::All,
                    ..
                } => {
                    let mut t = st.issue;
                    for i in 0..7 {
                        t = t.max(st.done[i]).max(st.not_before[i]);
                    }
                    t += costs::BARRIER_CYCLES;
                    st.not_before = [t; 7];
                    st.issue = t;
                    st.busy[S] += costs::FLAG_CYCLES;
                }
                Record::Barrier {
                    scope: BarrierScope::Pipe(p),
                    ..
                } => {
                    let i = p.index();
                    if *p == Pipe::S {
                        st.issue =
                            st.issue.max(st.done[i]).max(st.not_before[i]) + costs::BARRIER_CYCLES;
                    } else {
                        st.issue += costs::FLAG_CYCLES;
                        st.not_before[i] =
                            st.not_before[i].max(st.done[i]).max(st.issue) + costs::BARRIER_CYCLES;
                    }
                    st.busy[S] += costs::FLAG_CYCLES;
                }
            }
        }
        Stop::End
    }

    /// Runs one block to its end, each `SyncAll` costed on its own (no other block to wait for).
    fn run_alone(&mut self, block: &Block, plan: usize, share: Share) -> BlockState {
        let mut st = BlockState::new(block, plan, share);
        loop {
            match self.advance(block, &mut st) {
                Stop::End => break,
                Stop::Sync(arrival) => st.leave_sync(block, arrival, arrival, self.record_spans),
                Stop::Blocked => {
                    self.xforce = true;
                    let _ = self.advance_one_wait(block, &mut st);
                    self.xforce = false;
                }
            }
        }
        st
    }

    /// Passes the cross-core wait `st` stopped at, as released (see `xforce`).
    fn advance_one_wait(&mut self, block: &Block, st: &mut BlockState) -> Option<()> {
        if let Some(Record::XWait { pipe, .. }) = block.records.get(st.pos) {
            st.pos += 1;
            st.issue += costs::FLAG_CYCLES;
            let d = pipe.index();
            st.not_before[d] = st.not_before[d].max(st.issue);
            return Some(());
        }
        None
    }

    /// Runs cores that are resident at once: between `SyncAll`s each goes on until it ends, reaches the
    /// next one or waits for a cross-core flag not yet set; each leaves the k-th `SyncAll` when the last
    /// of them has reached it. A trace whose waits can never be met (the twin faults first) ends the
    /// remaining cores where they stand. The cores of one mixed group queue on one set of cube pipes
    /// (`CUBE_PIPES`).
    fn run_group(&mut self, blocks: &[(usize, &Block)], share: Share) -> (Vec<BlockState>, bool) {
        let mut states: Vec<BlockState> = blocks
            .iter()
            .map(|&(plan, b)| BlockState::new(b, plan, share))
            .collect();
        let mut done = vec![false; blocks.len()];
        let mut arrivals: Vec<Option<f64>> = vec![None; blocks.len()];
        let mut stuck = false;
        // A mixed group's cube pipes, when each is next free, per logical block (see `CUBE_PIPES`), and
        // its cube MTE2 (`mte2_is_the_cubes`).
        let mut cube_free: HashMap<u32, [f64; 4]> = HashMap::new();
        let cube_mte2: Vec<bool> = blocks.iter().map(|(_, b)| mte2_is_the_cubes(b)).collect();
        loop {
            let mut progress = false;
            for (i, ((_, b), st)) in blocks.iter().zip(states.iter_mut()).enumerate() {
                if done[i] || arrivals[i].is_some() {
                    continue;
                }
                let pos = st.pos;
                let shared =
                    (b.core != CoreKind::Single).then(|| cube_free.entry(b.idx).or_default());
                let mte2 = cube_mte2[i].then_some(Pipe::Mte2);
                let pipes = || CUBE_PIPES.iter().copied().chain(mte2).enumerate();
                if let Some(free) = &shared {
                    for (k, p) in pipes() {
                        st.free[p.index()] = st.free[p.index()].max(free[k]);
                    }
                }
                let stop = self.advance(b, st);
                if let Some(free) = shared {
                    for (k, p) in pipes() {
                        free[k] = free[k].max(st.free[p.index()]);
                    }
                }
                match stop {
                    Stop::End => {
                        done[i] = true;
                        progress = true;
                    }
                    Stop::Sync(a) => {
                        arrivals[i] = Some(a);
                        progress = true;
                    }
                    Stop::Blocked => progress |= st.pos != pos,
                }
            }
            if done.iter().all(|&d| d) {
                break;
            }
            let all_arrived = (0..blocks.len()).all(|i| done[i] || arrivals[i].is_some());
            if all_arrived {
                let release = arrivals.iter().flatten().copied().fold(0.0, f64::max);
                for (i, a) in arrivals.iter_mut().enumerate() {
                    if let Some(arrival) = a.take() {
                        states[i].leave_sync(blocks[i].1, arrival, release, self.record_spans);
                    }
                }
                continue;
            }
            if !progress {
                stuck = true;
                break;
            }
        }
        (states, stuck)
    }

    /// Runs blocks that are all resident at once in lockstep between `SyncAll`s: each leaves the k-th
    /// `SyncAll` when the last block has reached it.
    fn run_synced(&mut self, blocks: &[(usize, &Block)], share: Share) -> Vec<BlockState> {
        self.run_group(blocks, share).0
    }
}

/// Models one launch: trace in, timing out. Deterministic; never panics.
pub fn simulate(trace: &Trace, soc: &Soc, opts: &SimOptions) -> Timing {
    let cyc = soc.cycles_per_us();

    // The pipes the trace uses, and the kinds of core (0 the AIC or a lone core, 1 + k AIV k) that copy
    // to or from GM.
    let mut uses = [false; 7];
    let mut kind_bytes: BTreeMap<u32, f64> = BTreeMap::new();
    for block in &trace.blocks {
        for rec in &block.records {
            if let Record::Instr(ins) = rec {
                uses[ins.pipe.index()] = true;
                if memory::dma_dir(ins).is_some() {
                    let kind = match block.core {
                        CoreKind::Aiv(k) => 1 + u32::from(k),
                        _ => 0,
                    };
                    *kind_bytes.entry(kind).or_default() += ins.bytes.unwrap_or(0) as f64;
                }
            }
        }
    }
    let cube_only = (uses[Pipe::M.index()] || uses[Pipe::Mte1.index()] || uses[Pipe::Fix.index()])
        && !uses[Pipe::V.index()];
    // A mixed kernel: AIVs per AIC, and the group slots (one AIC and `ratio` AIVs each).
    let mixed = trace.blocks.iter().any(|b| b.core != CoreKind::Single);
    let ratio = trace
        .blocks
        .iter()
        .filter_map(|b| match b.core {
            CoreKind::Aiv(k) => Some(u32::from(k) + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let per_group = 1 + ratio;
    // The cores of a group that copy to or from GM (the AIC of a mixed Matmul the twin computes on its
    // AIVs copies nothing): they, not the idle ones, share the chip's bandwidth, each counted by the
    // bytes it moves (the participation ratio (sum b)^2 / sum b^2): an AIC streaming weights beside AIVs
    // that copy a few rows takes about the whole group's share (ops-transformer's mla_prolog_v2 got a
    // third of it, 21 GB/s a core, with the three kinds counted alike).
    let total: f64 = kind_bytes.values().sum();
    let squares: f64 = kind_bytes.values().map(|b| b * b).sum();
    let copying_per_group = if squares > 0.0 {
        (total * total / squares).max(1.0)
    } else {
        (kind_bytes.len() as f64).max(1.0)
    };
    let slots = soc
        .aiv_cores
        .checked_div(ratio)
        .map_or(soc.aic_cores, |aiv_groups| soc.aic_cores.min(aiv_groups))
        .max(1);
    let cores = if mixed {
        slots * per_group
    } else if cube_only {
        soc.aic_cores
    } else {
        soc.aiv_cores
    }
    .max(1);
    let block_dim = if mixed {
        trace.block_dim().max(1)
    } else {
        trace.block_dim().max(trace.blocks.len() as u32).max(1)
    };
    let launch_cy = costs::launch_cycles(soc);
    let mem = memory::plan(trace, soc, cores);
    let roof = mem.roofline_us(soc);

    let apis = trace
        .apis()
        .iter()
        .map(|name| ApiInfo {
            pad: name == "DataCopyPad",
            sync_all: name == "SyncAll",
            in_vf: name.starts_with("Reg"),
            vf_call: name == "VfCall",
            vec: [1, 2, 4, 8].map(|dt| costs::vector_class(name, dt)),
        })
        .collect();
    let mut sim = Sim {
        xfire: HashMap::new(),
        xforce: false,
        trace,
        soc,
        mem,
        apis,
        unknown: BTreeSet::new(),
        record_spans: opts.record_spans,
        vec_cycles: 0.0,
        bank_cycles: 0.0,
    };

    // (position in trace.blocks, block), in launch order.
    let mut order: Vec<(usize, &Block)> = trace.blocks.iter().enumerate().collect();
    order.sort_by_key(|(_, b)| b.idx);

    let mut core_time = vec![0.0f64; cores as usize];
    let mut core_busy = vec![[0.0f64; 7]; cores as usize];
    let mut core_used = vec![false; cores as usize];
    let mut blocks = Vec::with_capacity(order.len());
    let mut spans = Vec::new();

    // SyncAll waits for every block: model it across blocks when they are all resident at once. With more
    // blocks than cores a SyncAll would deadlock on hardware; each block is then costed alone.
    let has_sync = sim.apis.iter().any(|a| a.sync_all)
        && order.iter().any(|(_, b)| {
            b.records
                .iter()
                .any(|r| matches!(r, Record::Instr(i) if sim.is_sync_all(i)))
        });
    let mut notes_extra = Vec::new();
    let states: Vec<BlockState> = if mixed {
        // Groups resident at once are simulated together (flags and SyncAll pair across them); more
        // groups than slots run group by group, in waves.
        let mut stuck = false;
        let states = if block_dim <= slots {
            let (st, s) = sim.run_group(
                &order,
                Share::of(soc, f64::from(block_dim) * copying_per_group),
            );
            stuck |= s;
            st
        } else {
            let mut all = Vec::with_capacity(order.len());
            let mut i = 0;
            while i < order.len() {
                let idx = order[i].1.idx;
                let j = i + order[i..].iter().take_while(|(_, b)| b.idx == idx).count();
                let wave = idx / slots;
                let running = block_dim.saturating_sub(wave * slots).clamp(1, slots);
                let (st, s) = sim.run_group(
                    &order[i..j],
                    Share::of(soc, f64::from(running) * copying_per_group),
                );
                stuck |= s;
                all.extend(st);
                i = j;
            }
            all
        };
        if stuck {
            notes_extra.push(
                "cross-core waits whose sets never come (or a SyncAll some cores never reach): those cores end there in the model"
                    .to_string(),
            );
        }
        states
    } else if has_sync && block_dim <= cores {
        sim.run_synced(&order, Share::of(soc, f64::from(block_dim.clamp(1, cores))))
    } else {
        if has_sync {
            notes_extra.push(format!(
                "SyncAll with block_dim {block_dim} above the {cores} cores: blocks not synchronised in the model"
            ));
        }
        order
            .iter()
            .map(|&(plan, block)| {
                let wave = block.idx / cores;
                let running = block_dim.saturating_sub(wave * cores).clamp(1, cores);
                sim.run_alone(block, plan, Share::of(soc, f64::from(running)))
            })
            .collect()
    };

    // Per trace block: its core, its wave, and how long it holds the core (a mixed group holds its cores
    // until its last core ends).
    let mut group_hold: HashMap<u32, f64> = HashMap::new();
    for ((_, block), st) in order.iter().zip(&states) {
        let h = group_hold.entry(block.idx).or_insert(0.0);
        *h = h.max(st.duration());
    }
    for ((_, block), st) in order.into_iter().zip(states) {
        let (core, wave) = if mixed {
            let off = match block.core {
                CoreKind::Aiv(k) => 1 + u32::from(k).min(ratio.saturating_sub(1)),
                _ => 0,
            };
            ((block.idx % slots) * per_group + off, block.idx / slots)
        } else {
            (block.idx % cores, block.idx / cores)
        };
        let hold = if mixed {
            group_hold.get(&block.idx).copied().unwrap_or(0.0)
        } else {
            st.duration()
        };
        let run = BlockRunView {
            duration: st.duration(),
            busy: st.busy,
            spans: st.spans,
        };
        let c = core as usize;
        let start = launch_cy + core_time[c];
        core_time[c] += hold;
        core_used[c] = true;
        for (acc, b) in core_busy[c].iter_mut().zip(run.busy) {
            *acc += b;
        }
        blocks.push(BlockTiming {
            block: block.idx,
            core,
            wave,
            start_us: start / cyc,
            end_us: (start + run.duration) / cyc,
            busy: Pipe::ALL
                .into_iter()
                .filter(|p| run.busy[p.index()] > 0.0)
                .map(|p| PipeBusy {
                    pipe: p,
                    busy_us: run.busy[p.index()] / cyc,
                })
                .collect(),
        });
        for s in run.spans {
            spans.push(Span {
                block: block.idx,
                core,
                pipe: s.pipe,
                api: trace.api_name(s.api).to_string(),
                start_us: (start + s.start) / cyc,
                end_us: (start + s.end) / cyc,
                line: s.line,
            });
        }
    }

    // Cores running at once: a mixed launch's groups count each of their cores.
    let running_cores = if mixed {
        block_dim.min(slots) * per_group
    } else {
        block_dim.min(cores)
    };
    // Per-core totals include the launch cost.
    let core_total: Vec<f64> = core_time.iter().map(|t| launch_cy + t).collect();
    let critical = (0..cores as usize).filter(|&c| core_used[c]).fold(
        None,
        |best: Option<usize>, c| match best {
            Some(b) if core_total[b] >= core_total[c] => Some(b),
            _ => Some(c),
        },
    );
    // The cores are modelled alike; on the chip the slowest of many streaming cores ends later.
    let skew_cy = critical.map_or(0.0, |c| core_time[c] * costs::core_skew(running_cores, soc));
    let latency_cy = critical.map(|c| core_total[c]).unwrap_or(launch_cy) + skew_cy;

    let mut pipes = Vec::new();
    for p in Pipe::ALL {
        let i = p.index();
        let aiv = matches!(p, Pipe::Mte2 | Pipe::Mte3 | Pipe::V | Pipe::S);
        if !aiv && !uses[i] {
            continue;
        }
        let mut best: Option<(usize, f64)> = None;
        for c in (0..cores as usize).filter(|&c| core_used[c]) {
            let b = core_busy[c][i];
            if best.is_none_or(|(_, bb)| b > bb) {
                best = Some((c, b));
            }
        }
        let (busy, ratio) = match best {
            Some((c, b)) => (
                b,
                if core_total[c] > 0.0 {
                    b / core_total[c]
                } else {
                    0.0
                },
            ),
            None => (0.0, 0.0),
        };
        pipes.push(PipeStat {
            pipe: p,
            busy_us: busy / cyc,
            ratio,
            name: ratio_name(p),
        });
    }

    let gm_bytes = trace_gm_bytes(trace);
    let latency_us = latency_cy / cyc;
    let launch_us = launch_cy / cyc;
    let skew_us = skew_cy / cyc;
    let running_max = running_cores;

    let bound = if critical.is_none() || launch_us >= 0.5 * latency_us {
        Bound::LaunchOverhead
    } else if running_max > 1 && roof >= 0.8 * (latency_us - launch_us - skew_us) {
        Bound::ChipBandwidth
    } else {
        let c = critical.unwrap_or(0);
        let (top, busy) = Pipe::ALL
            .into_iter()
            .map(|p| (p, core_busy[c][p.index()]))
            .fold((Pipe::Mte2, -1.0), |a, b| if b.1 > a.1 { b } else { a });
        if busy >= 0.5 * core_total[c] {
            Bound::of_pipe(top)
        } else {
            Bound::Dependency
        }
    };

    let mut notes: Vec<String> = sim
        .unknown
        .iter()
        .map(|&api| {
            format!(
                "unknown API `{}`: costed by default (V: {} fixed cycles + {} per repeat; S: {} cycles)",
                trace.api_name(api),
                costs::VEC_DEFAULT_FIXED,
                costs::VEC_DEFAULT_PER_REPEAT,
                costs::SCALAR_DEFAULT_CYCLES
            )
        })
        .collect();
    notes.extend(notes_extra);
    // UB bank conflicts (asc-devkit's bank_conflict_ub best practice: two operands of a vector
    // instruction in one bank group, or a write meeting a read's bank), when they cost a tenth of the
    // vector pipe's modelled work or more: spacing the buffers apart removes them.
    if sim.vec_cycles > 0.0 && sim.bank_cycles >= 0.1 * sim.vec_cycles {
        notes.push(format!(
            "UB bank conflicts: {:.0}% of the vector pipe's modelled cycles (operands of one instruction in the same UB bank group or bank; buffers 256 B further apart avoid it)",
            100.0 * sim.bank_cycles / sim.vec_cycles
        ));
    }

    let ub_races = super::race::ub_races(trace, MAX_RACES_REPORTED);
    notes.extend(ub_races.iter().map(super::race::UbRace::describe));

    Timing {
        latency_us,
        pipes,
        bound,
        blocks,
        spans,
        modelled: true,
        launch_us,
        skew_us,
        block_dim,
        cores: running_cores,
        gm_bytes,
        roofline_us: roof,
        cube_roofline_us: super::cube::compute_roofline_us(trace, soc),
        notes,
        ub_races,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count=N` on a scalar record (trace version 2) is N identical back-to-back records: the same
    /// latency and busy time to the last bit, between a DMA and a vector instruction that depend on it.
    /// The note on UB bank conflicts: an Add whose sources share a bank group (bank_conflict_ub's
    /// scenario 3) draws it with the share of the vector cycles they cost; the same Add with its
    /// sources apart (scenario 1) does not.
    #[test]
    fn bank_conflicts_that_cost_a_tenth_of_the_vector_work_are_noted() {
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let run = |s1: u64| {
            let text = format!(
                "twin-trace 3\nblock 0 1\nI V Add dt=4 n=4096 rep=64 ubd=131072 ubs0=0 ubs1={s1} line=1\nend\n"
            );
            simulate(
                &crate::model::trace::parse(&text).unwrap(),
                soc,
                &Default::default(),
            )
            .notes
        };
        let conflicted = run(0x10000);
        let note = conflicted
            .iter()
            .find(|n| n.starts_with("UB bank conflicts"))
            .unwrap_or_else(|| panic!("{conflicted:?}"));
        assert!(note.contains("% of the vector pipe"), "{note}");
        assert!(
            !run(0x10100)
                .iter()
                .any(|n| n.starts_with("UB bank conflicts"))
        );
    }

    #[test]
    fn a_counted_scalar_record_costs_what_its_repeated_lines_cost() {
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let body = |scalar: &str| {
            format!(
                "twin-trace 2\nblock 0 1\nI MTE2 DataCopy bytes=1000 bursts=1 burst=1000 gm=0 gap=0 line=3\n\
                 set MTE2 S e0\nwait MTE2 S e0\n{scalar}I V Adds dt=2 rep=7 line=9\nend\n"
            )
        };
        let lines = body(&"I S GetValue line=5\n".repeat(1000));
        let counted = body("I S GetValue line=5 count=1000\n");
        let run = |text: &str| {
            simulate(
                &crate::model::trace::parse(text).unwrap(),
                soc,
                &Default::default(),
            )
        };
        let (a, b) = (run(&lines), run(&counted));
        assert_eq!(a.latency_us.to_bits(), b.latency_us.to_bits());
        for (p, q) in a.pipes.iter().zip(&b.pipes) {
            assert_eq!(p.busy_us.to_bits(), q.busy_us.to_bits(), "{}", p.name);
        }
        // And a count really repeats: one record costs less.
        assert!(run(&body("I S GetValue line=5\n")).latency_us < b.latency_us);
    }

    /// A SIMD vector function's register instructions are issued by the vector unit (asc-devkit
    /// "VF循环优化": hardware loops): the scalar pipe pays one start (`VfCall`) per function, not an
    /// issue per instruction. Found on cann-samples' gelu_eltwise_regbase_story, whose fused vector
    /// function (stage 1) was modelled 3.3x slower than the repeat-form kernel it replaces (stage 0),
    /// scalar-bound at 8 issue cycles per one-cycle register instruction.
    #[test]
    fn register_instructions_of_a_vector_function_take_no_scalar_issue() {
        let soc = crate::model::soc::lookup("Ascend950").unwrap();
        let vf = "I S VfCall line=0
"
        .to_string()
            + &"I V RegLoadAlign dt=4 rep=1 line=2
I V RegMul dt=4 rep=1 line=3
I V RegStoreAlign dt=4 rep=1 line=4
"
            .repeat(100);
        let m = simulate(
            &crate::model::trace::parse(&format!("twin-trace 2\nblock 0 1\n{vf}end\n")).unwrap(),
            soc,
            &Default::default(),
        );
        let busy = |pipe: Pipe| m.pipes.iter().find(|p| p.pipe == pipe).unwrap().busy_us;
        let cycles = |us: f64| us * soc.clock_ghz * 1e3;
        assert!(
            (cycles(busy(Pipe::S)) - costs::VF_START_CYCLES).abs() < 1e-6,
            "{}",
            cycles(busy(Pipe::S))
        );
        // the V pipe carries the 300 instructions back to back
        assert!(cycles(busy(Pipe::V)) >= 300.0 - 1e-6);
        // the same instructions as repeat-form calls each pay the scalar issue
        let calls = "I V Mul dt=4 rep=1 line=3\n".repeat(300);
        let c = simulate(
            &crate::model::trace::parse(&format!("twin-trace 2\nblock 0 1\n{calls}end\n")).unwrap(),
            soc,
            &Default::default(),
        );
        let s = c.pipes.iter().find(|p| p.pipe == Pipe::S).unwrap().busy_us;
        assert!((cycles(s) - 300.0 * costs::ISSUE_CYCLES).abs() < 1e-6);
    }

    /// A vector function costs the vector unit one start (costs::VF_VECTOR_START_CYCLES) per run of
    /// register instructions: functions called back to back (directly or through `asc_vf_call`) count
    /// once, as the compiler fuses them; a copy between two runs makes two. Found on cann-samples'
    /// rms_norm_quant_story, whose Step 5 (rows batched per UB pass: 64 -> 7 function starts per core)
    /// was modelled 1.4% slower than Step 4, where the simulator measured it 9.8% faster.
    #[test]
    fn a_vector_function_pays_one_start_per_run_of_register_instructions() {
        let soc = crate::model::soc::lookup("Ascend950").unwrap();
        let vf = "I V RegLoadAlign dt=4 rep=1 line=2\nI V RegMul dt=4 rep=1 line=3\n";
        let copy = "I MTE2 DataCopy bytes=256 bursts=1 burst=256 gm=0 gap=0 line=9\n";
        let v_cycles = |body: &str| {
            let m = simulate(
                &crate::model::trace::parse(&format!("twin-trace 2\nblock 0 1\n{body}end\n"))
                    .unwrap(),
                soc,
                &Default::default(),
            );
            m.pipes.iter().find(|p| p.pipe == Pipe::V).unwrap().busy_us * soc.clock_ghz * 1e3
        };
        let one = v_cycles(&vf.repeat(2));
        assert!(
            (one - (4.0 + costs::VF_VECTOR_START_CYCLES)).abs() < 1e-6,
            "{one}"
        );
        // asc_vf_call's scalar record between two functions does not part them
        let called = v_cycles(&format!("I S VfCall line=1\n{vf}I S VfCall line=1\n{vf}"));
        assert!((called - one).abs() < 1e-6, "{called}");
        // a copy between them does: two starts
        let parted = v_cycles(&format!("{vf}{copy}{vf}"));
        assert!(
            (parted - (4.0 + 2.0 * costs::VF_VECTOR_START_CYCLES)).abs() < 1e-6,
            "{parted}"
        );
        // repeat-form vector calls pay none
        assert!(
            (v_cycles("I V Adds dt=4 rep=1 line=3\n") - 1.0 - costs::VEC_DEFAULT_FIXED).abs()
                < 1e-6
        );
    }

    /// A mixed trace (version 4): the AIC's Mmad work and the AIVs' vector work land on their own cores
    /// (the M pipe's busiest core is an AIC, the V pipe's an AIV); a cross-core wait holds the AIVs until
    /// the AIC's set has fired, so the launch takes longer than the same work without the flag, where
    /// the kinds overlap; and the parser tells the cores apart.
    #[test]
    fn mixed_traces_put_cube_work_on_the_aic_and_flags_order_the_aivs() {
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let body = |flags: bool| {
            let (set, wait) = if flags {
                ("xset M x0.0\n", "xwait S x0.0 n1\n")
            } else {
                ("", "")
            };
            let mut t = String::from("twin-trace 4\n");
            for b in 0..2 {
                t += &format!("block {b} 2 aic\n");
                for _ in 0..20 {
                    t += "I M Mmad m=128 k=128 n=128 dt=2 line=4\n";
                }
                t += set;
                t += "end\n";
                for k in 0..2 {
                    t += &format!("block {b} 2 aiv{k}\n{wait}");
                    for _ in 0..40 {
                        t += "I V Add dt=4 n=8192 rep=128 line=9\n";
                    }
                    t += "end\n";
                }
            }
            t
        };
        let run = |text: &str| {
            let t = crate::model::trace::parse(text).unwrap();
            assert_eq!(t.blocks.len(), 6);
            assert_eq!(t.blocks[2].core, CoreKind::Aiv(1));
            simulate(&t, soc, &Default::default())
        };
        let (with, without) = (run(&body(true)), run(&body(false)));
        assert_eq!(with.block_dim, 2);
        assert_eq!(with.cores, 6, "2 groups of one AIC and two AIVs");
        // core numbers: group slot * 3 + (0 AIC, 1 + k AIV k)
        let kinds: Vec<u32> = with.blocks.iter().map(|b| b.core).collect();
        assert_eq!(kinds, vec![0, 1, 2, 3, 4, 5]);
        let busy = |t: &Timing, core: u32, p: Pipe| {
            t.blocks
                .iter()
                .filter(|b| b.core == core)
                .flat_map(|b| b.busy.iter())
                .filter(|x| x.pipe == p)
                .map(|x| x.busy_us)
                .sum::<f64>()
        };
        assert!(busy(&with, 0, Pipe::M) > 0.0 && busy(&with, 0, Pipe::V) == 0.0);
        assert!(busy(&with, 1, Pipe::V) > 0.0 && busy(&with, 1, Pipe::M) == 0.0);
        // The AIVs start after the AIC's 20 Mmads: the flag serialises what otherwise overlaps.
        let aic_end = with.blocks[0].end_us;
        let aiv_end = with.blocks[1].end_us;
        assert!(aiv_end > aic_end, "AIV ends {aiv_end} us, AIC {aic_end} us");
        assert!(
            with.latency_us > without.latency_us * 1.3,
            "with the flag {} us, without {} us",
            with.latency_us,
            without.latency_us
        );
        // A wait whose set never comes is noted, not a hang.
        let stuck = body(true).replace("xset M x0.0\n", "");
        let t = run(&stuck);
        assert!(
            t.notes.iter().any(|n| n.contains("cross-core waits")),
            "{:?}",
            t.notes
        );
    }

    /// The two AIVs of a mixed Matmul (the twin computes each AIV's requests where they are made, so its
    /// Mmads are traced on the AIVs) share their group's one cube: their Mmads queue on one M pipe, and
    /// the group takes the sum of their cube work, not the longer of the two. The idle AIC, which copies
    /// nothing, leaves the chip's bandwidth to the AIVs. Found on the best-practice guide's pure-Cube case
    /// (`bp_pure_cube`: MIX over 48 AIVs 17.85 us, pure Cube over 24 AICs 11.21 us), which the model had
    /// the wrong way round at two cores: each AIV had a cube of its own.
    #[test]
    fn the_aivs_of_a_mixed_group_share_its_one_cube() {
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let mmads = "I M Mmad m=128 k=128 n=128 dt=2 line=4\n".repeat(50);
        let mixed = format!(
            "twin-trace 4\nblock 0 1 aic\nend\nblock 0 1 aiv0\n{mmads}end\nblock 0 1 aiv1\n{mmads}end\n"
        );
        let one_aic = format!("twin-trace 2\nblock 0 1\n{mmads}{mmads}end\n");
        let run = |text: &str| {
            simulate(
                &crate::model::trace::parse(text).unwrap(),
                soc,
                &Default::default(),
            )
        };
        let (m, c) = (run(&mixed), run(&one_aic));
        let mmad_us = 100.0 * super::super::cube::mmad_macs(128, 128, 128, 2) as f64
            / super::super::cube::mmad_rate(2)
            / soc.cycles_per_us();
        assert!(
            m.latency_us - m.launch_us >= mmad_us,
            "mixed {} us for {mmad_us} us of Mmads",
            m.latency_us - m.launch_us
        );
        assert!(
            (m.latency_us - c.latency_us).abs() < 0.01 * c.latency_us,
            "mixed {} us, one AIC {} us",
            m.latency_us,
            c.latency_us
        );
        // Copies on the AIVs only: the two of them share the chip's bandwidth, not three cores; an AIC
        // copying as much as each of them makes three, one copying a token 32 bytes barely counts.
        let copy =
            "I MTE2 DataCopy bytes=65536 bursts=1 burst=65536 gm=0 gap=0 line=3\n".repeat(64);
        let copies = format!(
            "twin-trace 4\nblock 0 24 aic\nend\nblock 0 24 aiv0\n{copy}end\nblock 0 24 aiv1\n{copy}end\n"
        );
        let aic_copying = |aic: &str| copies.replacen("block 0 24 aic\nend", aic, 1);
        let token = aic_copying(
            "block 0 24 aic\nI MTE2 DataCopy bytes=32 bursts=1 burst=32 gm=0 gap=0 line=3\nend",
        );
        let alike = aic_copying(&format!("block 0 24 aic\n{copy}end"));
        let (two, with_token, three) = (run(&copies), run(&token), run(&alike));
        assert!(
            two.latency_us < three.latency_us,
            "AIVs alone {} us, with an AIC copying alike {} us",
            two.latency_us,
            three.latency_us
        );
        assert!(
            (with_token.latency_us - two.latency_us).abs() < 0.01 * two.latency_us,
            "AIVs alone {} us, with an AIC's token copy {} us",
            two.latency_us,
            with_token.latency_us
        );
        // An AIC streaming beside AIVs that copy a token (ops-transformer's mla_prolog_v2 loads its
        // weights on the AIC): it takes about the group's whole share, as fast as one core kind alone.
        let streaming = format!(
            "twin-trace 4\nblock 0 24 aic\n{copy}end\nblock 0 24 aiv0\n{t}end\nblock 0 24 aiv1\n{t}end\n",
            t = "I MTE2 DataCopy bytes=32 bursts=1 burst=32 gm=0 gap=0 line=3\n"
        );
        let alone = format!(
            "twin-trace 4\nblock 0 24 aic\n{copy}end\nblock 0 24 aiv0\nend\nblock 0 24 aiv1\nend\n"
        );
        let (s, a) = (run(&streaming), run(&alone));
        assert!(
            (s.latency_us - a.latency_us).abs() < 0.02 * a.latency_us,
            "an AIC streaming beside token copies {} us, alone {} us",
            s.latency_us,
            a.latency_us
        );
    }

    /// GM -> L1 copies that a mixed Matmul's AIVs ask for are the AIC's MTE2 (`mte2_is_the_cubes`): 2 x 32
    /// of them on a group's two AIVs take as long as 64 on its AIC, where 2 x 32 copies into the AIVs' own
    /// UBs run side by side.
    #[test]
    fn the_l1_loads_of_a_mixed_groups_aivs_queue_on_its_one_cube_mte2() {
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let run = |text: &str| {
            simulate(
                &crate::model::trace::parse(text).unwrap(),
                soc,
                &Default::default(),
            )
            .latency_us
        };
        let l1 =
            "I MTE2 DataCopy bytes=16384 bursts=32 burst=512 gm=0 gap=0 mem=L1 nd2nz=1 line=3\n"
                .repeat(32);
        let ub = "I MTE2 DataCopy bytes=16384 bursts=32 burst=512 gm=0 gap=0 line=3\n".repeat(32);
        let group = |c: &str| {
            format!(
                "twin-trace 4\nblock 0 1 aic\nend\nblock 0 1 aiv0\n{c}end\nblock 0 1 aiv1\n{c}end\n"
            )
        };
        let aic = format!(
            "twin-trace 4\nblock 0 1 aic\n{l1}{l1}end\nblock 0 1 aiv0\nend\nblock 0 1 aiv1\nend\n"
        );
        let (to_l1, to_ub, on_aic) = (run(&group(&l1)), run(&group(&ub)), run(&aic));
        assert!(
            (to_l1 - on_aic).abs() < 0.02 * on_aic,
            "AIVs' L1 loads {to_l1} us, the AIC's {on_aic} us"
        );
        assert!(
            to_ub < 0.75 * to_l1,
            "into the UBs {to_ub} us, into L1 {to_l1} us"
        );
    }
}
