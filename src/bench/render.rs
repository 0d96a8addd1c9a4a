//! Rendering a benchmark: `bench.json` (everything), `bench.md` (the tables a person reads) and SVG
//! pictures (convergence per strategy, speedup per op with the reference and roofline marked, and the
//! modelled pipelines of one op before and after tuning). Hand-written SVG: a few shapes need no crate.
//! Every figure says whether it is modelled or measured.

use super::{BenchReport, FAST_P};
use crate::errors::{Error, Result};
use crate::model::Timing;
use std::fmt::Write;
use std::path::{Path, PathBuf};

const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
];

/// Writes every output file into `out`; returns their paths.
pub fn write_all(report: &BenchReport, out: &Path) -> Result<Vec<PathBuf>> {
    crate::fsx::create_dir_all(out)?;
    let mut files = vec![];
    let mut put = |name: &str, text: String| -> Result<()> {
        let p = out.join(name);
        crate::fsx::write_atomic(&p, text.as_bytes())?;
        files.push(p);
        Ok(())
    };
    put(
        "bench.json",
        serde_json::to_string_pretty(report).map_err(|e| Error::Internal(e.to_string()))?,
    )?;
    put("bench.md", markdown(report))?;
    put("convergence.svg", convergence_svg(report))?;
    put("speedup.svg", speedup_svg(report))?;
    if let Some((op, before, after)) = &report.pipeline {
        put(
            "pipeline.svg",
            pipeline_svg(op, &before.timing, &after.timing, report.modelled),
        )?;
    }
    Ok(files)
}

fn kind(report: &BenchReport) -> &'static str {
    crate::report::provenance(report.modelled)
}

pub fn markdown(r: &BenchReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# cargo ascend-tune bench\n");
    let _ = writeln!(
        s,
        "Backend `{}` on {}: every latency is **{}**{}. Seed {}, budgets {:?} trials.\n",
        r.backend,
        r.soc,
        kind(r),
        if r.modelled {
            " by the twin's performance model, not measured on hardware"
        } else {
            ""
        },
        r.seed,
        r.budgets
    );
    let _ = writeln!(s, "## Summary\n");
    let ps: Vec<String> = FAST_P.iter().map(|p| format!("fast_{p}")).collect();
    let _ = writeln!(
        s,
        "| strategy | budget | geomean speedup | {} | {} |",
        ps.join(" | "),
        FAST_P
            .iter()
            .map(|p| format!("over baseline >{p}"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(
        s,
        "|---|---|---|{}|{}|",
        "---|".repeat(FAST_P.len()).trim_end_matches('|'),
        "---|".repeat(FAST_P.len()).trim_end_matches('|')
    );
    for row in &r.summary {
        let f: Vec<String> = FAST_P
            .iter()
            .map(|p| format!("{:.2}", row.fast_p[&format!("{p}")]))
            .collect();
        let b: Vec<String> = FAST_P
            .iter()
            .map(|p| format!("{:.2}", row.fast_p_baseline[&format!("{p}")]))
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {:.2}x | {} | {} |",
            row.strategy,
            row.budget,
            row.geomean_speedup,
            f.join(" | "),
            b.join(" | ")
        );
    }
    let _ = writeln!(
        s,
        "\nfast_p: fraction of ops whose tuned latency beats the hand-optimised reference by more than p (reference / tuned > p).\n"
    );
    let _ = writeln!(s, "## Operators\n");
    let _ = writeln!(
        s,
        "| op | baseline (us) | reference (us) | roofline (us) | baseline bound | reference bound |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for i in &r.op_info {
        let _ = writeln!(
            s,
            "| {} | {:.3} | {:.3} | {:.3} | {} | {} |",
            i.op, i.baseline_us, i.reference_us, i.roofline_us, i.baseline_bound, i.reference_bound
        );
    }
    let _ = writeln!(s, "\n## Tuning runs\n");
    let _ = writeln!(
        s,
        "| op | strategy | budget | tuned (us) | speedup | vs reference | % of roofline | trials | failures | builds (cached) | wall (s) | params |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for o in &r.ops {
        let opt = |v: Option<f64>, suffix: &str| {
            v.map(|v| format!("{v:.3}{suffix}"))
                .unwrap_or_else(|| "-".into())
        };
        let failures: Vec<String> = o.failures.iter().map(|(k, v)| format!("{v} {k}")).collect();
        let params: Vec<String> = o.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {:.1} | {} |",
            o.op,
            o.strategy,
            o.budget,
            opt(o.tuned_us, ""),
            opt(o.speedup, "x"),
            opt(o.vs_reference, "x"),
            o.percent_of_roofline
                .map(|v| format!("{v:.0}%"))
                .unwrap_or_else(|| "-".into()),
            o.trials,
            if failures.is_empty() {
                "0".into()
            } else {
                failures.join(", ")
            },
            o.builds,
            o.build_cache_hits,
            o.wall_s,
            params.join(" ")
        );
    }
    s
}

fn svg_open(w: u32, h: u32, title: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
        w / 2,
        xml(title)
    )
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Geometric mean over ops of best-so-far / baseline, per trial, one line per strategy (largest budget).
pub fn convergence_svg(r: &BenchReport) -> String {
    let budget = r.budgets.iter().copied().max().unwrap_or(1);
    let mut lines = vec![];
    for strategy in &r.strategies {
        let runs: Vec<_> = r
            .ops
            .iter()
            .filter(|o| &o.strategy == strategy && o.budget == budget)
            .collect();
        if runs.is_empty() {
            continue;
        }
        let pts: Vec<f64> = (0..budget)
            .map(|i| {
                let logs: f64 = runs
                    .iter()
                    .map(|o| {
                        o.convergence
                            .get(i)
                            .copied()
                            .flatten()
                            .or(o.convergence.last().copied().flatten())
                            .map_or(0.0, |b| (b / o.baseline_us).min(1.0).ln())
                    })
                    .sum();
                (logs / runs.len() as f64).exp()
            })
            .collect();
        lines.push((strategy.clone(), pts));
    }
    curves_svg(
        &format!(
            "Best latency vs trials, geometric mean over ops ({}, budget {budget})",
            kind(r)
        ),
        budget,
        &lines,
    )
}

/// Lines of best-so-far / baseline latency (at most 1, log scale) against trials 1..=`trials`.
pub fn curves_svg(title: &str, trials: usize, lines: &[(String, Vec<f64>)]) -> String {
    let (w, h, left, right, top, bottom) = (720.0, 420.0, 60.0, 160.0, 40.0, 50.0);
    let budget = trials.max(1);
    let mut s = svg_open(w as u32, h as u32, title);
    let lo = lines
        .iter()
        .flat_map(|(_, p)| p.iter().copied())
        .fold(1.0f64, f64::min)
        .clamp(1e-4, 0.9);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let x = |i: usize| left + pw * (i as f64 + 1.0) / budget as f64;
    let y = |v: f64| top + ph * (v.ln() / lo.ln()).clamp(0.0, 1.0);
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>",
        top + ph,
        left + pw,
        top + ph
    );
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"black\"/>",
        top + ph
    );
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">trial</text>",
        left + pw / 2.0,
        h - 12.0
    );
    for i in [1, budget.div_ceil(2), budget] {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{i}</text>",
            x(i - 1),
            top + ph + 16.0
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">best / baseline latency (log)</text>",
        top + ph / 2.0,
        top + ph / 2.0
    );
    for v in [1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01] {
        if v >= lo {
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{v}</text><line x1=\"{left}\" y1=\"{1}\" x2=\"{}\" y2=\"{1}\" stroke=\"#ddd\"/>",
                left - 4.0,
                y(v),
                left + pw
            );
        }
    }
    for (k, (name, pts)) in lines.iter().enumerate() {
        let c = COLORS[k % COLORS.len()];
        let path: Vec<String> = pts
            .iter()
            .enumerate()
            .map(|(i, &v)| format!("{:.1},{:.1}", x(i), y(v)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>",
            path.join(" ")
        );
        let _ = writeln!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{c}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            left + pw + 16.0,
            top + 10.0 + 20.0 * k as f64,
            left + pw + 32.0,
            top + 21.0 + 20.0 * k as f64,
            xml(name)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Speedup over the baseline per op and strategy (largest budget), log scale, with the reference's and
/// the roofline's speedups marked.
pub fn speedup_svg(r: &BenchReport) -> String {
    let budget = r.budgets.iter().copied().max().unwrap_or(1);
    let n_ops = r.op_info.len().max(1);
    let n_s = r.strategies.len().max(1);
    let group = 28.0 * n_s as f64 + 24.0;
    let (left, top, bottom, right) = (60.0, 40.0, 90.0, 170.0);
    let (pw, ph) = (group * n_ops as f64, 300.0);
    let (w, h) = ((left + pw + right).max(520.0), top + ph + bottom);
    let mut s = svg_open(
        w as u32,
        h as u32,
        &format!(
            "Speedup over the naive version ({}, budget {budget})",
            kind(r)
        ),
    );
    let max = r
        .op_info
        .iter()
        .map(|i| i.baseline_us / i.roofline_us.max(1e-9))
        .chain(r.ops.iter().filter_map(|o| o.speedup))
        .fold(2.0, f64::max);
    let y = |v: f64| top + ph - ph * (v.max(1.0).ln() / max.ln());
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>",
        top + ph,
        left + pw,
        top + ph
    );
    for v in [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0] {
        if v <= max {
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{v}x</text><line x1=\"{left}\" y1=\"{1}\" x2=\"{}\" y2=\"{1}\" stroke=\"#ddd\"/>",
                left - 4.0,
                y(v),
                left + pw
            );
        }
    }
    for (i, info) in r.op_info.iter().enumerate() {
        let gx = left + group * i as f64 + 12.0;
        for (k, strategy) in r.strategies.iter().enumerate() {
            if let Some(sp) = r
                .ops
                .iter()
                .find(|o| o.op == info.op && &o.strategy == strategy && o.budget == budget)
                .and_then(|o| o.speedup)
            {
                let bx = gx + 28.0 * k as f64;
                let _ = writeln!(
                    s,
                    "<rect x=\"{bx:.1}\" y=\"{:.1}\" width=\"24\" height=\"{:.1}\" fill=\"{}\"><title>{} {strategy}: {sp:.2}x</title></rect>",
                    y(sp),
                    top + ph - y(sp),
                    COLORS[k % COLORS.len()],
                    xml(&info.op)
                );
            }
        }
        let gw = 28.0 * n_s as f64;
        let refx = info.baseline_us / info.reference_us;
        let roof = info.baseline_us / info.roofline_us.max(1e-9);
        let _ = writeln!(
            s,
            "<line x1=\"{gx:.1}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\" stroke=\"black\" stroke-width=\"2\" stroke-dasharray=\"4 2\"><title>reference {refx:.2}x</title></line>",
            y(refx),
            gx + gw - 4.0
        );
        let _ = writeln!(
            s,
            "<line x1=\"{gx:.1}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\" stroke=\"#888\" stroke-width=\"2\"><title>roofline {roof:.2}x</title></line>",
            y(roof),
            gx + gw - 4.0
        );
        let _ = writeln!(
            s,
            "<text x=\"{0:.1}\" y=\"{1:.1}\" transform=\"rotate(40 {0:.1} {1:.1})\">{2}</text>",
            gx,
            top + ph + 14.0,
            xml(&info.op)
        );
    }
    let lx = left + pw + 16.0;
    for (k, strategy) in r.strategies.iter().enumerate() {
        let _ = writeln!(
            s,
            "<rect x=\"{lx}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            top + 20.0 * k as f64,
            COLORS[k % COLORS.len()],
            lx + 16.0,
            top + 11.0 + 20.0 * k as f64,
            xml(strategy)
        );
    }
    let ky = top + 20.0 * n_s as f64 + 10.0;
    let _ = writeln!(
        s,
        "<line x1=\"{lx}\" y1=\"{ky}\" x2=\"{}\" y2=\"{ky}\" stroke=\"black\" stroke-width=\"2\" stroke-dasharray=\"4 2\"/><text x=\"{}\" y=\"{}\">reference</text>",
        lx + 12.0,
        lx + 16.0,
        ky + 4.0
    );
    let _ = writeln!(
        s,
        "<line x1=\"{lx}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#888\" stroke-width=\"2\"/><text x=\"{2}\" y=\"{3}\">roofline</text>",
        ky + 20.0,
        lx + 12.0,
        lx + 16.0,
        ky + 24.0
    );
    s.push_str("</svg>\n");
    s
}

/// Block 0's pipes before and after tuning, as two Gantt charts on one time axis.
pub fn pipeline_svg(op: &str, before: &Timing, after: &Timing, modelled: bool) -> String {
    let pipes = ["MTE2", "V", "MTE3", "S"];
    let (w, left, right, row, gap) = (900.0, 70.0, 20.0, 22.0, 50.0);
    let panel = row * pipes.len() as f64;
    let h = 40.0 + 2.0 * (panel + gap) + 20.0;
    let what = crate::report::provenance(modelled);
    let mut s = svg_open(
        w as u32,
        h as u32,
        &format!("{op}: pipelines of block 0 before and after tuning ({what})"),
    );
    for (k, (label, t)) in [("before", before), ("after", after)].iter().enumerate() {
        // Each panel spans its own latency, so the overlap of the pipes shows in both.
        let end = t.latency_us.max(1e-9);
        let x = |v: f64| left + (w - left - right) * v / end;
        let top = 40.0 + k as f64 * (panel + gap);
        let _ = writeln!(
            s,
            "<text x=\"{left}\" y=\"{}\">{label}: {:.3} us {what}, bound {} (axis 0 to {end:.2} us)</text>",
            top - 6.0,
            t.latency_us,
            xml(&t.bound.to_string())
        );
        for (i, p) in pipes.iter().enumerate() {
            let y = top + row * i as f64;
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{p}</text><rect x=\"{left}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"#f4f4f4\"/>",
                left - 6.0,
                y + 15.0,
                w - left - right,
                row - 4.0
            );
            for sp in t
                .spans
                .iter()
                .filter(|sp| sp.block == 0 && sp.pipe.to_string() == *p)
            {
                let _ = writeln!(
                    s,
                    "<rect x=\"{:.2}\" y=\"{y}\" width=\"{:.2}\" height=\"{}\" fill=\"{}\"/>",
                    x(sp.start_us),
                    (x(sp.end_us) - x(sp.start_us)).max(0.3),
                    row - 4.0,
                    COLORS[i % COLORS.len()]
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}
