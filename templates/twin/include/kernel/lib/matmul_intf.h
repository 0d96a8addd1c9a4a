// twin: lib/matmul_intf.h, the high-level Matmul of the cube: Matmul<MatmulType<...> x4, MM_CFG>,
// REGIST_MATMUL_OBJ, Init, SetTensorA / SetTensorB (with transpose), SetBias / DisableBias, SetOrgShape,
// SetSingleShape, SetTail, IterateAll, Iterate + GetTensorC, End. Interface from the asc-devkit docs
// (高阶API/矩阵计算/Matmul-Kernel侧接口/); the schedule is the twin's own, built on the basic cube API
// (twin/cube.h), so its results are those of LoadData / Mmad / Fixpipe and its trace is what they record.
// Owns: the Matmul object's state and schedule. Must not know: the host's tiling rule
// (include/host/tiling/matmul_tiling.h), the model.
//
// Schedule of one base block (baseM x baseN of C, tails clipped), for each chunk of stepKa * baseK of K:
// A and B chunks GM -> L1 (MTE2, ND -> NZ; B kept as NZ of its transpose so that the L0B load needs no
// transpose), then per baseK: L1 -> L0A / L0B (MTE1, double-buffered), Mmad (M) accumulating in L0C;
// the bias row (GM -> L1 -> bias table) starts the first Mmad; then Fixpipe L0C -> GM (FIX, NZ2ND,
// casting float to half / bfloat16 for such C). Flags MTE2->MTE1, MTE1->M, M->MTE1, M->FIX and FIX->M
// (event ids 6 and 7) order the pipes as the hardware's would. iterateOrder 0 walks M first, 1 N first.
// Norm (CFG_NORM, the default) keeps one A and one B chunk in L1: the next chunk's GM -> L1 load waits for
// MTE1 to finish with the current one. MDL (CFG_MDL, doMultiDataLoad) keeps two (ping-pong, twice the L1):
// the next chunk (of this block or the next) loads while MTE1 and M work on the current one, the
// documented multi-block L1 prefetch (asc-devkit docs, 高阶API/矩阵计算/Matmul/MatmulConfig: MDL
// 'multi data load', and the matmul_high_performance sample: Norm -> MDL 12283.84 -> 5039.86 us on an
// 8192^3 fp16 matmul). How much it gains on the twin comes from the model's pipe overlap; the twin
// does not model MDL's larger bursts (assumed equal to Norm's).
// Under MDL a chunk that holds the whole singleCoreK (the documented "K full load", singleK <= baseK *
// stepK: asc-devkit guide 优秀实践/Matmul性能调优案例/Matmul高阶API使能MTE2-Preload.md) is the same
// for every base block of its row of A (or column of B): while one of the matrix's L1 buffers still holds
// it, the next block uses it without loading it again (the MDL guide: "MTE1 reuses the A1 / B1 data as
// far as it can, MTE2 loads again less"). SetTensorA / SetTensorB forget what the buffers hold.
// UnitFlag (MM_CFG.enUnitFlag, on by default for Norm, off for MDL): the Mmads of a block carry unitFlag 2
// and its last one 3, the Fixpipe 3, and no M -> FIX / FIX -> M flags are set: the hardware syncs the two
// per 512-byte block of L0C instead (asc-devkit docs, 基础API/矩阵计算（ISASI）/Mmad计算关键特性说明/
// UnitFlag.md; guide 优秀实践/Matmul性能调优案例/Matmul高阶API使能UnitFlag.md). The trace records carry
// `uf=`; the model (src/model/unitflag.rs) prices the overlap.
// IBShare (MatmulType's IBSHARE flag, with the IBShare template CFG_IBSHARE_NORM where one matrix alone is
// shared; asc-devkit guide 优秀实践/Matmul性能调优案例/Matmul高阶API使能IBShare模板共享B矩阵数据.md and
// ...共享A和B矩阵数据.md; GetIBShareNormConfig.md): in a MIX kernel the AIVs of one group
// that set the same GM matrix share it in L1, so the AIV that comes second moves none of it (its GM -> L1
// records are left out) where the matrix is whole in L1; with A and B both shared, the group computes the
// IterateAll once (the second AIV's records of it are left out). The guide's precondition, the same GM
// address on every AIV of the group, is checked: another address is a fault (twin::ibshare_follows).
// Results are computed by each AIV as before. Pure Cube kernels have no group: the flag changes nothing.
// A runtime tiling's scalar work (reading and deriving it at Init and around each Iterate) is recorded as
// `I S MatmulTilingInit` / `MatmulTilingIter`; a fully constant tiling (below) records none.
#pragma once
#include "../kernel_operator.h"
#include "../kernel_tiling/kernel_tiling.h"

enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };

namespace AscendC {
using ::CubeFormat;

enum class LayoutMode : int32_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

template <TPosition POSITION, CubeFormat FORMAT, class TYPE, bool ISTRANS = false, LayoutMode LAYOUT = LayoutMode::NONE,
          bool IBSHARE = false>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
};

enum class BatchMode : int32_t { NONE = 0, BATCH_LESS_THAN_L1, BATCH_LARGE_THAN_L1, SINGLE_LARGE_THAN_L1 };
enum class IterateOrder : int32_t { ORDER_M = 0, ORDER_N, UNDEF };
enum class ScheduleType : int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum class BatchOutMode : int32_t { SINGLE_BATCH = 0, MULTI_BATCH, DYNAMIC };
enum class IterateMode : uint8_t { ITERATE_MODE_NORMAL = 0b00000001, ITERATE_MODE_ALL = 0b00000010,
                                   ITERATE_MODE_BATCH = 0b00000100, ITERATE_MODE_N_BATCH = 0b00001000, ITERATE_MODE_DEFAULT = 0b11111111 };
// SparseMatmulType (4:2 sparse matmul; asc-devkit guide 算子实践参考/SIMD算子实现/矩阵编程（高阶API）/特性场景/
// 4-2稀疏矩阵乘.md): B's type, with the position of its index matrix. B is the 4:2 densified matrix (K/2 of
// every row of B^T kept, ISTRANS must be true), the index matrix (SetSparseIndex) says where in each group
// of 4 of K the two kept values sit; the Matmul selects the matching elements of A.
template <TPosition POSITION, TPosition INDEX_POSITION, CubeFormat FORMAT, class TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct SparseMatmulType : public MatmulType<POSITION, FORMAT, TYPE, ISTRANS, LAYOUT, IBSHARE> {
    constexpr static TPosition indexPosition = INDEX_POSITION;
    constexpr static bool twinSparse = true;
};
namespace twin_mm {
template <class T, class = void> struct is_sparse : std::false_type {};
template <class T> struct is_sparse<T, std::void_t<decltype(T::twinSparse)>> : std::integral_constant<bool, T::twinSparse> {};
template <class T, bool = is_sparse<T>::value> struct index_pos { static constexpr TPosition value = TPosition::GM; };
template <class T> struct index_pos<T, true> { static constexpr TPosition value = T::indexPosition; };
} // namespace twin_mm

struct MatmulConfig {
    bool doNorm = true;
    bool doBasicBlock = false;
    bool doMultiDataLoad = false;
    uint32_t basicM = 0, basicN = 0, basicK = 0;
    bool intrinsicsCheck = false;
    bool isNBatch = false;
    bool enVecND2NZ = false;
    bool doSpecialBasicBlock = false;
    uint32_t doMTE2Preload = 0;
    uint32_t singleCoreM = 0, singleCoreN = 0, singleCoreK = 0;
    uint32_t stepM = 0, stepN = 0;
    uint32_t baseMN = 0;
    uint32_t singleCoreMN = 0;
    bool enUnitFlag = true;
    // The rest of MatmulConfig.md's fields, with its defaults. Those that only prune code or tune the
    // schedule (enableInit, enableEnd, enableSetBias, iterateMode, ...) are taken and ignored; those that
    // change the result and the twin does not implement (enableRelu, isPartialOutput, isEnableChannelSplit,
    // intraBlockPartSum) are refused by the Matmul at compile time.
    bool isPerTensor = false;
    bool hasAntiQuantOffset = false;
    bool doIBShareNorm = false;
    bool doSpecialMDL = false;
    bool enableInit = true;
    BatchMode batchMode = BatchMode::NONE;
    bool enableEnd = true;
    bool enableGetTensorC = true;
    bool enableSetOrgShape = true;
    bool enableSetBias = true;
    bool enableSetTail = true;
    bool enableQuantVector = true;
    bool enableSetDefineData = true;
    IterateMode iterateMode = IterateMode::ITERATE_MODE_DEFAULT;
    bool enableReuse = true;
    bool enableUBReuse = true;
    bool enableL1CacheUB = false;
    bool intraBlockPartSum = false;
    IterateOrder iterateOrder = IterateOrder::UNDEF;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool enableDoubleCache = false;
    bool isBiasBatch = true;
    bool enableStaticPadZeros = false;
    bool isPartialOutput = false;
    bool enableMixDualMaster = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    bool isCO1Shared = false;
    uint32_t sharedCO1BufferSize = 0;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
    bool enableRelu = false;
};
// enUnitFlag: Norm (and IBShare) turn UnitFlag on by default, MDL leaves it off (asc-devkit docs,
// 高阶API/矩阵计算/Matmul-Kernel侧接口/MatmulConfig.md, enUnitFlag; GetNormalConfig.md and GetMDLConfig.md
// give the same defaults as parameters).
constexpr MatmulConfig CFG_NORM = {true, false, false};
constexpr MatmulConfig CFG_MDL = {false, false, true, 0, 0, 0, false, false, false, false, 0, 0, 0, 0, 0, 0, 0, 0, false};
// The documented parameter lists (GetNormalConfig.md, GetMDLConfig.md); the twin honours enUnitFlag and
// takes the others as the schedule ignores them (its schedule has no MTE2 preload, vector ND2NZ, etc.).
constexpr MatmulConfig GetNormalConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                       const bool isVecND2NZ = false, const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                       const bool isMsgReuse = true, const IterateOrder iterateOrder = IterateOrder::UNDEF,
                                       const ScheduleType scheduleType = ScheduleType::INNER_PRODUCT,
                                       const bool enUnitFlag = true, const bool enableMixDualMaster = false,
                                       const BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH) {
    (void)bmmMode; (void)isMsgReuse; (void)iterateOrder; (void)scheduleType; (void)enableMixDualMaster; (void)bmmOutMode;
    MatmulConfig c = CFG_NORM;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.enUnitFlag = enUnitFlag;
    return c;
}
constexpr MatmulConfig GetMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                    const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false, bool isPerTensor = false,
                                    bool hasAntiQuantOffset = false, const bool enUnitFlag = false, const bool isMsgReuse = true,
                                    const bool enableUBReuse = true, const bool enableL1CacheUB = false,
                                    const bool enableMixDualMaster = false, const bool enableKdimReorderLoad = false) {
    (void)isPerTensor; (void)hasAntiQuantOffset; (void)isMsgReuse; (void)enableUBReuse; (void)enableL1CacheUB;
    (void)enableMixDualMaster; (void)enableKdimReorderLoad;
    MatmulConfig c = CFG_MDL;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ;
    c.enUnitFlag = enUnitFlag;
    return c;
}
// The IBShare template (GetIBShareNormConfig.md; MatmulConfig.md, doIBShareNorm): Norm's schedule for a
// MIX kernel whose AIVs share a MatmulType marked IBSHARE in L1. The sharing itself follows the
// MatmulType's flag (the header); the config's other parameters are taken as the schedule ignores them.
constexpr MatmulConfig GetIBShareNormConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                            const bool isVecND2NZ = false, const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                            const bool isDoubleCache = false, const bool enUnitFlag = true) {
    MatmulConfig c = CFG_NORM;
    c.doNorm = false;
    c.doIBShareNorm = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.enableDoubleCache = isDoubleCache;
    c.enUnitFlag = enUnitFlag;
    return c;
}
constexpr MatmulConfig CFG_IBSHARE_NORM = GetIBShareNormConfig();

// Constant tiling (asc-devkit docs, 高阶API/矩阵计算/Matmul-Kernel侧接口/GetMMConfig.md, GetMatmulApiTiling.md,
// Matmul模板参数.md): GetMMConfig<mode>(MatmulShapeParams{singleCoreM, singleCoreN, singleCoreK, basicM,
// basicN, basicK}) is the mode's template with those shapes; GetMatmulApiTiling turns it into a
// MatmulApiStaticTiling (TCubeTiling's fields as constants, -1 where only the run knows them, and the
// config), which a Matmul takes as its MM_CFG; with singleCore shapes set it needs no run-time tiling
// (REGIST_MATMUL_OBJ with a null tiling). The twin supports the Norm and MDL modes (the ones the page
// lists for Atlas A2), MatmulShapeParams and MatmulBatchParams (GetMMConfig.md 表6: isNBatch, batchMode,
// isBiasBatch, bmmOutMode, in that order); the quant and func sub-configs are refused at compile time.
enum class MatmulConfigMode : int32_t { CONFIG_NORM, CONFIG_MDL, CONFIG_SPECIALMDL, CONFIG_IBSHARE };
struct MatmulShapeParams {
    uint32_t singleCoreM = 0, singleCoreN = 0, singleCoreK = 0, basicM = 0, basicN = 0, basicK = 0;
};
struct MatmulBatchParams {
    bool isNBatch = false;
    BatchMode batchMode = BatchMode::NONE;
    bool isBiasBatch = true;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
};
namespace twin_mm {
template <class T> struct always_false : std::false_type {};
constexpr void apply(MatmulConfig &c, const MatmulShapeParams &p) {
    c.singleCoreM = p.singleCoreM; c.singleCoreN = p.singleCoreN; c.singleCoreK = p.singleCoreK;
    c.basicM = p.basicM; c.basicN = p.basicN; c.basicK = p.basicK;
}
constexpr void apply(MatmulConfig &c, const MatmulBatchParams &p) {
    c.isNBatch = p.isNBatch; c.batchMode = p.batchMode; c.isBiasBatch = p.isBiasBatch; c.bmmOutMode = p.bmmOutMode;
}
template <class T> constexpr void apply(MatmulConfig &, const T &) {
    static_assert(always_false<T>::value, "GetMMConfig: the twin takes MatmulShapeParams and MatmulBatchParams only (no quant or func params yet)");
}
} // namespace twin_mm
template <MatmulConfigMode configMode, typename... ArgTypes> constexpr MatmulConfig GetMMConfig(ArgTypes &&...args) {
    static_assert(configMode == MatmulConfigMode::CONFIG_NORM || configMode == MatmulConfigMode::CONFIG_MDL,
                  "GetMMConfig: the twin supports CONFIG_NORM and CONFIG_MDL");
    MatmulConfig c = configMode == MatmulConfigMode::CONFIG_MDL ? CFG_MDL : CFG_NORM;
    (twin_mm::apply(c, args), ...);
    return c;
}
struct MatmulApiStaticTiling {
    int32_t usedCoreNum = -1, M = -1, N = -1, Ka = -1, Kb = -1, singleCoreM = -1, singleCoreN = -1, singleCoreK = -1;
    int32_t baseM = -1, baseN = -1, baseK = -1, depthA1 = -1, depthB1 = -1, stepM = -1, stepN = -1, stepKa = -1, stepKb = -1;
    int32_t isBias = -1, transLength = -1, iterateOrder = -1, dbL0A = -1, dbL0B = -1, dbL0C = -1, shareMode = -1;
    int32_t shareL1Size = -1, shareL0CSize = -1, shareUbSize = -1, batchM = -1, batchN = -1, singleBatchM = -1;
    int32_t singleBatchN = -1, mxTypePara = -1;
    MatmulConfig cfg{};
};
// The twin's rule for the L1 parameters (as its host tiling, include/kernel/tiling/matmul_tiling.h): chunks of
// up to 4 base K blocks, double-buffered when both fit in l1Size.
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
constexpr MatmulApiStaticTiling GetMatmulApiTiling(const MatmulConfig &mmCFG, int32_t l1Size = 512 * 1024) {
    MatmulApiStaticTiling t{};
    t.cfg = mmCFG;
    t.baseM = (int32_t)mmCFG.basicM; t.baseN = (int32_t)mmCFG.basicN; t.baseK = (int32_t)mmCFG.basicK;
    if (mmCFG.singleCoreM) { t.singleCoreM = (int32_t)mmCFG.singleCoreM; t.singleCoreN = (int32_t)mmCFG.singleCoreN; t.singleCoreK = (int32_t)mmCFG.singleCoreK; }
    const uint64_t es = sizeof(typename A_TYPE::T);
    const int64_t kIters = mmCFG.singleCoreK && mmCFG.basicK ? ((int64_t)mmCFG.singleCoreK + mmCFG.basicK - 1) / mmCFG.basicK : 4;
    const twin::MatmulL1Steps l1 = twin::matmul_l1_steps(kIters, (uint64_t)mmCFG.basicM * mmCFG.basicK * es,
                                                         (uint64_t)mmCFG.basicN * mmCFG.basicK * es, 0, (uint64_t)l1Size);
    t.stepKa = t.stepKb = l1.step;
    t.depthA1 = t.depthB1 = l1.depth;
    t.stepM = t.stepN = 1;
    t.isBias = 0;
    t.iterateOrder = 0;
    t.dbL0A = t.dbL0B = 2;
    t.dbL0C = 1;
    t.batchM = t.batchN = t.singleBatchM = t.singleBatchN = 1;
    return t;
}
} // namespace AscendC

// CANN declares the matmul configuration outside any namespace (asc-devkit include/adv_api/matmul/
// matmul_config.h and tiling.h): asc-devkit's matmul examples write `MatmulConfig`, `GetMDLConfig(...)`,
// `CFG_MDL` unqualified, with no `using namespace AscendC`. The twin keeps them in AscendC (where its
// Matmul reads them) and names them here too.
using AscendC::BatchMode;
using AscendC::BatchOutMode;
using AscendC::CFG_IBSHARE_NORM;
using AscendC::CFG_MDL;
using AscendC::CFG_NORM;
using AscendC::GetIBShareNormConfig;
using AscendC::GetMDLConfig;
using AscendC::GetMMConfig;
using AscendC::GetNormalConfig;
using AscendC::IterateMode;
using AscendC::IterateOrder;
using AscendC::LayoutMode;
using AscendC::MatmulApiStaticTiling;
using AscendC::MatmulConfig;
using AscendC::MatmulConfigMode;
using AscendC::MatmulShapeParams;
using AscendC::MatmulBatchParams;
using AscendC::ScheduleType;

namespace twin {
// The MatmulConfig of a Matmul's MM_CFG: the config itself, or a constant tiling's.
constexpr const AscendC::MatmulConfig &mm_cfg(const AscendC::MatmulConfig &c) { return c; }
constexpr const AscendC::MatmulConfig &mm_cfg(const AscendC::MatmulApiStaticTiling &t) { return t.cfg; }
// The run-time tiling a constant tiling stands for (M, N, K come from SetOrgShape).
inline bool static_tiling(const AscendC::MatmulConfig &, TCubeTiling &) { return false; }
inline bool static_tiling(const AscendC::MatmulApiStaticTiling &s, TCubeTiling &t) {
    t = TCubeTiling{};
    t.usedCoreNum = s.usedCoreNum; t.M = s.M; t.N = s.N; t.Ka = s.Ka; t.Kb = s.Kb;
    t.singleCoreM = s.singleCoreM; t.singleCoreN = s.singleCoreN; t.singleCoreK = s.singleCoreK;
    t.baseM = s.baseM; t.baseN = s.baseN; t.baseK = s.baseK; t.depthA1 = s.depthA1; t.depthB1 = s.depthB1;
    t.stepM = s.stepM; t.stepN = s.stepN; t.stepKa = s.stepKa; t.stepKb = s.stepKb; t.isBias = s.isBias > 0 ? 1 : 0;
    t.iterateOrder = s.iterateOrder > 0 ? s.iterateOrder : 0; t.dbL0A = s.dbL0A; t.dbL0B = s.dbL0B; t.dbL0C = s.dbL0C;
    t.batchM = s.batchM; t.batchN = s.batchN; t.singleBatchM = s.singleBatchM; t.singleBatchN = s.singleBatchN;
    return true;
}
} // namespace twin

namespace AscendC {

// MatmulCallBackFunc (Matmul-Kernel侧接口/MatmulCallBackFunc.md): user functions that replace the Matmul's
// own copies, one per position, nullptr where the library's copy stays: C from L0C (CO1) to GM, a chunk of A
// from GM to L1 (A1), a chunk of B from GM to L1 (B1). The twin calls CopyA1 / CopyB1 for each chunk it
// would load itself (row, col: the chunk's index along M and K, or K and N; useM / useK / useN: its size in
// elements), and does not implement DataCopyOut (a static_assert says so).
using MatmulDataCopyOutFn = void (*)(const __gm__ void *gm, const LocalTensor<int8_t> &co1Local, const void *dataCopyOutParams,
                                     const uint64_t tilingPtr, const uint64_t dataPtr);
using MatmulCopyA1Fn = void (*)(const LocalTensor<int8_t> &aMatrix, const __gm__ void *gm, int row, int col, int useM, int useK,
                                const uint64_t tilingPtr, const uint64_t dataPtr);
using MatmulCopyB1Fn = void (*)(const LocalTensor<int8_t> &bMatrix, const __gm__ void *gm, int row, int col, int useK, int useN,
                                const uint64_t tilingPtr, const uint64_t dataPtr);
template <MatmulDataCopyOutFn DataCopyOut = nullptr, MatmulCopyA1Fn CopyA1 = nullptr, MatmulCopyB1Fn CopyB1 = nullptr>
struct MatmulCallBackFunc {
    static constexpr MatmulDataCopyOutFn dataCopyOut = DataCopyOut;
    static constexpr MatmulCopyA1Fn copyA1 = CopyA1;
    static constexpr MatmulCopyB1Fn copyB1 = CopyB1;
};

// The Matmul's policy template parameter (Matmul-Kernel侧接口/MatmulPolicy.md), as
// MATMUL_POLICY_DEFAULT_OF declares it: `template <const auto& = MM_CFG, typename...> class`. The twin reads
// which policy it is: the default; NBuffer33 (computed as its MDL template: the same C, while the model does
// not schedule A's 3 x 3 resident blocks apart from MDL's chunks); the upper and lower triangle policies
// (the base blocks of C below, or above, the diagonal of this core's block grid are neither computed nor
// written); SplitM / SplitN / MatmulWithScale, which the docs give for Ascend 950 only.
namespace Impl {
namespace Detail {
enum class TwinPolicy { Default, NBuffer33, TrianUpper, TrianLower, Ascend950Only };
template <const auto &MM_CFG, typename... Rest> struct MatmulPolicy { static constexpr TwinPolicy twinPolicy = TwinPolicy::Default; };
template <const auto &MM_CFG, typename... Rest> struct NBuffer33MatmulPolicy { static constexpr TwinPolicy twinPolicy = TwinPolicy::NBuffer33; };
template <const auto &MM_CFG, typename... Rest> struct TrianUpperMatmulPolicy { static constexpr TwinPolicy twinPolicy = TwinPolicy::TrianUpper; };
template <const auto &MM_CFG, typename... Rest> struct TrianLowerMatmulPolicy { static constexpr TwinPolicy twinPolicy = TwinPolicy::TrianLower; };
template <const auto &MM_CFG, typename... Rest> struct SplitMMatmulPolicy { static constexpr TwinPolicy twinPolicy = TwinPolicy::Ascend950Only; };
template <const auto &MM_CFG, typename... Rest> struct SplitNMatmulPolicy { static constexpr TwinPolicy twinPolicy = TwinPolicy::Ascend950Only; };
template <const auto &MM_CFG, typename... Rest> struct MatmulWithScalePolicy { static constexpr TwinPolicy twinPolicy = TwinPolicy::Ascend950Only; };
} // namespace Detail
} // namespace Impl

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto &MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>,
          template <const auto &, typename...> class MATMUL_POLICY = Impl::Detail::MatmulPolicy>
class Matmul {
    static constexpr Impl::Detail::TwinPolicy policy_ = MATMUL_POLICY<MM_CFG>::twinPolicy;
    static_assert(policy_ != Impl::Detail::TwinPolicy::Ascend950Only,
                  "Matmul: SplitMMatmulPolicy, SplitNMatmulPolicy and MatmulWithScalePolicy are for Ascend 950 (MatmulPolicy.md); "
                  "the twin models dav-2201");
    static_assert(MM_CB::dataCopyOut == nullptr,
                  "Matmul: the twin does not implement MatmulCallBackFunc's DataCopyOut callback (CopyA1 and CopyB1 it does)");
    using SrcT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    using L0cT = typename std::conditional<std::is_same<SrcT, int8_t>::value, int32_t, float>::type;
    static_assert(std::is_same<SrcT, SrcBT>::value, "Matmul: the twin supports A and B of the same type");
    // C in the UB (VECIN / VECCALC / VECOUT) is read with GetTensorC(LocalTensor): a matmul with a vector
    // epilogue, as the learning hub's matmul_abs and asc-devkit's matmul_fused write it.
    static_assert(A_TYPE::pos == TPosition::GM && B_TYPE::pos == TPosition::GM,
                  "Matmul: the twin supports A and B in GM (TPosition::GM)");
    static_assert(C_TYPE::pos == TPosition::GM || C_TYPE::pos == TPosition::VECIN || C_TYPE::pos == TPosition::VECCALC ||
                      C_TYPE::pos == TPosition::VECOUT,
                  "Matmul: the twin supports C in GM or in the UB (VECIN, VECCALC, VECOUT)");
    // Formats (Matmul使用说明.md, FORMAT, Atlas A2 / A3): A ND, NZ or VECTOR (GEMV: M is 1), B ND or NZ, C ND,
    // NZ or ND_ALIGN (rows padded to 32 bytes); COLUMN_MAJOR is Ascend 950's.
    static_assert((A_TYPE::format == CubeFormat::ND || A_TYPE::format == CubeFormat::NZ || A_TYPE::format == CubeFormat::VECTOR) &&
                      (B_TYPE::format == CubeFormat::ND || B_TYPE::format == CubeFormat::NZ),
                  "Matmul: A may be ND, NZ or VECTOR and B ND or NZ (Matmul使用说明.md; COLUMN_MAJOR is for Ascend 950, which the twin does not model)");
    static_assert(C_TYPE::format == CubeFormat::ND || C_TYPE::format == CubeFormat::ND_ALIGN ||
                      (C_TYPE::format == CubeFormat::NZ && C_TYPE::pos == TPosition::GM),
                  "Matmul: C may be ND or ND_ALIGN, or NZ in GM (Matmul使用说明.md; COLUMN_MAJOR is for Ascend 950, which the twin does not model)");
    static_assert(!twin::mm_cfg(MM_CFG).enableRelu && !twin::mm_cfg(MM_CFG).isPartialOutput &&
                      !twin::mm_cfg(MM_CFG).isEnableChannelSplit && !twin::mm_cfg(MM_CFG).intraBlockPartSum,
                  "Matmul: the twin does not implement MatmulConfig's enableRelu, isPartialOutput, isEnableChannelSplit or intraBlockPartSum");

    // 4:2 sparse B (SparseMatmulType): the guide's constraints (4-2稀疏矩阵乘.md): int8, B and its index in
    // GM, B transposed, ND, no IBShare, the MDL template.
    static constexpr bool sparse_ = twin_mm::is_sparse<B_TYPE>::value;
    static_assert(!sparse_ || (std::is_same<SrcT, int8_t>::value && B_TYPE::isTrans && twin_mm::index_pos<B_TYPE>::value == TPosition::GM &&
                               !B_TYPE::ibShare && twin::mm_cfg(MM_CFG).doMultiDataLoad),
                  "Matmul: a SparseMatmulType B must be int8, transposed (ISTRANS true), with its index in GM, without IBShare, "
                  "under the MDL template (4-2稀疏矩阵乘.md)");

public:
    __aicore__ inline Matmul() = default;

    // REGIST_MATMUL_OBJ with a null tiling: a constant (MatmulApiStaticTiling) MM_CFG with singleCore
    // shapes is the tiling; otherwise the object waits for Init.
    void InitConstant(TPipe *tpipe, TWIN_LOC) {
        TCubeTiling t{};
        if (!twin::static_tiling(MM_CFG, t) || t.singleCoreM <= 0) return;
        Init(&t, tpipe, TWIN_LOC_ARGS);
    }

    void Init(const TCubeTiling *tiling, TPipe *tpipe = nullptr, TWIN_LOC) {
        (void)tpipe;
        if (!tiling)
            twin::fault(twin_file, twin_line, "Matmul::Init: the tiling pointer is null (only a fully constant tiling, "
                        "GetMatmulApiTiling with the single-core and base shapes, may be registered with nullptr)");
        t_ = *tiling;
        heldA_[0] = heldA_[1] = heldB_[0] = heldB_[1] = 0;
        TCubeTiling cst{};
        const bool constant = twin::static_tiling(MM_CFG, cst);
        fullConst_ = constant && cst.singleCoreM > 0 && cst.baseM > 0;
        // A constant tiling's shapes are compiled into the Matmul (GetMatmulApiTiling.md: the constant
        // (singleCore and) base shapes replace the runtime tiling's, which then need not be read; the page
        // asks that they agree with what the host tiling computes). Where they differ, as when the twin's
        // host tiling rule (not CANN's solver) picks another base shape for the same SetSingleShape
        // (asc-devkit's matmul_l0cache: constant 256 x 128 x 128, twin host 128 x 256 x 64), the compiled
        // constants are what runs: the constant base shape, its L1 steps and depths (derived for that
        // base shape), and its singleCore shape when set; M, N, K, bias and order stay the runtime's.
        if (constant && cst.baseM > 0 && (t_.baseM != cst.baseM || t_.baseN != cst.baseN || t_.baseK != cst.baseK)) {
            twin::warn_once(twin_file, twin_line,
                            "Matmul::Init: the constant tiling's base shape %d x %d x %d differs from the runtime tiling's %d x %d x %d; "
                            "the Matmul runs with the constant one, as it is compiled in (GetMatmulApiTiling.md asks that they agree)",
                            cst.baseM, cst.baseN, cst.baseK, t_.baseM, t_.baseN, t_.baseK);
            t_.baseM = cst.baseM; t_.baseN = cst.baseN; t_.baseK = cst.baseK;
            if (cst.stepKa > 0) t_.stepKa = cst.stepKa;
            if (cst.stepKb > 0) t_.stepKb = cst.stepKb;
            if (cst.depthA1 > 0) t_.depthA1 = cst.depthA1;
            if (cst.depthB1 > 0) t_.depthB1 = cst.depthB1;
            if (cst.stepM > 0) t_.stepM = cst.stepM;
            if (cst.stepN > 0) t_.stepN = cst.stepN;
            if (cst.singleCoreM > 0) { t_.singleCoreM = cst.singleCoreM; t_.singleCoreN = cst.singleCoreN; t_.singleCoreK = cst.singleCoreK; }
        }
        // The scalar work of reading and deriving a runtime tiling; a fully constant tiling does it at
        // compile time. Priced by the model (src/model/cube.rs, runtime_tiling_scalar_cycles).
        if (!fullConst_) twin::tr_scalar("MatmulTilingInit", twin_line);
        if (t_.baseM <= 0 || t_.baseN <= 0 || t_.baseK <= 0 || t_.singleCoreM <= 0 || t_.singleCoreN <= 0 || t_.singleCoreK <= 0)
            twin::fault(twin_file, twin_line,
                        "Matmul::Init: the tiling has baseM %d, baseN %d, baseK %d, singleCoreM %d, singleCoreN %d, singleCoreK %d; "
                        "all must be positive (did GetTiling fail or the tiling data not reach the kernel?)",
                        t_.baseM, t_.baseN, t_.baseK, t_.singleCoreM, t_.singleCoreN, t_.singleCoreK);
        if (t_.baseM % 16 || t_.baseN % 16 || t_.baseK % (int32_t)c0())
            twin::fault(twin_file, twin_line, "Matmul::Init: baseM %d and baseN %d must be multiples of 16 and baseK %d of %u",
                        t_.baseM, t_.baseN, t_.baseK, c0());
        orgM_ = t_.M; orgN_ = t_.N; orgKa_ = t_.Ka; orgKb_ = t_.Kb;
        sM_ = t_.singleCoreM; sN_ = t_.singleCoreN; sK_ = t_.singleCoreK;
        stepA_ = t_.stepKa > 0 ? (uint32_t)t_.stepKa : 1u;
        stepB_ = t_.stepKb > 0 ? (uint32_t)t_.stepKb : stepA_;
        // MDL double-buffers a matrix's L1 chunks when its depth holds two of them (the sample's rule
        // depthA1 / (stepM * stepKa) = 2, matmul_high_performance README, case 4); Norm keeps one.
        bufsA_ = l1Bufs(t_.depthA1, stepA_ * (uint32_t)(t_.stepM > 0 ? t_.stepM : 1));
        bufsB_ = l1Bufs(t_.depthB1, stepB_ * (uint32_t)(t_.stepN > 0 ? t_.stepN : 1));
        bias_ = t_.isBias != 0;
        // The buffers, from the pipe's L1 / L0 (capacity checked: a tiling too big for the core is a fault).
        uint64_t tileA = (uint64_t)t_.baseM * t_.baseK * sizeof(SrcT), tileB = (uint64_t)t_.baseN * t_.baseK * sizeof(SrcT);
        need(twin::HW_L1, bufsA_ * align(tileA * stepA_, 512) + bufsB_ * align(tileB * stepB_, 512) + (bias_ ? (uint64_t)t_.baseN * 4 : 0),
             bias_ ? "the A chunks (stepKa x baseM x baseK, two under MDL double buffering), the B chunks (stepKb x baseN x baseK) and a bias row"
                   : "the A chunks (stepKa x baseM x baseK, two under MDL double buffering) and the B chunks (stepKb x baseN x baseK)",
             TWIN_LOC_ARGS);
        // L0A / L0B double-buffered when two blocks of each fit, else single-buffered (dbL0A = dbL0B = 1,
        // TCubeTiling结构体.md): a 256 x 128 fp16 A block fills the 64 KiB L0A (asc-devkit's matmul_l0cache),
        // and the next block's MTE1 load then waits for the Mmad on the current one.
        l0Bufs_ = 2 * align(tileA, 512) <= twin::hw_cap(twin::HW_L0A) - twin::hw_used(twin::HW_L0A) &&
                          2 * align(tileB, 512) <= twin::hw_cap(twin::HW_L0B) - twin::hw_used(twin::HW_L0B)
                      ? 2u : 1u;
        need(twin::HW_L0A, l0Bufs_ * tileA, l0Bufs_ == 2 ? "two baseM x baseK blocks" : "one baseM x baseK block", TWIN_LOC_ARGS);
        need(twin::HW_L0B, l0Bufs_ * tileB, l0Bufs_ == 2 ? "two baseK x baseN blocks" : "one baseK x baseN block", TWIN_LOC_ARGS);
        need(twin::HW_L0C, (uint64_t)t_.baseM * t_.baseN * sizeof(L0cT), "one baseM x baseN block", TWIN_LOC_ARGS);
        if (bias_) need(twin::HW_BT, (uint64_t)t_.baseN * sizeof(L0cT), "a baseN bias row", TWIN_LOC_ARGS);
        a1_ = twin::hw_carve(twin::HW_L1, bufsA_ * align(tileA * stepA_, 512), TWIN_LOC_ARGS);
        b1_ = twin::hw_carve(twin::HW_L1, bufsB_ * align(tileB * stepB_, 512), TWIN_LOC_ARGS);
        a2_ = twin::hw_carve(twin::HW_L0A, l0Bufs_ * align(tileA, 512), TWIN_LOC_ARGS);
        b2_ = twin::hw_carve(twin::HW_L0B, l0Bufs_ * align(tileB, 512), TWIN_LOC_ARGS);
        co1_ = twin::hw_carve(twin::HW_L0C, align((uint64_t)t_.baseM * t_.baseN * sizeof(L0cT), 1024), TWIN_LOC_ARGS);
        // The bias row's L1 and bias-table space only with a bias (a tiling without isBias leaves L1 to the
        // chunks: case 5 of matmul_high_performance fills all 512 KiB); SetBias carves it later otherwise.
        if (bias_) carve_bias(TWIN_LOC_ARGS);
        inited_ = true;
    }
    void SetTensorA(const GlobalTensor<SrcT> &gm, bool isTransposeA = false) { a_ = gm; transA_ = isTransposeA || A_TYPE::isTrans; aSet_ = true; iter_ = 0; heldA_[0] = heldA_[1] = 0; nthA_++; followA_ = -1; }
    void SetTensorB(const GlobalTensor<SrcT> &gm, bool isTransposeB = false) { b_ = gm; transB_ = isTransposeB || B_TYPE::isTrans; bSet_ = true; iter_ = 0; heldB_[0] = heldB_[1] = 0; nthB_++; followB_ = -1; }
    void SetBias(const GlobalTensor<BiasT> &gm, TWIN_LOC) {
        biasGm_ = gm; bias_ = true; biasSet_ = true;
        if (inited_ && !biasCarved_) carve_bias(TWIN_LOC_ARGS);
    }
    // The 4:2 index matrix of a sparse B (SetSparseIndex.md): uint8 bytes of four 2-bit indices, NZ.
    void SetSparseIndex(const GlobalTensor<uint8_t> &indexGlobal) {
        static_assert(sparse_, "Matmul::SetSparseIndex: B is not a SparseMatmulType");
        index_ = indexGlobal;
        indexSet_ = true;
    }
    void DisableBias() { bias_ = false; }
    void ClearBias() { bias_ = false; }
    void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK); }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        (void)orgKc;
        orgM_ = orgM; orgN_ = orgN; orgKa_ = orgKa; orgKb_ = orgKb;
    }
    void SetSingleShape(int singleM, int singleN, int singleK) { sM_ = singleM; sN_ = singleN; sK_ = singleK; iter_ = 0; }
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
        if (tailM > 0) sM_ = tailM;
        if (tailN > 0) sN_ = tailN;
        if (tailK > 0) sK_ = tailK;
        iter_ = 0;
    }
    template <class T> void SetLocalWorkspace(const LocalTensor<T> &) {}
    // The callbacks' tiling and data addresses (SetUserDefInfo.md, SetSelfDefineData.md).
    void SetUserDefInfo(const uint64_t tilingPtr) { userTiling_ = tilingPtr; }
    void SetSelfDefineData(const uint64_t dataPtr) { userData_ = dataPtr; }
    // The GM IterateNBatch writes its C into (SetWorkspace.md); other schedules need none in the twin.
    template <class T> void SetWorkspace(const GlobalTensor<T> &w) {
        ws_.SetGlobalBuffer(reinterpret_cast<__gm__ DstT *>(w.ptr_), w.size_ * sizeof(T) / sizeof(DstT));
        ws_.origin_ = w.origin_;
        wsSet_ = true;
    }
    void SetWorkspace(GM_ADDR w, int size) {
        ws_.SetGlobalBuffer(reinterpret_cast<__gm__ DstT *>(w), (uint64_t)size / sizeof(DstT));
        wsSet_ = true;
    }

    // All base blocks of this core's C, written to gm (enAtomic 1: added to what is there).
    // IterateAll<false> (asynchronous, IterateAll.md; asc-devkit's matmul_async_iterate_all): the twin
    // computes every block at the call, so the result is in gm by the time WaitIterateAll returns (and
    // earlier); with waitIterateAll the kernel must call WaitIterateAll before the next IterateAll or End.
    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT> &gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false, TWIN_LOC) {
        (void)enSequentialWrite; (void)fakeMsg;
        ready("IterateAll", TWIN_LOC_ARGS);
        if (waitAll_)
            twin::fault(twin_file, twin_line, "Matmul::IterateAll: the previous IterateAll<false>(..., waitIterateAll = true) was not waited for "
                        "(call WaitIterateAll first, WaitIterateAll.md)");
        iter_ = 0;
        share(TWIN_LOC_ARGS);
        // A and B both shared: the group's cube computes this C once, for the AIV that asked first.
        const bool again = followA_ == 1 && followB_ == 1;
        const size_t mark = twin::trace_mark();
        while (Iterate(false, TWIN_LOC_ARGS)) GetTensorC(gm, enAtomic, false, TWIN_LOC_ARGS);
        if (again) twin::trace_cut(mark);
        waitAll_ = !sync && waitIterateAll;
    }
    // Waits for an asynchronous IterateAll issued with waitIterateAll (WaitIterateAll.md).
    void WaitIterateAll(TWIN_LOC) {
        if (!waitAll_)
            twin::fault(twin_file, twin_line, "Matmul::WaitIterateAll: no IterateAll<false>(..., waitIterateAll = true) is pending");
        waitAll_ = false;
    }
    // Computes the next base block into L0C; false when every block is done.
    // `sync` (Iterate<true>, the documented default): the twin computes every block at its call. Async
    // (Iterate<false>, Iterate.md / GetTensorC.md): one call starts the whole computation and each
    // GetTensorC<false> then takes the next block, which the twin computes when it is taken
    // (asc-devkit's matmul_async_iterate and matmul_fused call Iterate<false>() once).
    template <bool sync = true> bool Iterate(bool enPartialSum = false, TWIN_LOC) {
        (void)enPartialSum;
        if (!sync) async_ = true;
        ready("Iterate", TWIN_LOC_ARGS);
        share(TWIN_LOC_ARGS);
        uint32_t mIters = ceil(sM_, t_.baseM), nIters = ceil(sN_, t_.baseN);
        do {
            if (iter_ >= mIters * nIters) return false;
            if (t_.iterateOrder == 1) { nIdx_ = iter_ % nIters; mIdx_ = iter_ / nIters; }
            else { mIdx_ = iter_ % mIters; nIdx_ = iter_ / mIters; }
            iter_++;
        } while (left_out_by_policy());
        if (!fullConst_) twin::tr_scalar("MatmulTilingIter", twin_line);
        compute_block(TWIN_LOC_ARGS);
        return true;
    }
    // The block of the last Iterate, into gm at its place in this core's C.
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT> &gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, TWIN_LOC) {
        if (!computed_ && !sync && async_ && !Iterate<false>(false, TWIN_LOC_ARGS))
            twin::fault(twin_file, twin_line, "Matmul::GetTensorC<false>: every block was already taken");
        if (!computed_) twin::fault(twin_file, twin_line, "Matmul::GetTensorC: no block computed (call Iterate first)");
        // ND_ALIGN (矩阵乘输出的N方向对齐.md): C's rows are N rounded up to 32 bytes, and a block's columns
        // past N are written as padding (the guide's "invalid data"; the twin writes zeros, as the
        // matmul_format_nd_align sample's golden holds). NZ (表3): 16-column blocks of C's rows rounded up to
        // 16, one after another.
        constexpr bool ndAlign = C_TYPE::format == CubeFormat::ND_ALIGN, nzC = C_TYPE::format == CubeFormat::NZ;
        const uint32_t rowC = ldC_ ? (uint32_t)ldC_
                            : ndAlign ? (uint32_t)(align((uint64_t)orgN_ * sizeof(DstT), 32) / sizeof(DstT)) : (uint32_t)orgN_;
        const uint64_t m16 = align((uint64_t)orgM_, 16);
        uint64_t off = enSequentialWrite ? 0
                     : nzC ? (uint64_t)nIdx_ * t_.baseN * m16 + (uint64_t)mIdx_ * t_.baseM * 16
                           : (uint64_t)mIdx_ * t_.baseM * rowC + (uint64_t)nIdx_ * t_.baseN;
        uint32_t stride = enSequentialWrite ? (nzC ? (uint32_t)align(tileM_, 16) * 16 * sizeof(DstT) / 32 : tileN_)
                        : nzC ? (uint32_t)(m16 * 16 * sizeof(DstT) / 32) : rowC;
        uint8_t op = twin::g.atomic_op, ty = (uint8_t)twin::g.atomic_type;
        if (enAtomic == 1) { twin::g.atomic_op = 1; twin::g.atomic_type = twin::dcode<DstT>(); }
        if (!uf()) twin::event_wait(twin::P_M, twin::P_FIX, EV, "Matmul", TWIN_LOC_ARGS);
        const uint32_t padN = ndAlign ? (uint32_t)(align((uint64_t)tileN_ * sizeof(DstT), 32) / sizeof(DstT)) - tileN_ : 0u;
        FixpipeParamsV220 fp((uint16_t)tileN_, (uint16_t)tileM_, (uint16_t)align(tileM_, 16), stride, false);
        fp.quantPre = quant();
        if (uf()) fp.unitFlag = 3;
        if constexpr (nzC)
            Fixpipe<DstT, L0cT, CFG_NZ>(gm[off], LocalTensor<L0cT>(TPosition::CO1, co1_, (uint32_t)(t_.baseM * t_.baseN)), fp, TWIN_LOC_ARGS);
        else
            Fixpipe(gm[off], LocalTensor<L0cT>(TPosition::CO1, co1_, (uint32_t)(t_.baseM * t_.baseN)), fp, TWIN_LOC_ARGS);
        if (padN && !twin::timing_only() && !enAtomic)
            for (uint32_t m = 0; m < tileM_; m++)
                for (uint32_t n = tileN_; n < tileN_ + padN; n++) {
                    DstT *p = gm.ptr_ + off + (uint64_t)m * stride + n;
                    const DstT zero{};
                    twin::gm_check_in(gm.origin_, p, sizeof(DstT), true, "Matmul::GetTensorC (ND_ALIGN padding)", TWIN_LOC_ARGS);
                    twin::gm_store(reinterpret_cast<uint8_t *>(p), reinterpret_cast<const uint8_t *>(&zero), sizeof(DstT),
                                   "Matmul::GetTensorC (ND_ALIGN padding)", TWIN_LOC_ARGS);
                }
        if (!uf()) twin::event_set(twin::P_FIX, twin::P_M, EV, TWIN_LOC_ARGS);
        fix_pending_ = true;
        twin::g.atomic_op = op; twin::g.atomic_type = ty;
        computed_ = false;
    }
    // The block of the last Iterate into a UB tensor (VECIN / VECCALC), rows of tileN padded to 32 bytes.
    template <bool sync = true>
    void GetTensorC(const LocalTensor<DstT> &ub, uint8_t enAtomic = 0, bool enSequentialWrite = false, TWIN_LOC) {
        (void)enAtomic; (void)enSequentialWrite;
        if (!computed_ && !sync && async_ && !Iterate<false>(false, TWIN_LOC_ARGS))
            twin::fault(twin_file, twin_line, "Matmul::GetTensorC<false>: every block was already taken");
        if (!computed_) twin::fault(twin_file, twin_line, "Matmul::GetTensorC: no block computed (call Iterate first)");
        uint32_t rowElems = (uint32_t)align((uint64_t)tileN_ * sizeof(DstT), 32) / (uint32_t)sizeof(DstT);
        if (!uf()) twin::event_wait(twin::P_M, twin::P_FIX, EV, "Matmul", TWIN_LOC_ARGS);
        FixpipeParamsV220 fp((uint16_t)tileN_, (uint16_t)tileM_, (uint16_t)align(tileM_, 16), rowElems, false);
        fp.quantPre = quant();
        if (!twin::timing_only()) // timing-only mode (twin/runtime.h): nothing is moved
        twin::fix_walk(LocalTensor<L0cT>(TPosition::CO1, co1_, (uint32_t)(t_.baseM * t_.baseN)), fp,
                       [&](uint32_t, uint32_t m, uint32_t n, L0cT v) {
                           DstT o = twin::fix_convert<DstT>(v, fp, TWIN_LOC_ARGS);
                           twin::st<DstT>(twin::local_span(ub.pos_, ub.addr_ + ((uint64_t)m * rowElems + n) * sizeof(DstT),
                                                           sizeof(DstT), "Matmul::GetTensorC", TWIN_LOC_ARGS), o);
                       }, TWIN_LOC_ARGS);
        twin::CubeKeys c;
        c.n = (uint64_t)tileM_ * tileN_;
        c.dst = sizeof(DstT);
        if (uf()) c.uf = 3;
        twin::tr_cube(twin::P_FIX, "FixpipeUB", c, twin_line);
        if (!uf()) twin::event_set(twin::P_FIX, twin::P_M, EV, TWIN_LOC_ARGS);
        fix_pending_ = true;
        computed_ = false;
    }
    // IterateBatch (Matmul-Kernel侧接口/IterateBatch.md): batch = max(batchA, batchB) products of
    // singleCoreM x singleCoreN, each computed as IterateAll computes one, A's and B's matrices found by the
    // layout MatmulType gives them (A and B the same, the doc's constraint) and the host's SetALayout /
    // SetBLayout / SetCLayout (or SetBatchInfoForNormal) in TCubeTiling:
    //   NORMAL, BNGS1S2: matrix i starts i matrices in (matrixStrideA / B elements apart when given),
    //     stored as a plain Matmul stores it;
    //   BSNGD ([B, S, N, G, D], the BSH layout with H = N * G * D): matrix i, counting (b, n, g), is S x D,
    //     its rows N * G * D apart; SBNGD ([S, B, N, G, D]): rows B * N * G * D apart, matrix i from i * D. A is stored S x D (M x K, not transposed), B as D's rows of S (N x K,
    //     transposed), as the doc's figures and asc-devkit's batch_matmul example lay them out.
    // C takes CLayoutInfo the same way (S1 x S2 for M x N). Where batchA and batchB differ, the smaller is
    // broadcast (the doc: they must divide each other): product i takes A i / (batch / batchA) and B
    // i / (batch / batchB), so that consecutive products share one matrix (a G axis of query heads over one
    // key head). With a bias, product i adds bias row i (N apart) unless MatmulConfig's isBiasBatch is false
    // (the bias reused: Batch-Matmul复用Bias矩阵.md). The twin computes the products at the call, so
    // IterateBatch<false> is done by WaitIterateBatch and earlier. enPartialSum (accumulating in L0C) is not
    // implemented: a fault says so.
    template <bool sync = true, bool waitIterateBatch = false>
    void IterateBatch(const GlobalTensor<DstT> &gm, uint32_t batchA, uint32_t batchB, bool enSequentialWrite,
                      const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0, const uint32_t matrixStrideC = 0,
                      const bool enPartialSum = false, const uint8_t enAtomic = 0, TWIN_LOC) {
        (void)matrixStrideC;
        batch_check("IterateBatch", batchA, batchB, enSequentialWrite, enPartialSum, TWIN_LOC_ARGS);
        batch_products(gm, batchA, batchB, matrixStrideA, matrixStrideB, 0, enAtomic, TWIN_LOC_ARGS);
        waitBatch_ = !sync && waitIterateBatch;
    }
    // IterateNBatch (IterateNBatch.md; MatmulBatchParams' isNBatch): batchLoop IterateBatch calls, the
    // j-th taking the matrices after the first j calls' (A j * batchA in, B j * batchB, C j * batch), C
    // into the GM SetWorkspace gave. GetBatchTensorC<false> then hands out one call's C after another.
    template <bool sync = true, bool waitIterateBatch = false>
    void IterateNBatch(const uint32_t batchLoop, uint32_t batchA, uint32_t batchB, bool enSequentialWrite,
                       const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0, const uint32_t matrixStrideC = 0,
                       TWIN_LOC) {
        (void)matrixStrideC;
        static_assert(twin::mm_cfg(MM_CFG).isNBatch,
                      "Matmul::IterateNBatch: set MatmulConfig's isNBatch (MatmulBatchParams) first (IterateNBatch.md)");
        batch_check("IterateNBatch", batchA, batchB, enSequentialWrite, false, TWIN_LOC_ARGS);
        if (!wsSet_)
            twin::fault(twin_file, twin_line, "Matmul::IterateNBatch: its C goes to the GM of SetWorkspace; call SetWorkspace first");
        const uint32_t batch = batchA > batchB ? batchA : batchB;
        for (uint32_t j = 0; j < batchLoop; j++)
            batch_products(ws_, batchA, batchB, matrixStrideA, matrixStrideB, j, 0, TWIN_LOC_ARGS);
        (void)batch;
        nBatchLeft_ = sync ? 0 : batchLoop;
        nBatchTaken_ = 0;
        waitBatch_ = !sync && waitIterateBatch;
    }
    // The next IterateNBatch<false> call's C: max(batchA, batchB) products of singleCoreM x singleCoreN in
    // the workspace (GetBatchTensorC.md; only the asynchronous form).
    template <bool sync = true>
    GlobalTensor<DstT> GetBatchTensorC(uint32_t batchA, uint32_t batchB, bool enSequentialWrite = false, TWIN_LOC) {
        static_assert(!sync, "Matmul::GetBatchTensorC: only the asynchronous form, GetBatchTensorC<false> (GetBatchTensorC.md)");
        (void)enSequentialWrite;
        if (nBatchLeft_ == 0)
            twin::fault(twin_file, twin_line, "Matmul::GetBatchTensorC<false>: no IterateNBatch<false> result is left to take");
        const uint64_t batch = batchA > batchB ? batchA : batchB;
        GlobalTensor<DstT> c = ws_[(uint64_t)nBatchTaken_ * batch * (uint64_t)t_.CLayoutInfoS1 * t_.CLayoutInfoS2];
        nBatchTaken_++;
        nBatchLeft_--;
        return c;
    }
    // Waits for an IterateBatch<false, true> (WaitIterateBatch.md).
    void WaitIterateBatch(TWIN_LOC) {
        if (!waitBatch_)
            twin::fault(twin_file, twin_line, "Matmul::WaitIterateBatch: no IterateBatch<false, true> is pending");
        waitBatch_ = false;
    }
    void End(TWIN_LOC) {
        if (waitBatch_)
            twin::fault(twin_file, twin_line, "Matmul::End: an IterateBatch<false, true> was not waited for (WaitIterateBatch)");
        if (waitAll_)
            twin::fault(twin_file, twin_line, "Matmul::End: an IterateAll<false>(..., waitIterateAll = true) was not waited for (WaitIterateAll)");
        iter_ = 0; async_ = false;
    }

private:
    // IterateBatch's and IterateNBatch's checks of their arguments (IterateBatch.md's constraints).
    void batch_check(const char *api, uint32_t batchA, uint32_t batchB, bool enSequentialWrite, bool enPartialSum, TWIN_LOC_DECL) {
        static_assert(A_TYPE::layout != LayoutMode::NONE && B_TYPE::layout == A_TYPE::layout,
                      "Matmul::IterateBatch: A and B need one layout (BSNGD, SBNGD, BNGS1S2 or NORMAL) in their MatmulType (IterateBatch.md)");
        ready(api, TWIN_LOC_ARGS);
        if (waitBatch_)
            twin::fault(twin_file, twin_line, "Matmul::%s: the previous IterateBatch<false, true> was not waited for (call WaitIterateBatch first)", api);
        if (enPartialSum)
            twin::fault(twin_file, twin_line, "Matmul::%s: enPartialSum (accumulating into L0C) is not implemented by the twin", api);
        if (enSequentialWrite)
            twin::fault(twin_file, twin_line, "Matmul::%s: enSequentialWrite is for a C in the UB; a C in GM is written at its place (IterateBatch.md)", api);
        if (batchA == 0 || batchB == 0)
            twin::fault(twin_file, twin_line, "Matmul::%s: batchA %u and batchB %u must be at least 1", api, batchA, batchB);
        const uint32_t batch = batchA > batchB ? batchA : batchB;
        if (batch % batchA || batch % batchB)
            twin::fault(twin_file, twin_line, "Matmul::%s: batchA %u and batchB %u must divide each other (one is broadcast over the other)", api, batchA, batchB);
        constexpr LayoutMode lay = A_TYPE::layout;
        if ((lay == LayoutMode::BSNGD || lay == LayoutMode::SBNGD) && (transA_ || !transB_))
            twin::fault(twin_file, twin_line, "Matmul::%s: in the %s layout A is S x D (not transposed) and B is S x D (transposed: "
                        "SetTensorB(..., true)), each matrix a row of S", api, lay == LayoutMode::BSNGD ? "BSNGD" : "SBNGD");
    }
    // Where matrix t of a layout (b, s, n, g, d: TCubeTiling's LayoutInfo fields) starts, in elements, and
    // its rows' stride (0: the plain Matmul's). BSNGD: t counts (b, n, g), row-major.
    static uint64_t batch_place(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d, uint32_t stride, uint64_t t, uint64_t &ld) {
        constexpr LayoutMode lay = A_TYPE::layout;
        ld = 0;
        if (lay == LayoutMode::BSNGD) {
            const uint64_t ng = (uint64_t)n * g;
            ld = ng * d;
            return (t / ng) * s * ng * d + (t % ng) * d;
        }
        if (lay == LayoutMode::SBNGD) { ld = (uint64_t)b * n * g * d; return t * d; }
        return t * (stride ? (uint64_t)stride : (uint64_t)s * d);
    }
    // The products of one IterateBatch call, the call's matrices the `call`-th batchA / batchB / batch of
    // them: product i as IterateAll computes one, into its place in gm.
    void batch_products(const GlobalTensor<DstT> &gm, uint32_t batchA, uint32_t batchB, uint32_t strideA, uint32_t strideB,
                        uint32_t call, uint8_t enAtomic, TWIN_LOC_DECL) {
        const uint32_t batch = batchA > batchB ? batchA : batchB;
        const GlobalTensor<SrcT> a0 = a_, b0 = b_;
        const GlobalTensor<BiasT> bias0 = biasGm_;
        const bool transA = transA_, transB = transB_;
        for (uint32_t i = 0; i < batch; i++) {
            uint64_t ldA, ldB, ldC;
            const uint64_t offA = batch_place(t_.ALayoutInfoB, t_.ALayoutInfoS, t_.ALayoutInfoN, t_.ALayoutInfoG, t_.ALayoutInfoD, strideA,
                                              (uint64_t)call * batchA + i / (batch / batchA), ldA);
            const uint64_t offB = batch_place(t_.BLayoutInfoB, t_.BLayoutInfoS, t_.BLayoutInfoN, t_.BLayoutInfoG, t_.BLayoutInfoD, strideB,
                                              (uint64_t)call * batchB + i / (batch / batchB), ldB);
            const uint64_t offC = batch_place(t_.CLayoutInfoB, t_.CLayoutInfoS1, t_.CLayoutInfoN, t_.CLayoutInfoG, t_.CLayoutInfoS2, 0,
                                              (uint64_t)call * batch + i, ldC);
            SetTensorA(a0[offA], transA);
            SetTensorB(b0[offB], transB);
            ldA_ = ldA; ldB_ = ldB; ldC_ = ldC;
            if (bias_) biasGm_ = twin::mm_cfg(MM_CFG).isBiasBatch ? bias0[((uint64_t)call * batch + i) * orgN_] : bias0;
            IterateAll(gm[offC], enAtomic, false, false, false, TWIN_LOC_ARGS);
        }
        SetTensorA(a0, transA);
        SetTensorB(b0, transB);
        biasGm_ = bias0;
        ldA_ = ldB_ = ldC_ = 0;
    }
    static constexpr uint32_t c0() { return 32u / (uint32_t)sizeof(SrcT); }
    static int64_t mn64(int64_t a, int64_t b) { return a < b ? a : b; }
    static uint32_t mn32(uint32_t a, uint32_t b) { return a < b ? a : b; }
    // Event ids of the Matmul's own flags: the high ones, clear of the ids kernels usually take.
    static constexpr int EV = 6;
    // Event ids of the B chunks' MTE1 -> MTE2 flags when A and B chunks differ (stepKa != stepKb).
    static constexpr int EV_B = 4;
    // L1 chunk buffers of a matrix: two for MDL (the next chunk prefetched) when its depth holds two chunks
    // (or is unset), else one; one for Norm.
    static constexpr uint32_t l1Bufs(int32_t depth, uint32_t chunk) {
        return twin::mm_cfg(MM_CFG).doMultiDataLoad && (depth <= 0 || (uint32_t)depth >= 2 * chunk) ? 2u : 1u;
    }
    // UnitFlag between the block's Mmads and its Fixpipe (see the header).
    static constexpr bool uf() { return twin::mm_cfg(MM_CFG).enUnitFlag; }
    static uint64_t align(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
    static uint32_t ceil(int32_t v, int32_t b) { return v <= 0 ? 0u : (uint32_t)((v + b - 1) / b); }
    static QuantMode_t quant() {
        return std::is_same<DstT, half>::value ? QuantMode_t::F322F16
             : std::is_same<DstT, bfloat16_t>::value ? QuantMode_t::F322BF16 : QuantMode_t::NoQuant;
    }
    void need(twin::Hw h, uint64_t bytes, const char *what, TWIN_LOC_DECL) {
        uint64_t free = twin::hw_cap(h) - twin::hw_used(h);
        if (bytes > free)
            twin::fault(twin_file, twin_line,
                        "Matmul::Init: the tiling needs %llu bytes of %s for %s (baseM %d, baseN %d, baseK %d, stepKa %d) but %llu are free; "
                        "make the base blocks or stepKa smaller",
                        (unsigned long long)bytes, twin::hw_name(h), what, t_.baseM, t_.baseN, t_.baseK, t_.stepKa,
                        (unsigned long long)free);
    }
    // IBShare (the header): whether another AIV of this group already took the A / B this one set.
    // Both shared, the follower's whole IterateAll is the group's one computation; one shared, its loads
    // are skipped only where the matrix is whole in L1 (stepM / stepN and stepKa / stepKb cover this
    // core's shape), the case the guide describes.
    // One matrix shared takes the IBShare template (CFG_IBSHARE_NORM, doIBShareNorm: the B guide's step);
    // both shared, any (the A and B guide's example keeps the default Norm). Otherwise the flag shares
    // nothing and nothing is claimed.
    void share(TWIN_LOC_DECL) {
        const uint32_t stepM = t_.stepM > 0 ? (uint32_t)t_.stepM : 1u, stepN = t_.stepN > 0 ? (uint32_t)t_.stepN : 1u;
        const bool both = A_TYPE::ibShare && B_TYPE::ibShare;
        if (!both && !twin::mm_cfg(MM_CFG).doIBShareNorm) return;
        const bool wholeA = both || (ceil(sM_, t_.baseM) <= stepM && ceil(sK_, t_.baseK) <= stepA_);
        const bool wholeB = both || (ceil(sN_, t_.baseN) <= stepN && ceil(sK_, t_.baseK) <= stepB_);
        if (A_TYPE::ibShare && followA_ < 0) followA_ = twin::ibshare_follows('A', nthA_, a_.ptr_, TWIN_LOC_ARGS) && wholeA ? 1 : 0;
        if (B_TYPE::ibShare && followB_ < 0) followB_ = twin::ibshare_follows('B', nthB_, b_.ptr_, TWIN_LOC_ARGS) && wholeB ? 1 : 0;
    }
    void ready(const char *api, TWIN_LOC_DECL) const {
        if (!inited_) twin::fault(twin_file, twin_line, "Matmul::%s: the object was never initialised (REGIST_MATMUL_OBJ or Init)", api);
        // GEMV (A VECTOR, matmul_format_gemv): A is one row.
        if (A_TYPE::format == CubeFormat::VECTOR && orgM_ != 1)
            twin::fault(twin_file, twin_line, "Matmul::%s: A is CubeFormat::VECTOR (GEMV) but M is %d; GEMV takes M = 1 (a 1 x K A), "
                        "else declare A ND", api, orgM_);
        if (!aSet_ || !bSet_) twin::fault(twin_file, twin_line, "Matmul::%s: SetTensorA and SetTensorB first", api);
        if (bias_ && t_.isBias && !biasSet_)
            twin::fault(twin_file, twin_line, "Matmul::%s: the tiling has isBias but SetBias was not called", api);
    }
    // Where element (row, col) of a matrix as stored in GM sits, in elements from its start: ND rows of
    // `ld`, or NZ (Matmul使用说明.md, 表3): C0-wide column blocks of `rows16` rows (the stored rows rounded up
    // to 16), each row of a block C0 contiguous elements.
    struct Stored {
        uint64_t ld = 0, rows16 = 0;
        bool nz = false;
        uint64_t at(uint64_t row, uint64_t col) const {
            return nz ? (col / c0()) * rows16 * c0() + row * c0() + col % c0() : row * ld + col;
        }
    };
    static Stored stored(bool nz, uint64_t rows, uint64_t cols) {
        Stored s;
        s.ld = cols; s.rows16 = align(rows, 16); s.nz = nz;
        return s;
    }
    // A and B as they are stored: M x Ka (Ka x M transposed), Kb x N (N x Kb transposed), ND or NZ.
    // (IterateBatch's BSNGD / SBNGD matrices: rows ldA_ / ldB_ apart.)
    Stored storedA() const {
        Stored s = transA_ ? stored(A_TYPE::format == CubeFormat::NZ, (uint64_t)orgKa_, (uint64_t)orgM_)
                           : stored(A_TYPE::format == CubeFormat::NZ, (uint64_t)orgM_, (uint64_t)orgKa_);
        if (ldA_) s.ld = ldA_;
        return s;
    }
    Stored storedB() const {
        Stored s = transB_ ? stored(B_TYPE::format == CubeFormat::NZ, (uint64_t)orgN_, (uint64_t)orgKb_)
                           : stored(B_TYPE::format == CubeFormat::NZ, (uint64_t)orgKb_, (uint64_t)orgN_);
        if (ldB_) s.ld = ldB_;
        return s;
    }
    // Rows x cols of a logical matrix into L1 as NZ (16 x C0 fractals in column-major order); element
    // (r, c) is the stored matrix's (row0 + r, col0 + c), or (row0 + c, col0 + r) when `trans`, from `g`,
    // the matrix's start. Padding is zero. An NZ matrix in GM is copied fractal by fractal (no Nd2Nz).
    void to_l1(uint32_t l1, const GlobalTensor<SrcT> &g, const Stored &st, uint64_t row0, uint64_t col0, bool trans, uint32_t rows,
               uint32_t cols, uint64_t bytes_cap, bool record, TWIN_LOC_DECL) {
        const uint32_t C0 = c0(), R1 = (rows + 15) / 16, C1 = (cols + C0 - 1) / C0;
        uint64_t bytes = (uint64_t)R1 * C1 * 512;
        if (bytes > bytes_cap) twin::fault(twin_file, twin_line, "Matmul: an L1 block of %llu bytes exceeds its %llu", (unsigned long long)bytes, (unsigned long long)bytes_cap);
        uint8_t *d = twin::hw_span(twin::HW_L1, l1, bytes, "Matmul", TWIN_LOC_ARGS);
        auto elem = [&](uint32_t r, uint32_t c) { return g.ptr_ + (trans ? st.at(row0 + c, col0 + r) : st.at(row0 + r, col0 + c)); };
        uint64_t gm0 = twin::gm_check(elem(0, 0), 0, false, "Matmul", TWIN_LOC_ARGS);
        // Timing-only mode (twin/runtime.h): the first and last elements are checked, nothing is moved.
        const bool timing = twin::timing_only();
        if (timing && rows && cols) {
            twin::gm_check_in(g.origin_, elem(0, 0), sizeof(SrcT), false, "Matmul (reading A or B)", TWIN_LOC_ARGS);
            twin::gm_check_in(g.origin_, elem(rows - 1, cols - 1), sizeof(SrcT), false, "Matmul (reading A or B)", TWIN_LOC_ARGS);
        }
        if (!timing) __builtin_memset(d, 0, bytes);
        for (uint32_t r = 0; r < (timing ? 0u : rows); r++)
            for (uint32_t c = 0; c < cols; c++) {
                const SrcT *p = elem(r, c);
                twin::gm_check_in(g.origin_, p, sizeof(SrcT), false, "Matmul (reading A or B)", TWIN_LOC_ARGS);
                __builtin_memcpy(d + ((uint64_t)((c / C0) * R1 + r / 16) * 16 * C0 + (r % 16) * C0 + c % C0) * sizeof(SrcT), p, sizeof(SrcT));
            }
        // One burst a contiguous GM row of the block (ND), or a column block's rows (NZ: the stored rows
        // of one C0-wide column block are one run).
        const uint32_t sRows = trans ? cols : rows, sCols = trans ? rows : cols;
        uint32_t bursts = st.nz ? (uint32_t)((col0 % C0 + sCols + C0 - 1) / C0) : sRows;
        uint32_t burst = st.nz ? sRows * C0 * (uint32_t)sizeof(SrcT) : sCols * (uint32_t)sizeof(SrcT);
        uint64_t pitch = st.nz ? st.rows16 * C0 * sizeof(SrcT) : st.ld * sizeof(SrcT);
        // The GM allocation and the L1 / Nd2Nz marks (trace version 3), as a DataCopy Nd2Nz writes them, so the
        // model sees the chunks' L2 reuse across base blocks and cores.
        // An IBShare matrix another AIV of the group loaded is in L1 already: no copy of its own.
        if (record)
            twin::tr_dma(twin::P_MTE2, "DataCopy", (uint64_t)bursts * burst, bursts, burst, gm0, pitch > burst ? pitch - burst : 0, twin_line,
                         twin::dma_extra(g.cache_, true, !st.nz), twin::gm_buf_id(g.ptr_));
    }
    // A chunk of a 4:2 sparse B (rows n0.. of this core's B^T, cols k0.. of K) into L1 as the NZ of the
    // full B^T it stands for, so that the dense schedule then computes what the sparse Mmad would
    // (MmadWithSparse.md: C = A' x B where A' holds the two elements of each group of 4 of A the indices
    // select). Per group g of 4 of K, the index byte g / 2 (of row n) holds in bits 4(g%2) .. 4(g%2)+3 the
    // pair (i0, i1), first index in the low bits (辅助矩阵分形格式详解.md, 4选2稀疏索引矩阵: "1 2 0 1" is
    // stored high to low as 1 0 2 1); the two dense values B[n][2g], B[n][2g+1] sit at positions i0 and
    // i1 + 1 of the group (MmadWithSparse.md table 2; its rows (2, 0) and (1, 0) select one element twice,
    // so the second position is max(i1 + 1, i0)). Indices must be in {0, 1, 2} (a 3 is a fault). The index
    // matrix is Zn with 16 x 8-byte fractals, K1 outer, N1 inner (ibid.): byte (n, kb) at
    // (kb / 8) * align(N, 16) * 8 + n * 8 + kb % 8, n counted from the index tensor's start (the kernel
    // moves it by n * 8 per core, as asc-devkit's matmul_sparse does).
    void sparse_b_to_l1(uint32_t l1, uint32_t n0, uint32_t k0, uint32_t rows, uint32_t cols, uint64_t bytes_cap, TWIN_LOC_DECL) {
        if (!indexSet_) twin::fault(twin_file, twin_line, "Matmul: a sparse B needs SetSparseIndex before Iterate / IterateAll");
        if (orgKb_ % 8 || k0 % 8 || cols % 8)
            twin::fault(twin_file, twin_line, "Matmul (sparse B): K (%d) must be a multiple of 8 (a byte of the index matrix covers 8 of K)", orgKb_);
        const uint32_t C0 = c0(), R1 = (rows + 15) / 16, C1 = (cols + C0 - 1) / C0;
        const uint64_t bytes = (uint64_t)R1 * C1 * 512;
        if (bytes > bytes_cap) twin::fault(twin_file, twin_line, "Matmul: an L1 block of %llu bytes exceeds its %llu", (unsigned long long)bytes, (unsigned long long)bytes_cap);
        uint8_t *d = twin::hw_span(twin::HW_L1, l1, bytes, "Matmul", TWIN_LOC_ARGS);
        const uint64_t ldB = (uint64_t)orgKb_ / 2, n1Bytes = (uint64_t)(orgN_ + 15) / 16 * 16 * 8;
        const bool timing = twin::timing_only();
        if (!timing) __builtin_memset(d, 0, bytes);
        for (uint32_t r = 0; r < (timing ? 0u : rows); r++) {
            const uint64_t n = (uint64_t)n0 + r;
            for (uint32_t g = 0; g < cols / 4; g++) {
                const uint64_t kg = k0 / 4 + g, kb = kg / 2;
                const uint8_t *ip = index_.ptr_ + (kb / 8) * n1Bytes + n * 8 + kb % 8;
                twin::gm_check_in(index_.origin_, ip, 1, false, "Matmul (reading the sparse index)", TWIN_LOC_ARGS);
                const uint32_t bits = (uint32_t)(*ip >> (4 * (kg % 2))) & 0xFu, i0 = bits & 3u, i1 = bits >> 2;
                if (i0 > 2 || i1 > 2)
                    twin::fault(twin_file, twin_line, "Matmul (sparse B): index pair (%u, %u) at row %llu, group %llu of K; indices must be 0, 1 or 2",
                                i0, i1, (unsigned long long)n, (unsigned long long)kg);
                const SrcT *bp = b_.ptr_ + n * ldB + 2 * kg;
                twin::gm_check_in(b_.origin_, bp, 2 * sizeof(SrcT), false, "Matmul (reading the sparse B)", TWIN_LOC_ARGS);
                const uint32_t p0 = i0, p1 = i1 + 1 > i0 ? i1 + 1 : i0;
                int32_t v[4] = {0, 0, 0, 0};
                v[p0] += bp[0];
                v[p1] += bp[1];
                for (uint32_t q = 0; q < 4; q++) {
                    if (v[q] < -128 || v[q] > 127)
                        twin::fault(twin_file, twin_line, "Matmul (sparse B): indices (%u, %u) select one element of A for two values whose sum %d "
                                    "leaves int8 (the twin folds them into one B element)", i0, i1, v[q]);
                    const uint32_t c = 4 * g + q;
                    d[((uint64_t)(c / C0) * R1 * 16 + r) * C0 + c % C0] = (uint8_t)(int8_t)v[q];
                }
            }
        }
        // The dense B rows (cols / 2 bytes each) and the index bytes (cols / 8 each) as the MTE2 moves them.
        const uint64_t gmB = twin::gm_check(b_.ptr_ + (uint64_t)n0 * ldB + k0 / 2, 0, false, "Matmul", TWIN_LOC_ARGS);
        twin::tr_dma(twin::P_MTE2, "DataCopy", (uint64_t)rows * (cols / 2), rows, cols / 2, gmB, ldB > cols / 2 ? ldB - cols / 2 : 0, twin_line,
                     twin::dma_extra(b_.cache_, true, true), twin::gm_buf_id(b_.ptr_));
        const uint64_t gmI = twin::gm_check(index_.ptr_ + (uint64_t)n0 * 8, 0, false, "Matmul", TWIN_LOC_ARGS);
        twin::tr_dma(twin::P_MTE2, "DataCopy", (uint64_t)rows * (cols / 8), 1, (uint64_t)rows * (cols / 8), gmI, 0, twin_line,
                     twin::dma_extra(index_.cache_, true, false), twin::gm_buf_id(index_.ptr_));
    }
    // The triangle policies (MatmulPolicy.md): the upper one leaves out the base blocks below the diagonal
    // of this core's block grid, the lower one those above it (asc-devkit's matmul_triangle gives a diagonal
    // core the triangle Matmul, so its grid's diagonal is C's).
    bool left_out_by_policy() const {
        if constexpr (policy_ == Impl::Detail::TwinPolicy::TrianUpper) return mIdx_ > nIdx_;
        else if constexpr (policy_ == Impl::Detail::TwinPolicy::TrianLower) return mIdx_ < nIdx_;
        else return false;
    }
    // One base block. A is loaded into L1 in chunks of stepKa base K blocks, B in chunks of stepKb; with
    // stepKa == stepKb both chunks share their flags (one MTE1 -> MTE2 event per chunk pair).
    void compute_block(TWIN_LOC_DECL) {
        tileM_ = (uint32_t)mn64(t_.baseM, (int64_t)sM_ - (int64_t)mIdx_ * t_.baseM);
        tileN_ = (uint32_t)mn64(t_.baseN, (int64_t)sN_ - (int64_t)nIdx_ * t_.baseN);
        const uint32_t M1 = (tileM_ + 15) / 16, N1 = (tileN_ + 15) / 16;
        const uint64_t tileA = (uint64_t)t_.baseM * t_.baseK * sizeof(SrcT), tileB = (uint64_t)t_.baseN * t_.baseK * sizeof(SrcT);
        const uint64_t chunkA = align(tileA * stepA_, 512), chunkB = align(tileB * stepB_, 512);
        const uint32_t kBlocks = ceil(sK_, t_.baseK);
        // K full load under MDL: the chunk is this block's whole K, kept while a buffer holds it. What a
        // buffer holds is named by the chunk's row (A) or column (B) and its size (tiles clip at tails).
        const bool mdl = twin::mm_cfg(MM_CFG).doMultiDataLoad;
        const bool keepA = mdl && kBlocks <= stepA_, keepB = mdl && kBlocks <= stepB_;
        const uint64_t wantA = keepA ? (((uint64_t)mIdx_ + 1) << 32 | tileM_) : 0;
        const uint64_t wantB = keepB ? (((uint64_t)nIdx_ + 1) << 32 | tileN_) : 0;
        const bool shared = stepA_ == stepB_ && bufsA_ == bufsB_ && !keepA && !keepB;
        uint64_t mRow = (uint64_t)mIdx_ * t_.baseM, nCol = (uint64_t)nIdx_ * t_.baseN;
        if (fix_pending_ && !uf()) twin::event_wait(twin::P_FIX, twin::P_M, EV, "Matmul", TWIN_LOC_ARGS);
        fix_pending_ = false;
        bool first = true;
        uint32_t la = 0, lb = 0;
        for (uint32_t kb = 0; kb < kBlocks; kb++) {
            const uint32_t k0 = kb * (uint32_t)t_.baseK;
            bool dueA = kb % stepA_ == 0, dueB = kb % stepB_ == 0;
            if (dueA && keepA) {
                for (uint32_t i = 0; i < bufsA_; i++)
                    if (heldA_[i] == wantA) { la = i; dueA = false; }
            }
            if (dueB && keepB) {
                for (uint32_t i = 0; i < bufsB_; i++)
                    if (heldB_[i] == wantB) { lb = i; dueB = false; }
            }
            if (dueA) {
                la = l1ppA_++ % bufsA_;
                heldA_[la] = wantA;
                if (pendA_[la]) { twin::event_wait(twin::P_MTE1, twin::P_MTE2, EV + (int)la, "Matmul", TWIN_LOC_ARGS); pendA_[la] = false; }
                // A chunk: rows m, cols k (A is M x Ka, or Ka x M when transposed); a CopyA1 callback loads it
                // itself, as NZ (rows padded to 16) at the chunk's L1 address.
                if constexpr (MM_CB::copyA1 != nullptr)
                    MM_CB::copyA1(LocalTensor<int8_t>(TPosition::A1, a1_ + la * (uint32_t)chunkA, (uint32_t)chunkA),
                                  (const __gm__ void *)a_.ptr_, (int)mIdx_, (int)(kb / stepA_), (int)tileM_,
                                  (int)mn32(stepA_ * t_.baseK, (uint32_t)sK_ - k0), userTiling_, userData_);
                else
                to_l1(a1_ + la * (uint32_t)chunkA, a_, storedA(), transA_ ? k0 : mRow, transA_ ? mRow : k0, transA_, tileM_,
                      mn32(stepA_ * t_.baseK, (uint32_t)sK_ - k0), chunkA, followA_ != 1, TWIN_LOC_ARGS);
            }
            if (dueB) {
                if (shared) lb = la;
                else {
                    lb = l1ppB_++ % bufsB_;
                    heldB_[lb] = wantB;
                    if (pendB_[lb]) { twin::event_wait(twin::P_MTE1, twin::P_MTE2, EV_B + (int)lb, "Matmul", TWIN_LOC_ARGS); pendB_[lb] = false; }
                }
                // B chunk as its transpose: rows n, cols k (B is Kb x N, or N x Kb when transposed).
                if constexpr (MM_CB::copyB1 != nullptr)
                    MM_CB::copyB1(LocalTensor<int8_t>(TPosition::B1, b1_ + lb * (uint32_t)chunkB, (uint32_t)chunkB),
                                  (const __gm__ void *)b_.ptr_, (int)(kb / stepB_), (int)nIdx_,
                                  (int)mn32(stepB_ * t_.baseK, (uint32_t)sK_ - k0), (int)tileN_, userTiling_, userData_);
                else if constexpr (sparse_)
                    sparse_b_to_l1(b1_ + lb * (uint32_t)chunkB, (uint32_t)nCol, k0, tileN_, mn32(stepB_ * t_.baseK, (uint32_t)sK_ - k0),
                                   chunkB, TWIN_LOC_ARGS);
                else
                to_l1(b1_ + lb * (uint32_t)chunkB, b_, storedB(), transB_ ? nCol : k0, transB_ ? k0 : nCol, !transB_, tileN_,
                      mn32(stepB_ * t_.baseK, (uint32_t)sK_ - k0), chunkB, followB_ != 1, TWIN_LOC_ARGS);
            }
            if (bias_ && first) {
                bias_to_bt(nCol, TWIN_LOC_ARGS);
            }
            if (dueA || dueB) {
                twin::event_set(twin::P_MTE2, twin::P_MTE1, EV, TWIN_LOC_ARGS);
                twin::event_wait(twin::P_MTE2, twin::P_MTE1, EV, "Matmul", TWIN_LOC_ARGS);
            }
            const uint32_t a1 = a1_ + la * (uint32_t)chunkA, b1 = b1_ + lb * (uint32_t)chunkB;
            uint32_t bk = mn32(t_.baseK, (uint32_t)sK_ - k0);
            uint32_t k1 = (bk + c0() - 1) / c0();
            uint32_t kfA = (kb % stepA_) * (uint32_t)t_.baseK / c0(), kfB = (kb % stepB_) * (uint32_t)t_.baseK / c0();
            int buf = (int)(pp_ % l0Bufs_);
            pp_++;
            if (l0_pending_[buf]) { twin::event_wait(twin::P_M, twin::P_MTE1, EV + buf, "Matmul", TWIN_LOC_ARGS); l0_pending_[buf] = false; }
            uint32_t a2 = a2_ + (uint32_t)(buf * align(tileA, 512)), b2 = b2_ + (uint32_t)(buf * align(tileB, 512));
            // L1 NZ -> L0A Zz: one row of fractals at a time.
            LoadData2DParams lap(0, (uint8_t)k1, (uint16_t)M1, 0, 0, false, 0);
            for (uint32_t i = 0; i < M1; i++)
                LoadData(LocalTensor<SrcT>(TPosition::A2, a2 + i * k1 * 512, k1 * 512 / (uint32_t)sizeof(SrcT)),
                         LocalTensor<SrcT>(TPosition::A1, a1 + (kfA * M1 + i) * 512, 256), lap, TWIN_LOC_ARGS);
            // L1 NZ of B's transpose -> L0B Zn: the fractals are already in order.
            LoadData2DParams lbp(0, 0, 1, 0, 0, false, 0);
            for (uint32_t done = 0; done < k1 * N1; done += 255) {
                lbp.repeatTimes = (uint8_t)mn32(255, k1 * N1 - done);
                LoadData(LocalTensor<SrcT>(TPosition::B2, b2 + done * 512, 256),
                         LocalTensor<SrcT>(TPosition::B1, b1 + (kfB * N1 + done) * 512, 256), lbp, TWIN_LOC_ARGS);
            }
            twin::event_set(twin::P_MTE1, twin::P_M, EV + buf, TWIN_LOC_ARGS);
            twin::event_wait(twin::P_MTE1, twin::P_M, EV + buf, "Matmul", TWIN_LOC_ARGS);
            MmadParams mp;
            // m = 1 would put Mmad in GEMV mode (A read as a plain vector in L0A, asc-devkit docs, Mmad),
            // but this schedule keeps A in Zz fractals: a one-row tile computes 16 rows (the padding
            // rows are zero in L0A) and Fixpipe writes only tileM_ of them.
            mp.m = (uint16_t)(tileM_ == 1 ? 16 : tileM_); mp.n = (uint16_t)tileN_; mp.k = (uint16_t)bk;
            mp.cmatrixInitVal = first;
            // UnitFlag: 2 keeps the L0C blocks held for further accumulation, 3 on the block's last
            // Mmad releases them to the Fixpipe.
            if (uf()) mp.unitFlag = kb + 1 == kBlocks ? 3 : 2;
            LocalTensor<L0cT> c(TPosition::CO1, co1_, (uint32_t)(t_.baseM * t_.baseN));
            LocalTensor<SrcT> a(TPosition::A2, a2, 256), b(TPosition::B2, b2, 256);
            if (first && bias_) Mmad(c, a, b, LocalTensor<L0cT>(TPosition::C2, bt_, (uint32_t)t_.baseN), mp, TWIN_LOC_ARGS);
            else Mmad(c, a, b, mp, TWIN_LOC_ARGS);
            first = false;
            twin::event_set(twin::P_M, twin::P_MTE1, EV + buf, TWIN_LOC_ARGS);
            l0_pending_[buf] = true;
            const bool lastK = kb + 1 == kBlocks;
            // The buffer is free again once MTE1 is done with it; a kept chunk's earlier release is
            // taken first (it fired before this block's MTE1 began), so one flag stays pending per buffer.
            if ((kb + 1) % stepA_ == 0 || lastK) {
                if (pendA_[la]) twin::event_wait(twin::P_MTE1, twin::P_MTE2, EV + (int)la, "Matmul", TWIN_LOC_ARGS);
                twin::event_set(twin::P_MTE1, twin::P_MTE2, EV + (int)la, TWIN_LOC_ARGS);
                pendA_[la] = true;
            }
            if (!shared && ((kb + 1) % stepB_ == 0 || lastK)) {
                if (pendB_[lb]) twin::event_wait(twin::P_MTE1, twin::P_MTE2, EV_B + (int)lb, "Matmul", TWIN_LOC_ARGS);
                twin::event_set(twin::P_MTE1, twin::P_MTE2, EV_B + (int)lb, TWIN_LOC_ARGS);
                pendB_[lb] = true;
            }
        }
        if (!uf()) twin::event_set(twin::P_M, twin::P_FIX, EV, TWIN_LOC_ARGS);
        computed_ = true;
    }
    void carve_bias(TWIN_LOC_DECL) {
        bias1_ = twin::hw_carve(twin::HW_L1, align((uint64_t)t_.baseN * 4, 64), TWIN_LOC_ARGS);
        bt_ = twin::hw_carve(twin::HW_BT, align((uint64_t)t_.baseN * sizeof(L0cT), 64), TWIN_LOC_ARGS);
        biasCarved_ = true;
    }
    // The bias row of this block: GM -> L1 (MTE2), converted to the L0C type, -> bias table (MTE1).
    void bias_to_bt(uint64_t nCol, TWIN_LOC_DECL) {
        uint8_t *l1 = twin::hw_span(twin::HW_L1, bias1_, (uint64_t)tileN_ * 4, "Matmul (bias)", TWIN_LOC_ARGS);
        uint64_t gm0 = twin::gm_check_in(biasGm_.origin_, biasGm_.ptr_ + nCol, (uint64_t)tileN_ * sizeof(BiasT), false, "Matmul (bias)", TWIN_LOC_ARGS);
        for (uint32_t n = 0; n < tileN_; n++) {
            L0cT v = (L0cT)twin::ld<BiasT>(reinterpret_cast<const uint8_t *>(biasGm_.ptr_ + nCol + n));
            twin::st<L0cT>(l1 + (uint64_t)n * 4, v);
        }
        twin::tr_dma(twin::P_MTE2, "DataCopy", (uint64_t)tileN_ * sizeof(BiasT), 1, (uint64_t)tileN_ * sizeof(BiasT), gm0, 0, twin_line);
        uint8_t *bt = twin::hw_span(twin::HW_BT, bt_, (uint64_t)tileN_ * 4, "Matmul (bias)", TWIN_LOC_ARGS);
        __builtin_memcpy(bt, l1, (uint64_t)tileN_ * 4);
        twin::tr_dma(twin::P_MTE1, "DataCopy", (uint64_t)tileN_ * 4, 1, (uint64_t)tileN_ * 4, 0, 0, twin_line);
    }

    TCubeTiling t_{};
    GlobalTensor<SrcT> a_, b_;
    GlobalTensor<BiasT> biasGm_;
    // IterateBatch's row strides of A, B and C in the BSNGD / SBNGD layouts (0: the plain Matmul's), and
    // whether an IterateBatch<false, true> awaits WaitIterateBatch.
    uint64_t ldA_ = 0, ldB_ = 0, ldC_ = 0;
    bool waitBatch_ = false;
    // SetWorkspace's GM, and the IterateNBatch<false> results GetBatchTensorC has left to hand out.
    GlobalTensor<DstT> ws_;
    bool wsSet_ = false;
    uint32_t nBatchLeft_ = 0, nBatchTaken_ = 0;
    GlobalTensor<uint8_t> index_;
    bool indexSet_ = false;
    bool biasCarved_ = false;
    bool aSet_ = false, bSet_ = false, biasSet_ = false, transA_ = false, transB_ = false, bias_ = false, inited_ = false;
    // Whether MM_CFG is a fully constant tiling (no runtime tiling scalar work to record).
    bool fullConst_ = false;
    bool computed_ = false, async_ = false, waitAll_ = false, fix_pending_ = false, pendA_[2] = {false, false}, pendB_[2] = {false, false}, l0_pending_[2] = {false, false};
    int32_t orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0, sM_ = 0, sN_ = 0, sK_ = 0;
    uint32_t stepA_ = 1, stepB_ = 1, bufsA_ = 1, bufsB_ = 1, iter_ = 0, mIdx_ = 0, nIdx_ = 0, tileM_ = 0, tileN_ = 0, pp_ = 0;
    // SetUserDefInfo / SetSelfDefineData: what the MatmulCallBackFunc callbacks are given.
    uint64_t userTiling_ = 0, userData_ = 0;
    uint32_t l1ppA_ = 0, l1ppB_ = 0, l0Bufs_ = 2;
    // What each L1 chunk buffer holds when it is a K full load (0: nothing kept): row or column + 1, tile.
    uint64_t heldA_[2] = {0, 0}, heldB_[2] = {0, 0};
    // IBShare: SetTensorA / SetTensorB calls so far, and whether this AIV follows another of its group for
    // the matrix last set (-1 not asked yet, 0 no, 1 yes).
    uint32_t nthA_ = 0, nthB_ = 0;
    int8_t followA_ = -1, followB_ = -1;
    uint32_t a1_ = 0, b1_ = 0, bias1_ = 0, a2_ = 0, b2_ = 0, co1_ = 0, bt_ = 0;
};

} // namespace AscendC

// CANN declares the Matmul configurations, the constant-tiling types and GetSysWorkSpacePtr at global
// scope too: the public matmul examples name CFG_NORM, CFG_MDL, MatmulApiStaticTiling, MatmulShapeParams,
// GetMMConfig<MatmulConfigMode::...> and GetSysWorkSpacePtr() unqualified outside namespace AscendC
// (asc-devkit examples/.../matmul_high_performance/matmul.h).
using AscendC::CFG_IBSHARE_NORM;
using AscendC::CFG_MDL;
using AscendC::CFG_NORM;
using AscendC::GetSysWorkSpacePtr;
using AscendC::MatmulConfig;
using AscendC::MatmulApiStaticTiling;
using AscendC::MatmulConfigMode;
using AscendC::MatmulShapeParams;
using AscendC::GetMMConfig;

namespace twin {
inline void regist_matmul(AscendC::TPipe *) {}
template <class MM, class... Rest> void regist_matmul(AscendC::TPipe *pipe, MM &mm, const TCubeTiling *tiling, Rest &&...rest) {
    if (tiling) mm.Init(tiling, pipe);
    else mm.InitConstant(pipe);
    regist_matmul(pipe, rest...);
}
} // namespace twin

// REGIST_MATMUL_OBJ(pipe, workspace, mm1, &tiling1, mm2, &tiling2, ...): initialises each object with its
// tiling (a null tiling leaves the object for a later Init). In a mixed kernel (twin/mix.h) the AIVs
// call the Matmul and the AIC serves their requests from here to the end of the kernel (asc-devkit docs,
// 高阶API/矩阵计算/Matmul: the AIV side is the client, the AIC side the server); the twin computes each
// request on the AIV that makes it, so the AIC core ends at the registration.
namespace twin {
// cube_only: ASCENDC_CUBE_ONLY was defined where REGIST_MATMUL_OBJ is used: the Matmul runs on the core
// that calls it, also the AIC of a mixed kernel, which goes on past REGIST_MATMUL_OBJ (asc-devkit's
// matmul_fused_manual: the AIC computes, then sets a cross-core flag for its AIVs). Otherwise the AIC of a
// mixed kernel serves its AIVs' Matmuls and its own code ends here, and a kernel that declared no type
// runs mixed 1:2 (matmul_default_mix, twin/mix.h).
inline void matmul_aic_serves(bool cube_only) {
    if (cube_only) return;
    matmul_default_mix();
    if (g.core_kind == 1 && g.mix_aiv > 0) throw_core_end();
}
} // namespace twin
// Whether ASCENDC_CUBE_ONLY is defined where REGIST_MATMUL_OBJ expands (not where this header was first
// included): defined empty or as 1 it pastes to a name that is true, undefined to one that is false.
#define TWIN_CUBE_ONLY_PASTE2(b) TWIN_CUBE_ONLY_##b
#define TWIN_CUBE_ONLY_PASTE(b) TWIN_CUBE_ONLY_PASTE2(b)
#define TWIN_CUBE_ONLY_ASCENDC_CUBE_ONLY false
#define TWIN_CUBE_ONLY_ true
#define TWIN_CUBE_ONLY_1 true
#define TWIN_MATMUL_CUBE_ONLY TWIN_CUBE_ONLY_PASTE(ASCENDC_CUBE_ONLY)
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    (::twin::matmul_aic_serves(TWIN_MATMUL_CUBE_ONLY), ::twin::regist_matmul(tpipe, __VA_ARGS__))
namespace AscendC {
// MatmulImpl: the class CANN's Matmul is declared from, which ops-nn's and ops-transformer's matmul
// kernels name directly (`matmul::MatmulImpl<A, B, C, BIAS, CFG_MDL> mm_;`, about 95 of their files):
// the same template parameters, the same object.
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto &MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>,
          template <const auto &, typename...> class MATMUL_POLICY = Impl::Detail::MatmulPolicy>
using MatmulImpl = Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB, MATMUL_POLICY>;
} // namespace AscendC
// The older spelling `matmul::Matmul<matmul::MatmulType<...>>` (ops-cv's upsample_nearest_exact2d_grad):
// asc-devkit's adv_api/matmul/matmul.h keeps `matmul` as an alias of AscendC.
namespace matmul = AscendC;
// CANN brings AscendC::CeilDiv / CeilAlign with its Matmul headers (twin/matmul_utils.h says which).
#include "../twin/matmul_utils.h"
