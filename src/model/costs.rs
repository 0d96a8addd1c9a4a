// What one instruction costs, in cycles, on one core: GM copies from the measured DMA engine and memory
// system (soc.rs `MemSys`, with what memory.rs found for the copy: L2 hits, misses, split lines, same-address
// reads, write-backs); vector ops from a class table plus UB bank conflicts; scalar, cube and synchronisation
// constants; the fixed cost of a launch. Every constant names its source (a measured row id of
// shared/measured/figures.json, M; or FACTS.md section, confidence C confirmed / I inferred / G guess).
// Does not know when anything runs (that is pipeline.rs) nor how traces are written (trace.rs).

use super::memory::{Dir, DmaMem};
use super::soc::Soc;
use super::trace::{Instr, Pipe, UbStrides};

// ---- scalar issue and synchronisation ----

/// Scalar issue cost of one API call (the address, mask and repeat-parameter setup around it). G: FACTS gives
/// no figure; "a few cycles".
pub const ISSUE_CYCLES: f64 = 8.0;
/// Start of a SIMD vector function (`asc_vf_call`, traced `VfCall` on the scalar pipe): the scalar unit
/// hands the function to the vector unit, which then fetches and issues the function's register
/// instructions itself, its `uint16_t` loops as hardware loops (asc-devkit docs/zh/guide, "VF循环优化":
/// Hardware Loop; "VF融合优化": fusing VFs removes redundant "VF启动开销", VF start overhead). G: no figure
/// of that overhead is published; one instruction issue is taken.
pub const VF_START_CYCLES: f64 = ISSUE_CYCLES;
/// What a vector function costs the vector unit once, whatever it runs: fetching its instruction stream,
/// setting up its hardware loops and draining its dependent tail before the next function or copy uses
/// its results ("VF启动开销", asc-devkit guide "VF融合优化"). Charged on the V pipe at the first register
/// instruction after any other record: functions called back to back with nothing between count once,
/// as the compiler fuses them (same guide: VFs of equivalent control flow are fused). Derived from
/// cann-samples' rms_norm_quant_story (Story.md, Step 4 -> Step 5, figures of the cannsim simulator of
/// the Ascend950, not hardware): batching rows per UB pass (64 -> 7 passes of the two fused functions
/// per core) cut aiv_vec_time from 86.9% of 54.3 us to 82.9% of 49.0 us, 6.57 us per core for 57
/// fewer starts: 213 cycles at the assumed 1.85 GHz (M-sim, derived).
pub const VF_VECTOR_START_CYCLES: f64 = 213.0;
/// Issue cost of a set or wait. msKPP charges 1 cycle for set_flag (FACTS §4, I).
pub const FLAG_CYCLES: f64 = 1.0;
/// Cost of a PipeBarrier on top of waiting for the pipes to drain. FACTS §4 suggests 10-40 cycles (G).
pub const BARRIER_CYCLES: f64 = 20.0;
/// Any other scalar-pipe instruction. G.
pub const SCALAR_DEFAULT_CYCLES: f64 = 4.0;
/// `GetValue`/`SetValue` on a GlobalTensor (`gm=` present): a scalar access through the data cache to GM,
/// about an HBM round trip. G.
pub const SCALAR_GM_CYCLES: f64 = 200.0;
/// The system counter `GetSystemCycle` reads runs at 50 MHz (GetSystemCycle, asc-devkit docs:
/// https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0282.html).
/// The twin advances it one tick per read, so a read is charged one tick of the core clock: a loop that
/// waits for the counter to pass a target then takes as long as the target says. D.
pub const SYS_CNT_MHZ: f64 = 50.0;
/// `SyncAll` after the last block arrives: a few GM round trips through the workspace (FACTS §4 says it
/// synchronises all cores through GM; no figure). G.
pub const SYNC_ALL_CYCLES: f64 = 1000.0;
/// A cross-core flag (CrossCoreSetFlag -> CrossCoreWaitFlag between the AIC and its AIVs) from the set
/// firing to the waiting core going on: a round trip through the task scheduler the documentation
/// describes (CrossCoreSetFlag(ISASI).md: the cores report to it, it updates the counters). G: no figure.
pub const XCORE_FLAG_CYCLES: f64 = 100.0;

// ---- once per kernel ----

/// The fixed cost a launch adds to `Task Duration`, in cycles (soc `MemSys::launch_us`:
/// ascdevkit_add_case1, Task Duration - aiv_time of a one-block launch).
pub fn launch_cycles(soc: &Soc) -> f64 {
    soc.mem.launch_us * soc.cycles_per_us()
}

/// The fraction by which the slowest of `running` cores ends after the modelled one (soc
/// `MemSys::core_skew`: the 48-block add rows), none for one core.
pub fn core_skew(running: u32, soc: &Soc) -> f64 {
    if running <= 1 || soc.aiv_cores <= 1 {
        return 0.0;
    }
    let share = f64::from(running.min(soc.aiv_cores) - 1) / f64::from(soc.aiv_cores - 1);
    soc.mem.core_skew * share
}

// The cube side's rates and latencies live in cube.rs.

// ---- vector ----

/// Fixed cost per vector call when the class table has none: FACTS §3 "about 20-30 cycles" (I).
pub const VEC_DEFAULT_FIXED: f64 = 24.0;
/// Per-repeat cycles of an API the table does not know: costed as a binary op. G.
pub const VEC_DEFAULT_PER_REPEAT: f64 = 2.0;

/// Vector cost class of (api, source element bytes): cycles per repeat (msKPP, FACTS §3) and fixed cycles
/// per call (GE ATT linear-fit intercepts, FACTS §3, where published; otherwise the default).
/// `dt` 0 matches any element size; an exact `dt` row wins over a 0 row.
pub struct VecClass {
    pub api: &'static str,
    pub dt: u64,
    pub per_repeat: f64,
    pub fixed: f64,
}

const fn vc(api: &'static str, dt: u64, per_repeat: f64, fixed: f64) -> VecClass {
    VecClass {
        api,
        dt,
        per_repeat,
        fixed,
    }
}
const D: f64 = VEC_DEFAULT_FIXED;

/// msKPP per-repeat cycles (C unless marked) and ATT intercepts (C where given).
pub static VEC_CLASSES: &[VecClass] = &[
    // 1 cycle per repeat: scalar-operand and unary ops.
    vc("Adds", 0, 1.0, D),
    vc("Muls", 0, 1.0, D),
    vc("Maxs", 0, 1.0, D),
    vc("Mins", 0, 1.0, D),
    // ClampMin / ClampMax (high-level): one scalar-operand max / min per repeat, as Maxs / Mins (G).
    vc("ClampMin", 0, 1.0, D),
    vc("ClampMax", 0, 1.0, D),
    vc("Abs", 0, 1.0, D),
    vc("Relu", 0, 1.0, D),
    vc("LeakyRelu", 0, 1.0, D),
    vc("Reciprocal", 0, 1.0, D),
    vc("Rsqrt", 0, 1.0, D),
    vc("Duplicate", 0, 1.0, D),
    vc("Copy", 0, 1.0, D),
    vc("DataCopy", 0, 1.0, D), // UB->UB copy on V: the Copy class (I)
    vc("Cast", 0, 1.0, D),
    vc("Cast", 2, 1.0, 20.1),       // ATT: Cast fp16->fp32 0.0147/20.1
    vc("Not", 0, 1.0, D),           // unary (G)
    vc("ShiftLeft", 0, 1.0, D),     // scalar operand (G)
    vc("ShiftRight", 0, 1.0, D),    // scalar operand (G)
    vc("CompareScalar", 0, 1.0, D), // scalar operand (G)
    vc("Compares", 0, 1.0, D),      // CompareScalar's newer name (asc-devkit Compares.md) (G)
    vc("Brcb", 0, 1.0, D),          // broadcast (G)
    // One TransDataTo5HD repeat moves 512 B (16 blocks), twice a 256 B vector repeat (G).
    vc("TransDataTo5HD", 0, 2.0, D),
    // Binary arithmetic: 1 cycle per repeat when the two sources sit in different UB bank groups, plus
    // `MemSys::ub_read_read_cycles` when they do not. Measured (M): asc-devkit add_high_performance's
    // aiv_vec_time per core is 2.0 cycles per fp16 repeat + 22 per call with the sources 32 KiB apart
    // (cases 1-5: 86 cycles per 32-repeat call, 278 per 128-repeat call) and 1.0 + 22 with them 256 B off
    // (case 6: 150 per 127-repeat call), the README's "128 half per cycle". msKPP's 2 (FACTS §3) is the
    // conflicted figure; ATT's fits (Add 0.0103, Mul 0.0110 cycles per fp16 element) put Mul with Add, and
    // the other binary ops are taken as Add (G).
    vc("Add", 0, 1.0, D),
    vc("Add", 2, 1.0, 22.2), // ATT: Add fp16 0.0103/22.2
    vc("Add", 4, 1.0, 23.2), // ATT: Add fp32 0.0206/23.2
    vc("Sub", 0, 1.0, D),
    vc("Mul", 0, 1.0, D),
    vc("Mul", 2, 1.0, 23.1), // ATT: Mul fp16 0.0110/23.1
    vc("Max", 0, 1.0, D),
    vc("Min", 0, 1.0, D),
    vc("And", 0, 1.0, D),
    vc("Or", 0, 1.0, D),
    vc("AddRelu", 0, 1.0, D), // binary (G)
    vc("SubRelu", 0, 1.0, D), // binary (G)
    // Select and Compare read or write a mask besides their two sources: msKPP's 2 is kept (no measurement).
    vc("Select", 0, 2.0, D),
    vc("Compare", 0, 2.0, D),
    // Transcendentals: 2 fp32, about 4 fp16.
    vc("Exp", 0, 2.0, D),
    vc("Exp", 2, 4.0, 28.0), // ATT: Exp fp16 0.0311/28.0
    vc("Ln", 0, 2.0, D),
    vc("Ln", 2, 4.0, D),
    vc("Sqrt", 0, 2.0, D),
    vc("Sqrt", 2, 4.0, D),
    vc("Div", 0, 4.0, D),
    vc("Div", 2, 4.0, 29.1), // ATT: Div fp16 0.046/29.1
    // Reductions: 3 WholeReduceSum fp32, 7 fp16 WholeReduce and BlockReduce.
    vc("WholeReduceSum", 0, 3.0, D),
    vc("WholeReduceSum", 2, 7.0, 35.0), // ATT: WholeReduceSum fp16 0.0547/35
    vc("WholeReduceMax", 0, 3.0, D),    // fp32 taken as WholeReduceSum fp32 (G)
    vc("WholeReduceMax", 2, 7.0, 35.0),
    vc("WholeReduceMin", 0, 3.0, D), // (G)
    vc("WholeReduceMin", 2, 7.0, 35.0),
    vc("BlockReduceSum", 0, 3.0, D), // fp32 (G)
    vc("BlockReduceSum", 2, 7.0, D),
    vc("BlockReduceMax", 0, 3.0, D), // fp32 (G)
    vc("BlockReduceMax", 2, 7.0, D),
    vc("BlockReduceMin", 0, 3.0, D), // fp32 (G)
    vc("BlockReduceMin", 2, 7.0, D),
    // ReduceDataBlock<SUM/MAX/MIN> is the per-block reduction of BlockReduceSum/Max/Min with the reduction a
    // template argument (asc-devkit ReduceDataBlock.md): their figures (G).
    vc("ReduceDataBlock", 0, 3.0, D),
    vc("ReduceDataBlock", 2, 7.0, D),
    // Level-2 reductions run a whole-reduce pass plus a final pass: per repeat as WholeReduce, twice the fixed
    // cost (G).
    vc("ReduceSum", 0, 3.0, 2.0 * D),
    vc("ReduceSum", 2, 7.0, 2.0 * D),
    vc("ReduceMax", 0, 3.0, 2.0 * D),
    vc("ReduceMax", 2, 7.0, 2.0 * D),
    vc("ReduceMin", 0, 3.0, 2.0 * D),
    vc("ReduceMin", 2, 7.0, 2.0 * D),
    // Three-operand: 5-6.
    vc("Mla", 0, 5.0, D),
    vc("MulAddDst", 0, 6.0, D),
    vc("FusedMulAdd", 0, 6.0, D), // (G)
    vc("Transpose", 0, 2.0, D),   // one 16 x 16 block of 2-byte elements, two repeats' worth (G)
    vc("Axpy", 0, 5.0, D),        // (G)
    // High-level math APIs expand into several basic instructions; each row is the sum of its expansion's
    // per-repeat cycles and fixed costs (G: no public figure isolates them).
    vc("Log", 0, 2.0, D), // = Ln
    vc("Log", 2, 4.0, D),
    vc("Log2", 0, 3.0, 2.0 * D), // Ln + Muls
    vc("Log2", 2, 5.0, 2.0 * D),
    vc("Log10", 0, 3.0, 2.0 * D),
    vc("Log10", 2, 5.0, 2.0 * D),
    vc("Sigmoid", 0, 5.0, 4.0 * D), // Muls, Exp, Adds, Reciprocal
    vc("Sigmoid", 2, 7.0, 4.0 * D),
    vc("Tanh", 0, 7.0, 5.0 * D), // Muls, Exp, Adds, Div, Adds
    vc("Tanh", 2, 11.0, 5.0 * D),
    vc("Erf", 0, 12.0, 10.0 * D), // a rational approximation of about ten instructions
    vc("Erf", 2, 16.0, 10.0 * D),
    vc("Sin", 0, 12.0, 10.0 * D), // range reduction and a polynomial
    vc("Cos", 0, 12.0, 10.0 * D),
    vc("Floor", 0, 2.0, 2.0 * D), // two Casts
    vc("Ceil", 0, 2.0, 2.0 * D),
    vc("Round", 0, 2.0, 2.0 * D),
    vc("Trunc", 0, 2.0, 2.0 * D),
    vc("Frac", 0, 3.0, 3.0 * D),    // x - Trunc(x): Trunc 2, Sub 1
    vc("Sign", 0, 4.0, 3.0 * D),    // compares and selects
    vc("Power", 0, 5.0, 3.0 * D),   // Ln 2, Mul 1, Exp 2
    vc("Xor", 0, 4.0, 4.0 * D), // Or, And, Not, And (asc-devkit Xor.md's formula): 1 + 1 + 1 + 1
    vc("Sum", 0, 3.0, 2.0 * D), // as ReduceSum per repeat, and the rows' results gathered (G)
    vc("Power", 2, 9.0, 3.0 * D), // Ln 4, Mul 1, Exp 4
    vc("PairReduceSum", 0, 3.0, D), // as BlockReduce (G)
    vc("PairReduceSum", 2, 7.0, D),
    // ArithProgression (high-level) is built as documented (asc-devkit docs atlasascendc_api_07_0856):
    // the first 8 values by scalar writes, then one Adds per block of 8 up to 64 values and one per 64
    // beyond: Adds' 1 cycle per repeat, and the fixed cost of the eight calls up to 64 (G).
    vc("ArithProgression", 0, 1.0, 8.0 * D),
    // Gathers and sorts.
    vc("Gather", 0, 18.0, D),  // msKPP 12-24, midpoint (I)
    vc("Gatherb", 0, 18.0, D), // (G)
    vc("GatherMask", 0, 14.0, D),
    vc("MrgSort", 0, 16.0, D),
    vc("MrgSort4", 0, 16.0, D), // (G)
    vc("Sort32", 0, 16.0, D),   // (G)
    vc("Concat", 0, 1.0, D),    // a copy into the sort layout, as Copy (G)
    vc("Extract", 0, 2.0, D),   // splits (score, index) pairs: two outputs per repeat (G)
];

/// Cost of one vector call: (fixed cycles, cycles per repeat, known api?).
///
/// Register instructions (`Reg<Name>`, the Reg / MicroAPI and C API vector functions, traced one record of
/// one repeat each by templates/twin/include/kernel/twin/reg.h) are costed as one vector instruction over
/// VL = 256 bytes: one repeat of their class's per-repeat cycles (the class of `<Name>`; 1 cycle for the
/// register loads and stores and mask moves), and no fixed cost, since they issue back to back inside a
/// running vector function rather than as separate repeat-form calls. Assumption (G): no Ascend950 figure
/// is known; VL equals the dav-2201 repeat, whose per-repeat figures are taken.
pub fn vector_class(api: &str, dt: u64) -> (f64, f64, bool) {
    if let Some(name) = api.strip_prefix("Reg") {
        return match name {
            "LoadAlign" | "StoreAlign" | "Move" | "CreateMask" | "UpdateMask" => (0.0, 1.0, true),
            // asc_arange: an index vector written in one instruction, costed as a Move (G).
            "Arange" => (0.0, 1.0, true),
            // Reg::Truncate / asc_floor: one rounding instruction, priced as the Floor class.
            "Truncate" => (0.0, vector_class("Floor", dt).1, true),
            "Compare" | "CompareScalar" => (0.0, 1.0, true),
            // Two-source arithmetic on registers: the repeat form's second cycle per repeat is its second
            // 256 B read from the UB, which a register instruction does not make (its sources are
            // registers: asc-devkit guide "Reg矢量计算编程"); one cycle, as the one-source ones (I).
            // Found on cann-samples' gelu_eltwise_regbase_story: its Step 4 (constants duplicated into
            // registers once, `Adds` -> `Add`) was modelled 4.9% slower than Step 3.
            "Add" | "Sub" | "Mul" | "Max" | "Min" | "And" | "Or" | "Select" => (0.0, 1.0, true),
            "Reduce" => (0.0, vector_class("ReduceSum", dt).1, true),
            _ => {
                let (_, per_repeat, known) = vector_class(name, dt);
                (0.0, per_repeat, known)
            }
        };
    }
    let mut any = None;
    for c in VEC_CLASSES {
        if c.api == api {
            if c.dt == dt {
                return (c.fixed, c.per_repeat, true);
            }
            if c.dt == 0 && any.is_none() {
                any = Some((c.fixed, c.per_repeat, true));
            }
        }
    }
    any.unwrap_or((VEC_DEFAULT_FIXED, VEC_DEFAULT_PER_REPEAT, false))
}

/// Repeats of a vector call: `rep=` if given, else the elements over 256 B per repeat at the wider of the
/// source and destination element sizes, else `bytes=` over 256 B (a UB->UB DataCopy on V), else 0.
pub fn vector_repeats(ins: &Instr, soc: &Soc) -> f64 {
    let per_repeat = u64::from(soc.vector_repeat_bytes.max(1));
    if let Some(rep) = ins.rep {
        return rep as f64;
    }
    let width = ins.dt.unwrap_or(2).max(ins.dst.unwrap_or(0)).max(1);
    match (ins.n, ins.bytes) {
        (Some(n), _) => n.saturating_mul(width).div_ceil(per_repeat) as f64,
        (None, Some(bytes)) => bytes.div_ceil(per_repeat) as f64,
        (None, None) => 0.0,
    }
}

// ---- DMA cost ----

/// One GM copy on one core: `engine` cycles its pipe is busy (per instruction, per burst, bytes at the
/// engine's rate), and what it takes from the chip: `hbm_bytes` of HBM bandwidth, `l2_bytes` of L2 read
/// bandwidth (writes counted at the L2 read rate over the L2 write rate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DmaCost {
    pub engine: f64,
    pub hbm_bytes: f64,
    pub l2_bytes: f64,
}

/// Cost of one GM copy (`DataCopy` / `DataCopyPad`; `pad` for the latter) given what the memory system made
/// of it. A burst takes the longer of its burst cost (served from L2 or HBM, DataCopyPad's extra, the
/// same-address wait) and its bytes at the engine's rate (soc `MemSys`, measured).
pub fn dma_cost(ins: &Instr, dir: Dir, pad: bool, m: &DmaMem, soc: &Soc) -> DmaCost {
    let mem = &soc.mem;
    let bursts = ins.bursts.unwrap_or(1).max(1) as f64;
    let pad_cycles = if pad { mem.pad_burst_cycles } else { 0.0 };
    match dir {
        Dir::Load => {
            let miss = m.miss_bytes + m.split_bytes;
            let bytes_time = (m.hit_bytes / mem.core_hit_bytes_per_cycle
                + miss / mem.core_miss_bytes_per_cycle)
                / bursts;
            let miss_share = (m.miss_bursts / bursts).clamp(0.0, 1.0);
            let burst_cost = mem.burst_hit_cycles
                + (mem.burst_miss_cycles - mem.burst_hit_cycles) * miss_share
                + pad_cycles
                + mem.same_addr_cycles_per_core * f64::from(m.same_addr_others);
            DmaCost {
                engine: mem.dma_instr_cycles + bursts * burst_cost.max(bytes_time),
                hbm_bytes: miss,
                l2_bytes: m.hit_bytes,
            }
        }
        Dir::Store => {
            let bytes = ins.bytes.unwrap_or(0) as f64 + m.split_bytes;
            let bytes_time = bytes / mem.core_store_bytes_per_cycle / bursts;
            let burst_cost = mem.burst_hit_cycles + pad_cycles;
            DmaCost {
                engine: mem.dma_store_instr_cycles + bursts * burst_cost.max(bytes_time),
                hbm_bytes: m.writeback_bytes,
                l2_bytes: bytes * mem.l2_read_gbps / mem.l2_write_gbps.max(1e-9),
            }
        }
    }
}

// ---- UB bank conflicts ----

/// UB address fields (bank_conflict_ub README, asc-devkit examples/01_simd_cpp_api/05_best_practices/
/// 04_memory_access/bank_conflict_ub: UB_ADDR[17:0] = {bank[1:0], row[6:0], bank group[3:0], offset[4:0]};
/// 16 groups of 3 banks of 128 rows of 32 B). A repeat touches 8 blocks of 32 B, `blk` blocks apart,
/// starting `rep` blocks after the previous repeat's first: the (bank, group) pairs it touches, as bit
/// `bank * 16 + group` of a u64.
fn ub_cells(base: u64, r: u64, (blk, rep): (u32, u32)) -> u64 {
    let mut cells = 0u64;
    for j in 0..8u64 {
        let addr = base + (r * rep as u64 + j * blk as u64) * 32;
        cells |= 1 << (((addr >> 16) & 3) * 16 + ((addr >> 5) & 15));
    }
    cells
}

/// The bank groups of `ub_cells`, whatever the bank.
fn groups(cells: u64) -> u64 {
    (cells | cells >> 16 | cells >> 32 | cells >> 48) & 0xffff
}

/// Extra cycles per repeat from UB bank conflicts of a binary vector instruction with operand addresses
/// `ubd`, `ubs0`, `ubs1` (trace version 3) and strides `ubst` (version 6; contiguous when absent).
pub fn bank_conflict_cycles_per_repeat(ins: &Instr, soc: &Soc) -> f64 {
    let (Some(d), Some(s0)) = (ins.ub_dst, ins.ub_src0) else {
        return 0.0;
    };
    let strides = ins.ub_strides.unwrap_or(UbStrides::CONTIGUOUS);
    strided_conflict_cycles_per_repeat(d, s0, ins.ub_src1, strides, ins.rep.unwrap_or(0), soc)
}

/// `bank_conflict_cycles_per_repeat` of a contiguous instruction with `reps` repeats whose destination and
/// sources start at UB byte addresses `d`, `s0` and `s1` (None: unary).
pub fn operand_conflict_cycles_per_repeat(
    d: u64,
    s0: u64,
    s1: Option<u64>,
    reps: u64,
    soc: &Soc,
) -> f64 {
    strided_conflict_cycles_per_repeat(d, s0, s1, UbStrides::CONTIGUOUS, reps, soc)
}

/// Read-read: the two sources' blocks in one bank group in the same repeat. Read-write: the write of the
/// previous repeat (the hardware delays writes by one repeat) on a bank and group a read touches. A
/// repeat pays the larger. The contiguous layout moves 8 of the 16 groups per repeat, so its pattern
/// repeats every two repeats and repeats 1 and 2 stand for all; other strides move a source by any number
/// of groups (src0 repeat stride 1 in the README's scenario 7: one group per repeat), so up to 16 repeats
/// are followed, a whole turn of the groups.
pub fn strided_conflict_cycles_per_repeat(
    d: u64,
    s0: u64,
    s1: Option<u64>,
    strides: UbStrides,
    reps: u64,
    soc: &Soc,
) -> f64 {
    if reps == 0 {
        return 0.0;
    }
    let span = if strides == UbStrides::CONTIGUOUS {
        2
    } else {
        16
    };
    let tried = reps.min(span);
    let mut extra = 0.0;
    for r in 1..=tried {
        let src: Vec<u64> = [Some((s0, strides.src0)), s1.map(|a| (a, strides.src1))]
            .into_iter()
            .flatten()
            .map(|(a, st)| ub_cells(a, r, st))
            .collect();
        let rr = src.len() == 2 && groups(src[0]) & groups(src[1]) != 0;
        let written = ub_cells(d, r - 1, strides.dst);
        let rw = src.iter().any(|&c| c & written != 0);
        let mut c: f64 = 0.0;
        if rr {
            c = c.max(soc.mem.ub_read_read_cycles);
        }
        if rw {
            c = c.max(soc.mem.ub_read_write_cycles);
        }
        extra += c;
    }
    extra / tried as f64
}

/// Cost in cycles of a non-DMA instruction on its pipe (vector, scalar, cube), and whether its API was known.
pub fn compute_cost(ins: &Instr, api: &str, soc: &Soc) -> (f64, bool) {
    if let Some(c) = ins.cycles {
        return (c, true);
    }
    match ins.pipe {
        Pipe::V => {
            let (fixed, per_rep, known) = vector_class(api, ins.dt.unwrap_or(2));
            let per_rep = per_rep + bank_conflict_cycles_per_repeat(ins, soc);
            (fixed + per_rep * vector_repeats(ins, soc), known)
        }
        Pipe::S => match api {
            "GetValue" | "SetValue" if ins.gm.is_some() => (SCALAR_GM_CYCLES, true),
            "SyncAll" => (SYNC_ALL_CYCLES, true),
            "GetSystemCycle" => (soc.clock_ghz * 1e3 / SYS_CNT_MHZ, true),
            "VfCall" => (VF_START_CYCLES, true),
            // Nop<count>: one record per cycle of delay (asc-devkit Nop.md)
            "Nop" => (1.0, true),
            "GetValue" | "SetValue" => (soc.mem.scalar_ub_access_cycles, true),
            // The high-level Matmul's runtime-tiling work (cube.rs), else the default.
            _ => super::cube::runtime_tiling_scalar_cycles(api, soc)
                .map_or((SCALAR_DEFAULT_CYCLES, false), |c| (c, true)),
        },
        // The cube pipes: src/model/cube.rs.
        Pipe::Mte1 | Pipe::M | Pipe::Fix => {
            super::cube::cost(ins, api, soc).unwrap_or((0.0, false))
        }
        // DMA pipes are costed by dma_cost; a cycles-less DMA here means zero bytes.
        Pipe::Mte2 | Pipe::Mte3 => (0.0, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ascend950's GM -> UB copy pays its measured fixed cost (soc.rs, from cann-samples'
    /// softmax_regbase_story); its stores and every 910B copy keep the 910B's 12.5 cycles.
    #[test]
    fn an_ascend950_load_pays_its_measured_fixed_cost_and_its_store_the_910b_one() {
        let trace = super::super::trace::parse(
            "twin-trace 2\nblock 0 1\nI MTE2 DataCopy bytes=16384 bursts=1 burst=16384 gm=0 gap=0 line=1\nend\n",
        )
        .unwrap();
        let super::super::trace::Record::Instr(ins) = &trace.blocks[0].records[0] else {
            panic!("not an instruction")
        };
        let m = DmaMem {
            hit_bytes: 16384.0,
            ..Default::default()
        };
        let a5 = crate::model::soc::lookup("Ascend950").unwrap();
        let b1 = crate::model::soc::lookup("Ascend910B1").unwrap();
        let load = |soc| dma_cost(ins, Dir::Load, false, &m, soc).engine;
        let store = |soc| dma_cost(ins, Dir::Store, false, &m, soc).engine;
        assert_eq!(load(a5) - load(b1), 740.0 - 12.5);
        assert_eq!(store(a5), store(b1));
    }

    #[test]
    fn a_register_instruction_is_one_repeat_of_its_class_without_a_call_cost() {
        assert_eq!(vector_class("RegMul", 4), (0.0, 1.0, true));
        assert_eq!(vector_class("Mul", 4).1, 1.0);
        assert_eq!(
            vector_class("RegExp", 4),
            (0.0, vector_class("Exp", 4).1, true)
        );
        assert_eq!(vector_class("RegAdds", 4), (0.0, 1.0, true));
        assert_eq!(vector_class("RegLoadAlign", 4), (0.0, 1.0, true));
        assert_eq!(
            vector_class("RegNoSuchOp", 4),
            (0.0, VEC_DEFAULT_PER_REPEAT, false)
        );
    }

    #[test]
    fn class_lookup_prefers_exact_dtype() {
        assert_eq!(vector_class("Add", 2), (22.2, 1.0, true));
        assert_eq!(vector_class("Add", 4), (23.2, 1.0, true));
        assert_eq!(vector_class("Add", 1), (VEC_DEFAULT_FIXED, 1.0, true));
        assert_eq!(vector_class("Exp", 2).1, 4.0);
        assert_eq!(vector_class("Exp", 4).1, 2.0);
        // The names the twin's sort family and Power trace are costed, not defaulted.
        for api in ["Power", "Concat", "Sort32", "MrgSort", "Extract"] {
            assert!(vector_class(api, 4).2, "{api} has a cost class");
        }
        assert_eq!(vector_class("Power", 2).1, 9.0);
        // Issue 18's names cost as their neighbours: ReduceDataBlock as BlockReduce*, ClampMin/Max as Maxs/Mins.
        for dt in [2, 4] {
            assert_eq!(
                vector_class("ReduceDataBlock", dt),
                vector_class("BlockReduceMax", dt)
            );
        }
        assert_eq!(vector_class("ClampMin", 4), vector_class("Maxs", 4));
        assert_eq!(vector_class("ClampMax", 2), vector_class("Mins", 2));
        assert_eq!(
            vector_class("Compares", 4),
            vector_class("CompareScalar", 4)
        );
        assert_eq!(
            vector_class("Frobnicate", 2),
            (VEC_DEFAULT_FIXED, VEC_DEFAULT_PER_REPEAT, false)
        );
    }

    /// A read of the system counter costs one 50 MHz tick of the core clock, so a loop that waits for
    /// N ticks (the twin advances the counter one tick per read) models N / 50 us.
    #[test]
    fn a_system_counter_read_costs_one_tick() {
        let t =
            crate::model::trace::parse("twin-trace 1\nblock 0 1\nI S GetSystemCycle line=3\nend\n")
                .unwrap();
        let crate::model::trace::Record::Instr(i) = &t.blocks[0].records[0] else {
            panic!()
        };
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let (cycles, known) = compute_cost(i, "GetSystemCycle", soc);
        assert!(known);
        assert_eq!(cycles / soc.clock_ghz / 1e3, 1.0 / 50.0);
    }

    /// Nop<8>() (simulation-based-vf-profiling's warm-up kernel) delays 8 cycles: its 8 records, counted.
    #[test]
    fn a_nop_record_costs_one_cycle() {
        let t =
            crate::model::trace::parse("twin-trace 2\nblock 0 1\nI S Nop line=3 count=8\nend\n")
                .unwrap();
        let crate::model::trace::Record::Instr(i) = &t.blocks[0].records[0] else {
            panic!()
        };
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        assert_eq!(compute_cost(i, "Nop", soc), (1.0, true));
        assert_eq!(i.count, 8);
    }

    #[test]
    fn bank_conflicts_follow_the_ub_address_fields() {
        // bank_conflict_ub scenarios (fp32 Add, 64 repeats): src0, src1, dst and the conflict the README
        // finds; extra cycles per repeat as the model costs them.
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let rr = soc.mem.ub_read_read_cycles;
        let rw = soc.mem.ub_read_write_cycles;
        let cases: &[(u64, u64, u64, f64)] = &[
            (0, 0x10100, 0x20000, 0.0), // 1: no conflict
            (0, 0x4000, 0x10000, rr),   // 2: sources in one bank
            (0, 0x10000, 0x14100, rr),  // 3: sources in one bank group
            (0, 0x10100, 0x4000, 0.0),  // 4: src0 and dst in one bank, the write delayed a repeat
            (0, 0x10100, 0x4020, rw),   // 5: the delayed write meets src0's bank
            (0, 0x10100, 0x10100, 0.0), // 6: src1 and dst the same
        ];
        for (i, &(s0, s1, d, want)) in cases.iter().enumerate() {
            let text = format!(
                "twin-trace 3\nblock 0 1\nI V Add dt=4 n=4096 rep=64 ubd={d} ubs0={s0} ubs1={s1} line=1\nend\n"
            );
            let t = crate::model::trace::parse(&text).unwrap();
            let crate::model::trace::Record::Instr(ins) = &t.blocks[0].records[0] else {
                panic!()
            };
            assert_eq!(
                bank_conflict_cycles_per_repeat(ins, soc),
                want,
                "scenario {}",
                i + 1
            );
        }
        // 7 and 8: src1 = dst, src0 one block per repeat (block stride 0), that block 1 or 8 blocks on
        // each repeat. Repeat stride 1 walks src0 through src1's groups: of repeats 1..16, the odd ones
        // below group 8 and the even ones from group 8 meet them, 8 of 16. Stride 8 never does.
        for (ubst, want) in [("1/8/0/1/1/8", rr * 8.0 / 16.0), ("1/8/0/8/1/8", 0.0)] {
            let text = format!(
                "twin-trace 6\nblock 0 1\nI V Add dt=4 n=4096 rep=64 ubd=65792 ubs0=0 ubs1=65792 ubst={ubst} line=1\nend\n"
            );
            let t = crate::model::trace::parse(&text).unwrap();
            let crate::model::trace::Record::Instr(ins) = &t.blocks[0].records[0] else {
                panic!()
            };
            assert_eq!(bank_conflict_cycles_per_repeat(ins, soc), want, "{ubst}");
        }
    }

    #[test]
    fn a_malformed_stride_record_names_its_line() {
        let e = crate::model::trace::parse(
            "twin-trace 6\nblock 0 1\nI V Add dt=4 n=64 rep=1 ubd=0 ubs0=0 ubs1=0 ubst=1/8/0 line=1\nend\n",
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("line 3:"), "{e}");
        assert!(e.to_string().contains("six strides"), "{e}");
    }
}
