#!/usr/bin/env python3
"""The hardware-validation harness (see README.md beside it): runs the public asc-devkit examples behind
the measured figures, unchanged, on the twin, and compares the model with the measurements.

Owns: which figures rows become which runs (from figures.json, plus the few facts of PAIRS and the
tables below), exporting, building and running the examples, reading the modelled figures from
`cargo-ascend-tune model-trace`, and the comparison. Knows nothing of how the model works: it only
reads what `model-trace` prints. No public code is kept: each example is exported from the mirror at the
pinned commit into a work folder.

  harness.py run [options]     every case (or --only PATTERN), then the tables and results.md
  harness.py selftest          checks the figures' parsing, pairing and the arithmetic; needs no mirror
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The commit every figure's kernel_source names, and where the mirror is looked for.
ASC_DEVKIT_COMMIT = "82b89a15f26329511fc7fbc807d5132a1f9b4ba7"
DEFAULT_MIRROR = "/work/.mirror/mirror-cann+asc-devkit/repo"
DEFAULT_FIGURES = [os.path.join(ROOT, "..", "shared", "measured", "figures.json"),
                   "/work/shared/measured/figures.json"]
SOC = "Ascend910B1"  # the rows' A2 training parts (48 AIV, 24 AIC, 1.85 GHz)

BEST = "examples/01_simd_cpp_api/05_best_practices/"
# Example folder -> (short name, the inputs its host program reads: (path, bytes, generator)).
EXAMPLES = {
    BEST + "00_vector_compute/add_high_performance": "add",
    BEST + "04_memory_access/data_copy": "data_copy",
    BEST + "04_memory_access/bank_conflict_ub": "bank_conflict_ub",
    BEST + "01_matrix_compute/matmul_high_performance": "matmul",
}

# Rows that the examples cannot re-run unchanged, and rows that are no runs at all: the reason shown.
NOT_RUN = {
    "ascdevkit_add_case3_dcl16512": "a variant of case 3 with dataCopyLen 16512: no SCENARIO_NUM selects it, "
                                    "and the harness runs the example unchanged",
    "ascdevkit_add_hbm_bw": "bandwidths the README derives from each case's aiv_mte2_time; those per-case "
                            "MTE2 times are compared row by row (MTE2 columns)",
    "ascdevkit_perf_l1_l0_fixpipe_params": "documented peak rates (hw_parameter), not a measurement",
    "ascdevkit_matmul_case0": "too big for the model's in-memory trace: 64^3 base blocks on one core are 2.1 M K steps, "
                              "a trace of about 1.2 GB (case 1: 186 MB for 262,144 steps) that the model would parse "
                              "into about 11 GB (case 1: 1.8 GB); it needs a trace record for a repeated group",
}
# Examples whose arithmetic a CPU cannot do in reasonable time (matmul: 8192^3 fp16, 5.5e11 MACs): run in
# the twin's timing-only mode (ASCEND_TWIN_TIMING_ONLY=1, twin/runtime.h): the cube data paths write the
# same trace as a full run but compute nothing, so the modelled latency is a full run's and the output is
# reported as "not checked (timing-only)", never as ok.
TIMING_ONLY = {"matmul"}

# Before/after pairs whose rows are not `<prefix>_<a>` and `<prefix>_<b>` of `<prefix>_<a>_to_<b>`.
PAIRS = {
    "ascdevkit_add_dcl16384_to_16512": ("ascdevkit_add_case3", "ascdevkit_add_case3_dcl16512"),
}

# data_copy: the matrix (M, N) that main() reads, by (COPY_DST, SCENARIO_NUM), where not 12288 x 12288
# (data_copy.asc's ScenarioConfig table).
DATA_COPY_SHAPES = {("UB", "4"): (12288, 12287), ("UB", "7"): (6144, 512), ("UB", "8"): (6144, 512),
                    ("L1", "3"): (12288, 12287), ("L1", "6"): (6144, 512), ("L1", "7"): (6144, 512)}

# bank_conflict_ub: SCENARIO_NUM -> the key of the microbenchmark row's value (the README's table).
BANK_SCENARIOS = {
    1: "no_conflict", 2: "read_read_same_bank", 3: "read_read_same_bankgroup",
    4: "src_dst_same_bank(no conflict)", 5: "read_write_conflict", 6: "src1_dst_overlap",
    7: "src0 repStride=1 read-read", 8: "src0 repStride=8",
}
# The MTE2-time microbenchmarks: value key -> the end-to-end row whose run it is.
MTE2_BENCH = {
    "ascdevkit_datacopy_gm2ub_bw_vs_size": {"128B": "ascdevkit_datacopy_ub_s1", "8KB": "ascdevkit_datacopy_ub_s2",
                                            "128KB": "ascdevkit_datacopy_ub_s3"},
    "ascdevkit_datacopy_gm2l1_bw": {"8KB": "ascdevkit_datacopy_l1_s1", "32KB": "ascdevkit_datacopy_l1_s2"},
}

DIRECTION_MIN_CHANGE = 0.03  # pairs whose measured change is at least this must get the direction right
RATIO_TOLERANCE = 0.15       # a predicted ratio within this of the measured one counts
MEDIAN_ERROR_GOAL = 0.10
RATIO_SHARE_GOAL = 0.80


# --- figures -> cases ---------------------------------------------------------------------------------

class FiguresError(Exception):
    pass


def example_of(row):
    """The example folder of a row's kernel_source, or None."""
    ks = row.get("kernel_source")
    if not isinstance(ks, dict):
        return None
    path = ks.get("path", "").split(" (")[0]
    for folder in EXAMPLES:
        if path.startswith(folder + "/"):
            return folder
    return path.rsplit("/", 1)[0] if "/" in path else path


def defines_of(rerun):
    """-DNAME=VALUE definitions of a row's `rerun` command line (architecture included); a rerun that is only
    NAME=VALUE words (the matmul rows: `SCENARIO_NUM=3`) gives those."""
    d = dict(re.findall(r"-D([A-Za-z_][A-Za-z0-9_]*)=(\S+)", rerun or ""))
    if not d and re.fullmatch(r"\s*([A-Z_][A-Z0-9_]*=\S+\s*)+", rerun or ""):
        d = dict(re.findall(r"([A-Z_][A-Z0-9_]*)=(\S+)", rerun))
    return d


def load_figures(path):
    try:
        with open(path, encoding="utf-8") as f:
            rows = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise FiguresError(f"{path}: cannot read the figures: {e}")
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "id" in r and "kind" in r for r in rows):
        raise FiguresError(f"{path}: want a JSON list of rows, each with `id` and `kind`")
    ids = [r["id"] for r in rows]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise FiguresError(f"{path}: row ids used twice: {', '.join(dup)}")
    return rows


def plan(rows):
    """What to do with every row that has a kernel_source: (cases, rows by id, end rows, pairs, micro, skipped).

    A case is one build and run of an example: {key, example, defines, rows}. Rows of kind end_to_end
    with a `rerun` are cases; pairs name two end rows; microbenchmarks map to cases or are explained."""
    by_id = {r["id"]: r for r in rows}
    cases, skipped, ends, pairs, micro = {}, {}, [], [], []

    def case_for(example, defines, row_id):
        key = EXAMPLES.get(example, example) + "".join(
            f"-{k}={v}" for k, v in sorted(defines.items()) if k != "CMAKE_ASC_ARCHITECTURES")
        c = cases.setdefault(key, {"key": key, "example": example, "defines": defines, "rows": []})
        if row_id:
            c["rows"].append(row_id)
        return key

    for r in rows:
        if not isinstance(r.get("kernel_source"), dict):
            continue
        rid, kind, example = r["id"], r["kind"], example_of(r)
        if rid in NOT_RUN:
            skipped[rid] = NOT_RUN[rid]
            continue
        if example not in EXAMPLES:
            skipped[rid] = f"no example the harness knows how to run ({example})"
            continue
        if kind == "end_to_end":
            d = defines_of(r.get("rerun"))
            if "SCENARIO_NUM" not in d:
                raise FiguresError(f"row {rid}: end_to_end with a kernel_source but no -DSCENARIO_NUM in `rerun`; "
                                   "add it to NOT_RUN with the reason, or give the row its rerun")
            r["_case"] = case_for(example, d, rid)
            ends.append(rid)
        elif kind == "before_after":
            if rid in PAIRS:
                before, after = PAIRS[rid]
            else:
                m = re.fullmatch(r"(.*)_([a-z]*\d+)_to_([a-z]*\d+)", rid)
                if not m:
                    raise FiguresError(f"row {rid}: a before/after id not of the form <prefix>_<a>_to_<b>; "
                                       "add it to PAIRS")
                before, after = f"{m.group(1)}_{m.group(2)}", f"{m.group(1)}_{m.group(3)}"
            for side, want in (("before", before), ("after", after)):
                other = by_id.get(want)
                if other is None:
                    raise FiguresError(f"row {rid}: its {side} row {want} is not in the figures")
                if other.get("value") != r.get(side):
                    raise FiguresError(f"row {rid}: {side} is {r.get(side)} but row {want} says {other.get('value')}")
            pairs.append((rid, before, after))
        elif kind == "microbenchmark":
            if rid == "ascdevkit_ub_bank_conflict_cycles":
                keys = set(r["value"]) if isinstance(r.get("value"), dict) else set()
                if keys != set(BANK_SCENARIOS.values()):
                    raise FiguresError(f"row {rid}: value keys {sorted(keys)} differ from BANK_SCENARIOS")
                for n in sorted(BANK_SCENARIOS):
                    case_for(example, {"SCENARIO_NUM": str(n), "CMAKE_ASC_ARCHITECTURES": "dav-2201"}, None)
                micro.append(rid)
            elif rid in MTE2_BENCH:
                for key, row_id in MTE2_BENCH[rid].items():
                    if row_id not in by_id or key not in (r.get("value") or {}):
                        raise FiguresError(f"row {rid}: {key} -> {row_id} does not resolve")
                micro.append(rid)
            else:
                skipped[rid] = f"a microbenchmark the harness has no comparison for ({r.get('op', '')})"
        else:
            skipped[rid] = f"{kind}: not a measurement of a run"
    for rid, before, after in pairs:
        for side in (before, after):
            if side not in ends and side not in skipped:
                raise FiguresError(f"pair {rid}: row {side} is neither run nor skipped")
    return cases, by_id, ends, pairs, micro, skipped


# --- inputs the examples' host programs read -----------------------------------------------------------

def halves(values):
    return struct.pack(f"<{len(values)}e", *values)


def repeat_to(block, size):
    n = size // len(block)
    return block * n + block[: size - n * len(block)]


def write_inputs(example, defines, run_dir):
    """The files the example's main() reads, with small integer values (sums exact in fp16)."""
    os.makedirs(os.path.join(run_dir, "input"), exist_ok=True)
    os.makedirs(os.path.join(run_dir, "output"), exist_ok=True)
    name = EXAMPLES[example]
    if name == "add":
        size = 8192 * 8192 * 2
        x = halves([float(i % 61 - 30) for i in range(4096)])
        y = halves([float(i % 37 - 18) for i in range(4096 + 16)])
        files = {"input_x.bin": repeat_to(x, size), "input_y.bin": repeat_to(y, size)}
    elif name == "data_copy":
        m, n = DATA_COPY_SHAPES.get((defines.get("COPY_DST"), defines.get("SCENARIO_NUM")), (12288, 12288))
        files = {"input.bin": repeat_to(halves([float(i % 97) for i in range(4096)]), m * n * 2)}
    elif name == "bank_conflict_ub":
        x = struct.pack("<4096f", *[float(i % 13) for i in range(4096)])
        y = struct.pack("<4096f", *[float(i % 7) * 0.5 for i in range(4096)])
        files = {"input_x.bin": x, "input_y.bin": y}
    elif name == "matmul":
        # matmul.h: A is M x K, B is N x K (IS_TRANS_B), fp16, M = N = K = 8192. Timing-only: read, not used.
        blk = halves([float(i % 7 - 3) for i in range(4096)])
        files = {"x1_gm.bin": repeat_to(blk, 8192 * 8192 * 2), "x2_gm.bin": repeat_to(blk, 8192 * 8192 * 2)}
    else:
        raise FiguresError(f"no inputs known for {example}")
    for f, data in files.items():
        with open(os.path.join(run_dir, "input", f), "wb") as out:
            out.write(data)
    return files


def check_outputs(example, defines, run_dir, inputs):
    """A check of the example's output against x + y computed here, or '' when it has none to check."""
    name = EXAMPLES[example]
    if name in TIMING_ONLY:
        return "not checked (timing-only)"
    if name == "add":
        out, fmt, width = os.path.join(run_dir, "output", "output.bin"), "e", 2
    elif name == "bank_conflict_ub" and defines.get("SCENARIO_NUM") in "123456":
        out, fmt, width = os.path.join(run_dir, "output", "output_z.bin"), "f", 4
    else:
        return "no output (the example writes none)" if name == "data_copy" else "not checked (strided Add)"
    try:
        with open(out, "rb") as f:
            got = f.read()
    except OSError as e:
        return f"MISMATCH: no output ({e})"
    x, y = inputs["input_x.bin"], inputs["input_y.bin"]
    if len(got) != len(x):
        return f"MISMATCH: {len(got)} bytes of output, want {len(x)}"
    n = len(x) // width
    step = max(1, n // 20011)
    bad = 0
    for i in list(range(0, n, step)) + [n - 1]:
        a, = struct.unpack_from("<" + fmt, x, i * width)
        b, = struct.unpack_from("<" + fmt, y, i * width)
        z, = struct.unpack_from("<" + fmt, got, i * width)
        if z != a + b:
            bad += 1
            if bad == 1:
                first = f"z[{i}] = {z}, want {a} + {b}"
    checked = len(range(0, n, step)) + 1
    return f"ok ({checked} sampled elements = x + y)" if not bad else f"MISMATCH: {bad} of {checked} ({first})"


# --- running -------------------------------------------------------------------------------------------

def sh(cmd, cwd, log, env=None, timeout=None, mem_gb=None):
    """Runs cmd, output to log; (exit code or 'timeout', seconds)."""
    def limit():
        if mem_gb:
            lim = int(mem_gb * 1024 ** 3)
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    t0 = time.monotonic()
    with open(log, "ab") as f:
        f.write(("$ " + " ".join(cmd) + "\n").encode())
        f.flush()
        try:
            p = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, env=env, timeout=timeout,
                               preexec_fn=limit)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return rc, time.monotonic() - t0


def first_error(log):
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    for line in lines:
        if re.search(r"\berror\b|fault|Killed|bad_alloc|out of memory", line, re.I):
            return line.strip()[:200]
    return (lines[-1].strip()[:200]) if lines else ""


def export(mirror, example, dest):
    os.makedirs(dest, exist_ok=True)
    arch = subprocess.run(["git", "-C", mirror, "archive", ASC_DEVKIT_COMMIT, "--", example],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if arch.returncode != 0:
        raise FiguresError(f"git archive of {example} failed: {arch.stderr.decode(errors='replace').strip()}")
    tar = subprocess.run(["tar", "-x", "-C", dest], input=arch.stdout, stderr=subprocess.PIPE)
    if tar.returncode != 0:
        raise FiguresError(f"tar failed for {example}: {tar.stderr.decode(errors='replace').strip()}")
    return os.path.join(dest, example)


def run_case(case, args, pkg_env, src, work):
    key = case["key"]
    d = os.path.join(work, "cases", key)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    log = os.path.join(d, "log.txt")
    res = {"key": key, "status": "ok", "detail": ""}
    defines = [f"-D{k}={v}" for k, v in sorted(case["defines"].items())]
    build = os.path.join(d, "build")
    rc, t_cfg = sh(["cmake", "-S", src, "-B", build, "-DCMAKE_ASC_RUN_MODE=cpu"] + defines, d, log, pkg_env,
                   timeout=args.timeout)
    if rc == 0:
        rc, t_build = sh(["cmake", "--build", build], d, log, pkg_env, timeout=args.timeout)
    else:
        t_build = 0.0
    res["build_s"] = round(t_cfg + t_build, 1)
    if rc != 0:
        res.update(status="build failed" if rc != "timeout" else "build timeout", detail=first_error(log))
        return res
    inputs = write_inputs(case["example"], case["defines"], d)
    env = dict(pkg_env, ASCEND_TWIN_TRACE=os.path.join(d, "twin.trace"), ASCEND_TWIN_SOC=args.soc)
    if EXAMPLES[case["example"]] in TIMING_ONLY:
        env["ASCEND_TWIN_TIMING_ONLY"] = "1"
    rc, t_run = sh([os.path.join(build, "demo")], d, log, env, timeout=args.timeout, mem_gb=args.mem_limit)
    res["run_s"] = round(t_run, 1)
    if rc == "timeout":
        res.update(status="timeout", detail=f"no result within {args.timeout} s of running (the twin)")
        return res
    if rc != 0:
        err = first_error(log)
        if "bad_alloc" in err or "out of memory" in err:
            err = f"out of memory under the harness's limit of {args.mem_limit:g} GB ({err})"
        res.update(status="run failed", detail=f"exit {rc}: {err}")
        return res
    res["output"] = check_outputs(case["example"], case["defines"], d, inputs)
    trace = os.path.join(d, "twin.trace")
    try:
        res["trace_mb"] = round(os.path.getsize(trace) / 1e6, 1)
    except OSError:
        res.update(status="run failed", detail="the program left no twin.trace")
        return res
    p = subprocess.run([args.bin, "model-trace", trace, "--soc", args.soc, "--message-format", "json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=args.timeout)
    recs = [json.loads(l) for l in p.stdout.decode().splitlines() if l.startswith("{")]
    recs = [r for r in recs if r.get("reason") == "trace-modelled"]
    if p.returncode != 0 or not recs:
        res.update(status="model failed", detail=p.stderr.decode(errors="replace").strip().splitlines()[-1:])
        return res
    m = recs[0]
    res.update(latency_us=m["latency_us"], block_dim=m["block_dim"], bound=m["bound"], clock_ghz=m["clock_ghz"],
               pipes={q["pipe"]: q["busy_us"] for q in m["pipes"]})
    if not args.keep_traces:
        os.remove(trace)
    return res


# --- comparison ----------------------------------------------------------------------------------------

def rel(a, b):
    return a / b - 1.0


def compare(rows_by_id, ends, pairs, results, cases_by_row):
    """Per-row errors, per-pair ratios and the summary figures."""
    row_out, pair_out = [], []
    for rid in ends:
        r = rows_by_id[rid]
        res = results.get(cases_by_row[rid], {})
        mod = res.get("latency_us")
        mte2_meas = (r.get("pipes_us") or {}).get("aiv_mte2_time", r.get("mte2_time_us"))
        mte2_mod = (res.get("pipes") or {}).get("MTE2")
        # The vector pipe per core: msprof's aiv_vec_time against the model's V busy time.
        vec_meas = (r.get("pipes_us") or {}).get("aiv_vec_time")
        vec_mod = (res.get("pipes") or {}).get("V")
        row_out.append({"id": rid, "measured": r["value"], "modelled": mod,
                        "error": rel(mod, r["value"]) if mod is not None else None,
                        "mte2_measured": mte2_meas, "mte2_modelled": mte2_mod,
                        "vec_measured": vec_meas, "vec_modelled": vec_mod,
                        "status": res.get("status", "not run")})
    mod_of = {o["id"]: o["modelled"] for o in row_out}
    for rid, before, after in pairs:
        r = rows_by_id[rid]
        meas = r["after"] / r["before"]
        mb, ma = mod_of.get(before), mod_of.get(after)
        pred = ma / mb if (mb and ma is not None) else None
        big = abs(meas - 1.0) >= DIRECTION_MIN_CHANGE
        agree = None if pred is None else ((pred < 1.0) == (meas < 1.0) and pred != 1.0)
        within = None if pred is None else abs(pred / meas - 1.0) <= RATIO_TOLERANCE
        pair_out.append({"id": rid, "before": before, "after": after, "measured_ratio": meas,
                         "predicted_ratio": pred, "significant": big, "direction_agrees": agree,
                         "within": within})
    ran = [o for o in row_out if o["error"] is not None]
    run_pairs = [p for p in pair_out if p["predicted_ratio"] is not None]
    sig = [p for p in run_pairs if p["significant"]]
    summary = {
        "rows_run": len(ran), "rows": len(row_out),
        "median_abs_error": statistics.median(abs(o["error"]) for o in ran) if ran else None,
        "pairs_run": len(run_pairs), "pairs": len(pair_out),
        "significant_pairs": len(sig), "direction_right": sum(1 for p in sig if p["direction_agrees"]),
        "within": sum(1 for p in run_pairs if p["within"]),
    }
    summary["ratio_share"] = summary["within"] / len(run_pairs) if run_pairs else None
    return row_out, pair_out, summary


def pct(x):
    return "-" if x is None else f"{x * 100:+.1f}%"


def num(x, nd=2):
    return "-" if x is None else f"{x:,.{nd}f}"


def summary_lines(s):
    med = s["median_abs_error"]
    share = s["ratio_share"]
    def verdict(ok):
        return "meets the goal" if ok else "misses the goal"
    return [
        f"end-to-end rows run: {s['rows_run']} / {s['rows']}",
        f"median absolute error: {'-' if med is None else f'{med * 100:.1f}%'} (goal <= {MEDIAN_ERROR_GOAL * 100:.0f}%: "
        f"{verdict(med is not None and med <= MEDIAN_ERROR_GOAL)})",
        f"direction right: {s['direction_right']} / {s['significant_pairs']} pairs with a measured change >= "
        f"{DIRECTION_MIN_CHANGE * 100:.0f}% (goal: all: {verdict(s['significant_pairs'] > 0 and s['direction_right'] == s['significant_pairs'])})",
        f"predicted ratio within {RATIO_TOLERANCE * 100:.0f}% of measured: {s['within']} / {s['pairs_run']} pairs run"
        f" = {'-' if share is None else f'{share * 100:.0f}%'} (goal >= {RATIO_SHARE_GOAL * 100:.0f}%: "
        f"{verdict(share is not None and share >= RATIO_SHARE_GOAL)})",
    ]


def report(rows_by_id, ends, pairs, micro, skipped, cases, results, cases_by_row, meta):
    row_out, pair_out, s = compare(rows_by_id, ends, pairs, results, cases_by_row)
    L = ["# The model against measured hardware: published asc-devkit examples run unchanged on the twin", "",
         "Written by `benches/hardware/run.sh` (see README.md beside it); every latency in the *modelled* "
         "columns comes from the twin's performance model (`cargo ascend-tune model-trace`), never from "
         "hardware. The *measured* columns are the published msprof figures of `figures.json`.", "",
         f"- asc-devkit: `{ASC_DEVKIT_COMMIT}`; tool: `{meta['tool_commit']}`; SoC modelled: {meta['soc']}",
         f"- command: `{meta['command']}`", f"- finished: {meta['date']}", "", "## Summary", ""]
    L += [f"- {l}" for l in summary_lines(s)] + [""]
    L += ["## End-to-end rows", "",
          "| row | measured (us) | modelled (us) | error | MTE2 measured (us) | MTE2 modelled (us) | V measured (us) | V modelled (us) | case | result | output | build / run (s) |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for o in row_out:
        res = results.get(cases_by_row[o["id"]], {})
        st = res.get("status", "not run")
        if res.get("detail"):
            st += f": {res['detail']}".replace("|", "\\|")
        L.append(f"| {o['id']} | {num(o['measured'])} | {num(o['modelled'])} | {pct(o['error'])} | "
                 f"{num(o['mte2_measured'])} | {num(o['mte2_modelled'])} | "
                 f"{num(o['vec_measured'])} | {num(o['vec_modelled'])} | `{cases_by_row[o['id']]}` | {st} | "
                 f"{res.get('output', '-')} | {res.get('build_s', '-')} / {res.get('run_s', '-')} |")
    L += ["", "## Before/after pairs", "",
          f"Direction counts where the measured change is >= {DIRECTION_MIN_CHANGE * 100:.0f}%; "
          f"'within' is |predicted / measured - 1| <= {RATIO_TOLERANCE * 100:.0f}%.", "",
          "| pair | measured ratio | predicted ratio | direction | within 15% |", "|---|---|---|---|---|"]
    for p in pair_out:
        if p["predicted_ratio"] is None:
            why = skipped.get(p["before"]) or skipped.get(p["after"]) or "a side did not run"
            L.append(f"| {p['id']} | {p['measured_ratio']:.4f} | - | not run: {why} | - |")
            continue
        d = ("agrees" if p["direction_agrees"] else "WRONG") if p["significant"] else \
            f"({'agrees' if p['direction_agrees'] else 'differs'}; change < {DIRECTION_MIN_CHANGE * 100:.0f}%)"
        L.append(f"| {p['id']} | {p['measured_ratio']:.4f} | {p['predicted_ratio']:.4f} | {d} | "
                 f"{'yes' if p['within'] else 'no'} |")
    L += ["", "## Microbenchmarks", ""]
    for rid in micro:
        r = rows_by_id[rid]
        if rid == "ascdevkit_ub_bank_conflict_cycles":
            L += [f"`{rid}`: cycles of 1000 `Add` calls (in-kernel timestamps on hardware; modelled: the V pipe's "
                  "busy time of the trace, times the clock). The figures' note says to read them as ratios, so "
                  "both are also shown over scenario 1.", "",
                  "| scenario | measured cycles | modelled cycles | measured / s1 | modelled / s1 | result |",
                  "|---|---|---|---|---|---|"]
            def cyc(n):
                k = [c for c in cases if cases[c]["example"].endswith("bank_conflict_ub") and
                     cases[c]["defines"].get("SCENARIO_NUM") == str(n)][0]
                res = results.get(k, {})
                v = (res.get("pipes") or {}).get("V")
                return (v * res["clock_ghz"] * 1000.0 if v is not None else None), res
            b_mod, _ = cyc(1)
            for n, key in sorted(BANK_SCENARIOS.items()):
                meas = r["value"][key]
                mod, res = cyc(n)
                L.append(f"| {n} ({key}) | {meas} | {num(mod, 0)} | {meas / r['value']['no_conflict']:.3f} | "
                         f"{'-' if mod is None or not b_mod else f'{mod / b_mod:.3f}'} | {res.get('status', 'not run')} |")
            L.append("")
        else:
            L += [f"`{rid}`: {r.get('op', '')}; MTE2 time of the run named (measured aiv/aic_mte2_time against the "
                  "modelled MTE2 busy time of the busiest core).", "",
                  "| size | row | measured MTE2 (us) | modelled MTE2 (us) | error |", "|---|---|---|---|---|"]
            for size, row_id in MTE2_BENCH[rid].items():
                meas = r["value"][size]["mte2_us"]
                mod = (results.get(cases_by_row.get(row_id, ""), {}).get("pipes") or {}).get("MTE2")
                L.append(f"| {size} | {row_id} | {meas} | {num(mod)} | {pct(rel(mod, meas)) if mod else '-'} |")
            L.append("")
    L += ["## Rows not run", "", "| row | why |", "|---|---|"]
    L += [f"| {rid} | {why} |" for rid, why in sorted(skipped.items())]
    L += ["", "## What each case took on this machine", "",
          "Wall-clock seconds on the shared development machine (build = configure + compile; run = the "
          "example's program on the twin, trace written), and the trace's size.", "",
          "| case | result | build (s) | run (s) | trace (MB) | modelled (us) | bound |", "|---|---|---|---|---|---|---|"]
    for k in sorted(results):
        res = results[k]
        L.append(f"| `{k}` | {res.get('status')} | {res.get('build_s', '-')} | {res.get('run_s', '-')} | "
                 f"{res.get('trace_mb', '-')} | {num(res.get('latency_us'))} | {res.get('bound', '-')} |")
    return "\n".join(L) + "\n", s


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".results.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def find_figures(given):
    if given:
        return given
    for p in DEFAULT_FIGURES:
        if os.path.isfile(p):
            return p
    raise FiguresError("figures.json not found (looked at " + ", ".join(DEFAULT_FIGURES) +
                       "); give it with --figures FILE or $ASCEND_HW_FIGURES")


def cmd_run(args):
    figures = find_figures(args.figures)
    rows = load_figures(figures)
    cases, by_id, ends, pairs, micro, skipped = plan(rows)
    cases_by_row = {rid: by_id[rid]["_case"] for rid in ends}
    selected = [k for k in sorted(cases) if not args.only or any(re.search(p, k) for p in args.only)]
    if not selected:
        raise FiguresError(f"no case matches {args.only}; cases: {', '.join(sorted(cases))}")
    work = args.work or tempfile.mkdtemp(prefix="hw-bench.")
    os.makedirs(work, exist_ok=True)
    pkg = os.path.join(work, "twin-package")
    p = subprocess.run([args.bin, "twin-package", pkg, "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise FiguresError("twin-package failed: " + p.stderr.decode(errors="replace"))
    env = dict(os.environ, ASCEND_HOME_PATH=pkg, ASCEND_TOOLKIT_HOME=pkg, ASCEND_TWIN_PACKAGE=pkg,
               ASC_ROOT=os.path.join(pkg, "tools", "asc"),
               PATH=os.path.join(pkg, "tools", "asc", "bin") + os.pathsep + os.environ.get("PATH", ""))
    sources = {}
    results = {}
    for k in selected:
        c = cases[k]
        if c["example"] not in sources:
            sources[c["example"]] = export(args.asc_devkit, c["example"], os.path.join(work, "src"))
        print(f"case {k} ...", file=sys.stderr, flush=True)
        results[k] = run_case(c, args, env, sources[c["example"]], work)
        r = results[k]
        print(f"  {r['status']} {r.get('detail', '')} build {r.get('build_s', '-')} s run {r.get('run_s', '-')} s "
              f"modelled {num(r.get('latency_us'))} us", file=sys.stderr, flush=True)
    tool = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout.decode().strip() or "unknown"
    meta = {"tool_commit": tool, "soc": args.soc, "command": args.command_line,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    text, s = report(by_id, ends, pairs, micro, skipped, cases, results, cases_by_row, meta)
    if args.results:
        write_atomic(args.results, text)
    print(text if args.print_all else "\n".join(summary_lines(s)))
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


# --- self-test -----------------------------------------------------------------------------------------

def selftest(figures_path):
    bad = 0

    def expect(cond, what):
        nonlocal bad
        if not cond:
            bad += 1
            print(f"FAILED: {what}")

    rows = load_figures(figures_path)
    cases, by_id, ends, pairs, micro, skipped = plan(rows)
    with_source = [r["id"] for r in rows if isinstance(r.get("kernel_source"), dict)]
    accounted = set(ends) | {p[0] for p in pairs} | set(micro) | set(skipped)
    expect(set(with_source) == accounted, f"rows with a kernel_source not accounted for: {set(with_source) - accounted}")
    print(f"figures: {len(with_source)} rows with a kernel_source: {len(ends)} end-to-end rows in {len(cases)} cases, "
          f"{len(pairs)} pairs, {len(micro)} microbenchmarks, {len(skipped)} not run")
    expect(defines_of("cmake -DSCENARIO_NUM=4 -DCOPY_DST=UB -DCMAKE_ASC_ARCHITECTURES=dav-2201 ..") ==
           {"SCENARIO_NUM": "4", "COPY_DST": "UB", "CMAKE_ASC_ARCHITECTURES": "dav-2201"}, "defines_of")
    expect(defines_of("SCENARIO_NUM=3") == {"SCENARIO_NUM": "3"}, "defines_of: a bare NAME=VALUE rerun")
    expect(defines_of("SCENARIO_NUM=1 vs 2") == {}, "defines_of: a pair's rerun is no definition")
    mm = [k for k in cases if cases[k]["example"] == BEST + "01_matrix_compute/matmul_high_performance"]
    expect(len(mm) == 8 and "matmul-SCENARIO_NUM=1" in mm and "ascdevkit_matmul_case0" in skipped,
           f"matmul cases 1-8 run, case 0 is explained: {mm}")
    expect(check_outputs(BEST + "01_matrix_compute/matmul_high_performance", {}, "/nonexistent", {}) ==
           "not checked (timing-only)", "a timing-only run's output is never reported as checked")
    # Bad figures are refused with the row named.
    for broken, want in [
        ([{"id": "a", "kind": "end_to_end"}, {"id": "a", "kind": "end_to_end"}], "used twice"),
        ([{"id": "x_s1_to_s2", "kind": "before_after", "before": 1, "after": 2,
           "kernel_source": {"path": BEST + "04_memory_access/data_copy/data_copy.asc"}}], "x_s1 is not in"),
        ([{"id": "r", "kind": "end_to_end", "value": 1, "rerun": "cmake ..",
           "kernel_source": {"path": BEST + "04_memory_access/data_copy/data_copy.asc"}}], "no -DSCENARIO_NUM"),
    ]:
        try:
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(broken, f)
            plan(load_figures(f.name))
            expect(False, f"figures {broken} were accepted")
        except FiguresError as e:
            expect(want in str(e), f"error {e!r} lacks {want!r}")
        finally:
            os.remove(f.name)
    # The arithmetic on made-up results: errors, ratios, direction, the 3% and 15% lines.
    rows2 = {"e_a": {"value": 100.0}, "e_b": {"value": 50.0}, "e_c": {"value": 49.0},
             "p1": {"before": 100.0, "after": 50.0}, "p2": {"before": 50.0, "after": 49.0},
             "p3": {"before": 100.0, "after": 49.0}}
    res = {"A": {"latency_us": 110.0}, "B": {"latency_us": 60.0}, "C": {"latency_us": 62.0}}
    out, pr, s = compare(rows2, ["e_a", "e_b", "e_c"], [("p1", "e_a", "e_b"), ("p2", "e_b", "e_c"), ("p3", "e_a", "e_c")],
                         res, {"e_a": "A", "e_b": "B", "e_c": "C"})
    expect([round(o["error"], 4) for o in out] == [0.1, 0.2, 0.2653], f"errors {[o['error'] for o in out]}")
    expect(abs(s["median_abs_error"] - 0.2) < 1e-12, f"median {s['median_abs_error']}")
    expect([p["significant"] for p in pr] == [True, False, True], "3% line")
    expect([p["direction_agrees"] for p in pr] == [True, False, True], f"directions {pr}")
    expect([p["within"] for p in pr] == [True, True, False], f"within {[(p['predicted_ratio'], p['measured_ratio']) for p in pr]}")
    expect((s["direction_right"], s["significant_pairs"], s["within"], s["pairs_run"]) == (2, 2, 2, 3), f"summary {s}")
    out, pr, s = compare(rows2, ["e_a", "e_b"], [("p1", "e_a", "e_b")], {"A": {"latency_us": 1.0}}, {"e_a": "A", "e_b": "B"})
    expect(pr[0]["predicted_ratio"] is None and s["pairs_run"] == 0 and s["rows_run"] == 1, "a side not run")
    print(f"selftest: {'ok' if not bad else f'{bad} failed'}")
    return 1 if bad else 0


def main(argv):
    ap = argparse.ArgumentParser(prog="harness.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--asc-devkit", default=os.environ.get("ASCEND_ASC_DEVKIT", DEFAULT_MIRROR))
    r.add_argument("--figures", default=os.environ.get("ASCEND_HW_FIGURES"))
    r.add_argument("--bin", required=True)
    r.add_argument("--soc", default=SOC)
    r.add_argument("--timeout", type=int, default=900)
    r.add_argument("--mem-limit", type=float, default=8.0)
    r.add_argument("--work")
    r.add_argument("--only", action="append")
    r.add_argument("--results")
    r.add_argument("--keep-traces", action="store_true")
    r.add_argument("--print-all", action="store_true")
    r.add_argument("--command-line", default="benches/hardware/run.sh")
    t = sub.add_parser("selftest")
    t.add_argument("--figures", default=os.environ.get("ASCEND_HW_FIGURES"))
    a = ap.parse_args(argv[1:])
    try:
        if a.cmd == "selftest":
            return selftest(find_figures(a.figures))
        return cmd_run(a)
    except FiguresError as e:
        print(f"harness.py: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
