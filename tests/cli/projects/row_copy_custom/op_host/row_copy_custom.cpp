// Host side of RowScaleCustom: y = 2 * x over rows. The rows are spread evenly over the blocks (the
// shape's row count must divide by the block count).
#include "row_copy_custom_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
const uint32_t BLOCK_DIM = 48;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    if (shape.GetDimNum() != 2) {
        return ge::GRAPH_FAILED;
    }
    uint32_t rows = static_cast<uint32_t>(shape.GetDim(0));
    uint32_t blocks = rows < BLOCK_DIM ? rows : BLOCK_DIM;
    if (blocks == 0 || rows % blocks != 0) {
        return ge::GRAPH_FAILED;
    }
    TilingData tiling;
    context->SetBlockDim(blocks);
    tiling.set_rows(rows);
    tiling.set_rowLength(static_cast<uint32_t>(shape.GetDim(1)));
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
class RowScaleCustom : public OpDef {
public:
    explicit RowScaleCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RowScaleCustom);
} // namespace ops
