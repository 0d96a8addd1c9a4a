// Host side of RowSumCustom: y[r] = sum of row r of x. One block per row. The OpDef registers no
// InferShape, as many real operators' do not: `init` must find y's shape some other way. Used by
// tests/cli/init.rs.
#include "row_sum_custom_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t rows = shape.GetDimNum() > 1 ? static_cast<uint32_t>(shape.GetDim(0)) : 1;
    TilingData tiling;
    context->SetBlockDim(rows);
    tiling.set_rowLength(static_cast<uint32_t>(shape.GetShapeSize() / rows));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class RowSumCustom : public OpDef {
public:
    explicit RowSumCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RowSumCustom);
} // namespace ops
