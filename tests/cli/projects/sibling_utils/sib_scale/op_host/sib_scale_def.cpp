// OpDef of SibScale (z = x + y): its tiling is registered in the sibling folder utils/op_host/.
#include "register/op_def_registry.h"

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class SibScale : public OpDef {
public:
    explicit SibScale(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SibScale);
} // namespace ops
