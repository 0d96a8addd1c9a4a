// Unit kernel for the twin's API coverage (not a real operator). Each test writes one slot of
// N float32 (or raw 32-bit) values into `out`; half tests write slots of N halves into `oh`.
// tests/api_check.py recomputes every slot with numpy.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t N = 256;

struct ApiTiling {
    uint32_t n;
    float scale;
};
REGISTER_TILING_DEFAULT(ApiTiling);

class ApiTest {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR h, GM_ADDR h2, GM_ADDR out, GM_ADDR oh)
    {
        aGm.SetGlobalBuffer((__gm__ float *)a, N);
        bGm.SetGlobalBuffer((__gm__ float *)b, N);
        hGm.SetGlobalBuffer((__gm__ half *)h, N);
        h2Gm.SetGlobalBuffer((__gm__ half *)h2, N);
        outGm.SetGlobalBuffer((__gm__ float *)out);
        ohGm.SetGlobalBuffer((__gm__ half *)oh);
        pipe.InitBuffer(inQ, 2, N * sizeof(float));
        pipe.InitBuffer(outQ, 1, N * sizeof(float));
        pipe.InitBuffer(bufA, N * sizeof(float));
        pipe.InitBuffer(bufB, N * sizeof(float));
        pipe.InitBuffer(bufR, N * sizeof(float));
        pipe.InitBuffer(bufH, N * sizeof(half) * 4);
        pipe.InitBuffer(bufM, 256);
    }
    __aicore__ inline void Store(int slot, const LocalTensor<float> &t)
    {
        PipeBarrier<PIPE_ALL>();
        DataCopy(outGm[slot * N], t, N);
        PipeBarrier<PIPE_ALL>();
    }
    __aicore__ inline void StoreH(int slot, const LocalTensor<half> &t)
    {
        PipeBarrier<PIPE_ALL>();
        DataCopy(ohGm[slot * N], t, N);
        PipeBarrier<PIPE_ALL>();
    }
    __aicore__ inline void Process()
    {
        // queue round trip with explicit flags
        LocalTensor<float> ta = inQ.AllocTensor<float>();
        LocalTensor<float> tb = inQ.AllocTensor<float>();
        DataCopy(ta, aGm, N);
        DataCopy(tb, bGm, N);
        inQ.EnQue(ta);
        inQ.EnQue(tb);
        ta = inQ.DeQue<float>();
        tb = inQ.DeQue<float>();
        LocalTensor<float> a = bufA.Get<float>();
        LocalTensor<float> b = bufB.Get<float>();
        LocalTensor<float> r = bufR.Get<float>();
        DataCopy(a, ta, N); // UB -> UB
        DataCopy(b, tb, N);
        inQ.FreeTensor(ta);
        inQ.FreeTensor(tb);
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);

        Sub(r, a, b, N); Store(0, r);
        Mul(r, a, b, N); Store(1, r);
        Div(r, a, b, N); Store(2, r);
        Muls(r, a, 1.5f, N); Store(3, r);
        Adds(r, a, -2.0f, N); Store(4, r);
        Max(r, a, b, N); Store(5, r);
        Min(r, a, b, N); Store(6, r);
        Maxs(r, a, 0.25f, N); Store(7, r);
        Mins(r, a, 0.25f, N); Store(8, r);
        Abs(r, a, N); Store(9, r);
        Relu(r, a, N); Store(10, r);
        Exp(r, a, N); Store(11, r);
        Abs(r, a, N); Sqrt(r, r, N); Store(12, r);
        Abs(r, a, N); Adds(r, r, 1.0f, N); Ln(r, r, N); Store(13, r);
        Reciprocal(r, b, N); Store(14, r);
        Duplicate(r, 3.25f, N); Store(15, r);

        LocalTensor<half> hh = bufH.Get<half>();
        Cast(hh, a, RoundMode::CAST_RINT, N);
        Cast(r, hh, RoundMode::CAST_NONE, N); Store(16, r);
        Muls(r, a, 10.0f, N);
        LocalTensor<int32_t> ri = r.ReinterpretCast<int32_t>();
        Cast(ri, r, RoundMode::CAST_FLOOR, N); Store(17, r);
        Muls(r, a, 10.0f, N);
        Cast(ri, r, RoundMode::CAST_ROUND, N); Store(18, r);
        Cast(hh, a, RoundMode::CAST_TRUNC, N);
        Cast(r, hh, RoundMode::CAST_NONE, N); Store(19, r);

        // level-0 Add: continuous mask 32 of 64 per repeat, 4 repeats
        Duplicate(r, 0.0f, N);
        Add(r, a, b, 32, 4, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
        Store(20, r);
        // Compare + Select == Max
        LocalTensor<uint8_t> m = bufM.Get<uint8_t>();
        Compare(m, a, b, CMPMODE::GT, N);
        Select(r, m, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, N);
        Store(21, r);
        // reductions: slot 22 = [sum, max, index(bits)]
        Duplicate(r, 0.0f, N);
        LocalTensor<float> work = bufB.Get<float>();
        ReduceSum(r, a, work, N);
        float s = r.GetValue(0);
        ReduceMax(r, a, work, N, true);
        float mx = r.GetValue(0);
        uint32_t idx = r.ReinterpretCast<uint32_t>().GetValue(1);
        Duplicate(r, 0.0f, N);
        r.SetValue(0, s);
        r.SetValue(1, mx);
        r.ReinterpretCast<uint32_t>().SetValue(2, idx);
        // scalar loop: r[3] = a[0] + ... + a[7] via GetValue
        float acc = 0;
        for (int i = 0; i < 8; i++) acc += a.GetValue(i);
        r.SetValue(3, acc);
        r.SetValue(4, (float)GetBlockIdx() + 100.0f * (float)GetBlockNum());
        Store(22, r);
        b = bufB.Get<float>();
        DataCopy(b, bGm, N); // reload b (used as work above)
        PipeBarrier<PIPE_ALL>();

        // DataCopyPad GM->UB: 3 rows of 5 floats, GM gap 4 bytes (1 float), right pad 3 x 7.0
        Duplicate(r, -1.0f, N);
        PipeBarrier<PIPE_ALL>();
        DataCopyExtParams cp(3, 5 * sizeof(float), 4, 0, 0);
        DataCopyPadExtParams<float> pad(true, 0, 3, 7.0f);
        DataCopyPad(r, aGm, cp, pad);
        Store(23, r);
        // DataCopyPad UB->GM: 3 rows of 5 floats from UB rows of 8, GM gap 8 bytes
        DataCopyExtParams cp2(3, 5 * sizeof(float), 0, 8, 0);
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(outGm[24 * N], a, cp2);
        // DataCopy with DataCopyParams: 4 bursts of 32 B, GM gap 32 B
        Duplicate(r, 0.0f, N);
        PipeBarrier<PIPE_ALL>();
        DataCopy(r, aGm, DataCopyParams(4, 1, 1, 0));
        Store(25, r);
        // atomic add: out slot 26 = a + a
        SetAtomicAdd<float>();
        DataCopy(outGm[26 * N], a, N);
        DataCopy(outGm[26 * N], a, N);
        SetAtomicNone();
        // TBuf + ReinterpretCast: int32 0x3f800000 -> 1.0f
        LocalTensor<int32_t> ib = bufR.Get<int32_t>();
        Duplicate(ib, (int32_t)0x3f800000, N);
        Store(27, bufR.Get<float>());
        // tiling: key and struct
        GET_TILING_DATA(td, tilingPtr);
        Duplicate(r, 0.0f, N);
        r.SetValue(0, TILING_KEY_IS(7) ? 1.0f : 0.0f);
        r.SetValue(1, (float)td.n);
        r.SetValue(2, td.scale);
        Store(28, r);
        // GlobalTensor scalar access
        outGm.SetValue(29 * N, aGm.GetValue(5) * 2.0f);
        // Axpy: r = a * 0.5 + b
        DataCopy(r, b, N);
        Axpy(r, a, 0.5f, N);
        Store(30, r);
        // LeakyRelu
        LeakyRelu(r, a, 0.1f, N); Store(31, r);

        // per-repeat / per-block reductions, Brcb, Gather, high-level math, bit-mask level-0
        Duplicate(r, 0.0f, N);
        WholeReduceSum(r, a, 64, 4, 1, 1, 8); Store(33, r);
        Duplicate(r, 0.0f, N);
        WholeReduceMax(r, a, 64, 4, 1, 1, 8); Store(34, r);
        Duplicate(r, 0.0f, N);
        BlockReduceSum(r, a, 4, 64, 1, 1, 8); Store(35, r);
        Duplicate(r, 0.0f, N);
        Brcb(r, a, 2, BrcbRepeatParams(1, 8)); Store(36, r);
        LocalTensor<uint32_t> offs = bufM.Get<uint32_t>(0);
        {
            LocalTensor<uint32_t> o2 = bufB.Get<uint32_t>();
            for (int i = 0; i < N; i++) o2.SetValue(i, (uint32_t)((N - 1 - i) * 4));
            Gather(r, a, o2, 0, N); Store(37, r);
            (void)offs;
        }
        Sigmoid(r, a, N); Store(38, r);
        Tanh(r, a, N); Store(39, r);
        Abs(r, a, N); Adds(r, r, 1.0f, N); Log(r, r, N); Store(40, r);
        DataCopy(b, bGm, N);
        PipeBarrier<PIPE_ALL>();
        Duplicate(r, 0.0f, N);
        uint64_t bm[2] = {0x5555555555555555ull, 0};
        Mul(r, a, b, bm, 4, BinaryRepeatParams(1, 1, 1, 8, 8, 8)); Store(41, r);

        // half arithmetic
        LocalTensor<half> h = bufH.Get<half>();
        LocalTensor<half> h2 = h[N];
        LocalTensor<half> hr = h[2 * N];
        DataCopy(h, hGm, N);
        DataCopy(h2, h2Gm, N);
        PipeBarrier<PIPE_ALL>();
        Add(hr, h, h2, N); StoreH(0, hr);
        Mul(hr, h, h2, N); StoreH(1, hr);
        Div(hr, h, h2, N); StoreH(2, hr);
        Exp(hr, h, N); StoreH(3, hr);
        Muls(hr, h, 0.1f, N); StoreH(4, hr);
        Sub(hr, h, h2, N); StoreH(5, hr);
        Cast(hr, a, RoundMode::CAST_ODD, N); StoreH(6, hr);
        Cast(hr, a, RoundMode::CAST_CEIL, N); StoreH(7, hr);
        Cast(hr, a, RoundMode::CAST_FLOOR, N); StoreH(8, hr);
        Cast(ri, h, RoundMode::CAST_RINT, N); Store(42, r);

        // GM fill
        InitGlobalMemory(outGm[43 * N], N, 2.5f);
        // output queue round trip
        LocalTensor<float> to = outQ.AllocTensor<float>();
        Adds(to, a, 1.0f, N);
        outQ.EnQue(to);
        to = outQ.DeQue<float>();
        DataCopy(outGm[32 * N], to, N);
        outQ.FreeTensor(to);
    }

    GM_ADDR tilingPtr;

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> bufA, bufB, bufR, bufH, bufM;
    GlobalTensor<float> aGm, bGm, outGm;
    GlobalTensor<half> hGm, h2Gm, ohGm;
};

extern "C" __global__ __aicore__ void api_test(GM_ADDR a, GM_ADDR b, GM_ADDR h, GM_ADDR h2, GM_ADDR out, GM_ADDR oh,
                                               GM_ADDR workspace, GM_ADDR tiling)
{
    ApiTest t;
    t.tilingPtr = tiling;
    t.Init(a, b, h, h2, out, oh);
    if (GetBlockIdx() == 0) t.Process();
}
