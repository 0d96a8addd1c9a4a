// Host side of InterleaveCustom: z[2 i] = re[i], z[2 i + 1] = im[i] in fp32. Eight blocks, each an even
// share of the pairs, in tiles of 1024 pairs; mode 0 (contiguous parts) is the only mode this op has.
#include "interleave_custom_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    uint32_t totalPairs = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    TilingData tiling;
    context->SetBlockDim(8);
    tiling.set_totalPairs(totalPairs);
    tiling.set_tilePairs(1024);
    tiling.set_mode(0);
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
    gert::Shape *z = context->GetOutputShape(0);
    *z = *context->GetInputShape(0);
    z->SetDim(z->GetDimNum() - 1, 2 * z->GetDim(z->GetDimNum() - 1));
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class InterleaveCustom : public OpDef {
public:
    explicit InterleaveCustom(const char *name) : OpDef(name)
    {
        this->Input("re").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("im").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(InterleaveCustom);
} // namespace ops
