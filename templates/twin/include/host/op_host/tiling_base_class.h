// twin (host side): op_host/tiling_base_class.h, the operator-base class `Ops::Base::TilingBaseClass`
// that ops-math / ops-nn tiling classes derive from, overriding its steps. Written from how the
// public operators use it (no CANN source is copied): a class constructed on the TilingContext
// (`context_`), overriding IsCapable, GetPlatformInfo, GetShapeAttrsInfo, DoOpTiling,
// DoLibApiTiling, GetTilingKey, GetWorkspaceSize and PostTiling, reading `aicoreParams_` (ubSize,
// numBlocks, ...), `workspaceSize_` and `blockDim_`, and calling DoTiling(), which runs the steps in order:
// shapes and attrs, platform, whether this class can tile the case (GRAPH_PARAM_INVALID if not),
// the op's tiling, the library APIs' tiling, the workspace, the last touches, then sets the tiling
// key. The first step that fails ends it with that step's status.
#pragma once
#include "../twin_host/opbase.h"

namespace Ops {
namespace Base {

struct AiCoreParams {
    uint64_t ubSize = 0;
    uint64_t blockDim = 0;
    uint64_t numBlocks = 0;
    uint64_t aicNum = 0;
    uint64_t l1Size = 0;
    uint64_t l0aSize = 0;
    uint64_t l0bSize = 0;
    uint64_t l0cSize = 0;
};

class TilingBaseClass {
public:
    explicit TilingBaseClass(gert::TilingContext *context) : context_(context) {}
    TilingBaseClass() = default;
    virtual ~TilingBaseClass() = default;

    ge::graphStatus DoTiling() {
        if (context_ == nullptr) return ge::GRAPH_FAILED;
        ge::graphStatus st = GetShapeAttrsInfo();
        if (st != ge::GRAPH_SUCCESS) return st;
        if ((st = GetPlatformInfo()) != ge::GRAPH_SUCCESS) return st;
        if (!IsCapable()) return ge::GRAPH_PARAM_INVALID;
        if ((st = DoOpTiling()) != ge::GRAPH_SUCCESS) return st;
        if ((st = DoLibApiTiling()) != ge::GRAPH_SUCCESS) return st;
        if ((st = GetWorkspaceSize()) != ge::GRAPH_SUCCESS) return st;
        if ((st = PostTiling()) != ge::GRAPH_SUCCESS) return st;
        context_->SetTilingKey(GetTilingKey());
        return ge::GRAPH_SUCCESS;
    }
    virtual void Reset(gert::TilingContext *context) { context_ = context; }

protected:
    virtual bool IsCapable() = 0;
    virtual ge::graphStatus GetPlatformInfo() = 0;
    virtual ge::graphStatus GetShapeAttrsInfo() = 0;
    virtual ge::graphStatus DoOpTiling() = 0;
    virtual ge::graphStatus DoLibApiTiling() = 0;
    virtual uint64_t GetTilingKey() const = 0;
    virtual ge::graphStatus GetWorkspaceSize() = 0;
    virtual ge::graphStatus PostTiling() = 0;

    gert::TilingContext *context_ = nullptr;
    AiCoreParams aicoreParams_;
    uint64_t workspaceSize_ = 0;
    // The block count a derived class computes and then passes to SetBlockDim itself (ops-math's
    // radix_top_k: `blockDim_ = former + tail cores; ... context_->SetBlockDim(blockDim_)`).
    uint64_t blockDim_ = 0;
};

} // namespace Base
} // namespace Ops
