// twin: CPU implementation of the AscendC kernel programming interface (namespace AscendC).
// Written from the public AscendC documentation; every API call is checked and traced.
#pragma once
#include <cassert> // CANN's kernel headers make assert() available: asc-devkit's fixpipe examples call it
#include <cstdint>
#include <cstddef>
#include <type_traits>

#define __aicore__
// a function for both the host and the device (cann-samples' simd_vf_constraints: CeilAlign); the twin
// compiles both sides as one CPU program
#define __host_aicore__
#define __global__
#define __vector__
// A `__cube__` kernel runs on the cube cores alone (ASCEND_IS_AIC; asc-devkit's mmad and matmul examples
// return early `if ASCEND_IS_AIV`): functions carrying it land in a section whose start symbol tells the
// program it holds one (twin/mix.h). One kind per program, as for `__mix__`.
#define __cube__ __attribute__((section("twin_cube"), used))
#define __gm__
// The workspace parameter of a kernel whose Matmul runs on the AIC for the AIV (KFC): a GM pointer like any
// other on the twin (asc-devkit's matmul_fused example declares `__gm__ uint8_t* __kfc_workspace__ workspace`).
#define __kfc_workspace__
#define __ubuf__
// The UB address-space qualifier of the Reg API's pointers (asc-devkit docs GetVecLen.md's example:
// `__local_mem__ T *dst`); the twin has one address space.
#define __local_mem__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __ssbuf__
#define __inout_pipe__(x)
#define __in_pipe__(x)
#define __out_pipe__(x)
#define __sync_alias__
#define __tiling_data_ptr__
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif
// The AI core generation that goes with __NPU_ARCH__ 2201 (Atlas A2, dav-c220), as CANN's compiler
// defines it; kernels pick their A2 code paths with `#if __CCE_AICORE__ >= 220` / `== 220`.
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif
// The DT_* / FORMAT_* numbers as macros only where the twin's build passes ORIG_DTYPE_<ARG> (custom-op
// kernels, TWIN_DTYPE_IDS): in an .asc program host code shares the file, and its enumerators of the
// same names (ge::DT_FLOAT, matmul_tiling::DataType::DT_FLOAT16) would be rewritten by them.
#ifdef TWIN_DTYPE_IDS
#include "twin/dtype_ids.h"
#endif
// Branch hints kernels write after including kernel_operator.h (ops-nn's norm kernels:
// `if (unlikely(n == 0))`): GCC's __builtin_expect, the value of the condition unchanged.
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif

typedef uint8_t *GM_ADDR;

#include "twin/half.h"
using float16_t = half;
using float32_t = float;
#include "twin/runtime.h"
#include "twin/tiling.h"
#include "twin/tensor.h"
#include "twin/list_tensor.h"
#include "twin/mix.h"
#include "twin/copy.h"
#include "twin/cube.h"
#include "twin/vec.h"
#include "twin/vec2.h"
#include "twin/sort.h"
#include "twin/topk.h"
#include "twin/topk_consts.h"
#include "twin/reg.h"
#include "twin/adv.h"
#include "twin/std.h"

// ASSERT is compiled out, as in device builds: public samples write `x = y ASSERT(c);`, which
// only compiles when the macro expands to nothing. ASCENDC_ASSERT does check.
#define ASSERT(...)
#define ASCENDC_ASSERT(cond, ...)                                                              \
    do {                                                                                       \
        if (!(cond)) ::twin::fault(__FILE__, __LINE__, "ASCENDC_ASSERT failed: %s", #cond);    \
    } while (0)
#define KERNEL_LOG(...)
// ascendc_assert(expr) / ascendc_assert(expr, fmt, args...) (asc-devkit docs/zh/api/SIMD-API/基础API/
// 调试接口/异常检测/ascendc_assert.md): a false expr prints the formatted message and ends the program; on
// the twin that is a kernel fault naming the call's file and line.
#define ascendc_assert(cond, ...)                                                              \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            ::AscendC::twin_assert_message(__VA_ARGS__);                                       \
            ::twin::fault(__FILE__, __LINE__, "ascendc_assert failed: %s", #cond);             \
        }                                                                                      \
    } while (0)

// The kernel type decides whether the launch is mixed (twin/mix.h); KERNEL_TASK_TYPE (per tiling key) is
// not followed yet.
#define KERNEL_TASK_TYPE_DEFAULT(t) ::twin::declare_kernel_type((int)(t), __FILE__, __LINE__)
#define KERNEL_TASK_TYPE(key, t)
#define ENABLE_DETERMINISTIC()

enum KernelMetaType {
    KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_AICORE, KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE, KERNEL_TYPE_MIX_VECTOR_CORE, KERNEL_TYPE_MAX
};

// Used as `if ASCEND_IS_AIV { ... }`, so the parentheses are part of the macro. In a mixed kernel the
// same function runs on the AIC and on each AIV (twin/mix.h); a kernel that is not mixed runs as AIV
// blocks that also execute cube instructions.
#define ASCEND_IS_AIV (::twin::core_is_aiv())
#define ASCEND_IS_AIC (::twin::core_is_aic())
#define ASCEND_IS_NOT_AIV (!::twin::core_is_aiv())
#define ASCEND_IS_NOT_AIC (!::twin::core_is_aic())

namespace AscendC {

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <class T, CacheLine entire = CacheLine::SINGLE_CACHE_LINE, DcciDst dst = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T> &) {}
template <class T, CacheLine entire = CacheLine::SINGLE_CACHE_LINE, DcciDst dst = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T> &, uint64_t) {}

// ICachePreLoad(len) and the library's PRELOAD(len) macro (asc-devkit docs, SIMD-API 缓存控制
// ICachePreLoad; impl/basic_api/utils/kernel_utils_ceil_oom_que.h, where CANN's own CPU build makes
// PRELOAD empty too) prefetch the kernel's instructions: no effect on data, and the twin's model has
// no instruction cache, so neither has a cost here.
inline void ICachePreLoad(const int64_t) {}
#ifndef PRELOAD
#define PRELOAD(len) \
    do {             \
        (void)(len); \
    } while (0)
#endif

enum class KernelMode : uint8_t { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1 };
inline void SetKernelMode(KernelMode) {}
inline void InitSocState() {}

template <class T, class U> struct IsSameType { static constexpr bool value = false; };
template <class T> struct IsSameType<T, T> { static constexpr bool value = true; };

// Non-template on purpose: a kernel's own AlignUp<T>/CeilDiv<T> templates stay unambiguous.
__aicore__ inline constexpr uint64_t CeilDivision(uint64_t a, uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }
__aicore__ inline constexpr uint64_t DivCeil(uint64_t a, uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }
__aicore__ inline constexpr uint64_t AlignUp(uint64_t a, uint64_t b) { return b == 0 ? a : (a + b - 1) / b * b; }
__aicore__ inline constexpr uint64_t AlignDown(uint64_t a, uint64_t b) { return b == 0 ? a : a / b * b; }
inline constexpr uint32_t GetDataBlockSizeInBytes() { return 32; }
inline constexpr uint32_t GetVecLen() { return 256; }
inline uint32_t GetUBSizeInBytes() { return twin::g.ub_bytes; }

template <class... Args> inline void printf(const char *fmt, Args &&...args) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    twin::kprintf(fmt, args...);
#pragma GCC diagnostic pop
}
// PRINTF: printf's other name (asc-devkit docs, printf/PRINTF), a function of the namespace, so that
// `AscendC::PRINTF(...)` (ops-math's experimental concat_v2) and a bare `PRINTF(...)` both compile.
template <class... Args> inline void PRINTF(const char *fmt, Args &&...args) { printf(fmt, args...); }
template <class T> inline void DumpTensor(const LocalTensor<T> &, uint32_t, uint32_t) {}
template <class T> inline void DumpTensor(const GlobalTensor<T> &, uint32_t, uint32_t) {}
inline void Trap(TWIN_LOC) { twin::fault(twin_file, twin_line, "Trap called"); }
// Nop<count>(): a delay of count cycles (asc-devkit docs/zh/api/SIMD-API/基础API/标量计算/Nop.md), one
// scalar record per cycle (`Nop`, one cycle each in src/model/costs.rs; repeats are counted, not written
// out).
template <int count = 1> inline void Nop(TWIN_LOC) {
    for (int i = 0; i < count; i++) twin::tr_scalar("Nop", twin_line);
}

// The kind of core running the code, as kernels read it (`if (g_coreType == AIC)`, `AscendC::g_coreType ==
// AIV`: the HCCL kernel pages' examples, e.g. asc-devkit docs/zh/api/SIMD-API/高阶API/HCCL通信类/
// HCCL-Kernel侧接口/AllReduce.md). The twin runs every core kind in one program (twin/mix.h), so it is read
// per core at run time, like ASCEND_IS_AIC; assigning to it is not supported.
constexpr int32_t AIC_TYPE = 1;
constexpr int32_t AIV_TYPE = 2;
constexpr int32_t AIC = AIC_TYPE;
constexpr int32_t AIV = AIV_TYPE;
struct TwinCoreType {
    operator int32_t() const { return twin::core_is_aic() ? AIC_TYPE : AIV_TYPE; }
};
inline constexpr TwinCoreType g_coreType{};

// Integer ceiling division a / b, the utility kernels call as `Ceil(a, b)` beside the vector Ceil (a
// non-template overload, so the vector Ceil's deduction does not take it). b == 0 gives 0, as CeilDivision.
__aicore__ inline constexpr uint32_t Ceil(uint32_t a, uint32_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

// ascendc_assert's message part (asc-devkit docs/zh/api/SIMD-API/基础API/调试接口/异常检测/
// ascendc_assert.md): printed with printf's conversions before the failure.
inline void twin_assert_message() {}
template <class... Args> inline void twin_assert_message(const char *fmt, Args &&...args) {
    printf(fmt, args...);
}

} // namespace AscendC
using AscendC::PRINTF;

// Some kernels call these without the AscendC:: prefix and without a using-directive.
using AscendC::GetBlockIdx;
using AscendC::GetBlockNum;
using AscendC::g_coreType;
using AscendC::GetTPipePtr; // asc-devkit fill example calls it unqualified
