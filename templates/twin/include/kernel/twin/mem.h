// twin: the AI core's local buffers other than UB (L1, L0A, L0B, L0C, the bias table BT and the
// fixpipe buffer FB), each a checked per-block arena with its capacity on the SoC, and which
// TPosition lives in which buffer. Included by tensor.h once TPosition is known.
// Owns: positions -> buffers, arenas, capacities, carving for TPipe. Must not know: what the cube
// computes (cube.h), costs (the Rust model).
//
// Positions -> buffers (asc-devkit docs, "TPosition" in the programming guide and the Mmad / LoadData /
// Fixpipe pages, docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/): A1, B1, C1 -> L1; A2 -> L0A;
// B2 -> L0B; CO1 -> L0C; C2 -> the bias table (BT); C2PIPE2GM -> the fixpipe buffer (FB); VECIN,
// VECOUT, VECCALC and CO2 -> UB. Capacities (FACTS §1, A2/A3): L1 512 KiB, L0A 64 KiB, L0B 64 KiB,
// L0C 128 KiB, BT 1 KiB, FB 7 KiB; the run file may set others (`l1_bytes`, `l0a_bytes`, ...).
#pragma once
#include <cstdint>
#include "runtime.h"

namespace twin {

enum Hw : uint8_t { HW_UB = 0, HW_L1, HW_L0A, HW_L0B, HW_L0C, HW_BT, HW_FB, HW_COUNT };

constexpr Hw hw_of(AscendC::TPosition p) {
    using AscendC::TPosition;
    return p == TPosition::A1 || p == TPosition::B1 || p == TPosition::C1 ? HW_L1
         : p == TPosition::A2 ? HW_L0A
         : p == TPosition::B2 ? HW_L0B
         : p == TPosition::CO1 ? HW_L0C
         : p == TPosition::C2 ? HW_BT
         : p == TPosition::C2PIPE2GM ? HW_FB
         : HW_UB;
}
// The buffer a queue bound from src to dst lives in: the one that is not GM (the destination first).
constexpr Hw hw_of_queue(AscendC::TPosition src, AscendC::TPosition dst) {
    return dst != AscendC::TPosition::GM ? hw_of(dst) : hw_of(src);
}

const char *hw_name(Hw h);
// Capacity in bytes of buffer h of this launch (UB: ub_bytes).
uint32_t hw_cap(Hw h);
// Sets the capacities of L0A, L0B, L0C, BT and FB for the launches that follow (0 keeps the default; L1's
// is the launch's l1_bytes, g.l1_bytes).
void hw_set_caps(uint64_t l0a, uint64_t l0b, uint64_t l0c, uint64_t bt, uint64_t fb);
// [addr, addr+bytes) of buffer h of the running block, checked against its capacity (a fault names
// the API and the buffer). The arena of a non-UB buffer is made (zeroed) on first use.
uint8_t *hw_span(Hw h, uint64_t addr, uint64_t bytes, const char *api, TWIN_LOC_DECL);
// Bytes of buffer h carved by TPipe::InitBuffer so far in this block, and setting it back.
uint32_t hw_used(Hw h);
void hw_set_used(Hw h, uint32_t used);
// What TPipe may carve of buffer h in all: its capacity; for the UB the library's pool, the runtime's
// reserve included (kernel_cube.cpp says why).
uint32_t hw_pool(Hw h);
// Carves `bytes` from buffer h for TPipe::InitBuffer; a fault names the buffer when it overflows.
uint32_t hw_carve(Hw h, uint64_t bytes, TWIN_LOC_DECL);

// The bytes behind a local tensor at position p.
inline uint8_t *local_span(AscendC::TPosition p, uint64_t addr, uint64_t bytes, const char *api, TWIN_LOC_DECL) {
    Hw h = hw_of(p);
    return h == HW_UB ? ub_span(addr, bytes, api, TWIN_LOC_ARGS) : hw_span(h, addr, bytes, api, TWIN_LOC_ARGS);
}

// A cube instruction's trace record (kernel_cube.cpp): `I <pipe> <api>` with the keys that are not 0
// (bytes moved; m, k, n and the input element size dt of an Mmad; dst: the output element size).
struct CubeKeys {
    uint64_t bytes = 0, m = 0, k = 0, n = 0, dt = 0, dst = 0;
    // Mmad / Fixpipe unitFlag (2 or 3; 0: off), written as `uf=`.
    uint64_t uf = 0;
};
void tr_cube(Pipe pipe, const char *api, const CubeKeys &c, int line);

} // namespace twin
