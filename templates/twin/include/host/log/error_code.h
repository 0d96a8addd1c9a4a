// twin: log/error_code.h -- the error-code reporters operator host code includes beside log/log.h.
// Owns only the reporter macro names opbase.h does not already define; knows nothing of tiling.
// The twin has no error-code registry: each reporter prints one ERROR line (op, what, the strings
// given), like the OP_LOGE_FOR_INVALID_* family in twin_host/opbase.h.
#pragma once
#include "../twin_host/opbase.h"

#ifndef OP_LOGE_FOR_INVALID_SHAPESIZE
#define OP_LOGE_FOR_INVALID_SHAPESIZE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shape size", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_SHAPESIZES_WITH_REASON
#define OP_LOGE_FOR_INVALID_SHAPESIZES_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shape sizes", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_TENSORNUM
#define OP_LOGE_FOR_INVALID_TENSORNUM(op, ...) TWIN_OP_LOG_ARGS(op, "invalid tensor count", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_TENSORNUMS_WITH_REASON
#define OP_LOGE_FOR_INVALID_TENSORNUMS_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid tensor counts", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_SHAPES
#define OP_LOGE_FOR_INVALID_SHAPES(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shapes", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_DTYPES
#define OP_LOGE_FOR_INVALID_DTYPES(op, ...) TWIN_OP_LOG_ARGS(op, "invalid dtypes", ##__VA_ARGS__)
#endif
