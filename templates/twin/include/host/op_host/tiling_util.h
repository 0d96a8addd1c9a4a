// twin: op_host/tiling_util.h (operator-base utilities) -> twin_host/opbase.h. An operator
// repository may ship its own op_host/tiling_util.h on its include path (ops-nn does); that one is
// read too, after the twin's helpers.
#pragma once
#include "../twin_host/opbase.h"
#if defined(__has_include_next)
#if __has_include_next("op_host/tiling_util.h")
#include_next "op_host/tiling_util.h"
#endif
#endif
