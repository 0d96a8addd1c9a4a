// The cube API's newer calls on the twin, for tests/cube_semantics.rs: LoadDataWithTranspose (b16, b8, b32),
// LoadData 3D v2 (its 2D-matrix case, into L0A and L0B; its packed form LoadData3DParamsV2Pro with SetFmatrix), Fill on L1 / L0A / L0B, DataCopy L0C -> GM with
// DataCopyCO12DstParams and the fixpipe registers, and Mmad on operands loaded with them. The Rust side
// prepares the inputs, computes every expected result from the documented semantics, and compares; L0 / L1
// contents are copied out to GM with twin::hw_span (a test-only window onto the buffers). One block; the
// tiling key picks a case: 0 the results, 1.. the faults.
#include <cstring>
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t IN_T16 = 0, IN_T8 = 4096, IN_T32 = 8192, IN_X32 = 10240, IN_X16 = 13312, IN_A = 15360, IN_B = 17408,
                   IN_A8 = 20480, IN_B8 = 20992;
constexpr uint32_t O_T16 = 0, O_T8 = 3072, O_T32 = 6144, O_FILL = 7680, O_X32 = 8000, O_X16 = 9024, O_MM = 9536,
                   O_NZ = 12608, O_DQ = 18752, O_X16P = 19776;

template <class T> GlobalTensor<T> gm(GM_ADDR base, uint32_t off, uint32_t n) {
    GlobalTensor<T> g;
    g.SetGlobalBuffer((__gm__ T *)(base + off), n);
    return g;
}
static void dump(twin::Hw h, uint32_t addr, uint32_t bytes, GM_ADDR out, uint32_t off) {
    const uint8_t *p = twin::hw_span(h, addr, bytes, "dump", __FILE__, __LINE__);
    std::memcpy(out + off, p, bytes);
}
template <class T> LocalTensor<T> at(TPosition p, uint32_t addr, uint32_t n) { return LocalTensor<T>(p, addr, n); }

extern "C" __global__ __aicore__ void cube2_test(GM_ADDR in, GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling) {
    uint64_t mode = twin::g.tiling_key;
    if (mode == 1) {
        LoadData2DParamsV2 v2{0, 0, 1, 1, 1, 1, false, 0};
        LoadData(at<half>(TPosition::A2, 0, 256), at<half>(TPosition::A1, 0, 256), v2);
        return;
    }
    if (mode == 2) {
        LoadData3DParamsV2<half> p;
        p.l1H = 16;
        p.l1W = 16;
        p.channelSize = 16;
        p.kExtension = 16;
        p.mExtension = 16;
        p.filterW = 3;
        p.filterH = 3;
        LoadData(at<half>(TPosition::A2, 0, 256), at<half>(TPosition::A1, 0, 256), p);
        return;
    }
    if (mode == 3) {
        SetFixPipeConfig(at<uint64_t>(TPosition::C2PIPE2GM, 0, 64));
        return;
    }

    // LoadDataWithTranspose, b16: L1 holds 8 fractals; squares 1, 3, 5 -> L0A fractals 0, 2, 4 (dstGap 1);
    // L0A first filled with 0xABCD so the gaps show.
    DataCopy(at<uint16_t>(TPosition::A1, 0, 2048), gm<uint16_t>(in, IN_T16, 2048), 2048);
    Fill(at<uint16_t>(TPosition::A2, 0, 1536), InitConstValueParams<uint16_t>{1, 6, 0, (uint16_t)0xABCD});
    LoadDataWithTranspose(at<uint16_t>(TPosition::A2, 0, 1536), at<uint16_t>(TPosition::A1, 0, 2048),
                          LoadData2dTransposeParams{1, 3, 2, 1, 0, 0});
    dump(twin::HW_L0A, 0, 3072, out, O_T16);

    // b8: 4 squares of 32 x 32 bytes; squares 0 and 1, dstGap 0, dstFracGap 2 -> L0B fractals 0, 3 and 1, 4.
    DataCopy(at<uint8_t>(TPosition::B1, 4096, 4096), gm<uint8_t>(in, IN_T8, 4096), 4096);
    Fill(at<uint16_t>(TPosition::B2, 0, 1536), {1, 6, 0, (uint16_t)0x5A5A});
    LoadDataWithTranspose(at<uint8_t>(TPosition::B2, 0, 3072), at<uint8_t>(TPosition::B1, 4096, 4096),
                          LoadData2dTransposeParams{0, 2, 1, 0, 2, 0});
    dump(twin::HW_L0B, 0, 3072, out, O_T8);

    // b32: 2 squares of 16 x 16 words; square 1, dstFracGap 1 -> L0A fractals 0 and 2 (at 8192).
    DataCopy(at<uint32_t>(TPosition::A1, 8192, 512), gm<uint32_t>(in, IN_T32, 512), 512);
    Fill(at<uint32_t>(TPosition::A2, 8192, 384), InitConstValueParams<uint32_t>(1, 3, 0, 0xDEADBEEFu));
    LoadDataWithTranspose(at<uint32_t>(TPosition::A2, 8192, 384), at<uint32_t>(TPosition::A1, 8192, 512),
                          LoadData2dTransposeParams{1, 1, 0, 0, 1, 0});
    dump(twin::HW_L0A, 8192, 1536, out, O_T32);

    // Fill in L1: 3 repeats of 2 blocks, 1 block between them, half 1.5 over a zeroed region.
    Fill(at<half>(TPosition::A1, 12288, 160), InitConstValueParams<half>{1, 10, 0, half(0.0f)});
    Fill(at<half>(TPosition::A1, 12288, 160), InitConstValueParams<half>{3, 2, 1, half(1.5f)});
    dump(twin::HW_L1, 12288, 320, out, O_FILL);

    // LoadData 3D v2, float X 32 x 24 (l1H 32, l1W 1, NC1HWC0 = Nz with C0 8) -> L0B, rows 8..23, columns 8..23.
    DataCopy(at<float>(TPosition::B1, 16384, 768), gm<float>(in, IN_X32, 768), 768);
    {
        LoadData3DParamsV2<float> p;
        p.l1H = 32;
        p.l1W = 1;
        p.channelSize = 24;
        p.mStartPt = 8;
        p.mExtension = 16;
        p.kStartPt = 8;
        p.kExtension = 16;
        LoadData(at<float>(TPosition::B2, 8192, 256), at<float>(TPosition::B1, 16384, 768), p);
    }
    dump(twin::HW_L0B, 8192, 1024, out, O_X32);
    // half X 32 x 32 (l1H 16, l1W 2) -> L0A, rows 16..31, columns 16..31.
    DataCopy(at<half>(TPosition::A1, 20480, 1024), gm<half>(in, IN_X16, 1024), 1024);
    {
        LoadData3DParamsV2<half> p;
        p.l1H = 16;
        p.l1W = 2;
        p.channelSize = 32;
        p.mStartPt = 16;
        p.mExtension = 16;
        p.kStartPt = 16;
        p.kExtension = 16;
        LoadData(at<half>(TPosition::A2, 12288, 256), at<half>(TPosition::A1, 20480, 1024), p);
    }
    dump(twin::HW_L0A, 12288, 512, out, O_X16);
    // The same move in the packed form: the FeatureMap from SetFmatrix, start points and extensions in
    // extConfig (mStartPt << 48 | kStartPt << 32 | mExtension << 16 | kExtension), filterConfig's default.
    {
        uint8_t pad[4] = {0, 0, 0, 0};
        SetFmatrix(16, 2, pad, FmatrixMode::FMATRIX_LEFT);
        LoadData3DParamsV2Pro p;
        p.channelSize = 32;
        p.extConfig = ((uint64_t)16 << 48) | ((uint64_t)16 << 32) | ((uint64_t)16 << 16) | (uint64_t)16;
        LoadData<half>(at<half>(TPosition::A2, 13312, 256), at<half>(TPosition::A1, 20480, 1024), p);
    }
    dump(twin::HW_L0A, 13312, 512, out, O_X16P);

    // Mmad on A (32 x 32, LoadData 2D into Zz) and B (32 x 48, Nz in L1, LoadDataWithTranspose into Zn, as
    // asc-devkit's data_copy_l0c2gm does); out through DataCopy: NZ2ND + ReLU + F322F16, and NZ float.
    DataCopy(at<half>(TPosition::A1, 24576, 1024), gm<half>(in, IN_A, 1024), 1024);
    DataCopy(at<half>(TPosition::B1, 32768, 1536), gm<half>(in, IN_B, 1536), 1536);
    LoadData2DParams la;
    la.repeatTimes = 2;
    la.srcStride = 2;
    for (int i = 0; i < 2; i++) LoadData(at<half>(TPosition::A2, 16384 + i * 1024, 512), at<half>(TPosition::A1, 24576 + i * 512, 256), la);
    for (int kb = 0; kb < 2; kb++) // each 16-row block of K: its 3 fractals along N
        LoadDataWithTranspose(at<half>(TPosition::B2, 16384 + kb * 1536, 768), at<half>(TPosition::B1, 32768 + kb * 512, 256),
                              LoadData2dTransposeParams{0, 3, 2, 0, 0, 0});
    Mmad(at<float>(TPosition::CO1, 0, 1536), at<half>(TPosition::A2, 16384, 1024), at<half>(TPosition::B2, 16384, 1536),
         MmadParams{32, 48, 32, 0, false, true});
    SetFixpipeNz2ndFlag(1, 0, 0);
    DataCopyCO12DstParams dp;
    dp.nSize = 48;
    dp.mSize = 32;
    dp.srcStride = 32;
    dp.dstStride = 48;
    dp.quantPre = QuantMode_t::F322F16;
    dp.reluPre = 1;
    dp.nz2ndEn = true;
    DataCopy(gm<half>(out, O_MM, 1536), at<float>(TPosition::CO1, 0, 1536), dp);
    DataCopyCO12DstParams dn;
    dn.nSize = 48;
    dn.mSize = 32;
    dn.srcStride = 32;
    dn.dstStride = 32 * 16 * 4 / 32;
    DataCopy(gm<float>(out, O_NZ, 1536), at<float>(TPosition::CO1, 0, 1536), dn);

    // int8: A 16 x 32 (one fractal, Zz = Nz), B 32 x 32 in L1 Nz (one 32 x 32 square) -> Zn by the b8
    // transpose; DEQF16 with the scalar from SetFixpipePreQuantFlag, ReLU, NZ2ND.
    DataCopy(at<int8_t>(TPosition::A1, 40960, 512), gm<int8_t>(in, IN_A8, 512), 512);
    DataCopy(at<int8_t>(TPosition::B1, 41472, 1024), gm<int8_t>(in, IN_B8, 1024), 1024);
    LoadData(at<int8_t>(TPosition::A2, 24576, 512), at<int8_t>(TPosition::A1, 40960, 512), LoadData2DParams{0, 1, 0, 0, 0, false, 0});
    LoadDataWithTranspose(at<int8_t>(TPosition::B2, 24576, 1024), at<int8_t>(TPosition::B1, 41472, 1024),
                          LoadData2dTransposeParams{0, 1, 0, 0, 0, 0});
    Mmad(at<int32_t>(TPosition::CO1, 8192, 512), at<int8_t>(TPosition::A2, 24576, 512), at<int8_t>(TPosition::B2, 24576, 1024),
         MmadParams{16, 32, 32, 0, false, true});
    float scale = 0.5f;
    uint32_t bits;
    std::memcpy(&bits, &scale, 4);
    SetFixpipePreQuantFlag(bits);
    DataCopyCO12DstParams dq;
    dq.nSize = 32;
    dq.mSize = 16;
    dq.srcStride = 16;
    dq.dstStride = 32;
    dq.quantPre = QuantMode_t::DEQF16;
    dq.reluPre = 1;
    dq.nz2ndEn = true;
    DataCopy(gm<half>(out, O_DQ, 512), at<int32_t>(TPosition::CO1, 8192, 512), dq);
}

extern "C" void twin_launch(uint8_t **a) { cube2_test(a[0], a[1], a[2], a[3]); }
