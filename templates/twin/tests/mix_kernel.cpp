// Test kernel of tests/cube_semantics.rs (mixed kernels): a KERNEL_TYPE_MIX_AIC_1_2 (or _1_1) kernel whose
// cores report what they see and hand values to each other through GM and cross-core flags.
// out (int32): 8 slots of 8 per core, core c = block * (1 + ratio) + (0 for the AIC, 1 + sub for an AIV):
//   [GetBlockIdx, GetBlockNum, GetSubBlockIdx, GetSubBlockNum, ASCEND_IS_AIC, ASCEND_IS_AIV, value, after]
// mode (tiling key): 0 MIX_AIC_1_2 with the handshake, 1 the same as MIX_AIC_1_1, 2 an AIV waits for a
// flag nobody sets, 3 mode-1 flags between the AIVs of a block, 4 SyncAll<false> across AIC and AIVs,
// 5 the mixed type declared after ASCEND_IS_AIV, 6 KERNEL_TYPE_AIC_ONLY (not mixed, every block an AIC).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void mix_test(GM_ADDR out, GM_ADDR workspace)
{
    uint64_t mode = twin::g.tiling_key;
    if (mode == 5) {
        if ASCEND_IS_AIV { }
    }
    if (mode == 6) {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
        GlobalTensor<int32_t> o;
        o.SetGlobalBuffer((__gm__ int32_t *)out, 8 * 8 * 3);
        o.SetValue(GetBlockIdx() * 8 + 0, (int32_t)GetBlockIdx());
        o.SetValue(GetBlockIdx() * 8 + 3, (int32_t)GetSubBlockNum());
        o.SetValue(GetBlockIdx() * 8 + 4, ASCEND_IS_AIC ? 1 : 0);
        o.SetValue(GetBlockIdx() * 8 + 5, ASCEND_IS_AIV ? 1 : 0);
        return;
    }
    if (mode == 1) KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
    else KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GlobalTensor<int32_t> o;
    o.SetGlobalBuffer((__gm__ int32_t *)out, 8 * 8 * 3);
    int64_t ratio = mode == 1 ? 1 : 2;
    int64_t b = ASCEND_IS_AIC ? GetBlockIdx() : GetBlockIdx() / ratio;
    int64_t c = b * (1 + ratio) + (ASCEND_IS_AIC ? 0 : 1 + GetSubBlockIdx());
    int64_t base = c * 8;
    o.SetValue(base + 0, (int32_t)GetBlockIdx());
    o.SetValue(base + 1, (int32_t)GetBlockNum());
    o.SetValue(base + 2, (int32_t)GetSubBlockIdx());
    o.SetValue(base + 3, (int32_t)GetSubBlockNum());
    o.SetValue(base + 4, ASCEND_IS_AIC ? 1 : 0);
    o.SetValue(base + 5, ASCEND_IS_AIV ? 1 : 0);
    int64_t aic = b * (1 + ratio) * 8;
    if (mode == 0 || mode == 1) {
        if ASCEND_IS_AIC {
            o.SetValue(aic + 6, (int32_t)(100 * (b + 1)));
            CrossCoreSetFlag<2, PIPE_FIX>(3);
            if (mode == 0) CrossCoreWaitFlag(4);
            else WaitEvent(4); // the guide's spelling (mode 1)
            int32_t sum = 0;
            for (int64_t s = 0; s < ratio; s++) sum += o.GetValue(aic + 8 * (1 + s) + 6);
            o.SetValue(aic + 7, sum);
        } else {
            CrossCoreWaitFlag(3);
            o.SetValue(base + 6, o.GetValue(aic + 6) + 1 + (int32_t)GetSubBlockIdx());
            if (mode == 0) CrossCoreSetFlag<2, PIPE_MTE3>(4);
            else NotifyEvent<PIPE_MTE3>(4);
        }
    } else if (mode == 2) {
        if ASCEND_IS_AIV {
            CrossCoreWaitFlag(5);
        }
    } else if (mode == 3) {
        if ASCEND_IS_AIV {
            o.SetValue(base + 6, (int32_t)(10 + GetSubBlockIdx()));
            CrossCoreSetFlag<1, PIPE_MTE3>(2);
            CrossCoreWaitFlag(2);
            int64_t other = aic + 8 * (1 + (1 - GetSubBlockIdx()));
            o.SetValue(base + 7, o.GetValue(other + 6));
        }
    } else if (mode == 4) {
        o.SetValue(base + 6, (int32_t)(c + 1));
        SyncAll<false>();
        int32_t sum = 0;
        for (int64_t k = 0; k < GetBlockNum() * (1 + ratio); k++) sum += o.GetValue(k * 8 + 6);
        o.SetValue(base + 7, sum);
    }
}

extern "C" void twin_launch(uint8_t **a) { mix_test(a[0], a[1]); }
