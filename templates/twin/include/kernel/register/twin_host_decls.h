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
namespace ge {
enum DataType {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
    DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_STRING = 13,
    DT_DUAL_SUB_INT8 = 14, DT_DUAL_SUB_UINT8 = 15, DT_COMPLEX64 = 16, DT_COMPLEX128 = 17, DT_QINT8 = 18,
    DT_QINT16 = 19, DT_QINT32 = 20, DT_QUINT8 = 21, DT_QUINT16 = 22, DT_RESOURCE = 23, DT_STRING_REF = 24,
    DT_DUAL = 25, DT_VARIANT = 26, DT_BF16 = 27, DT_UNDEFINED = 28, DT_INT4 = 29, DT_UINT1 = 30, DT_INT2 = 31,
    DT_UINT2 = 32, DT_COMPLEX32 = 33, DT_HIFLOAT8 = 34, DT_FLOAT8_E5M2 = 35, DT_FLOAT8_E4M3FN = 36,
    DT_FLOAT8_E8M0 = 37, DT_FLOAT6_E3M2 = 38, DT_FLOAT6_E2M3 = 39, DT_FLOAT4_E2M1 = 40, DT_FLOAT4_E1M2 = 41,
    DT_MAX
};
} // namespace ge
#include "../twin/dt_macros_on.h"
namespace gert {
class TilingContext;
class TilingParseContext;
class InferShapeContext;
class InferDataTypeContext;
} // namespace gert
