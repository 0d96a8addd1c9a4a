#!/usr/bin/env python3
# verify_result.py OUTPUT GOLDEN: exit 0 when the fp32 files agree to 1e-6 relative, else 1.
import sys
import numpy as np

out = np.fromfile(sys.argv[1], dtype=np.float32)
golden = np.fromfile(sys.argv[2], dtype=np.float32)
if out.shape != golden.shape:
    print(f"size mismatch: {out.size} vs {golden.size}")
    sys.exit(1)
bad = int(np.sum(np.abs(out - golden) > 1e-6 * np.abs(golden) + 1e-12))
print(f"error ratio: {bad / out.size:.4f}")
if bad:
    sys.exit(1)
print("test pass!")
