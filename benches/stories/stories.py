#!/usr/bin/env python3
"""The model against published optimisation stories: public kernels written in stages, each stage a
published optimisation of the one before, with its latency published beside it.

hicann/cann-samples keeps such stories under Samples/2_Performance/ (one program per stage, built by
a CMake loop); two publish a latency per stage for the Ascend950 (dav-3510):
- softmax_regbase_story: msprof Task Time measured on an Ascend 950PR (README, "性能");
- rms_norm_quant_story: the cannsim simulator's Task Duration (Story.md; a simulator, not hardware).

For each story: the repository exported at the pinned commit (once per work folder), `init` in the
story's folder (one [[op]] per stage), `run --op STAGE` for each stage; then, per step from one stage
to the next, the published ratio (after / before), the modelled one, whether the direction agrees
(judged where the published change is >= 3%, as benches/hardware does) and whether the modelled
ratio is within 15% of the published one.

  stories.py --bin BIN --work DIR [--mirror DIR] [--only REGEX]
  stories.py --selftest

No public code is kept here: only the published figures (numbers, with where they come from) and
this script. Every modelled latency is the twin's model, never a measurement.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "public_ops"))
import corpus  # noqa: E402  (export: the whole repository once per work folder)

REPO = "cann-samples"
MIRROR, COMMIT = corpus.REPOS[REPO]

# story folder -> (where the figures come from, [(stage op as init names it, published us)]).
STORIES = {
    "Samples/2_Performance/softmax_regbase_story": (
        "README.md, 性能: msprof task_time on an Ascend 950PR (dav-3510), CANN 9.2.0, mean of 3 runs, "
        "float32 [256, 2048] (measured on hardware)",
        [
            ("softmax_regbase_0_membase", 10.637),
            ("softmax_regbase_1_vf_fused", 8.584),
            ("softmax_regbase_2_binary_fold", 8.266),
            ("softmax_regbase_3_multi_row", 7.747),
            ("softmax_regbase_4_pipeline", 7.689),
            ("softmax_regbase_5_bigtile", 7.476),
            ("softmax_regbase_6_merged_vf", 7.492),
            ("softmax_regbase_7_merged_vf_direct", 7.284),
        ],
    ),
    "Samples/2_Performance/rms_norm_quant_story": (
        "Story.md: Task Duration from the cannsim simulator of the Ascend950 (a simulator, not hardware)",
        [
            ("rms_norm_quant_0_naive", 7693.0),
            ("rms_norm_quant_1_preload_gamma", 6790.0),
            ("rms_norm_quant_2_multi_core", 113.6),
            ("rms_norm_quant_3_vf", 84.1),
            ("rms_norm_quant_4_double_buffer", 54.3),
            ("rms_norm_quant_5_ub_utilization", 49.0),
            ("rms_norm_quant_6_binary_sum", 49.5),
        ],
    ),
}

DIRECTION_MIN = 0.03
WITHIN = 0.15


def step_row(before, after):
    """(published ratio, modelled ratio, direction verdict, within 15%) of one step; modelled None
    when a side did not run."""
    (pb, mb), (pa, ma) = before, after
    pub = pa / pb
    if mb is None or ma is None:
        return pub, None, "not run: a side did not run", None
    mod = ma / mb
    same = (pub < 1) == (mod < 1) or pub == mod
    if abs(pub - 1) < DIRECTION_MIN:
        verdict = "(agrees; change < 3%)" if same else "(differs; change < 3%)"
    else:
        verdict = "agrees" if same else "DIFFERS"
    return pub, mod, verdict, abs(mod / pub - 1) <= WITHIN


def run_stage(binary, folder, op, timeout):
    """The modelled latency of one stage, or (None, first error line)."""
    try:
        p = subprocess.run([binary, "ascend-tune", "run", "--op", op, "--message-format", "json"],
                           cwd=folder, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    for line in p.stdout.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("reason") == "op-measured" and r.get("op") == op:
            return r.get("latency_us"), ""
    for line in (p.stdout + p.stderr).splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("message"):
            said = [l for l in r["message"].splitlines() if l.strip()]
            return None, " ".join(said[:2])[:200].replace("|", "/")
    err = [l for l in (p.stdout + p.stderr).splitlines() if l.strip()]
    return None, (err[0] if err else f"exit code {p.returncode}")[:200].replace("|", "/")


def main():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--bin")
    a.add_argument("--work")
    a.add_argument("--mirror", default=os.environ.get(corpus.ENV[REPO], MIRROR))
    a.add_argument("--only", default="")
    a.add_argument("--timeout", type=int, default=900)
    a.add_argument("--selftest", action="store_true")
    args = a.parse_args()
    if args.selftest:
        return selftest()
    if not args.bin or not args.work:
        a.error("--bin and --work are needed (or --selftest)")
    binary = os.path.abspath(args.bin)
    dest = os.path.join(os.path.abspath(args.work), REPO)
    corpus.export(args.mirror, COMMIT, dest)
    rows = []
    for story, (source, stages) in STORIES.items():
        if args.only and not re.search(args.only, story):
            continue
        folder = os.path.join(dest, story)
        if not os.path.exists(os.path.join(folder, "ascend.toml")):
            p = subprocess.run([binary, "ascend-tune", "init"], cwd=folder, capture_output=True, text=True)
            if p.returncode != 0:
                print(f"{story}: init failed: {(p.stderr or p.stdout).strip().splitlines()[:1]}")
                continue
        print(f"## {story}\n\npublished: {source}\n")
        print("| stage | published (us) | modelled (us) | note |\n|---|---|---|---|")
        got = []
        for op, pub in stages:
            lat, err = run_stage(binary, folder, op, args.timeout)
            got.append((pub, lat))
            print(f"| {op} | {pub} | {'-' if lat is None else f'{lat:.3f}'} | {err} |", flush=True)
        print("\n| step | published ratio | modelled ratio | direction | within 15% |\n|---|---|---|---|---|")
        for i in range(1, len(stages)):
            pub, mod, verdict, within = step_row(got[i - 1], got[i])
            rows.append((verdict, within))
            print(f"| {stages[i - 1][0]} -> {stages[i][0]} | {pub:.4f} | "
                  f"{'-' if mod is None else f'{mod:.4f}'} | {verdict} | "
                  f"{'-' if within is None else ('yes' if within else 'no')} |")
        print()
    judged = [r for r in rows if r[0] in ("agrees", "DIFFERS")]
    ran = [r for r in rows if r[1] is not None]
    print(f"direction right: {sum(r[0] == 'agrees' for r in judged)} / {len(judged)} steps with a published "
          f"change >= 3%; modelled ratio within 15%: {sum(bool(r[1]) for r in ran)} / {len(ran)} steps run")
    return 0


def selftest():
    def expect(cond, what):
        if not cond:
            raise SystemExit(f"selftest failed: {what}")
    pub, mod, verdict, within = step_row((100.0, 10.0), (90.0, 9.5))
    expect(abs(pub - 0.9) < 1e-12 and abs(mod - 0.95) < 1e-12, "ratios")
    expect(verdict == "agrees" and within, "a 10% gain modelled as 5% agrees and is within 15%")
    expect(step_row((100.0, 10.0), (90.0, 10.5))[2] == "DIFFERS", "a gain modelled as a loss differs")
    expect(step_row((100.0, 10.0), (101.0, 9.0))[2] == "(differs; change < 3%)", "small changes are not judged")
    expect(step_row((100.0, None), (90.0, 9.0))[1] is None, "a stage that did not run")
    for story, (_, stages) in STORIES.items():
        expect(len(stages) >= 2 and all(v > 0 for _, v in stages), story)
    print("selftest ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
