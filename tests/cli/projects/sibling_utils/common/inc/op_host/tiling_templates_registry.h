// This repository's own op_host/tiling_templates_registry.h (ops-nn ships one in common/inc/, which
// the twin's header of the same name reads after its own helpers): here one function the shared
// tiling calls, so the build fails if the repository's header is not the one read.
#pragma once
#include <cstdint>
namespace Ops {
namespace NN {
namespace Optiling {
inline uint32_t RepoTileLength() { return 1024; }
} // namespace Optiling
} // namespace NN
} // namespace Ops
