// twin: mixed (AIC + AIV) kernels: the kernel type, the core kind queries and the cross-core flags.
// Owns the kernel-side interface only; the cores, their scheduling and the flag counters live in
// src/kernel_blocks.cpp. Knows nothing of vector or cube instructions.
//
// Behaviour, from the AscendC documentation (asc-devkit docs/zh/api/SIMD-API/基础API/):
//   - 工具接口/系统资源与变量/GetBlockIdx.md, GetBlockNum.md, GetSubBlockIdx(ISASI).md, GetSubBlockNum(ISASI).md,
//     GetTaskRatio.md: a mixed launch of numBlocks logical cores starts numBlocks AIC and ratio * numBlocks
//     AIV (ratio 1 or 2); GetBlockIdx is in [0, numBlocks) on the AIC and [0, ratio * numBlocks) on an AIV;
//     GetBlockNum is numBlocks on both; GetSubBlockIdx tells the AIVs of one logical core apart.
//   - 同步控制/核间同步/CrossCoreSetFlag(ISASI).md, CrossCoreWaitFlag(ISASI).md, 关键特性说明.md: each core has
//     16 flag counters; mode 0 syncs every AIC (or every AIV) of the launch, mode 1 the AIVs of one logical
//     core, mode 2 the AIC with its AIVs (the AIC's set releases each AIV's wait; all AIVs' sets release
//     the AIC's); a wait blocks while its counter is 0, then takes one. Pipes S and ALL are not allowed
//     on a set; flag ids past 15 keep their low 4 bits.
//   - Kernel-Tiling/设置Kernel类型.md: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2) in the kernel, or the
//     `__mix__(1, 2)` qualifier, makes a kernel mixed.
// The twin runs one core at a time (kernel_blocks.cpp): a wait with its counter at 0 hands over to the
// other cores, and a wait that no core can satisfy any more is a fault at the wait's file:line.
#pragma once
#include "runtime.h"

namespace twin {
// Called by KERNEL_TASK_TYPE_DEFAULT with a KernelMetaType value.
void declare_kernel_type(int type, TWIN_LOC_DECL);
// The mixed ratio a `__mix__(c, v)` qualifier in this program asked for (0: none), noted at start-up.
int note_static_mix(int aiv_per_aic);
inline bool core_is_aiv() {
    g.kind_queried = true;
    return g.core_kind != 1;
}
inline bool core_is_aic() {
    g.kind_queried = true;
    return g.core_kind == 1;
}
// mode: 0, 1 or 2; pipe: the pipe whose earlier work the set waits for (trace only).
void xcore_set(int mode, Pipe pipe, int flag, TWIN_LOC_DECL);
void xcore_wait(int mode, Pipe pipe, int flag, TWIN_LOC_DECL);
// REGIST_MATMUL_OBJ without a kernel type, `__cube__` or ASCENDC_CUBE_ONLY: the launch is mixed 1:2 (CANN's
// default for Matmul kernels), decided here when core 0 is the first to get here.
void matmul_default_mix();
// Ends the current core normally (the AIC of a mixed kernel at REGIST_MATMUL_OBJ: lib/matmul_intf.h).
[[noreturn]] void throw_core_end();

// `__mix__(c, v)`: functions carrying it land in a section named after the ratio; its start symbol
// (defined by the linker only when the section exists) tells the program it holds a mixed kernel.
extern "C" char __start_twin_mix_1_1[] __attribute__((weak));
extern "C" char __start_twin_mix_1_2[] __attribute__((weak));
inline int static_mix_probe() { return __start_twin_mix_1_2 ? 2 : __start_twin_mix_1_1 ? 1 : 0; }
// `__cube__` (kernel_operator.h): the program's kernels run on cube cores, each block an AIC.
extern "C" char __start_twin_cube[] __attribute__((weak));
bool note_static_cube(bool cube);
namespace {
[[maybe_unused]] const int static_mix_noted = note_static_mix(static_mix_probe());
[[maybe_unused]] const bool static_cube_noted = note_static_cube(__start_twin_cube != nullptr);
}
} // namespace twin

#define TWIN_MIX_1_2 __attribute__((section("twin_mix_1_2"), used))
#define TWIN_MIX_1_1 __attribute__((section("twin_mix_1_1"), used))
#define TWIN_MIX_1_0
#define TWIN_MIX_0_1
#define __mix__(c, v) TWIN_MIX_##c##_##v

namespace AscendC {
inline int64_t GetSubBlockIdx() {
    twin::g.kind_queried = true;
    return twin::g.sub_idx;
}
// 1 on the AIC and on a core of a kernel that is not mixed, the ratio on an AIV (GetSubBlockNum table).
inline int64_t GetSubBlockNum() {
    twin::g.kind_queried = true;
    return twin::g.core_kind == 2 ? twin::g.mix_aiv : 1;
}
inline int64_t GetTaskRation() { return GetSubBlockNum(); }
inline int64_t GetTaskRatio() { return GetSubBlockNum(); }

template <uint8_t modeId, pipe_t pipe> inline void CrossCoreSetFlag(uint16_t flagId, TWIN_LOC) {
    if (pipe == PIPE_S || pipe == PIPE_ALL)
        twin::fault(twin_file, twin_line,
                    "CrossCoreSetFlag: pipe %s is not allowed (modes 0-2 take PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, "
                    "PIPE_MTE3 or PIPE_FIX)", pipe == PIPE_S ? "PIPE_S" : "PIPE_ALL");
    twin::xcore_set(modeId, twin::pipe_of(pipe), flagId, TWIN_LOC_ARGS);
}
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S> inline void CrossCoreWaitFlag(uint16_t flagId, TWIN_LOC) {
    twin::xcore_wait(modeId, twin::pipe_of(pipe), flagId, TWIN_LOC_ARGS);
}
// NotifyEvent / WaitEvent: the spelling of the AIV -> AIC handshake in asc-devkit's guide
// (优秀实践/Matmul性能调优案例/AIV核上的ND2NZ格式转换.md: the AIVs `NotifyEvent<PIPE_MTE3>(4)` when their ND2NZ
// copy is out, the AIC `WaitEvent(4)` before its Matmul), as ops-math's stft pairs WaitEvent with
// CrossCoreSetFlag: the same flags as CrossCoreSetFlag<2, pipe> (within the group) and CrossCoreWaitFlag.
template <pipe_t pipe> inline void NotifyEvent(uint16_t flagId, TWIN_LOC) { CrossCoreSetFlag<2, pipe>(flagId, TWIN_LOC_ARGS); }
inline void WaitEvent(uint16_t flagId, TWIN_LOC) { CrossCoreWaitFlag(flagId, TWIN_LOC_ARGS); }
} // namespace AscendC
