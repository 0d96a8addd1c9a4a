// The tiling functions of this repository's ops that keep none in their own folder (SibScale), as
// ops-nn's foreach_utils/op_host registers the foreach ops' tilings: eight blocks, tiles of the
// length the repository's own registry header gives (common/inc/op_host/).
#include "utils_tiling_def.h"
#include "op_host/tiling_templates_registry.h"

namespace optiling {
static ge::graphStatus UtilsTiling(gert::TilingContext *context)
{
    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    UtilsTilingData tiling;
    context->SetBlockDim(8);
    tiling.set_totalLength(totalLength);
    tiling.set_tileLength(static_cast<uint32_t>(Ops::Base::CeilDiv(Ops::NN::Optiling::RepoTileLength() * 2, 2)));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}

struct UtilsCompileInfo {};
static ge::graphStatus UtilsTilingParse(gert::TilingParseContext *) { return ge::GRAPH_SUCCESS; }

IMPL_OP_OPTILING(SibScale).Tiling(UtilsTiling).TilingParse<UtilsCompileInfo>(UtilsTilingParse);
} // namespace optiling
