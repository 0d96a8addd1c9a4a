// Unit kernel for SyncAll: every block sums its slice of x into workspace[block], all blocks meet at
// SyncAll, then block 0 adds the partial sums and writes y[0]. Checked by sync_test.sh.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t PER_BLOCK = 1024;

extern "C" __global__ __aicore__ void sync_test(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, out;
    pipe.InitBuffer(buf, PER_BLOCK * sizeof(float));
    pipe.InitBuffer(out, 64 * sizeof(float));
    GlobalTensor<float> xGm, yGm, wsGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + GetBlockIdx() * PER_BLOCK, PER_BLOCK);
    yGm.SetGlobalBuffer((__gm__ float *)y, 8);
    wsGm.SetGlobalBuffer((__gm__ float *)workspace, 64 * 8);
    LocalTensor<float> t = buf.Get<float>();
    LocalTensor<float> o = out.Get<float>();
    DataCopy(t, xGm, PER_BLOCK);
    PipeBarrier<PIPE_ALL>();
    ReduceSum(o, t, t, PER_BLOCK);
    float s = o.GetValue(0);
    Duplicate(o, s, 8);
    PipeBarrier<PIPE_ALL>();
    DataCopy(wsGm[GetBlockIdx() * 8], o, 8);
    SyncAll();
    if (GetBlockIdx() == 0) {
        float total = 0;
        for (int64_t b = 0; b < GetBlockNum(); b++) total += wsGm.GetValue(b * 8);
        Duplicate(o, total, 8);
        PipeBarrier<PIPE_ALL>();
        DataCopy(yGm, o, 8);
    }
}
