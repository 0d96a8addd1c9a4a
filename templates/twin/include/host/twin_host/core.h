// twin (host side): ge / fe / gert types used by op_host code: status codes, data types, shapes,
// tensors, attributes and the tiling / infer-shape / infer-dtype contexts.
// Written from the public CANN documentation of these interfaces.
#pragma once
#include "../../kernel/twin/dt_macros_off.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>
// The CANN host headers bring the standard containers and the bounds-checked C functions
// (securec.h) with them; operator host code relies on both without including them itself.
#include "../securec.h"

namespace ge {
using graphStatus = uint32_t;
#ifndef TWIN_GE_GRAPH_STATUS // the kernel side's register/twin_host_decls.h defines these two as well
#define TWIN_GE_GRAPH_STATUS
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFu;
#endif
// GE's general status codes (CANN metadef inc/external/ge_common/ge_api_types.h `ge::Status`; the values
// as register_error_codes.h gives domi's): tiling code returns `ge::SUCCESS` (ops-transformer nsa_compress).
using Status = uint32_t;
constexpr Status SUCCESS = 0;
constexpr Status FAILED = 0xFFFFFFFFu;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649u;
constexpr graphStatus GRAPH_NOT_CHANGED = 1343242304u;
// The graph API's other status codes (CANN metadef inc/external/graph/error_codes.h; ops-nn's
// rms_norm_quant tiling returns GRAPH_PARAM_OUT_OF_RANGE).
constexpr graphStatus GRAPH_NODE_WITHOUT_CONST_INPUT = 50331648u;
constexpr graphStatus GRAPH_NODE_NEED_REPASS = 50331647u;
constexpr graphStatus GRAPH_INVALID_IR_DEF = 50331646u;
constexpr graphStatus OP_WITHOUT_IR_DATATYPE_INFER_RULE = 50331645u;
constexpr graphStatus GRAPH_PARAM_OUT_OF_RANGE = 50331644u;
constexpr graphStatus GRAPH_MEM_OPERATE_FAILED = 50331539u;
constexpr graphStatus GRAPH_MEMCPY_FAILED = 50331537u;
constexpr graphStatus GRAPH_MEMSET_FAILED = 50331536u;
constexpr graphStatus GRAPH_MATH_CAL_FAILED = 50331429u;
constexpr graphStatus GRAPH_ADD_OVERFLOW = 50331428u;
constexpr graphStatus GRAPH_MUL_OVERFLOW = 50331427u;
constexpr graphStatus GRAPH_RoundUp_Overflow = 50331426u;
// A failure status some operator code returns unqualified; any non-success value serves the twin.
constexpr graphStatus GRAPH_NULL_PTR = 1343225860u;
constexpr int64_t UNKNOWN_DIM = -1;
constexpr int64_t UNKNOWN_DIM_NUM = -2;

} // namespace ge
#include "../../kernel/twin/ge_data_type.h"
namespace ge {

enum Format {
    FORMAT_NCHW = 0, FORMAT_NHWC = 1, FORMAT_ND = 2, FORMAT_NC1HWC0 = 3, FORMAT_FRACTAL_Z = 4,
    FORMAT_NC1C0HWPAD = 5, FORMAT_NHWC1C0 = 6, FORMAT_FSR_NCHW = 7, FORMAT_FRACTAL_DECONV = 8, FORMAT_C1HWNC0 = 9,
    FORMAT_FRACTAL_DECONV_TRANSPOSE = 10, FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS = 11, FORMAT_NC1HWC0_C04 = 12,
    FORMAT_FRACTAL_Z_C04 = 13, FORMAT_CHWN = 14, FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS = 15, FORMAT_HWCN = 16,
    FORMAT_NC1KHKWHWC0 = 17, FORMAT_BN_WEIGHT = 18, FORMAT_FILTER_HWCK = 19, FORMAT_HASHTABLE_LOOKUP_LOOKUPS = 20,
    FORMAT_HASHTABLE_LOOKUP_KEYS = 21, FORMAT_HASHTABLE_LOOKUP_VALUE = 22, FORMAT_HASHTABLE_LOOKUP_OUTPUT = 23,
    FORMAT_HASHTABLE_LOOKUP_HITS = 24, FORMAT_C1HWNCoC0 = 25, FORMAT_MD = 26, FORMAT_NDHWC = 27,
    FORMAT_FRACTAL_ZZ = 28, FORMAT_FRACTAL_NZ = 29, FORMAT_NCDHW = 30, FORMAT_DHWCN = 31, FORMAT_NDC1HWC0 = 32,
    FORMAT_FRACTAL_Z_3D = 33, FORMAT_CN = 34, FORMAT_NC = 35, FORMAT_DHWNC = 36, FORMAT_FRACTAL_Z_3D_TRANSPOSE = 37,
    FORMAT_FRACTAL_ZN_LSTM = 38, FORMAT_FRACTAL_Z_G = 39, FORMAT_RESERVED = 40, FORMAT_ALL = 41, FORMAT_NULL = 42,
    FORMAT_ND_RNN_BIAS = 43, FORMAT_FRACTAL_ZN_RNN = 44, FORMAT_NYUV = 45, FORMAT_NYUV_A = 46, FORMAT_NCL = 47,
    // The later formats, in the order of CANN's Format enumeration (ascendgraphapi "Format",
    // https://www.hiascend.com/document/detail/zh/canncommercial/900/API/ascendgraphapi/atlasgeapi_07_0814.html,
    // and the C_FORMAT_* list of asc-devkit's 模板参数定义.md; aclnnNpuFormatCast.md gives
    // FRACTAL_NZ_C0_32 as 51): the NZ layouts with an explicit C0 of 16, 32, 2, 4 and 8 elements,
    // then FORMAT_END, one past the last format (ops-nn's conv2d_v2 OpDef lists it as a placeholder).
    FORMAT_FRACTAL_Z_WINO = 48, FORMAT_C1HWC0 = 49, FORMAT_FRACTAL_NZ_C0_16 = 50, FORMAT_FRACTAL_NZ_C0_32 = 51,
    FORMAT_FRACTAL_NZ_C0_2 = 52, FORMAT_FRACTAL_NZ_C0_4 = 53, FORMAT_FRACTAL_NZ_C0_8 = 54, FORMAT_END = 55,
    FORMAT_MAX = 0xff
};

// A format value packs a primary format (bits 0-7) with a sub-format (bits 8-23), as GE's
// GetPrimaryFormat / GetSubFormat / HasSubFormat (graph/types.h of the CANN graph API) read it; a
// storage format of a plain tensor is its primary format alone.
inline int32_t GetPrimaryFormat(int32_t format) { return static_cast<int32_t>(static_cast<uint32_t>(format) & 0xffU); }
inline int32_t GetSubFormat(int32_t format) { return static_cast<int32_t>((static_cast<uint32_t>(format) & 0xffff00U) >> 8); }
inline bool HasSubFormat(int32_t format) { return GetSubFormat(format) > 0; }

// GetFormatName: a Format's name, nullptr when it is not one (basicdataapi atlasopapi_07_00506,
// https://www.hiascend.com/document/detail/en/canncommercial/850/API/basicdataapi/atlasopapi_07_00506.html).
// The names are the enumerators without their FORMAT_ prefix.
inline const char *GetFormatName(Format format) {
    static const struct { Format f; const char *name; } tab[] = {
        {FORMAT_NCHW, "NCHW"},
        {FORMAT_NHWC, "NHWC"},
        {FORMAT_ND, "ND"},
        {FORMAT_NC1HWC0, "NC1HWC0"},
        {FORMAT_FRACTAL_Z, "FRACTAL_Z"},
        {FORMAT_NC1C0HWPAD, "NC1C0HWPAD"},
        {FORMAT_NHWC1C0, "NHWC1C0"},
        {FORMAT_FSR_NCHW, "FSR_NCHW"},
        {FORMAT_FRACTAL_DECONV, "FRACTAL_DECONV"},
        {FORMAT_C1HWNC0, "C1HWNC0"},
        {FORMAT_FRACTAL_DECONV_TRANSPOSE, "FRACTAL_DECONV_TRANSPOSE"},
        {FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS, "FRACTAL_DECONV_SP_STRIDE_TRANS"},
        {FORMAT_NC1HWC0_C04, "NC1HWC0_C04"},
        {FORMAT_FRACTAL_Z_C04, "FRACTAL_Z_C04"},
        {FORMAT_CHWN, "CHWN"},
        {FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS, "FRACTAL_DECONV_SP_STRIDE8_TRANS"},
        {FORMAT_HWCN, "HWCN"},
        {FORMAT_NC1KHKWHWC0, "NC1KHKWHWC0"},
        {FORMAT_BN_WEIGHT, "BN_WEIGHT"},
        {FORMAT_FILTER_HWCK, "FILTER_HWCK"},
        {FORMAT_HASHTABLE_LOOKUP_LOOKUPS, "HASHTABLE_LOOKUP_LOOKUPS"},
        {FORMAT_HASHTABLE_LOOKUP_KEYS, "HASHTABLE_LOOKUP_KEYS"},
        {FORMAT_HASHTABLE_LOOKUP_VALUE, "HASHTABLE_LOOKUP_VALUE"},
        {FORMAT_HASHTABLE_LOOKUP_OUTPUT, "HASHTABLE_LOOKUP_OUTPUT"},
        {FORMAT_HASHTABLE_LOOKUP_HITS, "HASHTABLE_LOOKUP_HITS"},
        {FORMAT_C1HWNCoC0, "C1HWNCoC0"},
        {FORMAT_MD, "MD"},
        {FORMAT_NDHWC, "NDHWC"},
        {FORMAT_FRACTAL_ZZ, "FRACTAL_ZZ"},
        {FORMAT_FRACTAL_NZ, "FRACTAL_NZ"},
        {FORMAT_NCDHW, "NCDHW"},
        {FORMAT_DHWCN, "DHWCN"},
        {FORMAT_NDC1HWC0, "NDC1HWC0"},
        {FORMAT_FRACTAL_Z_3D, "FRACTAL_Z_3D"},
        {FORMAT_CN, "CN"},
        {FORMAT_NC, "NC"},
        {FORMAT_DHWNC, "DHWNC"},
        {FORMAT_FRACTAL_Z_3D_TRANSPOSE, "FRACTAL_Z_3D_TRANSPOSE"},
        {FORMAT_FRACTAL_ZN_LSTM, "FRACTAL_ZN_LSTM"},
        {FORMAT_FRACTAL_Z_G, "FRACTAL_Z_G"},
        {FORMAT_RESERVED, "RESERVED"},
        {FORMAT_ALL, "ALL"},
        {FORMAT_NULL, "NULL"},
        {FORMAT_ND_RNN_BIAS, "ND_RNN_BIAS"},
        {FORMAT_FRACTAL_ZN_RNN, "FRACTAL_ZN_RNN"},
        {FORMAT_NYUV, "NYUV"},
        {FORMAT_NYUV_A, "NYUV_A"},
        {FORMAT_NCL, "NCL"},
        {FORMAT_FRACTAL_Z_WINO, "FRACTAL_Z_WINO"},
        {FORMAT_C1HWC0, "C1HWC0"},
        {FORMAT_FRACTAL_NZ_C0_16, "FRACTAL_NZ_C0_16"},
        {FORMAT_FRACTAL_NZ_C0_32, "FRACTAL_NZ_C0_32"},
        {FORMAT_FRACTAL_NZ_C0_2, "FRACTAL_NZ_C0_2"},
        {FORMAT_FRACTAL_NZ_C0_4, "FRACTAL_NZ_C0_4"},
        {FORMAT_FRACTAL_NZ_C0_8, "FRACTAL_NZ_C0_8"},
    };
    for (auto &e : tab)
        if (e.f == format) return e.name;
    return nullptr;
}

// Size in bytes of one element (0 for unknown or sub-byte types).
inline int GetSizeByDataType(DataType dt) {
    switch (dt) {
    case DT_FLOAT: case DT_INT32: case DT_UINT32: case DT_QINT32: case DT_COMPLEX32: return 4;
    case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: case DT_QINT16: case DT_QUINT16: return 2;
    case DT_INT8: case DT_UINT8: case DT_BOOL: case DT_QINT8: case DT_QUINT8: case DT_HIFLOAT8:
    case DT_FLOAT8_E5M2: case DT_FLOAT8_E4M3FN: case DT_FLOAT8_E8M0: case DT_DUAL_SUB_INT8: case DT_DUAL_SUB_UINT8: return 1;
    case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
    case DT_COMPLEX128: return 16;
    default: return 0;
    }
}
// Bytes held by `count` elements of `dt` (graph/types.h GetSizeInBytes: the element size times the
// count, int4 packing two elements a byte, rounded up); -1 for a negative count or a type
// of unknown size.
inline int64_t GetSizeInBytes(int64_t count, DataType dt) {
    if (count < 0) return -1;
    if (dt == DT_INT4) return (count + 1) / 2;
    const int s = GetSizeByDataType(dt);
    return s > 0 ? count * s : -1;
}
using char_t = char;
// The graph API's fixed-width floating names beside char_t (CANN graph/types.h: float32_t, float64_t);
// ops-nn's mat_mul_v3 tiling declares `using ge::float32_t;`.
using float32_t = float;
using float64_t = double;
inline const char *TwinDataTypeName(DataType dt) {
    switch (dt) {
    case DT_FLOAT: return "DT_FLOAT"; case DT_FLOAT16: return "DT_FLOAT16"; case DT_BF16: return "DT_BF16";
    case DT_INT8: return "DT_INT8"; case DT_INT16: return "DT_INT16"; case DT_INT32: return "DT_INT32";
    case DT_INT64: return "DT_INT64"; case DT_UINT8: return "DT_UINT8"; case DT_UINT16: return "DT_UINT16";
    case DT_UINT32: return "DT_UINT32"; case DT_UINT64: return "DT_UINT64"; case DT_BOOL: return "DT_BOOL";
    case DT_DOUBLE: return "DT_DOUBLE"; default: return "DT_UNDEFINED";
    }
}
class AscendString; // graph/operator.h
class TypeUtils {
public:
    // The names as ge::AscendString (defined in graph/operator.h, which graph/utils/type_utils.h includes):
    // ops-nn's pooling infershapes print them (avg_pool3_d, avg_pool3_d_grad).
    static AscendString DataTypeToAscendString(DataType dt);
    static AscendString FormatToAscendString(Format f);
    static bool GetDataTypeLength(DataType dt, uint32_t &len) {
        int s = GetSizeByDataType(dt);
        len = (uint32_t)s;
        return s > 0;
    }
    static std::string DataTypeToSerialString(DataType dt) { return TwinDataTypeName(dt); }
    static std::string FormatToSerialString(Format f) {
        const char *n = GetFormatName(f);
        return n ? n : "RESERVED";
    }
};

// ge::Shape (graph-level shape, used by a few tiling functions).
class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t> &d) : dims_(d) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
    graphStatus SetDim(size_t i, int64_t v) { if (i >= dims_.size()) return GRAPH_FAILED; dims_[i] = v; return GRAPH_SUCCESS; }
    std::vector<int64_t> GetDims() const { return dims_; }
    int64_t GetShapeSize() const { int64_t s = 1; for (auto d : dims_) s *= d; return s; }
private:
    std::vector<int64_t> dims_;
};
} // namespace ge
using ge::GRAPH_NULL_PTR;

// ---- platform information handle (fe::PlatFormInfos), filled by the twin host main from the spec.
namespace fe {
// The on-chip memories a platform description sizes (fe::LocalMemType).
enum class LocalMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

class PlatFormInfos {
public:
    std::string soc_version, short_soc;
    uint32_t aiv_cores = 0, aic_cores = 0;
    uint64_t ub_bytes = 0, l1_bytes = 0, l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0, l2_bytes = 0, hbm_bytes = 0;
    uint64_t libapi_workspace = 0;
    bool has_libapi_workspace = false;
    std::map<std::string, std::string> extra; // every spec directive, by name

    bool GetPlatformRes(const std::string &label, const std::string &key, std::string &val) const {
        (void)label;
        auto it = extra.find(key);
        if (it != extra.end()) { val = it->second; return true; }
        if (key == "ai_core_cnt" || key == "cube_core_cnt") { val = std::to_string(aic_cores); return true; }
        if (key == "vector_core_cnt") { val = std::to_string(aiv_cores); return true; }
        if (key == "ub_size") { val = std::to_string(ub_bytes); return true; }
        if (key == "l1_size") { val = std::to_string(l1_bytes); return true; }
        if (key == "l0_a_size") { val = std::to_string(l0a_bytes); return true; }
        if (key == "l0_b_size") { val = std::to_string(l0b_bytes); return true; }
        if (key == "l0_c_size") { val = std::to_string(l0c_bytes); return true; }
        if (key == "l2_size") { val = std::to_string(l2_bytes); return true; }
        if (key == "SoC_version") { val = soc_version; return true; }
        if (key == "Short_SoC_version") { val = short_soc; return true; }
        // The SoC's intrinsic table (label AICoreintrinsicDtypeMap: which data paths and dtype pairs the
        // AI core has, e.g. Intrinsic_fix_pipe_l0c2out, Intrinsic_mmad) is not in the twin's platform
        // description unless the spec names the key. Ops choose their code path from it (ops-nn's
        // dynamic_rnn takes its older TBE path when Intrinsic_fix_pipe_l0c2out is absent), so the
        // "absent" answer is said on stderr, once per key, rather than passed off as the SoC's.
        if (label == "AICoreintrinsicDtypeMap") {
            static std::set<std::string> warned;
            if (warned.insert(key).second)
                fprintf(stderr, "twin: warning: fe::PlatFormInfos::GetPlatformRes(\"AICoreintrinsicDtypeMap\", \"%s\"): "
                                "the twin's platform description has no intrinsic table; answered absent\n", key.c_str());
        }
        return false;
    }
    bool GetPlatformResWithLock(const std::string &label, const std::string &key, std::string &val) const {
        return GetPlatformRes(label, key, val);
    }
    uint32_t GetCoreNum() const { return aiv_cores; }
    // PlatFormInfos::GetCoreNumByType(core_type): the number of cores of one kind (CANN PlatFormInfos,
    // platform/platform_infos_def.h). "AiCore" is the platform's AI-core count (ai_core_cnt: the cube
    // cores on the cube/vector separated SoCs); ops-nn's gru and dynamic_rnn tilings ask it and double it
    // for the vector cores. The twin's platform description has no figure for the separate Vector Core
    // of the SoCs that have one, so any other type name is an error, not a guess.
    uint32_t GetCoreNumByType(const std::string &core_type) const {
        if (core_type == "AiCore") return aic_cores;
        fprintf(stderr, "twin: fe::PlatFormInfos::GetCoreNumByType(\"%s\"): the twin answers \"AiCore\" only\n",
                core_type.c_str());
        std::exit(3);
    }
    void SetCoreNumByCoreType(const std::string &) {}
    // PlatFormInfos::GetLocalMemSize(type, size): the capacity in bytes of one on-chip memory of
    // the platform (the same figures GetPlatformRes gives under ub_size, l1_size, ...). A type the
    // twin's platform description has no figure for is an error, not a zero.
    void GetLocalMemSize(const LocalMemType &type, uint64_t &size) const {
        switch (type) {
        case LocalMemType::L0_A: size = l0a_bytes; return;
        case LocalMemType::L0_B: size = l0b_bytes; return;
        case LocalMemType::L0_C: size = l0c_bytes; return;
        case LocalMemType::L1: size = l1_bytes; return;
        case LocalMemType::L2: size = l2_bytes; return;
        case LocalMemType::UB: size = ub_bytes; return;
        case LocalMemType::HBM: size = hbm_bytes; return;
        default: break;
        }
        fprintf(stderr, "twin: fe::PlatFormInfos::GetLocalMemSize: unknown memory type %d\n", (int)type);
        std::exit(3);
    }
};
class OptionalInfos {};
} // namespace fe

namespace gert {

constexpr size_t kMaxDimNum = 25;

class Shape {
public:
    // The value CANN's runtime shape (exe_graph/runtime/shape.h) names an invalid dim by, INT64_MIN;
    // operator host code compares dims against it (ops-transformer's fused_infer_attention_score).
    // The twin's GetDim past the rank still reads 0, as it always has.
    static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();
    Shape() = default;
    Shape(std::initializer_list<int64_t> d) { for (auto v : d) AppendDim(v); }
    size_t GetDimNum() const { return n_; }
    // A shape the twin marked unset reads as a fresh one (zeros) once the op gives it axes: ops-transformer's
    // moe_token_permute InferShape calls SetDimNum(1) and then tests GetDim(0) < 0 (an unknown length).
    void SetDimNum(size_t n) {
        if (dims_[0] == kTwinUnset) dims_[0] = 0;
        n_ = n < kMaxDimNum ? n : kMaxDimNum;
        if (n_ == 0) dims_[0] = 0;
    }
    int64_t GetDim(size_t i) const { return i < n_ ? dims_[i] : 0; }
    void SetDim(size_t i, int64_t v) { if (i < kMaxDimNum) { dims_[i] = v; if (i >= n_) n_ = i + 1; } }
    Shape &AppendDim(int64_t v) { if (n_ < kMaxDimNum) dims_[n_++] = v; return *this; }
    int64_t GetShapeSize() const { int64_t s = 1; for (size_t i = 0; i < n_; i++) s *= dims_[i]; return s; }
    bool IsScalar() const { return n_ == 0; }
    void SetScalar() { n_ = 0; dims_[0] = 0; }
    // Twin only: an output shape before the op's InferShape runs is marked unset (rank 0, a marker
    // in its first dim, which any write replaces: SetDim, AppendDim, SetDimNum, SetScalar, a
    // copy), so that an InferShape that never writes it (ops-math sub_v2) is told apart from one
    // that makes it a scalar.
    void TwinMarkUnset() { n_ = 0; dims_[0] = kTwinUnset; }
    bool TwinUnset() const { return n_ == 0 && dims_[0] == kTwinUnset; }
    int64_t operator[](size_t i) const { return dims_[i]; }
    int64_t &operator[](size_t i) { return dims_[i]; }
    bool operator==(const Shape &o) const {
        if (n_ != o.n_) return false;
        for (size_t i = 0; i < n_; i++) if (dims_[i] != o.dims_[i]) return false;
        return true;
    }
    bool operator!=(const Shape &o) const { return !(*this == o); }
private:
    static constexpr int64_t kTwinUnset = INT64_MIN + 0x7e57;
    int64_t dims_[kMaxDimNum] = {0};
    size_t n_ = 0;
};

// gert::Stride: the element strides of a view input, one per axis. The twin's inputs are whole
// contiguous tensors, for which CANN gives no strides: GetInputStride answers an empty Stride (zero
// axes), the form ops-nn's tilings test for contiguity (`stride->GetDimNum() == 0`); GetStride of an
// axis it does not have is 0.
class Stride {
public:
    Stride() = default;
    Stride(std::initializer_list<int64_t> d) : dims_(d) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetStride(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
    int64_t operator[](size_t i) const { return GetStride(i); }
    void SetDimNum(size_t n) { dims_.resize(n); }
    void SetStride(size_t i, int64_t v) { if (i < dims_.size()) dims_[i] = v; }
    void AppendStride(int64_t v) { dims_.push_back(v); }

private:
    std::vector<int64_t> dims_;
};

class StorageShape {
public:
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage) : origin_(origin), storage_(storage) {}
    const Shape &GetOriginShape() const { return origin_; }
    const Shape &GetStorageShape() const { return storage_; }
    // GetShape(): the origin shape (basicdataapi atlasopapi_07_00733, StorageShape::GetShape: "获取原始shape",
    // {3,256,256} for StorageShape({3,256,256}, {256,256,3})); ops-nn's transpose_batch_mat_mul reads it.
    const Shape &GetShape() const { return origin_; }
    Shape &MutableOriginShape() { return origin_; }
    Shape &MutableStorageShape() { return storage_; }
    bool operator==(const StorageShape &o) const { return origin_ == o.origin_ && storage_ == o.storage_; }
    bool operator!=(const StorageShape &o) const { return !(*this == o); }
private:
    Shape origin_, storage_;
};

struct StorageFormat {
    ge::Format origin = ge::FORMAT_ND, storage = ge::FORMAT_ND;
    ge::Format GetOriginFormat() const { return origin; }
    ge::Format GetStorageFormat() const { return storage; }
};

// TensorData: a tensor's data address and size (basicdataapi atlasopapi_07_00185 GetAddr).
class TensorData {
public:
    TensorData() = default;
    TensorData(const void *addr, size_t size) : addr_(addr), size_(size) {}
    const void *GetAddr() const { return addr_; }
    size_t GetSize() const { return size_; }
private:
    const void *addr_ = nullptr;
    size_t size_ = 0;
};

// gert::Tensor. Its data address is real only for an input the op declares data-dependent (OpDef
// `.ValueDepend(...)`, IMPL_OP_OPTILING `.TilingInputsDataDependency({...})`); for any other input
// it is nullptr, as GetInputTensor documents (basicdataapi atlasopapi_07_00225,
// https://www.hiascend.com/document/detail/en/canncommercial/850/API/basicdataapi/atlasopapi_07_00225.html).
// The twin reads a data-dependent input's bytes (the data the kernel gets, in the file the spec
// names) on the first access, so ops that never ask cost nothing.
class Tensor {
public:
    StorageShape shape_;
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
    void *data_ = nullptr;
    std::string twin_name_, twin_data_path_;
    bool twin_value_depend_ = false;
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    ge::DataType GetDataType() const { return dtype_; }
    const Shape &GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape &GetOriginShape() const { return shape_.GetOriginShape(); }
    const StorageShape &GetShape() const { return shape_; }
    ge::Format GetStorageFormat() const { return format_.storage; }
    ge::Format GetOriginFormat() const { return format_.origin; }
    StorageFormat GetFormat() const { return format_; }
    template <class T> const T *GetData() const { return static_cast<const T *>(twin_data()); }
    template <class T> T *GetData() { return static_cast<T *>(const_cast<void *>(twin_data())); }
    const void *GetAddr() const { return twin_data(); }
    void *GetAddr() { return const_cast<void *>(twin_data()); }
    TensorData GetTensorData() const { return TensorData(twin_data(), twin_data() ? GetSize() : 0); }
    size_t GetSize() const { return (size_t)GetShapeSize() * (size_t)ge::GetSizeByDataType(dtype_); }

private:
    mutable std::shared_ptr<std::vector<uint8_t>> twin_buf_;
    mutable bool twin_warned_ = false;
    const void *twin_data() const {
        if (data_ != nullptr) return data_;
        if (twin_buf_) return twin_buf_->data();
        if (twin_data_path_.empty()) return nullptr;
        if (!twin_value_depend_) {
            if (!twin_warned_)
                std::fprintf(stderr,
                             "warning: the tiling function read the data of input '%s', which the op does not declare "
                             "data-dependent (OpDef .ValueDepend(REQUIRED) or .TilingInputsDataDependency({index})); "
                             "on the device it gets nullptr, and so does it here\n",
                             twin_name_.c_str());
            twin_warned_ = true;
            return nullptr;
        }
        FILE *f = std::fopen(twin_data_path_.c_str(), "rb");
        if (f == nullptr) {
            std::fprintf(stderr, "error: cannot read the data of input '%s' from %s\n", twin_name_.c_str(),
                         twin_data_path_.c_str());
            std::exit(2);
        }
        auto buf = std::make_shared<std::vector<uint8_t>>();
        uint8_t chunk[4096];
        size_t n;
        while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) buf->insert(buf->end(), chunk, chunk + n);
        std::fclose(f);
        if (GetSize() != 0 && buf->size() != GetSize()) {
            std::fprintf(stderr, "error: the data of input '%s' in %s has %zu bytes; its shape and dtype need %zu\n",
                         twin_name_.c_str(), twin_data_path_.c_str(), buf->size(), GetSize());
            std::exit(2);
        }
        if (buf->empty()) buf->resize(1); // a valid address even for an empty tensor
        twin_buf_ = buf;
        return twin_buf_->data();
    }
};

class CompileTimeTensorDesc {
public:
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetStorageFormat() const { return format_.storage; }
    ge::Format GetOriginFormat() const { return format_.origin; }
    StorageFormat GetFormat() const { return format_; }
};

class ContinuousVector {
public:
    virtual ~ContinuousVector() = default;
    size_t GetSize() const { return size_; }
    size_t GetCapacity() const { return size_; }
    const void *GetData() const { return data_; }
protected:
    size_t size_ = 0;
    const void *data_ = nullptr;
};
template <class T> class TypedContinuousVector : public ContinuousVector {
    // bool elements are kept as one byte each (std::vector<bool> has no data()).
    using S = typename std::conditional<std::is_same<T, bool>::value, unsigned char, T>::type;
public:
    TypedContinuousVector() = default;
    explicit TypedContinuousVector(const std::vector<T> &v) : v_(v.begin(), v.end()) { sync(); }
    TypedContinuousVector(const TypedContinuousVector &o) : ContinuousVector(), v_(o.v_) { sync(); }
    TypedContinuousVector &operator=(const TypedContinuousVector &o) { v_ = o.v_; sync(); return *this; }
    const T *GetData() const { return reinterpret_cast<const T *>(v_.data()); }
private:
    void sync() { size_ = v_.size(); data_ = v_.data(); }
    std::vector<S> v_;
};

// One attribute value (the twin keeps every representation the spec or the OpDef default gives).
struct TwinAttr {
    std::string kind; // int float bool str ints floats bools
    int64_t i = 0;
    float f = 0;
    bool b = false;
    std::string s;
    TypedContinuousVector<int64_t> ints;
    TypedContinuousVector<float> floats;
    TypedContinuousVector<bool> bools;
};

class RuntimeAttrs {
public:
    std::vector<TwinAttr> attrs_;
    size_t GetAttrNum() const { return attrs_.size(); }
    template <class T> const T *GetAttrPointer(size_t i) const {
        if (i >= attrs_.size()) return nullptr;
        const TwinAttr &a = attrs_[i];
        if constexpr (std::is_same<T, char>::value) return a.s.c_str();
        else if constexpr (std::is_same<T, bool>::value) return &a.b;
        else if constexpr (std::is_floating_point<T>::value) return reinterpret_cast<const T *>(&a.f);
        else if constexpr (std::is_integral<T>::value) return reinterpret_cast<const T *>(&a.i);
        else if constexpr (std::is_same<T, TypedContinuousVector<float>>::value) return &a.floats;
        else if constexpr (std::is_same<T, TypedContinuousVector<bool>>::value) return &a.bools;
        else if constexpr (std::is_same<T, TypedContinuousVector<int64_t>>::value) return &a.ints;
        else if constexpr (std::is_same<T, ContinuousVector>::value)
            return a.kind == "floats" ? static_cast<const ContinuousVector *>(&a.floats)
                 : a.kind == "bools" ? static_cast<const ContinuousVector *>(&a.bools)
                                     : static_cast<const ContinuousVector *>(&a.ints);
        else return nullptr;
    }
    const int64_t *GetInt(size_t i) const { return GetAttrPointer<int64_t>(i); }
    const float *GetFloat(size_t i) const { return GetAttrPointer<float>(i); }
    const bool *GetBool(size_t i) const { return GetAttrPointer<bool>(i); }
    const char *GetStr(size_t i) const { return GetAttrPointer<char>(i); }
    const TypedContinuousVector<int64_t> *GetListInt(size_t i) const { return GetAttrPointer<TypedContinuousVector<int64_t>>(i); }
    const TypedContinuousVector<float> *GetListFloat(size_t i) const { return GetAttrPointer<TypedContinuousVector<float>>(i); }
};

class TilingData {
public:
    static constexpr size_t kCapacity = 64 * 1024;
    void *GetData() { return buf_; }
    const void *GetData() const { return buf_; }
    size_t GetCapacity() const { return kCapacity; }
    size_t GetDataSize() const { return size_; }
    void SetDataSize(size_t n) { size_ = n; }
    template <class T> ge::graphStatus Append(const T &v) {
        if (size_ + sizeof(T) > kCapacity) return ge::GRAPH_FAILED;
        std::memcpy(buf_ + size_, &v, sizeof(T));
        size_ += sizeof(T);
        return ge::GRAPH_SUCCESS;
    }
    template <class T> ge::graphStatus Append(const T *v, size_t n) {
        if (size_ + sizeof(T) * n > kCapacity) return ge::GRAPH_FAILED;
        std::memcpy(buf_ + size_, v, sizeof(T) * n);
        size_ += sizeof(T) * n;
        return ge::GRAPH_SUCCESS;
    }
private:
    alignas(64) uint8_t buf_[kCapacity] = {0};
    size_t size_ = 0;
};

// Everything the twin knows about one op instance; shared by the contexts below.
struct TwinOpInfo {
    std::string op_type, node_name;
    std::vector<std::string> in_names, out_names;
    std::vector<std::string> ir_in_names;        // OpDef input order (for optional inputs)
    std::vector<std::string> ir_out_names;       // OpDef output order (for output lists)
    std::vector<Tensor> inputs, outputs;
    std::vector<CompileTimeTensorDesc> in_desc, out_desc;
    std::vector<StorageShape> in_shapes, out_shapes;
    RuntimeAttrs attrs;
    int ir_to_instance(size_t ir) const {
        if (ir_in_names.empty()) return (int)ir;
        if (ir >= ir_in_names.size()) return -1;
        for (size_t k = 0; k < in_names.size(); k++) if (in_names[k] == ir_in_names[ir]) return (int)k;
        return -1;
    }
    // The instance index of the rel-th tensor of IR input `ir` (a DYNAMIC input's instances are the
    // consecutive inputs named like it, as the manifest's `list = N` writes them), or -1 past its last
    // one. Without the OpDef's input names, instance ir + rel (every IR input taken as one tensor).
    // CANN: GetDynamicInputShape(irIndex, relativeIndex), TilingContext / InferShapeContext
    // (asc-devkit docs/zh/api, basicdataapi "GetDynamicInputShape").
    int dynamic_instance(size_t ir, size_t rel) const {
        if (ir_in_names.empty()) return ir + rel < inputs.size() ? (int)(ir + rel) : -1;
        int k = ir_to_instance(ir);
        if (k < 0) return -1;
        size_t i = (size_t)k + rel;
        return i < in_names.size() && in_names[i] == ir_in_names[ir] ? (int)i : -1;
    }
};

// Where the instances of one IR (OpDef) input or output are among the node's tensors: the first
// instance's index and how many there are (0 for an absent optional one, N for a list of N).
// CANN gert::AnchorInstanceInfo (asc-devkit docs, basicdataapi "AnchorInstanceInfo"/"GetInstanceNum").
class AnchorInstanceInfo {
public:
    AnchorInstanceInfo() = default;
    AnchorInstanceInfo(uint32_t start, uint32_t num) : start_(start), num_(num) {}
    size_t GetInstanceNum() const { return num_; }
    size_t GetInstanceStart() const { return start_; }
    void SetInstanceStart(uint32_t s) { start_ = s; }
    void SetInstantiationNum(uint32_t n) { num_ = n; }
private:
    uint32_t start_ = 0, num_ = 0;
};

// The instances of IR parameter `ir` among `names` (the consecutive tensors named like it); without
// IR names (no OpDef), every tensor is one IR parameter.
inline AnchorInstanceInfo twin_anchor(const std::vector<std::string> &ir_names, const std::vector<std::string> &names, size_t ir) {
    if (ir_names.empty()) return ir < names.size() ? AnchorInstanceInfo((uint32_t)ir, 1) : AnchorInstanceInfo((uint32_t)names.size(), 0);
    // Absent instances sit where the next present IR parameter starts (after those before it).
    size_t start = 0;
    for (size_t j = 0; j < ir && j < ir_names.size(); j++)
        while (start < names.size() && names[start] == ir_names[j]) start++;
    uint32_t num = 0;
    if (ir < ir_names.size())
        for (size_t k = start; k < names.size() && names[k] == ir_names[ir]; k++) num++;
    return AnchorInstanceInfo((uint32_t)start, num);
}

class ComputeNodeInfo {
public:
    const TwinOpInfo *op_ = nullptr;
    // The OpDef's inputs / outputs (a list counts once), CANN ComputeNodeInfo::GetIrInputsNum.
    size_t GetIrInputsNum() const { return op_->ir_in_names.empty() ? op_->inputs.size() : op_->ir_in_names.size(); }
    size_t GetIrOutputsNum() const { return op_->ir_out_names.empty() ? op_->outputs.size() : op_->ir_out_names.size(); }
    const AnchorInstanceInfo *GetInputInstanceInfo(size_t ir) const {
        if (ir >= GetIrInputsNum()) return nullptr;
        in_anchor_ = twin_anchor(op_->ir_in_names, op_->in_names, ir);
        return &in_anchor_;
    }
    const AnchorInstanceInfo *GetOutputInstanceInfo(size_t ir) const {
        if (ir >= GetIrOutputsNum()) return nullptr;
        out_anchor_ = twin_anchor(op_->ir_out_names, op_->out_names, ir);
        return &out_anchor_;
    }
    mutable AnchorInstanceInfo in_anchor_, out_anchor_;
    const char *GetNodeName() const { return op_->node_name.c_str(); }
    const char *GetNodeType() const { return op_->op_type.c_str(); }
    size_t GetInputsNum() const { return op_->inputs.size(); }
    size_t GetOutputsNum() const { return op_->outputs.size(); }
    const RuntimeAttrs *GetAttrs() const { return &op_->attrs; }
    const CompileTimeTensorDesc *GetInputTdInfo(size_t i) const { return i < op_->in_desc.size() ? &op_->in_desc[i] : nullptr; }
    const CompileTimeTensorDesc *GetOutputTdInfo(size_t i) const { return i < op_->out_desc.size() ? &op_->out_desc[i] : nullptr; }
};

// CANN's ExtendedKernelContext::GetIrInputInstanceInfo / GetIrOutputInstanceInfo, which the tiling,
// InferShape and InferDataType contexts share (asc-devkit docs, basicdataapi "GetIrInputInstanceInfo"):
// where the instances of IR input / output `ir` are (ops-nn's foreach_norm InferShape checks a list's
// instance count against its outputs), and GetComputeNodeInfo itself (ops-nn's fused_sgd and fused_adamw
// InferShapes count a list's tensors through it). Answered by the context's ComputeNodeInfo.
#define TWIN_IR_INSTANCE_INFO                                                                         \
    mutable ComputeNodeInfo ir_info_;                                                                 \
    const AnchorInstanceInfo *GetIrInputInstanceInfo(size_t ir) const {                               \
        ir_info_.op_ = op_;                                                                           \
        return ir_info_.GetInputInstanceInfo(ir);                                                     \
    }                                                                                                 \
    const AnchorInstanceInfo *GetIrOutputInstanceInfo(size_t ir) const {                              \
        ir_info_.op_ = op_;                                                                           \
        return ir_info_.GetOutputInstanceInfo(ir);                                                    \
    }                                                                                                 \
    const ComputeNodeInfo *GetComputeNodeInfo() const {                                               \
        ir_info_.op_ = op_;                                                                           \
        return &ir_info_;                                                                             \
    }

class TilingContext {
public:
    TwinOpInfo *op_ = nullptr;
    TWIN_IR_INSTANCE_INFO
    fe::PlatFormInfos *platform_ = nullptr;
    TilingData raw_;
    uint32_t block_dim_ = 0;
    bool block_dim_set_ = false;
    uint64_t tiling_key_ = 0;
    std::vector<size_t> workspaces_;
    bool workspace_set_ = false;
    void *compile_info_ = nullptr;
    uint32_t schedule_mode_ = 0;
    bool need_atomic_ = false;

    const StorageShape *GetInputShape(size_t i) const { return i < op_->in_shapes.size() ? &op_->in_shapes[i] : nullptr; }
    // Whether input i is a non-contiguous view (ops-nn's arch22 scatter_nd_update asks); the twin's
    // inputs are always whole contiguous tensors.
    bool InputIsView(size_t i) const { (void)i; return false; }
    const Stride *GetInputStride(size_t i) const {
        static const Stride contiguous;
        return i < op_->in_shapes.size() ? &contiguous : nullptr;
    }
    const StorageShape *GetOutputShape(size_t i) const { return i < op_->out_shapes.size() ? &op_->out_shapes[i] : nullptr; }
    const StorageShape *GetOptionalInputShape(size_t ir) const { int k = op_->ir_to_instance(ir); return k < 0 ? nullptr : GetInputShape((size_t)k); }
    const StorageShape *GetDynamicInputShape(size_t ir, size_t rel) const { return instance_shape(op_->dynamic_instance(ir, rel)); }
    // GetRequiredInputShape(ir): the shape of the REQUIRED input at OpDef (IR) index ir, counted in
    // IR inputs, so a DYNAMIC list before it counts once (CANN TilingContext::GetRequiredInputShape).
    const StorageShape *GetRequiredInputShape(size_t ir) const { return instance_shape(op_->ir_to_instance(ir)); }
    const Tensor *GetRequiredInputTensor(size_t ir) const { int k = op_->ir_to_instance(ir); return k < 0 ? nullptr : GetInputTensor((size_t)k); }
    const CompileTimeTensorDesc *GetRequiredInputDesc(size_t ir) const { int k = op_->ir_to_instance(ir); return k < 0 ? nullptr : GetInputDesc((size_t)k); }
    const StorageShape *instance_shape(int k) const { return k < 0 ? nullptr : GetInputShape((size_t)k); }
    const Tensor *GetInputTensor(size_t i) const { return i < op_->inputs.size() ? &op_->inputs[i] : nullptr; }
    const Tensor *GetOptionalInputTensor(size_t ir) const { int k = op_->ir_to_instance(ir); return k < 0 ? nullptr : GetInputTensor((size_t)k); }
    const Tensor *GetDynamicInputTensor(size_t ir, size_t rel) const { int k = op_->dynamic_instance(ir, rel); return k < 0 ? nullptr : GetInputTensor((size_t)k); }
    const Tensor *GetOutputTensor(size_t i) const { return i < op_->outputs.size() ? &op_->outputs[i] : nullptr; }
    const CompileTimeTensorDesc *GetInputDesc(size_t i) const { return i < op_->in_desc.size() ? &op_->in_desc[i] : nullptr; }
    const CompileTimeTensorDesc *GetOptionalInputDesc(size_t ir) const { int k = op_->ir_to_instance(ir); return k < 0 ? nullptr : GetInputDesc((size_t)k); }
    const CompileTimeTensorDesc *GetDynamicInputDesc(size_t ir, size_t rel) const { int k = op_->dynamic_instance(ir, rel); return k < 0 ? nullptr : GetInputDesc((size_t)k); }
    const CompileTimeTensorDesc *GetOutputDesc(size_t i) const { return i < op_->out_desc.size() ? &op_->out_desc[i] : nullptr; }
    const RuntimeAttrs *GetAttrs() const { return &op_->attrs; }
    size_t GetComputeNodeInputNum() const { return op_->inputs.size(); }
    size_t GetComputeNodeOutputNum() const { return op_->outputs.size(); }

    ge::graphStatus SetBlockDim(uint32_t n) { block_dim_ = n; block_dim_set_ = true; return ge::GRAPH_SUCCESS; }
    uint32_t GetBlockDim() const { return block_dim_; }
    // SetSimdNumBlocks(n): the newer name of SetBlockDim, the number of blocks the SIMD kernel is
    // launched on (asc-devkit docs/zh/api/SIMD-API/基础API/Kernel-Tiling/设置Kernel类型.md and the
    // *-Tiling.md examples: `context->SetSimdNumBlocks(NUM_BLOCKS)`). Same effect as SetBlockDim.
    ge::graphStatus SetSimdNumBlocks(uint32_t n) { return SetBlockDim(n); }
    uint32_t GetSimdNumBlocks() const { return block_dim_; }
    ge::graphStatus SetTilingKey(uint64_t k) { tiling_key_ = k; return ge::GRAPH_SUCCESS; }
    uint64_t GetTilingKey() const { return tiling_key_; }
    TilingData *GetRawTilingData() { return &raw_; }
    // GetTilingData<T>: the tiling data typed as T (basicdataapi atlasopapi_07_00242). Public operators
    // fill it and never call SetDataSize, and run on the device, so the data size covers sizeof(T).
    template <class T> T *GetTilingData() {
        if (sizeof(T) > raw_.GetCapacity()) return nullptr;
        if (raw_.GetDataSize() < sizeof(T)) raw_.SetDataSize(sizeof(T));
        return reinterpret_cast<T *>(raw_.GetData());
    }
    size_t *GetWorkspaceSizes(size_t n) {
        workspace_set_ = true;
        if (workspaces_.size() < n) workspaces_.resize(n, 0);
        return workspaces_.data();
    }
    size_t GetWorkspaceNum() const { return workspaces_.size(); }
    fe::PlatFormInfos *GetPlatformInfo() const { return platform_; }
    const char *GetNodeName() const { return op_->node_name.c_str(); }
    const char *GetNodeType() const { return op_->op_type.c_str(); }
    template <class T = void> const T *GetCompileInfo() const { return static_cast<const T *>(compile_info_); }
    ge::graphStatus SetScheduleMode(uint32_t m) { schedule_mode_ = m; return ge::GRAPH_SUCCESS; }
    ge::graphStatus SetNeedAtomic(bool b) { need_atomic_ = b; return ge::GRAPH_SUCCESS; }
    int32_t GetDeterministic() const { return 0; }
    // The deterministic-computation level the framework asks of the op (TilingContext::GetDeterministicLevel,
    // basicdataapi; 0: not required), as GetDeterministic's flag: the twin's runs are deterministic by
    // construction and ask for nothing (ops-nn's mat_mul_v3 stream-K tiling reads it).
    int32_t GetDeterministicLevel() const { return 0; }
    ge::graphStatus SetAicpuBlockDim(uint32_t) { return ge::GRAPH_SUCCESS; }
    ge::graphStatus SetTilingCond(int32_t) { return ge::GRAPH_SUCCESS; }
    // The local memory a SIMT kernel of the regbase SoCs (Ascend 950) may use; the twin models
    // SIMD cores only, so the size is kept and nothing reads it.
    ge::graphStatus SetLocalMemorySize(uint32_t n) { local_memory_size_ = n; return ge::GRAPH_SUCCESS; }
    uint32_t local_memory_size_ = 0;
};

class TilingParseContext {
public:
    fe::PlatFormInfos *platform_ = nullptr;
    void *compile_info_ = nullptr;
    std::string node_name_;
    fe::PlatFormInfos *GetPlatformInfo() const { return platform_; }
    template <class T> T *GetCompiledInfo() { return static_cast<T *>(compile_info_); }
    const char *GetNodeName() const { return node_name_.c_str(); }
    const char *GetNodeType() const { return node_name_.c_str(); }
    const char *GetCompiledJson() const { return "{}"; }
};

class InferShapeContext {
public:
    TwinOpInfo *op_ = nullptr;
    TWIN_IR_INSTANCE_INFO
    std::vector<Shape> in_, out_;
    const Shape *GetInputShape(size_t i) const { return i < in_.size() ? &in_[i] : nullptr; }
    const Shape *GetOptionalInputShape(size_t ir) const { int k = op_->ir_to_instance(ir); return k < 0 ? nullptr : GetInputShape((size_t)k); }
    const Shape *GetDynamicInputShape(size_t ir, size_t rel) const { int k = op_->dynamic_instance(ir, rel); return k < 0 ? nullptr : GetInputShape((size_t)k); }
    const Shape *GetRequiredInputShape(size_t ir) const { int k = op_->ir_to_instance(ir); return k < 0 ? nullptr : GetInputShape((size_t)k); }
    Shape *GetOutputShape(size_t i) { return i < out_.size() ? &out_[i] : nullptr; }
    const Tensor *GetInputTensor(size_t i) const { return i < op_->inputs.size() ? &op_->inputs[i] : nullptr; }
    const Tensor *GetOptionalInputTensor(size_t ir) const { int k = op_->ir_to_instance(ir); return k < 0 ? nullptr : GetInputTensor((size_t)k); }
    const RuntimeAttrs *GetAttrs() const { return &op_->attrs; }
    const char *GetNodeName() const { return op_->node_name.c_str(); }
    const char *GetNodeType() const { return op_->op_type.c_str(); }
    const CompileTimeTensorDesc *GetInputDesc(size_t i) const { return i < op_->in_desc.size() ? &op_->in_desc[i] : nullptr; }
    // The output's descriptor (dtype, formats) as the op declares it: ops-nn's avg_pool3_d reads the
    // output's origin format in its InferShape.
    const CompileTimeTensorDesc *GetOutputDesc(size_t i) const { return i < op_->out_desc.size() ? &op_->out_desc[i] : nullptr; }
    size_t GetComputeNodeInputNum() const { return op_->inputs.size(); }
    size_t GetComputeNodeOutputNum() const { return op_->outputs.size(); }
    // The node's IR instance counts, as TilingContext's (ops-nn's fused_sgd / fused_adamw InferShapes
    // count a tensor list's tensors through GetInputInstanceInfo(ir)->GetInstanceNum()).
};

class InferDataTypeContext {
public:
    TwinOpInfo *op_ = nullptr;
    TWIN_IR_INSTANCE_INFO
    std::vector<ge::DataType> out_;
    ge::DataType GetInputDataType(size_t i) const { return i < op_->in_desc.size() ? op_->in_desc[i].dtype_ : ge::DT_UNDEFINED; }
    ge::DataType GetOptionalInputDataType(size_t ir) const { int k = op_->ir_to_instance(ir); return k < 0 ? ge::DT_UNDEFINED : GetInputDataType((size_t)k); }
    ge::DataType GetRequiredInputDataType(size_t ir) const { return GetOptionalInputDataType(ir); }
    // A list's `rel`-th tensor (CANN InferDataTypeContext::GetDynamicInputDataType(irIndex,
    // relativeIndex), basicdataapi; ops-nn's foreach_norm types its outputs from it).
    ge::DataType GetDynamicInputDataType(size_t ir, size_t rel) const { int k = op_->dynamic_instance(ir, rel); return k < 0 ? ge::DT_UNDEFINED : GetInputDataType((size_t)k); }
    // The compile-time descriptors (dtype, origin and storage formats) of the node's inputs and outputs:
    // ExtendedKernelContext::GetInputDesc / GetOptionalInputDesc / GetDynamicInputDesc / GetOutputDesc,
    // which InferDataTypeContext inherits (basicdataapi, ExtendedKernelContext). ops-math's stft tells an
    // absent optional window from a present one by GetInputDesc(3) == nullptr in its InferDataType.
    const CompileTimeTensorDesc *GetInputDesc(size_t i) const { return i < op_->in_desc.size() ? &op_->in_desc[i] : nullptr; }
    const CompileTimeTensorDesc *GetOptionalInputDesc(size_t ir) const { int k = op_->ir_to_instance(ir); return k < 0 ? nullptr : GetInputDesc((size_t)k); }
    const CompileTimeTensorDesc *GetRequiredInputDesc(size_t ir) const { return GetOptionalInputDesc(ir); }
    const CompileTimeTensorDesc *GetDynamicInputDesc(size_t ir, size_t rel) const { int k = op_->dynamic_instance(ir, rel); return k < 0 ? nullptr : GetInputDesc((size_t)k); }
    const CompileTimeTensorDesc *GetOutputDesc(size_t i) const { return i < op_->out_desc.size() ? &op_->out_desc[i] : nullptr; }
    ge::DataType GetOutputDataType(size_t i) const { return i < out_.size() ? out_[i] : ge::DT_UNDEFINED; }
    // The node's type (ExtendedKernelContext::GetNodeType, which InferDataTypeContext inherits,
    // basicdataapi): ops-transformer's mla_prolog shares one InferDataType between MlaProlog, V2 and V3
    // and tells them apart by type.
    const char *GetNodeType() const { return op_->op_type.c_str(); }
    size_t GetComputeNodeInputNum() const { return op_->inputs.size(); }
    size_t GetComputeNodeOutputNum() const { return op_->outputs.size(); }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType dt) {
        if (out_.size() <= i) out_.resize(i + 1, ge::DT_UNDEFINED);
        out_[i] = dt;
        return ge::GRAPH_SUCCESS;
    }
    const RuntimeAttrs *GetAttrs() const { return &op_->attrs; }
    const char *GetNodeName() const { return op_->node_name.c_str(); }
};

// A shape range, [min, max] per axis, as an op's InferShapeRange function reads and writes it (CANN's
// exe_graph range.h: Range<T> holds pointers to a min and a max it does not own). The twin never runs
// InferShapeRange (it has static shapes); the context holds real ranges so that the function compiles
// and, when called, reads what it was given.
template <class T> class Range {
public:
    Range() = default;
    Range(T *min, T *max) : min_(min), max_(max) {}
    explicit Range(T *same) : min_(same), max_(same) {}
    const T *GetMin() const { return min_; }
    const T *GetMax() const { return max_; }
    T *GetMin() { return min_; }
    T *GetMax() { return max_; }
    void SetMin(T *min) { min_ = min; }
    void SetMax(T *max) { max_ = max; }

private:
    T *min_ = nullptr;
    T *max_ = nullptr;
};

class InferShapeRangeContext {
public:
    TwinOpInfo *op_ = nullptr;
    std::vector<Range<Shape>> in_, out_;
    const Range<Shape> *GetInputShapeRange(size_t i) const { return i < in_.size() ? &in_[i] : nullptr; }
    const Range<Shape> *GetOptionalInputShapeRange(size_t ir) const {
        int k = op_ ? op_->ir_to_instance(ir) : -1;
        return k < 0 ? nullptr : GetInputShapeRange((size_t)k);
    }
    Range<Shape> *GetOutputShapeRange(size_t i) { return i < out_.size() ? &out_[i] : nullptr; }
    const RuntimeAttrs *GetAttrs() const { return op_ ? &op_->attrs : nullptr; }
    const char *GetNodeName() const { return op_ ? op_->node_name.c_str() : "?"; }
    const char *GetNodeType() const { return op_ ? op_->op_type.c_str() : "?"; }
};
class TilingSymbolEvalContext {};

} // namespace gert
#include "../../kernel/twin/dt_macros_on.h"
