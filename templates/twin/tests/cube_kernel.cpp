// The cube API on the twin, exercised for tests/cube_semantics.rs (which prepares the inputs in their
// fractal layouts, computes every expected result in Rust, and compares). One block; the tiling key
// picks a case: 0 the results, 1.. the faults the checks must raise.
//
// Inputs (bytes into `in`), outputs (bytes into `out`): see the offsets below; the Rust side uses the same.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t IN_A = 0, IN_B = 5120, IN_A8 = 12800, IN_B8 = 13824, IN_BIAS = 15872, IN_G = 16128;
constexpr uint32_t O_F = 0, O_H = 4800, O_NZ = 7200, O_ACC = 12960, O_I = 15520, O_DQ = 17568, O_BIAS = 18592,
                   O_G = 23392;
// Case 1: half A 30 x 70, B 70 x 40 (the Mmad page's example of partly filled fractals).
constexpr uint16_t M = 30, K = 70, N = 40, M1 = 2, K1 = 5, N1 = 3;

template <class T> GlobalTensor<T> gm(GM_ADDR base, uint32_t off, uint32_t n) {
    GlobalTensor<T> g;
    g.SetGlobalBuffer((__gm__ T *)(base + off), n);
    return g;
}

extern "C" __global__ __aicore__ void cube_test(GM_ADDR in, GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling) {
    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    TQue<TPosition::B1, 1> qb1;
    TQue<TPosition::A2, 2> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 2> qc;
    TBuf<TPosition::C1> bias1;
    TBuf<TPosition::C2> bias2;
    uint64_t mode = twin::g.tiling_key;
    if (mode == 1) {
        TQue<TPosition::A2, 1> big;
        pipe.InitBuffer(big, 2, 40 * 1024); // 80 KiB: more than L0A holds
        return;
    }
    pipe.InitBuffer(qa1, 1, 8192);
    pipe.InitBuffer(qb1, 1, 8192);
    pipe.InitBuffer(qa2, 2, 8192);
    pipe.InitBuffer(qb2, 1, 8192);
    pipe.InitBuffer(qc, 2, 16384);
    pipe.InitBuffer(bias1, 256);
    pipe.InitBuffer(bias2, 256);

    // GM -> L1 (plain copies of data already in NZ)
    LocalTensor<half> a1 = qa1.AllocTensor<half>();
    LocalTensor<half> b1 = qb1.AllocTensor<half>();
    DataCopy(a1, gm<half>(in, IN_A, 2560), 2560);
    DataCopy(b1, gm<half>(in, IN_B, 3840), 3840);
    qa1.EnQue(a1);
    qb1.EnQue(b1);
    a1 = qa1.DeQue<half>();
    b1 = qb1.DeQue<half>();

    // L1 (Nz) -> L0A (Zz): one LoadData per row of fractals, as the LoadData page's example.
    LocalTensor<half> a2 = qa2.AllocTensor<half>();
    LoadData2DParams la;
    la.repeatTimes = K1;
    la.srcStride = M1;
    for (int i = 0; i < M1; i++) LoadData(a2[i * K1 * 256], a1[i * 256], la);
    // L1 (Nz, K x N) -> L0B (Zn): each fractal transposed.
    LocalTensor<half> b2 = qb2.AllocTensor<half>();
    LoadData2DParams lb(0, N1, K1, 0, 0, true, 0);
    for (int k1 = 0; k1 < K1; k1++) LoadData(b2[k1 * N1 * 256], b1[k1 * 256], lb);
    if (mode == 2) {
        LocalTensor<float> c = qc.AllocTensor<float>();
        MmadParams bad;
        bad.m = M; bad.n = N; bad.k = K;
        Mmad(c, b2, b2, bad); // fm must be in L0A
        return;
    }
    qa2.EnQue(a2);
    qb2.EnQue(b2);
    a2 = qa2.DeQue<half>();
    b2 = qb2.DeQue<half>();

    LocalTensor<float> c = qc.AllocTensor<float>();
    MmadParams mp;
    mp.m = M; mp.n = N; mp.k = K;
    Mmad(c, a2, b2, mp);
    qc.EnQue(c);
    c = qc.DeQue<float>();
    FixpipeParamsV220 fp;
    fp.nSize = N; fp.mSize = M; fp.srcStride = 32; fp.dstStride = N;
    Fixpipe(gm<float>(out, O_F, M * N), c, fp);
    FixpipeParamsV220 fh(N, M, 32, N, true);
    fh.quantPre = QuantMode_t::F322F16;
    Fixpipe(gm<half>(out, O_H, M * N), c, fh);
    FixpipeParamsV220 fz;
    fz.nSize = N; fz.mSize = M; fz.srcStride = 32; fz.dstStride = M * 16 * 4 / 32;
    Fixpipe<float, float, CFG_NZ>(gm<float>(out, O_NZ, 1440), c, fz);
    if (mode == 3) {
        FixpipeParamsV220 far(N, M, 4000, N, false); // column blocks 4000 rows apart: past L0C
        Fixpipe(gm<float>(out, O_F, M * N), c[2048], far);
        return;
    }
    qc.FreeTensor(c);

    // Accumulation over K in two Mmads: rows 0..15 (one row of fractals keeps each K chunk contiguous).
    LocalTensor<half> a2b = qa2.AllocTensor<half>();
    LoadData2DParams lr(0, K1, M1, 0, 0, false, 0);
    LoadData(a2b, a1, lr);
    LocalTensor<float> c2 = qc.AllocTensor<float>();
    MmadParams m1(16, N, 48, false, 0, false, false, false);
    Mmad(c2, a2b, b2, m1);
    PipeBarrier<PIPE_M>();
    MmadParams m2(16, N, K - 48, 0, false, false); // cmatrixInitVal false: accumulate
    Mmad(c2, a2b[3 * 256], b2[3 * N1 * 256], m2);
    FixpipeParamsV220 fa(N, 16, 16, N, false);
    Fixpipe(gm<float>(out, O_ACC, 16 * N), c2, fa);

    // Bias: GM -> C1 -> C2 (bias table), then the Mmad that starts from it.
    LocalTensor<float> bl1 = bias1.Get<float>();
    DataCopy(bl1, gm<float>(in, IN_BIAS, 64), 64);
    LocalTensor<float> bl2 = bias2.Get<float>();
    DataCopy(bl2, bl1, 64);
    LocalTensor<float> c3 = c2[4096];
    Mmad(c3, a2, b2, bl2, mp);
    Fixpipe(gm<float>(out, O_BIAS, M * N), c3, fp);

    // GEMV: m = 1 reads A as ND (70 halves).
    LocalTensor<half> a2g = a2b[4096];
    LoadData(a2g, gm<half>(in, IN_G, 256), LoadData2DParams(0, 1, 0, 0, 0, false, 0));
    MmadParams mg;
    mg.m = 1; mg.n = N; mg.k = K;
    Mmad(c3, a2g, b2, mg);
    FixpipeParamsV220 fg(N, 1, 16, N, false);
    Fixpipe(gm<float>(out, O_G, N), c3, fg);

    // int8: A 16 x 64 (Zz) and B 64 x 32 (Zn) straight from GM, int32 out, then dequantised to half.
    LocalTensor<int8_t> a8 = a2b[8192].ReinterpretCast<int8_t>();
    LocalTensor<int8_t> b8 = b2[8192].ReinterpretCast<int8_t>();
    LoadData(a8, gm<int8_t>(in, IN_A8, 1024), LoadData2DParams(0, 2, 1, 0, 0, false, 0));
    LoadData(b8, gm<int8_t>(in, IN_B8, 2048), LoadData2DParams(0, 4, 1, 0, 0, false, 0));
    LocalTensor<int32_t> ci = c2[8192].ReinterpretCast<int32_t>();
    MmadParams mi(16, 32, 64, false, 0, false, false, false);
    Mmad(ci, a8, b8, mi);
    FixpipeParamsV220 fi(32, 16, 16, 32, false);
    Fixpipe(gm<int32_t>(out, O_I, 512), ci, fi);
    FixpipeParamsV220 fd(32, 16, 16, 32, false);
    fd.quantPre = QuantMode_t::DEQF16;
    float scale = 0.0625f;
    uint32_t sbits;
    __builtin_memcpy(&sbits, &scale, 4);
    fd.deqScalar = sbits;
    Fixpipe(gm<half>(out, O_DQ, 512), ci, fd);
}

extern "C" void twin_launch(uint8_t **a) { cube_test(a[0], a[1], a[2], a[3]); }
