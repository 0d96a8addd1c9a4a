// twin (kernel side): the host names that a tiling header force-included into the kernel build may
// declare functions with (ops-transformer's moe_token_unpermute_tiling.h:
// `ge::graphStatus TilingCompute(gert::TilingContext *context, ...)`): the status type and codes, and the
// contexts as incomplete classes, and the ge::DataType numbers a host struct in the header may hold as a
// default (ops-nn swi_glu_quant_tiling.h: `int64_t dstType = ge::DT_INT8;`, the numbers of graph/types.h,
// as the host side's twin_host/core.h). Nothing here can be called on the kernel side; a kernel that uses
// them fails to compile, as it would for the device.
#pragma once
#include <cstdint>

namespace ge {
using graphStatus = uint32_t;
#ifndef TWIN_GE_GRAPH_STATUS // the host side's twin_host/core.h defines these two as well
#define TWIN_GE_GRAPH_STATUS
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFu;
#endif
} // namespace ge
#include "../twin/dt_macros_off.h"
#include "../twin/ge_data_type.h"
#include "../twin/dt_macros_on.h"
namespace gert {
class TilingContext;
class TilingParseContext;
class InferShapeContext;
class InferDataTypeContext;
} // namespace gert
