// SoC parameter tables, as data: one `Soc` row per supported chip, every figure with a source note
// (FACTS.md section and a confidence letter: C confirmed, I inferred, G guess).
// Owns: the numbers. Does not know about traces, the simulation, or where a SoC name comes from.

use serde::Serialize;

/// A measured single-core DMA curve: effective bandwidth by bytes per instruction (FACTS §2, msKPP tables,
/// 910B1, one core), read as time-vs-bytes, piecewise linear through `(0, fixed_us)` and the measured points,
/// extended past the last point at `asymptote_gib_s`.
#[derive(Debug, Clone, Serialize)]
pub struct DmaCurve {
    /// Time of a zero-byte copy, in microseconds at the reference clock (the fit's fixed cost).
    pub fixed_us: f64,
    /// Measured points: (KiB per instruction, GiB/s).
    pub points: &'static [(f64, f64)],
    /// Marginal rate past the last point, GiB/s.
    pub asymptote_gib_s: f64,
    /// Rates are multiplied (times divided) by this: the SoC clock over the 1.8 GHz the curve was measured at.
    /// Per-core DMA engines move a fixed number of bytes per cycle (platform `.ini` rates are per cycle, FACTS §1).
    pub rate_scale: f64,
    pub source: &'static str,
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

impl DmaCurve {
    /// Fixed (zero-byte) cost in microseconds on this SoC.
    pub fn fixed_time_us(&self) -> f64 {
        self.fixed_us / self.rate_scale
    }

    /// Time in microseconds for one contiguous copy of `bytes` on one core with the chip otherwise idle.
    pub fn time_us(&self, bytes: f64) -> f64 {
        let bytes = if bytes.is_finite() && bytes > 0.0 {
            bytes
        } else {
            0.0
        };
        let (mut x0, mut t0) = (0.0, self.fixed_us);
        for &(kib, gib_s) in self.points {
            let x1 = kib * 1024.0;
            let t1 = x1 / (gib_s * GIB) * 1e6;
            if bytes <= x1 {
                let t = t0 + (t1 - t0) * (bytes - x0) / (x1 - x0);
                return t / self.rate_scale;
            }
            (x0, t0) = (x1, t1);
        }
        (t0 + (bytes - x0) / (self.asymptote_gib_s * GIB) * 1e6) / self.rate_scale
    }

    /// Effective bandwidth in GiB/s of one copy of `bytes` (for reports and calibration).
    pub fn effective_gib_s(&self, bytes: f64) -> f64 {
        bytes / (self.time_us(bytes) * 1e-6) / GIB
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
    /// Achievable whole-chip streaming bandwidth (not the nominal figure), GB/s.
    pub chip_bw_gbps: f64,
    /// Single-core GM->UB (MTE2) copy curve.
    pub gm_to_ub: DmaCurve,
    /// Single-core UB->GM (MTE3) copy curve.
    pub ub_to_gm: DmaCurve,
    /// Bytes per operand per vector repeat (8 blocks of 32 B).
    pub vector_repeat_bytes: u32,
    /// Vector throughput, unary and binary ops, bytes per cycle.
    pub vector_unary_bytes_per_cycle: u32,
    pub vector_binary_bytes_per_cycle: u32,
    /// SetFlag/WaitFlag event ids per pipe pair.
    pub event_ids: u32,
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

/// FACTS §2, msKPP measured single-core tables, 910B1.
const GM_TO_UB_POINTS: &[(f64, f64)] = &[
    (1.0, 7.3),
    (2.0, 13.5),
    (4.0, 23.6),
    (8.0, 42.7),
    (16.0, 68.0),
    (32.0, 77.2),
    (64.0, 78.5),
];
const UB_TO_GM_POINTS: &[(f64, f64)] = &[
    (1.0, 11.4),
    (2.0, 22.1),
    (4.0, 37.9),
    (8.0, 57.8),
    (16.0, 86.8),
    (32.0, 108.4),
    (64.0, 110.0),
];
const CURVE_SOURCE: &str = "FACTS §2 msKPP single-core table (910B1); fixed cost from the fit (0.12 us load, \
0.08 us store) (C, fit I); absolute values good to about 2x";
const REF_CLOCK_GHZ: f64 = 1.8;

const fn gm_to_ub(clock_ghz: f64) -> DmaCurve {
    DmaCurve {
        fixed_us: 0.12,
        points: GM_TO_UB_POINTS,
        asymptote_gib_s: 78.5,
        rate_scale: clock_ghz / REF_CLOCK_GHZ,
        source: CURVE_SOURCE,
    }
}

const fn ub_to_gm(clock_ghz: f64) -> DmaCurve {
    DmaCurve {
        fixed_us: 0.08,
        points: UB_TO_GM_POINTS,
        asymptote_gib_s: 110.0,
        rate_scale: clock_ghz / REF_CLOCK_GHZ,
        source: CURVE_SOURCE,
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
        "FACTS §2 msKPP single-core curves measured on 910B1 at 1.8 GHz; scaled by clock (I)",
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

static SOCS: [Soc; 6] = [
    Soc {
        name: "Ascend910B1",
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
        chip_bw_gbps: 1350.0,
        gm_to_ub: gm_to_ub(1.8),
        ub_to_gm: ub_to_gm(1.8),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
        sources: sources!(
            "cores" => "FACTS §1: 24 AIC / 48 AIV (C)",
            "clock_ghz" => "FACTS §1: 1.8 GHz (1.85 in some configs) (C)",
            "l2_bytes" => "FACTS §1: L2 192 MB (C)",
            "hbm_bytes" => "FACTS §1: 64 GB (C)",
            "chip_bw_gbps" => "FACTS §2: nominal ~1.6 TB/s; achievable streaming 1.3-1.4 TB/s measured on 910B2 and a \
                               910_93 die; 1350 GB/s taken (C/I)",
        ),
    },
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
        chip_bw_gbps: 1350.0,
        gm_to_ub: gm_to_ub(1.8),
        ub_to_gm: ub_to_gm(1.8),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
        sources: sources!(
            "cores" => "FACTS §1: 24 AIC / 48 AIV (C)",
            "clock_ghz" => "FACTS §1: 1.8 GHz (C)",
            "l2_bytes" => "FACTS §1: L2 192 MB (C)",
            "hbm_bytes" => "not in FACTS; taken equal to 910B1, 64 GB (G)",
            "chip_bw_gbps" => "FACTS §2: elementwise kernel moved 671 MB in 0.510 ms (~1.32 TB/s); 1.3-1.4 TB/s \
                               measured streaming; 1350 GB/s taken (C)",
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
        chip_bw_gbps: 1350.0,
        gm_to_ub: gm_to_ub(1.8),
        ub_to_gm: ub_to_gm(1.8),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
        sources: sources!(
            "cores" => "FACTS §1: 20 AIC / 40 AIV (C)",
            "clock_ghz" => "FACTS §1: 1.8 GHz (C)",
            "l2_bytes" => "FACTS §1: L2 192 MB (C)",
            "hbm_bytes" => "not in FACTS; same HBM as 910B1 assumed, 64 GB (G)",
            "chip_bw_gbps" => "not in FACTS; same memory system and L2 as 910B1/B2 assumed, 1350 GB/s (G)",
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
        gm_to_ub: gm_to_ub(1.5),
        ub_to_gm: ub_to_gm(1.5),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
        sources: sources!(
            "cores" => "FACTS §1: 20 AIC / 40 AIV (C)",
            "clock_ghz" => "FACTS §1: 1.5 GHz (I)",
            "l2_bytes" => "FACTS §1: L2 96 MB (I)",
            "hbm_bytes" => "FACTS §1: 32 GB (I)",
            "chip_bw_gbps" => "not in FACTS; derived: half the HBM capacity of 910B1 suggests fewer stacks; a \
                               secondary source gives 1.2 TB/s nominal for a 32 GB part, scaled by the 910B \
                               achievable/nominal ratio 1.35/1.6 = 0.84 -> ~1010 GB/s (G)",
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
        chip_bw_gbps: 1360.0,
        gm_to_ub: gm_to_ub(1.85),
        ub_to_gm: ub_to_gm(1.85),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
        sources: sources!(
            "cores" => "FACTS §1: per die 24 AIC / 48 AIV (C)",
            "clock_ghz" => "FACTS §1: 1.85 GHz (C)",
            "l2_bytes" => "not in FACTS; taken equal to 910B1, 192 MB (G)",
            "hbm_bytes" => "not in FACTS; taken equal to a 910B1 die, 64 GB (G)",
            "chip_bw_gbps" => "FACTS §2: bf16 GEMV of 185 MB on one die in 136 us (~1.36 TB/s) (C)",
        ),
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
        gm_to_ub: gm_to_ub(1.08),
        ub_to_gm: ub_to_gm(1.08),
        vector_repeat_bytes: 256,
        vector_unary_bytes_per_cycle: 256,
        vector_binary_bytes_per_cycle: 128,
        event_ids: 8,
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
                              ratio 0.84 -> 172 GB/s (G)",
            ),
            (
                "vector",
                "FACTS §3 A2 figures reused: 256 B per repeat (C on A2, I here)",
            ),
            ("event_ids", "FACTS §1: event ids 0-7 on A2/A3/310P (C)"),
            (
                "dma",
                "FACTS §2 910B1 single-core curves scaled by clock 1.08/1.8 (G)",
            ),
        ],
    },
];

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
        assert!(lookup("Ascend950").is_none());
        assert_eq!(all().len(), 6);
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

    #[test]
    fn curves_pass_through_the_facts_table_points() {
        // FACTS §2 table: the curve reproduces the measured GiB/s at each point exactly.
        let soc = lookup("Ascend910B1").unwrap();
        for &(kib, gib) in GM_TO_UB_POINTS {
            let got = soc.gm_to_ub.effective_gib_s(kib * 1024.0);
            assert!((got - gib).abs() < 1e-9, "GM->UB {kib} KiB: {got} vs {gib}");
        }
        for &(kib, gib) in UB_TO_GM_POINTS {
            let got = soc.ub_to_gm.effective_gib_s(kib * 1024.0);
            assert!((got - gib).abs() < 1e-9, "UB->GM {kib} KiB: {got} vs {gib}");
        }
        assert!((soc.gm_to_ub.time_us(0.0) - 0.12).abs() < 1e-12);
        // Past 64 KiB the effective rate stays at the asymptote.
        assert!((soc.gm_to_ub.effective_gib_s(192.0 * 1024.0) - 78.5).abs() < 1e-9);
    }

    #[test]
    fn serializes() {
        let json = serde_json::to_string(lookup("Ascend310P3").unwrap()).unwrap();
        assert!(json.contains("\"short_name\":\"ascend310p\""));
    }
}
