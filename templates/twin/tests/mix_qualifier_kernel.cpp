// Test kernel of tests/cube_semantics.rs: a kernel made mixed by the `__mix__(1, 2)` qualifier alone (no
// KERNEL_TASK_TYPE_DEFAULT). out (int32): per core c = block * 3 + (0 AIC, 1 + sub AIV), two values:
// GetBlockIdx and ASCEND_IS_AIV.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __mix__(1, 2) __aicore__ void mix_qualifier_test(GM_ADDR out, GM_ADDR workspace)
{
    (void)workspace;
    GlobalTensor<int32_t> o;
    o.SetGlobalBuffer((__gm__ int32_t *)out, 64);
    int64_t c = ASCEND_IS_AIC ? GetBlockIdx() * 3 : GetBlockIdx() / 2 * 3 + 1 + GetSubBlockIdx();
    o.SetValue(c * 2, (int32_t)GetBlockIdx());
    o.SetValue(c * 2 + 1, ASCEND_IS_AIV ? 1 : 0);
}

extern "C" void twin_launch(uint8_t **a) { mix_qualifier_test(a[0], a[1]); }
