// twin: high-level (advanced) APIs with their own shapes: IsFinite, SwiGLU, AscendDequant, DeepNorm, CumSum, and the
// scalar GM atomics (AtomicAdd / Max / Min / Exch / Cas). Each is written from its asc-devkit page (cited
// beside it) and computed elementwise on the CPU; the twin needs no scratch, so a sharedTmpBuffer argument
// is accepted and not touched. The tiling structs these read are in kernel_tiling/kernel_tiling.h, the host
// queries that size their scratch in tiling/twin_adv_tiling.h. Knows nothing of the tool's Rust side.
#pragma once
#include <vector>
#include "vec.h"
#include "../kernel_tiling/kernel_tiling.h"

namespace twin {
// Fault when [a, a + abytes) and [b, b + bbytes) overlap in UB: the pages below forbid it.
inline void no_overlap(const char *api, const char *what, uint32_t a, uint64_t abytes, uint32_t b, uint64_t bbytes,
                       TWIN_LOC_DECL) {
    if (abytes > 0 && bbytes > 0 && a < b + bbytes && b < a + abytes)
        fault(twin_file, twin_line, "%s: %s (UB %u and %u) overlap; the API does not allow it", api, what, a, b);
}
template <class T> struct is_fp_elem : std::integral_constant<bool, std::is_same<T, float>::value || is_half_like<T>::value> {};
} // namespace twin

namespace AscendC {

// ---- IsFinite (asc-devkit docs/zh/api/SIMD-API/高阶API/数学计算/IsFinite接口/IsFinite.md): per element,
// 1 (or true) when the input is neither NaN nor +-inf, else 0 (false). src half / bfloat16_t / float; dst the
// same type as src, or bool. A one-byte integer destination (the page's sample writes through
// LocalTensor<int8_t> when the output is bool) is taken as bool: one byte, 1 or 0.
template <class T, class U>
inline void IsFinite(const LocalTensor<U> &dst, const LocalTensor<T> &src, uint32_t calCount, TWIN_LOC) {
    static_assert(twin::is_fp_elem<T>::value, "IsFinite: src must be half, bfloat16_t or float");
    static_assert(std::is_same<U, T>::value || sizeof(U) == 1,
                  "IsFinite: dst must have src's type, or be bool (one byte)");
    twin::no_overlap("IsFinite", "dst and src", dst.addr_, (uint64_t)calCount * sizeof(U), src.addr_,
                     (uint64_t)calCount * sizeof(T), TWIN_LOC_ARGS);
    twin::vun("IsFinite", dst, src, calCount, [](T x) {
        const bool fin = __builtin_isfinite((float)x);
        if constexpr (std::is_same<U, T>::value) return (U)(fin ? 1.0f : 0.0f);
        else return (U)(fin ? 1 : 0);
    }, TWIN_LOC_ARGS, (int)sizeof(U));
}

// ---- Arange (asc-devkit docs/zh/api/SIMD-API/高阶API/索引计算/Arange-94.md): the arithmetic sequence
// dst[i] = firstValue + i * diffValue, i < count; int16_t, half, int32_t, float; count > 0, diffValue >= 0.
// Built as the page describes: up to 8 elements written one by one (SetValue), extended by Adds to 64
// (7 Adds of 8 elements), then by Adds of 64 elements until count; each step adds to the first block, so
// in half the sums round as the device's Adds would.
} // namespace AscendC
namespace twin {
template <class T>
inline void arange(const AscendC::LocalTensor<T> &dst, T first, T diff, int32_t count, TWIN_LOC_DECL) {
    static_assert(std::is_same<T, int16_t>::value || std::is_same<T, half>::value || std::is_same<T, int32_t>::value ||
                      std::is_same<T, float>::value,
                  "Arange: int16_t, half, int32_t or float");
    if (count <= 0) fault(twin_file, twin_line, "Arange: count %d must be positive", count);
    if ((double)up(diff) < 0) fault(twin_file, twin_line, "Arange: diffValue %g must not be negative", (double)up(diff));
    uint8_t *pd = vspan(dst, (uint64_t)count, "Arange", TWIN_LOC_ARGS);
    const int64_t n = count;
    for (int64_t i = 0; i < n && i < 8; i++) {
        st<T>(pd + i * sizeof(T), (T)(up(first) + up((T)(up(diff) * i))));
        tr_scalar("SetValue", twin_line);
    }
    for (int64_t block = 8, step = 8; block < n; block += step) {
        if (block == 64) step = 64;
        const int64_t len = std::min<int64_t>(step, n - block);
        const T add = (T)(up(diff) * block);
        for (int64_t j = 0; j < len; j++)
            st<T>(pd + (block + j) * sizeof(T), (T)(up(ld<T>(pd + j * sizeof(T))) + up(add)));
        tr_vec_ub(dst.addr_ + (uint32_t)(block * sizeof(T)), dst.addr_);
        tr_vec("Adds", sizeof(T), (uint64_t)len, vec_rep((uint64_t)len, sizeof(T)), twin_line);
    }
}
} // namespace twin
namespace AscendC {
template <class T>
inline void Arange(const LocalTensor<T> &dst, const T firstValue, const T diffValue, const int32_t count, TWIN_LOC) {
    twin::arange(dst, firstValue, diffValue, count, TWIN_LOC_ARGS);
}

// ---- SwiGLU (asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/SwiGLU接口/SwiGLU.md; the formula as the
// page's sample states it, examples/01_simd_cpp_api/04_advanced_api/01_activation/swiglu):
//   dst_i = src0_i * Swish(src1_i, beta), Swish(x, beta) = x / (1 + exp(-beta * x)),
// computed in float; half or float. dst must not overlap either source.
} // namespace AscendC
namespace twin {
template <class T>
inline void swiglu(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &s0, const AscendC::LocalTensor<T> &s1,
                   float beta, int64_t n, TWIN_LOC_DECL) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "SwiGLU: half or float");
    vcheck(n, "SwiGLU", TWIN_LOC_ARGS);
    const uint64_t bytes = (uint64_t)n * sizeof(T);
    no_overlap("SwiGLU", "dst and srcTensor0", dst.addr_, bytes, s0.addr_, bytes, TWIN_LOC_ARGS);
    no_overlap("SwiGLU", "dst and srcTensor1", dst.addr_, bytes, s1.addr_, bytes, TWIN_LOC_ARGS);
    uint8_t *pd = vspan(dst, n, "SwiGLU", TWIN_LOC_ARGS);
    const uint8_t *pa = vspan(s0, n, "SwiGLU", TWIN_LOC_ARGS);
    const uint8_t *pb = vspan(s1, n, "SwiGLU", TWIN_LOC_ARGS);
    for (int64_t i = 0; i < n; i++) {
        const float a = (float)ld<T>(pa + i * sizeof(T)), b = (float)ld<T>(pb + i * sizeof(T));
        st<T>(pd + i * sizeof(T), (T)(a * (b / (1.0f + m_exp(-beta * b)))));
    }
    tr_vec_ub(dst.addr_, s0.addr_, s1.addr_);
    tr_vec("SwiGLU", sizeof(T), n, vec_rep(n, sizeof(T)), twin_line);
}
} // namespace twin
namespace AscendC {
template <class T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor0, const LocalTensor<T> &srcTensor1,
                   const float &scalarValue, const LocalTensor<uint8_t> &, const uint32_t calCount, TWIN_LOC) {
    twin::swiglu(dstTensor, srcTensor0, srcTensor1, scalarValue, calCount, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor0, const LocalTensor<T> &srcTensor1,
                   const float &scalarValue, const LocalTensor<uint8_t> &, TWIN_LOC) {
    twin::swiglu(dstTensor, srcTensor0, srcTensor1, scalarValue, srcTensor0.GetSize(), TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor0, const LocalTensor<T> &srcTensor1,
                   const float &scalarValue, const uint32_t calCount, TWIN_LOC) {
    twin::swiglu(dstTensor, srcTensor0, srcTensor1, scalarValue, calCount, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor0, const LocalTensor<T> &srcTensor1,
                   const float &scalarValue, TWIN_LOC) {
    twin::swiglu(dstTensor, srcTensor0, srcTensor1, scalarValue, srcTensor0.GetSize(), TWIN_LOC_ARGS);
}

// ---- Gelu (asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/Gelu接口/Gelu.md; the simplified form as the page's
// sample computes its golden, examples/01_simd_cpp_api/04_advanced_api/01_activation/gelu/scripts/gen_data.py):
//   dst_i = x / (1 + exp(-1.5957691216057308 * (x + 0.044715 * x^3))), x = src_i, computed in float;
// half or float; dst may be src (the page allows reuse). highPrecision / highPerformance change the real
// core's accuracy and speed, not the formula; the twin computes in float either way.
template <class T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t dataSize, TWIN_LOC) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "Gelu: half or float");
    twin::vun("Gelu", dstLocal, srcLocal, dataSize, [](T v) {
        const float x = (float)v;
        return (T)(x / (1.0f + twin::m_exp(-1.5957691216057308f * (x + 0.044715f * x * x * x))));
    }, TWIN_LOC_ARGS);
}
template <class T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const LocalTensor<uint8_t> &,
                 const uint32_t dataSize, TWIN_LOC) {
    Gelu<T, highPrecision, highPerformance>(dstLocal, srcLocal, dataSize, TWIN_LOC_ARGS);
}

// ---- Fmod (asc-devkit docs/zh/api/SIMD-API/高阶API/数学计算/Fmod接口/Fmod.md): dst_i = a - Trunc(a / b) * b,
// a = src0_i, b = src1_i (Fmod(2.0, 1.5) = 0.5, Fmod(-3.0, 1.1) = -0.8), half or float. The twin evaluates the
// formula in double, which is exact for the quotients the NORMAL algorithm serves; the config's
// ITERATION_COMPENSATION (a more precise algorithm on Ascend 950) gives the same value here. b = 0 gives
// NaN. dst must not overlap either source (the page forbids it).
constexpr uint32_t FMOD_ITERATION_NUM_MAX = 11;
enum class FmodAlgo { NORMAL = 0, ITERATION_COMPENSATION = 1 };
struct FmodConfig {
    FmodAlgo algo = FmodAlgo::NORMAL;
    uint32_t iterationNum = FMOD_ITERATION_NUM_MAX;
};
constexpr FmodConfig DEFAULT_FMOD_CONFIG = {FmodAlgo::NORMAL, FMOD_ITERATION_NUM_MAX};
template <class T, bool isReuseSource = false, const FmodConfig &config = DEFAULT_FMOD_CONFIG>
inline void Fmod(const LocalTensor<T> &dstTensor, const LocalTensor<T> &src0Tensor, const LocalTensor<T> &src1Tensor,
                 const uint32_t calCount, TWIN_LOC) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "Fmod: half or float");
    const uint64_t bytes = (uint64_t)calCount * sizeof(T);
    twin::no_overlap("Fmod", "dst and src0Tensor", dstTensor.addr_, bytes, src0Tensor.addr_, bytes, TWIN_LOC_ARGS);
    twin::no_overlap("Fmod", "dst and src1Tensor", dstTensor.addr_, bytes, src1Tensor.addr_, bytes, TWIN_LOC_ARGS);
    twin::vbin("Fmod", dstTensor, src0Tensor, src1Tensor, calCount, [](float a, float b) {
        if (b == 0.0f) return (float)__builtin_nan("");
        const double q = __builtin_trunc((double)a / (double)b);
        return (float)((double)a - q * (double)b);
    }, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false, const FmodConfig &config = DEFAULT_FMOD_CONFIG>
inline void Fmod(const LocalTensor<T> &dstTensor, const LocalTensor<T> &src0Tensor, const LocalTensor<T> &src1Tensor,
                 const LocalTensor<uint8_t> &, const uint32_t calCount, TWIN_LOC) {
    Fmod<T, isReuseSource, config>(dstTensor, src0Tensor, src1Tensor, calCount, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false, const FmodConfig &config = DEFAULT_FMOD_CONFIG>
inline void Fmod(const LocalTensor<T> &dstTensor, const LocalTensor<T> &src0Tensor, const LocalTensor<T> &src1Tensor,
                 const LocalTensor<uint8_t> &, TWIN_LOC) {
    Fmod<T, isReuseSource, config>(dstTensor, src0Tensor, src1Tensor, src0Tensor.GetSize(), TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false, const FmodConfig &config = DEFAULT_FMOD_CONFIG>
inline void Fmod(const LocalTensor<T> &dstTensor, const LocalTensor<T> &src0Tensor, const LocalTensor<T> &src1Tensor,
                 TWIN_LOC) {
    Fmod<T, isReuseSource, config>(dstTensor, src0Tensor, src1Tensor, src0Tensor.GetSize(), TWIN_LOC_ARGS);
}

// ---- AscendDequant (asc-devkit docs/zh/api/SIMD-API/高阶API/量化操作/AscendDequant.md): src int32_t [m, n];
// row i's first calCount elements times deqScale[j] (a tensor: its first calCount elements) or times the
// scalar deqScale, in float, rounded to dstT and written to row i of dst [m, n_dst], n_dst = n rounded up
// so that a row is a multiple of 32 bytes of dstT; the rest of a dst row is left as it was (the page:
// undefined). A uint64_t deqScale carries its float in the low 32 bits. DEQUANT_WITH_SINGLE_ROW takes
// {1, n, calCount} as {n / calCount, calCount, calCount} when calCount is a multiple of 32 / sizeof(dstT)
// and divides n. The PER_TOKEN / PER_GROUP forms (Ascend 950 only) are not supported.
struct DequantParams {
    uint32_t m;
    uint32_t n;
    uint32_t calCount;
};
enum class DeQuantMode { DEQUANT_WITH_SINGLE_ROW = 0, DEQUANT_WITH_MULTI_ROW };
} // namespace AscendC
namespace twin {
template <class S> inline float dequant_scale(S s) {
    if constexpr (std::is_same<S, uint64_t>::value) {
        float f; uint32_t lo = (uint32_t)s; __builtin_memcpy(&f, &lo, 4); return f;
    } else {
        return (float)s;
    }
}
// scale(j) gives the factor of column j.
template <class D, AscendC::DeQuantMode mode, class F>
inline void dequant(const AscendC::LocalTensor<D> &dst, const AscendC::LocalTensor<int32_t> &src, AscendC::DequantParams p,
                    uint64_t scaleCount, F scale, TWIN_LOC_DECL) {
    static_assert(std::is_same<D, half>::value || std::is_same<D, float>::value || std::is_same<D, bfloat16_t>::value,
                  "AscendDequant: dstT must be half, float or bfloat16_t");
    const char *api = "AscendDequant";
    if (p.calCount < 1 || p.calCount > p.n)
        fault(twin_file, twin_line, "%s: DequantParams.calCount %u must lie in [1, n = %u]", api, p.calCount, p.n);
    if (p.calCount > scaleCount)
        fault(twin_file, twin_line, "%s: DequantParams.calCount %u exceeds deqScale's %llu elements", api, p.calCount,
              (unsigned long long)scaleCount);
    if ((uint64_t)p.n * sizeof(int32_t) % 32 != 0)
        fault(twin_file, twin_line, "%s: DequantParams.n %u: a src row of int32_t must be a multiple of 32 bytes", api, p.n);
    if (mode == AscendC::DeQuantMode::DEQUANT_WITH_SINGLE_ROW && p.m == 1 && p.calCount % (32 / sizeof(D)) == 0 &&
        p.n % p.calCount == 0)
        p = AscendC::DequantParams{p.n / p.calCount, p.calCount, p.calCount};
    const uint64_t nDst = ((uint64_t)p.n * sizeof(D) + 31) / 32 * 32 / sizeof(D);
    const uint8_t *ps = vspan(src, (uint64_t)p.m * p.n, api, TWIN_LOC_ARGS);
    uint8_t *pd = p.m == 0 ? nullptr : vspan(dst, (uint64_t)(p.m - 1) * nDst + p.calCount, api, TWIN_LOC_ARGS);
    for (uint64_t i = 0; i < p.m; i++)
        for (uint64_t j = 0; j < p.calCount; j++) {
            const float v = (float)ld<int32_t>(ps + (i * p.n + j) * 4) * scale(j);
            st<D>(pd + (i * nDst + j) * sizeof(D), (D)v);
        }
    tr_vec(api, 4, (uint64_t)p.m * p.n, vec_rep((uint64_t)p.m * p.n, 4), twin_line, (int)sizeof(D));
}
} // namespace twin
namespace AscendC {
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT> &dstTensor, const LocalTensor<int32_t> &srcTensor,
                          const LocalTensor<scaleT> &deqScale, const LocalTensor<uint8_t> &, DequantParams params, TWIN_LOC) {
    const uint8_t *pk = twin::vspan(deqScale, params.calCount, "AscendDequant", TWIN_LOC_ARGS);
    twin::dequant<dstT, mode>(dstTensor, srcTensor, params, deqScale.GetSize(), [pk](uint64_t j) {
        return twin::dequant_scale(twin::ld<scaleT>(pk + j * sizeof(scaleT)));
    }, TWIN_LOC_ARGS);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT> &dstTensor, const LocalTensor<int32_t> &srcTensor,
                          const LocalTensor<scaleT> &deqScale, DequantParams params, TWIN_LOC) {
    LocalTensor<uint8_t> none;
    AscendDequant<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, none, params, TWIN_LOC_ARGS);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW,
          typename std::enable_if<std::is_arithmetic<scaleT>::value || twin::is_half_like<scaleT>::value, int>::type = 0>
inline void AscendDequant(const LocalTensor<dstT> &dstTensor, const LocalTensor<int32_t> &srcTensor, const scaleT deqScale,
                          const LocalTensor<uint8_t> &, DequantParams params, TWIN_LOC) {
    const float s = (float)deqScale;
    twin::dequant<dstT, mode>(dstTensor, srcTensor, params, ~0ull, [s](uint64_t) { return s; }, TWIN_LOC_ARGS);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW,
          typename std::enable_if<std::is_arithmetic<scaleT>::value || twin::is_half_like<scaleT>::value, int>::type = 0>
inline void AscendDequant(const LocalTensor<dstT> &dstTensor, const LocalTensor<int32_t> &srcTensor, const scaleT deqScale,
                          DequantParams params, TWIN_LOC) {
    const float s = (float)deqScale;
    twin::dequant<dstT, mode>(dstTensor, srcTensor, params, ~0ull, [s](uint64_t) { return s; }, TWIN_LOC_ARGS);
}
// The older count forms the page lists as not recommended: one row of calCount elements (the whole
// src tensor without calCount).
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT> &dstTensor, const LocalTensor<int32_t> &srcTensor,
                          const LocalTensor<scaleT> &deqScale, const LocalTensor<uint8_t> &tmp, const uint32_t calCount, TWIN_LOC) {
    const uint32_t n = (uint32_t)((calCount * 4ull + 31) / 32 * 8);
    AscendDequant<dstT, scaleT, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(dstTensor, srcTensor, deqScale, tmp,
                                                                    DequantParams{1, n, calCount}, TWIN_LOC_ARGS);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT> &dstTensor, const LocalTensor<int32_t> &srcTensor,
                          const LocalTensor<scaleT> &deqScale, const uint32_t calCount, TWIN_LOC) {
    LocalTensor<uint8_t> none;
    AscendDequant<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, none, calCount, TWIN_LOC_ARGS);
}

// ---- Scalar GM atomics (asc-devkit docs/zh/api/SIMD-API/基础API/原子操作/AtomicAdd.md, AtomicMax.md,
// AtomicMin.md, AtomicExch.md, AtomicCas.md): read the old value at address, write the new one, return the
// old one, as one indivisible step. Add / Max / Min: int32_t, uint32_t, float, int64_t, uint64_t; Exch and
// Cas: uint32_t, uint64_t. Cas writes value2 only when the old value equals value1.
} // namespace AscendC
namespace twin {
template <class T, class F> inline T scalar_atomic(const char *api, T *address, F next, TWIN_LOC_DECL) {
    const uint64_t off = gm_check(address, sizeof(T), true, api, TWIN_LOC_ARGS);
    tr_scalar(api, twin_line, (int64_t)off);
    using Bits = typename std::conditional<sizeof(T) == 8, uint64_t, uint32_t>::type;
    Bits *p = reinterpret_cast<Bits *>(address);
    Bits old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    for (;;) {
        T o; __builtin_memcpy(&o, &old, sizeof(T));
        T n = next(o);
        Bits nb; __builtin_memcpy(&nb, &n, sizeof(T));
        if (__atomic_compare_exchange_n(p, &old, nb, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return o;
    }
}
template <class T> struct atomic_arith : std::integral_constant<bool,
    std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value || std::is_same<T, float>::value ||
    std::is_same<T, int64_t>::value || std::is_same<T, uint64_t>::value> {};
} // namespace twin
namespace AscendC {
template <class T> inline T AtomicAdd(__gm__ T *address, T value, TWIN_LOC) {
    static_assert(twin::atomic_arith<T>::value, "AtomicAdd: int32_t, uint32_t, float, int64_t or uint64_t");
    return twin::scalar_atomic("AtomicAdd", address, [value](T o) { return (T)(o + value); }, TWIN_LOC_ARGS);
}
template <class T> inline T AtomicMax(__gm__ T *address, T value, TWIN_LOC) {
    static_assert(twin::atomic_arith<T>::value, "AtomicMax: int32_t, uint32_t, float, int64_t or uint64_t");
    return twin::scalar_atomic("AtomicMax", address, [value](T o) { return o < value ? value : o; }, TWIN_LOC_ARGS);
}
template <class T> inline T AtomicMin(__gm__ T *address, T value, TWIN_LOC) {
    static_assert(twin::atomic_arith<T>::value, "AtomicMin: int32_t, uint32_t, float, int64_t or uint64_t");
    return twin::scalar_atomic("AtomicMin", address, [value](T o) { return value < o ? value : o; }, TWIN_LOC_ARGS);
}
template <class T> inline T AtomicExch(__gm__ T *address, T value, TWIN_LOC) {
    static_assert(std::is_same<T, uint32_t>::value || std::is_same<T, uint64_t>::value, "AtomicExch: uint32_t or uint64_t");
    return twin::scalar_atomic("AtomicExch", address, [value](T) { return value; }, TWIN_LOC_ARGS);
}
template <class T> inline T AtomicCas(__gm__ T *address, T value1, T value2, TWIN_LOC) {
    static_assert(std::is_same<T, uint32_t>::value || std::is_same<T, uint64_t>::value, "AtomicCas: uint32_t or uint64_t");
    return twin::scalar_atomic("AtomicCas", address, [value1, value2](T o) { return o == value1 ? value2 : o; },
                               TWIN_LOC_ARGS);
}

// ---- DeepNorm (asc-devkit docs/zh/api/SIMD-API/高阶API/归一化操作/DeepNorm.md): DeepNorm(x) =
// LayerNorm(alpha * x + gx) over the last axis H of a [B, S, H] input, with gamma and beta of shape [H]:
// per row, x1 = alpha * x + gx, mean = sum(x1) / originalH, var = sum((x1 - mean)^2) / originalH, and
// dst = gamma * (x1 - mean) / sqrt(var + epsilon) + beta, computed in float. meanLocal and the third output
// take mean and var per row ([B, S]). The page calls the third output rstdLocal; its sample
// (examples/01_simd_cpp_api/04_advanced_api/02_normalization/deepnorm) checks it against the variance, and
// the twin follows the sample. Columns past originalHLength (32-byte padding) take part in dst only.
template <class T, bool isReuseSrc = false, bool isBasicBlock = false>
inline void DeepNorm(const LocalTensor<T> &dstLocal, const LocalTensor<T> &meanLocal, const LocalTensor<T> &rstdLocal,
                     const LocalTensor<T> &srcLocal, const LocalTensor<T> &gxLocal, const LocalTensor<T> &betaLocal,
                     const LocalTensor<T> &gammaLocal, const LocalTensor<uint8_t> &, const T alpha, const T epsilon,
                     const DeepNormTiling &tiling, TWIN_LOC) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "DeepNorm: half or float");
    const char *api = "DeepNorm";
    const uint64_t rows = (uint64_t)tiling.bLength * tiling.sLength, h = tiling.hLength;
    const uint64_t oh = tiling.originalHLength == 0 ? h : tiling.originalHLength;
    if (h == 0 || oh > h)
        twin::fault(twin_file, twin_line, "%s: tiling hLength %llu / originalHLength %llu: need 0 < originalH <= H "
                    "(fill the tiling with GetDeepNormTilingInfo)", api, (unsigned long long)h, (unsigned long long)oh);
    if (!isReuseSrc)
        twin::no_overlap(api, "dstLocal and srcLocal", dstLocal.addr_, rows * h * sizeof(T), srcLocal.addr_,
                         rows * h * sizeof(T), TWIN_LOC_ARGS);
    uint8_t *pd = twin::vspan(dstLocal, rows * h, api, TWIN_LOC_ARGS);
    uint8_t *pm = twin::vspan(meanLocal, rows, api, TWIN_LOC_ARGS);
    uint8_t *pv = twin::vspan(rstdLocal, rows, api, TWIN_LOC_ARGS);
    const uint8_t *px = twin::vspan(srcLocal, rows * h, api, TWIN_LOC_ARGS);
    const uint8_t *pg = twin::vspan(gxLocal, rows * h, api, TWIN_LOC_ARGS);
    const uint8_t *pb = twin::vspan(betaLocal, h, api, TWIN_LOC_ARGS);
    const uint8_t *pw = twin::vspan(gammaLocal, h, api, TWIN_LOC_ARGS);
    const float a = (float)alpha, eps = (float)epsilon;
    float *x1 = new float[h];
    for (uint64_t r = 0; r < rows; r++) {
        float sum = 0;
        for (uint64_t j = 0; j < h; j++) {
            const uint64_t e = (r * h + j) * sizeof(T);
            x1[j] = a * (float)twin::ld<T>(px + e) + (float)twin::ld<T>(pg + e);
            if (j < oh) sum += x1[j];
        }
        const float mean = sum / (float)oh;
        float sq = 0;
        for (uint64_t j = 0; j < oh; j++) sq += (x1[j] - mean) * (x1[j] - mean);
        const float var = sq / (float)oh, inv = 1.0f / twin::m_sqrt(var + eps);
        for (uint64_t j = 0; j < h; j++) {
            const float g = (float)twin::ld<T>(pw + j * sizeof(T)), b = (float)twin::ld<T>(pb + j * sizeof(T));
            twin::st<T>(pd + (r * h + j) * sizeof(T), (T)(g * ((x1[j] - mean) * inv) + b));
        }
        twin::st<T>(pm + r * sizeof(T), (T)mean);
        twin::st<T>(pv + r * sizeof(T), (T)var);
    }
    delete[] x1;
    // Recorded as eight vector passes over the input (scale, add, sum, subtract, square, sum, scale, shift).
    twin::tr_vec(api, sizeof(T), rows * h * 8, twin::vec_rep(rows * h * 8, sizeof(T)), twin_line);
}
template <class T, bool isReuseSrc = false, bool isBasicBlock = false>
inline void DeepNorm(const LocalTensor<T> &dstLocal, const LocalTensor<T> &meanLocal, const LocalTensor<T> &rstdLocal,
                     const LocalTensor<T> &srcLocal, const LocalTensor<T> &gxLocal, const LocalTensor<T> &betaLocal,
                     const LocalTensor<T> &gammaLocal, const T alpha, const T epsilon, const DeepNormTiling &tiling,
                     TWIN_LOC) {
    LocalTensor<uint8_t> none;
    DeepNorm<T, isReuseSrc, isBasicBlock>(dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal, betaLocal, gammaLocal, none,
                                          alpha, epsilon, tiling, TWIN_LOC_ARGS);
}

// ---- SoftMax (asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/SoftMax接口/SoftMax.md), ND format: src seen
// as [m, k] (k 32-byte aligned); per row max = max(src), e = exp(src - max), sum = sum(e), dst = e / sum,
// computed in float. sumTensor / maxTensor hold one 32-byte block per row, every element the row's value.
// The shape is softmaxShapeInfo's {srcM, srcK, oriSrcM, oriSrcK}, or the tiling's srcM / srcK when it is
// left empty; with 0 < oriSrcK < srcK the max and sum take the first oriSrcK columns and the padding
// columns of dst get exp(x - max) / sum too (the page: the padding takes part in part of the computation
// and its dst positions are overwritten). NZ format is not modelled (a kernel fault).
struct SoftMaxShapeInfo {
    uint32_t srcM;
    uint32_t srcK;
    uint32_t oriSrcM;
    uint32_t oriSrcK;
};
enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };
struct SoftmaxConfig {
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
    SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
inline constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};
} // namespace AscendC
namespace twin {
// The rows a SoftMax-family call works on: m rows of k elements from softmaxShapeInfo, or from the
// tiling when the shape info is empty; kv of each row are real (oriSrcK), the rest padding.
struct SoftmaxRows {
    uint64_t m, k, kv;
};
template <class T>
inline SoftmaxRows softmax_rows(const char *api, bool nz, const SoftMaxTiling &tiling, const AscendC::SoftMaxShapeInfo &info,
                                TWIN_LOC_DECL) {
    if (nz) fault(twin_file, twin_line, "%s: the NZ data format (isDataFormatNZ) is not modelled by the twin", api);
    const bool fromTiling = info.srcM == 0 && info.srcK == 0;
    const uint64_t m = fromTiling ? tiling.srcM : info.srcM, k = fromTiling ? tiling.srcK : info.srcK;
    const uint64_t kv = (!fromTiling && info.oriSrcK > 0 && info.oriSrcK < k) ? info.oriSrcK : k;
    if (k == 0 && m > 0)
        fault(twin_file, twin_line, "%s: the row length srcK is 0 (neither softmaxShapeInfo nor the tiling gives it)", api);
    if (k * sizeof(T) % 32 != 0)
        fault(twin_file, twin_line, "%s: srcK %llu: a row must be a multiple of 32 bytes", api, (unsigned long long)k);
    return SoftmaxRows{m, k, kv};
}

// S: the element type of sum / max (T, or float beside half data); with_stats false: no sum / max outputs.
template <class T, class S, bool nz>
inline void softmax(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<S> *sum, const AscendC::LocalTensor<S> *max,
                    const AscendC::LocalTensor<T> &src, const SoftMaxTiling &tiling, const AscendC::SoftMaxShapeInfo &info,
                    TWIN_LOC_DECL) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "SoftMax: half or float");
    const char *api = "SoftMax";
    const SoftmaxRows rows = softmax_rows<T>(api, nz, tiling, info, TWIN_LOC_ARGS);
    const uint64_t m = rows.m, k = rows.k, kv = rows.kv;
    const uint64_t sb = 32 / sizeof(S);
    uint8_t *pd = vspan(dst, m * k, api, TWIN_LOC_ARGS);
    const uint8_t *ps = vspan(src, m * k, api, TWIN_LOC_ARGS);
    uint8_t *psum = sum ? vspan(*sum, m * sb, api, TWIN_LOC_ARGS) : nullptr;
    uint8_t *pmax = max ? vspan(*max, m * sb, api, TWIN_LOC_ARGS) : nullptr;
    float *row = new float[k ? k : 1];
    for (uint64_t r = 0; r < m; r++) {
        for (uint64_t j = 0; j < k; j++) row[j] = (float)ld<T>(ps + (r * k + j) * sizeof(T));
        float mx = row[0];
        for (uint64_t j = 1; j < kv; j++) mx = row[j] > mx ? row[j] : mx;
        float sm = 0;
        for (uint64_t j = 0; j < k; j++) {
            row[j] = m_exp(row[j] - mx);
            if (j < kv) sm += row[j];
        }
        for (uint64_t j = 0; j < k; j++) st<T>(pd + (r * k + j) * sizeof(T), (T)(row[j] / sm));
        for (uint64_t j = 0; j < sb; j++) {
            if (psum) st<S>(psum + (r * sb + j) * sizeof(S), (S)sm);
            if (pmax) st<S>(pmax + (r * sb + j) * sizeof(S), (S)mx);
        }
    }
    delete[] row;
    // Recorded as the page's seven vector steps over the input (reducemax, broadcast, sub, exp, reducesum,
    // broadcast, div).
    tr_vec(api, sizeof(T), m * k * 7, vec_rep(m * k * 7, sizeof(T)), twin_line);
}
} // namespace twin
namespace AscendC {
template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T> &dstTensor, const LocalTensor<T> &sumTensor, const LocalTensor<T> &maxTensor,
                    const LocalTensor<T> &srcTensor, const SoftMaxTiling &tiling, const SoftMaxShapeInfo &softmaxShapeInfo = {},
                    TWIN_LOC) {
    twin::softmax<T, T, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half> &dstTensor, const LocalTensor<float> &sumTensor, const LocalTensor<float> &maxTensor,
                    const LocalTensor<half> &srcTensor, const SoftMaxTiling &tiling, const SoftMaxShapeInfo &softmaxShapeInfo = {},
                    TWIN_LOC) {
    twin::softmax<half, float, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo,
                                               TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, const SoftMaxTiling &tiling,
                    const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    twin::softmax<T, T, false>(dstTensor, nullptr, nullptr, srcTensor, tiling, softmaxShapeInfo, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T> &dstTensor, const LocalTensor<T> &sumTensor, const LocalTensor<T> &maxTensor,
                    const LocalTensor<T> &srcTensor, const LocalTensor<uint8_t> &, const SoftMaxTiling &tiling,
                    const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    twin::softmax<T, T, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half> &dstTensor, const LocalTensor<float> &sumTensor, const LocalTensor<float> &maxTensor,
                    const LocalTensor<half> &srcTensor, const LocalTensor<uint8_t> &, const SoftMaxTiling &tiling,
                    const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    twin::softmax<half, float, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo,
                                               TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, const LocalTensor<uint8_t> &,
                    const SoftMaxTiling &tiling, const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    twin::softmax<T, T, false>(dstTensor, nullptr, nullptr, srcTensor, tiling, softmaxShapeInfo, TWIN_LOC_ARGS);
}

// ---- SoftmaxGrad (asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/SoftMax接口/SoftmaxGrad.md), ND format, the
// tensors seen as [m, k] as for SoftMax above (the same shape rules). Per row, in float, as the page's Python
// states it: s = sum(grad * src); isFront: dst holds s in one 32-byte block a row (the page: dst's last axis is
// then 32 bytes); otherwise dst = (grad - s) * src. With oriSrcK < srcK the sum takes the first oriSrcK columns
// and every column of dst is computed (the padding "takes part in part of the computation", as for SoftMax).
// dst may reuse src or grad: every input is read before dst is written. Traced as the page's steps: mul and
// the row sum over m * k, the broadcast of the sums into 32-byte blocks, and without isFront the broadcast
// back to [m, k], sub and mul. NZ format is not modelled (a kernel fault).
} // namespace AscendC
namespace twin {
template <class T, bool nz>
inline void softmax_grad(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &grad,
                         const AscendC::LocalTensor<T> &src, const SoftMaxTiling &tiling, bool isFront,
                         const AscendC::SoftMaxShapeInfo &info, TWIN_LOC_DECL) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "SoftmaxGrad: half or float");
    const char *api = "SoftmaxGrad";
    const SoftmaxRows rows = softmax_rows<T>(api, nz, tiling, info, TWIN_LOC_ARGS);
    const uint64_t m = rows.m, k = rows.k, kv = rows.kv, sb = 32 / sizeof(T);
    const uint8_t *pg = vspan(grad, m * k, api, TWIN_LOC_ARGS);
    const uint8_t *ps = vspan(src, m * k, api, TWIN_LOC_ARGS);
    std::vector<float> g(m * k), x(m * k);
    for (uint64_t i = 0; i < m * k; i++) {
        g[i] = (float)ld<T>(pg + i * sizeof(T));
        x[i] = (float)ld<T>(ps + i * sizeof(T));
    }
    uint8_t *pd = vspan(dst, m * (isFront ? sb : k), api, TWIN_LOC_ARGS);
    for (uint64_t r = 0; r < m; r++) {
        const float *gr = g.data() + r * k, *xr = x.data() + r * k;
        float sm = 0;
        for (uint64_t j = 0; j < kv; j++) sm += gr[j] * xr[j];
        if (isFront) {
            for (uint64_t j = 0; j < sb; j++) st<T>(pd + (r * sb + j) * sizeof(T), (T)sm);
        } else {
            for (uint64_t j = 0; j < k; j++) st<T>(pd + (r * k + j) * sizeof(T), (T)((gr[j] - sm) * xr[j]));
        }
    }
    const unsigned dt = sizeof(T);
    tr_vec("Mul", dt, m * k, vec_rep(m * k, dt), twin_line);
    tr_vec("WholeReduceSum", dt, m * k, vec_rep(m * k, dt), twin_line);
    tr_vec("Brcb", dt, m * sb, vec_rep(m * sb, dt), twin_line);
    if (!isFront)
        for (const char *step : {"Copy", "Sub", "Mul"}) tr_vec(step, dt, m * k, vec_rep(m * k, dt), twin_line);
}
} // namespace twin
namespace AscendC {
template <class T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T> &dstTensor, const LocalTensor<T> &gradTensor, const LocalTensor<T> &srcTensor,
                        const SoftMaxTiling &tiling, bool isFront = false, const SoftMaxShapeInfo &softmaxShapeInfo = {},
                        TWIN_LOC) {
    twin::softmax_grad<T, isDataFormatNZ>(dstTensor, gradTensor, srcTensor, tiling, isFront, softmaxShapeInfo, TWIN_LOC_ARGS);
}
template <class T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T> &dstTensor, const LocalTensor<T> &gradTensor, const LocalTensor<T> &srcTensor,
                        const LocalTensor<uint8_t> &sharedTmpBuffer, const SoftMaxTiling &tiling, bool isFront = false,
                        const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    (void)sharedTmpBuffer;
    twin::softmax_grad<T, isDataFormatNZ>(dstTensor, gradTensor, srcTensor, tiling, isFront, softmaxShapeInfo, TWIN_LOC_ARGS);
}

// ---- SoftmaxFlashV2 (asc-devkit docs/zh/api/SIMD-API/高阶API/激活函数/SoftMax接口/SoftmaxFlashV2.md, the
// FlashAttention-2 step), ND format, src seen as [m, k] as for SoftMax above (the same shape rules, and the
// same reading of oriSrcK < srcK: the row max and sum take the first oriSrcK columns, every column of dst
// is computed). Per row, in float, as the page's Python states it:
//   isUpdate false: max = max(src), dst = exp(src - max), expSum = sum(dst); expMax is not written.
//   isUpdate true:  max = max(inMax, max(src)), dst = exp(src - max), expMax = exp(inMax - max),
//                   expSum = expMax * inExpSum + sum(dst); outReduceMax (that overload) = max(src).
// The per-row tensors hold one 32-byte block a row (every element the row's value), or one element a row
// when config.mode is SOFTMAX_OUTPUT_WITHOUT_BRC; inMax / inExpSum are read the same way (the first
// element of a row's block). The page lets dst reuse src, max reuse inMax and expSum reuse inExpSum: the
// twin reads every input before it writes. Half data may keep float sums and maxes (the mixed overload;
// expMax then is half). The outReduceMax overloads write nothing in SOFTMAX_NORMAL mode (the page: "接口功能不
// 执行"). Traced as the page's steps (row max, subtract, exp, row sum over m * k; on update the max, exp, mul
// and add over the row blocks). NZ format is not modelled (a kernel fault).
} // namespace AscendC
namespace twin {
template <class T, class S, class E, bool update, bool nz>
inline void softmax_flash_v2(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<S> *reduceMax,
                             const AscendC::LocalTensor<S> &expSum, const AscendC::LocalTensor<S> &max,
                             const AscendC::LocalTensor<T> &src, const AscendC::LocalTensor<E> &expMax,
                             const AscendC::LocalTensor<S> &inExpSum, const AscendC::LocalTensor<S> &inMax,
                             const SoftMaxTiling &tiling, const AscendC::SoftMaxShapeInfo &info, bool brc, TWIN_LOC_DECL) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "SoftmaxFlashV2: half or float");
    const char *api = "SoftmaxFlashV2";
    const SoftmaxRows rows = softmax_rows<T>(api, nz, tiling, info, TWIN_LOC_ARGS);
    const uint64_t m = rows.m, k = rows.k, kv = rows.kv;
    const uint64_t ws = brc ? 32 / sizeof(S) : 1, we = brc ? 32 / sizeof(E) : 1;
    const uint8_t *ps = vspan(src, m * k, api, TWIN_LOC_ARGS);
    const uint8_t *pim = update ? vspan(inMax, m * ws, api, TWIN_LOC_ARGS) : nullptr;
    const uint8_t *pis = update ? vspan(inExpSum, m * ws, api, TWIN_LOC_ARGS) : nullptr;
    std::vector<float> x(m * k), inm(m), ins(m);
    for (uint64_t i = 0; i < m * k; i++) x[i] = (float)ld<T>(ps + i * sizeof(T));
    for (uint64_t r = 0; update && r < m; r++) {
        inm[r] = (float)ld<S>(pim + r * ws * sizeof(S));
        ins[r] = (float)ld<S>(pis + r * ws * sizeof(S));
    }
    uint8_t *pd = vspan(dst, m * k, api, TWIN_LOC_ARGS);
    uint8_t *psum = vspan(expSum, m * ws, api, TWIN_LOC_ARGS);
    uint8_t *pmax = vspan(max, m * ws, api, TWIN_LOC_ARGS);
    uint8_t *pem = update ? vspan(expMax, m * we, api, TWIN_LOC_ARGS) : nullptr;
    uint8_t *prm = update && reduceMax ? vspan(*reduceMax, m * ws, api, TWIN_LOC_ARGS) : nullptr;
    for (uint64_t r = 0; r < m; r++) {
        float *row = x.data() + r * k;
        float rmax = row[0];
        for (uint64_t j = 1; j < kv; j++) rmax = row[j] > rmax ? row[j] : rmax;
        const float mx = update ? (inm[r] > rmax ? inm[r] : rmax) : rmax;
        float sm = 0;
        for (uint64_t j = 0; j < k; j++) {
            row[j] = m_exp(row[j] - mx);
            if (j < kv) sm += row[j];
        }
        float em = 0;
        if (update) {
            em = m_exp(inm[r] - mx);
            sm = em * ins[r] + sm;
        }
        for (uint64_t j = 0; j < k; j++) st<T>(pd + (r * k + j) * sizeof(T), (T)row[j]);
        for (uint64_t j = 0; j < ws; j++) {
            st<S>(psum + (r * ws + j) * sizeof(S), (S)sm);
            st<S>(pmax + (r * ws + j) * sizeof(S), (S)mx);
            if (prm) st<S>(prm + (r * ws + j) * sizeof(S), (S)rmax);
        }
        for (uint64_t j = 0; pem && j < we; j++) st<E>(pem + (r * we + j) * sizeof(E), (E)em);
    }
    const unsigned dt = sizeof(T);
    for (const char *step : {"WholeReduceMax", "Sub", "Exp", "WholeReduceSum"})
        tr_vec(step, dt, m * k, vec_rep(m * k, dt), twin_line);
    if (update)
        for (const char *step : {"Max", "Sub", "Exp", "Mul", "Add"})
            tr_vec(step, sizeof(S), m * ws, vec_rep(m * ws, sizeof(S)), twin_line);
}
} // namespace twin
namespace AscendC {
#define TWIN_FLASHV2_TPL                                                                                              \
    template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,              \
              bool isDataFormatNZ = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
#define TWIN_FLASHV2_BRC (config.mode != SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC)
// Same types, no outReduceMax; the API's own scratch, or sharedTmpBuffer.
TWIN_FLASHV2_TPL
inline void SoftmaxFlashV2(const LocalTensor<T> &dstTensor, const LocalTensor<T> &expSumTensor, const LocalTensor<T> &maxTensor,
                           const LocalTensor<T> &srcTensor, const LocalTensor<T> &expMaxTensor,
                           const LocalTensor<T> &inExpSumTensor, const LocalTensor<T> &inMaxTensor, const SoftMaxTiling &tiling,
                           const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    twin::softmax_flash_v2<T, T, T, isUpdate, isDataFormatNZ>(dstTensor, nullptr, expSumTensor, maxTensor, srcTensor,
        expMaxTensor, inExpSumTensor, inMaxTensor, tiling, softmaxShapeInfo, TWIN_FLASHV2_BRC, TWIN_LOC_ARGS);
}
TWIN_FLASHV2_TPL
inline void SoftmaxFlashV2(const LocalTensor<T> &dstTensor, const LocalTensor<T> &expSumTensor, const LocalTensor<T> &maxTensor,
                           const LocalTensor<T> &srcTensor, const LocalTensor<T> &expMaxTensor,
                           const LocalTensor<T> &inExpSumTensor, const LocalTensor<T> &inMaxTensor,
                           const LocalTensor<uint8_t> &, const SoftMaxTiling &tiling,
                           const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    twin::softmax_flash_v2<T, T, T, isUpdate, isDataFormatNZ>(dstTensor, nullptr, expSumTensor, maxTensor, srcTensor,
        expMaxTensor, inExpSumTensor, inMaxTensor, tiling, softmaxShapeInfo, TWIN_FLASHV2_BRC, TWIN_LOC_ARGS);
}
// Half data with float sums and maxes (expMax half).
TWIN_FLASHV2_TPL
inline void SoftmaxFlashV2(const LocalTensor<half> &dstTensor, const LocalTensor<float> &expSumTensor,
                           const LocalTensor<float> &maxTensor, const LocalTensor<half> &srcTensor,
                           const LocalTensor<half> &expMaxTensor, const LocalTensor<float> &inExpSumTensor,
                           const LocalTensor<float> &inMaxTensor, const SoftMaxTiling &tiling,
                           const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    twin::softmax_flash_v2<half, float, half, isUpdate, isDataFormatNZ>(dstTensor, nullptr, expSumTensor, maxTensor,
        srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, tiling, softmaxShapeInfo, TWIN_FLASHV2_BRC, TWIN_LOC_ARGS);
}
TWIN_FLASHV2_TPL
inline void SoftmaxFlashV2(const LocalTensor<half> &dstTensor, const LocalTensor<float> &expSumTensor,
                           const LocalTensor<float> &maxTensor, const LocalTensor<half> &srcTensor,
                           const LocalTensor<half> &expMaxTensor, const LocalTensor<float> &inExpSumTensor,
                           const LocalTensor<float> &inMaxTensor, const LocalTensor<uint8_t> &, const SoftMaxTiling &tiling,
                           const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    twin::softmax_flash_v2<half, float, half, isUpdate, isDataFormatNZ>(dstTensor, nullptr, expSumTensor, maxTensor,
        srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor, tiling, softmaxShapeInfo, TWIN_FLASHV2_BRC, TWIN_LOC_ARGS);
}
// Same types with outReduceMax: only in SOFTMAX_OUTPUT_WITHOUT_BRC mode; nothing is written otherwise.
TWIN_FLASHV2_TPL
inline void SoftmaxFlashV2(const LocalTensor<T> &dstTensor, const LocalTensor<T> &outReduceMax, const LocalTensor<T> &outExpSum,
                           const LocalTensor<T> &outMax, const LocalTensor<T> &srcTensor, const LocalTensor<T> &outExpMax,
                           const LocalTensor<T> &inExpSum, const LocalTensor<T> &inMax, const SoftMaxTiling &tiling,
                           const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    if (TWIN_FLASHV2_BRC) return;
    twin::softmax_flash_v2<T, T, T, isUpdate, false>(dstTensor, &outReduceMax, outExpSum, outMax, srcTensor, outExpMax,
        inExpSum, inMax, tiling, softmaxShapeInfo, false, TWIN_LOC_ARGS);
}
TWIN_FLASHV2_TPL
inline void SoftmaxFlashV2(const LocalTensor<T> &dstTensor, const LocalTensor<T> &outReduceMax, const LocalTensor<T> &expSumTensor,
                           const LocalTensor<T> &maxTensor, const LocalTensor<T> &srcTensor, const LocalTensor<T> &expMaxTensor,
                           const LocalTensor<T> &inExpSumTensor, const LocalTensor<T> &inMaxTensor,
                           const LocalTensor<uint8_t> &, const SoftMaxTiling &tiling,
                           const SoftMaxShapeInfo &softmaxShapeInfo = {}, TWIN_LOC) {
    if (TWIN_FLASHV2_BRC) return;
    twin::softmax_flash_v2<T, T, T, isUpdate, false>(dstTensor, &outReduceMax, expSumTensor, maxTensor, srcTensor,
        expMaxTensor, inExpSumTensor, inMaxTensor, tiling, softmaxShapeInfo, false, TWIN_LOC_ARGS);
}
#undef TWIN_FLASHV2_TPL
#undef TWIN_FLASHV2_BRC
// The kernel-side tiling (the same page): the host's SoftMaxFlashV2TilingFunc for the shape [srcM, srcK].
inline constexpr SoftMaxTiling SoftMaxFlashV2TilingFunc(const SoftMaxShapeInfo &shapeInfo, const uint32_t dataTypeSize1,
                                                        const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                                        const bool isUpdate = false, const bool isBasicBlock = false,
                                                        const bool isDataFormatNZ = false, const bool isFlashOutputBrc = false) {
    (void)dataTypeSize1; (void)localWorkSpaceSize; (void)isUpdate; (void)isBasicBlock; (void)isDataFormatNZ;
    return twin_softmax_tiling(shapeInfo.srcM, shapeInfo.srcK, isFlashOutputBrc ? 1 : (dataTypeSize2 == 0 ? 8 : 32 / dataTypeSize2));
}

// ---- Select with a byte mask (asc-devkit docs/zh/api/SIMD-API/高阶API/数据过滤/Select-95.md; ops-nn kernels
// call it by its older name SelectWithBytesMask): src [firstAxis, srcLastAxis], mask [firstAxis,
// maskLastAxis] (maskLastAxis >= srcLastAxis, the rest of a mask row ignored); where the mask element is 0
// the tensor operand is taken, else the scalar (tensor first), or the other way round (scalar first). dst
// may be the source. T half or float; the mask bool or an integer type.
struct SelectWithBytesMaskShapeInfo {
    SelectWithBytesMaskShapeInfo() {}
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};
} // namespace AscendC
namespace twin {
template <class T> struct same_t { using type = T; };
template <class T, class U>
inline void select_bytes(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, T scalar, bool scalarWhenSet,
                         const AscendC::LocalTensor<U> &mask, const AscendC::SelectWithBytesMaskShapeInfo &info,
                         TWIN_LOC_DECL) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "Select (bytes mask): half or float");
    const char *api = "SelectWithBytesMask";
    const uint64_t m = info.firstAxis, k = info.srcLastAxis, km = info.maskLastAxis;
    if (km < k)
        fault(twin_file, twin_line, "%s: maskLastAxis %llu is shorter than srcLastAxis %llu", api, (unsigned long long)km,
              (unsigned long long)k);
    uint8_t *pd = vspan(dst, m * k, api, TWIN_LOC_ARGS);
    const uint8_t *ps = vspan(src, m * k, api, TWIN_LOC_ARGS);
    const uint8_t *pm = vspan(mask, m * km, api, TWIN_LOC_ARGS);
    for (uint64_t r = 0; r < m; r++)
        for (uint64_t j = 0; j < k; j++) {
            const bool set = ld<U>(pm + (r * km + j) * sizeof(U)) != (U)0;
            st<T>(pd + (r * k + j) * sizeof(T), set == scalarWhenSet ? scalar : ld<T>(ps + (r * k + j) * sizeof(T)));
        }
    tr_vec(api, sizeof(T), m * k, vec_rep(m * k, sizeof(T)), twin_line);
}
} // namespace twin
namespace AscendC {
template <class T, class U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, typename twin::same_t<T>::type src1,
                                const LocalTensor<U> &mask, const LocalTensor<uint8_t> &,
                                const SelectWithBytesMaskShapeInfo &info, TWIN_LOC) {
    twin::select_bytes<T, U>(dst, src0, src1, true, mask, info, TWIN_LOC_ARGS);
}
template <class T, class U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T> &dst, typename twin::same_t<T>::type src0, const LocalTensor<T> &src1,
                                const LocalTensor<U> &mask, const LocalTensor<uint8_t> &,
                                const SelectWithBytesMaskShapeInfo &info, TWIN_LOC) {
    twin::select_bytes<T, U>(dst, src1, src0, false, mask, info, TWIN_LOC_ARGS);
}
template <class T, class U, bool isReuseMask = true>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<T> &src0, typename twin::same_t<T>::type src1,
                   const LocalTensor<U> &mask, const LocalTensor<uint8_t> &, const SelectWithBytesMaskShapeInfo &info, TWIN_LOC) {
    twin::select_bytes<T, U>(dst, src0, src1, true, mask, info, TWIN_LOC_ARGS);
}
template <class T, class U, bool isReuseMask = true>
inline void Select(const LocalTensor<T> &dst, typename twin::same_t<T>::type src0, const LocalTensor<T> &src1,
                   const LocalTensor<U> &mask, const LocalTensor<uint8_t> &, const SelectWithBytesMaskShapeInfo &info, TWIN_LOC) {
    twin::select_bytes<T, U>(dst, src1, src0, false, mask, info, TWIN_LOC_ARGS);
}

// ---- CumSum (asc-devkit docs/zh/api/SIMD-API/高阶API/数学计算/CumSum接口/CumSum.md): a 2-D prefix sum of
// `info.outter` rows of `info.inner` elements (inner * sizeof(T) a multiple of 32 bytes). isLastAxis: each
// row summed along itself ([[0,1,2],[3,4,5]] -> [[0,1,3],[3,7,12]]), and with outputLastRow the last
// element of each row (outter of them) goes to lastRow; otherwise rows summed down the first axis
// ([[0,1,3]... -> [[0,1,2],[3,5,7]]) and lastRow takes the last row (inner elements). The page's samples
// give both lastRow forms. half or float; the page says the work converts precision, so sums run in float
// and each result rounds to T. Only the line-by-line algorithm (the Sklansky one is 950-only). Modelled as
// the line-by-line work: one vector add per row (first axis), or per column after a transpose each way
// (last axis), plus a cast each way for half.
enum class CumSumAlgorithm { CUMSUM_ALGORITHM_LINEBYLINE = 0, CUMSUM_ALGORITHM_SKLANSKY = 1 };
struct CumSumConfig {
    bool isLastAxis{true};
    bool isReuseSource{false};
    bool outputLastRow{false};
    CumSumAlgorithm algorithm{CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
};
constexpr CumSumConfig defaultCumSumConfig{};
struct CumSumInfo {
    uint32_t outter{0};
    uint32_t inner{0};
};
} // namespace AscendC
namespace twin {
template <class T, const AscendC::CumSumConfig &config>
inline void cumsum(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &lastRow,
                   const AscendC::LocalTensor<T> &src, const AscendC::CumSumInfo &info, TWIN_LOC_DECL) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "CumSum: half or float (CumSum.md)");
    const uint64_t rows = info.outter, cols = info.inner;
    if (rows == 0 || cols == 0 || (cols * sizeof(T)) % 32 != 0)
        fault(twin_file, twin_line,
              "CumSum: CumSumInfo {outter %u, inner %u}: both must be positive and inner * sizeof(T) a multiple of "
              "32 bytes (asc-devkit CumSum.md)",
              info.outter, info.inner);
    const uint64_t n = rows * cols;
    const uint8_t *ps = vspan(src, n, "CumSum", TWIN_LOC_ARGS);
    std::vector<float> acc(n);
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++) {
            const float x = (float)ld<T>(ps + (r * cols + c) * sizeof(T));
            const uint64_t prev = config.isLastAxis ? (c ? r * cols + c - 1 : n) : (r ? (r - 1) * cols + c : n);
            acc[r * cols + c] = (prev < n ? acc[prev] : 0.0f) + x;
        }
    uint8_t *pd = vspan(dst, n, "CumSum", TWIN_LOC_ARGS);
    for (uint64_t i = 0; i < n; i++) st<T>(pd + i * sizeof(T), (T)acc[i]);
    if (config.outputLastRow) {
        const uint64_t m = config.isLastAxis ? rows : cols;
        uint8_t *pl = vspan(lastRow, m, "CumSum", TWIN_LOC_ARGS);
        for (uint64_t i = 0; i < m; i++)
            st<T>(pl + i * sizeof(T), (T)acc[config.isLastAxis ? i * cols + cols - 1 : (rows - 1) * cols + i]);
    }
    tr_vec_ub(dst.addr_, src.addr_);
    if (std::is_same<T, half>::value) tr_vec("Cast", sizeof(float), n, vec_rep(n, sizeof(float)), twin_line);
    if (config.isLastAxis) {
        tr_vec("Transpose", sizeof(float), n, vec_rep(n, sizeof(float)), twin_line);
        tr_vec("CumSum", sizeof(float), n, cols * vec_rep(rows, sizeof(float)), twin_line);
        tr_vec("Transpose", sizeof(float), n, vec_rep(n, sizeof(float)), twin_line);
    } else {
        tr_vec("CumSum", sizeof(float), n, rows * vec_rep(cols, sizeof(float)), twin_line);
    }
    if (std::is_same<T, half>::value) tr_vec("Cast", sizeof(float), n, vec_rep(n, sizeof(float)), twin_line);
}
} // namespace twin
namespace AscendC {
template <typename T, const CumSumConfig &config = defaultCumSumConfig>
inline void CumSum(const LocalTensor<T> &dstTensor, const LocalTensor<T> &lastRowTensor, const LocalTensor<T> &srcTensor,
                   const LocalTensor<uint8_t> &, const CumSumInfo &cumSumInfo, TWIN_LOC) {
    twin::cumsum<T, config>(dstTensor, lastRowTensor, srcTensor, cumSumInfo, TWIN_LOC_ARGS);
}
template <typename T, const CumSumConfig &config = defaultCumSumConfig>
inline void CumSum(const LocalTensor<T> &dstTensor, const LocalTensor<T> &lastRowTensor, const LocalTensor<T> &srcTensor,
                   const CumSumInfo &cumSumInfo, TWIN_LOC) {
    twin::cumsum<T, config>(dstTensor, lastRowTensor, srcTensor, cumSumInfo, TWIN_LOC_ARGS);
}

} // namespace AscendC
