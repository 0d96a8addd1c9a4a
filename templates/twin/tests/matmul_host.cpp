// Host side of tests/cube_semantics.rs's Matmul check: the twin's matmul tiling for a 96 x 80 x 200
// half matmul with a float bias on 2 cores and 32 x 32 x 64 base blocks; prints the TCubeTiling bytes in
// hex on the first line, then the fields the test checks, the split of a shape where M and N tie (whose K
// fits L1 whole) and the MDL guide's shape (whose K does not).
#include <cstdio>
#include "tiling/tiling_api.h"

// Half A and B in GM to a float C, of m x n x k (shape and original shape).
template <class Tiling> void half_to_float(Tiling &t, int32_t m, int32_t n, int32_t k) {
    t.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    t.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    t.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    t.SetShape(m, n, k);
    t.SetOrgShape(m, n, k);
}

int main() {
    matmul_tiling::MultiCoreMatmulTiling t;
    t.SetDim(2);
    t.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    t.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16, true);
    t.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    t.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    t.SetShape(96, 80, 200);
    t.SetOrgShape(96, 80, 200);
    t.EnableBias(true);
    t.SetBufferSpace(-1, -1, -1);
    t.SetFixSplit(32, 32, 64);
    optiling::TCubeTiling td;
    if (t.GetTiling(td) != 0) return 1;
    const unsigned char *p = reinterpret_cast<const unsigned char *>(&td);
    for (size_t i = 0; i < sizeof td; i++) std::printf("%02x", p[i]);
    std::printf("\nusedCoreNum=%d singleCoreM=%d singleCoreN=%d singleCoreK=%d baseM=%d baseN=%d baseK=%d stepKa=%d depthA1=%d isBias=%d\n",
                td.usedCoreNum, td.singleCoreM, td.singleCoreN, td.singleCoreK, td.baseM, td.baseN, td.baseK, td.stepKa,
                td.depthA1, td.isBias);
    // An empty shape is refused.
    matmul_tiling::MatmulApiTiling bad;
    bad.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    bad.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    std::printf("empty=%lld\n", (long long)bad.GetTiling(td));
    // The IBShare guide's 64 x 256 x 384 on 2 cores, where splitting M or N costs the same: the shorter M is split.
    matmul_tiling::MultiCoreMatmulTiling g;
    g.SetDim(2);
    half_to_float(g, 64, 256, 384);
    if (g.GetTiling(td) != 0) return 1;
    std::printf("tie singleCoreM=%d singleCoreN=%d baseM=%d baseN=%d baseK=%d stepKa=%d stepKb=%d\n", td.singleCoreM,
                td.singleCoreN, td.baseM, td.baseN, td.baseK, td.stepKa, td.stepKb);
    // The MDL guide's 128 x 30720 x 1024 on 24 cores (Matmul高阶API使能MDL模板.md): 16 K blocks do not fit L1 at once.
    matmul_tiling::MultiCoreMatmulTiling m;
    m.SetDim(24);
    half_to_float(m, 128, 30720, 1024);
    if (m.GetTiling(td) != 0) return 1;
    std::printf("mdl singleCoreN=%d baseM=%d baseN=%d baseK=%d stepKa=%d stepKb=%d depthA1=%d depthB1=%d\n", td.singleCoreN,
                td.baseM, td.baseN, td.baseK, td.stepKa, td.stepKb, td.depthA1, td.depthB1);
    // NBuffer33's schedule (SetMatmulConfigParams.md, MatmulPolicy.md): K whole in at most 3 base K blocks, so
    // asc-devkit's matmul_nbuffer33 shape (K 192) tiles and the IBShare guide's K 384 (6 blocks) does not.
    auto nb33 = [&](int32_t m, int32_t n, int32_t k) {
        matmul_tiling::MatmulApiTiling t;
        half_to_float(t, m, n, k);
        t.SetMatmulConfigParams(matmul_tiling::MatmulConfigParams(1, false, matmul_tiling::ScheduleType::N_BUFFER_33,
                                                                  matmul_tiling::MatrixTraverse::NOSET, false));
        return t.GetTiling(td) == 0 ? td.stepKa : -1;
    };
    std::printf("nbuffer33 k192 stepKa=%d k384 stepKa=%d\n", nb33(256, 512, 192), nb33(64, 256, 384));
    // Splits whose cores all get the same share: asc-devkit's matmul_async_iterate (640 x 1024 over 48) and
    // matmul_nbuffer33 (256 x 512 over 24) copy whole shares out; 1000 x 1000, which no 16-aligned share
    // divides, has no such split.
    auto split = [&](int32_t dim, int32_t m, int32_t n) {
        matmul_tiling::MultiCoreMatmulTiling t;
        t.SetDim(dim);
        half_to_float(t, m, n, 64);
        if (t.GetTiling(td) != 0) return std::printf(" failed");
        return std::printf(" %dx%d/%d", td.singleCoreM, td.singleCoreN, td.usedCoreNum);
    };
    std::printf("split");
    split(48, 640, 1024);
    split(24, 256, 512);
    split(24, 1000, 1000);
    std::printf("\n");
    // A batch matmul's layouts (SetALayout.md ... SetBatchInfoForNormal.md) reach the tiling's fields:
    // asc-devkit's batch_matmul (BSNGD A 2 x 32 x 1 x 3 x 64, C BNGS1S2 2 x 32 x 1 x 3 x 256, 3 batches), and
    // NORMAL batches of 4 and 2 of 32 x 48 x 64.
    {
        matmul_tiling::MultiCoreMatmulTiling t;
        half_to_float(t, 32, 256, 64);
        t.SetALayout(2, 32, 1, 3, 64);
        t.SetBLayout(2, 256, 1, 3, 64);
        t.SetCLayout(2, 32, 1, 3, 256);
        t.SetBatchNum(3);
        if (t.GetTiling(td) != 0) return 1;
        std::printf("layout A %d %d %d %d %d B %d %d C %d %d %d %d %d batch %d\n", td.ALayoutInfoB, td.ALayoutInfoS,
                    td.ALayoutInfoN, td.ALayoutInfoG, td.ALayoutInfoD, td.BLayoutInfoS, td.BLayoutInfoD, td.CLayoutInfoB,
                    td.CLayoutInfoS1, td.CLayoutInfoN, td.CLayoutInfoG, td.CLayoutInfoS2, td.BatchNum);
        matmul_tiling::MultiCoreMatmulTiling u;
        half_to_float(u, 32, 48, 64);
        u.SetBatchInfoForNormal(4, 2, 32, 48, 64);
        if (u.GetTiling(td) != 0) return 1;
        std::printf("normal A %d %d %d B %d %d %d C %d %d %d batch %d\n", td.ALayoutInfoB, td.ALayoutInfoS, td.ALayoutInfoD,
                    td.BLayoutInfoB, td.BLayoutInfoS, td.BLayoutInfoD, td.CLayoutInfoB, td.CLayoutInfoS1, td.CLayoutInfoS2,
                    td.BatchNum);
    }
    return 0;
}
