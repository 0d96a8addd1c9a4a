// This repository's own op_host/math_tiling_templates_registry.h (ops-math ships one in common/inc/,
// which the twin's header of the same name reads after its own helpers): one function the tiling
// calls, so the build fails if the repository's header is not the one read. Like ops-math's, it names
// the operator base's CompileInfoCommon and the global NpuArch (from platform/platform_ascendc.h).
#pragma once
#include <cstdint>
#include "platform/platform_ascendc.h"
namespace Ops {
namespace Math {
namespace OpTiling {
inline uint32_t RepoMathPad(const Ops::Base::CompileInfoCommon *info)
{
    NpuArch arch = NpuArch::DAV_2201;
    return info == nullptr && arch == NpuArch::DAV_2201 ? 8 : 0;
}
} // namespace OpTiling
} // namespace Math
} // namespace Ops
