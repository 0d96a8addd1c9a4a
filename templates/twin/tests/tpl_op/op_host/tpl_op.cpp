// Host side of the toy TplOp (twin test): y = x * FACTOR (MODE 1) or y = x (MODE 0).
#include "tpl_op_tiling.h"
#include "register/op_def_registry.h"
#include "../op_kernel/tiling_key_tpl_op.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    TplOpTilingData tiling;
    uint32_t n = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    const int64_t *factor = context->GetAttrs()->GetInt(0);
    uint32_t mode = *factor == 1 ? TPL_MODE_COPY : TPL_MODE_SCALE;
    uint32_t dt = context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT ? C_DT_FLOAT : C_DT_FLOAT16;
    tiling.set_n(n);
    context->SetBlockDim(1);
    ASCENDC_TPL_SEL_PARAM(context, mode, (uint64_t)*factor, dt);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class TplOp : public OpDef {
public:
    explicit TplOp(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("factor").AttrType(OPTIONAL).Int(1);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(TplOp);
} // namespace ops
