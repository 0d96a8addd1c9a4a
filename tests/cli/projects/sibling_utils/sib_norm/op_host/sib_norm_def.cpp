// OpDef of SibNorm (z = x + y), with its tiling and InferShape registered in files of their own.
#include "register/op_def_registry.h"

namespace ops {
class SibNorm : public OpDef {
public:
    explicit SibNorm(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SibNorm);
} // namespace ops
