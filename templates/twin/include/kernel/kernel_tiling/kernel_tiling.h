// twin: kernel_tiling/kernel_tiling.h: the matmul tiling struct TCubeTiling that the host's
// matmul_tiling::...::GetTiling fills (include/host/tiling/matmul_tiling.h) and Matmul::Init reads
// (include/kernel/lib/matmul_intf.h). One definition for both sides (the host includes this file), so
// the bytes a host tiling function writes are the struct the kernel reads. Fields and their meaning:
// asc-devkit docs, 高阶API/矩阵计算/Matmul-Tiling类/TCubeTiling结构体.md (all int), in that page's order.
#pragma once
#include <cstdint>

struct TCubeTiling {
    int32_t usedCoreNum;
    int32_t M, N, Ka, Kb;
    int32_t singleCoreM, singleCoreN, singleCoreK;
    int32_t baseM, baseN, baseK;
    int32_t depthA1, depthB1;
    int32_t stepM, stepN, stepKa, stepKb;
    int32_t isBias;
    int32_t transLength;
    int32_t iterateOrder;
    int32_t dbL0A, dbL0B, dbL0C;
    int32_t shareMode;
    int32_t shareL1Size;
    int32_t shareL0CSize;
    int32_t shareUbSize;
    int32_t batchM, batchN;
    int32_t singleBatchM, singleBatchN;
    int32_t mxTypePara;
};
