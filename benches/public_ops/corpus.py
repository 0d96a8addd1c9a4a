#!/usr/bin/env python3
"""The new-user run over whole repositories (run.sh --all): every vector and mixed operator of
hicann/ops-math, hicann/ops-nn (experimental folders included) and asc-devkit's examples at the pinned
commits, each taken as a new user would: export, `cargo-ascend-tune init`, `run`, nothing edited by
hand. Prints, per repository, how many ran unchanged and agreed with numpy (where numpy.tsv has a
reference), and the first error of each failure grouped by cause.

  corpus.py --bin BIN --work DIR [--sample N] [--seed S] [--timeout SECS] [--numpy] [--tsv FILE]
            [--repos ops-math,ops-nn,asc-devkit] [--only REGEX] [--exclude-tsv FILE] [--list]
  corpus.py --selftest

An unseen sample (operators an earlier run has not seen, to measure whether fixes generalise):
  corpus.py --seed 18 --exclude-tsv benches/public_ops/c120e.tsv --sample 40 ...

No public code is kept in this repository: each repository is exported (`git archive`) once into the
work folder, and init writes the manifest there.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402

REPOS = {
    # name: (default mirror, pinned commit, the folders searched)
    "ops-math": ("/work/.mirror/hicann+ops-math/repo", "c41933244c31e44fd496e3bb3212164f8c48c214"),
    "ops-nn": ("/work/.mirror/hicann+ops-nn/repo", "e5c3fa9327ea95ba26d06227e746923580d10921"),
    "asc-devkit": ("/work/.mirror/mirror-cann+asc-devkit/repo", "82b89a15f26329511fc7fbc807d5132a1f9b4ba7"),
    # Repositories never used to fix a gap (stop 28): the "other repositories" check of issue 18.
    "ops-cv": ("/work/.mirror/hicann+ops-cv/repo", "6ae87653464d2afb064c829e529abba2e278b0c4"),
    "ops-transformer": ("/work/.mirror/hicann+ops-transformer/repo", "c29bc1069d3252c641e2aa059ec88f392d3f05ac"),
    # Tutorials and samples a new user starts from (stop 33): never used to fix a gap before.
    "cann-learning-hub": ("/work/.mirror/hicann+cann-learning-hub/repo", "a398965"),
    "cann-samples": ("/work/.mirror/hicann+cann-samples/repo", "a934ed9"),
}
ENV = {"ops-math": "ASCEND_PUBLIC_MATH", "ops-nn": "ASCEND_PUBLIC_NN", "asc-devkit": "ASCEND_PUBLIC_DEVKIT",
       "ops-cv": "ASCEND_PUBLIC_CV", "ops-transformer": "ASCEND_PUBLIC_TRANSFORMER",
       "cann-learning-hub": "ASCEND_PUBLIC_LEARNING_HUB", "cann-samples": "ASCEND_PUBLIC_SAMPLES"}
# Cube (matrix-unit) code: another issue's. Mixed operators (vector kernels with MIX markers) stay in.
CUBE = re.compile(r"Matmul|MatMul|Mmad|LoadData|matmul_intf|Conv2D|Conv3D|KERNEL_TYPE_AIC_ONLY")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def candidates(name, repo, commit, cube=False):
    """(folder, kind) of every operator of the repository: a custom-op folder (op_kernel/ beside
    op_host/ naming the ascend910b config as the string AddConfig takes, `"ascend910b"`, not in a
    comment; no cube code in op_kernel/), or, in asc-devkit, a folder
    holding `.asc` programs (kind "asc"). With `cube`, the other way round: only the operators with cube
    code (issue 19's count of public cube and mixed operators). Returns (kept, skipped counts by reason)."""
    files = git(repo, "ls-tree", "-r", "--name-only", commit).splitlines()
    if name == "asc-devkit":
        files = [f for f in files if f.startswith("examples/")]
    ops = {}
    for f in files:
        parts = f.split("/")
        if "op_kernel" in parts:
            i = parts.index("op_kernel")
            if i > 0:
                ops.setdefault("/".join(parts[:i]), set()).add(f)
    # Unit-test folders are no operators.
    files = [f for f in files if "/tests/" not in f and not f.startswith("tests/")]
    # An .asc program's project is the nearest folder at or above it with a CMakeLists.txt (cann-samples
    # keep sources in src/ and build them from the folder above); the .asc folder when there is none.
    cmakes = {os.path.dirname(f) for f in files if os.path.basename(f) == "CMakeLists.txt"}

    def project_of(folder):
        d = folder
        while d:
            if d in cmakes:
                return d
            d = os.path.dirname(d)
        return folder
    asc_files = [f for f in files if f.endswith(".asc")]
    asc = sorted({project_of(os.path.dirname(f)) for f in asc_files})
    def grep(pattern, flag):
        p = subprocess.run(["git", "-C", repo, "grep", "-l", flag, pattern, commit],
                           capture_output=True, text=True)
        if p.returncode not in (0, 1):
            sys.exit(f"corpus.py: error: git grep in {repo}: {p.stderr.strip()}")
        return {l.split(":", 1)[1] for l in p.stdout.splitlines()}
    configs, cubes = grep("\"ascend910b\"", "-F"), grep(CUBE.pattern, "-E")
    # An OpDef registered outside a macro body: `OP_ADD(Name);` at the start of a line.
    opdefs = grep(r"^\s*OP_ADD\(", "-E")
    kept, skipped = [], {}

    def skip(reason):
        skipped[reason] = skipped.get(reason, 0) + 1
    for folder in sorted(ops):
        host = [f for f in files if f.startswith(folder + "/op_host/")]
        if folder.startswith("scripts/") or "template" in folder.split("/"):
            skip("a code-generation template (msopgen / opgen), not an operator")
        elif not host:
            skip("no op_host/")
        elif name != "asc-devkit" and not any(f in configs for f in host):
            skip("no ascend910b config (other SoCs only)")
        elif name != "asc-devkit" and folder.split("/")[-1].endswith("_utils") and not any(f in opdefs for f in host):
            skip("a shared library folder (its OpDef is a macro others expand), not an operator")
        elif any(f in cubes for f in ops[folder]) != cube:
            skip("no cube code in op_kernel/" if cube else "cube code in op_kernel/")
        else:
            kept.append((folder, "custom-op"))
    for folder in asc:
        if any(f in cubes for f in asc_files if project_of(os.path.dirname(f)) == folder) != cube:
            skip("no cube code in the .asc" if cube else "cube code in the .asc")
        else:
            kept.append((folder, "asc"))
    return kept, skipped


def order(seed, repo, folder):
    return hashlib.sha256(f"{seed}:{repo}:{folder}".encode()).hexdigest()


def excluded(rows, tsv_lines):
    """The rows (sort key, repo name, ..., folder at index 4, ...) whose (repo, folder) is not the first
    two columns of any line of an earlier run's --tsv file."""
    seen = set()
    for line in tsv_lines:
        f = line.rstrip("\n").split("\t")
        if len(f) >= 2:
            seen.add((f[0], f[1]))
    return [c for c in rows if (c[1], c[4]) not in seen]


def selftest():
    bad = 0
    rows = [(order("18", "ops-nn", f), "ops-nn", "", "", f, "op") for f in ("a/x", "a/y", "b/z")]
    got = [c[4] for c in excluded(rows, ["ops-nn\ta/y\tok\t\t\t\t3\n", "ops-math\ta/x\tok\n", "\n"])]
    if sorted(got) != ["a/x", "b/z"]:
        bad += 1
        print(f"excluded gave {got}, want a/x and b/z (a/x of another repository stays)")
    if order("18", "ops-nn", "a/x") == order("20261122", "ops-nn", "a/x"):
        bad += 1
        print("order does not depend on the seed")
    print("corpus.py selftest: " + ("ok" if not bad else f"{bad} failed"))
    return 1 if bad else 0


def export(repo, commit, dest):
    """The whole repository at the commit, once per work folder (marker file beside it)."""
    mark = dest + ".exported"
    if os.path.exists(mark) and open(mark).read().strip() == commit:
        return
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    # Mirrors may lack large blobs (a tutorial repository's images): they are left out, by name.
    tree = git(repo, "ls-tree", "-r", commit).splitlines()
    blobs = [(l.split()[2], l.split("\t", 1)[1]) for l in tree if l.split()[1] == "blob"]
    check = subprocess.run(["git", "-C", repo, "cat-file", "--batch-check"], capture_output=True,
                           text=True, input="".join(f"{b}\n" for b, _ in blobs)).stdout.splitlines()
    missing = [path for (_, path), line in zip(blobs, check) if line.endswith(" missing")]
    excludes = [f":(exclude,literal){path}" for path in missing]
    archive = subprocess.Popen(["git", "-C", repo, "archive", commit, "--", ".", *excludes],
                               stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", dest], stdin=archive.stdout, check=True)
    archive.wait()
    with open(mark, "w") as f:
        f.write(commit + "\n")


# Causes: the first matching rule names the group of a failure's first error line.
CAUSES = [
    (r"^init: .*the twin cannot run this program: .*(SIMT|dav-3510|C API)", "init: refused, out of the twin's scope ({0})"),
    (r"the verify command .* failed", "wrong: the example's own verify script rejected the outputs"),
    (r"the prepare command .* failed", "prepare: the example's own gen_data script failed"),
    (r"^init: .*no op_kernel/ folder", "init: no custom-op folder, and (before db026bc) kernel-launch / .asc not taken"),
    (r"^init: .*found no kernel entry", "init: no kernel entry found"),
    (r"^init: .*has no project\(\) of its own", "init: refused, a CMakeLists.txt of a larger build (no project())"),
    (r"^init: .*no `add_executable\(NAME", "init: no add_executable with a literal name (targets made in a CMake function)"),
    (r"^init: ", "init: other"),
    (r"timeout|no result within", "timeout"),
    (r"fatal error: ([^:]+): No such file", "build: missing header {0}"),
    (r"['‘]([A-Za-z_:]+)['’] (was not declared|has not been declared|is not a member|does not name a type)", "build: twin API gap `{0}`"),
    (r"has no member named ['‘]([A-Za-z_]+)", "build: twin API gap (member) `{0}`"),
    (r"no matching function for call to ['‘]([A-Za-z_:]+)", "build: twin API gap (overload) `{0}`"),
    (r"undefined reference to `([^'(]+)", "build: link: undefined `{0}`"),
    (r"^build: ", "build: other compile error"),
    (r"^tiling: ", "tiling: the op's tiling function refused the manifest"),
    (r"^fault: .*UB overflow|InitBuffer", "fault: UB overflow"),
    (r"^fault: ", "fault: kernel fault"),
    (r"declared twice", "manifest: an op written twice"),
    (r"manifest|ascend\.toml", "manifest refused"),
]


def cause(line):
    for pat, name in CAUSES:
        m = re.search(pat, line)
        if m:
            groups = [g for g in m.groups() if g] if m.groups() else []
            return name.format(*groups) if groups else name.replace("{0}", "?")
    return "other: " + re.sub(r"\d+", "N", line)[:80]


def numpy_expressions():
    out = {}
    path = os.path.join(HERE, "numpy.tsv")
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or "\t" not in line:
            continue
        name, expr = line.rstrip("\n").split("\t", 1)
        out[name] = expr
    return out


def expression_of(exprs, repo, folder):
    """The numpy.tsv expression of an operator: its row keyed `<repo>/<folder>`, else (outside asc-devkit,
    whose example folders reuse operator names: fill, relu, ...) its row keyed by the folder's name."""
    full = f"{repo}/{folder}"
    if full in exprs:
        return exprs[full]
    return None if repo == "asc-devkit" else exprs.get(os.path.basename(folder))


def run_one(binary, folder, timeout, kind):
    """init then run in `folder`: (result, stage, first error line)."""
    for old in ("ascend.toml",):
        p = os.path.join(folder, old)
        if os.path.exists(p):
            os.remove(p)
    shutil.rmtree(os.path.join(folder, "target"), ignore_errors=True)
    env = dict(os.environ, ASCEND_TUNE_KEEP_RUNS="1")
    try:
        init = subprocess.run([binary, "init", "--color", "never"], cwd=folder, capture_output=True,
                              text=True, env=env, timeout=max(timeout, 300))
    except subprocess.TimeoutExpired:
        return "timeout", f"init: no manifest within {max(timeout, 300)}s"
    if init.returncode != 0:
        msg = (init.stderr.strip() or init.stdout.strip() or f"exit code {init.returncode}")
        msg = re.sub(r"^(error:|×)\s*", "", msg.splitlines()[0].strip()).replace(folder, "<op folder>")
        return "init fails", "init: " + msg
    try:
        run = subprocess.run(["timeout", "--kill-after=10", str(timeout), binary, "run", "-q",
                              "--message-format", "json", "--color", "never"],
                             cwd=folder, capture_output=True, text=True, env=env, timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        return "timeout", f"no result within {timeout}s"
    if run.returncode in (124, 137):
        return "timeout", f"no result within {timeout}s"
    jp, ep = os.path.join(folder, "run.json.tmp"), os.path.join(folder, "run.err.tmp")
    with open(jp, "w") as f:
        f.write(run.stdout)
    with open(ep, "w") as f:
        f.write(run.stderr)
    out = harness.TWIN_COPY.sub("<twin>/", harness.outcome(jp, ep, str(run.returncode))).replace("\n", " ")
    os.remove(jp)
    os.remove(ep)
    if out == "ok":
        return "ok", ""
    return "fails", out[len("fails "):].replace(folder + "/", "")


def numpy_check(folder, expr):
    """("ok" | "mismatch", the cell) of an operator's kept outputs against its numpy.tsv expression."""
    p = subprocess.run([sys.executable, os.path.join(HERE, "harness.py"), "numpy", folder, expr],
                       capture_output=True, text=True)
    return ("ok" if p.returncode == 0 else "mismatch",
            "numpy: " + ((p.stdout.strip() or p.stderr.strip()).splitlines() or ["?"])[-1])


_INDEX = {}


def in_repository(work, repo, header):
    """Whether the exported repository holds a file named like `header`'s last part: a missing header
    that is there is the tool's to find (include folders, layout), one that is not is the twin's."""
    if repo not in _INDEX:
        names = set()
        for _, _, files in os.walk(os.path.join(work, repo)):
            names.update(files)
        _INDEX[repo] = names
    return os.path.basename(header) in _INDEX[repo]


def summary(rows, work=None):
    """Per repository: run, ran unchanged, numpy; then the causes of the failures, most first."""
    totals = list(dict.fromkeys(r[0] for r in rows))
    print("\n| repository | operators run | ran unchanged | numpy references | agreed with numpy |\n|---|---|---|---|---|")
    for name in totals:
        mine = [r for r in rows if r[0] == name]
        if not mine:
            continue
        ok = sum(r[2] == "ok" for r in mine)
        refs = sum(r[4] != "" for r in mine)
        agreed = sum(r[4] == "ok" for r in mine)
        print(f"| {name} | {len(mine)} | {ok} | {refs} | {agreed} |")
    ok = sum(r[2] == "ok" for r in rows)
    print(f"\n{ok} / {len(rows)} ran unchanged with the manifest init wrote")
    causes = {}
    for r in rows:
        if r[2] != "ok":
            c = cause(r[3])
            m = re.match(r"build: missing header (.*)", c)
            if m and work:
                where = "in the repository" if in_repository(work, r[0], m.group(1)) else "not in the repository"
                c = f"{c} ({where})"
            causes.setdefault(c, []).append(os.path.basename(r[1]))
    print("\n| cause of the first error | operators | which |\n|---|---|---|")
    for c, ops in sorted(causes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"| {c} | {len(ops)} | {', '.join(sorted(ops)[:8])}{' ...' if len(ops) > 8 else ''} |")


def bench_ran(a):
    """`bench` over every operator an earlier run ran (`ok` rows of its --tsv), each from the manifest init
    wrote in the work folder, one bench per op so one op's failure does not stop the others. Prints a row
    per op and the summary issue 17 asks for: geometric-mean speedup (modelled), ops improved by more
    than 5%, and written-back changes that failed a shape probe (must be none)."""
    import math
    if not a.bin or not a.work:
        sys.exit("corpus.py: error: --bench needs --bin and --work (the earlier run's)")
    binary, work = os.path.abspath(a.bin), os.path.abspath(a.work)
    out = os.path.abspath(a.out or os.path.join(work, "bench"))
    rows = []
    for line in open(a.bench, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 3 and f[2] == "ok" and (not a.only or re.search(a.only, f"{f[0]}/{f[1]}")):
            rows.append((f[0], f[1]))
    if a.sample:
        rows = rows[: a.sample]
    print(f"bench: {len(rows)} operators that ran, budget {a.budget}, seed {a.bench_seed}\n")
    print("| repository | operator | tunables | baseline (us) | tuned (us) | speedup | rewrites written back | probes live | "
          "written back failed a probe | trials/s | note |\n|---|---|---|---|---|---|---|---|---|---|---|")
    results = []
    for repo, folder in rows:
        src = os.path.join(work, repo, folder)
        dest = os.path.join(out, repo, folder.replace("/", "__"))
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        if a.reinit:
            try:
                p = subprocess.run([binary, "init", "--force", "--color", "never"], cwd=src, capture_output=True,
                                   text=True, timeout=max(a.timeout, 300))
                if p.returncode != 0:
                    err = (p.stderr.strip() or p.stdout.strip() or "?").splitlines()[0][:160]
                    print(f"| {repo} | `{folder}` | - | - | - | - | - | - | - | - | init failed: {err} |", flush=True)
                    results.append((repo, folder, None, None, []))
                    continue
            except subprocess.TimeoutExpired:
                print(f"| {repo} | `{folder}` | - | - | - | - | - | - | - | - | init timed out |", flush=True)
                results.append((repo, folder, None, None, []))
                continue
        manifest = open(os.path.join(src, "ascend.toml"), encoding="utf-8").read()
        tunables = manifest.count("[[op.tunable]]")
        started = time.time()
        try:
            p = subprocess.run([binary, "bench", src, "--budget", str(a.budget), "--strategies", "loop", "--seed",
                                a.bench_seed, "--out", dest, "--color", "never", "-q"],
                               capture_output=True, text=True, timeout=a.timeout * 8)
        except subprocess.TimeoutExpired:
            print(f"| {repo} | `{folder}` | {tunables} | - | - | - | - | - | - | - | bench timed out after "
                  f"{a.timeout * 8} s |", flush=True)
            results.append((repo, folder, None, None, []))
            continue
        took = time.time() - started
        path = os.path.join(dest, "bench.json")
        if p.returncode != 0 or not os.path.exists(path):
            err = (p.stderr.strip() or p.stdout.strip() or f"exit {p.returncode}").splitlines()
            note = re.sub(r"\s+", " ", err[0] if err else "?")[:160].replace("|", "\\|")
            print(f"| {repo} | `{folder}` | {tunables} | - | - | - | - | - | - | - | bench failed: {note} |", flush=True)
            results.append((repo, folder, None, None, []))
            continue
        for r in json.load(open(path))["ops"]:
            probes = r.get("probes") or {}
            failed = probes.get("written_back_failed") or []
            kept = r.get("rewrites") or []
            speedup = r["baseline_us"] / r["tuned_us"] if r.get("tuned_us") else None
            results.append((repo, folder, r["baseline_us"], r.get("tuned_us"), failed))
            print(f"| {repo} | `{folder}` ({r['op']}) | {tunables} | {r['baseline_us']:.3f} | {r['tuned_us']:.3f} | "
                  f"{speedup:.3f}x | {len(kept)} | {len(probes.get('live') or [])} | {len(failed)} | "
                  f"{r.get('trials_per_s') or 0:.2f} | {took:.0f} s |", flush=True)
    done = [(b, t) for _, _, b, t, _ in results if b and t]
    if done:
        geo = math.exp(sum(math.log(b / t) for b, t in done) / len(done))
        improved = sum(b / t > 1.05 for b, t in done)
        print(f"\ngeometric-mean speedup (modelled): {geo:.3f}x over {len(done)} ops "
              f"({len(results) - len(done)} failed to bench)")
        print(f"improved by more than 5%: {improved} / {len(done)}")
    print(f"written-back changes that failed a shape probe: {sum(len(r[4]) for r in results)}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin")
    ap.add_argument("--work")
    ap.add_argument("--sample", type=int, default=0, help="the first N of the seeded order (0: all)")
    ap.add_argument("--seed", default="20261122")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--numpy", action="store_true")
    ap.add_argument("--cube", action="store_true", help="only the operators with cube code (those the vector run leaves out)")
    ap.add_argument("--tsv", help="also write one row per operator here, as each ends")
    ap.add_argument("--resume", action="store_true", help="with --tsv: keep the operators that file has, run the rest")
    ap.add_argument("--repos", default="ops-math,ops-nn,asc-devkit")
    ap.add_argument("--only", help="only the operators whose '<repo>/<folder>' matches this regular expression (applied before --sample)")
    ap.add_argument("--exclude-tsv", action="append", default=[], metavar="FILE",
                    help="leave out the operators an earlier run's --tsv file lists (applied before --sample; repeatable)")
    ap.add_argument("--selftest", action="store_true", help="check the exclusion and the seeded order, run nothing")
    ap.add_argument("--list", action="store_true", help="print the seeded order and the counts, run nothing")
    ap.add_argument("--from-tsv", help="print the summary of an earlier run's --tsv file (causes by today's rules), run nothing")
    ap.add_argument("--bench", metavar="TSV", help="tune every operator that ran in an earlier run (its --tsv file and "
                    "--work folder, with the manifest init wrote there) with `bench`, one op at a time; print the "
                    "speedups, their geometric mean and the shape-probe evidence")
    ap.add_argument("--budget", type=int, default=32, help="with --bench: trials per op")
    ap.add_argument("--reinit", action="store_true", help="with --bench: first write each op's manifest again "
                    "with this --bin's init (the run's were written by the binary of that run)")
    ap.add_argument("--bench-seed", default="1", help="with --bench: the tuning seed")
    ap.add_argument("--out", help="with --bench: where each op's bench folder goes (default WORK/bench)")
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    if a.bench:
        return bench_ran(a)
    if a.from_tsv:
        rows = []
        for line in open(a.from_tsv, encoding="utf-8"):
            f = line.rstrip("\n").split("\t")
            rows.append((f[0], f[1], f[2], f[4], f[5], float(f[6])))
        if a.numpy and a.work:
            # The outputs an earlier run kept in the work folder, compared with numpy now.
            exprs = numpy_expressions()
            for k, r in enumerate(rows):
                expr = expression_of(exprs, r[0], r[1])
                if r[2] == "ok" and expr:
                    numpy, detail = numpy_check(os.path.join(os.path.abspath(a.work), r[0], r[1]), expr)
                    print(f"{r[0]} {r[1]}: {detail}")
                    rows[k] = (r[0], r[1], r[2], detail, numpy, r[5])
        summary(rows, a.work and os.path.abspath(a.work))
        return 0

    chosen = []
    totals = {}
    for name in a.repos.split(","):
        if name not in REPOS:
            sys.exit(f"corpus.py: error: unknown repository '{name}' ({', '.join(REPOS)})")
        repo = os.environ.get(ENV[name], REPOS[name][0])
        commit = REPOS[name][1]
        kept, skipped = candidates(name, repo, commit, a.cube)
        totals[name] = (len(kept), skipped)
        for folder, kind in kept:
            chosen.append((order(a.seed, name, folder), name, repo, commit, folder, kind))
    chosen.sort()
    if a.only:
        pick = re.compile(a.only)
        chosen = [c for c in chosen if pick.search(f"{c[1]}/{c[4]}")]
    for path in a.exclude_tsv:
        with open(path, encoding="utf-8") as f:
            chosen = excluded(chosen, f.readlines())
    population = len(chosen)
    if a.sample:
        chosen = chosen[: a.sample]
    for name, (n, skipped) in totals.items():
        skip = ", ".join(f"{v} {k}" for k, v in sorted(skipped.items(), key=lambda kv: -kv[1])) or "none"
        print(f"{name}: {n} operators (left out: {skip})")
    print(f"sample: {len(chosen)} of {population}, seed {a.seed}\n")
    if a.list:
        for _, name, _, _, folder, kind in chosen:
            print(f"{name}\t{folder}\t{kind}")
        return 0

    if not a.bin or not a.work:
        sys.exit("corpus.py: error: --bin and --work are needed to run")
    os.makedirs(a.work, exist_ok=True)
    binary = os.path.abspath(a.bin)
    exprs = numpy_expressions() if a.numpy else {}
    rows = []
    done = {}
    if a.tsv and a.resume and os.path.exists(a.tsv):
        for line in open(a.tsv, encoding="utf-8"):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 7:
                done[(f[0], f[1])] = (f[0], f[1], f[2], f[4], f[5], float(f[6]))
    tsv = open(a.tsv, "a" if a.resume else "w", encoding="utf-8") if a.tsv else None
    print("| repository | operator | result | first error line | seconds |\n|---|---|---|---|---|")
    for _, name, repo, commit, folder, kind in chosen:
        if (name, folder) in done:
            rows.append(done[(name, folder)])
            continue
        dest = os.path.join(os.path.abspath(a.work), name)
        export(repo, commit, dest)
        started = time.time()
        result, detail = run_one(binary, os.path.join(dest, folder), a.timeout, kind)
        took = time.time() - started
        numpy = ""
        expr = expression_of(exprs, name, folder)
        if result == "ok" and expr:
            numpy, detail = numpy_check(os.path.join(dest, folder), expr)
        rows.append((name, folder, result, detail, numpy, took))
        if tsv:
            # One row per operator as it ends, so a run that stops keeps what it did (--resume).
            tsv.write("\t".join([name, folder, result, cause(detail) if result != "ok" else "", detail.replace("\t", " "),
                                 numpy, f"{took:.0f}"]) + "\n")
            tsv.flush()
        cell = detail.replace("|", "\\|")
        cell = cell if len(cell) <= 200 else cell[:197] + "..."
        print(f"| {name} | `{folder}` | {result} | {cell} | {took:.0f} |", flush=True)

    if tsv:
        tsv.close()
    summary(rows, os.path.abspath(a.work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
