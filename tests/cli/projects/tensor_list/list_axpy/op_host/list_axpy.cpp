// Host side of ListAxpy: y[i] = a[i] * 2 + b[i] + i for the i-th tensor of the lists a, b (DYNAMIC),
// one block per tensor. The tiling reads the lists as CANN hands them over: the instance count from
// the node's IR input, each tensor's shape by (IR index, index in the list).
#include "../../shared/op_host/list_tiling_def.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    auto info = context->GetComputeNodeInfo();
    if (info == nullptr || info->GetIrInputsNum() != 2) return ge::GRAPH_FAILED;
    size_t n = info->GetInputInstanceInfo(0)->GetInstanceNum();
    if (n == 0 || n > LIST_MAX || info->GetInputInstanceInfo(1)->GetInstanceNum() != n) return ge::GRAPH_FAILED;
    ListTilingData tiling;
    tiling.set_count(n);
    tiling.set_tile(512);
    uint32_t sizes[LIST_MAX] = {0};
    for (size_t i = 0; i < n; i++) {
        auto a = context->GetDynamicInputShape(0, i);
        auto b = context->GetDynamicInputShape(1, i);
        if (a == nullptr || b == nullptr) return ge::GRAPH_FAILED;
        if (a->GetStorageShape().GetShapeSize() != b->GetStorageShape().GetShapeSize()) return ge::GRAPH_FAILED;
        sizes[i] = a->GetStorageShape().GetShapeSize();
    }
    if (context->GetDynamicInputShape(0, n) != nullptr) return ge::GRAPH_FAILED;
    tiling.set_sizes(sizes);
    context->SetBlockDim(n);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling
namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
    for (size_t i = 0; context->GetDynamicInputShape(0, i) != nullptr; i++) *context->GetOutputShape(i) = *context->GetDynamicInputShape(0, i);
    return GRAPH_SUCCESS;
}
} // namespace ge
namespace ops {
class ListAxpy : public OpDef {
public:
    explicit ListAxpy(const char *name) : OpDef(name)
    {
        this->Input("a").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ListAxpy);
} // namespace ops
