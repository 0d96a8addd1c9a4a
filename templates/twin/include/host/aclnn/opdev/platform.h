// twin (host side): `aclnn/opdev/platform.h`, the op API layer's view of the SoC, for host tiling code that
// includes it (ops-math's coalesce_sparse). CANN's opdev answers which SoC the process runs on; the twin's
// host program stands for an Ascend910B (the SoC the twin models), so GetSocVersion says ASCEND910B. Only
// the SoC query is here: the rest of the op API layer (executors, l0 ops) is not the tiling's to call.
#pragma once
#include <cstdint>

namespace op {
enum class SocVersion : int32_t {
    ASCEND910 = 0,
    ASCEND910B,
    ASCEND910_93,
    ASCEND910E,
    ASCEND310,
    ASCEND310P,
    ASCEND310B,
    ASCEND610LITE,
    ASCEND950,
    RESERVED_VERSION,
};
class PlatformInfo {
public:
    SocVersion GetSocVersion() const { return SocVersion::ASCEND910B; }
};
inline const PlatformInfo &GetCurrentPlatformInfo() {
    static const PlatformInfo info;
    return info;
}
} // namespace op
