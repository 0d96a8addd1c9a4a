// twin: graph/ascend_string.h, the header of ge::AscendString in the CANN graph API (ascendgraphapi,
// "AscendString"). The twin declares it with ge::Operator (graph/operator.h); ops-nn's tuning-tiling
// registry (common/inc/op_host/register/tuning_tiling_registry.h) includes this header by name.
#pragma once
#include "operator.h"
