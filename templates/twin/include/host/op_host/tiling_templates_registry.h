// twin: op_host/tiling_templates_registry.h. The twin gives the namespaces of the ops-nn / ops-math
// shared tiling code and the operator-base helpers, so host files that include it and call their
// tiling function directly build. An operator repository that ships its own registry on its include
// path (ops-nn's common/inc/op_host/tiling_templates_registry.h: Ops::NN::Optiling::TilingRegistry,
// REGISTER_OPS_TILING_TEMPLATE, which the foreach ops' tilings dispatch through) has that one read
// too, after the twin's helpers: the repository's own code, not a stand-in.
#pragma once
#include "../twin_host/opbase.h"
namespace Ops {
namespace NN { namespace OpTiling {} }
namespace Math { namespace OpTiling {} }
namespace Base { namespace OpTiling {} }
} // namespace Ops
#if defined(__has_include_next)
#if __has_include_next("op_host/tiling_templates_registry.h")
#include_next "op_host/tiling_templates_registry.h"
#endif
#endif
