#!/usr/bin/env bash
# SyncAll across blocks: builds tests/sync_kernel.cpp and checks block 0 sees every block's partial sum.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TWIN="$(cd "$HERE/.." && pwd)"
W="${1:-/tmp/twin_sync_test}"
mkdir -p "$W"
cat > "$W/launch.cpp" <<'EOL'
#include <cstdint>
extern "C" void sync_test(uint8_t*, uint8_t*, uint8_t*, uint8_t*);
extern "C" void twin_launch(uint8_t** a) { sync_test(a[0], a[1], a[2], a[3]); }
EOL
g++ -std=c++17 -O2 -I "$TWIN/include/kernel" "$HERE/sync_kernel.cpp" "$W/launch.cpp" "$TWIN"/src/kernel_*.cpp -o "$W/kernel"
python3 - "$W" <<'EOL'
import subprocess, sys
import numpy as np
w = sys.argv[1]
B = 6
x = np.random.default_rng(5).integers(-8, 8, B * 1024).astype(np.float32)
x.tofile(f"{w}/x.bin")
open(f"{w}/tiling.bin", "wb").close()
open(f"{w}/run.txt", "w").write(f"block_dim {B}\nub_bytes 196352\ntiling {w}/tiling.bin\nworkspace {64*8*4}\n"
    f"input x {w}/x.bin {x.nbytes}\noutput y {w}/y.bin 32\ntrace {w}/trace.txt\n")
subprocess.run([f"{w}/kernel", f"{w}/run.txt"], check=True)
y = np.fromfile(f"{w}/y.bin", np.float32)
assert y[0] == x.sum(), (y[0], x.sum())
lines = open(f"{w}/trace.txt").read().splitlines()
assert [l for l in lines if l.startswith("block ")] == [f"block {b} {B}" for b in range(B)]
assert sum(1 for l in lines if l.startswith("I S SyncAll")) == B
print(f"  ok: SyncAll across {B} blocks (block 0 read every partial sum)")
EOL
