#!/usr/bin/env python3
"""Helpers of run.sh (the public-operator harness): reads the tool's output into one table cell,
and compares an operator's outputs with a numpy expression.

  harness.py outcome RUN_JSON RUN_ERR EXIT_CODE   prints "ok" or "fails <first error line>"
  harness.py numpy OP_FOLDER EXPRESSION           prints "ok (...)" or "MISMATCH ..." (exit 1)
  harness.py selftest                             checks the error-line extraction on known messages
"""
import glob
import json
import os
import re
import sys

# Lines of a compiler's or linker's report that say less than the line before them.
NOISE = re.compile(r"^(collect2: error: ld returned|make(\[\d+\])?: \*\*\*|compilation terminated)")
ERRORISH = re.compile(r"\berror\b|undefined reference|fault|not declared|no member|no matching", re.I)


FAILED = re.compile(r"^op `[^`]*` failed \(([^)]*)\):\s*(.*)$")


def first_error(message):
    """The stage and the line that names the error: the first line below the message's head that
    names one (a compiler or linker message, a fault), else the head itself."""
    lines = [l.strip() for l in message.splitlines() if l.strip()]
    if not lines:
        return "(empty error message)"
    head, stage = lines[0], ""
    m = FAILED.match(head)
    if m:
        stage, head = m.group(1) + ": ", m.group(2)
    head = re.sub(r"^the [a-z ]+ failed \(exit code -?\d+\):\s*", "", head)
    for line in [head] + lines[1:]:
        if ERRORISH.search(line) and not NOISE.match(line):
            return stage + line
    rest = [l for l in lines[1:] if not NOISE.match(l)] or lines[1:]
    if head.endswith(":") and rest:
        return f"{stage}{head} {rest[0]}"
    return stage + head


def outcome(json_path, err_path, code):
    measured, errors = False, []
    try:
        with open(json_path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if record.get("reason") == "op-measured":
                    measured = True
                elif record.get("reason") == "error":
                    errors.append(str(record.get("message", "")))
    except OSError as e:
        errors.append(f"no output from the tool: {e}")
    if measured and code == "0" and not errors:
        return "ok"
    if errors:
        return "fails " + first_error(errors[0])
    try:
        with open(err_path, encoding="utf-8", errors="replace") as f:
            err = f.read()
    except OSError:
        err = ""
    return "fails " + (first_error(err) if err.strip() else f"exit code {code} and no error record")


DTYPES = {
    "float16": "float16", "float32": "float32", "int8": "int8", "int16": "int16", "int32": "int32",
    "int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "bool": "bool",
}
# (relative, absolute) tolerance per dtype; integers and bools are compared exactly.
TOLERANCE = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1e-4, 1e-5)}


def load(np, path, dtype, shape):
    if dtype == "bfloat16":
        raw = np.fromfile(path, dtype=np.uint16).astype(np.uint32) << 16
        data = raw.view(np.float32)
    elif dtype in DTYPES:
        data = np.fromfile(path, dtype=DTYPES[dtype])
    else:
        raise SystemExit(f"dtype {dtype} of {path} is not known to harness.py")
    want = 1
    for d in shape:
        want *= d
    if data.size != want:
        raise SystemExit(f"{path}: {data.size} values, the manifest's shape {shape} has {want}")
    return data.reshape(shape)


def rounded(np, ref, dtype):
    """`ref` (float64) as the output's dtype holds it, back in float64: overflow gives inf."""
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype == "float16":
            return np.asarray(ref).astype(np.float16).astype(np.float64)
        if dtype == "float32":
            return np.asarray(ref).astype(np.float32).astype(np.float64)
        if dtype == "bfloat16":
            # Round to nearest even on the float32 bits' upper half.
            f = np.ascontiguousarray(np.asarray(ref, dtype=np.float32))
            bits = f.view(np.uint32).astype(np.uint64)
            bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32)
            out = bits.view(np.float32).astype(np.float64)
            return np.where(np.isnan(f), np.nan, out)
    return np.asarray(ref, dtype=np.float64)


def present_inputs(op):
    """The manifest's inputs but those marked `absent` (an optional input the call leaves out)."""
    return [t for t in op.get("input", []) if not t.get("absent")]


def dims(t):
    """A manifest tensor's shape; a tensor list (`list = N`) is its N tensors stacked."""
    return ([t["list"]] if "list" in t else []) + list(t["shape"])


def newest(pattern):
    found = sorted(glob.glob(pattern), key=os.path.getmtime)
    if not found:
        raise SystemExit(f"nothing matches {pattern} (was the run kept with ASCEND_TUNE_KEEP_RUNS?)")
    return found[-1]


def matching_inputs(np, folder, op):
    """The newest input folder whose files hold the manifest's element counts. Input folders are named
    by what they hold, so init's shape probes leave several behind, and the run at the manifest's
    shapes may reuse one made earlier at other shapes with as many elements (its mtime is then old)."""
    found = sorted(glob.glob(os.path.join(folder, "target/ascend-tune/data/*/")), key=os.path.getmtime)
    size = {k: np.dtype(v).itemsize for k, v in DTYPES.items()}
    size["bfloat16"] = 2

    def fits(d):
        for t in present_inputs(op):
            n = 1
            for x in dims(t):
                n *= x
            path = os.path.join(d, t["name"] + ".bin")
            if not os.path.exists(path) or os.path.getsize(path) != n * size.get(t["dtype"], 0):
                return False
        return True
    for d in reversed(found):
        if fits(d):
            return d
    return newest(os.path.join(folder, "target/ascend-tune/data/*/"))


def launch_check(np, folder, expression):
    """A kernel-launch program (layout "kernel-launch": no tensors in the manifest) reads its inputs
    from `input/*.bin` and writes its outputs to `output/*.bin` in its run folder under
    target/ascend-tune/cann-runs/ (kept with ASCEND_TUNE_KEEP_RUNS=1). The manifest names no dtype,
    so the expression says them: `inp(NAME, DTYPE)` is input/NAME.bin as a flat array (float64 for a
    float dtype), and the expression gives a dict {output file stem: (DTYPE, array)}, compared with
    output/<stem>.bin flat at that dtype's tolerance."""
    run = newest(os.path.join(folder, "target/ascend-tune/cann-runs/*/"))

    def inp(name, dtype):
        path = os.path.join(run, "input", name + ".bin")
        size = os.path.getsize(path) // (2 if dtype in ("float16", "bfloat16", "int16", "uint16") else
                                         1 if dtype in ("int8", "uint8", "bool") else
                                         8 if dtype in ("int64", "uint64") else 4)
        arr = load(np, path, dtype, [size])
        return arr.astype(np.float64) if arr.dtype.kind == "f" else arr

    want = eval(expression, {"np": np, "inp": inp, "__builtins__": __builtins__})
    if not isinstance(want, dict) or not all(isinstance(v, tuple) and len(v) == 2 for v in want.values()):
        raise SystemExit("a kernel-launch program's expression gives a dict {output stem: (dtype, array)}")
    outputs = []
    for stem, (dtype, ref) in want.items():
        ref = np.asarray(ref).reshape(-1)
        outputs.append(({"name": stem, "dtype": dtype, "shape": [ref.size]},
                        os.path.join(run, "output", stem + ".bin"), ref))
    return compare(np, outputs)


def compare(np, outputs):
    """Prints and returns the verdict on [(tensor, path of its output, reference)]."""
    report = []
    bad = False
    for t, path, want in outputs:
        got = load(np, path, t["dtype"], dims(t))
        ref = np.asarray(want)
        if ref.shape != got.shape and ref.size == got.size and ref.size > 1 and \
                [d for d in ref.shape if d != 1] == [d for d in got.shape if d != 1]:
            # The same values up to axes of length 1 (onehot's depth-1 axis, a kept reduced axis).
            ref = ref.reshape(got.shape)
        ref = np.broadcast_to(ref, got.shape)
        if t["dtype"] in TOLERANCE:
            rtol, atol = TOLERANCE[t["dtype"]]
            # The reference rounded to the output's dtype first: a quotient past float16's range
            # is inf there, as the op's own cast makes it (real_div, foreach_div_list).
            g, r = got.astype(np.float64), rounded(np, ref, t["dtype"])
            with np.errstate(invalid="ignore"):
                err = np.abs(g - r)
                wrong = ~((g == r) | (err <= atol + rtol * np.abs(r)) | (np.isnan(g) & np.isnan(r)))
            worst = float(np.nanmax(np.where(np.isnan(err), 0, err))) if err.size else 0.0
            detail = f"{t['name']} max abs err {worst:.3g}"
        else:
            wrong = got != ref.astype(got.dtype)
            detail = f"{t['name']} exact"
        count = int(np.count_nonzero(wrong))
        if count:
            bad = True
            i = np.argwhere(wrong)[0]
            detail += f", {count} of {got.size} off (first at {tuple(int(v) for v in i)}: {got[tuple(i)]} vs {ref[tuple(i)]})"
        report.append(detail)
    if not report:
        raise SystemExit("the expression names no output of the op")
    print(("MISMATCH " if bad else "ok (") + "; ".join(report) + ("" if bad else ")"))
    return 1 if bad else 0


def numpy_check(folder, expression):
    import numpy as np
    import tomllib

    with open(os.path.join(folder, "ascend.toml"), "rb") as f:
        manifest = tomllib.load(f)
    if manifest.get("project", {}).get("layout") == "kernel-launch":
        return launch_check(np, folder, expression)
    op = manifest["op"][0]
    data = matching_inputs(np, folder, op)
    run = newest(os.path.join(folder, "target/ascend-tune/runs/*/"))
    names = {"np": np, "__builtins__": __builtins__}
    for t in present_inputs(op):
        arr = load(np, os.path.join(data, t["name"] + ".bin"), t["dtype"], dims(t))
        names[t["name"]] = arr.astype(np.float64) if arr.dtype.kind == "f" else arr
    for a in op.get("attr", []):
        names[a["name"]] = a["value"]
    want = eval(expression, names)  # our own expressions, from numpy.tsv
    outputs = op.get("output", [])
    if not isinstance(want, dict):
        if len(outputs) != 1:
            raise SystemExit("the expression gives one array but the op has several outputs; give a dict")
        want = {outputs[0]["name"]: want}
    # An output named like an input (an in-place op's `var`) is written as `<name>_ref` (CANN compares
    # the names upper-cased; src/manifest/mod.rs gives such an output that key).
    taken = {t["name"].upper() for t in op.get("input", [])}

    def stem(t):
        return t["name"] + "_ref" if t["name"].upper() in taken else t["name"]
    return compare(np, [(t, os.path.join(run, stem(t) + ".out.bin"), want[t["name"]])
                        for t in outputs if t["name"] in want])


# The twin's own headers, copied under each project's target folder: named <twin>/ in a cell.
TWIN_COPY = re.compile(r"\S*/target/ascend-tune/twin/[0-9a-f]+/")


# (tool error message, the cell harness.py makes of it): one of each kind the tool reports.
SELFTEST = [
    ("op `a` failed (build): the kernel code does not compile:\nop_kernel/a.h:3:5: error: 'Foo' was not declared\n  3 | Foo();",
     "build: op_kernel/a.h:3:5: error: 'Foo' was not declared"),
    ("op `a` failed (build): the kernel code does not compile:\ncollect2: error: ld returned 1 exit status",
     "build: the kernel code does not compile: collect2: error: ld returned 1 exit status"),
    ("op `a` failed (tiling): the tiling program failed (exit code 4): [error] A (a.cpp:9): bad shape\n"
     "error: tiling function of 'A' returned GRAPH_FAILED",
     "tiling: [error] A (a.cpp:9): bad shape"),
    ("op `a` failed (fault): the kernel failed (exit code 3):\nerror: InitBuffer: UB overflow\n  --> a.h:1 (block 0)",
     "fault: error: InitBuffer: UB overflow"),
    ("tensor `var` of op `a` is declared twice", "tensor `var` of op `a` is declared twice"),
    ("", "(empty error message)"),
]


def selftest():
    bad = 0
    for message, want in SELFTEST:
        got = first_error(message)
        if got != want:
            bad += 1
            print(f"first_error({message!r})\n  gave {got!r}\n  want {want!r}")
    # The numpy reference is rounded to the output's dtype (a float16 quotient past 65504 is inf).
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        checks = [
            (rounded(np, np.array([-295072.6, 1.0, 70000.0]), "float16").tolist(), [-np.inf, 1.0, np.inf]),
            (rounded(np, np.array([1.00390625, 1.01171875, -2.5]), "bfloat16").tolist(), [1.0, 1.015625, -2.5]),
            (rounded(np, np.array([0.1]), "float32").tolist(), [float(np.float32(0.1))]),
        ]
        for got, want in checks:
            if got != want:
                bad += 1
                print(f"rounded gave {got}, want {want}")
        print(f"{len(checks)} rounding checks")
    print(f"{len(SELFTEST) - bad} / {len(SELFTEST)} ok")
    return 1 if bad else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "selftest":
        return selftest()
    if len(argv) == 5 and argv[1] == "outcome":
        print(TWIN_COPY.sub("<twin>/", outcome(argv[2], argv[3], argv[4])).replace("\n", " "))
        return 0
    if len(argv) == 4 and argv[1] == "numpy":
        return numpy_check(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
