//! How fast the performance model parses and models a large twin trace (a 48-block double-buffered add of
//! about 200k records, trace version 3, so the memory plan's L2 lines are tracked too). Run with
//! `cargo bench --bench model`; figures go to stdout.

use ascend_tune::model::{SimOptions, parse, simulate, soc};
use std::fmt::Write;
use std::time::Instant;

fn trace(blocks: u32, tiles: u32, tile_bytes: u64) -> String {
    let mut t = String::from("twin-trace 3\n");
    for b in 0..blocks {
        let _ = writeln!(t, "block {b} {blocks}");
        for i in 0..tiles {
            let buf = i % 2;
            let gm = u64::from(b * tiles + i) * tile_bytes;
            for q in 0..2 {
                if i >= 2 {
                    let _ = writeln!(t, "wait V MTE2 q{q}.b{buf}");
                }
                let _ = writeln!(
                    t,
                    "I MTE2 DataCopy bytes={tile_bytes} bursts=1 burst={tile_bytes} gm={gm} gap=0 buf={q} line=40"
                );
                let _ = writeln!(t, "set MTE2 V q{q}.b{buf}");
            }
            let _ = writeln!(t, "wait MTE2 V q0.b{buf}\nwait MTE2 V q1.b{buf}");
            if i >= 2 {
                let _ = writeln!(t, "wait MTE3 V q2.b{buf}");
            }
            let _ = writeln!(
                t,
                "I V Add dt=2 n={} rep={} line=47",
                tile_bytes / 2,
                tile_bytes / 256
            );
            let _ = writeln!(
                t,
                "set V MTE3 q2.b{buf}\nset V MTE2 q0.b{buf}\nset V MTE2 q1.b{buf}\nwait V MTE3 q2.b{buf}"
            );
            let _ = writeln!(
                t,
                "I MTE3 DataCopy bytes={tile_bytes} bursts=1 burst={tile_bytes} gm={gm} gap=0 buf=2 line=54"
            );
            let _ = writeln!(t, "set MTE3 V q2.b{buf}");
        }
        t.push_str("end\n");
    }
    t
}

fn main() {
    let text = trace(48, 280, 4096);
    let soc = soc::lookup("Ascend910B1").expect("910B1 is in the table");
    let runs = 5;
    let (mut parse_s, mut model_s, mut records) = (0.0, 0.0, 0);
    for _ in 0..runs {
        let t0 = Instant::now();
        let tr = parse(&text).expect("the bench trace parses");
        parse_s += t0.elapsed().as_secs_f64();
        records = tr.blocks.iter().map(|b| b.records.len()).sum::<usize>();
        let t0 = Instant::now();
        let timing = simulate(&tr, soc, &SimOptions::default());
        model_s += t0.elapsed().as_secs_f64();
        assert!(timing.latency_us > 0.0);
    }
    println!(
        "model bench: {records} records, {} bytes of trace",
        text.len()
    );
    println!(
        "  parse:    {:8.2} ms (mean of {runs})",
        parse_s / runs as f64 * 1e3
    );
    println!(
        "  simulate: {:8.2} ms (mean of {runs})",
        model_s / runs as f64 * 1e3
    );
}
