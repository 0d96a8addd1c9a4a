// Host side of InplaceScaleCustom: y = 2 * x on 8 cores, tiles planned by the repository's shared
// `tile_plan.h` (1024 elements: 4 tiles a core at [8, 4096]), so each copy-in buffer of the kernel's
// depth-2 queue is used twice.
#include "inplace_scale_custom_tiling.h"
#include "tile_plan.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    TilingData tiling;
    context->SetBlockDim(8);
    tiling.set_totalLength(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
    tiling.set_tileLength(PlanTile(context));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class InplaceScaleCustom : public OpDef {
public:
    explicit InplaceScaleCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(InplaceScaleCustom);
} // namespace ops
