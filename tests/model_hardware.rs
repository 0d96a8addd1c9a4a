//! The model against figures measured on Ascend 910B (`shared/measured/figures.json`, row ids below):
//! kernels written by this project with the structure of asc-devkit's published best-practice examples
//! (add_high_performance cases 0-6, data_copy GM->UB scenarios 1-8 and GM->L1 scenarios 1-7,
//! bank_conflict_ub), written here as the twin traces them (trace version 3: GM buffer and offset per copy,
//! the cache-mode hint, UB operand addresses), modelled, and held to issue 16's bar: median absolute error
//! of the latencies <= 10%, the direction right for every before/after pair whose measured change is 3% or
//! more, the predicted ratio within 15% of the measured one for at least 80% of the pairs.
//! The kernels' structure (loops, copies, flags, UB layout) follows the examples' documented behaviour
//! (their READMEs); no code of theirs is here. `cargo test --test model_hardware -- --nocapture` prints
//! the table the README carries.
//! Two traces would be too long to write whole (add case 0: 201 M scalar records; data_copy UB s1: 2.4 M
//! copies): they are written for a part of each core's identical, sequential work (case 0: 16 of 16384
//! tiles; s1: 16 of 256 rows per core) and the block time scaled up, which is exact for the model (a core's
//! tiles cost the same one after another) and said in the table.

use std::fmt::Write;

use ascend_tune::model::pipeline::{SimOptions, Timing, simulate};
use ascend_tune::model::soc::{self, Soc};
use ascend_tune::model::trace::parse;

fn soc910b() -> &'static Soc {
    soc::lookup("Ascend910B1").unwrap()
}

fn model(text: &str) -> Timing {
    simulate(&parse(text).unwrap(), soc910b(), &SimOptions::default())
}

/// Latency of a launch whose blocks each ran `1 / scale` of their (identical, sequential) work: the block
/// part scaled up, the launch cost once.
fn scaled_us(t: &Timing, scale: f64) -> f64 {
    t.launch_us + (t.latency_us - t.launch_us) * scale
}

// ---- the add kernel: z = x + y, [8192, 8192] fp16, rows split evenly over the blocks ----

#[derive(Clone, Copy)]
struct Add {
    blocks: u32,
    copy_len: u64,
    double: bool,
    bypass: bool,
    /// UB layout: 0 = single buffer (x 0, y 32 KiB, z 64 KiB), 1 = ping/pong at 32 KiB steps,
    /// 2 = the bank-conflict-free layout (y 256 B below 32 KiB, z at 128 KiB).
    layout: u8,
    scalar: bool,
}

const M: u64 = 8192;
const N: u64 = 8192;
const MAX_LEN: u64 = 16384;

fn add_trace(a: Add, tiles_limit: Option<u64>) -> String {
    let mut s = String::from("twin-trace 3\n");
    let bd = u64::from(a.blocks);
    let (base, rem) = (M / bd, M % bd);
    let cache = if a.bypass { " cache=disable" } else { "" };
    let addrs: [[u64; 3]; 2] = match a.layout {
        0 => [[0, 2 * MAX_LEN, 4 * MAX_LEN]; 2],
        1 => [
            [0, 2 * MAX_LEN, 4 * MAX_LEN],
            [6 * MAX_LEN, 8 * MAX_LEN, 10 * MAX_LEN],
        ],
        _ => {
            let y = 16256 * 2;
            [
                [0, y, 8 * MAX_LEN],
                [4 * MAX_LEN, 4 * MAX_LEN + y, 8 * MAX_LEN + y],
            ]
        }
    };
    for b in 0..bd {
        writeln!(s, "block {b} {bd}").unwrap();
        let (rows, start) = if b < rem {
            (base + 1, b * (base + 1))
        } else {
            (base, rem * (base + 1) + (b - rem) * base)
        };
        let elems = rows * N;
        let tiles = elems.div_ceil(a.copy_len);
        let run = tiles_limit.unwrap_or(tiles).min(tiles);
        if a.double {
            s.push_str("set V MTE2 e0\nset V MTE2 e1\nset MTE3 V e0\nset MTE3 V e1\n");
        }
        for t in 0..run {
            let first = t * a.copy_len;
            let len = a.copy_len.min(elems - first);
            let gm = (start * N + first) * 2;
            let bytes = len * 2;
            let e = if a.double { t & 1 } else { 0 };
            let [ux, uy, uz] = addrs[if a.double { (t & 1) as usize } else { 0 }];
            let last = t + 1 == run;
            if a.double || t > 0 {
                writeln!(s, "wait V MTE2 e{e}").unwrap();
            }
            for (buf, line) in [(0, 60), (1, 61)] {
                writeln!(
                    s,
                    "I MTE2 DataCopy bytes={bytes} bursts=1 burst={bytes} gm={gm} gap=0 buf={buf}{cache} line={line}"
                )
                .unwrap();
            }
            writeln!(s, "set MTE2 V e{e}\nwait MTE2 V e{e}").unwrap();
            if a.double || t > 0 {
                writeln!(s, "wait MTE3 V e{e}").unwrap();
            }
            if a.scalar {
                for _ in 0..len {
                    s.push_str(
                        "I S GetValue line=90\nI S GetValue line=91\nI S SetValue line=92\n",
                    );
                }
            } else {
                writeln!(
                    s,
                    "I V Add dt=2 n={len} rep={} ubd={uz} ubs0={ux} ubs1={uy} line=70",
                    bytes.div_ceil(256)
                )
                .unwrap();
            }
            if a.double || !last {
                writeln!(s, "set V MTE2 e{e}").unwrap();
            }
            writeln!(s, "set V MTE3 e{e}\nwait V MTE3 e{e}").unwrap();
            writeln!(
                s,
                "I MTE3 DataCopy bytes={bytes} bursts=1 burst={bytes} gm={gm} gap=0 buf=2 line=80"
            )
            .unwrap();
            if a.double || !last {
                writeln!(s, "set MTE3 V e{e}").unwrap();
            }
        }
        if a.double {
            s.push_str("wait V MTE2 e0\nwait V MTE2 e1\nwait MTE3 V e0\nwait MTE3 V e1\n");
        }
        s.push_str("end\n");
    }
    s
}

const fn add(blocks: u32, copy_len: u64, double: bool, bypass: bool, layout: u8) -> Add {
    Add {
        blocks,
        copy_len,
        double,
        bypass,
        layout,
        scalar: false,
    }
}

// ---- the data-copy kernel: pure GM->UB (DataCopyPad, AIV) or GM->L1 (DataCopy Nd2Nz, AIC) ----

#[derive(Clone, Copy, PartialEq)]
enum Order {
    /// Each core reads its rows once, tile by tile.
    Once,
    /// The whole matrix, four times.
    Whole4,
    /// N split in four; each quarter four times before the next.
    Split4,
    /// Every core reads the whole matrix, all in the same order / staggered by core (both with the
    /// source's L2 hint CACHE_MODE_DISABLE, as the example sets).
    Same,
    Staggered,
}

#[derive(Clone, Copy)]
struct Copy {
    pad: bool,
    blocks: u64,
    m: u64,
    n: u64,
    tile_m: u64,
    tile_n: u64,
    order: Order,
}

fn copy_trace(c: Copy, rows_limit: Option<u64>) -> String {
    let api = if c.pad { "DataCopyPad" } else { "DataCopy" };
    let cache = if matches!(c.order, Order::Same | Order::Staggered) {
        " cache=disable"
    } else {
        ""
    };
    let mut s = String::from("twin-trace 3\n");
    let single = c.m / c.blocks;
    let copy = |s: &mut String, row: u64, col: u64, cols: u64| {
        writeln!(
            s,
            "I MTE2 {api} bytes={} bursts={} burst={} gm={} gap={} buf=0{cache} line=50",
            c.tile_m * cols * 2,
            c.tile_m,
            cols * 2,
            (row * c.n + col) * 2,
            (c.n - cols) * 2
        )
        .unwrap();
    };
    for b in 0..c.blocks {
        writeln!(s, "block {b} {}", c.blocks).unwrap();
        let rows = rows_limit.unwrap_or(single).min(single);
        match c.order {
            Order::Once | Order::Whole4 | Order::Split4 => {
                let (slices, repeats) = match c.order {
                    Order::Once => (1, 1),
                    Order::Whole4 => (1, 4),
                    _ => (4, 4),
                };
                let width = c.n / slices;
                for slice in 0..slices {
                    for _ in 0..repeats {
                        for m0 in (0..rows).step_by(c.tile_m as usize) {
                            for n0 in (0..width).step_by(c.tile_n as usize) {
                                let cols = c.tile_n.min(width - n0);
                                copy(&mut s, b * single + m0, slice * width + n0, cols);
                            }
                        }
                    }
                }
            }
            Order::Same | Order::Staggered => {
                let groups = c.m / single;
                for g in 0..groups {
                    let cur = if c.order == Order::Staggered {
                        (g / c.blocks) * c.blocks + (g + b) % c.blocks
                    } else {
                        g
                    };
                    for m0 in (0..single).step_by(c.tile_m as usize) {
                        for n0 in (0..c.n).step_by(c.tile_n as usize) {
                            copy(&mut s, cur * single + m0, n0, c.tile_n);
                        }
                    }
                }
            }
        }
        s.push_str("end\n");
    }
    s
}

const fn ub(tile_m: u64, tile_n: u64, n: u64, order: Order) -> Copy {
    let m = if matches!(order, Order::Same | Order::Staggered) {
        6144
    } else {
        12288
    };
    Copy {
        pad: true,
        blocks: 48,
        m,
        n,
        tile_m,
        tile_n,
        order,
    }
}

const fn l1(tile_m: u64, tile_n: u64, n: u64, order: Order) -> Copy {
    let mut c = ub(tile_m, tile_n, n, order);
    c.pad = false;
    c.blocks = 24;
    c
}

// ---- the measured rows and what the model makes of them ----

struct Row {
    id: &'static str,
    measured_us: f64,
    modelled_us: f64,
    note: &'static str,
}

fn rows() -> Vec<Row> {
    let mut out = Vec::new();
    let mut push = |id: &'static str, measured_us: f64, modelled_us: f64, note: &'static str| {
        out.push(Row {
            id,
            measured_us,
            modelled_us,
            note,
        })
    };
    // add_high_performance (ascdevkit_add_case*), 910B, Task Duration in us.
    let case0 = Add {
        scalar: true,
        ..add(1, 4096, false, false, 0)
    };
    let t = model(&add_trace(case0, Some(16)));
    push(
        "ascdevkit_add_case0",
        1239689.1,
        scaled_us(&t, 16384.0 / 16.0),
        "16 of 16384 tiles, scaled",
    );
    let cases: [(&'static str, f64, Add); 7] = [
        ("ascdevkit_add_case1", 6909.6, add(1, 4096, false, false, 0)),
        (
            "ascdevkit_add_case2",
            306.58,
            add(48, 4096, false, false, 0),
        ),
        (
            "ascdevkit_add_case3",
            268.5,
            add(48, 16384, false, false, 0),
        ),
        (
            "ascdevkit_add_case3_dcl16512",
            267.76,
            add(48, 16512, false, false, 0),
        ),
        (
            "ascdevkit_add_case4",
            264.02,
            add(48, 16384, true, false, 1),
        ),
        ("ascdevkit_add_case5", 187.68, add(48, 16384, true, true, 1)),
        ("ascdevkit_add_case6", 184.52, add(48, 16256, true, true, 2)),
    ];
    for (id, measured, a) in cases {
        push(id, measured, model(&add_trace(a, None)).latency_us, "");
    }
    // data_copy GM->UB (ascdevkit_datacopy_ub_s*), 48 AIV.
    let t = model(&copy_trace(ub(1, 64, 12288, Order::Once), Some(16)));
    push(
        "ascdevkit_datacopy_ub_s1",
        564.84,
        scaled_us(&t, 256.0 / 16.0),
        "16 of 256 rows per core, scaled",
    );
    let ubs: [(&'static str, f64, Copy); 7] = [
        (
            "ascdevkit_datacopy_ub_s2",
            233.54,
            ub(64, 64, 12288, Order::Once),
        ),
        (
            "ascdevkit_datacopy_ub_s3",
            215.82,
            ub(64, 1024, 12288, Order::Once),
        ),
        (
            "ascdevkit_datacopy_ub_s4",
            275.3,
            ub(64, 1024, 12287, Order::Once),
        ),
        (
            "ascdevkit_datacopy_ub_s5",
            828.06,
            ub(64, 1024, 12288, Order::Whole4),
        ),
        (
            "ascdevkit_datacopy_ub_s6",
            365.74,
            ub(64, 1024, 12288, Order::Split4),
        ),
        (
            "ascdevkit_datacopy_ub_s7",
            539.42,
            ub(128, 64, 512, Order::Same),
        ),
        (
            "ascdevkit_datacopy_ub_s8",
            328.88,
            ub(128, 64, 512, Order::Staggered),
        ),
    ];
    // data_copy GM->L1 (ascdevkit_datacopy_l1_s*), 24 AIC, Nd2Nz DataCopy.
    let l1s: [(&'static str, f64, Copy); 7] = [
        (
            "ascdevkit_datacopy_l1_s1",
            300.7,
            l1(64, 64, 12288, Order::Once),
        ),
        (
            "ascdevkit_datacopy_l1_s2",
            230.24,
            l1(64, 256, 12288, Order::Once),
        ),
        (
            "ascdevkit_datacopy_l1_s3",
            438.76,
            l1(64, 256, 12287, Order::Once),
        ),
        (
            "ascdevkit_datacopy_l1_s4",
            899.34,
            l1(64, 1024, 12288, Order::Whole4),
        ),
        (
            "ascdevkit_datacopy_l1_s5",
            414.96,
            l1(64, 1024, 12288, Order::Split4),
        ),
        (
            "ascdevkit_datacopy_l1_s6",
            278.56,
            l1(256, 64, 512, Order::Same),
        ),
        (
            "ascdevkit_datacopy_l1_s7",
            221.34,
            l1(256, 64, 512, Order::Staggered),
        ),
    ];
    for (id, measured, c) in ubs.into_iter().chain(l1s) {
        push(id, measured, model(&copy_trace(c, None)).latency_us, "");
    }
    out
}

/// The before/after pairs of the calibration set that these kernels cover (ids of figures.json).
const PAIRS: &[(&str, &str, &str)] = &[
    (
        "ascdevkit_add_case0_to_case1",
        "ascdevkit_add_case0",
        "ascdevkit_add_case1",
    ),
    (
        "ascdevkit_add_case1_to_case2",
        "ascdevkit_add_case1",
        "ascdevkit_add_case2",
    ),
    (
        "ascdevkit_add_case2_to_case3",
        "ascdevkit_add_case2",
        "ascdevkit_add_case3",
    ),
    (
        "ascdevkit_add_dcl16384_to_16512",
        "ascdevkit_add_case3",
        "ascdevkit_add_case3_dcl16512",
    ),
    (
        "ascdevkit_add_case3_to_case4",
        "ascdevkit_add_case3",
        "ascdevkit_add_case4",
    ),
    (
        "ascdevkit_add_case4_to_case5",
        "ascdevkit_add_case4",
        "ascdevkit_add_case5",
    ),
    (
        "ascdevkit_add_case5_to_case6",
        "ascdevkit_add_case5",
        "ascdevkit_add_case6",
    ),
    (
        "ascdevkit_datacopy_ub_s1_to_s2",
        "ascdevkit_datacopy_ub_s1",
        "ascdevkit_datacopy_ub_s2",
    ),
    (
        "ascdevkit_datacopy_ub_s2_to_s3",
        "ascdevkit_datacopy_ub_s2",
        "ascdevkit_datacopy_ub_s3",
    ),
    (
        "ascdevkit_datacopy_ub_s1_to_s3",
        "ascdevkit_datacopy_ub_s1",
        "ascdevkit_datacopy_ub_s3",
    ),
    (
        "ascdevkit_datacopy_ub_s3_to_s4",
        "ascdevkit_datacopy_ub_s3",
        "ascdevkit_datacopy_ub_s4",
    ),
    (
        "ascdevkit_datacopy_ub_s5_to_s6",
        "ascdevkit_datacopy_ub_s5",
        "ascdevkit_datacopy_ub_s6",
    ),
    (
        "ascdevkit_datacopy_ub_s7_to_s8",
        "ascdevkit_datacopy_ub_s7",
        "ascdevkit_datacopy_ub_s8",
    ),
    (
        "ascdevkit_datacopy_l1_s1_to_s2",
        "ascdevkit_datacopy_l1_s1",
        "ascdevkit_datacopy_l1_s2",
    ),
    (
        "ascdevkit_datacopy_l1_s2_to_s3",
        "ascdevkit_datacopy_l1_s2",
        "ascdevkit_datacopy_l1_s3",
    ),
    (
        "ascdevkit_datacopy_l1_s4_to_s5",
        "ascdevkit_datacopy_l1_s4",
        "ascdevkit_datacopy_l1_s5",
    ),
    (
        "ascdevkit_datacopy_l1_s6_to_s7",
        "ascdevkit_datacopy_l1_s6",
        "ascdevkit_datacopy_l1_s7",
    ),
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[test]
fn the_published_cases_are_reproduced_within_the_issue_bar() {
    let rows = rows();
    let by_id = |id: &str| rows.iter().find(|r| r.id == id).unwrap();
    println!("| row | measured (us) | modelled (us) | error |");
    println!("|---|---|---|---|");
    let mut errors = Vec::new();
    for r in &rows {
        let e = r.modelled_us / r.measured_us - 1.0;
        errors.push(e.abs());
        let note = if r.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", r.note)
        };
        println!(
            "| {}{note} | {} | {:.2} | {:+.1}% |",
            r.id,
            r.measured_us,
            r.modelled_us,
            e * 100.0
        );
    }
    println!();
    println!("| pair | measured ratio | modelled ratio | ratio error | direction |");
    println!("|---|---|---|---|---|");
    let (mut within, mut wrong) = (0, Vec::new());
    for &(id, before, after) in PAIRS {
        let (b, a) = (by_id(before), by_id(after));
        let measured = a.measured_us / b.measured_us;
        let modelled = a.modelled_us / b.modelled_us;
        let ratio_err = modelled / measured - 1.0;
        if ratio_err.abs() <= 0.15 {
            within += 1;
        }
        let counts = (measured - 1.0).abs() >= 0.03;
        let right = (measured < 1.0) == (modelled < 1.0);
        if counts && !right {
            wrong.push(id);
        }
        println!(
            "| {id} | {measured:.4} | {modelled:.4} | {:+.1}% | {} |",
            ratio_err * 100.0,
            match (counts, right) {
                (false, _) => "change < 3%",
                (true, true) => "right",
                (true, false) => "WRONG",
            }
        );
    }
    let med = median(errors);
    let share = within as f64 / PAIRS.len() as f64;
    println!(
        "\nsummary: {} rows, median |error| {:.1}%; {} pairs, direction wrong on {} of those changing >= 3%, \
         ratio within 15% for {within} ({:.0}%)",
        rows.len(),
        med * 100.0,
        PAIRS.len(),
        wrong.len(),
        share * 100.0
    );
    // Issue 16 found the model making larger copies slower (case 2 -> 3) with a floor of 298 us; the NPU
    // has them 12% faster and reaches 187.68 us once the inputs bypass L2.
    assert!(
        by_id("ascdevkit_add_case3").modelled_us < 0.95 * by_id("ascdevkit_add_case2").modelled_us
    );
    assert!(by_id("ascdevkit_add_case5").modelled_us < 200.0);
    assert!(med <= 0.10, "median |error| {med}");
    assert!(wrong.is_empty(), "direction wrong: {wrong:?}");
    assert!(
        share >= 0.8,
        "ratio within 15% for {within} of {}",
        PAIRS.len()
    );
}

#[test]
fn the_bank_conflict_microbenchmark_ratios_are_reproduced() {
    // ascdevkit_ub_bank_conflict_cycles: 1000 fp32 Adds of 64 repeats, cycles relative to scenario 1.
    let soc = soc910b();
    // `ubst`: the strides of scenarios 7 and 8 (trace version 6), else contiguous.
    let strided = |d: u64, s0: u64, s1: u64, ubst: &str| {
        let mut t = String::from("twin-trace 6\nblock 0 1\n");
        for _ in 0..1000 {
            writeln!(
                t,
                "I V Add dt=4 n=4096 rep=64 ubd={d} ubs0={s0} ubs1={s1}{ubst} line=1"
            )
            .unwrap();
        }
        t.push_str("end\n");
        let t = model(&t);
        (t.latency_us - t.launch_us) * soc.cycles_per_us()
    };
    let cycles = |d: u64, s0: u64, s1: u64| strided(d, s0, s1, "");
    let base = cycles(0x20000, 0, 0x10100);
    // Scenario 7: src0 reads one block per repeat (src0BlkStride 0), one block further each repeat
    // (src0RepStride 1): its bank group walks through src1's on every other repeat, a read-read conflict
    // on half of them; scenario 8 (src0RepStride 8) keeps it out of src1's groups. Measured x1.50 and
    // x1.00; the half the README's table shows conflicting gives x1.37 (the other 0.13 not explained).
    for (name, measured, ubst) in [
        ("src0 repStride=1", 3584.0 / 2390.0, " ubst=1/8/0/1/1/8"),
        ("src0 repStride=8", 2389.0 / 2390.0, " ubst=1/8/0/8/1/8"),
    ] {
        let modelled = strided(0x10100, 0, 0x10100, ubst) / base;
        println!("{name}: measured x{measured:.3}, modelled x{modelled:.3}");
        assert!(
            (modelled / measured - 1.0).abs() <= 0.10,
            "{name}: {modelled} vs {measured}"
        );
    }
    for (name, measured, d, s0, s1) in [
        ("read-read, one bank", 4167.0 / 2390.0, 0x10000, 0, 0x4000),
        (
            "read-read, one bank group",
            4167.0 / 2390.0,
            0x14100,
            0,
            0x10000,
        ),
        (
            "src0 and dst in one bank",
            2389.0 / 2390.0,
            0x4000,
            0,
            0x10100,
        ),
        ("read-write", 3751.0 / 2390.0, 0x4020, 0, 0x10100),
        ("src1 = dst", 2390.0 / 2390.0, 0x10100, 0, 0x10100),
    ] {
        let modelled = cycles(d, s0, s1) / base;
        println!("{name}: measured x{measured:.3}, modelled x{modelled:.3}");
        assert!(
            (modelled / measured - 1.0).abs() <= 0.10,
            "{name}: {modelled} vs {measured}"
        );
    }
}

// ---- the matmul of asc-devkit's matmul_high_performance, as the twin's Matmul traces it ----

/// One IterateAll per core of C = A x B^T (A M x K, B N x K, fp16, C half), in the twin's Matmul schedule
/// (templates/twin/include/kernel/lib/matmul_intf.h, compute_block): per base block, per base K block, the A
/// chunk (stepKa base K blocks) and B chunk (stepKb) GM -> L1 when due, MTE1 loads into double-buffered L0A /
/// L0B (one LoadData per 16-row fractal row of A, one for B), Mmad, and a Fixpipe of the block to GM.
#[derive(Clone, Copy)]
struct Mm {
    m: u64,
    n: u64,
    k: u64,
    m_cores: u64,
    n_cores: u64,
    base: (u64, u64, u64),
    step_ka: u64,
    step_kb: u64,
    /// L1 chunk buffers (2: MDL double buffering, 1: Norm).
    bufs: u64,
}

fn matmul_trace(c: Mm) -> String {
    let (bm, bn, bk) = c.base;
    let (sm, sn) = (c.m / c.m_cores, c.n / c.n_cores);
    let blocks = c.m_cores * c.n_cores;
    let shared = c.step_ka == c.step_kb;
    let mut s = String::from("twin-trace 3\n");
    for b in 0..blocks {
        writeln!(s, "block {b} {blocks}").unwrap();
        let (mi, ni) = (b % c.m_cores, b / c.m_cores);
        let (mut pend_a, mut pend_b, mut l0) = ([false; 2], [false; 2], [false; 2]);
        let (mut ppa, mut ppb, mut pp) = (0u64, 0u64, 0u64);
        let mut fix_pending = false;
        for it in 0..(sm / bm) * (sn / bn) {
            let (mb, nb) = (it % (sm / bm), it / (sm / bm));
            let (row, col) = (mi * sm + mb * bm, ni * sn + nb * bn);
            if fix_pending {
                s += "wait FIX M e6\n";
            }
            let (mut la, mut lb) = (0, 0);
            let kblocks = c.k / bk;
            for kb in 0..kblocks {
                let k0 = kb * bk;
                let copy = |s: &mut String, rows: u64, first: u64, buf: u64, step: u64| {
                    let burst = (step * bk).min(c.k - k0) * 2;
                    writeln!(
                        s,
                        "I MTE2 DataCopy bytes={} bursts={rows} burst={burst} gm={} gap={} buf={buf} mem=L1 nd2nz=1 line=1",
                        rows * burst,
                        (first * c.k + k0) * 2,
                        c.k * 2 - burst
                    )
                    .unwrap();
                };
                let (due_a, due_b) = (kb % c.step_ka == 0, kb % c.step_kb == 0);
                if due_a {
                    la = (ppa % c.bufs) as usize;
                    ppa += 1;
                    if pend_a[la] {
                        writeln!(s, "wait MTE1 MTE2 e{}", 6 + la).unwrap();
                        pend_a[la] = false;
                    }
                    copy(&mut s, bm, row, 0, c.step_ka);
                }
                if due_b {
                    if shared {
                        lb = la;
                    } else {
                        lb = (ppb % c.bufs) as usize;
                        ppb += 1;
                        if pend_b[lb] {
                            writeln!(s, "wait MTE1 MTE2 e{}", 4 + lb).unwrap();
                            pend_b[lb] = false;
                        }
                    }
                    copy(&mut s, bn, col, 1, c.step_kb);
                }
                if due_a || due_b {
                    s += "set MTE2 MTE1 e6\nwait MTE2 MTE1 e6\n";
                }
                let buf = (pp % 2) as usize;
                pp += 1;
                if l0[buf] {
                    writeln!(s, "wait M MTE1 e{}", 6 + buf).unwrap();
                }
                for _ in 0..bm / 16 {
                    writeln!(s, "I MTE1 LoadData bytes={} dst=1 line=1", bk * 32).unwrap();
                }
                writeln!(s, "I MTE1 LoadData bytes={} dst=2 line=1", bk * bn * 2).unwrap();
                writeln!(s, "set MTE1 M e{0}\nwait MTE1 M e{0}", 6 + buf).unwrap();
                writeln!(s, "I M Mmad m={bm} k={bk} n={bn} dt=2 line=1").unwrap();
                writeln!(s, "set M MTE1 e{}", 6 + buf).unwrap();
                l0[buf] = true;
                let last = kb + 1 == kblocks;
                if (kb + 1) % c.step_ka == 0 || last {
                    writeln!(s, "set MTE1 MTE2 e{}", 6 + la).unwrap();
                    pend_a[la] = true;
                }
                if !shared && ((kb + 1) % c.step_kb == 0 || last) {
                    writeln!(s, "set MTE1 MTE2 e{}", 4 + lb).unwrap();
                    pend_b[lb] = true;
                }
            }
            s += "set M FIX e6\nwait M FIX e6\n";
            writeln!(
                s,
                "I FIX Fixpipe bytes={} bursts={bm} burst={} gm={} gap={} buf=2 line=1",
                bm * bn * 2,
                bn * 2,
                (row * c.n + col) * 2,
                (c.n - bn) * 2
            )
            .unwrap();
            s += "set FIX M e6\n";
            fix_pending = true;
        }
        s += "end\n";
    }
    s
}

/// The cube model's figures on a 1024^3 fp16 matmul in the sample's base blocks ([128, 256, 64]) on a 2 x 2
/// core split: Norm (one L1 chunk of one base K block, as cases 0-3 set it with SetL1) and MDL (chunks of 4
/// base K blocks, double-buffered, the twin's tiling for case 4), and MDL with the case-5 L1 depths
/// (stepKa 8, stepKb 4). Exact modelled latencies, so a change to the cube costs shows here; the full-size
/// cases are compared with the measured rows by benches/hardware.
#[test]
fn a_small_matmul_in_the_sample_base_blocks_models_to_fixed_figures() {
    let base = Mm {
        m: 1024,
        n: 1024,
        k: 1024,
        m_cores: 2,
        n_cores: 2,
        base: (128, 256, 64),
        step_ka: 1,
        step_kb: 1,
        bufs: 1,
    };
    let mdl = Mm {
        step_ka: 4,
        step_kb: 4,
        bufs: 2,
        ..base
    };
    let mdl_l1 = Mm {
        step_ka: 8,
        step_kb: 4,
        ..mdl
    };
    let us = |c: Mm| model(&matmul_trace(c)).latency_us;
    let (norm, mdl, mdl_l1) = (us(base), us(mdl), us(mdl_l1));
    println!("norm {norm:.3} us, mdl {mdl:.3} us, mdl stepKa 8 {mdl_l1:.3} us");
    assert!(mdl < norm, "MDL's L1 prefetch and big packets are faster");
    assert_eq!(format!("{norm:.3}"), "161.025");
    assert_eq!(format!("{mdl:.3}"), "63.524");
    assert_eq!(format!("{mdl_l1:.3}"), "63.364");
}

#[test]
fn the_bank_conflict_free_layout_of_add_case_6_shortens_the_vector_pipe_as_measured() {
    // ascdevkit_add_case5 / case6: the whole launch is MTE2-bound (187.68 -> 184.52 us), but msprof's
    // aiv_vec_time shows what the 256-byte offsets bought: 12.846 -> 6.954 us, x0.541. The ub-bank-offset
    // motif's modelled gains on public operators rest on this ratio, so it is checked here on the V pipe's
    // busy time alone (per core; msprof's figure is per core too).
    let vec_us = |a: Add| {
        let t = model(&add_trace(a, None));
        t.pipes
            .iter()
            .find(|p| p.pipe == ascend_tune::model::Pipe::V)
            .map(|p| p.busy_us)
            .unwrap()
    };
    let (case5, case6) = (
        vec_us(add(48, 16384, true, true, 1)),
        vec_us(add(48, 16256, true, true, 2)),
    );
    // Each against msprof's figure first: the ratio alone held when the model charged both cases twice
    // the measured time (24.7 / 12.9 us), the error this test was written for.
    for (id, modelled, measured) in [("case5", case5, 12.846), ("case6", case6, 6.954)] {
        assert!(
            (modelled / measured - 1.0).abs() <= 0.10,
            "{id}: V modelled {modelled} us, aiv_vec_time {measured} us"
        );
    }
    let (measured, modelled) = (6.954 / 12.846, case6 / case5);
    println!(
        "aiv_vec_time: case5 {case5:.3} us, case6 {case6:.3} us modelled; ratio measured x{measured:.3}, modelled x{modelled:.3}"
    );
    assert!(
        (modelled / measured - 1.0).abs() <= 0.15,
        "modelled x{modelled} vs measured x{measured}"
    );
}
