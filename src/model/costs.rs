// What one instruction costs, in cycles, on one core with the chip otherwise idle: DMA from the measured
// curves plus burst, stride, alignment and DataCopyPad terms; vector ops from a class table; scalar, cube and
// synchronisation constants; the once-per-kernel heads. Every constant names its source (FACTS.md section,
// confidence C confirmed / I inferred / G guess).
// Does not know when anything runs (that is pipeline.rs) nor how traces are written (trace.rs).

use super::soc::Soc;
use super::trace::{Instr, Pipe};

// ---- scalar issue and synchronisation ----

/// Scalar issue cost of one API call (the address, mask and repeat-parameter setup around it). G: FACTS gives
/// no figure; "a few cycles".
pub const ISSUE_CYCLES: f64 = 8.0;
/// Issue cost of a set or wait. msKPP charges 1 cycle for set_flag (FACTS §4, I).
pub const FLAG_CYCLES: f64 = 1.0;
/// Cost of a PipeBarrier on top of waiting for the pipes to drain. FACTS §4 suggests 10-40 cycles (G).
pub const BARRIER_CYCLES: f64 = 20.0;
/// `GetValue` (scalar read of a UB element). G.
pub const GET_VALUE_CYCLES: f64 = 20.0;
/// `SetValue` (scalar write of a UB element). G.
pub const SET_VALUE_CYCLES: f64 = 10.0;
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

// ---- once per kernel (GE ATT v1 model, FACTS §2/§3, C as published model) ----

pub const OP_HEAD_CYCLES: f64 = 300.0;
/// MTE2 pipe head: (base, per block_dim), small and large copies.
pub const MTE2_HEAD_SMALL: (f64, f64) = (882.0, 15.9);
pub const MTE2_HEAD_LARGE: (f64, f64) = (1575.0, 32.7);
/// ATT switches to its "large copy" fit at this many bytes per instruction.
pub const MTE2_LARGE_COPY_BYTES: f64 = 25_000.0;
pub const MTE3_HEAD_CYCLES: f64 = 497.0;
pub const V_HEAD_CYCLES: f64 = 37.0;

// ---- DMA ----

/// GM addresses not 512 B aligned reach about 70% of the aligned bandwidth (FACTS §2, C).
pub const UNALIGNED_BW_FACTOR: f64 = 0.7;
/// Alignment that gets full bandwidth (L2 line, FACTS §1/§2, C).
pub const GM_ALIGN: u64 = 512;
/// DMA granule: UB blocks are 32 B (FACTS §1, C); each burst moves whole granules.
pub const DMA_GRANULE: u64 = 32;
/// ATT stride penalty: + k * blockCount * (stride mod 256) cycles, k = 0.07 load, 0.02 store (FACTS §2, C).
/// The stride is read in 32 B units, the unit of DataCopyParams strides (I).
pub const STRIDE_PENALTY_LOAD: f64 = 0.07;
pub const STRIDE_PENALTY_STORE: f64 = 0.02;
/// Per extra burst of a multi-burst copy (descriptor handling). G.
pub const BURST_OVERHEAD_CYCLES: f64 = 4.0;
/// DataCopyPad over DataCopy: per burst and per instruction (FACTS §2 says it costs more through per-burst
/// overhead; no official figure). G.
pub const PAD_BURST_CYCLES: f64 = 6.0;
pub const PAD_FIXED_CYCLES: f64 = 20.0;

// ---- cube side (only what FACTS gives; rarely exercised by vector kernels) ----

/// L1->L0 bytes per cycle: L1->L0B 256, L1->L0A 512 (platform .ini, FACTS §1, I); the slower one taken.
pub const MTE1_BYTES_PER_CYCLE: f64 = 256.0;
/// Fixed cost of an MTE1, M or FIX instruction. G.
pub const CUBE_FIXED_CYCLES: f64 = 20.0;
/// Cube: one 16x16x16 fp16 fractal per cycle (FACTS §1, C); int8 16x32x16 per cycle (C); fp32 half rate (G).
pub const CUBE_FRACTAL: u64 = 16;

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
    vc("Brcb", 0, 1.0, D),          // broadcast (G)
    // One TransDataTo5HD repeat moves 512 B (16 blocks), twice a 256 B vector repeat (G).
    vc("TransDataTo5HD", 0, 2.0, D),
    // 2 cycles per repeat: binary ops.
    vc("Add", 0, 2.0, D),
    vc("Add", 2, 2.0, 22.2), // ATT: Add fp16 0.0103/22.2
    vc("Add", 4, 2.0, 23.2), // ATT: Add fp32 0.0206/23.2
    vc("Sub", 0, 2.0, D),
    vc("Mul", 0, 2.0, D),
    vc("Mul", 2, 2.0, 23.1), // ATT: Mul fp16 0.0110/23.1
    vc("Max", 0, 2.0, D),
    vc("Min", 0, 2.0, D),
    vc("And", 0, 2.0, D),
    vc("Or", 0, 2.0, D),
    vc("Select", 0, 2.0, D),
    vc("Compare", 0, 2.0, D),
    vc("AddRelu", 0, 2.0, D), // binary (G)
    vc("SubRelu", 0, 2.0, D), // binary (G)
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
    vc("Frac", 0, 4.0, 3.0 * D),  // x - Trunc(x)
    vc("Sign", 0, 4.0, 3.0 * D),  // compares and selects
    vc("Power", 0, 6.0, 3.0 * D), // Ln, Mul, Exp
    vc("Power", 2, 10.0, 3.0 * D),
    vc("PairReduceSum", 0, 3.0, D), // as BlockReduce (G)
    vc("PairReduceSum", 2, 7.0, D),
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
pub fn vector_class(api: &str, dt: u64) -> (f64, f64, bool) {
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

/// Direction of a GM copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Load,
    Store,
}

/// One GM copy on one core: `fixed` cycles (latency and per-burst terms, never shared), `stream` cycles (the
/// bandwidth part at single-core speed), and `share_bytes`: what it takes from the chip's bandwidth
/// (alignment waste included).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DmaCost {
    pub fixed: f64,
    pub stream: f64,
    pub share_bytes: f64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Fraction of bursts whose GM start is not 512 B aligned.
pub fn unaligned_fraction(gm: u64, bursts: u64, burst: u64, gap: u64) -> f64 {
    let first = if gm % GM_ALIGN == 0 { 0.0 } else { 1.0 };
    let stride = burst.wrapping_add(gap) % GM_ALIGN;
    if bursts <= 1 || stride == 0 {
        return first;
    }
    // Burst starts gm + i*stride (mod 512) cycle with period 512/g; at most one start per period is aligned,
    // and only if gm is a multiple of g.
    let g = gcd(stride, GM_ALIGN);
    if gm % g != 0 {
        return 1.0;
    }
    let period = (GM_ALIGN / g) as f64;
    1.0 - 1.0 / period
}

/// Cost of one GM copy (`DataCopy` / `DataCopyPad`) on `soc`.
pub fn dma_cost(ins: &Instr, dir: Dir, pad: bool, soc: &Soc) -> DmaCost {
    let curve = match dir {
        Dir::Load => &soc.gm_to_ub,
        Dir::Store => &soc.ub_to_gm,
    };
    let cyc = soc.cycles_per_us();
    let bytes = ins.bytes.unwrap_or(0);
    let bursts = ins.bursts.unwrap_or(1).max(1);
    let burst = ins.burst.unwrap_or(bytes / bursts);
    let gap = ins.gap.unwrap_or(0);
    let gm = ins.gm.unwrap_or(0);

    // Each burst moves whole 32 B granules.
    let moved = if bursts == 1 {
        bytes.div_ceil(DMA_GRANULE).saturating_mul(DMA_GRANULE)
    } else {
        bursts.saturating_mul(burst.div_ceil(DMA_GRANULE).saturating_mul(DMA_GRANULE))
    } as f64;

    let u = unaligned_fraction(gm, bursts, burst, gap);
    let align = (1.0 - u) + u / UNALIGNED_BW_FACTOR;

    let fixed_us = curve.fixed_time_us();
    let stream_us = (curve.time_us(moved) - fixed_us).max(0.0) * align;

    let b = bursts as f64;
    let mut fixed = fixed_us * cyc + (b - 1.0) * BURST_OVERHEAD_CYCLES;
    if bursts > 1 && gap > 0 {
        let k = match dir {
            Dir::Load => STRIDE_PENALTY_LOAD,
            Dir::Store => STRIDE_PENALTY_STORE,
        };
        fixed += k * b * ((gap / DMA_GRANULE) % 256) as f64;
    }
    if pad {
        fixed += PAD_FIXED_CYCLES + b * PAD_BURST_CYCLES;
    }
    DmaCost {
        fixed,
        stream: stream_us * cyc,
        share_bytes: moved * align,
    }
}

/// Cost in cycles of a non-DMA instruction on its pipe (vector, scalar, cube), and whether its API was known.
pub fn compute_cost(ins: &Instr, api: &str, soc: &Soc) -> (f64, bool) {
    if let Some(c) = ins.cycles {
        return (c, true);
    }
    match ins.pipe {
        Pipe::V => {
            let (fixed, per_rep, known) = vector_class(api, ins.dt.unwrap_or(2));
            (fixed + per_rep * vector_repeats(ins, soc), known)
        }
        Pipe::S => match api {
            "GetValue" | "SetValue" if ins.gm.is_some() => (SCALAR_GM_CYCLES, true),
            "SyncAll" => (SYNC_ALL_CYCLES, true),
            "GetSystemCycle" => (soc.clock_ghz * 1e3 / SYS_CNT_MHZ, true),
            "GetValue" => (GET_VALUE_CYCLES, true),
            "SetValue" => (SET_VALUE_CYCLES, true),
            _ => (SCALAR_DEFAULT_CYCLES, false),
        },
        Pipe::Mte1 => (
            CUBE_FIXED_CYCLES + ins.bytes.unwrap_or(0) as f64 / MTE1_BYTES_PER_CYCLE,
            true,
        ),
        Pipe::M => {
            let f = |x: Option<u64>, unit: u64| x.unwrap_or(0).div_ceil(unit) as f64;
            let (kunit, rate) = match ins.dt.unwrap_or(2) {
                1 => (2 * CUBE_FRACTAL, 1.0),
                4 => (CUBE_FRACTAL, 0.5),
                _ => (CUBE_FRACTAL, 1.0),
            };
            let fractals = f(ins.m, CUBE_FRACTAL) * f(ins.k, kunit) * f(ins.n, CUBE_FRACTAL);
            (CUBE_FIXED_CYCLES + fractals / rate, ins.m.is_some())
        }
        // FIX without bytes (e.g. to L1): a fixed cost only.
        Pipe::Fix => (CUBE_FIXED_CYCLES, true),
        // DMA pipes are costed by dma_cost; a cycles-less DMA here means zero bytes.
        Pipe::Mte2 | Pipe::Mte3 => (0.0, true),
    }
}

/// The once-per-kernel heads in cycles: op head plus the heads of the pipes the kernel uses.
/// `mean_mte2_bytes` picks ATT's small or large MTE2 head.
pub fn kernel_heads(block_dim: u32, uses: [bool; 7], mean_mte2_bytes: f64) -> [f64; 7] {
    let mut heads = [0.0; 7];
    let bd = f64::from(block_dim);
    if uses[Pipe::Mte2.index()] {
        let (base, per) = if mean_mte2_bytes >= MTE2_LARGE_COPY_BYTES {
            MTE2_HEAD_LARGE
        } else {
            MTE2_HEAD_SMALL
        };
        heads[Pipe::Mte2.index()] = base + per * bd;
    }
    if uses[Pipe::Mte3.index()] {
        heads[Pipe::Mte3.index()] = MTE3_HEAD_CYCLES;
    }
    if uses[Pipe::V.index()] {
        heads[Pipe::V.index()] = V_HEAD_CYCLES;
    }
    heads
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_lookup_prefers_exact_dtype() {
        assert_eq!(vector_class("Add", 2), (22.2, 2.0, true));
        assert_eq!(vector_class("Add", 4), (23.2, 2.0, true));
        assert_eq!(vector_class("Add", 1), (VEC_DEFAULT_FIXED, 2.0, true));
        assert_eq!(vector_class("Exp", 2).1, 4.0);
        assert_eq!(vector_class("Exp", 4).1, 2.0);
        // The names the twin's sort family and Power trace are costed, not defaulted.
        for api in ["Power", "Concat", "Sort32", "MrgSort", "Extract"] {
            assert!(vector_class(api, 4).2, "{api} has a cost class");
        }
        assert_eq!(vector_class("Power", 2).1, 10.0);
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

    #[test]
    fn unaligned_fractions() {
        assert_eq!(unaligned_fraction(0, 1, 1024, 0), 0.0);
        assert_eq!(unaligned_fraction(32, 1, 1024, 0), 1.0);
        assert_eq!(unaligned_fraction(0, 8, 512, 512), 0.0);
        assert_eq!(unaligned_fraction(0, 8, 256, 0), 0.5);
        assert_eq!(unaligned_fraction(32, 8, 256, 0), 1.0);
    }
}
