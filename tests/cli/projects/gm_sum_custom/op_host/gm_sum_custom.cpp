// Host side of GmSumCustom: y = sum(x). One block per row of x (each row a whole number of 32 B blocks),
// and a workspace of one float per block for the partial sums.
#include "gm_sum_custom_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t totalLength = shape.GetShapeSize();
    uint32_t rows = shape.GetDimNum() > 1 ? static_cast<uint32_t>(shape.GetDim(0)) : 1;
    TilingData tiling;
    context->SetBlockDim(rows);
    tiling.set_totalLength(totalLength);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = rows * sizeof(float);
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
    gert::Shape *y = context->GetOutputShape(0);
    y->SetDimNum(1);
    y->SetDim(0, 1);
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class GmSumCustom : public OpDef {
public:
    explicit GmSumCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(GmSumCustom);
} // namespace ops
