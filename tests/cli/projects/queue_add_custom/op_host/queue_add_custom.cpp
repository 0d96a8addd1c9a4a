// Host side of QueueAddCustom: z = x + y. Like most real tiling functions it has no literal that sizes the
// tile: every core gets an even share and the tile is as large as the UB the platform reports allows
// (three queues of one buffer each, as the kernel has them), so a core runs one or two tiles and cannot overlap
// its copies with the add.
#include "queue_add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    // Three queues of one buffer of fp16, in whole 32-byte blocks.
    uint32_t tileLength = static_cast<uint32_t>(ubSize / (3 * sizeof(uint16_t))) / 16 * 16;
    TilingData tiling;
    context->SetBlockDim(coreNum);
    tiling.set_totalLength(totalLength);
    tiling.set_tileLength(tileLength);
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
class QueueAddCustom : public OpDef {
public:
    explicit QueueAddCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(QueueAddCustom);
} // namespace ops
