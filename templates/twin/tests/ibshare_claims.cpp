// Check of IBShare's claims (twin::ibshare_follows, kernel_cube.cpp), run by tests/cube_semantics.rs:
// two launches of a mixed 1:2 kernel on one logical block through twin::run_blocks. In each, both AIVs
// claim B; the second follows the first. The second launch sets another B: a new launch forgets the
// first one's claims, so that is no fault (a program may launch again with other buffers). The third
// launch's AIVs set different A: a fault.
#include "kernel_operator.h"
#include "../src/kernel_internal.h"
#include <cstdio>

static char g_b[2][64], g_a[2][64];
static int g_launch = 0;
static int g_follows[2][2];

static void entry(void *) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    if ASCEND_IS_AIC {
        return;
    }
    const int sub = (int)AscendC::GetSubBlockIdx();
    if (g_launch < 2)
        g_follows[g_launch][sub] = twin::ibshare_follows('B', 1, g_b[g_launch], "ibshare_claims.cpp", 1);
    else
        twin::ibshare_follows('A', 1, g_a[sub], "ibshare_claims.cpp", 2);
}

int main() {
    twin::Launch l{};
    l.entry = entry;
    l.block_dim = 1;
    l.ub_bytes = 196352;
    for (g_launch = 0; g_launch < 3; g_launch++) {
        const twin::LaunchResult r = twin::run_blocks(l);
        if (g_launch < 2)
            std::printf("launch %d: rc %d, AIV 0 follows %d, AIV 1 follows %d\n", g_launch, r.rc, g_follows[g_launch][0],
                        g_follows[g_launch][1]);
        else
            std::printf("launch %d: rc %d: %s", g_launch, r.rc, r.err.c_str());
        std::fflush(stdout);
    }
    return 0;
}
