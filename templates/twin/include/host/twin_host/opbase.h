// twin (host side): the operator-base utilities that ops-nn / ops-math style host code includes
// (`log/log.h`, `util/math_util.h`, `util/platform_util.h`, `op_host/tiling_base_util.h` and their
// `op_common/...` spellings): the OP_LOG* / OP_CHECK* macros and the Ops::Base helpers.
// Written from the CANN documentation of these interfaces (aolapi "log" pages: OP_CHECK_IF
// operatorlist_00464, OP_CHECK_NULL_WITH_CONTEXT operatorlist_00465, OP_LOGE/OP_LOGD ...) and from
// how public operators call them; no CANN source is copied.
//
// Logging: OP_LOGE / OP_LOGW always print to stderr (the twin shows them when tiling fails);
// OP_LOGI / OP_LOGD print only when ASCEND_GLOBAL_LOG_LEVEL (the CANN log-level variable: 0 debug,
// 1 info, 2 warning, 3 error) asks for them. The first argument names the op: a context pointer
// (anything with GetNodeName()), a C string or a std::string.
#pragma once
#include <cmath>
#include <cstdarg>
#include <limits>
#include <cstdint>
#include <cinttypes> // PRId64 and friends: CANN's log macros are printf-style and operator code formats int64 with them (ops-math infershape_reduce_util.h)
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>
#include "core.h"

namespace twin_log {

enum Level { DEBUG = 0, INFO = 1, WARNING = 2, ERROR = 3 };

inline int threshold() {
    static int level = [] {
        const char *v = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
        return v && *v >= '0' && *v <= '4' ? *v - '0' : (int)ERROR;
    }();
    return level;
}

inline std::string op_name(const char *s) { return s ? s : "?"; }
inline std::string op_name(char *s) { return s ? s : "?"; }
inline std::string op_name(const std::string &s) { return s; }
template <class C, class = decltype(std::declval<const C &>().GetNodeName())>
inline std::string op_name(const C *c) { return c && c->GetNodeName() ? c->GetNodeName() : "?"; }
template <class C, class = decltype(std::declval<const C &>().GetNodeName())>
inline std::string op_name(C *c) { return op_name(static_cast<const C *>(c)); }

inline void vwrite(int level, const std::string &op, const char *file, int line, const char *fmt, va_list ap) {
    if (level < WARNING && level < threshold()) return;
    static const char *names[] = {"debug", "info", "warning", "error"};
    const char *base = file;
    for (const char *p = file; *p; p++)
        if (*p == '/') base = p + 1;
    std::fprintf(stderr, "[%s] %s (%s:%d): ", names[level], op.c_str(), base, line);
    std::vfprintf(stderr, fmt, ap);
    std::fputc('\n', stderr);
}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
inline void write(int level, const std::string &op, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
inline void write(int level, const std::string &op, const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vwrite(level, op, file, line, fmt, ap);
    va_end(ap);
}
inline void write(int level, const std::string &op, const char *file, int line) { write(level, op, file, line, "%s", ""); }
#pragma GCC diagnostic pop

} // namespace twin_log

#define TWIN_OP_LOG(level, op, ...) ::twin_log::write(level, ::twin_log::op_name(op), __FILE__, __LINE__, ##__VA_ARGS__)
#define OP_LOGE(op, ...) TWIN_OP_LOG(::twin_log::ERROR, op, ##__VA_ARGS__)
#define OP_LOGW(op, ...) TWIN_OP_LOG(::twin_log::WARNING, op, ##__VA_ARGS__)
#define OP_LOGI(op, ...) TWIN_OP_LOG(::twin_log::INFO, op, ##__VA_ARGS__)
#define OP_LOGD(op, ...) TWIN_OP_LOG(::twin_log::DEBUG, op, ##__VA_ARGS__)
#define OP_EVENT(op, ...) TWIN_OP_LOG(::twin_log::INFO, op, ##__VA_ARGS__)
#define OP_LOGE_WITHOUT_REPORT(op, ...) OP_LOGE(op, ##__VA_ARGS__)
#define OPS_LOG_E(op, ...) OP_LOGE(op, ##__VA_ARGS__)
#define OPS_LOG_W(op, ...) OP_LOGW(op, ##__VA_ARGS__)
#define OPS_LOG_I(op, ...) OP_LOGI(op, ##__VA_ARGS__)
#define OPS_LOG_D(op, ...) OP_LOGD(op, ##__VA_ARGS__)
// The "invalid input" reporters take the op and a few strings; the twin prints them as one error.
#define TWIN_OP_LOG_ARGS(op, what, ...) \
    ::twin_log::write(::twin_log::ERROR, ::twin_log::op_name(op), __FILE__, __LINE__, "%s", ::twin_log::join(what, ##__VA_ARGS__).c_str())
#define OP_LOGE_WITH_INVALID_INPUT_DTYPE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid input dtype", ##__VA_ARGS__)
#define OP_LOGE_WITH_INVALID_ATTR(op, ...) TWIN_OP_LOG_ARGS(op, "invalid attribute", ##__VA_ARGS__)
#define OP_LOGE_WITH_INVALID_INPUT_SHAPE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid input shape", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPES_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shapes", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_DTYPES_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid dtypes", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_DTYPE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid dtype", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shape", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_VALUE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid value", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_VALUE_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid value", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_VALUES_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid values", ##__VA_ARGS__)
// The rest of the operator-base library's reporters (CANN opbase include/op_common/log/log.h): each takes
// the op (or node) name and a few strings, printed as one error.
#ifndef OP_LOGE_FOR_FILE_OPEN
#define OP_LOGE_FOR_FILE_OPEN(op, ...) TWIN_OP_LOG_ARGS(op, "cannot open file", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_FILE_PARSE
#define OP_LOGE_FOR_FILE_PARSE(op, ...) TWIN_OP_LOG_ARGS(op, "cannot parse file", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_FILE_PATH
#define OP_LOGE_FOR_FILE_PATH(op, ...) TWIN_OP_LOG_ARGS(op, "invalid file path", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_ARGUMENT_WITH_REASON
#define OP_LOGE_FOR_INVALID_ARGUMENT_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid argument", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_CONFIG
#define OP_LOGE_FOR_INVALID_CONFIG(op, ...) TWIN_OP_LOG_ARGS(op, "invalid config", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_CONFIGS_WITH_REASON
#define OP_LOGE_FOR_INVALID_CONFIGS_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid configs", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_CONFIG_WITH_REASON
#define OP_LOGE_FOR_INVALID_CONFIG_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid config", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_FORMATS_WITH_REASON
#define OP_LOGE_FOR_INVALID_FORMATS_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid formats", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_FORMAT_WITH_REASON
#define OP_LOGE_FOR_INVALID_FORMAT_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid format", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_GRAPH_NODE
#define OP_LOGE_FOR_INVALID_GRAPH_NODE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid graph node", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_LISTSIZE_WITH_REASON
#define OP_LOGE_FOR_INVALID_LISTSIZE_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid list size", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_FOR_INVALID_STRIDE
#define OP_LOGE_FOR_INVALID_STRIDE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid stride", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_WITH_INVALID_ATTR_SIZE
#define OP_LOGE_WITH_INVALID_ATTR_SIZE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid attribute size", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_WITH_INVALID_INPUT
#define OP_LOGE_WITH_INVALID_INPUT(op, ...) TWIN_OP_LOG_ARGS(op, "invalid input", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_WITH_INVALID_INPUT_FORMAT
#define OP_LOGE_WITH_INVALID_INPUT_FORMAT(op, ...) TWIN_OP_LOG_ARGS(op, "invalid input format", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_WITH_INVALID_INPUT_SHAPESIZE
#define OP_LOGE_WITH_INVALID_INPUT_SHAPESIZE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid input shape size", ##__VA_ARGS__)
#endif
#ifndef OP_LOGE_LIBOPAPI_REPORT
#define OP_LOGE_LIBOPAPI_REPORT(op, ...) OP_LOGE(op, ##__VA_ARGS__)
#endif
#define OP_LOGE_FOR_INVALID_FORMAT(op, ...) TWIN_OP_LOG_ARGS(op, "invalid format", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_LISTSIZE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid list size", ##__VA_ARGS__)
// CANN's EZ0011 message (parameter, its rank, the rank it should be) in CANN's words, so that a reader
// (and init's refusal fit) sees which rank is wanted; other argument counts print joined.
#define OP_LOGE_FOR_INVALID_SHAPEDIM(op, ...) \
    ::twin_log::write(::twin_log::ERROR, ::twin_log::op_name(op), __FILE__, __LINE__, "%s", ::twin_log::shape_dim(__VA_ARGS__).c_str())
#define OP_LOGE_FOR_INVALID_SHAPEDIM_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shape rank", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPEDIMS_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shape ranks", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPESIZE_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shape size", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPESIZE(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shape size", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPESIZES_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shape sizes", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_DTYPES(op, ...) TWIN_OP_LOG_ARGS(op, "invalid dtypes", ##__VA_ARGS__)
// The D_OP_LOG* forms take the op's name as a string; REPORT_INNER_ERR_MSG(code, fmt, ...) reports an
// error under its code (the twin prints it like OP_LOGE).
#define D_OP_LOGE(name, ...) OP_LOGE(name, ##__VA_ARGS__)
#define D_OP_LOGW(name, ...) OP_LOGW(name, ##__VA_ARGS__)
#define D_OP_LOGI(name, ...) OP_LOGI(name, ##__VA_ARGS__)
#define D_OP_LOGD(name, ...) OP_LOGD(name, ##__VA_ARGS__)
// The dlog level check that tiling code calls before an expensive debug dump (ops-transformer's
// common/include/tiling_base/tiling_base.h: `CheckLogLevel(static_cast<int32_t>(OP), DLOG_DEBUG)`). From the
// opbase docs (docs/zh/api/op_common/reserved_interface_op_common.md): DLOG_DEBUG 0 .. DLOG_ERROR 3, the
// operator module id 63, CheckLogLevel returns 1 when the level is enabled. The twin enables warnings and
// errors only, so debug dumps are skipped.
enum TwinDlogLevel : int32_t { DLOG_DEBUG = 0, DLOG_INFO = 1, DLOG_WARN = 2, DLOG_ERROR = 3 };
enum TwinDlogModule : int32_t { OP = 63 };
constexpr int32_t OP_MODULE_ID = 63;
inline int32_t CheckLogLevel(int32_t moduleId, int32_t logLevel) {
    (void)moduleId;
    return logLevel >= DLOG_WARN ? 1 : 0;
}
// OpLogSub / OpLogErrSub (the same opbase page: log under a module id and level, with the op's description
// first): the twin writes warnings and errors as OP_LOGW / OP_LOGE do, and drops the rest.
#define OpLogSub(moduleId, level, opInfo, ...)                                                                 \
    do {                                                                                                       \
        if (CheckLogLevel(moduleId, level) == 1) {                                                             \
            if ((level) >= DLOG_ERROR) OP_LOGE(opInfo, ##__VA_ARGS__);                                         \
            else OP_LOGW(opInfo, ##__VA_ARGS__);                                                               \
        }                                                                                                      \
    } while (0)
#define OpLogErrSub(moduleId, level, opInfo, ...) OP_LOGE(opInfo, ##__VA_ARGS__)
#define REPORT_INNER_ERR_MSG(code, ...) ::twin_log::write(::twin_log::ERROR, code, __FILE__, __LINE__, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPE_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid shape", ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_DTYPE_WITH_REASON(op, ...) TWIN_OP_LOG_ARGS(op, "invalid dtype", ##__VA_ARGS__)

namespace twin_log {
inline void join_one(std::string &out, const char *s) { out += ": "; out += s ? s : ""; }
inline void join_one(std::string &out, const std::string &s) { out += ": "; out += s; }
template <class T> inline void join_one(std::string &out, const T &v) {
    std::ostringstream os;
    os << v;
    out += ": " + os.str();
}
template <class... A> inline std::string join(const char *what, const A &...a) {
    std::string out = what;
    (join_one(out, a), ...);
    return out;
}
// OP_LOGE_FOR_INVALID_SHAPEDIM(op, param, incorrectDim, correctDim): "Parameter x has incorrect shape
// dim 2. It should be 1." (the EZ0011 text of CANN's error-message reporters).
template <class P, class I, class C> inline std::string shape_dim(const P &param, const I &incorrect, const C &correct) {
    std::string p, i, c;
    join_one(p, param);
    join_one(i, incorrect);
    join_one(c, correct);
    return "Parameter " + p.substr(2) + " has incorrect shape dim " + i.substr(2) + ". It should be " + c.substr(2) + ".";
}
template <class... A> inline std::string shape_dim(const A &...a) { return join("invalid shape rank", a...); }
} // namespace twin_log

// OP_CHECK_IF(condition, log, return_expr): when the condition holds, log and run return_expr
// (aolapi operatorlist_00464). OP_CHECK_NULL_WITH_CONTEXT(context, ptr): a null ptr logs and returns
// ge::GRAPH_FAILED (aolapi operatorlist_00465).
#define OP_CHECK_IF(cond, log_expr, return_expr) \
    do {                                         \
        if (cond) {                              \
            log_expr;                            \
            return_expr;                         \
        }                                        \
    } while (0)
#define OP_CHECK_NULL_WITH_CONTEXT(context, ptr)                                                  \
    do {                                                                                          \
        if ((ptr) == nullptr) {                                                                   \
            OP_LOGE(context, "%s is nullptr", #ptr);                                              \
            return ge::GRAPH_FAILED;                                                              \
        }                                                                                         \
    } while (0)
#define OP_CHECK_NULL_WITH_CONTEXT_RET(context, ptr, ret)                                         \
    do {                                                                                          \
        if ((ptr) == nullptr) {                                                                   \
            OP_LOGE(context, "%s is nullptr", #ptr);                                              \
            return ret;                                                                           \
        }                                                                                         \
    } while (0)
#define OPS_CHECK_NULL_WITH_CONTEXT(context, ptr) OP_CHECK_NULL_WITH_CONTEXT(context, ptr)
#define OPS_CHECK_NULL_WITH_CONTEXT_RET(context, ptr, ret) OP_CHECK_NULL_WITH_CONTEXT_RET(context, ptr, ret)
#define OP_TILING_CHECK(cond, log_expr, return_expr) OP_CHECK_IF(cond, log_expr, return_expr)
#define OPS_ERR_IF(cond, log_expr, return_expr) OP_CHECK_IF(cond, log_expr, return_expr)

// Branch hints the CANN headers define for operator code.
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

namespace Ops {
namespace Base {

// The platform facts a tiling's compile-info parse keeps for it (ops-math's tiling-template registry reads
// its socVersion when a context carries no platform info; the twin's always does). The fields as the
// repositories' own CompileInfoCommon names them (ops-nn common/inc/op_host/tiling_base.h).
struct CompileInfoCommon {
    uint32_t aivNum = 0;
    uint32_t aicNum = 0;
    uint64_t ubSize = 0;
    uint64_t l1Size = 0;
    uint64_t l0aSize = 0;
    uint64_t l0bSize = 0;
    uint64_t l0cSize = 0;
    uint64_t l2CacheSize = 0;
    int64_t coreNum = 0;
    int32_t socVersion = 0;
    uint32_t rsvd = 0;
};

// The op description the log macros of the repositories' error_util.h print: the node name of a
// context, or the name given (graph/operator.h adds ge::Operator).
template <class T> inline std::string GetOpInfo(const T &op) { return ::twin_log::op_name(op); }
inline const char *GetSafeStr(const std::string &s) { return s.c_str(); }
inline const char *GetSafeStr(const char *s) { return s ? s : "nil"; }

// Integer helpers. A zero divisor gives 0 (the twin's choice: the device helpers leave it undefined).
template <class T, class U> inline T CeilDiv(T a, U b) {
    return b == 0 ? T(0) : static_cast<T>((a + static_cast<T>(b) - 1) / static_cast<T>(b));
}
template <class T, class U> inline T FloorDiv(T a, U b) { return b == 0 ? T(0) : static_cast<T>(a / static_cast<T>(b)); }
template <class T, class U> inline T CeilAlign(T a, U b) { return static_cast<T>(CeilDiv(a, b) * static_cast<T>(b)); }
template <class T, class U> inline T FloorAlign(T a, U b) { return static_cast<T>(FloorDiv(a, b) * static_cast<T>(b)); }

// Floating-point equality within the type's machine epsilon, absolute (the form ops-nn's own op_api
// helpers of that name use; ops-nn's dynamic_block_quant tiling checks `dst_type_max` against 0 with it).
template <class T> inline bool IsFloatEqual(T a, T b) {
    return std::fabs(a - b) <= std::numeric_limits<T>::epsilon();
}
inline bool IsFloatEqual(double a, float b) { return IsFloatEqual<double>(a, b); }
inline bool IsFloatEqual(float a, double b) { return IsFloatEqual<double>(a, b); }

// Platform facts every AI core shares: 32-byte UB blocks; 256-byte vector registers on the
// membase SoCs the twin models (the regbase SoCs of arch35 are not modelled).
template <class C> inline uint32_t GetUbBlockSize(C *) { return 32; }
inline uint32_t GetUbBlockSize() { return 32; }
template <class C> inline uint32_t GetVRegSize(C *) { return 256; }
template <class C> inline bool IsRegbaseSocVersion(C *) { return false; }
template <class C> inline uint32_t GetAivCoreNum(C *context) {
    auto *info = context ? context->GetPlatformInfo() : nullptr;
    return info ? info->aiv_cores : 0;
}

// A scalar (rank 0) shape seen as the 1-element shape [1].
inline gert::Shape EnsureNotScalar(const gert::Shape &s) {
    if (s.GetDimNum() != 0) return s;
    gert::Shape one;
    one.AppendDim(1);
    return one;
}
inline bool IsUnknownRank(const gert::Shape &s) { return s.GetDimNum() == 1 && s.GetDim(0) == ge::UNKNOWN_DIM_NUM; }
inline bool IsUnknownShape(const gert::Shape &s) {
    for (size_t i = 0; i < s.GetDimNum(); i++)
        if (s.GetDim(i) < 0) return true;
    return false;
}
inline void SetUnknownRank(gert::Shape &s) {
    s.SetDimNum(0);
    s.AppendDim(ge::UNKNOWN_DIM_NUM);
}
// A shape of `rank` dims, each unknown (-1): what an InferShape writes when an input's dims are not
// known yet (ops-nn's max_pool3_d, embedding_bag).
inline void SetUnknownShape(size_t rank, gert::Shape &s) {
    s.SetDimNum(0);
    for (size_t i = 0; i < rank; i++) s.AppendDim(ge::UNKNOWN_DIM);
}

inline std::string ToString(const gert::Shape &s) {
    std::string out = "[";
    for (size_t i = 0; i < s.GetDimNum(); i++) out += (i ? ", " : "") + std::to_string(s.GetDim(i));
    return out + "]";
}
inline std::string ToString(ge::DataType dt) { return ge::TypeUtils::DataTypeToSerialString(dt); }
inline std::string ToString(ge::Format f) { return ge::TypeUtils::FormatToSerialString(f); }
template <class T> inline std::string ToString(const std::vector<T> &v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); i++) out += (i ? ", " : "") + std::to_string(v[i]);
    return out + "]";
}

// Constant inputs (util/const_util.h): the data of an input the op declares data-dependent, read as
// integers. A tiling or infershape function asks for them by the input's index and gets false when the
// input has no data there (not data-dependent, or absent), as on the device, where such an input's
// GetInputTensor data is nullptr (basicdataapi atlasopapi_07_00225). int32 and int64 data are read;
// any other dtype gives false.
// The tensor's data read as T, each element widened to int64_t; false when it has none.
template <class T> inline bool TwinTensorInts(const gert::Tensor *tensor, std::vector<int64_t> &out) {
    out.clear();
    const T *data = tensor == nullptr ? nullptr : tensor->GetData<T>();
    if (data == nullptr) return false;
    for (int64_t i = 0; i < tensor->GetShapeSize(); i++) out.push_back(static_cast<int64_t>(data[i]));
    return true;
}
template <class T> inline void GetValueToShape(const gert::Tensor *tensor, gert::Shape &shape) {
    std::vector<int64_t> values;
    TwinTensorInts<T>(tensor, values);
    shape.SetDimNum(0);
    for (int64_t v : values) shape.AppendDim(v);
}
inline bool TwinConstInts(const gert::Tensor *tensor, std::vector<int64_t> &out) {
    out.clear();
    if (tensor == nullptr) return false;
    if (tensor->GetDataType() == ge::DT_INT32) return TwinTensorInts<int32_t>(tensor, out);
    if (tensor->GetDataType() == ge::DT_INT64) return TwinTensorInts<int64_t>(tensor, out);
    return false;
}
template <class C> inline bool GetConstIntToShape(C *context, size_t index, gert::Shape &shape) {
    std::vector<int64_t> values;
    if (context == nullptr || !TwinConstInts(context->GetInputTensor(index), values)) return false;
    shape.SetDimNum(0);
    for (int64_t v : values) shape.AppendDim(v);
    return true;
}
template <class C, class T> inline bool GetConstInt(C *context, size_t index, T &value) {
    std::vector<int64_t> values;
    if (context == nullptr || !TwinConstInts(context->GetInputTensor(index), values) || values.empty()) return false;
    value = static_cast<T>(values[0]);
    return true;
}

// Elementwise shape inference: every output takes the shape of input 0 (same-shape ops; the
// broadcasting form is not modelled).
inline ge::graphStatus InferShape4Elewise(gert::InferShapeContext *context) {
    if (context == nullptr) return ge::GRAPH_FAILED;
    const gert::Shape *in = context->GetInputShape(0);
    if (in == nullptr) return ge::GRAPH_FAILED;
    for (size_t i = 0; i < context->GetComputeNodeOutputNum(); i++) {
        gert::Shape *out = context->GetOutputShape(i);
        if (out != nullptr) *out = *in;
    }
    return ge::GRAPH_SUCCESS;
}

// Reduction shape inference over `count` axes (negative ones counted from the end): with kept dims
// every reduced axis becomes 1, without them it is dropped; an axis outside [-rank, rank) fails. The
// operator-base library's ReduceDimsWithKeepDims / ReduceDimsWithoutKeepDims (ops-math's
// arg_min_with_value InferShape calls them as Ops::Base::...<int64_t>(x, axes, n, out)); the twin's own
// reading of their names and of that use. A scalar input has nothing to reduce: the output is a scalar.
template <typename T>
inline bool TwinReducedAxes(const gert::Shape *x, const T *axes, int32_t count, std::vector<bool> &reduced) {
    const int64_t rank = (int64_t)x->GetDimNum();
    reduced.assign((size_t)rank, false);
    for (int32_t i = 0; i < count; i++) {
        int64_t a = (int64_t)axes[i];
        if (rank == 0 && (a == 0 || a == -1)) continue;
        if (a < -rank || a >= rank) return false;
        reduced[(size_t)(a < 0 ? a + rank : a)] = true;
    }
    return true;
}
template <typename T>
inline ge::graphStatus ReduceDimsWithKeepDims(const gert::Shape *x, const T *axes, int32_t count, gert::Shape *out) {
    std::vector<bool> reduced;
    if (x == nullptr || out == nullptr || !TwinReducedAxes(x, axes, count, reduced)) return ge::GRAPH_FAILED;
    gert::Shape r;
    for (size_t i = 0; i < x->GetDimNum(); i++) r.AppendDim(reduced[i] ? 1 : x->GetDim(i));
    *out = r;
    return ge::GRAPH_SUCCESS;
}
template <typename T>
inline ge::graphStatus ReduceDimsWithoutKeepDims(const gert::Shape *x, const T *axes, int32_t count, gert::Shape *out) {
    std::vector<bool> reduced;
    if (x == nullptr || out == nullptr || !TwinReducedAxes(x, axes, count, reduced)) return ge::GRAPH_FAILED;
    gert::Shape r;
    for (size_t i = 0; i < x->GetDimNum(); i++)
        if (!reduced[i]) r.AppendDim(x->GetDim(i));
    *out = r;
    return ge::GRAPH_SUCCESS;
}

// Reduction shape inference of the operator base (op_common/op_host/infershape_reduce_util.h declares
// `ge::graphStatus InferShape4Reduce(gert::InferShapeContext *)`; ops-math's reduce_prod_v2 and
// reduce_mean_v2 return it, and ops-math's own InferShape4ReduceCommon reads the same operands): input 0
// is x, input 1 the axes tensor (int32 or int64 data, the input declared value-dependent), attr 0
// keep_dims (bool). An axes tensor of no elements leaves the output x's shape; otherwise every listed
// axis (negative ones counted from the end; [-1, 0] for a scalar x) becomes 1 with keep_dims and is
// dropped without it. A missing input, attr or axes data, another axes dtype or an axis out of range
// fails, naming the problem. The twin's own code.
inline ge::graphStatus InferShape4Reduce(gert::InferShapeContext *context) {
    if (context == nullptr) return ge::GRAPH_FAILED;
    const char *node = context->GetNodeName();
    const gert::Shape *x = context->GetInputShape(0);
    const gert::Tensor *axes = context->GetInputTensor(1);
    gert::Shape *y = context->GetOutputShape(0);
    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    const bool *keep = attrs == nullptr ? nullptr : attrs->GetAttrPointer<bool>(0);
    if (x == nullptr || axes == nullptr || y == nullptr || keep == nullptr) {
        OP_LOGE(node, "InferShape4Reduce: %s is missing (it takes input 0 x, input 1 axes, output 0 and attr 0 "
                      "keep_dims, a bool)",
                x == nullptr ? "input 0" : axes == nullptr ? "input 1 (axes)" : y == nullptr ? "output 0" : "attr 0 (keep_dims)");
        return ge::GRAPH_FAILED;
    }
    const int64_t count = axes->GetShapeSize();
    if (count < 0) {
        OP_LOGE(node, "InferShape4Reduce: the axes tensor has %lld elements", (long long)count);
        return ge::GRAPH_FAILED;
    }
    if (count == 0) {
        *y = *x;
        return ge::GRAPH_SUCCESS;
    }
    std::vector<int64_t> axis;
    const ge::DataType dt = axes->GetDataType();
    if (dt != ge::DT_INT32 && dt != ge::DT_INT64) {
        OP_LOGE(node, "InferShape4Reduce: axes dtype %s is not int32 or int64", ToString(dt).c_str());
        return ge::GRAPH_FAILED;
    }
    if (!TwinConstInts(axes, axis)) {
        OP_LOGE(node, "InferShape4Reduce: the axes input has no data (declare it ValueDepend)");
        return ge::GRAPH_FAILED;
    }
    const ge::graphStatus st = *keep ? ReduceDimsWithKeepDims<int64_t>(x, axis.data(), (int32_t)count, y)
                                     : ReduceDimsWithoutKeepDims<int64_t>(x, axis.data(), (int32_t)count, y);
    if (st != ge::GRAPH_SUCCESS)
        OP_LOGE(node, "InferShape4Reduce: axes %s out of range for x %s", ToString(axis).c_str(), ToString(*x).c_str());
    return st;
}

} // namespace Base
} // namespace Ops

