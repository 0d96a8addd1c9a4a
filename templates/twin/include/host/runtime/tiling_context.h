// twin: runtime/tiling_context.h -> exe_graph/runtime/tiling_context.h, the header CANN documents as
// <exe_graph/runtime/tiling_context.h>; operator code also names it without the exe_graph/ prefix
// (ops-nn foreach_norm, mse_loss, shape: #include "runtime/tiling_context.h").
#pragma once
#include "../exe_graph/runtime/tiling_context.h"
