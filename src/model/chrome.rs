// Chrome / Perfetto trace of a modelled launch: JSON object format, "X" complete events in microseconds,
// one process per core (plus one for the launch heads), one thread per pipe, source lines in args.
// Opens in ui.perfetto.dev and chrome://tracing. Everything is labelled as modelled.
// Owns: the JSON layout only. Does not simulate, and does not write files.

use serde_json::{Value, json};

use super::pipeline::Timing;
use super::soc::Soc;
use super::trace::Pipe;

/// Microseconds rounded to the nanosecond, so output is stable and compact.
fn us(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1000.0).round() / 1000.0
    } else {
        0.0
    }
}

fn meta(name: &str, pid: u32, tid: Option<u32>, args: Value) -> Value {
    match tid {
        Some(tid) => json!({"name": name, "ph": "M", "pid": pid, "tid": tid, "args": args}),
        None => json!({"name": name, "ph": "M", "pid": pid, "args": args}),
    }
}

/// Thread id of a pipe within a core's process (0 is the block lane).
fn tid_of(p: Pipe) -> u32 {
    p.index() as u32 + 1
}

/// The Chrome trace JSON of `timing`. Without recorded spans it shows blocks only.
pub fn chrome_trace_json(timing: &Timing, soc: &Soc) -> String {
    let mut ev: Vec<Value> = Vec::new();

    // pid 0: the launch.
    ev.push(meta(
        "process_name",
        0,
        None,
        json!({"name": format!("kernel (modelled, {})", soc.name)}),
    ));
    ev.push(meta(
        "process_sort_index",
        0,
        None,
        json!({"sort_index": 0}),
    ));
    ev.push(meta("thread_name", 0, Some(0), json!({"name": "launch"})));
    ev.push(json!({
        "name": "op head + pipe heads", "cat": "launch", "ph": "X", "pid": 0, "tid": 0,
        "ts": 0.0, "dur": us(timing.launch_us),
        "args": {"modelled": true, "latency_us": us(timing.latency_us), "bound": timing.bound.to_string()}
    }));

    // One process per core that ran blocks; threads: blocks lane, then the pipes the kernel used.
    let mut cores: Vec<u32> = timing.blocks.iter().map(|b| b.core).collect();
    cores.sort_unstable();
    cores.dedup();
    let used: Vec<Pipe> = Pipe::ALL
        .into_iter()
        .filter(|p| {
            timing
                .blocks
                .iter()
                .any(|b| b.busy.iter().any(|x| x.pipe == *p))
        })
        .collect();
    for &core in &cores {
        let pid = core + 1;
        ev.push(meta(
            "process_name",
            pid,
            None,
            json!({"name": format!("core {core} (modelled, {})", soc.name)}),
        ));
        ev.push(meta(
            "process_sort_index",
            pid,
            None,
            json!({"sort_index": pid}),
        ));
        ev.push(meta("thread_name", pid, Some(0), json!({"name": "blocks"})));
        ev.push(meta(
            "thread_sort_index",
            pid,
            Some(0),
            json!({"sort_index": 0}),
        ));
        for &p in &used {
            ev.push(meta(
                "thread_name",
                pid,
                Some(tid_of(p)),
                json!({"name": p.as_str()}),
            ));
            ev.push(meta(
                "thread_sort_index",
                pid,
                Some(tid_of(p)),
                json!({"sort_index": tid_of(p)}),
            ));
        }
    }
    for b in &timing.blocks {
        ev.push(json!({
            "name": format!("block {}", b.block), "cat": "block", "ph": "X", "pid": b.core + 1, "tid": 0,
            "ts": us(b.start_us), "dur": us(b.end_us - b.start_us),
            "args": {"block": b.block, "wave": b.wave}
        }));
    }
    for s in &timing.spans {
        ev.push(json!({
            "name": s.api, "cat": s.pipe.as_str(), "ph": "X", "pid": s.core + 1, "tid": tid_of(s.pipe),
            "ts": us(s.start_us), "dur": us(s.end_us - s.start_us),
            "args": {"line": s.line, "block": s.block}
        }));
    }

    let doc = json!({
        "traceEvents": ev,
        "displayTimeUnit": "ns",
        "otherData": {
            "modelled": true,
            "soc": soc.name,
            "latency_us": us(timing.latency_us),
            "bound": timing.bound.to_string(),
        }
    });
    doc.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SimOptions, parse, simulate, soc};

    #[test]
    fn writes_loadable_events_labelled_as_modelled() {
        let text = "twin-trace 1\nblock 0 2\nI MTE2 DataCopy bytes=512 line=7\nset MTE2 V e0\nwait MTE2 V e0\n\
                    I V Adds dt=2 n=256 line=8\nend\nblock 1 2\nI MTE2 DataCopy bytes=512 line=7\nend\n";
        let soc = soc::lookup("Ascend910B1").unwrap();
        let timing = simulate(
            &parse(text).unwrap(),
            soc,
            &SimOptions { record_spans: true },
        );
        let out = chrome_trace_json(&timing, soc);
        let v: Value = serde_json::from_str(&out).unwrap();
        let evs = v["traceEvents"].as_array().unwrap();
        let x: Vec<&Value> = evs.iter().filter(|e| e["ph"] == "X").collect();
        // launch + 2 blocks + 3 instructions
        assert_eq!(x.len(), 6);
        assert!(
            x.iter()
                .all(|e| e["dur"].as_f64().unwrap() >= 0.0 && e["ts"].as_f64().is_some())
        );
        assert!(
            x.iter()
                .any(|e| e["name"] == "Adds" && e["args"]["line"] == 8 && e["cat"] == "V")
        );
        assert!(out.contains("core 1 (modelled, Ascend910B1)"));
        assert!(
            evs.iter()
                .any(|e| e["name"] == "thread_name" && e["args"]["name"] == "MTE2")
        );
        assert_eq!(v["otherData"]["modelled"], true);
    }
}
