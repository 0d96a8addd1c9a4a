// Tiling of SibNorm: eight blocks, tiles of 1024 elements.
#include "sib_norm_tiling.h"
#include "op_host/math_tiling_templates_registry.h"

namespace optiling {
static ge::graphStatus SibNormTiling(gert::TilingContext *context)
{
    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    SibNormTilingData tiling;
    context->SetBlockDim(8);
    tiling.set_totalLength(totalLength);
    tiling.set_tileLength(static_cast<uint32_t>(Ops::Base::CeilAlign(1000, 16)) +
                          Ops::Math::OpTiling::RepoMathPad(nullptr));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}

struct SibNormCompileInfo {};
static ge::graphStatus SibNormTilingParse(gert::TilingParseContext *) { return ge::GRAPH_SUCCESS; }

IMPL_OP_OPTILING(SibNorm).Tiling(SibNormTiling).TilingParse<SibNormCompileInfo>(SibNormTilingParse);
} // namespace optiling
