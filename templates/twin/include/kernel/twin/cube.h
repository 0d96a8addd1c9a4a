// twin: the cube unit's basic API: LoadData (2D: L1 or GM -> L0A / L0B, with per-fractal transpose),
// Mmad (L0A x L0B -> L0C, fp16 / bf16 / fp32 / int8 in, fp32 / int32 accumulation, bias from the bias
// table) and Fixpipe (L0C -> GM or L1: NZ2ND or NZ, the float -> half / bfloat16 casts, scalar
// dequantisation to half, ReLU), on the fractal layouts those pages define.
// Owns: the cube's arithmetic and data layouts, their checks, their trace records. Must not know: where
// the buffers are kept (mem.h), what anything costs (the Rust model), the high-level Matmul.
//
// Semantics, all from the asc-devkit docs at docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/:
//  - 矩阵计算的搬入/LoadData_2D.md: LoadData moves 512-byte fractals; repeat r reads source fractal
//    startIndex + r * srcStride (minus with addrMode 1) and writes destination fractal r * (1 + dstGap);
//    ifTranspose transposes each fractal and needs a 16-bit type; the L0 destination is 512-byte
//    aligned, an L1 source 32-byte aligned. From L1 it runs on MTE1, from GM on MTE2.
//  - Mmad计算/Mmad.md: C = A x B (+ C), A in L0A (Zz: 16 x C0 fractals in row-major order, each row-major),
//    B in L0B (Zn: C0 x 16 fractals in row-major order, each column-major), C in L0C (Nz: 16 x 16
//    fractals in column-major order, each row-major), C0 = 32 bytes / sizeof(input); invalid data in a
//    partly filled fractal is ignored; m, n or k 0 is a NOP; m = 1 reads A as ND (GEMV); cmatrixInitVal
//    true starts C at 0, false (with cmatrixSource false) accumulates into C; the bias overload starts C
//    at the bias row (BT); the deprecated isBias true accumulates; for float input, kDirectionAlign
//    aligns K to 16 instead of 8. dst 1024-, fm and filter 512-, bias 64-byte aligned.
//  - 矩阵计算的搬出/Fixpipe（L0C到GM数据搬运）.md and 矩阵搬出关键特性说明/随路量化.md: FixpipeParamsV220;
//    srcStride in rows of 16 elements (mSize rounded up to 16); NZ2ND (CFG_ROW_MAJOR) writes row m of
//    matrix i at dst[i * dstNdStride + m * dstStride], srcNdStride counts 16 x 16 fractals; NZ output
//    (CFG_NZ) puts column block j at j * dstStride * 32 bytes; F322F16 / F322BF16 cast with CAST_RINT;
//    DEQF16 multiplies int32 by the float in bits 0-31 of deqScalar, read with a 10-bit mantissa; reluEn
//    is NormReLU.
#pragma once
#include <vector>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include "half.h"
#include "tensor.h"
#include "copy.h"

namespace AscendC {

struct LoadData2DParams {
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;
    uint8_t sid = 0;
    uint16_t dstGap = 0;
    bool ifTranspose = false;
    uint8_t addrMode = 0;
    LoadData2DParams() = default;
    LoadData2DParams(uint16_t startIndexIn, uint8_t repeatTimesIn, uint16_t srcStrideIn, uint8_t sidIn, uint16_t dstGapIn,
                     bool ifTransposeIn, uint8_t addrModeIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), sid(sidIn), dstGap(dstGapIn),
          ifTranspose(ifTransposeIn), addrMode(addrModeIn) {}
};
// The older spelling LoadDataWithSparse.md and ops-math's add_lora use.
using LoadData2dParams = LoadData2DParams;
} // namespace AscendC
// The addrMode values by their CCE names (LoadData2DParams' addrMode: 0 counts the source fractal up, 1
// down), which ops-math's stft writes bare: `LoadData2dParams param = {0, n, 1, 0, 0, false, inc};`.
enum addr_cal_mode_t : uint8_t { inc = 0, dec = 1 };
namespace AscendC {

struct MmadParams {
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;
    bool cmatrixInitVal = true;
    bool disableGemv = false;
    MmadParams() = default;
    MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, bool isBiasIn, int32_t fmOffsetIn, bool enSsparseIn,
               bool enWinogradAIn, bool enWinogradBIn)
        : m(mIn), n(nIn), k(kIn), isBias(isBiasIn), fmOffset(fmOffsetIn), enSsparse(enSsparseIn),
          enWinogradA(enWinogradAIn), enWinogradB(enWinogradBIn) {}
    MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, uint8_t unitFlagIn, bool cmatrixSourceIn, bool cmatrixInitValIn)
        : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn), cmatrixInitVal(cmatrixInitValIn) {}
};

enum QuantMode_t { NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8 };
enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
    CO2Layout format;
    bool isToUB = false;
};
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};

struct FixpipeParamsV220 {
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint16_t srcStride = 0;
    uint32_t dstStride = 0;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;
    uint16_t dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
    FixpipeParamsV220() = default;
    FixpipeParamsV220(uint16_t nSizeIn, uint16_t mSizeIn, uint16_t srcStrideIn, uint32_t dstStrideIn, bool reluEnIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn) {}
    // The full order {nSize, mSize, srcStride, dstStride, reluEn, quantPre, deqScalar, ndNum, srcNdStride,
    // dstNdStride, unitFlag}: asc-devkit examples/01_simd_cpp_api/00_introduction/02_matrix/matmul_basic_api
    // (its comment names the fields of the brace list it passes).
    FixpipeParamsV220(uint16_t nSizeIn, uint16_t mSizeIn, uint16_t srcStrideIn, uint32_t dstStrideIn, bool reluEnIn,
                      QuantMode_t quantPreIn, uint64_t deqScalarIn, uint16_t ndNumIn, uint16_t srcNdStrideIn,
                      uint16_t dstNdStrideIn, uint8_t unitFlagIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), quantPre(quantPreIn),
          deqScalar(deqScalarIn), ndNum(ndNumIn), srcNdStride(srcNdStrideIn), dstNdStride(dstNdStrideIn), reluEn(reluEnIn),
          unitFlag(unitFlagIn) {}
};

// LoadDataWithTranspose's parameters, in the order of the page's table 3 (矩阵计算的搬入/LoadDataWithTranspose.md):
// startIndex and srcStride count square matrices (512 bytes for b16, 1024 for b8 and b32), dstGap and
// dstFracGap 512-byte fractals.
struct LoadData2dTransposeParams {
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;
    uint16_t dstGap = 0;
    uint16_t dstFracGap = 0;
    uint8_t addrMode = 0;
    LoadData2dTransposeParams() = default;
    LoadData2dTransposeParams(uint16_t startIndexIn, uint8_t repeatTimesIn, uint16_t srcStrideIn, uint16_t dstGapIn,
                              uint16_t dstFracGapIn, uint8_t addrModeIn = 0)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstFracGapIn), addrMode(addrModeIn) {}
};

// LoadData (2D V2) exists only on Ascend 950 (NPU arch 3510), whose L0A layout (Nz) is not the one the twin's
// Mmad models (Atlas A2/A3: Zz); the struct is here so code that names it in a 3510-only branch compiles.
// Order {mStartPosition, kStartPosition, mStep, kStep, srcStride, dstStride, ifTranspose, sid}: the
// matmul_basic_api example's comment (矩阵计算的搬入/LoadData_2D_V2.md, table 3, for the meanings).
struct LoadData2DParamsV2 {
    uint32_t mStartPosition = 0;
    uint32_t kStartPosition = 0;
    uint16_t mStep = 0;
    uint16_t kStep = 0;
    int32_t srcStride = 0;
    uint16_t dstStride = 0;
    bool ifTranspose = false;
    uint8_t sid = 0;
    LoadData2DParamsV2() = default;
    LoadData2DParamsV2(uint32_t mStartPositionIn, uint32_t kStartPositionIn, uint16_t mStepIn, uint16_t kStepIn,
                       int32_t srcStrideIn, uint16_t dstStrideIn, bool ifTransposeIn, uint8_t sidIn)
        : mStartPosition(mStartPositionIn), kStartPosition(kStartPositionIn), mStep(mStepIn), kStep(kStepIn),
          srcStride(srcStrideIn), dstStride(dstStrideIn), ifTranspose(ifTransposeIn), sid(sidIn) {}
};

// LoadData (3D, v2)'s parameters: 矩阵计算的搬入/LoadData_3D.md, table 4. Only a default constructor: the
// page gives no constructor order, so a brace list fails to compile instead of filling the wrong fields.
template <class T> struct LoadData3DParamsV2 {
    uint8_t padList[4] = {0, 0, 0, 0};
    uint16_t l1H = 0;
    uint16_t l1W = 0;
    uint16_t channelSize = 0;
    uint16_t kExtension = 0;
    uint16_t mExtension = 0;
    uint16_t kStartPt = 0;
    uint16_t mStartPt = 0;
    uint8_t strideW = 1;
    uint8_t strideH = 1;
    uint8_t filterW = 1;
    uint8_t filterH = 1;
    uint8_t dilationFilterW = 1;
    uint8_t dilationFilterH = 1;
    bool enTranspose = false;
    bool enSmallK = false;
    T padValue = T(0);
    bool filterSizeW = false;
    bool filterSizeH = false;
    bool fMatrixCtrl = false;
    LoadData3DParamsV2() {}
};

// SetFmatrix's mode (矩阵搬入辅助配置接口/SetFmatrix.md, table 1): which register LoadData 3D v2 takes
// the FeatureMap's l1H, l1W and padding from; the page supports only FMATRIX_LEFT.
enum class FmatrixMode : uint8_t { FMATRIX_LEFT = 0, FMATRIX_RIGHT = 1 };

// LoadData (3D, v2)'s packed parameters (矩阵计算的搬入/LoadData_3D.md, table 5): the FeatureMap's
// l1H, l1W and padList come from SetFmatrix; extConfig packs mStartPt << 48 | kStartPt << 32 |
// mExtension << 16 | kExtension, filterConfig dilationFilterH << 40 | dilationFilterW << 32 | filterH << 24
// | filterW << 16 | strideH << 8 | strideW (default 0x10101010101: every filter, stride and dilation 1).
struct LoadData3DParamsV2Pro {
    uint16_t channelSize = 0;
    bool enTranspose = false;
    bool enSmallK = false;
    bool filterSizeW = false;
    bool filterSizeH = false;
    bool fMatrixCtrl = false;
    uint64_t extConfig = 0;
    uint64_t filterConfig = 0x10101010101ULL;
    LoadData3DParamsV2Pro() {}
};

// Fill's parameters (矩阵搬入辅助配置接口/Fill.md, table 3; the order {repeatTimes, blockNum, dstGap,
// initValue} is the page's own call example and asc-devkit's 06_compatibility_guide/fill).
template <class T> struct InitConstValueParams {
    uint16_t repeatTimes = 0;
    uint16_t blockNum = 0;
    uint16_t dstGap = 0;
    T initValue = T(0);
    InitConstValueParams() = default;
    InitConstValueParams(uint16_t repeatTimesIn, uint16_t blockNumIn, uint16_t dstGapIn, T initValueIn)
        : repeatTimes(repeatTimesIn), blockNum(blockNumIn), dstGap(dstGapIn), initValue(initValueIn) {}
};

// DataCopy L0C -> GM's parameters (矩阵计算的搬出/DataCopy（L0C到GM数据搬运）.md, table 3). Only a default
// constructor, for the reason LoadData3DParamsV2 has one.
struct DataCopyCO12DstParams {
    uint8_t sid = 0;
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint32_t dstStride = 0;
    uint16_t srcStride = 0;
    uint8_t unitFlag = 0;
    uint8_t clipReluPre = 0;
    uint8_t eltWiseOp = 0;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint8_t reluPre = 0;
    bool channelSplit = false;
    bool nz2ndEn = false;
    DataCopyCO12DstParams() {}
};

} // namespace AscendC
// The fixpipe's quantisation modes are a type of the CANN compiler itself, outside any namespace:
// asc-devkit's fixpipe_l0c2gm example writes `QuantMode_t::QF322B8_PRE` with no `using namespace AscendC`.
using AscendC::QuantMode_t;

namespace twin {
using AscendC::LocalTensor;
using AscendC::GlobalTensor;

constexpr uint32_t FRACTAL_BYTES = 512;

// unitFlag of Mmad / Fixpipe: 0 off, 2 on (the L0C blocks stay held), 3 on (released after the
// instruction); 1 is no documented value (Mmad.md / Fixpipe pages, Mmad计算关键特性说明/UnitFlag.md).
// The twin runs instructions in order, so the flag changes no result; it is traced for the model.
inline uint64_t unit_flag(uint8_t v, const char *api, TWIN_LOC_DECL) {
    if (v == 1 || v > 3)
        fault(twin_file, twin_line, "%s: unitFlag %u is not a documented value (0 off, 2 or 3 on)", api, (unsigned)v);
    return v;
}

template <class T> inline void need_pos(const LocalTensor<T> &t, Hw want, const char *api, const char *what, TWIN_LOC_DECL) {
    if (hw_of(t.pos_) != want)
        fault(twin_file, twin_line, "%s: %s must be in %s (TPosition %s), not %s (TPosition %s)", api, what, hw_name(want),
              want == HW_L0A ? "A2" : want == HW_L0B ? "B2" : want == HW_L0C ? "CO1" : want == HW_BT ? "C2" : "A1/B1",
              hw_name(hw_of(t.pos_)), pos_name(t.pos_));
}
inline void need_align(uint64_t addr, uint64_t a, Hw h, const char *api, const char *what, TWIN_LOC_DECL) {
    if (addr % a != 0)
        fault(twin_file, twin_line, "%s: %s address %llu in %s is not %llu-byte aligned", api, what,
              (unsigned long long)addr, hw_name(h), (unsigned long long)a);
}

// ---- LoadData 2D ------------------------------------------------------------------------------------
template <class T>
void load2d(const LocalTensor<T> &dst, const uint8_t *src_l1, const GlobalTensor<T> *src_gm, uint32_t src_addr,
            const AscendC::LoadData2DParams &p, TWIN_LOC_DECL) {
    const char *api = "LoadData";
    Hw dh = hw_of(dst.pos_);
    if (dh != HW_L0A && dh != HW_L0B)
        fault(twin_file, twin_line, "LoadData: the destination must be L0A (TPosition A2) or L0B (B2), not %s (TPosition %s)",
              hw_name(dh), pos_name(dst.pos_));
    need_align(dst.addr_, FRACTAL_BYTES, dh, api, "destination", TWIN_LOC_ARGS);
    if (p.ifTranspose && sizeof(T) != 2)
        fault(twin_file, twin_line, "LoadData: ifTranspose needs a 16-bit type (this is %u-bit); the twin has no LoadDataWithTranspose yet",
              (unsigned)(sizeof(T) * 8));
    if (p.ifTranspose && src_gm)
        fault(twin_file, twin_line, "LoadData: ifTranspose only works from L1 (TPosition A1/B1), not from GM");
    if (p.repeatTimes == 0) return; // a NOP
    uint64_t gm0 = 0;
    uint8_t tmp[FRACTAL_BYTES];
    // Timing-only mode (runtime.h): the first and last repeats are checked, nothing is moved.
    const bool timing = timing_only();
    for (uint32_t r = 0; r < p.repeatTimes; r++) {
        if (timing && r != 0 && r + 1 != p.repeatTimes) continue;
        int64_t idx = p.addrMode == 1 ? (int64_t)p.startIndex - (int64_t)r * p.srcStride
                                      : (int64_t)p.startIndex + (int64_t)r * p.srcStride;
        if (idx < 0)
            fault(twin_file, twin_line, "LoadData: repeat %u reads source fractal %lld (addrMode 1 counts down past 0)", r,
                  (long long)idx);
        const uint8_t *s;
        if (src_gm) {
            const uint8_t *sp = reinterpret_cast<const uint8_t *>(src_gm->ptr_) + (uint64_t)idx * FRACTAL_BYTES;
            uint64_t avail = FRACTAL_BYTES;
            uint64_t off = gm_check_in(src_gm->origin_, sp, FRACTAL_BYTES, false, api, TWIN_LOC_ARGS, &avail);
            if (r == 0) gm0 = off;
            if (timing) {
                hw_span(dh, (uint64_t)dst.addr_ + (uint64_t)r * (1u + p.dstGap) * FRACTAL_BYTES, FRACTAL_BYTES, api, TWIN_LOC_ARGS);
                continue;
            }
            __builtin_memcpy(tmp, sp, avail);
            if (avail < FRACTAL_BYTES) __builtin_memset(tmp + avail, 0, FRACTAL_BYTES - avail);
            s = tmp;
        } else {
            s = hw_span(HW_L1, (uint64_t)src_addr + (uint64_t)idx * FRACTAL_BYTES, FRACTAL_BYTES, api, TWIN_LOC_ARGS);
            (void)src_l1;
        }
        uint8_t *d = hw_span(dh, (uint64_t)dst.addr_ + (uint64_t)r * (1u + p.dstGap) * FRACTAL_BYTES, FRACTAL_BYTES, api,
                             TWIN_LOC_ARGS);
        if (timing) continue;
        if (p.ifTranspose) {
            uint8_t t[FRACTAL_BYTES];
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 16; j++) __builtin_memcpy(t + (j * 16 + i) * 2, s + (i * 16 + j) * 2, 2);
            __builtin_memcpy(d, t, FRACTAL_BYTES);
        } else {
            __builtin_memmove(d, s, FRACTAL_BYTES);
        }
    }
    uint64_t bytes = (uint64_t)p.repeatTimes * FRACTAL_BYTES;
    if (src_gm) {
        uint64_t gap = p.srcStride > 1 ? (uint64_t)(p.srcStride - 1) * FRACTAL_BYTES : 0;
        tr_dma(P_MTE2, api, bytes, p.repeatTimes, FRACTAL_BYTES, gm0, gap, twin_line, dma_extra(src_gm->cache_, false, false),
               gm_buf_id(src_gm->ptr_));
    } else {
        CubeKeys c;
        c.bytes = bytes;
        c.dst = dh == HW_L0A ? 1 : 2; // which L0 buffer: their load rates differ
        tr_cube(P_MTE1, api, c, twin_line);
    }
}

// ---- Mmad -------------------------------------------------------------------------------------------
template <class U, class T> constexpr bool mmad_types_ok() {
    return (std::is_same<U, half>::value && std::is_same<T, float>::value) ||
           (std::is_same<U, bfloat16_t>::value && std::is_same<T, float>::value) ||
           (std::is_same<U, float>::value && std::is_same<T, float>::value) ||
           (std::is_same<U, int8_t>::value && std::is_same<T, int32_t>::value);
}
template <class T, class U> inline T acc_of(U v) {
    if constexpr (std::is_same<T, int32_t>::value) return (int32_t)v;
    else return (float)v;
}

// C (m x n, row-major) += A (m x k) x B (k x n), each element of C summed in k order, as Mmad's element
// loop sums it; the loop over n innermost so that it vectorises. Built at O3 even in a kernel built at
// -O1 (own_flags, src/twin/mod.rs): it is where a cube kernel's run spends its time. Without
// -ffp-contract=fast (not in -std=c++17), no multiply and add is fused, so the sums are the same bits.
template <class T>
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("O3")))
#endif
inline void mmad_dense(const T *__restrict a, const T *__restrict b, T *__restrict c, uint32_t m, uint32_t n, uint32_t k) {
    for (uint32_t mi = 0; mi < m; mi++) {
        T *__restrict row = c + (size_t)mi * n;
        for (uint32_t ki = 0; ki < k; ki++) {
            const T av = a[(size_t)mi * k + ki];
            const T *__restrict brow = b + (size_t)ki * n;
            for (uint32_t ni = 0; ni < n; ni++) row[ni] += av * brow[ni];
        }
    }
}

template <class T, class U, class S>
void mmad(const LocalTensor<T> &dst, const LocalTensor<U> &fm, const LocalTensor<S> &filter, const uint8_t *bias,
          const AscendC::MmadParams &p, TWIN_LOC_DECL) {
    static_assert(std::is_same<U, S>::value, "Mmad: the twin supports fm and filter of the same type");
    static_assert(mmad_types_ok<U, T>(),
                  "Mmad: supported (fm, filter, dst) types are (half, half, float), (bfloat16_t, bfloat16_t, float), "
                  "(float, float, float) and (int8_t, int8_t, int32_t) (asc-devkit Mmad page, Atlas A2/A3)");
    const char *api = "Mmad";
    need_pos(dst, HW_L0C, api, "dst", TWIN_LOC_ARGS);
    need_pos(fm, HW_L0A, api, "fm", TWIN_LOC_ARGS);
    need_pos(filter, HW_L0B, api, "filter", TWIN_LOC_ARGS);
    need_align(dst.addr_, 1024, HW_L0C, api, "dst", TWIN_LOC_ARGS);
    need_align(fm.addr_, 512, HW_L0A, api, "fm", TWIN_LOC_ARGS);
    need_align(filter.addr_, 512, HW_L0B, api, "filter", TWIN_LOC_ARGS);
    if (p.m == 0 || p.n == 0 || p.k == 0) return; // a NOP
    if (p.m > 4095 || p.n > 4095 || p.k > 4095)
        fault(twin_file, twin_line, "Mmad: m %u, n %u, k %u: each must be at most 4095", p.m, p.n, p.k);
    if (p.cmatrixSource && !bias)
        fault(twin_file, twin_line,
              "Mmad: cmatrixSource without a bias tensor is not implemented by the twin; use the Mmad overload that takes the bias");
    const uint32_t c0 = 32 / (uint32_t)sizeof(U);
    const uint32_t m1 = (p.m + 15u) / 16u, n1 = (p.n + 15u) / 16u;
    const uint32_t k1 = std::is_same<U, float>::value && p.kDirectionAlign ? (p.k + 15u) / 16u * 2u : (p.k + c0 - 1u) / c0;
    const bool gemv = p.m == 1;
    const uint8_t *a = hw_span(HW_L0A, fm.addr_, gemv ? (uint64_t)p.k * sizeof(U) : (uint64_t)m1 * k1 * FRACTAL_BYTES, api, TWIN_LOC_ARGS);
    const uint8_t *b = hw_span(HW_L0B, filter.addr_, (uint64_t)k1 * n1 * FRACTAL_BYTES, api, TWIN_LOC_ARGS);
    uint8_t *c = hw_span(HW_L0C, dst.addr_, (uint64_t)m1 * n1 * 256u * sizeof(T), api, TWIN_LOC_ARGS);
    const bool accumulate = !bias && ((!p.cmatrixInitVal && !p.cmatrixSource) || p.isBias);
    // Timing-only mode (runtime.h): operands checked above, no arithmetic.
    if (!timing_only()) {
        // The fractals unpacked into dense rows (A m x k, B k x n, C m x n in the accumulator type), the
        // product taken by mmad_dense, and C packed back: the same sums in the same order as element by
        // element, at the speed of a plain loop (asc-devkit's matmul_l2cache, 30720 x 1024 x 4096, ran
        // past the 120 s run limit with the per-element fractal addressing).
        const uint32_t M = p.m, N = p.n, K = p.k;
        // Buffers kept per thread and type across calls (a matmul makes one call per base block and K
        // step); every element is written below before it is read, so only their size changes.
        static thread_local std::vector<T> da, db, dc;
        da.resize((size_t)M * K);
        db.resize((size_t)K * N);
        dc.resize((size_t)M * N);
        for (uint32_t mi = 0; mi < M; mi++)
            for (uint32_t ki = 0; ki < K; ki++) {
                uint64_t ao = gemv ? ki : ((uint64_t)(mi / 16) * k1 + ki / c0) * (FRACTAL_BYTES / sizeof(U)) + (mi % 16) * c0 + ki % c0;
                da[(size_t)mi * K + ki] = acc_of<T>(ld<U>(a + ao * sizeof(U)));
            }
        for (uint32_t ki = 0; ki < K; ki++)
            for (uint32_t ni = 0; ni < N; ni++) {
                uint64_t bo = ((uint64_t)(ki / c0) * n1 + ni / 16) * (FRACTAL_BYTES / sizeof(U)) + (ni % 16) * c0 + ki % c0;
                db[(size_t)ki * N + ni] = acc_of<T>(ld<U>(b + bo * sizeof(U)));
            }
        auto c_at = [&](uint32_t mi, uint32_t ni) {
            return c + ((uint64_t)((ni / 16) * m1 + mi / 16) * 256u + (mi % 16) * 16u + ni % 16) * sizeof(T);
        };
        for (uint32_t mi = 0; mi < M; mi++)
            for (uint32_t ni = 0; ni < N; ni++)
                dc[(size_t)mi * N + ni] = bias ? ld<T>(bias + (uint64_t)ni * sizeof(T)) : accumulate ? ld<T>(c_at(mi, ni)) : T(0);
        mmad_dense(da.data(), db.data(), dc.data(), M, N, K);
        for (uint32_t mi = 0; mi < M; mi++)
            for (uint32_t ni = 0; ni < N; ni++) st<T>(c_at(mi, ni), dc[(size_t)mi * N + ni]);
    }
    CubeKeys k;
    k.m = p.m;
    k.k = p.k;
    k.n = p.n;
    k.dt = sizeof(U);
    k.uf = unit_flag(p.unitFlag, api, TWIN_LOC_ARGS);
    tr_cube(P_M, api, k, twin_line);
}

// ---- Fixpipe ----------------------------------------------------------------------------------------
inline float quant_scale(uint64_t deq) {
    uint32_t bits = (uint32_t)deq & ~0x1FFFu; // the hardware reads a (1, 8, 10) float: bits 13-22 of the mantissa
    float f;
    __builtin_memcpy(&f, &bits, 4);
    return f;
}

// One L0C element, converted to the output type under the quantisation mode.
template <class T, class U> inline T fix_convert(U v, const AscendC::FixpipeParamsV220 &p, TWIN_LOC_DECL) {
    using AscendC::QuantMode_t;
    if (p.reluEn && v < U(0)) v = U(0);
    switch (p.quantPre) {
    case QuantMode_t::NoQuant:
        if constexpr (std::is_same<T, U>::value) return v;
        break;
    case QuantMode_t::F322F16:
        if constexpr (std::is_same<U, float>::value && std::is_same<T, half>::value) return half(v);
        break;
    case QuantMode_t::F322BF16:
        if constexpr (std::is_same<U, float>::value && std::is_same<T, bfloat16_t>::value) return bfloat16_t(v);
        break;
    case QuantMode_t::DEQF16:
        if constexpr (std::is_same<U, int32_t>::value && std::is_same<T, half>::value) {
            if ((p.deqScalar >> 36) & 1)
                fault(twin_file, twin_line, "Fixpipe: DEQF16 with the MCB bit (36) of deqScalar set is not implemented by the twin");
            return half((float)v * quant_scale(p.deqScalar));
        }
        break;
    default:
        fault(twin_file, twin_line, "Fixpipe: quantPre %d is not implemented by the twin (NoQuant, F322F16, F322BF16 and DEQF16 are)",
              (int)p.quantPre);
    }
    fault(twin_file, twin_line,
          "Fixpipe: quantPre %d does not convert %u-byte L0C data into this %u-byte output type; set quantPre to the "
          "conversion (NoQuant: same type; F322F16: float -> half; F322BF16: float -> bfloat16_t; DEQF16: int32_t -> half)",
          (int)p.quantPre, (unsigned)sizeof(U), (unsigned)sizeof(T));
}

// Walks the valid elements of the NZ source: f(i, m, n, element) for ND matrix i, row m, column n.
template <class U, class F>
void fix_walk(const LocalTensor<U> &src, const AscendC::FixpipeParamsV220 &p, F f, TWIN_LOC_DECL) {
    const char *api = "Fixpipe";
    need_pos(src, HW_L0C, api, "src", TWIN_LOC_ARGS);
    uint32_t nblk = (p.nSize + 15u) / 16u;
    if (p.srcStride < p.mSize && nblk > 1)
        fault(twin_file, twin_line, "Fixpipe: srcStride %u is below mSize %u (it counts rows of 16 elements: mSize rounded up to 16)",
              p.srcStride, p.mSize);
    uint64_t span = ((uint64_t)(p.ndNum - 1) * p.srcNdStride * 256u + (uint64_t)(nblk - 1) * p.srcStride * 16u +
                     (uint64_t)p.mSize * 16u) * sizeof(U);
    const uint8_t *s = hw_span(HW_L0C, src.addr_, span, api, TWIN_LOC_ARGS);
    for (uint32_t i = 0; i < p.ndNum; i++)
        for (uint32_t m = 0; m < p.mSize; m++)
            for (uint32_t n = 0; n < p.nSize; n++) {
                uint64_t o = (uint64_t)i * p.srcNdStride * 256u + (uint64_t)(n / 16) * p.srcStride * 16u + m * 16u + n % 16;
                f(i, m, n, ld<U>(s + o * sizeof(U)));
            }
}

// Byte offset of element (i, m, n) of the output.
template <class T>
uint64_t fix_dst_off(AscendC::CO2Layout fmt, const AscendC::FixpipeParamsV220 &p, uint32_t i, uint32_t m, uint32_t n) {
    if (fmt == AscendC::CO2Layout::ROW_MAJOR)
        return ((uint64_t)i * p.dstNdStride + (uint64_t)m * p.dstStride + n) * sizeof(T);
    return (uint64_t)(n / 16) * p.dstStride * 32u + ((uint64_t)m * 16u + n % 16) * sizeof(T);
}

template <class T> void fix_check(AscendC::CO2Layout fmt, const AscendC::FixpipeParamsV220 &p, TWIN_LOC_DECL) {
    if (fmt == AscendC::CO2Layout::COLUMN_MAJOR)
        fault(twin_file, twin_line, "Fixpipe: CO2Layout::COLUMN_MAJOR (NZ2DN) exists only on Ascend 950; use CFG_ROW_MAJOR or CFG_NZ");
    if (fmt == AscendC::CO2Layout::NZ && sizeof(T) == 1)
        fault(twin_file, twin_line, "Fixpipe: NZ output of 8-bit data is not implemented by the twin");
    if (fmt == AscendC::CO2Layout::ROW_MAJOR && p.dstStride < p.nSize && p.mSize > 1)
        fault(twin_file, twin_line, "Fixpipe: dstStride %u is below nSize %u (with NZ2ND it is the elements in one output row)",
              p.dstStride, p.nSize);
    if (p.isChannelSplit) fault(twin_file, twin_line, "Fixpipe: channel split is not implemented by the twin");
}

} // namespace twin

namespace AscendC {

// LoadData 2D from L1 (TPosition A1/B1) or from GM.
template <class T> void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData2DParams &p, TWIN_LOC) {
    if (twin::hw_of(src.pos_) != twin::HW_L1)
        twin::fault(twin_file, twin_line, "LoadData: a local source must be in L1 (TPosition A1/B1), not %s (TPosition %s)",
                    twin::hw_name(twin::hw_of(src.pos_)), twin::pos_name(src.pos_));
    twin::need_align(src.addr_, 32, twin::HW_L1, "LoadData", "source", TWIN_LOC_ARGS);
    twin::load2d(dst, nullptr, (const GlobalTensor<T> *)nullptr, src.addr_, p, TWIN_LOC_ARGS);
}
template <class T> void LoadData(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const LoadData2DParams &p, TWIN_LOC) {
    twin::load2d(dst, nullptr, &src, 0, p, TWIN_LOC_ARGS);
}

template <class T, class U, class S>
void Mmad(const LocalTensor<T> &dst, const LocalTensor<U> &fm, const LocalTensor<S> &filter, const MmadParams &p, TWIN_LOC) {
    twin::mmad(dst, fm, filter, nullptr, p, TWIN_LOC_ARGS);
}
template <class T, class U, class S, class V>
void Mmad(const LocalTensor<T> &dst, const LocalTensor<U> &fm, const LocalTensor<S> &filter, const LocalTensor<V> &bias,
          const MmadParams &p, TWIN_LOC) {
    static_assert(std::is_same<T, V>::value, "Mmad: the bias type must be the dst type (float, or int32_t for int8 input)");
    twin::need_pos(bias, twin::HW_BT, "Mmad", "bias", TWIN_LOC_ARGS);
    twin::need_align(bias.addr_, 64, twin::HW_BT, "Mmad", "bias", TWIN_LOC_ARGS);
    const uint8_t *b = p.n ? twin::hw_span(twin::HW_BT, bias.addr_, (uint64_t)p.n * sizeof(V), "Mmad", TWIN_LOC_ARGS) : nullptr;
    if (!p.n) return;
    twin::mmad(dst, fm, filter, b, p, TWIN_LOC_ARGS);
}

// Fixpipe L0C -> GM.
template <class T, class U, const FixpipeConfig &config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T> &dst, const LocalTensor<U> &src, const FixpipeParamsV220 &p, TWIN_LOC) {
    if (p.nSize == 0 || p.mSize == 0 || p.ndNum == 0) return; // a NOP
    twin::fix_check<T>(config.format, p, TWIN_LOC_ARGS);
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.ptr_);
    uint64_t gm0 = twin::gm_check(d, 0, false, "Fixpipe", TWIN_LOC_ARGS);
    if (twin::timing_only()) {
        // Timing-only mode (runtime.h): the first and last destination elements are checked, nothing is written.
        twin::gm_check_in(dst.origin_, d + twin::fix_dst_off<T>(config.format, p, 0, 0, 0), sizeof(T), true, "Fixpipe", TWIN_LOC_ARGS);
        twin::gm_check_in(dst.origin_, d + twin::fix_dst_off<T>(config.format, p, p.ndNum - 1u, p.mSize - 1u, p.nSize - 1u), sizeof(T), true,
                       "Fixpipe", TWIN_LOC_ARGS);
    } else {
        twin::fix_walk(src, p, [&](uint32_t i, uint32_t m, uint32_t n, U v) {
            T out = twin::fix_convert<T>(v, p, TWIN_LOC_ARGS);
            uint8_t *dp = d + twin::fix_dst_off<T>(config.format, p, i, m, n);
            twin::gm_check_in(dst.origin_, dp, sizeof(T), true, "Fixpipe", TWIN_LOC_ARGS);
            twin::gm_store(dp, reinterpret_cast<const uint8_t *>(&out), sizeof(T), "Fixpipe", TWIN_LOC_ARGS);
        }, TWIN_LOC_ARGS);
    }
    // One burst a row (ND) or a column block (NZ).
    uint64_t rows = config.format == CO2Layout::ROW_MAJOR ? (uint64_t)p.ndNum * p.mSize : (p.nSize + 15u) / 16u;
    uint64_t burst = config.format == CO2Layout::ROW_MAJOR ? (uint64_t)p.nSize * sizeof(T) : (uint64_t)p.mSize * 16u * sizeof(T);
    uint64_t pitch = config.format == CO2Layout::ROW_MAJOR ? (uint64_t)p.dstStride * sizeof(T) : (uint64_t)p.dstStride * 32u;
    uint64_t uf = twin::unit_flag(p.unitFlag, "Fixpipe", TWIN_LOC_ARGS);
    const char *cache = twin::dma_extra(dst.cache_, false, false);
    char extra[80];
    std::snprintf(extra, sizeof extra, "%s%s", cache ? cache : "", uf == 3 ? " uf=3" : uf == 2 ? " uf=2" : "");
    twin::tr_dma(twin::P_FIX, "Fixpipe", rows * burst, rows, burst, gm0, pitch > burst ? pitch - burst : 0, twin_line,
                 extra[0] ? extra : nullptr, twin::gm_buf_id(d));
}

// Fixpipe L0C -> L1 (TPosition A1/B1/C1).
template <class T, class U, const FixpipeConfig &config = CFG_ROW_MAJOR>
void Fixpipe(const LocalTensor<T> &dst, const LocalTensor<U> &src, const FixpipeParamsV220 &p, TWIN_LOC) {
    if (p.nSize == 0 || p.mSize == 0 || p.ndNum == 0) return; // a NOP
    if (twin::hw_of(dst.pos_) != twin::HW_L1)
        twin::fault(twin_file, twin_line, "Fixpipe: a local destination must be in L1 (TPosition A1/B1/C1), not %s (TPosition %s)",
                    twin::hw_name(twin::hw_of(dst.pos_)), twin::pos_name(dst.pos_));
    twin::fix_check<T>(config.format, p, TWIN_LOC_ARGS);
    uint64_t elems = 0;
    if (twin::timing_only()) elems = (uint64_t)p.ndNum * p.mSize * p.nSize; // timing-only mode (runtime.h): no data
    else twin::fix_walk(src, p, [&](uint32_t i, uint32_t m, uint32_t n, U v) {
        T out = twin::fix_convert<T>(v, p, TWIN_LOC_ARGS);
        uint8_t *dp = twin::hw_span(twin::HW_L1, dst.addr_ + twin::fix_dst_off<T>(config.format, p, i, m, n), sizeof(T),
                                    "Fixpipe", TWIN_LOC_ARGS);
        twin::st<T>(dp, out);
        elems++;
    }, TWIN_LOC_ARGS);
    // Elements and their size, not bytes: a FIX record with bytes is a copy to GM for the model.
    twin::CubeKeys c;
    c.n = elems;
    c.dst = sizeof(T);
    c.uf = twin::unit_flag(p.unitFlag, "Fixpipe", TWIN_LOC_ARGS);
    twin::tr_cube(twin::P_FIX, "FixpipeL1", c, twin_line);
}

} // namespace AscendC

// ---- LoadDataWithTranspose, LoadData 3D (v2, its 2D-matrix case), Fill on L1 / L0, DataCopy L0C -> GM ----
// Semantics, all from docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/ of asc-devkit:
//  - 矩阵计算的搬入/LoadDataWithTranspose.md (and the page's own pseudo-code reference, the load_data_l12l0
//    example's scripts/load_data_with_transpose.py): a repeat reads a square matrix from L1 at square
//    startIndex + r * srcStride (minus with addrMode), transposes it and writes its fractals at
//    r * (dstGap + 1) * 512 + j * (dstFracGap + 1) * 512 bytes. b16: one 16 x 16 fractal; b8: two 16 x 32
//    fractals one above the other make a 32 x 32 square, fractal j of the result is its rows 16j..16j+15;
//    b32: two 16 x 8 fractals side by side make a 16 x 16 square, fractal j of the result is its columns
//    8j..8j+7.
//  - 矩阵计算的搬入/LoadData_3D.md, "使用LoadData（卷积数据搬运）完成矩阵计算所需2D格式数据的搬运": with a 1 x 1
//    filter, stride 1, dilation 1 and no padding the img2col matrix X (rows: the l1H * l1W positions, columns:
//    the channels, an NC1HWC0 source) is the L1 Nz matrix; the instruction takes rows mStartPt.. (mExtension)
//    and columns kStartPt.. (kExtension) of X. Into L0A (Atlas A2/A3) it writes X as Zz; into L0B it always
//    transposes: X lands as Zn, X's rows on the K axis (C0 rows a fractal), X's columns on N (16 a fractal),
//    which is the B operand Mmad reads. The general img2col (other filters, strides, padding), enTranspose
//    into L0A and SetLoadDataRepeat are not implemented: they fault.
//  - 矩阵搬入辅助配置接口/Fill.md: repeatTimes repeats of blockNum blocks (32 bytes in L1, 512 in L0A / L0B),
//    dstGap blocks between repeats; L1 on MTE2, L0A / L0B on MTE1.
//  - 矩阵计算的搬出/DataCopy（L0C到GM数据搬运）.md with 矩阵搬出辅助配置接口/SetFixpipePreQuantFlag.md and
//    SetFixpipeNz2ndFlag.md: the same move as Fixpipe (above), its scalar quantisation value and its NZ2ND
//    matrix count and strides come from those two registers. Tensor quantisation (SetFixPipeConfig) faults.
namespace twin {

template <class T>
void load2d_transpose(const LocalTensor<T> &dst, const LocalTensor<T> &src, const AscendC::LoadData2dTransposeParams &p,
                      TWIN_LOC_DECL) {
    const char *api = "LoadDataWithTranspose";
    if (hw_of(src.pos_) != HW_L1)
        fault(twin_file, twin_line, "LoadDataWithTranspose: the source must be in L1 (TPosition A1/B1), not %s (TPosition %s)",
              hw_name(hw_of(src.pos_)), pos_name(src.pos_));
    Hw dh = hw_of(dst.pos_);
    if (dh != HW_L0A && dh != HW_L0B)
        fault(twin_file, twin_line,
              "LoadDataWithTranspose: the destination must be L0A (TPosition A2) or L0B (B2), not %s (TPosition %s)",
              hw_name(dh), pos_name(dst.pos_));
    need_align(dst.addr_, FRACTAL_BYTES, dh, api, "destination", TWIN_LOC_ARGS);
    need_align(src.addr_, 32, HW_L1, api, "source", TWIN_LOC_ARGS);
    if constexpr (std::is_same<T, AscendC::int4b_t>::value) {
        fault(twin_file, twin_line, "LoadDataWithTranspose: int4b_t is not implemented by the twin (b8, b16 and b32 are)");
    } else {
        static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "LoadDataWithTranspose: b8, b16 or b32 data");
        if (p.repeatTimes == 0) return; // a NOP
        const uint32_t fracs = sizeof(T) == 2 ? 1u : 2u; // fractals a square
        const uint32_t sq = fracs * FRACTAL_BYTES;
        const bool timing = timing_only();
        for (uint32_t r = 0; r < p.repeatTimes; r++) {
            if (timing && r != 0 && r + 1 != p.repeatTimes) continue;
            int64_t idx = p.addrMode ? (int64_t)p.startIndex - (int64_t)r * p.srcStride
                                     : (int64_t)p.startIndex + (int64_t)r * p.srcStride;
            if (idx < 0)
                fault(twin_file, twin_line, "LoadDataWithTranspose: repeat %u reads source square %lld (addrMode counts down past 0)",
                      r, (long long)idx);
            const uint8_t *s = hw_span(HW_L1, (uint64_t)src.addr_ + (uint64_t)idx * sq, sq, api, TWIN_LOC_ARGS);
            uint8_t *d[2] = {nullptr, nullptr};
            const uint64_t d0 = (uint64_t)dst.addr_ + (uint64_t)r * (1u + p.dstGap) * FRACTAL_BYTES;
            for (uint32_t j = 0; j < fracs; j++)
                d[j] = hw_span(dh, d0 + (uint64_t)j * (1u + p.dstFracGap) * FRACTAL_BYTES, FRACTAL_BYTES, api, TWIN_LOC_ARGS);
            if (timing) continue;
            uint8_t t[2 * FRACTAL_BYTES];
            if (sizeof(T) == 2) { // 16 x 16
                for (int i = 0; i < 16; i++)
                    for (int j = 0; j < 16; j++) __builtin_memcpy(t + (j * 16 + i) * 2, s + (i * 16 + j) * 2, 2);
            } else if (sizeof(T) == 1) { // 32 x 32, rows 0-15 the first fractal
                for (int i = 0; i < 32; i++)
                    for (int j = 0; j < 32; j++) t[j * 32 + i] = s[i * 32 + j];
            } else { // 16 x 16 of 4 bytes: S(x, y) = first fractal (x, y) for y < 8, second (x, y - 8) after
                auto sel = [&](int x, int y) { return s + (y < 8 ? (x * 8 + y) : (128 + x * 8 + y - 8)) * 4; };
                for (int jf = 0; jf < 2; jf++)          // result fractal jf: columns 8jf..8jf+7 of S^T
                    for (int row = 0; row < 16; row++)  // S^T(row, 8jf + c) = S(8jf + c, row)
                        for (int c = 0; c < 8; c++) __builtin_memcpy(t + jf * FRACTAL_BYTES + (row * 8 + c) * 4, sel(8 * jf + c, row), 4);
            }
            for (uint32_t j = 0; j < fracs; j++) __builtin_memcpy(d[j], t + j * FRACTAL_BYTES, FRACTAL_BYTES);
        }
        // Costed as the L1 -> L0 load it is (the model's LoadData rows).
        CubeKeys c;
        c.bytes = (uint64_t)p.repeatTimes * sq;
        c.dst = dh == HW_L0A ? 1 : 2;
        tr_cube(P_MTE1, "LoadData", c, twin_line);
    }
}

template <class T>
void load3d_v2(const LocalTensor<T> &dst, const LocalTensor<T> &src, const AscendC::LoadData3DParamsV2<T> &p, TWIN_LOC_DECL) {
    const char *api = "LoadData (3D v2)";
    if (hw_of(src.pos_) != HW_L1)
        fault(twin_file, twin_line, "LoadData (3D v2): the source must be in L1 (TPosition A1/B1), not %s (TPosition %s)",
              hw_name(hw_of(src.pos_)), pos_name(src.pos_));
    Hw dh = hw_of(dst.pos_);
    if (dh != HW_L0A && dh != HW_L0B)
        fault(twin_file, twin_line, "LoadData (3D v2): the destination must be L0A (TPosition A2) or L0B (B2), not %s (TPosition %s)",
              hw_name(dh), pos_name(dst.pos_));
    need_align(dst.addr_, FRACTAL_BYTES, dh, api, "destination", TWIN_LOC_ARGS);
    need_align(src.addr_, 32, HW_L1, api, "source", TWIN_LOC_ARGS);
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "LoadData (3D v2): b8, b16 or b32 data");
    if (!p.l1H || !p.l1W || !p.channelSize || !p.kExtension || !p.mExtension) return; // a NOP
    if ((!p.filterW && !p.filterSizeW) || (!p.filterH && !p.filterSizeH)) return;      // a NOP
    if (p.filterW != 1 || p.filterH != 1 || p.filterSizeW || p.filterSizeH || p.strideW != 1 || p.strideH != 1 ||
        p.dilationFilterW != 1 || p.dilationFilterH != 1 || p.padList[0] || p.padList[1] || p.padList[2] || p.padList[3] ||
        p.fMatrixCtrl || p.enSmallK)
        fault(twin_file, twin_line,
              "LoadData (3D v2): the twin implements only its 2D-matrix case (filterW = filterH = 1, strideW = strideH = 1, "
              "dilations 1, padList all 0, fMatrixCtrl and enSmallK false); this call asks for filter %u x %u, stride %u x %u, "
              "dilation %u x %u, padding {%u, %u, %u, %u}",
              p.filterH, p.filterW, p.strideH, p.strideW, p.dilationFilterH, p.dilationFilterW, p.padList[0], p.padList[1],
              p.padList[2], p.padList[3]);
    if (dh == HW_L0A && p.enTranspose)
        fault(twin_file, twin_line, "LoadData (3D v2): enTranspose into L0A is not implemented by the twin");
    if (dh == HW_L0B && sizeof(T) == 1)
        fault(twin_file, twin_line, "LoadData (3D v2): the L1 -> L0B path takes no 8-bit data on Atlas A2/A3 (LoadData_3D.md)");
    const uint32_t c0 = 32 / (uint32_t)sizeof(T);
    const uint64_t hw = (uint64_t)p.l1H * p.l1W;
    if (p.channelSize % c0 != 0)
        fault(twin_file, twin_line, "LoadData (3D v2): channelSize %u is not a multiple of C0 = %u; the twin does not implement the "
              "small-channel packings", p.channelSize, c0);
    if (p.kStartPt % c0 != 0)
        fault(twin_file, twin_line, "LoadData (3D v2): kStartPt %u is not a multiple of C0 = %u", p.kStartPt, c0);
    if ((uint64_t)p.mStartPt + p.mExtension > hw || (uint64_t)p.kStartPt + p.kExtension > p.channelSize)
        fault(twin_file, twin_line,
              "LoadData (3D v2): rows [%u, %u) and columns [%u, %u) reach past the %llu x %u img2col matrix (l1H * l1W x "
              "channelSize); the twin has no padding",
              p.mStartPt, p.mStartPt + p.mExtension, p.kStartPt, p.kStartPt + p.kExtension, (unsigned long long)hw, p.channelSize);
    const uint64_t c1 = p.channelSize / c0;
    const uint8_t *s = hw_span(HW_L1, src.addr_, c1 * hw * 32u, api, TWIN_LOC_ARGS);
    const uint32_t me = p.mExtension, ke = p.kExtension;
    uint64_t span;
    if (dh == HW_L0A) span = (uint64_t)((me + 15) / 16) * ((ke + c0 - 1) / c0) * FRACTAL_BYTES;
    else span = (uint64_t)((me + c0 - 1) / c0) * ((ke + 15) / 16) * FRACTAL_BYTES;
    uint8_t *d = hw_span(dh, dst.addr_, span, api, TWIN_LOC_ARGS);
    if (!timing_only()) {
        const uint32_t k1 = (ke + c0 - 1) / c0, n1 = (ke + 15) / 16;
        for (uint32_t i = 0; i < me; i++)
            for (uint32_t j = 0; j < ke; j++) {
                uint64_t r = p.mStartPt + i, c = p.kStartPt + j;
                uint64_t so = ((c / c0) * hw + r) * c0 + c % c0;
                uint64_t dof = dh == HW_L0A ? ((uint64_t)(i / 16) * k1 + j / c0) * 16u * c0 + (i % 16) * c0 + j % c0
                                            : ((uint64_t)(i / c0) * n1 + j / 16) * 16u * c0 + (j % 16) * c0 + i % c0;
                __builtin_memcpy(d + dof * sizeof(T), s + so * sizeof(T), sizeof(T));
            }
    }
    CubeKeys c;
    c.bytes = (uint64_t)me * ke * sizeof(T);
    c.dst = dh == HW_L0A ? 1 : 2;
    tr_cube(P_MTE1, "LoadData", c, twin_line);
}

template <class T> void fill_const(const LocalTensor<T> &dst, const AscendC::InitConstValueParams<T> &p, TWIN_LOC_DECL) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                  "Fill (InitConstValueParams): int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t or float (Fill.md, Atlas A2/A3)");
    const char *api = "Fill";
    Hw h = hw_of(dst.pos_);
    if (h != HW_L1 && h != HW_L0A && h != HW_L0B)
        fault(twin_file, twin_line, "Fill: the destination must be in L1 (TPosition A1/B1), L0A (A2) or L0B (B2), not %s (TPosition %s)",
              hw_name(h), pos_name(dst.pos_));
    const uint32_t blk = h == HW_L1 ? 32u : FRACTAL_BYTES;
    need_align(dst.addr_, blk, h, api, "destination", TWIN_LOC_ARGS);
    if (p.repeatTimes == 0 || p.blockNum == 0) return; // a NOP
    const uint64_t run = (uint64_t)p.blockNum * blk;
    for (uint32_t r = 0; r < p.repeatTimes; r++) {
        uint8_t *d = hw_span(h, (uint64_t)dst.addr_ + (uint64_t)r * (p.blockNum + p.dstGap) * blk, run, api, TWIN_LOC_ARGS);
        if (timing_only()) continue;
        for (uint64_t e = 0; e < run; e += sizeof(T)) st<T>(d + e, p.initValue);
    }
    CubeKeys c;
    c.bytes = (uint64_t)p.repeatTimes * run;
    c.dst = h == HW_L0A ? 1 : h == HW_L0B ? 2 : 0;
    tr_cube(h == HW_L1 ? P_MTE2 : P_MTE1, api, c, twin_line);
}

// The fixpipe registers DataCopy L0C -> GM reads (one set a block: blocks run on threads of their own).
struct FixRegs {
    uint64_t quant = 0;        // SetFixpipePreQuantFlag
    uint16_t ndNum = 1, srcNdStride = 0, dstNdStride = 0; // SetFixpipeNz2ndFlag
};
inline thread_local FixRegs tl_fix;

// The FeatureMap register SetFmatrix writes and LoadData 3D v2 in its packed form reads (one a block).
struct FmatrixRegs {
    uint16_t l1H = 0, l1W = 0;
    uint8_t padList[4] = {0, 0, 0, 0};
    bool set = false;
};
inline thread_local FmatrixRegs tl_fmatrix;

} // namespace twin

namespace AscendC {

template <class T> void LoadDataWithTranspose(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData2dTransposeParams &p, TWIN_LOC) {
    twin::load2d_transpose(dst, src, p, TWIN_LOC_ARGS);
}

template <class T> void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData3DParamsV2<T> &p, TWIN_LOC) {
    twin::load3d_v2(dst, src, p, TWIN_LOC_ARGS);
}

// SetFmatrix.md: sets the FeatureMap (l1H, l1W, padList) LoadData 3D v2 reads when its params do not
// carry it; only FMATRIX_LEFT is supported, and both matrices use it.
inline void SetFmatrix(uint16_t l1H, uint16_t l1W, const uint8_t padList[4], const FmatrixMode &fmatrixMode, TWIN_LOC) {
    if (fmatrixMode != FmatrixMode::FMATRIX_LEFT)
        twin::fault(twin_file, twin_line, "SetFmatrix: only FmatrixMode::FMATRIX_LEFT is supported (SetFmatrix.md)");
    twin::tl_fmatrix.l1H = l1H;
    twin::tl_fmatrix.l1W = l1W;
    for (int i = 0; i < 4; i++) twin::tl_fmatrix.padList[i] = padList[i];
    twin::tl_fmatrix.set = true;
}

// LoadData 3D v2 in its packed form (LoadData_3D.md, table 5): the same move as LoadData3DParamsV2's,
// with the FeatureMap from SetFmatrix and the start points, extensions, filter, stride and dilation
// unpacked from extConfig and filterConfig.
template <class T> void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData3DParamsV2Pro &p, TWIN_LOC) {
    if (!twin::tl_fmatrix.set)
        twin::fault(twin_file, twin_line,
                    "LoadData (3D v2, LoadData3DParamsV2Pro): no SetFmatrix before it; the packed form takes l1H, l1W "
                    "and padList from SetFmatrix (LoadData_3D.md)");
    LoadData3DParamsV2<T> v;
    for (int i = 0; i < 4; i++) v.padList[i] = twin::tl_fmatrix.padList[i];
    v.l1H = twin::tl_fmatrix.l1H;
    v.l1W = twin::tl_fmatrix.l1W;
    v.channelSize = p.channelSize;
    v.mStartPt = (uint16_t)(p.extConfig >> 48);
    v.kStartPt = (uint16_t)(p.extConfig >> 32);
    v.mExtension = (uint16_t)(p.extConfig >> 16);
    v.kExtension = (uint16_t)p.extConfig;
    v.dilationFilterH = (uint8_t)(p.filterConfig >> 40);
    v.dilationFilterW = (uint8_t)(p.filterConfig >> 32);
    v.filterH = (uint8_t)(p.filterConfig >> 24);
    v.filterW = (uint8_t)(p.filterConfig >> 16);
    v.strideH = (uint8_t)(p.filterConfig >> 8);
    v.strideW = (uint8_t)p.filterConfig;
    v.enTranspose = p.enTranspose;
    v.enSmallK = p.enSmallK;
    v.filterSizeW = p.filterSizeW;
    v.filterSizeH = p.filterSizeH;
    v.fMatrixCtrl = p.fMatrixCtrl;
    twin::load3d_v2(dst, src, v, TWIN_LOC_ARGS);
}

template <class T> void LoadData(const LocalTensor<T> &, const LocalTensor<T> &, const LoadData2DParamsV2 &, TWIN_LOC) {
    twin::fault(twin_file, twin_line,
                "LoadData with LoadData2DParamsV2 exists only on Ascend 950 (NPU arch 3510), whose cube layouts the twin "
                "does not model; the twin is Atlas A2/A3 (arch 2201): use LoadData2DParams");
}

template <class T> void Fill(const LocalTensor<T> &dst, const InitConstValueParams<T> &p, TWIN_LOC) {
    twin::fill_const(dst, p, TWIN_LOC_ARGS);
}

inline void SetFixpipePreQuantFlag(uint64_t config) { twin::tl_fix.quant = config; }
inline void SetFixpipeNz2ndFlag(uint16_t ndNum, uint16_t srcNdStride, uint16_t dstNdStride) {
    twin::tl_fix.ndNum = ndNum;
    twin::tl_fix.srcNdStride = srcNdStride;
    twin::tl_fix.dstNdStride = dstNdStride;
}
template <class T, bool setRelu = false> void SetFixPipeConfig(const LocalTensor<T> &, bool = false, TWIN_LOC) {
    twin::fault(twin_file, twin_line, "SetFixPipeConfig: tensor (vector) quantisation is not implemented by the twin");
}
template <class T> void SetFixPipeConfig(const LocalTensor<T> &, const LocalTensor<T> &, bool = false, TWIN_LOC) {
    twin::fault(twin_file, twin_line, "SetFixPipeConfig: tensor (vector) quantisation is not implemented by the twin");
}

// DataCopy L0C (TPosition CO1) -> GM: Fixpipe with the parameters the fixpipe registers hold.
template <class T, class U> void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<U> &src, const DataCopyCO12DstParams &p, TWIN_LOC) {
    if (p.clipReluPre || p.eltWiseOp)
        twin::fault(twin_file, twin_line, "DataCopy (L0C -> GM): clipReluPre and eltWiseOp exist only on Atlas 200I/500 A2");
    if (p.reluPre > 1) twin::fault(twin_file, twin_line, "DataCopy (L0C -> GM): reluPre %u (0 off, 1 ReLU)", (unsigned)p.reluPre);
    FixpipeParamsV220 f;
    f.nSize = p.nSize;
    f.mSize = p.mSize;
    f.srcStride = p.srcStride;
    f.dstStride = p.dstStride;
    f.quantPre = p.quantPre;
    if (p.quantPre == QuantMode_t::DEQF16 || p.quantPre == QuantMode_t::QF322B8_PRE || p.quantPre == QuantMode_t::REQ8)
        f.deqScalar = twin::tl_fix.quant;
    f.reluEn = p.reluPre == 1;
    f.unitFlag = p.unitFlag;
    f.isChannelSplit = p.channelSplit;
    if (p.nz2ndEn) {
        f.ndNum = twin::tl_fix.ndNum;
        f.srcNdStride = twin::tl_fix.srcNdStride;
        f.dstNdStride = twin::tl_fix.dstNdStride;
        Fixpipe<T, U, CFG_ROW_MAJOR>(dst, src, f, TWIN_LOC_ARGS);
    } else {
        Fixpipe<T, U, CFG_NZ>(dst, src, f, TWIN_LOC_ARGS);
    }
}

} // namespace AscendC
