// Kernel side of tests/cube_semantics.rs's Matmul check: 2 blocks, each its singleCoreM rows of
// C = A x B + bias (B given transposed, N x K) through IterateAll, and of C16 = half(A x B) from A given
// transposed (K x M) through Iterate / GetTensorC. The tiling bytes come from matmul_host.cpp.
// Built with -DMM_CUBE_ONLY it is a pure Cube kernel (ASCENDC_CUBE_ONLY, KERNEL_TYPE_AIC_ONLY) launched on 2
// blocks; with -DMM_MIX_MANUAL a mixed 1:2 kernel on 2 blocks whose AICs run the Matmul themselves
// (ASCENDC_CUBE_ONLY) and whose AIVs do nothing; without either, CANN's default MIX mode, launched on 1
// block: its two AIVs are blocks 0 and 1. In that MIX mode, -DMM_IBSHARE_A marks the first Matmul's A
// IBSHARE on the IBShare template (each AIV sets its own rows of A: a fault), -DMM_IBSHARE_AB its A and B, and both AIVs then set
// the same A and C rows (the group computes that IterateAll once); -DMM_IBSHARE_A_NORM flags A as
// MM_IBSHARE_A does but keeps the Matmul on CFG_NORM, where one matrix alone shares nothing.
// -DMM_TRIAN_UPPER gives the first Matmul TrianUpperMatmulPolicy (the base blocks below the diagonal of each
// core's block grid are left as they were); -DMM_CALLBACK_A gives it a CopyA1 callback that loads each A chunk
// from the buffer `at` read as another M x K matrix (SetSelfDefineData), placed by the chunk's row and column
// index and sizes, with K from the tiling SetUserDefInfo passes.
#if defined(MM_IBSHARE_A) || defined(MM_IBSHARE_AB) || defined(MM_IBSHARE_A_NORM)
constexpr bool kShareA = true;
#else
constexpr bool kShareA = false;
#endif
#if defined(MM_IBSHARE_A_NORM)
constexpr bool kIbShareTemplate = false;
#else
constexpr bool kIbShareTemplate = true;
#endif
#if defined(MM_IBSHARE_AB)
constexpr bool kShareB = true;
#else
constexpr bool kShareB = false;
#endif
#if defined(MM_CUBE_ONLY) || defined(MM_MIX_MANUAL)
#define ASCENDC_CUBE_ONLY
#endif
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;

#if defined(MM_CALLBACK_A)
__aicore__ inline void CopyA1FromData(const LocalTensor<int8_t> &aMatrix, const __gm__ void *, int row, int col, int useM,
                                      int useK, const uint64_t tilingPtr, const uint64_t dataPtr) {
    const TCubeTiling *t = reinterpret_cast<const TCubeTiling *>(tilingPtr);
    GlobalTensor<half> src;
    src.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(dataPtr));
    Nd2NzParams p;
    p.ndNum = 1;
    p.nValue = useM;
    p.dValue = useK;
    p.srcNdMatrixStride = 0;
    p.srcDValue = t->Ka;
    p.dstNzC0Stride = (useM + 15) / 16 * 16;
    p.dstNzNStride = 1;
    p.dstNzMatrixStride = 0;
    LocalTensor<half> dst = aMatrix.ReinterpretCast<half>();
    DataCopy(dst, src[(uint64_t)row * t->baseM * t->Ka + (uint64_t)col * t->stepKa * t->baseK], p);
}
using MmCallback = MatmulCallBackFunc<nullptr, CopyA1FromData, nullptr>;
#else
using MmCallback = MatmulCallBackFunc<nullptr, nullptr, nullptr>;
#endif
#if defined(MM_TRIAN_UPPER)
#define MM_POLICY Impl::Detail::TrianUpperMatmulPolicy
#else
#define MM_POLICY Impl::Detail::MatmulPolicy
#endif

extern "C" __global__ __aicore__ void mm_test(GM_ADDR a, GM_ADDR at, GM_ADDR bt, GM_ADDR bias, GM_ADDR c, GM_ADDR c16,
                                              GM_ADDR workspace, GM_ADDR tilingGm) {
#if defined(MM_CUBE_ONLY)
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
#elif defined(MM_MIX_MANUAL)
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    if ASCEND_IS_AIV {
        return;
    }
#endif
    TCubeTiling tiling;
    __builtin_memcpy(&tiling, tilingGm, sizeof tiling);
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half, false, LayoutMode::NONE, kShareA>,
           MatmulType<TPosition::GM, CubeFormat::ND, half, true, LayoutMode::NONE, kShareB>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>,
           kShareA && !kShareB && kIbShareTemplate ? CFG_IBSHARE_NORM : CFG_NORM, MmCallback, MM_POLICY>
        mm;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half, true>, MatmulType<TPosition::GM, CubeFormat::ND, half, true>,
           MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>, CFG_MDL>
        mm16;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    int64_t blk = GetBlockIdx();
    int32_t sM = tiling.singleCoreM, N = tiling.N, K = tiling.Ka, M = tiling.M;
    GlobalTensor<half> ag, atg, btg;
    GlobalTensor<float> biasg, cg;
    GlobalTensor<half> c16g;
    ag.SetGlobalBuffer((__gm__ half *)a, M * K);
    atg.SetGlobalBuffer((__gm__ half *)at, M * K);
    btg.SetGlobalBuffer((__gm__ half *)bt, N * K);
    biasg.SetGlobalBuffer((__gm__ float *)bias, N);
    cg.SetGlobalBuffer((__gm__ float *)c, M * N);
    c16g.SetGlobalBuffer((__gm__ half *)c16, M * N);
    const int64_t row = kShareA && kShareB ? 0 : blk;
#if defined(MM_CALLBACK_A)
    mm.SetUserDefInfo(reinterpret_cast<uint64_t>(&tiling));
    mm.SetSelfDefineData(reinterpret_cast<uint64_t>(at) + (uint64_t)row * sM * K * sizeof(half));
#endif
    mm.SetTensorA(ag[row * sM * K]);
    mm.SetTensorB(btg, true);
    mm.SetBias(biasg);
    if (M - row * sM < sM) mm.SetTail(M - row * sM);
    mm.IterateAll(cg[row * sM * N]);
    mm.End();

    TCubeTiling t2 = tiling;
    t2.isBias = 0;
    mm16.Init(&t2, &pipe);
    mm16.SetTensorA(atg[blk * sM], true);
    mm16.SetTensorB(btg, true);
    while (mm16.Iterate()) mm16.GetTensorC(c16g[blk * sM * N]);
    mm16.End();
}

extern "C" void twin_launch(uint8_t **x) { mm_test(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]); }
