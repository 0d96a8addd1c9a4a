// InferShape of SibNorm: the output has the input's shape, on the chips this repository builds for;
// it asks the platform which chip that is, as ops-nn's group_norm_silu does, and refuses to answer
// without one.
#include "register/op_impl_registry.h"
#include "platform/platform_info.h"

namespace ops {
static ge::graphStatus InferShapeSibNorm(gert::InferShapeContext *context)
{
    fe::PlatformInfo platform_info;
    fe::OptionalInfo optional_info;
    if (fe::PlatformInfoManager::Instance().GetPlatformInfoWithOutSocVersion(platform_info, optional_info) !=
            ge::GRAPH_SUCCESS ||
        platform_info.str_info.short_soc_version != "Ascend910B") {
        return ge::GRAPH_FAILED;
    }
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_INFERSHAPE(SibNorm).InferShape(InferShapeSibNorm);
} // namespace ops
