#!/usr/bin/env bash
# Template tiling keys (ASCENDC_TPL_*): host encodes with ASCENDC_TPL_SEL_PARAM, the launch file
# includes the kernel source and uses TWIN_TPL_LAUNCH to call the matching instance.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TWIN="$(cd "$HERE/.." && pwd)"
P="$HERE/tpl_op"
W="${1:-/tmp/twin_tpl_test}"
mkdir -p "$W"
g++ -std=c++17 -O1 -I "$TWIN/include/host" -I "$P/op_host" -DTWIN_OP_TYPE=TplOp "$P/op_host/tpl_op.cpp" "$TWIN"/src/host_*.cpp -o "$W/tiling"
cat > "$W/launch.cpp" <<EOL
#include "$P/op_kernel/tpl_op.cpp"
#include "twin/tpl_launch.h"
TWIN_TPL_LAUNCH(tpl_op, 4)
EOL
g++ -std=c++17 -O2 -I "$TWIN/include/kernel" -I "$P/op_kernel" -DTWIN_OP_TYPE=TplOp -include "$P/op_host/tpl_op_tiling.h" \
    "$W/launch.cpp" "$TWIN"/src/kernel_*.cpp -o "$W/kernel"
python3 - "$W" <<'EOL'
import subprocess, sys
import numpy as np
w = sys.argv[1]
for dt, npdt in [("float32", np.float32), ("float16", np.float16)]:
    for factor in (1, 2, 9):
        x = np.random.default_rng(factor).uniform(-4, 4, 1024).astype(npdt)
        x.tofile(f"{w}/x.bin")
        open(f"{w}/spec.txt", "w").write(f"op_type TplOp\nshort_soc ascend910b\naiv_cores 48\naic_cores 24\nub_bytes 196352\n"
                                         f"input x {dt} 1024\noutput y {dt} 1024\nattr factor int {factor}\n")
        subprocess.run([f"{w}/tiling", f"{w}/spec.txt", f"{w}/t.out"], check=True)
        t = dict(l.rstrip("\n").split(" ", 1) for l in open(f"{w}/t.out"))
        open(f"{w}/tiling.bin", "wb").write(bytes.fromhex(t["tiling_data"]))
        open(f"{w}/run.txt", "w").write(f"block_dim {t['block_dim']}\nub_bytes 196352\ntiling {w}/tiling.bin\n"
                                        f"tiling_key {t['tiling_key']}\nworkspace 0\ninput x {w}/x.bin {x.nbytes}\n"
                                        f"output y {w}/y.bin {x.nbytes}\ntrace {w}/trace.txt\n")
        subprocess.run([f"{w}/kernel", f"{w}/run.txt"], check=True)
        y = np.fromfile(f"{w}/y.bin", npdt)
        want = x if factor == 1 else (x.astype(np.float32) * np.float32(factor)).astype(npdt)
        assert np.array_equal(y, want), (dt, factor)
        muls = sum(1 for l in open(f"{w}/trace.txt") if l.startswith("I V Muls"))
        assert muls == (0 if factor == 1 else 1)
print("  ok: ASCENDC_TPL tiling keys: 6 (dtype, factor) cases pick the right kernel instance")
EOL
