//! Calibration and behaviour tests of the whole model: each names the public figure it checks (FACTS.md) and
//! prints target vs modelled (run with `--nocapture` to see them). Traces are built here as text, the way the
//! twin writes them, with TQue EnQue/DeQue/AllocTensor/FreeTensor expressed as flags on keys q<queue>.b<buf>.

use std::fmt::Write;

use ascend_tune::model::pipeline::{Bound, SimOptions, Timing, simulate};
use ascend_tune::model::soc::{self, Soc};
use ascend_tune::model::trace::{Pipe, parse};

fn soc(name: &str) -> &'static Soc {
    soc::lookup(name).unwrap()
}

fn run(text: &str, soc: &Soc) -> Timing {
    simulate(&parse(text).unwrap(), soc, &SimOptions::default())
}

/// The add kernel z = x + y in the AscendC sample style: per block `tiles` tiles of `tile_elems` elements of
/// `dt` bytes, `buffers` buffers per queue (1 = single, 2 = double buffering), optionally a `barrier ALL` at the
/// end of each loop iteration. Queues: q0 x (VECIN), q1 y (VECIN), q2 z (VECOUT).
fn add_trace(
    block_dim: u32,
    tiles: u32,
    tile_elems: u64,
    dt: u64,
    buffers: u32,
    barrier_all: bool,
) -> String {
    let bytes = tile_elems * dt;
    let rep = bytes.div_ceil(256);
    let mut s = String::from("twin-trace 1\n");
    for b in 0..block_dim {
        writeln!(s, "block {b} {block_dim}").unwrap();
        let base = u64::from(b) * u64::from(tiles) * bytes;
        for i in 0..tiles {
            let q = i % buffers;
            let gm = (base + u64::from(i) * bytes) % 512;
            let later = i >= buffers;
            // CopyIn
            if later {
                writeln!(s, "wait V MTE2 q0.b{q}\nwait V MTE2 q1.b{q}").unwrap();
            }
            for line in [37, 38] {
                writeln!(
                    s,
                    "I MTE2 DataCopy bytes={bytes} bursts=1 burst={bytes} gm={gm} gap=0 line={line}"
                )
                .unwrap();
            }
            writeln!(s, "set MTE2 V q0.b{q}\nset MTE2 V q1.b{q}").unwrap();
            // Compute
            writeln!(s, "wait MTE2 V q0.b{q}\nwait MTE2 V q1.b{q}").unwrap();
            if later {
                writeln!(s, "wait MTE3 V q2.b{q}").unwrap();
            }
            writeln!(s, "I V Add dt={dt} n={tile_elems} rep={rep} line=47").unwrap();
            writeln!(
                s,
                "set V MTE3 q2.b{q}\nset V MTE2 q0.b{q}\nset V MTE2 q1.b{q}"
            )
            .unwrap();
            // CopyOut
            writeln!(s, "wait V MTE3 q2.b{q}").unwrap();
            writeln!(
                s,
                "I MTE3 DataCopy bytes={bytes} bursts=1 burst={bytes} gm={gm} gap=0 line=54"
            )
            .unwrap();
            writeln!(s, "set MTE3 V q2.b{q}").unwrap();
            if barrier_all {
                writeln!(s, "barrier ALL").unwrap();
            }
        }
        writeln!(s, "end").unwrap();
    }
    s
}

/// One block of `count` back-to-back aligned copies of `bytes` on `pipe`.
fn copies_trace(pipe: &str, bytes: u64, count: u32) -> String {
    let mut s = String::from("twin-trace 1\nblock 0 1\n");
    for i in 0..count {
        writeln!(
            s,
            "I {pipe} DataCopy bytes={bytes} bursts=1 burst={bytes} gm=0 gap=0 line={i}"
        )
        .unwrap();
    }
    s.push_str("end\n");
    s
}

fn ratio(p: Pipe, t: &Timing) -> f64 {
    t.pipe(p).map(|s| s.ratio).unwrap_or(0.0)
}

/// Pipe busy of the only block, heads excluded, in us.
fn block_busy(t: &Timing, p: Pipe) -> f64 {
    t.blocks[0]
        .busy
        .iter()
        .find(|b| b.pipe == p)
        .map(|b| b.busy_us)
        .unwrap_or(0.0)
}

#[test]
fn one_core_streams_at_its_measured_engine_rate() {
    // Measured on 910B (soc MemSys): a core's DMA engine reads 31.2 B/cycle from HBM
    // (ascdevkit_datacopy_l1_s4: 24 cores, 4 x 302 MB in 872.19 us) and writes 59 B/cycle
    // (ascdevkit_add_case1). FACTS §2's single-copy msKPP table (78.5 GiB/s at 64 KiB) measured one isolated
    // copy and is superseded. 64 back-to-back 64 KiB copies on one core, the chip otherwise idle.
    let soc = soc("Ascend910B1");
    for (pipe, per_cycle) in [
        ("MTE2", soc.mem.core_miss_bytes_per_cycle),
        ("MTE3", soc.mem.core_store_bytes_per_cycle),
    ] {
        let count = 64;
        let t = run(&copies_trace(pipe, 64 * 1024, count), soc);
        let secs = (t.latency_us - t.launch_us) * 1e-6;
        let gb_s = (64 * 1024 * u64::from(count)) as f64 / secs / 1e9;
        let target = per_cycle * soc.clock_ghz;
        println!(
            "one core, {pipe} 64 KiB copies: measured engine {target:.1} GB/s, modelled {gb_s:.1} GB/s"
        );
        assert!(
            (gb_s / target - 1.0).abs() < 0.05,
            "{pipe}: {gb_s} vs {target}"
        );
    }
}

#[test]
fn whole_chip_streaming_add_reads_at_the_measured_hbm_rate() {
    // ascdevkit_add_hbm_bw / add case 5: a 48-block double-buffered add whose writes stay in L2 reads its
    // inputs at the chip's HBM rate, 1525 GB/s (the README's "rw 2.2755 TB/s" counts the writes too).
    // FACTS §2's 1.3-1.4 TB/s streaming figure is lower than measured and superseded.
    for (name, blocks, tiles) in [("Ascend910B1", 48u32, 44u32), ("Ascend910B3", 40, 52)] {
        let soc = soc(name);
        let text = add_trace(blocks, tiles, 8192, 2, 2, false);
        let t = run(&text, soc);
        let read = t.gm_bytes as f64 * 2.0 / 3.0;
        let tb_s = read / ((t.latency_us - t.launch_us) * 1e-6) / 1e12;
        println!(
            "{name} {blocks}-block fp16 add, {:.1} MB read: measured 1.525 TB/s, modelled {tb_s:.3} TB/s \
             ({:.2} us, bound {})",
            read / 1e6,
            t.latency_us,
            t.bound
        );
        assert!((1.4..=1.6).contains(&tb_s), "{name}: {tb_s} TB/s");
        assert_eq!(t.bound, Bound::ChipBandwidth);
    }
}

#[test]
fn vector_classes_cost_their_cycles_per_repeat() {
    // FACTS §3, msKPP steady-state cycles per repeat (910B1), except binary arithmetic: measured at 1 cycle
    // per repeat with the sources in different bank groups (asc-devkit add_high_performance case 6,
    // src/model/costs.rs), msKPP's 2 being the conflicted figure.
    let soc = soc("Ascend910B1");
    let cases: &[(&str, u64, f64)] = &[
        ("Adds", 2, 1.0),
        ("Muls", 4, 1.0),
        ("Relu", 2, 1.0),
        ("Cast", 2, 1.0),
        ("Duplicate", 4, 1.0),
        ("Add", 2, 1.0),
        ("Mul", 4, 1.0),
        ("Select", 2, 2.0),
        ("Compare", 2, 2.0),
        ("Exp", 4, 2.0),
        ("Ln", 4, 2.0),
        ("Sqrt", 4, 2.0),
        ("Exp", 2, 4.0),
        ("Sqrt", 2, 4.0),
        ("Div", 2, 4.0),
        ("Div", 4, 4.0),
        ("WholeReduceSum", 4, 3.0),
        ("WholeReduceSum", 2, 7.0),
        ("BlockReduceSum", 2, 7.0),
        ("Mla", 2, 5.0),
        ("MulAddDst", 2, 6.0),
        ("Gather", 4, 18.0),
        ("GatherMask", 2, 14.0),
        ("MrgSort", 4, 16.0),
    ];
    let one = |api: &str, dt: u64, rep: u64| {
        run(
            &format!("twin-trace 1\nblock 0 1\nI V {api} dt={dt} rep={rep} line=1\nend\n"),
            soc,
        )
        .latency_us
    };
    for &(api, dt, target) in cases {
        let per_rep = (one(api, dt, 201) - one(api, dt, 1)) * soc.cycles_per_us() / 200.0;
        println!("{api:>15} dt={dt}: msKPP {target:4.1} cycles/repeat, modelled {per_rep:5.2}");
        assert!(
            (per_rep / target - 1.0).abs() < 0.10,
            "{api} dt={dt}: {per_rep} vs {target}"
        );
    }
    // FACTS §3 ATT intercept: Add fp16 b = 22.2 cycles per call (plus the scalar issue).
    let t = run(
        "twin-trace 1\nblock 0 1\nI V Add dt=2 rep=0 line=1\nend\n",
        soc,
    );
    let body = (t.latency_us - t.launch_us) * soc.cycles_per_us();
    assert!(
        (body - 22.2 - ascend_tune::model::costs::ISSUE_CYCLES).abs() < 1e-6,
        "{body}"
    );
}

#[test]
fn double_buffering_overlaps_and_barrier_all_serialises() {
    // FACTS §4: PIPE_ALL drains every pipe, a full stall of MTE2/MTE3/V overlap.
    let soc = soc("Ascend910B1");
    let tiles = 32;
    let db = run(&add_trace(1, tiles, 4096, 2, 2, false), soc);
    let bar = run(&add_trace(1, tiles, 4096, 2, 2, true), soc);
    let body = |t: &Timing| t.latency_us - t.launch_us;
    let pipes = [Pipe::Mte2, Pipe::V, Pipe::Mte3];
    let max = pipes
        .iter()
        .map(|&p| block_busy(&db, p))
        .fold(0.0, f64::max);
    let sum: f64 = pipes.iter().map(|&p| block_busy(&bar, p)).sum();
    println!(
        "double-buffered: body {:.3} us, max pipe {:.3} us; with barrier ALL: body {:.3} us, sum of pipes {:.3} us",
        body(&db),
        max,
        body(&bar),
        sum
    );
    assert!(
        body(&db) / max < 1.10,
        "overlapped: {} vs max {}",
        body(&db),
        max
    );
    // Serialised: the pipes' busy time one after another, plus the copies' latency that each barrier waits
    // out (soc MemSys dma_latency_cycles: two waits per tile, the inputs' and the output's).
    let latency = 2.0 * f64::from(tiles) * soc.mem.dma_latency_cycles / soc.cycles_per_us();
    assert!(
        (body(&bar) / (sum + latency) - 1.0).abs() < 0.10,
        "serialised: {} vs sum {} + latency {}",
        body(&bar),
        sum,
        latency
    );
    assert!(bar.latency_us > 1.3 * db.latency_us);
    assert_eq!(db.bound, Bound::Mte2);
    assert!(ratio(Pipe::Mte2, &db) > 0.8 && ratio(Pipe::Mte2, &bar) < ratio(Pipe::Mte2, &db));
}

#[test]
fn double_buffering_beats_single_buffering() {
    let soc = soc("Ascend910B1");
    for (blocks, tiles, elems) in [(1u32, 16u32, 8192u64), (48, 8, 4096)] {
        let single = run(&add_trace(blocks, tiles, elems, 2, 1, false), soc);
        let double = run(&add_trace(blocks, tiles, elems, 2, 2, false), soc);
        println!(
            "{blocks} block(s): single-buffered {:.3} us, double-buffered {:.3} us",
            single.latency_us, double.latency_us
        );
        if blocks == 1 {
            assert!(double.latency_us < 0.95 * single.latency_us);
        } else {
            // Chip-bound: the chip streams at its limit either way, double buffering gains little.
            assert!(double.latency_us < single.latency_us);
        }
    }
}

#[test]
fn a_tiny_kernel_costs_about_the_measured_launch() {
    // ascdevkit_add_case1: a one-block launch adds 0.46 us to Task Duration (Task Duration - aiv_time). A
    // 512 B add on one block is little more than its launch.
    let soc = soc("Ascend910B1");
    let t = run(&add_trace(1, 1, 256, 2, 1, false), soc);
    println!(
        "one 512 B tile: launch measured 0.46 us, modelled {:.3} us in all (bound {})",
        t.latency_us, t.bound
    );
    assert_eq!(t.launch_us, 0.46);
    assert_eq!(t.skew_us, 0.0);
    assert!((0.46..=1.5).contains(&t.latency_us), "{}", t.latency_us);
    assert_eq!(t.bound, Bound::LaunchOverhead);
    // 48 such blocks: the launch is the same, and the slowest core ends 2.5% of the kernel later (the
    // 48-block add rows); a tiny kernel is not charged for using every core.
    let t48 = run(&add_trace(48, 1, 256, 2, 1, false), soc);
    assert_eq!(t48.launch_us, 0.46);
    let core_us = t48.latency_us - t48.launch_us - t48.skew_us;
    assert!(
        (t48.skew_us - 0.025 * core_us).abs() < 1e-9,
        "{}",
        t48.skew_us
    );
    assert!(t48.latency_us < 1.5, "{}", t48.latency_us);
}

#[test]
fn more_blocks_help_a_streaming_add_until_the_chip_saturates() {
    // 16 MiB per tensor, fp16, 3 tensors; 16 KiB tiles. One core pulls 57.7 GB/s from HBM
    // (ascdevkit_datacopy_l1_s4), the chip 1525 GB/s (ascdevkit_add_case5): past about 26 cores more blocks
    // only add launch cost (ascdevkit_add_case1 / case2 rows).
    let soc = soc("Ascend910B1");
    let elems_total = 16 * 1024 * 1024 / 2;
    let lat = |blocks: u32| {
        let per_block = elems_total / u64::from(blocks);
        let tile = 8192u64.min(per_block);
        run(
            &add_trace(blocks, (per_block / tile) as u32, tile, 2, 2, false),
            soc,
        )
    };
    let (b8, b48) = (lat(8), lat(48));
    println!(
        "16 MiB x 3 add: block_dim 8 {:.3} us ({}), block_dim 48 {:.3} us ({})",
        b8.latency_us, b8.bound, b48.latency_us, b48.bound
    );
    assert!(b48.latency_us < 0.8 * b8.latency_us);
    // Past the chip limit, more blocks stop helping much: 24 -> 48 gains less than 8 -> 24.
    let b24 = lat(24);
    println!("block_dim 24 {:.3} us", b24.latency_us);
    assert!(b8.latency_us - b24.latency_us > b24.latency_us - b48.latency_us);
}

#[test]
fn blocks_beyond_the_cores_run_in_waves() {
    let soc = soc("Ascend910B1");
    let one_wave = run(&add_trace(48, 4, 4096, 2, 2, false), soc);
    let two_waves = run(&add_trace(96, 4, 4096, 2, 2, false), soc);
    assert_eq!(two_waves.blocks.iter().filter(|b| b.core == 5).count(), 2);
    assert!(two_waves.blocks.iter().any(|b| b.wave == 1));
    let ratio =
        (two_waves.latency_us - two_waves.launch_us) / (one_wave.latency_us - one_wave.launch_us);
    assert!((1.9..2.1).contains(&ratio), "{ratio}");
}

#[test]
fn alignment_strides_and_pad_cost_more() {
    let soc = soc("Ascend910B1");
    let one = |line: &str| run(&format!("twin-trace 1\nblock 0 1\n{line}\nend\n"), soc).latency_us;
    let aligned = one("I MTE2 DataCopy bytes=16384 bursts=1 burst=16384 gm=0 gap=0");
    let unaligned = one("I MTE2 DataCopy bytes=16384 bursts=1 burst=16384 gm=32 gap=0");
    let strided = one("I MTE2 DataCopy bytes=16384 bursts=64 burst=256 gm=0 gap=3200");
    let padded = one("I MTE2 DataCopyPad bytes=16384 bursts=64 burst=256 gm=0 gap=3200");
    let looped = run(&copies_trace("MTE2", 256, 64), soc).latency_us;
    println!(
        "16 KiB: aligned {aligned:.3}, unaligned {unaligned:.3}, 64 strided bursts {strided:.3}, \
              as DataCopyPad {padded:.3}, as 64 copies {looped:.3} us"
    );
    assert!(unaligned > aligned && strided > aligned && padded >= strided);
    // FACTS §2: one instruction with blockCount/stride beats a loop of small copies.
    assert!(looped > strided);
    // DataCopyPad's per-burst cost shows on short aligned rows (ascdevkit_datacopy_ub_s2 against l1_s1:
    // about 3 cycles a burst), where a burst's cost exceeds its bytes' time.
    let rows = |api: &str| {
        one(&format!(
            "I MTE2 {api} bytes=8192 bursts=64 burst=128 gm=0 gap=24448"
        ))
    };
    let (plain, pad) = (rows("DataCopy"), rows("DataCopyPad"));
    let want = 64.0 * soc.mem.pad_burst_cycles / soc.cycles_per_us();
    assert!(
        (pad - plain - want).abs() < 1e-9,
        "{pad} - {plain} vs {want}"
    );
}

#[test]
fn flags_and_scalar_reads_order_work() {
    let soc = soc("Ascend910B1");
    let cy = soc.cycles_per_us();
    // Without a flag V runs alongside MTE2; with one it waits for the copy.
    let free = run(
        "twin-trace 1\nblock 0 1\nI MTE2 DataCopy bytes=16384\nI V Adds dt=2 rep=100\nend\n",
        soc,
    );
    let flagged = run(
        "twin-trace 1\nblock 0 1\nI MTE2 DataCopy bytes=16384\nset MTE2 V e0\nwait MTE2 V e0\nI V Adds dt=2 rep=100\nend\n",
        soc,
    );
    let v = (24.0 + 100.0) / cy;
    assert!(
        (flagged.latency_us - free.latency_us - v).abs() < 0.02,
        "{} {}",
        flagged.latency_us,
        free.latency_us
    );
    // A GetValue after a V->S wait stalls the scalar issue, so a later copy starts after it.
    let stalled = run(
        "twin-trace 1\nblock 0 1\nI V Adds dt=2 rep=200\nset V S e1\nwait V S e1\nI S GetValue line=5\n\
         I MTE2 DataCopy bytes=1024\nend\n",
        soc,
    );
    let overlapped = run(
        "twin-trace 1\nblock 0 1\nI V Adds dt=2 rep=200\nI MTE2 DataCopy bytes=1024\nend\n",
        soc,
    );
    assert!(stalled.latency_us > overlapped.latency_us + 0.1);
    assert!(ratio(Pipe::S, &stalled) > 0.0);
}

#[test]
fn unknown_apis_are_costed_by_default_and_noted() {
    let t = run(
        "twin-trace 1\nblock 0 1\nI V Frobnicate dt=2 rep=10\nend\n",
        soc("Ascend910B1"),
    );
    assert_eq!(t.notes.len(), 1);
    assert!(t.notes[0].contains("Frobnicate"));
}

#[test]
fn exact_latency_of_a_small_trace_is_pinned() {
    // A change to any constant shows here: update the figure consciously.
    let text = add_trace(2, 2, 2048, 2, 2, false);
    let t = run(&text, soc("Ascend910B1"));
    println!("pinned latency: {:.15} us", t.latency_us);
    assert!(
        (t.latency_us - PINNED_US).abs() < 1e-9,
        "{:.12}",
        t.latency_us
    );
}
/// Two blocks of 910B1, two double-buffered 4 KiB fp16 add tiles each (pinned when the launch's per-block
/// term gave way to the skew of the slowest core; again when binary ops went to 1 cycle per repeat).
const PINNED_US: f64 = 0.996096862491;

#[test]
fn modelling_is_deterministic_and_serialisable() {
    // ~200k records: 48 blocks x 280 tiles x 15 records. Its speed is measured in benches/model.rs.
    let text = add_trace(48, 280, 4096, 2, 2, false);
    let trace = parse(&text).unwrap();
    let records: usize = trace.blocks.iter().map(|b| b.records.len()).sum();
    let soc = soc("Ascend910B1");
    let a = simulate(&trace, soc, &SimOptions::default());
    assert!(records >= 190_000);
    let b = simulate(&trace, soc, &SimOptions::default());
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    assert!(a.modelled && a.spans.is_empty());
    let with_spans = simulate(&trace, soc, &SimOptions { record_spans: true });
    assert_eq!(with_spans.spans.len(), 48 * 280 * 4);
    assert_eq!(with_spans.latency_us, a.latency_us);
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["bound"], "chip_bandwidth");
    assert_eq!(json["pipes"][0]["name"], "aiv_mte2_ratio");
}

#[test]
fn every_soc_models_the_same_trace() {
    let text = add_trace(8, 4, 4096, 2, 2, false);
    for soc in soc::all() {
        let t = run(&text, soc);
        println!(
            "{:>13}: {:.3} us, bound {}",
            soc.name, t.latency_us, t.bound
        );
        assert!(t.latency_us.is_finite() && t.latency_us > 0.0);
    }
}

#[test]
fn empty_and_odd_traces_do_not_panic() {
    let soc = soc("Ascend910B1");
    let t = run("twin-trace 1\n", soc);
    assert_eq!(t.bound, Bound::LaunchOverhead);
    assert!(t.latency_us > 0.0);
    let t = run(
        "twin-trace 1\nblock 0 1\nI MTE2 DataCopy bytes=0\nI MTE3 DataCopy bytes=18446744073709551615 bursts=0\n\
         I V Add dt=3 n=18446744073709551615\nI M Mmad m=64 k=64 n=64\nI MTE1 LoadData bytes=4096\nI FIX Fixpipe bytes=4096\n\
         barrier S\nbarrier MTE1\nend\n",
        soc,
    );
    assert!(t.latency_us.is_finite());
}

#[test]
fn sync_all_waits_for_the_last_block() {
    // FACTS §4: SyncAll synchronises all cores. The twin writes `barrier ALL` then `I S SyncAll`.
    let soc = soc("Ascend910B1");
    let text = "twin-trace 1\n\
                block 0 2\nI V Exp dt=2 rep=2000 line=3\nbarrier ALL\nI S SyncAll line=9\nI MTE3 DataCopy bytes=512 line=10\nend\n\
                block 1 2\nbarrier ALL\nI S SyncAll line=9\nI MTE3 DataCopy bytes=512 line=10\nend\n";
    let t = simulate(
        &parse(text).unwrap(),
        soc,
        &SimOptions { record_spans: true },
    );
    let (b0, b1) = (&t.blocks[0], &t.blocks[1]);
    assert!(
        (b0.end_us - b1.end_us).abs() < 1e-9,
        "{} vs {}",
        b0.end_us,
        b1.end_us
    );
    let exp = (24.0 + 4.0 * 2000.0) / soc.cycles_per_us();
    assert!(
        b1.end_us - b1.start_us > exp,
        "block 1 waited for block 0's Exp"
    );
    assert!(
        t.spans
            .iter()
            .any(|s| s.api == "SyncAll" && s.block == 1 && s.end_us - s.start_us > exp)
    );
    // More blocks than cores: SyncAll cannot be honoured; the model says so and carries on.
    let mut many = String::from("twin-trace 1\n");
    for b in 0..50 {
        many.push_str(&format!("block {b} 50\nI S SyncAll line=9\nend\n"));
    }
    let t = run(&many, soc);
    assert!(t.notes.iter().any(|n| n.contains("SyncAll")));
}

#[test]
fn the_twins_own_record_shapes_are_costed() {
    let soc = soc("Ascend910B1");
    let cy = soc.cycles_per_us();
    let body = |text: &str| {
        let t = run(&format!("twin-trace 1\nblock 0 1\n{text}\nend\n"), soc);
        (t.latency_us - t.launch_us) * cy
    };
    // UB->UB DataCopy on V carries bytes, not n/rep: 4096 B = 16 repeats of the Copy class.
    let ub = body("I V DataCopy bytes=4096 bursts=1 burst=4096 gm=0 gap=0 line=5");
    assert!((ub - (costs_issue() + 24.0 + 16.0)).abs() < 1e-6, "{ub}");
    // Scalar access to GM costs more than to UB.
    assert!(body("I S GetValue gm=64 line=3") > body("I S GetValue line=3"));
    // PIPE_NONE barriers are ignored.
    assert_eq!(
        body("barrier NONE\nI V Adds dt=2 rep=1 line=1"),
        body("I V Adds dt=2 rep=1 line=1")
    );
}

fn costs_issue() -> f64 {
    ascend_tune::model::costs::ISSUE_CYCLES
}

#[test]
fn print_pipe_profiles() {
    // Not an assertion: shows what reports will carry for three kernels.
    let soc = soc("Ascend910B1");
    for (name, text) in [
        ("tiny 512 B add", add_trace(1, 1, 256, 2, 1, false)),
        (
            "1 block, 16 KiB tiles, double-buffered",
            add_trace(1, 16, 8192, 2, 2, false),
        ),
        (
            "1 block, 16 KiB tiles, barrier ALL",
            add_trace(1, 16, 8192, 2, 2, true),
        ),
        ("48 blocks streaming", add_trace(48, 16, 8192, 2, 2, false)),
    ] {
        let t = run(&text, soc);
        let pipes: Vec<String> = t
            .pipes
            .iter()
            .map(|p| format!("{}={:.2} ({:.3} us)", p.name, p.ratio, p.busy_us))
            .collect();
        println!(
            "{name}: {:.3} us, launch {:.3} us, bound {}; {}",
            t.latency_us,
            t.launch_us,
            t.bound,
            pipes.join(", ")
        );
    }
}
