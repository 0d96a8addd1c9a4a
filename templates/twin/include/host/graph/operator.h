// twin: graph/operator.h -> ge::AscendString, ge::TensorDesc, ge::Operator, as far as operator host
// code and the repositories' common headers use them (names, types, attributes, tensor descriptions).
// Written from the CANN graph API documentation (ascendgraphapi atlasgeapi_07_0624, the Operator class:
// https://www.hiascend.com/document/detail/zh/canncommercial/850/API/ascendgraphapi/atlasgeapi_07_0624.html,
// and the AscendString / TensorDesc pages beside it); no CANN source is copied. The twin runs no graph:
// an Operator is a named, typed holder of attributes and input/output descriptions.
#pragma once
#include <map>
#include <string>
#include <vector>
#include "../twin_host/core.h"
#include "../twin_host/opbase.h"

namespace ge {
using char_t = char;

class AscendString {
public:
    AscendString() = default;
    AscendString(const char *s) : s_(s ? s : ""), null_(s == nullptr) {}
    AscendString(const char *s, size_t n) : s_(s ? std::string(s, n) : ""), null_(s == nullptr) {}
    const char *GetString() const { return null_ ? nullptr : s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    size_t Find(const AscendString &o) const {
        size_t p = s_.find(o.s_);
        return p == std::string::npos ? (size_t)-1 : p;
    }
    size_t Hash() const { return std::hash<std::string>()(s_); }
    bool operator<(const AscendString &o) const { return s_ < o.s_; }
    bool operator>(const AscendString &o) const { return s_ > o.s_; }
    bool operator<=(const AscendString &o) const { return s_ <= o.s_; }
    bool operator>=(const AscendString &o) const { return s_ >= o.s_; }
    bool operator==(const AscendString &o) const { return s_ == o.s_; }
    bool operator!=(const AscendString &o) const { return s_ != o.s_; }
private:
    std::string s_;
    bool null_ = true;
};
inline AscendString TypeUtils::DataTypeToAscendString(DataType dt) {
    return AscendString(DataTypeToSerialString(dt).c_str());
}
inline AscendString TypeUtils::FormatToAscendString(Format f) { return AscendString(FormatToSerialString(f).c_str()); }

class TensorDesc {
public:
    TensorDesc() = default;
    explicit TensorDesc(Shape shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT)
        : shape_(shape), origin_shape_(shape), format_(format), origin_format_(format), dtype_(dt) {}
    Shape GetShape() const { return shape_; }
    void SetShape(const Shape &s) { shape_ = s; }
    Shape GetOriginShape() const { return origin_shape_; }
    void SetOriginShape(const Shape &s) { origin_shape_ = s; }
    Format GetFormat() const { return format_; }
    void SetFormat(Format f) { format_ = f; }
    Format GetOriginFormat() const { return origin_format_; }
    void SetOriginFormat(Format f) { origin_format_ = f; }
    DataType GetDataType() const { return dtype_; }
    void SetDataType(DataType dt) { dtype_ = dt; }
    graphStatus GetName(AscendString &name) const { name = AscendString(name_.c_str()); return GRAPH_SUCCESS; }
    void SetName(const char *name) { name_ = name ? name : ""; }
    int64_t GetSize() const { return shape_.GetShapeSize() * GetSizeByDataType(dtype_); }
    int64_t GetRealDimCnt() const { return (int64_t)shape_.GetDimNum(); }
private:
    Shape shape_, origin_shape_;
    Format format_ = FORMAT_ND, origin_format_ = FORMAT_ND;
    DataType dtype_ = DT_FLOAT;
    std::string name_;
};

class Operator {
public:
    Operator() = default;
    explicit Operator(const std::string &type) : type_(type), empty_(false) {}
    explicit Operator(const char *type) : type_(type ? type : ""), empty_(false) {}
    Operator(const std::string &name, const std::string &type) : name_(name), type_(type), empty_(false) {}
    Operator(const AscendString &name, const AscendString &type)
        : name_(str(name)), type_(str(type)), empty_(false) {}
    Operator(const char *name, const char *type) : name_(name ? name : ""), type_(type ? type : ""), empty_(false) {}
    virtual ~Operator() = default;

    bool IsEmpty() const { return empty_; }
    std::string GetName() const { return name_; }
    std::string GetOpType() const { return type_; }
    graphStatus GetName(AscendString &name) const { name = AscendString(name_.c_str()); return GRAPH_SUCCESS; }
    graphStatus GetOpType(AscendString &type) const { type = AscendString(type_.c_str()); return GRAPH_SUCCESS; }

    // Inputs and outputs: descriptions by index or by name; an unknown one reads as an empty TensorDesc.
    size_t GetInputsSize() const { return inputs_.size(); }
    size_t GetOutputsSize() const { return outputs_.size(); }
    TensorDesc GetInputDesc(uint32_t i) const { return i < inputs_.size() ? inputs_[i].second : TensorDesc(); }
    TensorDesc GetOutputDesc(uint32_t i) const { return i < outputs_.size() ? outputs_[i].second : TensorDesc(); }
    TensorDesc GetInputDesc(const std::string &n) const { return find(inputs_, n); }
    TensorDesc GetOutputDesc(const std::string &n) const { return find(outputs_, n); }
    TensorDesc GetInputDescByName(const char *n) const { return find(inputs_, n ? n : ""); }
    TensorDesc GetOutputDescByName(const char *n) const { return find(outputs_, n ? n : ""); }
    graphStatus UpdateInputDesc(const std::string &n, const TensorDesc &d) { return update(inputs_, n, d); }
    graphStatus UpdateOutputDesc(const std::string &n, const TensorDesc &d) { return update(outputs_, n, d); }
    void InputRegister(const char *n) { inputs_.push_back({n ? n : "", TensorDesc()}); }
    void OutputRegister(const char *n) { outputs_.push_back({n ? n : "", TensorDesc()}); }

    // Attributes, by name. GetAttr fails (GRAPH_FAILED) for a name never set or set with another type.
    template <class T> Operator &SetAttr(const std::string &n, const T &v) { attrs_[n] = Attr::of(v); return *this; }
    template <class T> Operator &SetAttr(const char *n, const T &v) { return SetAttr(std::string(n ? n : ""), v); }
    template <class T> graphStatus GetAttr(const std::string &n, T &v) const {
        auto it = attrs_.find(n);
        return it != attrs_.end() && it->second.get(v) ? GRAPH_SUCCESS : GRAPH_FAILED;
    }
    template <class T> graphStatus GetAttr(const char *n, T &v) const { return GetAttr(std::string(n ? n : ""), v); }
    bool HasAttr(const std::string &n) const { return attrs_.count(n) != 0; }

private:
    struct Attr {
        enum Kind { INT, FLOAT, BOOL, STR, INTS, FLOATS, DTYPE } kind = INT;
        int64_t i = 0;
        double f = 0;
        std::string s;
        std::vector<int64_t> ints;
        std::vector<float> floats;
        template <class T> static Attr of(const T &v) {
            Attr a;
            if constexpr (std::is_same<T, bool>::value) { a.kind = BOOL; a.i = v; }
            else if constexpr (std::is_same<T, DataType>::value) { a.kind = DTYPE; a.i = (int64_t)v; }
            else if constexpr (std::is_integral<T>::value) { a.kind = INT; a.i = (int64_t)v; }
            else if constexpr (std::is_floating_point<T>::value) { a.kind = FLOAT; a.f = v; }
            else if constexpr (std::is_same<T, AscendString>::value) { a.kind = STR; a.s = str(v); }
            else if constexpr (std::is_convertible<T, std::string>::value) { a.kind = STR; a.s = std::string(v); }
            else if constexpr (std::is_same<T, std::vector<float>>::value) { a.kind = FLOATS; a.floats = v; }
            else { a.kind = INTS; a.ints.assign(v.begin(), v.end()); }
            return a;
        }
        template <class T> bool get(T &v) const {
            if constexpr (std::is_same<T, bool>::value) { if (kind != BOOL) return false; v = i != 0; }
            else if constexpr (std::is_same<T, DataType>::value) { if (kind != DTYPE) return false; v = (DataType)i; }
            else if constexpr (std::is_integral<T>::value) { if (kind != INT) return false; v = (T)i; }
            else if constexpr (std::is_floating_point<T>::value) { if (kind != FLOAT) return false; v = (T)f; }
            else if constexpr (std::is_same<T, AscendString>::value) { if (kind != STR) return false; v = AscendString(s.c_str()); }
            else if constexpr (std::is_same<T, std::string>::value) { if (kind != STR) return false; v = s; }
            else if constexpr (std::is_same<T, std::vector<float>>::value) { if (kind != FLOATS) return false; v = floats; }
            else { if (kind != INTS) return false; v.assign(ints.begin(), ints.end()); }
            return true;
        }
    };
    static std::string str(const AscendString &a) { return a.GetString() ? a.GetString() : ""; }
    using Ports = std::vector<std::pair<std::string, TensorDesc>>;
    static TensorDesc find(const Ports &p, const std::string &n) {
        for (auto &e : p) if (e.first == n) return e.second;
        return TensorDesc();
    }
    static graphStatus update(Ports &p, const std::string &n, const TensorDesc &d) {
        for (auto &e : p) if (e.first == n) { e.second = d; return GRAPH_SUCCESS; }
        return GRAPH_FAILED;
    }
    std::string name_, type_;
    bool empty_ = true;
    Ports inputs_, outputs_;
    std::map<std::string, Attr> attrs_;
};
} // namespace ge

// The log macros name an Operator by its name.
namespace twin_log {
inline std::string op_name(const ge::Operator &op) { return op.GetName(); }
}
namespace Ops {
namespace Base {
inline std::string GetOpInfo(const ge::Operator &op) { return op.GetName(); }
}
}
