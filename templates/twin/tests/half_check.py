# Checks the twin's float -> half / bfloat16 conversions against numpy (and an integer reference
# for bfloat16) on random and special bit patterns.
import subprocess, sys
import numpy as np
w = sys.argv[1]
rng = np.random.default_rng(3)
bits = rng.integers(0, 2**32, 400000, dtype=np.uint64).astype(np.uint32)
# concentrate on the half range, subnormals, ties and overflow boundaries
extra = np.concatenate([
    np.arange(0x33000000 - 8, 0x33000008, dtype=np.uint32),
    np.arange(0x387fe000, 0x38802000, 7, dtype=np.uint32),
    np.arange(0x477fe000 - 64, 0x477ff000 + 64, dtype=np.uint32),
    (np.arange(0, 2**16, dtype=np.uint32) << 13) + 0x1000 + 0x30000000,  # exact half ties
    rng.integers(0x30000000, 0x48000000, 200000, dtype=np.uint64).astype(np.uint32),
    np.array([0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001], dtype=np.uint32),
])
bits = np.concatenate([bits, extra, extra | 0x80000000])
bits.tofile(f"{w}/h_in.bin")
subprocess.run([f"{w}/half_test", f"{w}/h_in.bin", f"{w}/h16.bin", f"{w}/hbf.bin", f"{w}/hback.bin"], check=True)
f = bits.view(np.float32)
h = np.fromfile(f"{w}/h16.bin", np.uint16)
with np.errstate(over="ignore"):
    ref = f.astype(np.float16).view(np.uint16)
nan = np.isnan(f)
bad = np.nonzero((h != ref) & ~nan)[0]
assert len(bad) == 0, f"half mismatch at {bits[bad[:5]]}: got {h[bad[:5]]} want {ref[bad[:5]]}"
assert np.all(np.isnan(h[nan].view(np.float16)))
back = np.fromfile(f"{w}/hback.bin", np.float32)
assert np.array_equal(back[~nan], ref[~nan].view(np.float16).astype(np.float32))
# bfloat16 reference: round to nearest even on the top 16 bits
b = np.fromfile(f"{w}/hbf.bin", np.uint16)
x = bits.astype(np.uint64)
rb = ((x + 0x7fff + ((x >> 16) & 1)) >> 16).astype(np.uint16)
bad = np.nonzero((b != rb) & ~nan)[0]
assert len(bad) == 0, f"bf16 mismatch at {bits[bad[:5]]}"
assert np.all((b[nan] & 0x7f80) == 0x7f80) and np.all(b[nan] & 0x7f)
print(f"  ok: float -> half / bfloat16 conversion matches numpy on {len(bits)} values")
