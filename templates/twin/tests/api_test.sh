#!/usr/bin/env bash
# Builds tests/api_kernel.cpp against the twin, runs it and checks every result slot with numpy.
# Usage: tests/api_test.sh [work-dir]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TWIN="$(cd "$HERE/.." && pwd)"
W="${1:-/tmp/twin_api_test}"
mkdir -p "$W"
cat > "$W/launch.cpp" <<'EOL'
#include <cstdint>
extern "C" void api_test(uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*);
extern "C" void twin_launch(uint8_t** a) { api_test(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]); }
EOL
g++ -std=c++17 -O2 -Wall -Wno-unused-variable -I "$TWIN/include/kernel" -DTWIN_OP_TYPE=ApiTest \
    "$HERE/api_kernel.cpp" "$W/launch.cpp" "$TWIN"/src/kernel_*.cpp -o "$W/kernel"
python3 "$HERE/api_check.py" "$W"
g++ -std=c++17 -O2 -I "$TWIN/include/kernel" "$HERE/half_test.cpp" "$TWIN/src/kernel_runtime.cpp" "$TWIN/src/kernel_math.cpp" -o "$W/half_test"
python3 "$HERE/half_check.py" "$W"
