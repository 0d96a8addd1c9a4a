// SoC parameter tables, as data: one `Soc` row per supported chip, every figure with a source note
// (FACTS.md section and a confidence letter: C confirmed, I inferred, G guess).
// Owns: the numbers. Does not know about traces, the simulation, or where a SoC name comes from.

use serde::Serialize;

/// The memory system and the DMA engines, as measured on 910B (the ids are rows of
/// `shared/measured/figures.json`; where FACTS.md and a measurement disagree, the measurement is taken).
/// Per-cycle figures are core-clock cycles; derivations use the 1.85 GHz of the measuring board.
#[derive(Debug, Clone, Serialize)]
pub struct MemSys {
    /// Chip HBM bandwidth for L2 misses, bypassing reads and write-backs, GB/s.
    pub hbm_gbps: f64,
    /// Chip L2 bandwidth for read hits and for writes landing in L2, GB/s.
    pub l2_read_gbps: f64,
    pub l2_write_gbps: f64,
    /// L2 line: the unit the L2 allocates and the unit a split burst pays for.
    pub line_bytes: u64,
    /// What one core's DMA engine moves per cycle: from HBM (miss), from L2 (hit), into GM (store).
    pub core_miss_bytes_per_cycle: f64,
    pub core_hit_bytes_per_cycle: f64,
    pub core_store_bytes_per_cycle: f64,
    /// Engine cycles per DMA instruction, and per burst served from L2 or from HBM; DataCopyPad's extra per
    /// burst. A burst takes the longer of its burst cost and its bytes at the engine's rate.
    pub dma_instr_cycles: f64,
    /// Engine cycles per UB -> GM copy instruction (the same figure as a load's where no store of its
    /// own was measured).
    pub dma_store_instr_cycles: f64,
    pub burst_hit_cycles: f64,
    pub burst_miss_cycles: f64,
    pub pad_burst_cycles: f64,
    /// Latency from a copy leaving the engine to its data being usable (what a wait on it sees).
    pub dma_latency_cycles: f64,
    /// Per burst, per other core reading the same address in the same step (same-address conflict).
    pub same_addr_cycles_per_core: f64,
    /// UB bank conflicts: extra cycles per vector repeat for a read-read (same bank group) and a
    /// read-write (same bank, write delayed one repeat) conflict; a repeat pays the larger.
    pub ub_read_read_cycles: f64,
    pub ub_read_write_cycles: f64,
    /// Scalar `GetValue` / `SetValue` on UB, cycles each.
    pub scalar_ub_access_cycles: f64,
    /// Fixed cost a launch adds to `Task Duration`: one block, and each further block.
    pub launch_us: f64,
    /// How much later than the modelled (average) core the slowest of all the vector cores ends, as a
    /// fraction of the kernel's time; `(n - 1) / (aiv_cores - 1)` of it with n cores running.
    pub core_skew: f64,
}

/// Where each `MemSys` figure comes from (910B rows; other SoCs say how they are scaled).
pub const MEMSYS_SOURCES: &[(&str, &str)] = &[
    (
        "hbm_gbps",
        "ascdevkit_add_hbm_bw / ascdevkit_add_case5: reads that bypass L2, 2 x 134.2 MB in aiv_mte2_time          175.997 us = 1525 GB/s (checked: data_copy s5, 4 x 302 MB of misses, 816 us modelled as 792) (M)",
    ),
    (
        "l2_read_gbps",
        "ascdevkit_datacopy_ub_s5_to_s6: s6 reads 302 MB from HBM (198 us at 1525 GB/s) and 906 MB of L2 hits          in the rest of aiv_time 354.56 us -> 5790 GB/s; the README's documented 5.2 TB/s          (ascdevkit_datacopy_assumed_bw) is lower than measured (M)",
    ),
    (
        "l2_write_gbps",
        "ascdevkit_add_case3: z, 134.2 MB, written by 48 cores in aiv_mte3_time 57.354 us = 2340 GB/s (M)",
    ),
    (
        "line_bytes",
        "ascdevkit_datacopy_assumed_bw align_bytes 512; FACTS §1/§2 512 B (D); the split-burst cost it implies          reproduces ascdevkit_datacopy_ub_s3_to_s4 (x1.25 modelled, x1.28 measured) and          ascdevkit_datacopy_l1_s2_to_s3 (x2, x1.91 measured)",
    ),
    (
        "core_miss_bytes_per_cycle",
        "ascdevkit_datacopy_l1_s4: 24 AIC read 4 x 302 MB of misses in aicore_time 872.19 us, below the chip's          HBM rate, so core-bound: 57.7 GB/s per core = 31.2 B/cycle (M); FACTS §2's single-copy 78.5 GiB/s          includes no sharing and is not used",
    ),
    (
        "core_hit_bytes_per_cycle",
        "not measured apart: L2 hits are chip-bound in every row (s6 needs >= 65 B/cycle per AIV core, L1 s5          >= 102 per AIC core); 128 B/cycle taken (G)",
    ),
    (
        "core_store_bytes_per_cycle",
        "ascdevkit_add_case1: one core writes 16384 x 8 KB in aiv_mte3_time 2613.2 us = 295 cycles each;          minus the instruction and the latency, 59 B/cycle (M, derived)",
    ),
    (
        "dma_instr_cycles",
        "ascdevkit_datacopy_ub_s1 and s2: 128 B rows, 1 vs 64 bursts per DataCopyPad: 20.6 and 531 cycles per          instruction (aiv_mte2_time) -> 12.5 per instruction, 8.1 per 128 B burst (M, derived)",
    ),
    (
        "dma_store_instr_cycles",
        "no store figure apart: taken equal to dma_instr_cycles (G)",
    ),
    (
        "burst_hit_cycles",
        "ascdevkit_datacopy_l1_s1 (DataCopy Nd2Nz, 64 x 128 B rows, 3 of 4 rows L2 hits): 341 cycles per          instruction -> 4.2 per hit burst given burst_miss_cycles (M, derived)",
    ),
    (
        "burst_miss_cycles",
        "ascdevkit_datacopy_l1_s7 (staggered, 256 x 128 B rows from HBM per DataCopy): about 2060 cycles per          instruction -> 8.0 per miss burst (M, derived)",
    ),
    (
        "pad_burst_cycles",
        "DataCopyPad over DataCopy per 128 B burst: UB s2 / s8 (8.1 mixed, 11.5 miss) against L1 s1 / s7          (5.1 mixed, 8.0 miss) -> about 3.0 (M, derived)",
    ),
    (
        "dma_latency_cycles",
        "ascdevkit_add_case1: one core, per tile two 8 KB reads, Add, write: 780 cycles per tile measured, of          which 550 reads and 86 Add -> 144 cycles of exposed latency; case 2 gives 130 by the same reckoning          (M, derived)",
    ),
    (
        "same_addr_cycles_per_core",
        "ascdevkit_datacopy_ub_s7_to_s8: aiv_mte2_time 474.7 vs 307.4 us over 49152 bursts per core with 48          cores in step -> 6.3 cycles per burst = 0.134 per other core; predicts L1 s6/s7 (24 cores) within 9%          (M, derived)",
    ),
    (
        "ub_read_read_cycles",
        "ascdevkit_add_case5_to_case6: aiv_vec_time per core 12.846 -> 6.954 us for the same Adds: 278 \
         cycles per 128-repeat call (sources 32 KiB apart, one bank group) against 150 per 127-repeat call (256 B \
         apart), so 2.0 vs 1.0 cycles per repeat beside ATT's 22-cycle call cost: a read-read conflict adds 1.0 \
         (M, derived); bank layout: bank_conflict_ub README, UB_ADDR = {bank[17:16], row[15:9], group[8:5], \
         offset[4:0]} (D)",
    ),
    (
        "ub_read_write_cycles",
        "ascdevkit_ub_bank_conflict_cycles: fp32 Adds of 64 repeats, read-read 4167 and read-write 3751 \
         against 2390: at 1 cycle per repeat + 23 per call the read-read ratio 1.744 gives 1.01 extra cycles per \
         repeat (agreeing with the add rows) and the read-write ratio 1.569 gives 0.77 (M, relative)",
    ),
    (
        "scalar_ub_access_cycles",
        "ascdevkit_add_case0: aiv_scalar_time 1233742.5 us for 67.1 M elements, each two GetValue and one          SetValue -> 34.0 cycles per element, 11.34 per access (M, derived)",
    ),
    (
        "launch_us",
        "ascdevkit_add_case1: Task Duration - aiv_time = 6909.6 - 6909.14 = 0.46 us for one block (M)",
    ),
    (
        "core_skew",
        "Task Duration - aiv_time - launch_us over aiv_time on the 48-block add rows (cases 2-6, the \
         only multi-block rows with aiv_time): 3.02, 2.50, 2.33, 1.12, 3.12% -> median 2.5% of the \
         kernel: the slowest of 48 streaming cores ends that much after the average one, which a \
         symmetric model of the cores misses; (n - 1) / 47 of it with n cores, none for one core \
         (ascdevkit_add_case1: 0.01%) (M at 48 cores, G in between). It replaces a fit of the same \
         rows as 0.13 us per further block, which they do not support (the gap follows the kernel's \
         length and memory pressure: 2.5 us with L2 bypass in case 5, 6-9 us in cases 2-4) and which \
         charged a 2 us kernel 6 us for using every core",
    ),
];

/// The 910B memory system (see `MEMSYS_SOURCES`); `hbm_gbps` and the L2 rates scale to another chip.
const fn memsys(hbm_gbps: f64, l2_scale: f64) -> MemSys {
    MemSys {
        hbm_gbps,
        l2_read_gbps: 5790.0 * l2_scale,
        l2_write_gbps: 2340.0 * l2_scale,
        line_bytes: 512,
        core_miss_bytes_per_cycle: 31.2,
        core_hit_bytes_per_cycle: 128.0,
        core_store_bytes_per_cycle: 59.0,
        dma_instr_cycles: 12.5,
        dma_store_instr_cycles: 12.5,
        burst_hit_cycles: 4.2,
        burst_miss_cycles: 8.0,
        pad_burst_cycles: 3.0,
        dma_latency_cycles: 144.0,
        same_addr_cycles_per_core: 0.134,
        ub_read_read_cycles: 1.0,
        ub_read_write_cycles: 0.77,
        scalar_ub_access_cycles: 11.34,
        launch_us: 0.46,
        core_skew: 0.025,
    }
}

/// One SoC's parameters. Sizes in bytes, bandwidth in GB/s (1e9 B/s), clock in GHz.
#[derive(Debug, Clone, Serialize)]
pub struct Soc {
    /// Full name as CANN spells it in `SOC_VERSION` (e.g. "Ascend910B1").
    pub name: &'static str,
    /// Compute-unit name as used by `ASCEND_COMPUTE_UNIT` (e.g. "ascend910b").
    pub short_name: &'static str,
    /// Vector cores available to a vector kernel: the block_dim ceiling of an AIV kernel.
    pub aiv_cores: u32,
    /// Cube (AIC) cores.
    pub aic_cores: u32,
    pub clock_ghz: f64,
    /// Usable Unified Buffer per vector core, as the runtime reports it.
    pub ub_bytes: u64,
    pub l1_bytes: u64,
    pub l0a_bytes: u64,
    pub l0b_bytes: u64,
    pub l0c_bytes: u64,
    pub l2_bytes: u64,
    pub hbm_bytes: u64,
    /// Achievable whole-chip streaming bandwidth (not the nominal figure), GB/s: `mem.hbm_gbps`.
    pub chip_bw_gbps: f64,
    /// The memory system and DMA engines.
    pub mem: MemSys,
    /// Bytes per operand per vector repeat (8 blocks of 32 B).
    pub vector_repeat_bytes: u32,
    /// Vector throughput, unary and binary ops, bytes per cycle.
    pub vector_unary_bytes_per_cycle: u32,
    pub vector_binary_bytes_per_cycle: u32,
    /// SetFlag/WaitFlag event ids per pipe pair.
    pub event_ids: u32,
    /// Whether kernels have `DataCopyPad` in the form without the `mode` template parameter (asc-devkit
    /// docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/DataCopyPad（GMToUB非对齐数据搬运）.md, product support:
    /// Atlas A2 / A3 and 200I/500 A2 yes; Atlas inference (310P) and Atlas training no; Ascend 950 only
    /// the `mode` form). Rewrites that write a `DataCopyPad` need it.
    pub data_copy_pad: bool,
    /// Source of each figure: (field, note with confidence letter).
    pub sources: &'static [(&'static str, &'static str)],
}

impl Soc {
    /// Cycles per microsecond.
    pub fn cycles_per_us(&self) -> f64 {
        self.clock_ghz * 1000.0
    }

    /// Achievable chip streaming bandwidth in bytes per cycle.
    pub fn chip_bytes_per_cycle(&self) -> f64 {
        self.chip_bw_gbps / self.clock_ghz
    }

    /// The source note of one field, if the row has one.
    pub fn source_of(&self, field: &str) -> Option<&'static str> {
        self.sources
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, s)| *s)
    }
}

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB_U: u64 = 1024 * MIB;

/// Rows shared by the A2/A3 parts (910B, 910_93): FACTS §1 "Other A2/A3 per-core facts".
const A2_COMMON: [(&str, &str); 8] = [
    (
        "ub_bytes",
        "FACTS §1: 192 KiB, runtime reports 196352 B usable (256 B reserved) (C)",
    ),
    (
        "l1_bytes",
        "FACTS §1: L1 512 KiB (catlass arch headers, 910B2 .ini) (C)",
    ),
    ("l0a_bytes", "FACTS §1: L0A 64 KiB (C)"),
    ("l0b_bytes", "FACTS §1: L0B 64 KiB (C)"),
    ("l0c_bytes", "FACTS §1: L0C 128 KiB (C)"),
    (
        "vector",
        "FACTS §3: 256 B per repeat; unary 256 B/cycle, binary 128 B/cycle (C)",
    ),
    ("event_ids", "FACTS §1: event ids 0-7 on A2/A3/310P (C)"),
    (
        "dma",
        "MEMSYS_SOURCES: DMA engines and memory system measured on 910B (M)",
    ),
];

macro_rules! sources {
    ($($f:literal => $s:literal),* $(,)?) => {
        &[
            A2_COMMON[0], A2_COMMON[1], A2_COMMON[2], A2_COMMON[3], A2_COMMON[4], A2_COMMON[5], A2_COMMON[6],
            A2_COMMON[7], $(($f, $s)),*
        ]
    };
}

/// The measured 910B1 board: also the base of the rows that take its figures (Ascend950).
const ASCEND910B1: Soc = Soc {
    name: "Ascend910B1",
    short_name: "ascend910b",
    aiv_cores: 48,
    aic_cores: 24,
    clock_ghz: 1.85,
    ub_bytes: 196352,
    l1_bytes: 512 * KIB,
    l0a_bytes: 64 * KIB,
    l0b_bytes: 64 * KIB,
    l0c_bytes: 128 * KIB,
    l2_bytes: 192 * MIB,
    hbm_bytes: 64 * GIB_U,
    chip_bw_gbps: 1525.0,
    mem: memsys(1525.0, 1.0),
    vector_repeat_bytes: 256,
    vector_unary_bytes_per_cycle: 256,
    vector_binary_bytes_per_cycle: 128,
    event_ids: 8,
    data_copy_pad: true,
    sources: sources!(
        "cores" => "FACTS §1: 24 AIC / 48 AIV (C)",
        "clock_ghz" => "1.85 GHz: the measured 910B1 board (ascdevkit_matmul_case0, ascdevkit_add_case1 rows); \
                        FACTS §1 says 1.8 (1.85 in some configs) (M)",
        "l2_bytes" => "FACTS §1: L2 192 MB (C)",
        "hbm_bytes" => "FACTS §1: 64 GB (C)",
        "chip_bw_gbps" => "mem.hbm_gbps, 1525 GB/s (ascdevkit_add_hbm_bw, see MEMSYS_SOURCES); FACTS §2's \
                           1.3-1.4 TB/s was lower than the 910B measurements (M)",
    ),
};

static SOCS: [Soc; 7] = [
    ASCEND910B1,
    Soc {
        name: "Ascend910B2",
        short_name: "ascend910b",
        aiv_cores: 48,
        aic_cores: 24,
        clock_ghz: 1.8,
        ub_bytes: 196352,
        l1_bytes: 512 * KIB,
        l0a_bytes: 64 * KIB,
        l0b_bytes: 64 * KIB,
        l0c_bytes: 128 * KIB,
        l2_bytes: 192 * MIB,
        hbm_bytes: 64 * GIB_U,
        chip_bw_gbps: 1525.0,
        mem: memsys(1525.0, 1.0),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
        data_copy_pad: true,
        sources: sources!(
            "cores" => "FACTS §1: 24 AIC / 48 AIV (C)",
            "clock_ghz" => "FACTS §1: 1.8 GHz (C)",
            "l2_bytes" => "FACTS §1: L2 192 MB (C)",
            "hbm_bytes" => "not in FACTS; taken equal to 910B1, 64 GB (G)",
            "chip_bw_gbps" => "mem.hbm_gbps: 1525 GB/s as measured on 910B (ascdevkit_add_hbm_bw); FACTS §2's \
                               1.32 TB/s elementwise figure counted writes that stay in L2 (M)",
        ),
    },
    Soc {
        name: "Ascend910B3",
        short_name: "ascend910b",
        aiv_cores: 40,
        aic_cores: 20,
        clock_ghz: 1.8,
        ub_bytes: 196352,
        l1_bytes: 512 * KIB,
        l0a_bytes: 64 * KIB,
        l0b_bytes: 64 * KIB,
        l0c_bytes: 128 * KIB,
        l2_bytes: 192 * MIB,
        hbm_bytes: 64 * GIB_U,
        chip_bw_gbps: 1525.0,
        mem: memsys(1525.0, 1.0),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
        data_copy_pad: true,
        sources: sources!(
            "cores" => "FACTS §1: 20 AIC / 40 AIV (C)",
            "clock_ghz" => "FACTS §1: 1.8 GHz (C)",
            "l2_bytes" => "FACTS §1: L2 192 MB (C)",
            "hbm_bytes" => "not in FACTS; same HBM as 910B1 assumed, 64 GB (G)",
            "chip_bw_gbps" => "not measured; same memory system as the measured 910B assumed, 1525 GB/s (I)",
        ),
    },
    Soc {
        name: "Ascend910B4",
        short_name: "ascend910b",
        aiv_cores: 40,
        aic_cores: 20,
        clock_ghz: 1.5,
        ub_bytes: 196352,
        l1_bytes: 512 * KIB,
        l0a_bytes: 64 * KIB,
        l0b_bytes: 64 * KIB,
        l0c_bytes: 128 * KIB,
        l2_bytes: 96 * MIB,
        hbm_bytes: 32 * GIB_U,
        chip_bw_gbps: 1010.0,
        mem: memsys(1010.0, 0.5),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
        data_copy_pad: true,
        sources: sources!(
            "cores" => "FACTS §1: 20 AIC / 40 AIV (C)",
            "clock_ghz" => "FACTS §1: 1.5 GHz (I)",
            "l2_bytes" => "FACTS §1: L2 96 MB (I)",
            "hbm_bytes" => "FACTS §1: 32 GB (I)",
            "chip_bw_gbps" => "not in FACTS; derived: half the HBM capacity of 910B1 suggests fewer stacks; a \
                               secondary source gives 1.2 TB/s nominal for a 32 GB part, scaled by the 910B \
                               achievable/nominal ratio 1.35/1.6 = 0.84 -> ~1010 GB/s (G); the rest of its memory \
                               system is 910B's (MEMSYS_SOURCES) with half the L2 bandwidth for half the L2 (G)",
        ),
    },
    Soc {
        name: "Ascend910_93",
        short_name: "ascend910_93",
        aiv_cores: 48,
        aic_cores: 24,
        clock_ghz: 1.85,
        ub_bytes: 196352,
        l1_bytes: 512 * KIB,
        l0a_bytes: 64 * KIB,
        l0b_bytes: 64 * KIB,
        l0c_bytes: 128 * KIB,
        l2_bytes: 192 * MIB,
        hbm_bytes: 64 * GIB_U,
        chip_bw_gbps: 1525.0,
        mem: memsys(1525.0, 1.0),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
        data_copy_pad: true,
        sources: sources!(
            "cores" => "FACTS §1: per die 24 AIC / 48 AIV (C)",
            "clock_ghz" => "FACTS §1: 1.85 GHz (C)",
            "l2_bytes" => "not in FACTS; taken equal to 910B1, 192 MB (G)",
            "hbm_bytes" => "not in FACTS; taken equal to a 910B1 die, 64 GB (G)",
            "chip_bw_gbps" => "1525 GB/s: the data_copy rows were measured on the A2/A3 series alike \
                               (ascdevkit_datacopy_*); FACTS §2's GEMV gives 1.36 TB/s (M)",
        ),
    },
    // Ascend950 (dav-3510, Atlas 350): nothing of it is in FACTS.md nor in shared/measured, so it takes
    // the figures of the Ascend910B1 (dav-2201) row (`..ASCEND910B1`), each marked assumed (A) in its
    // sources; its UB size and core counts are documented and its own, and the fixed cost of a GM -> UB
    // copy is measured (cann-samples' softmax_regbase_story, msprof on an Ascend 950PR). It is here so that dav-3510 programs (Reg vector functions) run and get a latency, which `run` labels as
    // modelled with assumed dav-2201 figures (`ASSUMED_FROM_DAV_2201`). Only the vector length (and the UB size and core counts, below) is the
    // chip's own: VL = 256 B (GetVecLen, asc-devkit docs/zh/api/SIMD-API/基础API/工具接口/系统资源与变量/
    // GetVecLen.md; the twin's RegTensor, templates/twin/include/kernel/twin/reg.h), equal to a dav-2201
    // repeat, so one register instruction costs one repeat of its class (src/model/costs.rs).
    Soc {
        name: "Ascend950",
        short_name: "ascend950",
        // VL: GetVecLen.md (D); equal to the 910B1 repeat.
        vector_repeat_bytes: 256,
        // GetUBSizeInBytes.md: 248 KB on Ascend 950PR/950DT (D)
        ub_bytes: 248 * 1024,
        // 32 AIC, 64 AIV (D, sources below)
        aic_cores: 32,
        aiv_cores: 64,
        sources: &[
            (
                "cores",
                "32 AIC / 64 AIV: asc-devkit's matmul_high_performance example sets CORE_NUM = 32 (its \
                 GetCoreNumAic) for NPU_ARCH 3510 (examples/01_simd_cpp_api/05_best_practices/\
                 01_matrix_compute/matmul_high_performance/matmul.asc), and cann-samples' \
                 rms_norm_quant_story spreads 4096 rows over 64 blocks, one per vector core of the \
                 Ascend950 (Samples/2_Performance/rms_norm_quant_story/Story.md, Step 2) (D)",
            ),
            ("clock_ghz", "assumed: Ascend910B1's 1.85 GHz (A)"),
            (
                "ub_bytes",
                "248 KB usable of a 256 KB UB: GetUBSizeInBytes returns the constant 248KB on Ascend 950PR/950DT \
                 (asc-devkit docs/zh/api/SIMD-API/基础API/工具接口/系统资源与变量/GetUBSizeInBytes.md; the 256 KB total: \
                 Vector逻辑架构.md) (D)",
            ),
            ("l1_bytes", "assumed: Ascend910B1's 512 KiB (A)"),
            ("l0a_bytes", "assumed: Ascend910B1's 64 KiB (A)"),
            ("l0b_bytes", "assumed: Ascend910B1's 64 KiB (A)"),
            ("l0c_bytes", "assumed: Ascend910B1's 128 KiB (A)"),
            ("l2_bytes", "assumed: Ascend910B1's 192 MB (A)"),
            ("hbm_bytes", "assumed: Ascend910B1's 64 GB (A)"),
            (
                "chip_bw_gbps",
                "assumed: Ascend910B1's measured 1525 GB/s (A)",
            ),
            (
                "vector",
                "VL 256 B (GetVecLen.md, D); per-cycle vector rates assumed Ascend910B1's (A)",
            ),
            ("event_ids", "assumed: 0-7 as on A2/A3 (A)"),
            (
                "dma",
                "MEMSYS_SOURCES: 910B's measured memory system, assumed for Ascend950 (A), but for \
                 dma_instr_cycles",
            ),
            (
                "dma_instr_cycles",
                "740 per GM -> UB copy: cann-samples' softmax_regbase_story (README, msprof on an \
                 Ascend 950PR, CANN 9.2.0, 3 runs): its Case 3 -> 5 halves the copies per core (four \
                 16 KB row tiles -> two 32 KB) and aiv_mte2_time falls 3.015 -> 2.003 us where the \
                 910B figures moved it nowhere (1.367 -> 1.370 us, chip-bound); the fixed cost per \
                 copy that fits both cases best (least squares) is 727 cycles more than the 910B's \
                 12.5 at the assumed 1.85 GHz (M, derived; stores unchanged: their figure moves \
                 1.146 -> 0.822 us, which the chip-bound store model does not follow either)",
            ),
        ],
        mem: MemSys {
            dma_instr_cycles: 740.0,
            ..memsys(1525.0, 1.0)
        },
        // DataCopyPad (GMToUB).md: the 950 has only the form with the `mode` template parameter.
        data_copy_pad: false,
        ..ASCEND910B1
    },
    Soc {
        name: "Ascend310P3",
        short_name: "ascend310p",
        aiv_cores: 8,
        aic_cores: 8,
        clock_ghz: 1.08,
        ub_bytes: 262144,
        l1_bytes: 1024 * KIB,
        l0a_bytes: 64 * KIB,
        l0b_bytes: 64 * KIB,
        l0c_bytes: 256 * KIB,
        l2_bytes: 16 * MIB,
        hbm_bytes: 24 * GIB_U,
        chip_bw_gbps: 172.0,
        mem: memsys(172.0, 0.113),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
        data_copy_pad: false,
        sources: &[
            (
                "cores",
                "FACTS §1: 8 AI cores (cube + vector in one core) + 7 vector cores (I); aiv_cores counts \
                       the 8 AI cores' vector units, the ceiling of a plain vector kernel's block_dim (G)",
            ),
            ("clock_ghz", "not in FACTS; 1.08 GHz assumed (G)"),
            (
                "ub_bytes",
                "FACTS §1: 256 KiB (I); no runtime reserve known, full 262144 B taken (G)",
            ),
            ("l1_bytes", "not in FACTS; 1 MiB assumed (G)"),
            ("l0a_bytes", "not in FACTS; 64 KiB as on A2 (G)"),
            ("l0b_bytes", "not in FACTS; 64 KiB as on A2 (G)"),
            ("l0c_bytes", "not in FACTS; 256 KiB assumed (G)"),
            ("l2_bytes", "FACTS §1: L2 16 MB (I)"),
            ("hbm_bytes", "not in FACTS; LPDDR4X, 24 GB assumed (G)"),
            (
                "chip_bw_gbps",
                "FACTS §1: ~204 GB/s LPDDR4X nominal (I), scaled by the 910B achievable/nominal \
                              ratio 0.84 -> 172 GB/s (G); the rest of its memory system is 910B's with the L2 \
                              rates scaled by 172/1525 (G)",
            ),
            (
                "vector",
                "FACTS §3 A2 figures reused: 256 B per repeat (C on A2, I here)",
            ),
            ("event_ids", "FACTS §1: event ids 0-7 on A2/A3/310P (C)"),
            (
                "dma",
                "MEMSYS_SOURCES: 910B's DMA engines per cycle, taken for 310P (G)",
            ),
        ],
    },
];

/// What `run` says of a SoC whose every figure is another chip's, assumed: Ascend950 (dav-3510) is
/// modelled with the dav-2201 (Ascend910B1) figures.
pub fn assumed_figures(soc: &Soc) -> Option<&'static str> {
    (soc.name == "Ascend950").then_some(
        "the dav-3510 (Ascend950) latency is modelled with assumed dav-2201 (Ascend910B1) figures: its own figures are only its UB size, vector length, core counts and one measured copy cost",
    )
}

/// All known SoCs, in table order.
pub fn all() -> &'static [Soc] {
    &SOCS
}

/// Finds a SoC by its full name, case-insensitively ("ascend910b1", "Ascend910B1").
pub fn lookup(name: &str) -> Option<&'static Soc> {
    let name = name.trim();
    SOCS.iter().find(|s| s.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_case_insensitive_and_total() {
        assert_eq!(lookup("ascend910b1").unwrap().name, "Ascend910B1");
        assert_eq!(lookup(" ASCEND910_93 ").unwrap().aiv_cores, 48);
        assert!(lookup("Ascend960").is_none());
        assert_eq!(all().len(), 7);
        for soc in all() {
            assert_eq!(lookup(soc.name).unwrap().name, soc.name);
            for field in [
                "cores",
                "clock_ghz",
                "chip_bw_gbps",
                "hbm_bytes",
                "l2_bytes",
                "ub_bytes",
            ] {
                assert!(
                    soc.source_of(field).is_some(),
                    "{} lacks a source for {field}",
                    soc.name
                );
            }
        }
    }

    /// Ascend950 takes the 910B1's performance figures, each marked assumed, but its documented UB
    /// size (248 KB, GetUBSizeInBytes.md: cann-samples' simulation-based-vf-profiling places a 64 KiB
    /// UB array at 128 KiB, past the 910B1's 192 KiB) and core counts (32 AIC / 64 AIV: the
    /// rms_norm_quant story's 64 blocks were modelled on 48 cores).
    #[test]
    fn ascend950_is_the_910b1_row_marked_assumed_with_its_own_ub() {
        let a5 = lookup("ascend950").unwrap();
        let b1 = lookup("Ascend910B1").unwrap();
        // the memory system is the 910B1's but for the measured cost of a GM -> UB copy
        assert_eq!(
            serde_json::to_value(MemSys {
                dma_instr_cycles: b1.mem.dma_instr_cycles,
                ..a5.mem
            })
            .unwrap(),
            serde_json::to_value(&b1.mem).unwrap()
        );
        assert_eq!(a5.mem.dma_instr_cycles, 740.0);
        assert_eq!((a5.aic_cores, a5.aiv_cores), (32, 64));
        assert_eq!(a5.ub_bytes, 248 * 1024);
        assert_eq!(a5.clock_ghz, b1.clock_ghz);
        assert!(a5.sources.iter().all(|(f, s)| s.contains("(A)")
            || (["ub_bytes", "cores"].contains(f) && s.contains("(D)"))
            || (*f == "dma_instr_cycles" && s.contains("(M, derived"))));
        assert!(assumed_figures(a5).unwrap().contains("assumed dav-2201"));
        assert_eq!(assumed_figures(b1), None);
    }

    #[test]
    fn serializes() {
        let json = serde_json::to_string(lookup("Ascend310P3").unwrap()).unwrap();
        assert!(json.contains("\"short_name\":\"ascend310p\""));
    }
}
