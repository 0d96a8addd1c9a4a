// twin: main of the host tiling program.  Usage: tiling <spec-file> <out-file>
// Finds the tiling function of the spec's op_type (registered with OP_ADD + AICore().SetTiling,
// or IMPL_OP_OPTILING(...).Tiling), runs it on the spec's shapes, dtypes, attrs and platform,
// and writes block_dim / tiling_key / tiling_data (hex) / workspace to the out-file.
// An `input` line may end with the path of the input's data file; the inputs the op declares
// data-dependent read it on first access (gert::Tensor in twin_host/core.h).
// With the directive `infer 1` it runs the op's InferShape (and InferDataType) instead of its tiling
// and writes `infer_shape none|ok`, then per output `output_shape <i> <dims>` (`[]` for a scalar,
// `unset` when InferShape never wrote it) and
// `output_dtype <i> <name>` (`cargo ascend-tune init` takes the output shapes from them).
// Exit 0 ok, 2 bad spec or I/O, 4 tiling (or InferShape) failed or op type not registered.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <map>
#include "graph/ascend_string.h"

// The tuning-tiling class registry of CANN's registration library (tuningtiling::TuningTilingClassFactory,
// declared in the operator repositories' register/tuning_tiling_registry.h, e.g. ops-nn's
// common/inc/op_host/register/): REGISTER_TUNING_TILING_CLASS(op, cls) registers, at program start, a
// constructor of the op's tuning-parameter class for the auto-tuner (ops-nn's mat_mul_v3). The twin runs
// no tuner; it keeps the registrations, so the program links and a lookup answers what was registered.
// The declaration below repeats the library's signatures (the header is the operator repository's, not
// on this file's include path); the definitions are the twin's own.
namespace tuningtiling {
class TuningTilingDef;
using TuningTilingDefConstructor = std::shared_ptr<TuningTilingDef> (*)();
class TuningTilingClassFactory {
public:
    static std::map<ge::AscendString, TuningTilingDefConstructor> &RegisterInfo();
    static void RegisterTilingData(const ge::AscendString &optype, TuningTilingDefConstructor const constructor);
    static std::shared_ptr<TuningTilingDef> CreateTilingDataInstance(const ge::AscendString &optype);
};
std::map<ge::AscendString, TuningTilingDefConstructor> &TuningTilingClassFactory::RegisterInfo() {
    static std::map<ge::AscendString, TuningTilingDefConstructor> registry;
    return registry;
}
void TuningTilingClassFactory::RegisterTilingData(const ge::AscendString &optype,
                                                  TuningTilingDefConstructor const constructor) {
    RegisterInfo()[optype] = constructor;
}
std::shared_ptr<TuningTilingDef> TuningTilingClassFactory::CreateTilingDataInstance(const ge::AscendString &optype) {
    auto &reg = RegisterInfo();
    auto it = reg.find(optype);
    return it == reg.end() || it->second == nullptr ? nullptr : it->second();
}
} // namespace tuningtiling

// The tuned-tiling knowledge bank of CANN's runtime (RuntimeKb::QueryBank, declared in the operator
// repositories' runtime_kb_api.h): a lookup of tiling parameters the auto-tuner stored for an op, its
// inputs, SoC and core count. The twin's bank is empty: every query answers "no entry" (non-zero, no
// tiling), as a bank without the key does, and the op computes its own tiling (ops-nn's mat_mul_v3
// GetTilingFromRepo then returns false and goes on).
namespace RuntimeKb {
uint32_t QueryBank(const void *src, size_t src_len, const std::string &op_type, const std::string &soc_version,
                   uint32_t core_num, std::shared_ptr<tuningtiling::TuningTilingDef> &tiling) {
    (void)src, (void)src_len, (void)op_type, (void)soc_version, (void)core_num;
    tiling = nullptr;
    return 1;
}
} // namespace RuntimeKb

namespace {

[[noreturn]] void die(int code, const std::string &msg) {
    std::fprintf(stderr, "error: %s\n", msg.c_str());
    std::exit(code);
}

bool parse_dtype(const std::string &s, ge::DataType &dt) {
    static const struct { const char *n; ge::DataType d; } tab[] = {
        {"float16", ge::DT_FLOAT16}, {"half", ge::DT_FLOAT16}, {"fp16", ge::DT_FLOAT16},
        {"bfloat16", ge::DT_BF16}, {"bf16", ge::DT_BF16},
        {"float32", ge::DT_FLOAT}, {"float", ge::DT_FLOAT}, {"fp32", ge::DT_FLOAT},
        {"int8", ge::DT_INT8}, {"int16", ge::DT_INT16}, {"int32", ge::DT_INT32}, {"int64", ge::DT_INT64},
        {"uint8", ge::DT_UINT8}, {"uint16", ge::DT_UINT16}, {"uint32", ge::DT_UINT32}, {"uint64", ge::DT_UINT64},
        {"bool", ge::DT_BOOL}, {"float64", ge::DT_DOUBLE}, {"double", ge::DT_DOUBLE},
    };
    for (auto &e : tab)
        if (s == e.n) { dt = e.d; return true; }
    return false;
}

std::vector<std::string> split(const std::string &s, char c) {
    std::vector<std::string> out;
    std::string cur;
    for (char ch : s) {
        if (ch == c) { out.push_back(cur); cur.clear(); }
        else cur.push_back(ch);
    }
    out.push_back(cur);
    return out;
}

gert::Shape parse_shape(const std::string &s, const std::string &line) {
    gert::Shape sh;
    if (s == "-" || s.empty() || s == "[]") return sh;
    for (auto &p : split(s, ',')) {
        if (p.empty()) continue;
        try { sh.AppendDim(std::stoll(p)); } catch (...) { die(2, "bad shape in spec line: " + line); }
    }
    return sh;
}

struct SpecAttr {
    std::string name;
    gert::TwinAttr value;
};

} // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s <spec-file> <out-file>\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) die(2, std::string("cannot read spec file ") + argv[1]);

    auto plat = std::make_unique<fe::PlatFormInfos>();
    auto op = std::make_unique<gert::TwinOpInfo>();
    std::vector<SpecAttr> spec_attrs;
    bool infer_mode = false;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        std::string d;
        if (!(ss >> d) || d[0] == '#') continue;
        std::string rest;
        std::getline(ss, rest);
        size_t p0 = rest.find_first_not_of(' ');
        rest = p0 == std::string::npos ? "" : rest.substr(p0);
        plat->extra[d] = rest;
        std::istringstream rs(rest);
        try {
            if (d == "op_type") rs >> op->op_type;
            else if (d == "infer") { int v = 0; rs >> v; infer_mode = v != 0; }
            else if (d == "soc_version") rs >> plat->soc_version;
            else if (d == "short_soc") rs >> plat->short_soc;
            else if (d == "aiv_cores") rs >> plat->aiv_cores;
            else if (d == "aic_cores") rs >> plat->aic_cores;
            else if (d == "ub_bytes") rs >> plat->ub_bytes;
            else if (d == "l1_bytes") rs >> plat->l1_bytes;
            else if (d == "l0a_bytes") rs >> plat->l0a_bytes;
            else if (d == "l0b_bytes") rs >> plat->l0b_bytes;
            else if (d == "l0c_bytes") rs >> plat->l0c_bytes;
            else if (d == "l2_bytes") rs >> plat->l2_bytes;
            else if (d == "hbm_bytes") rs >> plat->hbm_bytes;
            else if (d == "libapi_workspace") { rs >> plat->libapi_workspace; plat->has_libapi_workspace = true; }
            else if (d == "input" || d == "output") {
                std::string name, dts, shs, data_path;
                if (!(rs >> name >> dts >> shs)) die(2, "bad directive: " + line);
                // Optional fourth field, to the end of the line: the input's data file.
                std::getline(rs, data_path);
                size_t dp = data_path.find_first_not_of(' ');
                data_path = dp == std::string::npos ? "" : data_path.substr(dp);
                ge::DataType dt;
                if (!parse_dtype(dts, dt)) die(2, "unknown dtype '" + dts + "' in: " + line);
                gert::Shape sh = parse_shape(shs, line);
                gert::StorageShape ss2;
                ss2.MutableOriginShape() = sh;
                ss2.MutableStorageShape() = sh;
                gert::Tensor t;
                t.shape_ = ss2;
                t.dtype_ = dt;
                t.twin_name_ = name;
                if (d == "input") t.twin_data_path_ = data_path;
                gert::CompileTimeTensorDesc desc;
                desc.dtype_ = dt;
                if (d == "input") {
                    op->in_names.push_back(name); op->inputs.push_back(t); op->in_desc.push_back(desc); op->in_shapes.push_back(ss2);
                } else {
                    op->out_names.push_back(name); op->outputs.push_back(t); op->out_desc.push_back(desc); op->out_shapes.push_back(ss2);
                }
            } else if (d == "attr") {
                SpecAttr a;
                std::string kind, val;
                if (!(rs >> a.name >> kind)) die(2, "bad directive: " + line);
                std::getline(rs, val);
                size_t q = val.find_first_not_of(' ');
                val = q == std::string::npos ? "" : val.substr(q);
                a.value.kind = kind;
                if (kind == "int") a.value.i = std::stoll(val);
                else if (kind == "float") a.value.f = std::stof(val);
                else if (kind == "bool") a.value.b = (val == "1" || val == "true" || val == "True");
                else if (kind == "str") a.value.s = val;
                else if (kind == "ints") {
                    std::vector<int64_t> v;
                    for (auto &p : split(val, ',')) if (!p.empty()) v.push_back(std::stoll(p));
                    a.value.ints = gert::TypedContinuousVector<int64_t>(v);
                } else if (kind == "floats") {
                    std::vector<float> v;
                    for (auto &p : split(val, ',')) if (!p.empty()) v.push_back(std::stof(p));
                    a.value.floats = gert::TypedContinuousVector<float>(v);
                } else if (kind == "bools") {
                    std::vector<bool> v;
                    for (auto &p : split(val, ',')) if (!p.empty()) v.push_back(p == "1" || p == "true");
                    a.value.bools = gert::TypedContinuousVector<bool>(v);
                } else die(2, "unknown attr kind '" + kind + "' in: " + line);
                spec_attrs.push_back(a);
            }
        } catch (const std::exception &e) {
            die(2, std::string("bad value in spec line '") + line + "': " + e.what());
        }
    }
    if (op->op_type.empty()) die(2, "spec has no op_type directive");
    op->node_name = op->op_type;
    platform_ascendc::twin_current_platform() = plat.get();

    // Find the op: OP_ADD definition first, IMPL_OP_OPTILING registration second.
    twin_host::TilingFunc tiling = nullptr;
    std::unique_ptr<ops::OpDef> def;
    auto &defs = twin_host::opdef_registry();
    auto di = defs.find(op->op_type);
    if (di != defs.end()) {
        def.reset(di->second(op->op_type.c_str()));
        tiling = def->AICore().tiling_;
        for (auto &p : def->inputs_) op->ir_in_names.push_back(p->name_);
        for (auto &p : def->outputs_) op->ir_out_names.push_back(p->name_);
    }
    twin_host::OpImpl *impl = nullptr;
    auto &impls = twin_host::impl_registry();
    auto ii = impls.find(op->op_type);
    if (ii != impls.end()) {
        impl = &ii->second;
        if (!tiling) tiling = impl->tiling;
    }
    if (!def && !impl) {
        std::string known;
        for (auto &kv : defs) known += " " + kv.first;
        for (auto &kv : impls) known += " " + kv.first;
        die(4, "op type '" + op->op_type + "' is not registered (OP_ADD or IMPL_OP_OPTILING); registered:" +
                   (known.empty() ? std::string(" none") : known));
    }
    if (!tiling && !infer_mode) {
        // A tiling registered under another op type is the usual cause (ops-math's experimental
        // col2_im: OP_ADD(Col2Im), IMPL_OP_OPTILING(Col2ImCustom)): CANN would not find it either.
        std::string elsewhere;
        for (auto &kv : impls)
            if (kv.second.tiling && kv.first != op->op_type) elsewhere += " '" + kv.first + "'";
        die(4, "op type '" + op->op_type + "' has no tiling function (AICore().SetTiling or IMPL_OP_OPTILING(...).Tiling)" +
                   (elsewhere.empty() ? std::string()
                                      : "; IMPL_OP_OPTILING registers one for" + elsewhere +
                                            ": the op type there must be the OpDef's ('" + op->op_type + "')"));
    }

    // Data-dependent inputs (by IR index): OpDef ValueDepend, then the registration's
    // (Tiling)InputsDataDependency. Their data reaches GetInputTensor(i)->GetData<T>().
    std::vector<size_t> depend_ir;
    if (def)
        for (size_t j = 0; j < def->inputs_.size(); j++)
            if (def->inputs_[j]->value_depend_) depend_ir.push_back(j);
    if (impl)
        for (int j : impl->data_deps)
            if (j >= 0) depend_ir.push_back((size_t)j);
    for (size_t j : depend_ir) {
        int k = op->ir_to_instance(j);
        // Inputs named otherwise than in the OpDef: take the IR index as the instance index.
        if (k < 0 && op->ir_in_names.size() == op->inputs.size() && j < op->inputs.size()) k = (int)j;
        if (k >= 0 && (size_t)k < op->inputs.size()) op->inputs[(size_t)k].twin_value_depend_ = true;
    }

    // Formats. A tensor's format is the one the OpDef's Format column gives beside the dtype the
    // manifest names (ops-nn's quantized_batch_norm declares x NCHW and its tiling refuses any other),
    // where the tensor has that layout's rank; a plain layout only (NCHW, NHWC, NCDHW, ...), never a
    // fractal one the twin does not lay out.
    auto plain_rank = [](ge::Format f) -> size_t {
        switch (f) {
        case ge::FORMAT_NCHW: case ge::FORMAT_NHWC: case ge::FORMAT_HWCN: case ge::FORMAT_CHWN: return 4;
        case ge::FORMAT_NCDHW: case ge::FORMAT_NDHWC: case ge::FORMAT_DHWCN: case ge::FORMAT_DHWNC: return 5;
        default: return 0;
        }
    };
    if (def) {
        auto by_column = [&](const std::vector<std::unique_ptr<ops::OpParamDef>> &params, const std::vector<std::string> &names,
                             std::vector<gert::Tensor> &ts, std::vector<gert::CompileTimeTensorDesc> &ds,
                             std::vector<gert::StorageShape> &shapes) {
            for (size_t i = 0; i < ts.size() && i < ds.size() && i < names.size(); i++) {
                for (auto &p : params) {
                    if (p->name_ != names[i] || p->formats_.empty()) continue;
                    size_t col = 0;
                    while (col < p->dtypes_.size() && p->dtypes_[col] != ds[i].dtype_) col++;
                    if (col >= p->formats_.size()) col = p->formats_.size() == 1 ? 0 : col;
                    if (col >= p->formats_.size()) break;
                    const ge::Format f = p->formats_[col];
                    const gert::Shape origin = ts[i].shape_.GetOriginShape();
                    // A 5HD tensor given as its five axes takes the layout too, as the op's own tiling
                    // tests build it (ops-cv's three_interpolate_backward: grad_x [B, C1, N, 1, C0],
                    // origin and storage format NC1HWC0).
                    const size_t rank = f == ge::FORMAT_NC1HWC0 ? 5 : plain_rank(f);
                    if (rank != 0 && rank == origin.GetDimNum()) {
                        ds[i].format_.origin = ds[i].format_.storage = f;
                        ts[i].format_.origin = ts[i].format_.storage = f;
                    } else if (f == ge::FORMAT_FRACTAL_NZ && origin.GetDimNum() >= 2) {
                        // A matrix the OpDef takes only as FRACTAL_NZ (ops-transformer's mla_prolog_v2
                        // weights: "weightDq format only supports [FRACTAL_NZ]"): its origin shape
                        // [..., m, n] ND as the manifest gives it, stored as [..., n / C0, m / 16, 16, C0]
                        // with C0 the elements of 32 bytes (CANN's NZ layout: 16 x C0 fractals, the
                        // fractal columns outermost). Only where m and n fill whole fractals: the data
                        // then has the manifest's bytes; otherwise the tensor stays ND and the op's own
                        // check says what it wants.
                        const int64_t size = ge::GetSizeByDataType(ds[i].dtype_);
                        const size_t r = origin.GetDimNum();
                        const int64_t m = origin.GetDim(r - 2), n = origin.GetDim(r - 1);
                        const int64_t c0 = size > 0 ? 32 / size : 0;
                        if (c0 > 0 && m > 0 && n > 0 && m % 16 == 0 && n % c0 == 0) {
                            gert::Shape storage;
                            for (size_t d = 0; d + 2 < r; d++) storage.AppendDim(origin.GetDim(d));
                            storage.AppendDim(n / c0);
                            storage.AppendDim(m / 16);
                            storage.AppendDim(16);
                            storage.AppendDim(c0);
                            ts[i].shape_.MutableStorageShape() = storage;
                            if (i < shapes.size()) shapes[i].MutableStorageShape() = storage;
                            ds[i].format_.origin = ts[i].format_.origin = ge::FORMAT_ND;
                            ds[i].format_.storage = ts[i].format_.storage = f;
                        }
                    }
                    break;
                }
            }
        };
        by_column(def->inputs_, op->in_names, op->inputs, op->in_desc, op->in_shapes);
        by_column(def->outputs_, op->out_names, op->outputs, op->out_desc, op->out_shapes);
    }
    // A graph tensor's origin format is the framework's layout. An op with a `data_format` attr
    // (ops-nn's avg_pool3_d: "NDHWC", checked by its InferShape: "format only supports NCDHW, NDHWC,
    // DHWCN") has its tensors of that layout's rank in that format, as the framework adapters set it;
    // the other inputs stay ND, and every output takes it.
    for (const auto &a : spec_attrs) {
        if (a.name != "data_format" || a.value.kind != "str") continue;
        static const ge::Format layouts[] = {ge::FORMAT_NCHW, ge::FORMAT_NHWC, ge::FORMAT_HWCN, ge::FORMAT_CHWN,
                                             ge::FORMAT_NCDHW, ge::FORMAT_NDHWC, ge::FORMAT_DHWCN, ge::FORMAT_DHWNC};
        for (ge::Format f : layouts) {
            if (a.value.s != ge::GetFormatName(f)) continue;
            const size_t rank = a.value.s.size();
            auto set = [&](std::vector<gert::Tensor> &ts, std::vector<gert::CompileTimeTensorDesc> &ds, bool any_rank) {
                for (size_t i = 0; i < ts.size() && i < ds.size(); i++) {
                    if (!any_rank && ts[i].shape_.GetOriginShape().GetDimNum() != rank) continue;
                    ds[i].format_.origin = ds[i].format_.storage = f;
                    ts[i].format_.origin = ts[i].format_.storage = f;
                }
            };
            set(op->inputs, op->in_desc, false);
            // outputs whatever their rank: before InferShape their shapes are placeholders
            set(op->outputs, op->out_desc, true);
        }
    }
    // Attributes: in OpDef order (spec values by name, else the OpDef default), then the spec's
    // attrs the OpDef does not name, in spec order (an op whose aclnn layer passes an attr its
    // OpDef leaves out, as ops-math's Cross passes `dim` through OP_ATTR_NAMES); without an
    // OpDef, in spec order.
    if (def && !def->attrs_.empty()) {
        for (auto &ad : def->attrs_) {
            gert::TwinAttr v = ad->default_;
            bool found = false;
            for (auto &sa : spec_attrs)
                if (sa.name == ad->name_) { v = sa.value; found = true; break; }
            if (!found && !ad->has_default_ && ad->attr_type_ == ops::REQUIRED)
                std::fprintf(stderr, "warning: required attr '%s' not given in the spec; using 0\n", ad->name_.c_str());
            op->attrs.attrs_.push_back(v);
        }
        for (auto &sa : spec_attrs) {
            bool named = false;
            for (auto &ad : def->attrs_) named = named || sa.name == ad->name_;
            if (!named) op->attrs.attrs_.push_back(sa.value);
        }
    } else {
        for (auto &sa : spec_attrs) op->attrs.attrs_.push_back(sa.value);
    }

    if (infer_mode) {
        twin_host::InferShapeFunc infer_shape = def ? def->infer_shape_ : nullptr;
        if (!infer_shape && impl) infer_shape = impl->infer_shape;
        twin_host::InferDataTypeFunc infer_dtype = def ? def->infer_dtype_ : nullptr;
        if (!infer_dtype && impl) infer_dtype = impl->infer_dtype;
        std::string out;
        if (!infer_shape) {
            out += "infer_shape none\n";
        } else {
            gert::InferShapeContext ic;
            ic.op_ = op.get();
            for (auto &t : op->inputs) ic.in_.push_back(t.GetOriginShape());
            ic.out_.resize(op->outputs.size());
            for (auto &o : ic.out_) o.TwinMarkUnset();
            ge::graphStatus ist = ge::GRAPH_SUCCESS;
            try {
                ist = infer_shape(&ic);
            } catch (const std::exception &e) {
                die(4, "InferShape of '" + op->op_type + "' threw: " + e.what());
            }
            if (ist != ge::GRAPH_SUCCESS)
                die(4, "InferShape of '" + op->op_type + "' returned status " + std::to_string(ist));
            out += "infer_shape ok\n";
            for (size_t i = 0; i < ic.out_.size(); i++) {
                out += "output_shape " + std::to_string(i) + " ";
                if (ic.out_[i].TwinUnset()) out += "unset";
                else if (ic.out_[i].GetDimNum() == 0) out += "[]";
                for (size_t k = 0; k < ic.out_[i].GetDimNum(); k++)
                    out += (k ? "," : "") + std::to_string(ic.out_[i].GetDim(k));
                out += "\n";
            }
        }
        if (infer_dtype) {
            gert::InferDataTypeContext dc;
            dc.op_ = op.get();
            dc.out_.resize(op->outputs.size(), ge::DT_UNDEFINED);
            ge::graphStatus dst = ge::GRAPH_FAILED;
            try { dst = infer_dtype(&dc); } catch (const std::exception &) { dst = ge::GRAPH_FAILED; }
            static const struct { const char *n; ge::DataType d; } names[] = {
                {"float16", ge::DT_FLOAT16}, {"bfloat16", ge::DT_BF16}, {"float32", ge::DT_FLOAT},
                {"int8", ge::DT_INT8}, {"int16", ge::DT_INT16}, {"int32", ge::DT_INT32}, {"int64", ge::DT_INT64},
                {"uint8", ge::DT_UINT8}, {"uint16", ge::DT_UINT16}, {"uint32", ge::DT_UINT32},
                {"uint64", ge::DT_UINT64}, {"bool", ge::DT_BOOL}, {"float64", ge::DT_DOUBLE},
            };
            if (dst == ge::GRAPH_SUCCESS)
                for (size_t i = 0; i < dc.out_.size(); i++)
                    for (auto &e : names)
                        if (dc.out_[i] == e.d) out += "output_dtype " + std::to_string(i) + " " + e.n + "\n";
        }
        FILE *f = std::fopen(argv[2], "wb");
        if (!f) die(2, std::string("cannot write ") + argv[2]);
        std::fwrite(out.data(), 1, out.size(), f);
        std::fclose(f);
        return 0;
    }

    auto ctx = std::make_unique<gert::TilingContext>();
    ctx->op_ = op.get();
    ctx->platform_ = plat.get();

    void *compile_info = nullptr;
    ge::graphStatus st = ge::GRAPH_SUCCESS;
    try {
        if (impl && impl->make_compile_info) {
            compile_info = impl->make_compile_info();
            if (impl->tiling_parse) {
                gert::TilingParseContext pctx;
                pctx.platform_ = plat.get();
                pctx.compile_info_ = compile_info;
                pctx.node_name_ = op->op_type;
                st = impl->tiling_parse(&pctx);
                if (st != ge::GRAPH_SUCCESS)
                    die(4, "tiling parse function of '" + op->op_type + "' failed (status " + std::to_string(st) + ")");
            }
        }
        ctx->compile_info_ = compile_info;
        st = tiling(ctx.get());
    } catch (const std::exception &e) {
        die(4, "tiling function of '" + op->op_type + "' threw: " + e.what());
    }
    if (st != ge::GRAPH_SUCCESS)
        die(4, "tiling function of '" + op->op_type + "' returned " +
                   (st == ge::GRAPH_FAILED ? std::string("GRAPH_FAILED") : "status " + std::to_string(st)));
    if (!ctx->block_dim_set_) std::fprintf(stderr, "warning: the tiling function never called SetBlockDim\n");
    size_t n = ctx->raw_.GetDataSize();
    if (n > ctx->raw_.GetCapacity()) die(4, "tiling data size " + std::to_string(n) + " exceeds the 64 KiB capacity");

    std::string out;
    out += "block_dim " + std::to_string(ctx->block_dim_) + "\n";
    out += "tiling_key " + std::to_string(ctx->tiling_key_) + "\n";
    out += "tiling_data ";
    static const char hx[] = "0123456789abcdef";
    const uint8_t *d = static_cast<const uint8_t *>(ctx->raw_.GetData());
    for (size_t i = 0; i < n; i++) { out.push_back(hx[d[i] >> 4]); out.push_back(hx[d[i] & 15]); }
    out += "\n";
    out += "workspace " + std::to_string(ctx->workspaces_.size());
    for (size_t w : ctx->workspaces_) out += " " + std::to_string(w);
    out += "\n";
    FILE *f = std::fopen(argv[2], "wb");
    if (!f) die(2, std::string("cannot write ") + argv[2]);
    std::fwrite(out.data(), 1, out.size(), f);
    std::fclose(f);
    if (impl && compile_info && impl->free_compile_info) impl->free_compile_info(compile_info);
    return 0;
}
