// twin (host side): op definition (namespace ops: OpDef, OP_ADD) and the registries the host
// main uses to find an op's tiling function (OP_ADD, IMPL_OP_OPTILING).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include "core.h"

namespace ops {
class OpDef;
}
namespace gert {
// Where a tiling function whose inputs it reads as data may run (CANN's op registry; the second
// argument of IMPL_OP_OPTILING(...).TilingInputsDataDependency, as msopgen writes it and ops-transformer's
// attention ops register it). The twin always tiles on the host: the placement is accepted and unused.
enum class TilingPlacement : int32_t { TILING_ON_HOST = 0, TILING_ON_AICPU = 1 };
}
namespace ge {
class Operator;
class AscendString;
}

// Graph-mode capability checks (CANN OpDef API, register/op_def.h: OpAICoreDef::SetCheckSupport and
// friends take optiling::OP_CHECK_FUNC; optiling::OpCheckFuncHelper registers such a function for a
// check type -- FUNC_CHECK_SUPPORTED and the other three names below -- and an op type; ops-nn's
// norm/bn3d_training_reduce registers its check that way, index/masked_scatter and others pass
// `opDef.AICore().GetCheckSupport()`). The twin keeps what is registered, per check type and op type
// (twin_host::op_check_funcs), and runs no graph-mode format selection, so nothing calls them.
namespace optiling {
#ifndef FUNC_CHECK_SUPPORTED
#define FUNC_CHECK_SUPPORTED "check_supported"
#define FUNC_OP_SELECT_FORMAT "op_select_format"
#define FUNC_GET_OP_SUPPORT_INFO "get_op_support_info"
#define FUNC_GET_SPECIFIC_INFO "get_op_specific_info"
#endif
using OP_CHECK_FUNC = ge::graphStatus (*)(const ge::Operator &op, ge::AscendString &result);
using PARAM_GENERALIZE_FUNC = ge::graphStatus (*)(const ge::Operator &op, const ge::AscendString &generalize_config,
                                                  ge::AscendString &generalized_op_params);
} // namespace optiling
namespace twin_host {
// check type -> op type -> the registered function (a null function is not recorded).
inline std::map<std::string, std::map<std::string, optiling::OP_CHECK_FUNC>> &op_check_funcs() {
    static std::map<std::string, std::map<std::string, optiling::OP_CHECK_FUNC>> m;
    return m;
}
} // namespace twin_host
namespace optiling {
class OpCheckFuncHelper {
public:
    OpCheckFuncHelper(const char *check_type, const char *op_type, OP_CHECK_FUNC func) {
        if (func != nullptr && check_type != nullptr && op_type != nullptr)
            twin_host::op_check_funcs()[check_type][op_type] = func;
    }
    OpCheckFuncHelper(const char *, PARAM_GENERALIZE_FUNC) {}
};
} // namespace optiling

namespace twin_host {
using TilingFunc = ge::graphStatus (*)(gert::TilingContext *);
using TilingParseFunc = ge::graphStatus (*)(gert::TilingParseContext *);
using InferShapeFunc = ge::graphStatus (*)(gert::InferShapeContext *);
using InferDataTypeFunc = ge::graphStatus (*)(gert::InferDataTypeContext *);

using OpDefFactory = ops::OpDef *(*)(const char *);
inline std::map<std::string, OpDefFactory> &opdef_registry() {
    static std::map<std::string, OpDefFactory> m;
    return m;
}
struct OpDefRegistrar {
    OpDefRegistrar(const char *name, OpDefFactory f) { opdef_registry()[name] = f; }
};

// IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE registrations.
struct OpImpl {
    TilingFunc tiling = nullptr;
    TilingParseFunc tiling_parse = nullptr;
    std::function<void *()> make_compile_info;
    std::function<void(void *)> free_compile_info;
    InferShapeFunc infer_shape = nullptr;
    InferDataTypeFunc infer_dtype = nullptr;
    std::vector<int> data_deps; // IR indexes of inputs whose data the tiling (or infer-shape) reads

    OpImpl &Tiling(TilingFunc f, size_t = 0) { tiling = f; return *this; }
    template <class CI> OpImpl &TilingParse(TilingParseFunc f) {
        tiling_parse = f;
        make_compile_info = []() -> void * { return new CI(); };
        free_compile_info = [](void *p) { delete static_cast<CI *>(p); };
        return *this;
    }
    template <class CI, class F> OpImpl &TilingParse(F f) {
        tiling_parse = reinterpret_cast<TilingParseFunc>(f);
        make_compile_info = []() -> void * { return new CI(); };
        free_compile_info = [](void *p) { delete static_cast<CI *>(p); };
        return *this;
    }
    OpImpl &InferShape(InferShapeFunc f) { infer_shape = f; return *this; }
    OpImpl &InferDataType(InferDataTypeFunc f) { infer_dtype = f; return *this; }
    // Every output takes input 0's dtype (ops-nn's max_pooling_grad and bnll register this form).
    OpImpl &InferOutDataTypeSameWithFirstInput() {
        infer_dtype = [](gert::InferDataTypeContext *context) -> ge::graphStatus {
            for (size_t i = 0; i < context->GetComputeNodeOutputNum(); i++)
                context->SetOutputDataType(i, context->GetInputDataType(0));
            return ge::GRAPH_SUCCESS;
        };
        return *this;
    }
    template <class... A> OpImpl &InferShapeRange(A...) { return *this; }
    template <class T = int> OpImpl &InputsDataDependency(std::initializer_list<T> ir) {
        for (T i : ir) data_deps.push_back((int)i);
        return *this;
    }
    template <class T> OpImpl &InputsDataDependency(const std::vector<T> &ir) {
        for (T i : ir) data_deps.push_back((int)i);
        return *this;
    }
    template <class... A> OpImpl &PrivateAttr(A...) { return *this; }
    template <class T = int> OpImpl &TilingInputsDataDependency(std::initializer_list<T> ir) { return InputsDataDependency(ir); }
    template <class T, class S> OpImpl &TilingInputsDataDependency(std::initializer_list<T> ir, S) { return InputsDataDependency(ir); }
    template <class T = int>
    OpImpl &TilingInputsDataDependency(std::initializer_list<T> ir, std::initializer_list<gert::TilingPlacement>) {
        return InputsDataDependency(ir);
    }
    template <class T> OpImpl &TilingInputsDataDependency(const std::vector<T> &ir) { return InputsDataDependency(ir); }
    template <class... A> OpImpl &OutputShapeDependOnCompute(A...) { return *this; }
    OpImpl &GenSimplifiedKey(...) { return *this; }
};
inline std::map<std::string, OpImpl> &impl_registry() {
    static std::map<std::string, OpImpl> m;
    return m;
}
inline OpImpl &impl_reg(const char *op) { return impl_registry()[op]; }
} // namespace twin_host

#define TWIN_HCAT2(a, b) a##b
#define TWIN_HCAT(a, b) TWIN_HCAT2(a, b)
#define IMPL_OP_OPTILING(op) \
    static ::twin_host::OpImpl &TWIN_HCAT(twin_impl_tiling_, __COUNTER__) __attribute__((unused)) = ::twin_host::impl_reg(#op)
#define IMPL_OP_INFERSHAPE(op) \
    static ::twin_host::OpImpl &TWIN_HCAT(twin_impl_infer_, __COUNTER__) __attribute__((unused)) = ::twin_host::impl_reg(#op)
#define IMPL_OP(op) \
    static ::twin_host::OpImpl &TWIN_HCAT(twin_impl_, __COUNTER__) __attribute__((unused)) = ::twin_host::impl_reg(#op)

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FormatCheckOption : uint32_t { DEFAULT = 0, STRICT = 1, MAX };
enum class InitValueType : uint32_t { INIT_VALUE_UINT64_T = 0, INIT_VALUE_DEFAULT = 0xFFFFFFFF };
enum class ItemFindStatus { ITEM_FIND = 0, ITEM_NOEXIST = 1 };

// An output's initial value (CANN's op_def.h: ScalarType, ScalarVar, InitValue): ops write
// `.InitValue({{ScalarType::FLOAT32, 0}, {ScalarType::FLOAT16, 0}})`, one per dtype. The twin zeroes
// every output before the launch, so the values are kept for nothing but the compile.
enum class ScalarType : uint32_t {
    UINT64 = 0, INT64 = 1, UINT32 = 2, INT32 = 3, UINT16 = 4, INT16 = 5, UINT8 = 6, INT8 = 7,
    FLOAT32 = 8, FLOAT16 = 9, INVALID_DTYPE = 0xFFFFFFFF
};
struct ScalarVar {
    ScalarType type = ScalarType::INVALID_DTYPE;
    int64_t i = 0;
    double f = 0;
    ScalarVar() = default;
    template <class T> explicit ScalarVar(T v) : i((int64_t)v), f((double)v) {}
    template <class T> ScalarVar(ScalarType t, T v) : type(t), i((int64_t)v), f((double)v) {}
};

class OpParamDef {
public:
    explicit OpParamDef(const char *name = "") : name_(name) {}
    std::string name_;
    Option param_type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    std::vector<ge::Format> formats_;

    OpParamDef &ParamType(Option o) { param_type_ = o; return *this; }
    OpParamDef &DataType(std::vector<ge::DataType> v) { dtypes_ = std::move(v); return *this; }
    OpParamDef &DataTypeList(std::vector<ge::DataType> v) { dtypes_ = std::move(v); return *this; }
    OpParamDef &Format(std::vector<ge::Format> v) { formats_ = std::move(v); return *this; }
    OpParamDef &FormatList(std::vector<ge::Format> v) { formats_ = std::move(v); return *this; }
    OpParamDef &UnknownShapeFormat(std::vector<ge::Format>) { return *this; }
    // A value-dependent input: its data reaches the tiling function (gert::Tensor in core.h).
    bool value_depend_ = false;
    OpParamDef &ValueDepend(Option) { value_depend_ = true; return *this; }
    OpParamDef &ValueDepend(Option, DependScope) { value_depend_ = true; return *this; }
    OpParamDef &IgnoreContiguous() { return *this; }
    OpParamDef &AutoContiguous() { return *this; }
    OpParamDef &Scalar() { return *this; }
    OpParamDef &ScalarList() { return *this; }
    OpParamDef &To(ge::DataType) { return *this; }
    OpParamDef &To(const char *) { return *this; }
    OpParamDef &Version(uint32_t) { return *this; }
    OpParamDef &InitValue(uint64_t) { return *this; }
    OpParamDef &InitValue(const ScalarVar &) { return *this; }
    OpParamDef &InitValue(const std::vector<ScalarVar> &) { return *this; }
    OpParamDef &OutputShapeDependOnCompute() { return *this; }
    OpParamDef &DataTypeForBinQuery(std::vector<ge::DataType>) { return *this; }
    OpParamDef &FormatForBinQuery(std::vector<ge::Format>) { return *this; }
    OpParamDef &Follow(const char *) { return *this; }
    template <class T> OpParamDef &Follow(const char *, T) { return *this; }
    OpParamDef &Comment(const char *) { return *this; }
    OpParamDef &ConstValue(...) { return *this; }
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char *name = "") : name_(name) {}
    std::string name_;
    Option attr_type_ = OPTIONAL;
    gert::TwinAttr default_;
    bool has_default_ = false;

    OpAttrDef &AttrType(Option o) { attr_type_ = o; return *this; }
    OpAttrDef &Int() { default_.kind = "int"; return *this; }
    OpAttrDef &Int(int64_t v) { default_.kind = "int"; default_.i = v; has_default_ = true; return *this; }
    OpAttrDef &Float() { default_.kind = "float"; return *this; }
    OpAttrDef &Float(float v) { default_.kind = "float"; default_.f = v; has_default_ = true; return *this; }
    OpAttrDef &Bool() { default_.kind = "bool"; return *this; }
    OpAttrDef &Bool(bool v) { default_.kind = "bool"; default_.b = v; has_default_ = true; return *this; }
    OpAttrDef &String() { default_.kind = "str"; return *this; }
    OpAttrDef &String(const char *v) { default_.kind = "str"; default_.s = v; has_default_ = true; return *this; }
    OpAttrDef &ListInt() { default_.kind = "ints"; return *this; }
    OpAttrDef &ListInt(std::vector<int64_t> v) {
        default_.kind = "ints"; default_.ints = gert::TypedContinuousVector<int64_t>(v); has_default_ = true; return *this;
    }
    OpAttrDef &ListFloat() { default_.kind = "floats"; return *this; }
    OpAttrDef &ListFloat(std::vector<float> v) {
        default_.kind = "floats"; default_.floats = gert::TypedContinuousVector<float>(v); has_default_ = true; return *this;
    }
    OpAttrDef &ListBool() { default_.kind = "bools"; return *this; }
    OpAttrDef &ListBool(std::vector<bool> v) {
        default_.kind = "bools"; default_.bools = gert::TypedContinuousVector<bool>(v); has_default_ = true; return *this;
    }
    OpAttrDef &ListListInt() { default_.kind = "intss"; return *this; }
    OpAttrDef &ListListInt(std::vector<std::vector<int64_t>>) { default_.kind = "intss"; return *this; }
    OpAttrDef &Version(uint32_t) { return *this; }
    OpAttrDef &Comment(const char *) { return *this; }
};

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char *) {}
    std::vector<std::unique_ptr<OpParamDef>> params_;
    // Flags of the graph compiler; AsyncFlag is the older samples' (CANN 6 era, Ascend/samples'
    // acl_invocation AddCustom). None changes what the twin runs.
    OpAICoreConfig &AsyncFlag(bool) { return *this; }
    OpAICoreConfig &RangeLimitValue(const char *) { return *this; }
    OpAICoreConfig &DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig &DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig &DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig &DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig &NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig &PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig &ExtendCfgInfo(const char *, const char *) { return *this; }
    OpParamDef &Input(const char *name) { params_.emplace_back(new OpParamDef(name)); return *params_.back(); }
    OpParamDef &Output(const char *name) { params_.emplace_back(new OpParamDef(name)); return *params_.back(); }
    OpAICoreConfig(const OpAICoreConfig &) {}
    OpAICoreConfig &operator=(const OpAICoreConfig &) { return *this; }
};

class OpAICoreDef {
public:
    twin_host::TilingFunc tiling_ = nullptr;
    std::vector<std::string> socs_;
    OpAICoreDef &SetTiling(twin_host::TilingFunc f) { tiling_ = f; return *this; }
    template <class F> OpAICoreDef &SetTilingParse(F) { return *this; }
    optiling::OP_CHECK_FUNC check_support_ = nullptr, op_select_format_ = nullptr, op_support_info_ = nullptr,
                            op_spec_info_ = nullptr;
    OpAICoreDef &SetCheckSupport(optiling::OP_CHECK_FUNC f) { check_support_ = f; return *this; }
    // The older samples' check returns int32_t (Ascend/samples' acl_invocation AddCustom, CANN 6 era); the
    // twin calls no check, so it is taken and not kept.
    OpAICoreDef &SetCheckSupport(int32_t (*)(const ge::Operator &, ge::AscendString &)) { return *this; }
    OpAICoreDef &SetOpSelectFormat(optiling::OP_CHECK_FUNC f) { op_select_format_ = f; return *this; }
    OpAICoreDef &SetOpSupportInfo(optiling::OP_CHECK_FUNC f) { op_support_info_ = f; return *this; }
    OpAICoreDef &SetOpSpecInfo(optiling::OP_CHECK_FUNC f) { op_spec_info_ = f; return *this; }
    optiling::OP_CHECK_FUNC &GetCheckSupport() { return check_support_; }
    optiling::OP_CHECK_FUNC &GetOpSelectFormat() { return op_select_format_; }
    optiling::OP_CHECK_FUNC &GetOpSupportInfo() { return op_support_info_; }
    optiling::OP_CHECK_FUNC &GetOpSpecInfo() { return op_spec_info_; }
    template <class F> OpAICoreDef &SetParamGeneralize(F) { return *this; }
    OpAICoreDef &AddConfig(const char *soc) { socs_.push_back(soc); return *this; }
    OpAICoreDef &AddConfig(const char *soc, OpAICoreConfig &) { socs_.push_back(soc); return *this; }
};

class OpMC2Def {
public:
    OpMC2Def &HcclGroup(const char *) { return *this; }
    OpMC2Def &HcclGroup(std::vector<const char *>) { return *this; }
};

class OpDef {
public:
    explicit OpDef(const char *type) : type_(type) {}
    virtual ~OpDef() = default;
    std::string type_;
    std::vector<std::unique_ptr<OpParamDef>> inputs_, outputs_;
    std::vector<std::unique_ptr<OpAttrDef>> attrs_;
    OpAICoreDef aicore_;
    OpMC2Def mc2_;
    twin_host::InferShapeFunc infer_shape_ = nullptr;
    twin_host::InferDataTypeFunc infer_dtype_ = nullptr;

    OpParamDef &Input(const char *name) { inputs_.emplace_back(new OpParamDef(name)); return *inputs_.back(); }
    OpParamDef &Output(const char *name) { outputs_.emplace_back(new OpParamDef(name)); return *outputs_.back(); }
    OpAttrDef &Attr(const char *name) { attrs_.emplace_back(new OpAttrDef(name)); return *attrs_.back(); }
    OpDef &SetInferShape(twin_host::InferShapeFunc f) { infer_shape_ = f; return *this; }
    OpDef &SetInferDataType(twin_host::InferDataTypeFunc f) { infer_dtype_ = f; return *this; }
    template <class F> OpDef &SetInferShapeRange(F) { return *this; }
    OpDef &Comment(const char *) { return *this; }
    OpDef &FormatMatchMode(FormatCheckOption) { return *this; }
    OpDef &EnableFallBack() { return *this; }
    OpAICoreDef &AICore() { return aicore_; }
    OpMC2Def &MC2() { return mc2_; }
    const char *GetOpType() const { return type_.c_str(); }
};

} // namespace ops

#define OP_ADD(opType, ...)                                                                          \
    static ::twin_host::OpDefRegistrar TWIN_HCAT(twin_opdef_reg_, opType) __attribute__((unused))(   \
        #opType, [](const char *n) -> ::ops::OpDef * { return new opType(n); })
