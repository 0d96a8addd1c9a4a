#!/usr/bin/env bash
# Self-test of the C++ twin: builds the add_custom fixture (naive and reference) exactly the way
# the Rust side does, runs both on random fp16 inputs of shape 48x16384, checks z == fp16(x + y)
# bit for bit, checks the UB-overflow and out-of-bounds-DataCopy faults (exit code 3 and message),
# runs the API unit kernel in tests/ and prints the head of a trace.
# Usage: templates/twin/selftest.sh [work-dir]   (default /tmp/twin_selftest)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MAIN="$(cd "$HERE/../.." && pwd)"
TWIN="$HERE"
FIX="$MAIN/fixtures/add_custom"
WORK="${1:-/tmp/twin_selftest}"
rm -rf "$WORK"
mkdir -p "$WORK"
python3 -c "import numpy" 2>/dev/null || { echo "selftest needs python3 with numpy (pip install numpy)"; exit 1; }

now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2-$1:.2f}')"; }

cat > "$WORK/launch.cpp" <<'EOF'
#include <cstdint>
extern "C" void add_custom(uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*);
extern "C" void twin_launch(uint8_t** args) { add_custom(args[0], args[1], args[2], args[3], args[4]); }
EOF

cat > "$WORK/spec.txt" <<'EOF'
op_type AddCustom
soc_version Ascend910B1
short_soc ascend910b
aiv_cores 48
aic_cores 24
ub_bytes 196352
l1_bytes 524288
l0a_bytes 65536
l0b_bytes 65536
l0c_bytes 131072
l2_bytes 201326592
input x float16 48,16384
input y float16 48,16384
output z float16 48,16384
EOF

# Random inputs, shared by both variants.
python3 - "$WORK" <<'EOF'
import sys, numpy as np
w = sys.argv[1]
rng = np.random.default_rng(1234)
x = rng.uniform(-100, 100, (48, 16384)).astype(np.float16)
y = rng.uniform(-100, 100, (48, 16384)).astype(np.float16)
# a few special values: subnormals, exact ties, overflow to inf
x.flat[:6] = np.array([6.0e-8, -6.0e-8, 65504, 65504, 1.0, -0.0], dtype=np.float16)
y.flat[:6] = np.array([6.0e-8, 1.2e-7, 16, 65504, 0.00048828125, 0.0], dtype=np.float16)
x.tofile(f"{w}/x.bin"); y.tofile(f"{w}/y.bin")
EOF

BYTES=$((48 * 16384 * 2))
for variant in naive reference; do
    if [ "$variant" = naive ]; then P="$FIX"; else P="$FIX/reference"; fi
    D="$WORK/$variant"
    mkdir -p "$D"
    t0=$(now)
    g++ -std=c++17 -O1 -I "$TWIN/include/host" -I "$P/op_host" -DTWIN_OP_TYPE=AddCustom \
        "$P/op_host/add_custom.cpp" "$TWIN"/src/host_*.cpp -o "$D/tiling"
    t1=$(now)
    g++ -std=c++17 -O2 -I "$TWIN/include/kernel" -I "$P/op_kernel" -DTWIN_OP_TYPE=AddCustom \
        -DDTYPE_X=half -DDTYPE_Y=half -DDTYPE_Z=half \
        -DORIG_DTYPE_X=DT_FLOAT16 -DORIG_DTYPE_Y=DT_FLOAT16 -DORIG_DTYPE_Z=DT_FLOAT16 \
        -include "$P/op_host/add_custom_tiling.h" "$P/op_kernel/add_custom.cpp" "$WORK/launch.cpp" \
        "$TWIN"/src/kernel_*.cpp -o "$D/kernel"
    t2=$(now)
    echo "[$variant] build host $(elapsed $t0 $t1) s, kernel $(elapsed $t1 $t2) s"

    "$D/tiling" "$WORK/spec.txt" "$D/tiling.out"
    echo "[$variant] tiling: $(tr '\n' ' ' < "$D/tiling.out")"
    python3 - "$D" "$WORK" "$BYTES" <<'EOF'
import sys
d, w, nbytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = {}
for line in open(f"{d}/tiling.out"):
    k, _, v = line.rstrip("\n").partition(" ")
    out[k] = v
open(f"{d}/tiling.bin", "wb").write(bytes.fromhex(out["tiling_data"]))
ws = [int(t) for t in out["workspace"].split()]
wsum = sum(ws[1:])
def run(path, ub=196352, xbytes=nbytes, trace="trace.txt"):
    open(path, "w").write(
        f"block_dim {out['block_dim']}\nub_bytes {ub}\ntiling {d}/tiling.bin\ntiling_key {out['tiling_key']}\n"
        f"workspace {wsum}\ninput x {w}/x.bin {xbytes}\ninput y {w}/y.bin {nbytes}\n"
        f"output z {d}/z.bin {nbytes}\ntrace {d}/{trace}\n")
run(f"{d}/run.txt")
run(f"{d}/run_ub.txt", ub=1024, trace="trace_ub.txt")                 # UB overflow
run(f"{d}/run_oob.txt", xbytes=nbytes // 4, trace="trace_oob.txt")   # x smaller than the kernel reads
EOF
    t0=$(now)
    "$D/kernel" "$D/run.txt"
    t1=$(now)
    echo "[$variant] kernel run $(elapsed $t0 $t1) s"
    python3 - "$D" "$WORK" <<'EOF'
import sys, numpy as np
d, w = sys.argv[1], sys.argv[2]
x = np.fromfile(f"{w}/x.bin", np.float16); y = np.fromfile(f"{w}/y.bin", np.float16)
z = np.fromfile(f"{d}/z.bin", np.float16)
with np.errstate(over="ignore"):
    ref = (x.astype(np.float32) + y.astype(np.float32)).astype(np.float16)
bad = np.nonzero(z.view(np.uint16) != ref.view(np.uint16))[0]
assert len(bad) == 0, f"{len(bad)} mismatches, first at {bad[:5]}: z={z[bad[:5]]} ref={ref[bad[:5]]}"
lines = open(f"{d}/trace.txt").read().splitlines()
assert lines[0] in ("twin-trace 1", "twin-trace 2", "twin-trace 3", "twin-trace 4", "twin-trace 5"), lines[0]
bd = int(open(f"{d}/tiling.out").read().split()[1])
blocks = [l for l in lines if l.startswith("block ")]
assert len(blocks) == bd and lines.count("end") == bd, (len(blocks), bd)
n_add = sum(1 for l in lines if l.startswith("I V Add "))
n_in = sum(1 for l in lines if l.startswith("I MTE2 DataCopy "))
n_out = sum(1 for l in lines if l.startswith("I MTE3 DataCopy "))
assert n_in == 2 * n_add and n_out == n_add, (n_in, n_out, n_add)
moved = sum(int(l.split("bytes=")[1].split()[0]) for l in lines if " DataCopy " in l)
assert moved == 3 * x.nbytes, moved
print(f"  ok: z == fp16(x + y) for {z.size} elements; trace {len(lines)} lines, {n_add} Add, {moved} bytes moved")
EOF
    for t in ub oob; do
        set +e
        "$D/kernel" "$D/run_$t.txt" 2> "$D/err_$t.txt"
        rc=$?
        set -e
        if [ "$t" = ub ]; then pat="error: InitBuffer: UB overflow"; else pat="error: DataCopy: GM read out of bounds"; fi
        if [ $rc -ne 3 ] || ! grep -q "$pat" "$D/err_$t.txt" || ! grep -q "^  --> .*add_custom.cpp:[0-9]* (block [0-9]*)$" "$D/err_$t.txt"; then
            echo "FAIL [$variant] $t fault: rc=$rc"; cat "$D/err_$t.txt"; exit 1
        fi
        echo "  ok: $t fault, exit 3: $(grep -m1 '^error' "$D/err_$t.txt") $(grep -m1 -- '-->' "$D/err_$t.txt" | sed 's/^ *//')"
    done
done

# Host failure path: an op type that is not registered exits 4.
sed 's/^op_type .*/op_type NoSuchOp/' "$WORK/spec.txt" > "$WORK/spec_bad.txt"
set +e
"$WORK/naive/tiling" "$WORK/spec_bad.txt" "$WORK/bad.out" 2> "$WORK/err_bad.txt"; rc=$?
set -e
[ $rc -eq 4 ] && grep -q "^error: op type 'NoSuchOp' is not registered" "$WORK/err_bad.txt" || { echo "FAIL unregistered op: rc=$rc"; cat "$WORK/err_bad.txt"; exit 1; }
echo "  ok: unregistered op type -> exit 4"

# API unit kernel (tests/api_kernel.cpp): vector ops, Cast, DataCopyPad, queues, flags; SyncAll.
bash "$TWIN/tests/api_test.sh" "$WORK/api"
bash "$TWIN/tests/sync_test.sh" "$WORK/sync"
bash "$TWIN/tests/tpl_test.sh" "$WORK/tpl"

python3 "$TWIN/tests/trace_check.py" "$WORK/naive/trace.txt" "$WORK/reference/trace.txt" "$WORK/api/trace.txt" \
    "$WORK/sync/trace.txt" "$WORK/tpl/trace.txt" "$WORK/naive/trace_ub.txt" "$WORK/naive/trace_oob.txt"

echo "--- trace head (naive) ---"
head -n 24 "$WORK/naive/trace.txt"
echo "selftest passed"
