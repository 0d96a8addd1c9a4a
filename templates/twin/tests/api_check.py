# Checks the slots written by tests/api_kernel.cpp against numpy.
import struct, subprocess, sys
import numpy as np

w = sys.argv[1]
N = 256
rng = np.random.default_rng(7)
a = rng.uniform(-3, 3, N).astype(np.float32)
a[:8] = [0.05, -0.05, 0.15, -0.25, 0.35, 2.5, -2.5, 1.0]  # ties for CAST_ROUND after *10
b = rng.uniform(0.5, 2.0, N).astype(np.float32) * rng.choice([-1, 1], N).astype(np.float32)
h = rng.uniform(-4, 4, N).astype(np.float16)
h2 = rng.uniform(0.5, 3, N).astype(np.float16)
for name, arr in [("a", a), ("b", b), ("h", h), ("h2", h2)]:
    arr.tofile(f"{w}/{name}.bin")
OUT_SLOTS, OH_SLOTS = 44, 9
out_bytes, oh_bytes = OUT_SLOTS * N * 4, OH_SLOTS * N * 2
open(f"{w}/tiling.bin", "wb").write(struct.pack("<If", 1234, 0.75))
open(f"{w}/run.txt", "w").write(f"""block_dim 2
ub_bytes 196352
tiling {w}/tiling.bin
tiling_key 7
workspace 0
input a {w}/a.bin {a.nbytes}
input b {w}/b.bin {b.nbytes}
input h {w}/h.bin {h.nbytes}
input h2 {w}/h2.bin {h2.nbytes}
output out {w}/out.bin {out_bytes}
output oh {w}/oh.bin {oh_bytes}
trace {w}/trace.txt
""")
subprocess.run([f"{w}/kernel", f"{w}/run.txt"], check=True)
out = np.fromfile(f"{w}/out.bin", np.float32).reshape(OUT_SLOTS, N)
oh = np.fromfile(f"{w}/oh.bin", np.float16).reshape(OH_SLOTS, N)
f32 = np.float32
fails = []

def tree(v):
    """Pairwise binary-tree sum in float32, zero-padded to a power of two (the reductions' order)."""
    v = list(np.asarray(v, f32))
    n = 1
    while n < len(v):
        n *= 2
    v += [f32(0)] * (n - len(v))
    while len(v) > 1:
        v = [f32(v[i] + v[i + 1]) for i in range(0, len(v), 2)]
    return f32(v[0])

def count_sum(v):
    """ReduceSum count form: a tree per 64-float repeat, the repeat sums added in order."""
    parts = [tree(v[k:k + 64]) for k in range(0, len(v), 64)]
    acc = parts[0]
    for p in parts[1:]:
        acc = f32(acc + p)
    return acc

def check(name, got, want, ulp=0):
    got = np.asarray(got); want = np.asarray(want, dtype=got.dtype)
    if ulp == 0:
        ok = np.array_equal(got.view(np.uint32 if got.dtype.itemsize == 4 else np.uint16),
                            want.view(np.uint32 if want.dtype.itemsize == 4 else np.uint16))
    else:
        it = np.int32 if got.dtype.itemsize == 4 else np.int16
        ok = np.all(np.abs(got.view(it).astype(np.int64) - want.view(it).astype(np.int64)) <= ulp)
    if not ok:
        bad = np.nonzero(got != want)[0][:4]
        fails.append(name)
        print(f"FAIL {name}: at {bad} got {got[bad]} want {want[bad]}")

check("Sub", out[0], a - b)
check("Mul", out[1], a * b)
check("Div", out[2], a / b)
check("Muls", out[3], a * f32(1.5))
check("Adds", out[4], a + f32(-2))
check("Max", out[5], np.maximum(a, b))
check("Min", out[6], np.minimum(a, b))
check("Maxs", out[7], np.maximum(a, f32(0.25)))
check("Mins", out[8], np.minimum(a, f32(0.25)))
check("Abs", out[9], np.abs(a))
check("Relu", out[10], np.maximum(a, 0))
check("Exp", out[11], np.exp(a), ulp=2)
check("Sqrt", out[12], np.sqrt(np.abs(a)))
check("Ln", out[13], np.log(np.abs(a) + f32(1)), ulp=2)
check("Reciprocal", out[14], f32(1) / b)
check("Duplicate", out[15], np.full(N, 3.25, f32))
check("Cast f32->f16 RINT", out[16], a.astype(np.float16).astype(f32))
a10 = a * f32(10)
check("Cast f32->s32 FLOOR", out[17].view(np.int32), np.floor(a10).astype(np.int32))
check("Cast f32->s32 ROUND", out[18].view(np.int32), (np.sign(a10) * np.floor(np.abs(a10.astype(np.float64)) + 0.5)).astype(np.int32))
def f16_trunc(x):
    r = x.astype(np.float16)
    over = np.abs(r.astype(np.float64)) > np.abs(x.astype(np.float64))
    rb = r.view(np.uint16).copy()
    rb[over] -= 1
    return rb.view(np.float16)
check("Cast f32->f16 TRUNC", out[19], f16_trunc(a).astype(f32))
l0 = np.zeros(N, f32)
for r in range(4):
    s = slice(r * 64, r * 64 + 32)
    l0[s] = a[s] + b[s]
check("Add level-0 mask", out[20], l0)
check("Compare+Select", out[21], np.where(a > b, a, b))
check("ReduceSum", out[22][0], count_sum(a))
check("ReduceMax", out[22][1], a.max())
check("ReduceMax index", out[22][2:3].view(np.uint32), np.array([np.argmax(a)], np.uint32))
acc = f32(0)
for i in range(8):
    acc = f32(acc + a[i])
check("GetValue loop", out[22][3], acc)
check("GetBlockIdx/Num", out[22][4], f32(0 + 100 * 2))
pad = np.full(N, -1, f32)
for i in range(3):
    pad[i * 8:i * 8 + 5] = a[i * 6:i * 6 + 5]
    pad[i * 8 + 5:i * 8 + 8] = 7
check("DataCopyPad GM->UB", out[23], pad)
o24 = np.zeros(N, f32)
for i in range(3):
    o24[i * 7:i * 7 + 5] = a[i * 8:i * 8 + 5]
check("DataCopyPad UB->GM", out[24], o24)
o25 = np.zeros(N, f32)
for i in range(4):
    o25[i * 8:i * 8 + 8] = a[i * 16:i * 16 + 8]
check("DataCopy params", out[25], o25)
check("SetAtomicAdd", out[26], a + a)
check("ReinterpretCast", out[27], np.ones(N, f32))
check("TILING_KEY_IS/tiling", out[28][:3], np.array([1, 1234, 0.75], f32))
check("GlobalTensor Get/SetValue", out[29][:1], np.array([a[5] * 2], f32))
check("Axpy", out[30], a * f32(0.5) + b)
check("LeakyRelu", out[31], np.where(a >= 0, a, a * f32(0.1)))
check("VECOUT queue", out[32], a + f32(1))
o = np.zeros(N, f32); o[:4] = [tree(a[k*64:(k+1)*64]) for k in range(4)]
check("WholeReduceSum", out[33], o)
o = np.zeros(N, f32)
for k in range(4):
    o[2*k] = a[k*64:(k+1)*64].max()
    o[2*k+1:2*k+2].view(np.uint32)[0] = np.argmax(a[k*64:(k+1)*64])
check("WholeReduceMax", out[34], o)
o = np.zeros(N, f32); o[:32] = [tree(a[k*8:(k+1)*8]) for k in range(32)]
check("BlockReduceSum", out[35], o)
o = np.zeros(N, f32); o[:128] = np.repeat(a[:16], 8)
check("Brcb", out[36], o)
check("Gather", out[37], a[::-1])
check("Sigmoid", out[38], (1 / (1 + np.exp(-a.astype(np.float64)))).astype(f32), ulp=4)
check("Tanh", out[39], np.tanh(a.astype(np.float64)).astype(f32), ulp=4)
check("Log", out[40], np.log(np.abs(a) + f32(1)), ulp=2)
o = np.zeros(N, f32); sel = (np.arange(N) % 64) % 2 == 0; o[sel] = (a * b)[sel]
check("Mul level-0 bit mask", out[41], o)
check("Cast f16->s32 RINT", out[42].view(np.int32), np.rint(h.astype(np.float64)).astype(np.int32))
check("InitGlobalMemory", out[43], np.full(N, 2.5, f32))
hf, h2f = h.astype(f32), h2.astype(f32)
check("half Add", oh[0], (hf + h2f).astype(np.float16))
check("half Mul", oh[1], (hf * h2f).astype(np.float16))
check("half Div", oh[2], (hf / h2f).astype(np.float16))
check("half Exp", oh[3], np.exp(hf).astype(np.float16), ulp=1)
check("half Muls", oh[4], (hf * np.float16(0.1).astype(f32)).astype(np.float16))
check("half Sub", oh[5], (hf - h2f).astype(np.float16))
def f16_dir(x, mode):
    r = x.astype(np.float16); rb = r.view(np.uint16).astype(np.int32)
    xd = x.astype(np.float64); rd = r.astype(np.float64)
    t = rb - (np.abs(rd) > np.abs(xd))  # toward zero
    exact = f16_trunc(x).astype(np.float64) == xd
    t1 = t + 1
    pos = xd > 0
    if mode == "ceil": o = np.where(exact, t, np.where(pos, t1, t))
    elif mode == "floor": o = np.where(exact, t, np.where(pos, t, t1))
    else: o = np.where(exact, t, np.where(t % 2 == 1, t, t1))
    return o.astype(np.uint16).view(np.float16)
check("Cast f32->f16 ODD", oh[6], f16_dir(a, "odd"))
check("Cast f32->f16 CEIL", oh[7], f16_dir(a, "ceil"))
check("Cast f32->f16 FLOOR", oh[8], f16_dir(a, "floor"))

lines = open(f"{w}/trace.txt").read().splitlines()
assert lines[0] in ("twin-trace 1", "twin-trace 2", "twin-trace 3", "twin-trace 4", "twin-trace 5", "twin-trace 6")
assert "set MTE2 V e0" in lines and "wait MTE2 V e0" in lines, "SetFlag/WaitFlag not traced"
assert "barrier ALL" in lines
assert any(l.startswith("I MTE2 DataCopyPad bytes=60 bursts=3 burst=20 gm=0 gap=4 ") for l in lines), "DataCopyPad trace"
assert any(l.startswith("I V Cast dt=4 n=256 rep=4 dst=2 ") for l in lines), "Cast trace"
assert any(l.startswith("I V Cast dt=2 n=256 rep=2 dst=4 ") for l in lines), "widening Cast trace"
assert any(l.startswith("I V Add dt=4 n=128 rep=4 ") for l in lines), "level-0 Add trace"
assert any(l.startswith("I S GetValue line=") for l in lines)
assert any(l.startswith("I S SetValue gm=") for l in lines)
assert "set V MTE3 q1.b0" in lines and "wait V MTE3 q1.b0" in lines and "set MTE3 V q1.b0" in lines
blocks = [l for l in lines if l.startswith("block ")]
assert blocks == ["block 0 2", "block 1 2"], blocks
if fails:
    print(f"api test: {len(fails)} failures")
    sys.exit(1)
print(f"  ok: api unit kernel, {OUT_SLOTS + OH_SLOTS} result slots match numpy; trace {len(lines)} lines")
