// What one instruction of the cube pipes costs: MTE1 (L1 -> L0A / L0B, L1 -> bias table), M (Mmad) and
// the FIX copies that stay on the core (L0C -> L1). L0C -> GM copies are DMA stores (costs::dma_cost).
// Owns: the cube rate and latency table and the Mmad fractal arithmetic. Does not know: when instructions
// run (pipeline.rs), the trace syntax (trace.rs), the twin.
//
// Figures: the documented row `ascdevkit_perf_l1_l0_fixpipe_params` of ../shared/measured/figures.json
// (asc-devkit tests/perf/{load_data,fixpipe,mmad}_perf/README.md, dav-2201 = Atlas A2/A3): L1 -> L0A
// LoadData2D 256 B/cycle, latency 28; L1 -> L0B 128 B/cycle, latency 28; L1 -> BiasTable 32 B/cycle,
// latency 20; L0C -> L1 fp32 -> fp16 128 B/cycle and fp32 -> int8 64 B/cycle (both 64 output elements a
// cycle), latency 20; Mmad b16 4096 MAC/cycle, b8 8192 MAC/cycle. Marked G where guessed.

use super::soc::Soc;
use super::trace::{Instr, Pipe, Record, Trace};

/// One row of the table: bytes (or MACs) per cycle and a fixed latency in cycles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub per_cycle: f64,
    pub latency: f64,
}

/// L1 -> L0A LoadData2D (documented row).
pub const LOAD_L0A: Rate = Rate {
    per_cycle: 256.0,
    latency: 28.0,
};
/// L1 -> L0B LoadData2D (documented row).
pub const LOAD_L0B: Rate = Rate {
    per_cycle: 128.0,
    latency: 28.0,
};
/// Any other MTE1 copy (L1 -> bias table, L1 -> fixpipe buffer): the L1 -> BiasTable row.
pub const LOAD_BT: Rate = Rate {
    per_cycle: 32.0,
    latency: 20.0,
};
/// L0C -> L1: 64 output elements a cycle (both documented rows), latency 20.
pub const FIX_L1_ELEMS: Rate = Rate {
    per_cycle: 64.0,
    latency: 20.0,
};
/// Mmad MACs per cycle by input element size: b16 4096, b8 8192 (documented); b32 (float) 2048, half the
/// b16 rate (G: the float fractal is 16 x 8, one a cycle assumed).
pub fn mmad_rate(dt: u64) -> f64 {
    match dt {
        1 => 8192.0,
        4 => 2048.0,
        _ => 4096.0,
    }
}
/// Issue latency of one Mmad before its first fractal (G: not documented; the other cube rows' 20-28).
pub const MMAD_LATENCY: f64 = 20.0;

/// MACs the cube performs for one Mmad: m and n rounded up to 16, k to the fractal depth (32 bytes of
/// input), as the hardware computes whole fractals (asc-devkit Mmad page: partly filled fractals).
pub fn mmad_macs(m: u64, k: u64, n: u64, dt: u64) -> u64 {
    let k0 = 32 / dt.clamp(1, 4);
    m.div_ceil(16) * 16 * k.div_ceil(k0) * k0 * n.div_ceil(16) * 16
}

/// The cube's compute roofline of a trace, in microseconds: every Mmad's MACs (whole fractals, as
/// `mmad_macs`) at the documented rate of its input size, spread evenly over all the SoC's AIC cores with
/// no latency, no load and no wait. 0 for a trace without Mmads. A kernel that pads less (base blocks
/// of whole fractals) lowers it; nothing else does.
pub fn compute_roofline_us(trace: &Trace, soc: &Soc) -> f64 {
    let mut cycles = 0.0;
    for block in &trace.blocks {
        for rec in &block.records {
            if let Record::Instr(ins) = rec
                && ins.pipe == Pipe::M
                && let (Some(m), Some(k), Some(n)) = (ins.m, ins.k, ins.n)
            {
                let dt = ins.dt.unwrap_or(2);
                cycles += mmad_macs(m, k, n, dt) as f64 / mmad_rate(dt);
            }
        }
    }
    cycles / f64::from(soc.aic_cores.max(1)) / soc.cycles_per_us()
}

// ---- the high-level Matmul's runtime tiling (scalar) ----
//
// A Matmul on a runtime tiling (TCubeTiling passed to REGIST_MATMUL_OBJ / Init) reads and derives its
// parameters on the scalar unit, at Init and again around every Iterate; a fully constant tiling
// (GetMatmulApiTiling with the single-core and base shapes) has the compiler do it (guide 优秀实践/
// Matmul性能调优案例/Matmul高阶API使能Tiling全量常量化.md). The twin records that work as `I S
// MatmulTilingInit` (once per Matmul) and `I S MatmulTilingIter` (per Iterate) for runtime tilings only;
// this prices them. From ../shared/measured/figures.json, all M=128, N=30720, K=64 fp16, 24 AIC, 5 base
// blocks a core:
//  - `bp_const_tiling_first_mte2`: the first MTE2 starts 3.536 us into the kernel on a runtime tiling; the
//    same guide gives 2.185 us with the constant one, so Init's share is 3.536 - 2.185 = 1.351 us (M).
//  - `bp_const_tiling`: aic scalar time 6.32 -> 3.38 us (2.94 us saved), aic_time 10.62 -> 7.87 us; the
//    2.94 - 1.351 = 1.589 us left over 5 Iterates is 0.318 us an Iterate (M, split between the two by
//    the guide's prologue figure; assumed per Iterate, not per base K step).
// Cross-check, not fitted: `ascdevkit_matmul_case6_to_case7` (8192^3, about 85 blocks a core) measured
// 4088.36 -> 4053.44 us, 34.9 us, which these give as 1.35 + 85.3 x 0.318 = 28.5 us when the scalar
// work is on the critical path.

/// Microseconds of scalar work the Matmul's Init does on a runtime tiling (see above).
pub const RUNTIME_TILING_INIT_US: f64 = 3.536 - 2.185;
/// Microseconds of scalar work each Iterate does on a runtime tiling (see above).
pub const RUNTIME_TILING_ITER_US: f64 = (6.32 - 3.38 - RUNTIME_TILING_INIT_US) / 5.0;

/// Cycles of a `MatmulTilingInit` / `MatmulTilingIter` scalar record; None for any other API.
pub fn runtime_tiling_scalar_cycles(api: &str, soc: &Soc) -> Option<f64> {
    let us = match api {
        "MatmulTilingInit" => RUNTIME_TILING_INIT_US,
        "MatmulTilingIter" => RUNTIME_TILING_ITER_US,
        _ => return None,
    };
    Some(us * soc.cycles_per_us())
}

/// The rate row of an MTE1 instruction.
fn mte1_rate(ins: &Instr, api: &str) -> Rate {
    match (api, ins.dst) {
        ("LoadData", Some(2)) => LOAD_L0B,
        ("LoadData", _) => LOAD_L0A,
        _ => LOAD_BT,
    }
}

/// Cycles after an instruction leaves its pipe before its data is usable (a `set` on the pipe fires then),
/// not holding the pipe: MTE1's documented latency. Back-to-back L1 -> L0 loads pipeline, so MTE1 is busy
/// for the bytes at the documented rates and the latency is seen once by the Mmad that waits for them
/// (as DMA copies see `dma_latency_cycles`). Rows: msprof aic_mte1_time of the matmul_high_performance
/// sample (figures.json ascdevkit_matmul_case1, case3, case4; the README's PipeUtilization table) per
/// base K step of 8 A loads of 2 KiB and one B load of 32 KiB: 367, 326 and 351 cycles measured, against
/// 320 with the rates alone and 572 with the latency on every load (the model before, 56-75% over on
/// all three). Other pipes: 0.
pub fn pipelined_latency(ins: &Instr, api: &str) -> f64 {
    match ins.pipe {
        Pipe::Mte1 => mte1_rate(ins, api).latency,
        _ => 0.0,
    }
}

/// Cycles one MTE1, M or FIX (not to GM) instruction holds its pipe, and whether the record carried what
/// its cost needs. None for other pipes. MTE1's latency is not in it (`pipelined_latency`).
pub fn cost(ins: &Instr, api: &str, _soc: &Soc) -> Option<(f64, bool)> {
    let timed = |r: Rate, amount: u64| r.latency + amount as f64 / r.per_cycle;
    Some(match ins.pipe {
        Pipe::Mte1 => {
            let rate = mte1_rate(ins, api);
            (
                ins.bytes.unwrap_or(0) as f64 / rate.per_cycle,
                ins.bytes.is_some(),
            )
        }
        Pipe::M => {
            let dt = ins.dt.unwrap_or(2);
            let macs = mmad_macs(
                ins.m.unwrap_or(0),
                ins.k.unwrap_or(0),
                ins.n.unwrap_or(0),
                dt,
            );
            (MMAD_LATENCY + macs as f64 / mmad_rate(dt), ins.m.is_some())
        }
        // L0C -> L1 (`n` elements); a FIX record without them costs the latency only.
        Pipe::Fix => (timed(FIX_L1_ELEMS, ins.n.unwrap_or(0)), true),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::{Record, parse};

    fn one(rec: &str) -> (f64, bool) {
        let t = parse(&format!("twin-trace 2\nblock 0 1\n{rec}\nend\n")).unwrap();
        let Record::Instr(i) = &t.blocks[0].records[0] else {
            panic!("not an instruction")
        };
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        cost(i, t.api_name(i.api), soc).unwrap()
    }

    #[test]
    fn mte1_loads_cost_the_documented_rates() {
        // 2560 B into L0A at 256 B/cycle, into L0B at 128 B/cycle; the latency 28 after the pipe.
        assert_eq!(one("I MTE1 LoadData bytes=2560 dst=1 line=3"), (10.0, true));
        assert_eq!(one("I MTE1 LoadData bytes=2560 dst=2 line=3"), (20.0, true));
        // L1 -> bias table: 256 B at 32 B/cycle, latency 20.
        assert_eq!(
            one("I MTE1 DataCopy bytes=256 bursts=1 burst=256 gm=0 gap=0 line=3"),
            (8.0, true)
        );
    }

    /// Two 128^3 fp16 Mmads: 2 x 2097152 MACs at 4096 a cycle = 1024 cycles, over the 910B1's 24 AIC
    /// cores at 1.85 GHz; a 30 x 70 x 40 one pads to whole fractals (32 x 80 x 48); no Mmad, no roofline.
    #[test]
    fn compute_roofline_counts_whole_fractals_over_every_aic_core() {
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let roof = |recs: &str| {
            let t = parse(&format!("twin-trace 2\nblock 0 1\n{recs}end\n")).unwrap();
            compute_roofline_us(&t, soc)
        };
        let two =
            "I M Mmad m=128 k=128 n=128 dt=2 line=9\nI M Mmad m=128 k=128 n=128 dt=2 line=9\n";
        assert_eq!(roof(two), 1024.0 / 24.0 / 1850.0);
        assert_eq!(
            roof("I M Mmad m=30 k=70 n=40 dt=2 line=9\n"),
            (32.0 * 80.0 * 48.0 / 4096.0) / 24.0 / 1850.0
        );
        assert_eq!(roof("I V Add dt=2 n=128 line=9\n"), 0.0);
    }

    /// The roofline against hardware: the fastest published 8192^3 fp16 matmul on the 910B1
    /// (`ascdevkit_matmul_case8`, 4012.44 us measured with msprof, ../shared/measured/figures.json;
    /// 274 TFLOPS) must not beat it, and should not be far below it: the best hand-tuned configuration
    /// reaches 3022.9 / 4012.44 = 75% of it. A peak rate set too low would put the roofline above the
    /// measurement; one set twice too high would put the measurement under 40% of it.
    #[test]
    fn compute_roofline_sits_below_the_fastest_published_matmul() {
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let t = parse("twin-trace 2\nblock 0 1\nI M Mmad m=8192 k=8192 n=8192 dt=2 line=9\nend\n")
            .unwrap();
        let roof = compute_roofline_us(&t, soc);
        assert_eq!(roof, 8192.0f64.powi(3) / 4096.0 / 24.0 / 1850.0);
        let measured = 4012.44;
        assert!(roof < measured && roof / measured > 0.6, "{roof} us");
    }

    #[test]
    fn mmad_costs_whole_fractals_at_the_dtype_rate() {
        // 30 x 70 x 40 half: 32 x 80 x 48 MACs = 122880, at 4096 a cycle = 30 cycles, after 20.
        assert_eq!(mmad_macs(30, 70, 40, 2), 122_880);
        assert_eq!(one("I M Mmad m=30 k=70 n=40 dt=2 line=9"), (50.0, true));
        // int8 16 x 64 x 32: 32768 MACs at 8192 a cycle.
        assert_eq!(one("I M Mmad m=16 k=64 n=32 dt=1 line=9"), (24.0, true));
        // float: k in fractals of 8, half the b16 rate.
        assert_eq!(mmad_macs(16, 12, 16, 4), 16 * 16 * 16);
        assert_eq!(one("I M Mmad m=16 k=12 n=16 dt=4 line=9"), (22.0, true));
        // A record without its shape is flagged unknown.
        assert!(!one("I M Mmad line=9").1);
    }

    #[test]
    fn runtime_tiling_scalar_work_is_the_guides_measured_difference() {
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let init = runtime_tiling_scalar_cycles("MatmulTilingInit", soc).unwrap();
        let iter = runtime_tiling_scalar_cycles("MatmulTilingIter", soc).unwrap();
        // bp_const_tiling: Init plus five Iterates is the scalar time the constant tiling saved.
        let saved_us = (init + 5.0 * iter) / soc.cycles_per_us();
        assert!((saved_us - (6.32 - 3.38)).abs() < 1e-9, "{saved_us}");
        assert!((init / soc.cycles_per_us() - 1.351).abs() < 1e-9);
        assert_eq!(runtime_tiling_scalar_cycles("GetValue", soc), None);
        // Through the trace: an S record of that name costs the same.
        let t = parse("twin-trace 2\nblock 0 1\nI S MatmulTilingIter line=3\nend\n").unwrap();
        let Record::Instr(i) = &t.blocks[0].records[0] else {
            panic!("not an instruction")
        };
        assert_eq!(
            crate::model::costs::compute_cost(i, "MatmulTilingIter", soc),
            (iter, true)
        );
    }

    #[test]
    fn fixpipe_to_l1_costs_64_elements_a_cycle() {
        assert_eq!(one("I FIX FixpipeL1 n=1280 dst=2 line=4"), (40.0, true));
    }
}
