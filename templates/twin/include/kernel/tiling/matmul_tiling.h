// twin (host side): the matmul tiling classes of tiling/tiling_api.h: matmul_tiling::MatmulApiTiling
// (one core) and MultiCoreMatmulTiling, filling TCubeTiling (kernel_tiling/kernel_tiling.h, shared with
// the kernel side). Interface from the asc-devkit docs (高阶API/矩阵计算/Matmul-Tiling类/: SetAType,
// SetBType, SetCType, SetBiasType, SetShape, SetOrgShape, SetSingleShape, SetDim, EnableBias / SetBias,
// SetBufferSpace, SetFixSplit, SetTraverse, GetTiling returning -1 on failure; the constructors from a
// PlatformAscendC or a PlatformInfo).
// Owns: the twin's choice of a tiling. Must not know: the kernel's Matmul, the model.
//
// The choice is the twin's own rule, not CANN's solver (whose rules the docs do not spell out): cores
// split M and N (the split with the least work per core, then the most cores; one giving every core the
// same share where it is near that, `split`); base blocks 128 x 256 x
// (128 bytes of K), or SetFixSplit's, clipped to the single-core shape and shrunk until double-buffered
// L0A / L0B and one L0C block fit; stepKa = stepKb = the whole K where it fits L1, else up to 4 base K
// blocks (twin::matmul_l1_steps), depthA1 = depthB1 = twice that when both fit in L1 (else once);
// stepM = stepN = 1; dbL0A = dbL0B = 2, dbL0C = 1.
//
// One file for both sides: the host's tiling/tiling_api.h includes it after the host's platform
// (include/host/twin_host/platform.h), and the kernel tree's tiling/tiling_api.h after its `.asc` platform
// (tiling/platform/platform_ascendc.h), for `.asc` single sources whose host part tiles a matmul (asc-devkit
// examples/.../matmul_high_performance). Whoever includes it declares platform_ascendc::PlatformAscendC
// (GetCoreMemSize, GetCoreNumAic) first.
#pragma once
#include "../twin/dt_macros_off.h"
#include <cstdint>
#include "../kernel_tiling/kernel_tiling.h"

namespace optiling {
using ::TCubeTiling;
}

namespace matmul_tiling {

enum class TPosition : int32_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, MAX };
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class DataType : int32_t {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
    DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_BF16 = 27, DT_INT4 = 29,
    DT_MAX = 100
};
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
// SetMatmulConfigParams (Matmul-Tiling类/SetMatmulConfigParams.md): the data movement mode; N_BUFFER_33 is
// the NBuffer33 policy's, whose tiling keeps stepKa = stepKb = ceil(singleCoreK / baseK) <= 3
// (Matmul-Kernel侧接口/MatmulPolicy.md, its constraints).
enum class ScheduleType : int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT = 1, N_BUFFER_33 = 2 };
struct MatmulConfigParams {
    int32_t mmConfigType;
    bool enableL1CacheUB;
    ScheduleType scheduleType;
    MatrixTraverse traverse;
    bool enVecND2NZ;
    MatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                       ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                       MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false)
        : mmConfigType(mmConfigTypeIn), enableL1CacheUB(enableL1CacheUBIn), scheduleType(scheduleTypeIn),
          traverse(traverseIn), enVecND2NZ(enVecND2NZIn) {}
};

inline uint32_t dtype_bytes(DataType t) {
    switch (t) {
    case DataType::DT_INT8: case DataType::DT_UINT8: case DataType::DT_BOOL: return 1;
    case DataType::DT_FLOAT16: case DataType::DT_BF16: case DataType::DT_INT16: case DataType::DT_UINT16: return 2;
    case DataType::DT_INT64: case DataType::DT_UINT64: case DataType::DT_DOUBLE: return 8;
    default: return 4;
    }
}

// The hardware a tiling is made for, when the tiling function cannot pass a PlatformAscendC (asc-devkit
// docs, 高阶API/矩阵计算/Matmul-Tiling类/Matmul-Tiling类构造函数.md: fields as the page lists them, sizes
// from GetCoreMemSize, socVersion from GetSocVersion). It carries no core count: a multi-core tiling
// made from it splits over SetDim's cores. ops-transformer's prompt_flash_attention keeps one as a member.
struct PlatformInfo {
    platform_ascendc::SocVersion socVersion{};
    uint64_t l1Size = 0;
    uint64_t l0CSize = 0;
    uint64_t ubSize = 0;
    uint64_t l0ASize = 0;
    uint64_t l0BSize = 0;
};

class MatmulApiTiling {
public:
    MatmulApiTiling() = default;
    explicit MatmulApiTiling(const PlatformInfo &p) {
        if (p.l1Size) l1_ = p.l1Size;
        if (p.l0ASize) l0a_ = p.l0ASize;
        if (p.l0BSize) l0b_ = p.l0BSize;
        if (p.l0CSize) l0c_ = p.l0CSize;
    }
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC &p) {
        uint64_t v = 0;
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, v); if (v) l1_ = v;
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, v); if (v) l0a_ = v;
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, v); if (v) l0b_ = v;
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, v); if (v) l0c_ = v;
        cores_ = p.GetCoreNumAic() ? p.GetCoreNumAic() : 1;
    }
    virtual ~MatmulApiTiling() = default;

    int32_t SetAType(TPosition pos, CubeFormat fmt, DataType t, bool isTrans = false) { (void)pos; (void)fmt; a_ = t; transA_ = isTrans; aSet_ = true; return 0; }
    int32_t SetBType(TPosition pos, CubeFormat fmt, DataType t, bool isTrans = false) { (void)pos; (void)fmt; b_ = t; transB_ = isTrans; bSet_ = true; return 0; }
    int32_t SetCType(TPosition pos, CubeFormat fmt, DataType t) { (void)pos; (void)fmt; c_ = t; return 0; }
    int32_t SetBiasType(TPosition pos, CubeFormat fmt, DataType t) { (void)pos; (void)fmt; bias_ = t; return 0; }
    int32_t SetShape(int32_t m, int32_t n, int32_t k) { singleM_ = m; singleN_ = n; singleK_ = k; if (!orgM_) { orgM_ = m; orgN_ = n; orgKa_ = orgKb_ = k; } return 0; }
    int32_t SetSingleShape(int32_t m = -1, int32_t n = -1, int32_t k = -1) { fixM_ = m; fixN_ = n; fixK_ = k; return 0; }
    int32_t SetOrgShape(int32_t m, int32_t n, int32_t k) { return SetOrgShape(m, n, k, k); }
    int32_t SetOrgShape(int32_t m, int32_t n, int32_t ka, int32_t kb) { orgM_ = m; orgN_ = n; orgKa_ = ka; orgKb_ = kb; return 0; }
    int32_t EnableBias(bool on = false) { bias_on_ = on; return 0; }
    int32_t SetBias(bool on = false) { return EnableBias(on); }
    // -1 keeps the SoC's whole buffer.
    int32_t SetBufferSpace(int32_t l1 = -1, int32_t l0c = -1, int32_t ub = -1, int32_t bt = -1) {
        (void)ub; (void)bt;
        if (l1 > 0) l1_ = (uint64_t)l1;
        if (l0c > 0) l0c_ = (uint64_t)l0c;
        return 0;
    }
    int32_t SetFixSplit(int32_t baseM = -1, int32_t baseN = -1, int32_t baseK = -1) { fbM_ = baseM; fbN_ = baseN; fbK_ = baseK; return 0; }
    int32_t SetTraverse(MatrixTraverse t) { order_ = t == MatrixTraverse::FIRSTN ? 1 : 0; return 0; }
    int32_t SetDim(int32_t dim) { dim_ = dim; return 0; }
    int32_t EnableMultiCoreSplitK(bool) { return 0; }
    // SetSparse (Matmul-Tiling类/SetSparse.md): a 4:2 sparse B; the twin's tiling of K is the same (base K
    // blocks of the full K, which the kernel's Matmul reads as half as many dense bytes).
    int32_t SetSparse(bool isSparse = false) { sparse_ = isSparse; return 0; }
    int32_t SetAlignSplit(int32_t, int32_t, int32_t) { return 0; }
    // A batch matmul's layouts and batch count, written into the tiling's layout fields as given
    // (SetALayout.md: b, s, n, g, d; SetCLayout.md's s and d are CLayoutInfoS1 and CLayoutInfoS2).
    // SetBatchInfoForNormal (NORMAL, BMNK): A is batchA matrices of m x k, B batchB of k x n, C the larger
    // batch of m x n, and BatchNum that larger batch (SetBatchNum-88.md: the larger of batchA and batchB).
    // The kernel's IterateBatch reads them (matmul_intf.h).
    int32_t SetALayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) { layA_[0] = b; layA_[1] = s; layA_[2] = n; layA_[3] = g; layA_[4] = d; return 0; }
    int32_t SetBLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) { layB_[0] = b; layB_[1] = s; layB_[2] = n; layB_[3] = g; layB_[4] = d; return 0; }
    int32_t SetCLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) { layC_[0] = b; layC_[1] = s; layC_[2] = n; layC_[3] = g; layC_[4] = d; return 0; }
    int32_t SetBatchNum(int32_t batch) { batchNum_ = batch; return 0; }
    int32_t SetBatchInfoForNormal(int32_t batchA, int32_t batchB, int32_t m, int32_t n, int32_t k) {
        const int32_t batch = batchA > batchB ? batchA : batchB;
        SetALayout(batchA, m, 1, 1, k);
        SetBLayout(batchB, n, 1, 1, k);
        SetCLayout(batch, m, 1, 1, n);
        return SetBatchNum(batch);
    }
    // The template type, L1 caching of UB blocks and ND2NZ on the vector unit change nothing the twin's
    // tiling chooses; the schedule type (NBuffer33's K steps) and the traverse order do.
    int32_t SetMatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                                  ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                                  MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false) {
        (void)mmConfigTypeIn; (void)enableL1CacheUBIn; (void)enVecND2NZIn;
        nbuffer33_ = scheduleTypeIn == ScheduleType::N_BUFFER_33;
        if (traverseIn != MatrixTraverse::NOSET) SetTraverse(traverseIn);
        return 0;
    }
    int32_t SetMatmulConfigParams(const MatmulConfigParams &p) {
        return SetMatmulConfigParams(p.mmConfigType, p.enableL1CacheUB, p.scheduleType, p.traverse, p.enVecND2NZ);
    }

    int32_t GetBaseM() const { return t_.baseM; }
    int32_t GetBaseN() const { return t_.baseN; }
    int32_t GetBaseK() const { return t_.baseK; }
    int32_t GetCoreNum(int32_t &dim, int32_t &mDim, int32_t &nDim) const { dim = t_.usedCoreNum; mDim = mDim_; nDim = nDim_; return 0; }
    int32_t GetSingleShape(int32_t &m, int32_t &n, int32_t &k) const { m = t_.singleCoreM; n = t_.singleCoreN; k = t_.singleCoreK; return 0; }

    int64_t GetTiling(TCubeTiling &out) {
        if (!aSet_ || !bSet_) return -1;
        int32_t M = orgM_ ? orgM_ : singleM_, N = orgN_ ? orgN_ : singleN_;
        int32_t Ka = orgKa_ ? orgKa_ : singleK_, Kb = orgKb_ ? orgKb_ : Ka;
        if (M <= 0 || N <= 0 || Ka <= 0 || Kb <= 0 || Ka != Kb) return -1;
        TCubeTiling t{};
        t.M = M; t.N = N; t.Ka = Ka; t.Kb = Kb;
        int32_t dim = dim_ > 0 ? dim_ : 1;
        mDim_ = nDim_ = 1;
        int32_t sM = fixM_ > 0 ? fixM_ : (singleM_ > 0 && dim_ <= 0 ? singleM_ : M);
        int32_t sN = fixN_ > 0 ? fixN_ : (singleN_ > 0 && dim_ <= 0 ? singleN_ : N);
        int32_t sK = fixK_ > 0 ? fixK_ : Ka;
        if (dim > 1 && fixM_ <= 0 && fixN_ <= 0) split(M, N, dim, sM, sN);
        mDim_ = (M + sM - 1) / sM;
        nDim_ = (N + sN - 1) / sN;
        t.usedCoreNum = mDim_ * nDim_;
        t.singleCoreM = sM; t.singleCoreN = sN; t.singleCoreK = sK;
        uint32_t ab = dtype_bytes(a_), bb = dtype_bytes(b_);
        const uint32_t c0 = 32 / ab;
        int32_t bm = fbM_ > 0 ? fbM_ : 128, bn = fbN_ > 0 ? fbN_ : 256, bk = fbK_ > 0 ? fbK_ : (int32_t)(128 / ab);
        bm = clip(bm, sM, 16);
        bn = clip(bn, sN, 16);
        bk = clip(bk, sK, (int32_t)c0);
        // Double-buffered L0A / L0B, one L0C block (4-byte accumulators).
        while (2ull * bm * bk * ab > l0a_ && bm > 16) bm = align(bm / 2, 16);
        while (2ull * bk * bn * bb > l0b_ && bn > 16) bn = align(bn / 2, 16);
        while (4ull * bm * bn > l0c_ && bn > 16) bn = align(bn / 2, 16);
        if (2ull * bm * bk * ab > l0a_ || 2ull * bk * bn * bb > l0b_ || 4ull * bm * bn > l0c_) return -1;
        t.baseM = bm; t.baseN = bn; t.baseK = bk;
        int32_t kIters = (sK + bk - 1) / bk;
        uint64_t tileA = (uint64_t)bm * bk * ab, tileB = (uint64_t)bk * bn * bb;
        uint64_t biasBytes = bias_on_ ? (uint64_t)bn * 4 : 0;
        const twin::MatmulL1Steps l1 = twin::matmul_l1_steps(kIters, tileA, tileB, biasBytes, l1_);
        const int32_t step = l1.step, depth = l1.depth;
        // NBuffer33 loads K whole, in at most 3 base K blocks; the twin does not pick base blocks to make it so.
        if (nbuffer33_ && (kIters > 3 || step != kIters)) return -1;
        t.stepKa = t.stepKb = step;
        t.depthA1 = t.depthB1 = depth;
        t.stepM = t.stepN = 1;
        t.isBias = bias_on_ ? 1 : 0;
        t.iterateOrder = order_;
        t.dbL0A = t.dbL0B = 2;
        t.dbL0C = 1;
        t.shareL1Size = (int32_t)((tileA + tileB) * depth + biasBytes);
        t.shareL0CSize = bm * bn * 4;
        t.batchM = t.batchN = t.singleBatchM = t.singleBatchN = 1;
        t.ALayoutInfoB = layA_[0]; t.ALayoutInfoS = layA_[1]; t.ALayoutInfoN = layA_[2]; t.ALayoutInfoG = layA_[3]; t.ALayoutInfoD = layA_[4];
        t.BLayoutInfoB = layB_[0]; t.BLayoutInfoS = layB_[1]; t.BLayoutInfoN = layB_[2]; t.BLayoutInfoG = layB_[3]; t.BLayoutInfoD = layB_[4];
        t.CLayoutInfoB = layC_[0]; t.CLayoutInfoS1 = layC_[1]; t.CLayoutInfoN = layC_[2]; t.CLayoutInfoG = layC_[3]; t.CLayoutInfoS2 = layC_[4];
        t.BatchNum = batchNum_;
        t_ = t;
        out = t;
        return 0;
    }

protected:
    static int32_t align(int32_t v, int32_t a) { return (v + a - 1) / a * a; }
    static int32_t clip(int32_t base, int32_t single, int32_t unit) {
        int32_t s = align(single, unit);
        return base < s ? align(base, unit) : s;
    }
    // mDim x nDim <= dim cores with the least work per core (ceil(M/mDim) * ceil(N/nDim)), then the most
    // cores, then the least work in whole base blocks (SetFixSplit's, else 128 x 256): a core's share that
    // its base blocks divide leaves no tail block. The learning hub's matmul_abs splits 1024 x 640 over 2
    // cores with 128 x 128 blocks and copies whole blocks out: 512 x 640 each, not 1024 x 320. Where all
    // of that ties, the shorter of M and N is split, as the two documented ties are: the IBShare guide's
    // 64 x 256 x 384 over 2 cores is 32 x 256 each (asc-devkit guide 优秀实践/Matmul性能调优案例/Matmul高阶API使能
    // IBShare模板共享B矩阵数据.md; its kernel relies on it: both AIVs of a group share one B), and
    // matmul_leakyrelu_advanced_api's 512 x 128 x 128 with 128 x 64 x 128 blocks is 512 x 64 each (its
    // header comment: "按N轴分核切分2份"; its kernel offsets B and C by the core's N share only).
    //
    // A split whose cores all get the same share (M and N divided without a tail core) is taken over the
    // one of least work when it uses at least half the cores for at most 1.5 times the work a core does:
    // asc-devkit's matmul_async_iterate (640 x 1024 over 48 AIVs) and matmul_nbuffer33 (256 x 512 over 24
    // AICs) copy every core's share out whole, with no SetTail for N, so CANN's split gives them none
    // (the least-work split would be 80 x 176 and 32 x 176, a short last N share each).
    void split(int32_t M, int32_t N, int32_t dim, int32_t &sM, int32_t &sN) const {
        const int32_t bm = fbM_ > 0 ? fbM_ : 128, bn = fbN_ > 0 ? fbN_ : 256;
        struct Best {
            uint64_t work = ~0ull, padded = ~0ull;
            int32_t cores = 0, m = 0, n = 0;
        } any, even;
        auto consider = [&](Best &b, int32_t m, int32_t n, int32_t cores) {
            uint64_t work = (uint64_t)m * n;
            uint64_t padded = (uint64_t)align(m, bm) * align(n, bn);
            if (work < b.work || (work == b.work && cores > b.cores) ||
                (work == b.work && cores == b.cores && padded < b.padded) ||
                (work == b.work && cores == b.cores && padded == b.padded && (M <= N ? m < b.m : n < b.n)))
                b = Best{work, padded, cores, m, n};
        };
        for (int32_t md = 1; md <= dim; md++)
            for (int32_t nd = 1; md * nd <= dim; nd++) {
                int32_t m = align((M + md - 1) / md, 16), n = align((N + nd - 1) / nd, 16);
                int32_t cores = ((M + m - 1) / m) * ((N + n - 1) / n);
                consider(any, m, n, cores);
                if (M % m == 0 && N % n == 0) consider(even, m, n, cores);
            }
        const bool takeEven = even.cores > 0 && 2 * even.cores >= dim && 2 * even.work <= 3 * any.work;
        sM = takeEven ? even.m : any.m;
        sN = takeEven ? even.n : any.n;
    }
    TCubeTiling t_{};
    int32_t layA_[5] = {}, layB_[5] = {}, layC_[5] = {}, batchNum_ = 0;
    DataType a_ = DataType::DT_FLOAT16, b_ = DataType::DT_FLOAT16, c_ = DataType::DT_FLOAT, bias_ = DataType::DT_FLOAT;
    bool aSet_ = false, bSet_ = false, transA_ = false, transB_ = false, bias_on_ = false, sparse_ = false, nbuffer33_ = false;
    int32_t singleM_ = 0, singleN_ = 0, singleK_ = 0, orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0;
    int32_t fixM_ = -1, fixN_ = -1, fixK_ = -1, fbM_ = -1, fbN_ = -1, fbK_ = -1, dim_ = 0, order_ = 0;
    mutable int32_t mDim_ = 1, nDim_ = 1;
    uint64_t l1_ = 512 * 1024, l0a_ = 64 * 1024, l0b_ = 64 * 1024, l0c_ = 128 * 1024;
    uint32_t cores_ = 1;
};

class MultiCoreMatmulTiling : public MatmulApiTiling {
public:
    MultiCoreMatmulTiling() = default;
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC &p) : MatmulApiTiling(p) {}
    explicit MultiCoreMatmulTiling(const PlatformInfo &p) : MatmulApiTiling(p) {}
};

// BatchMatmulTiling (Matmul-Tiling类构造函数.md: like MatmulApiTiling and MultiCoreMatmulTiling, a
// MatmulApiTilingBase): the tiling of one core's products of a batch matmul, their layouts and batch
// count set with SetALayout / SetBLayout / SetCLayout / SetBatchNum or SetBatchInfoForNormal (above).
class BatchMatmulTiling : public MatmulApiTiling {
public:
    BatchMatmulTiling() = default;
    explicit BatchMatmulTiling(const platform_ascendc::PlatformAscendC &p) : MatmulApiTiling(p) {}
    explicit BatchMatmulTiling(const PlatformInfo &p) : MatmulApiTiling(p) {}
};

} // namespace matmul_tiling
#include "../twin/dt_macros_on.h"
