// twin: op_host/math_tiling_templates_registry.h. The twin gives the namespaces of the ops-nn / ops-math
// shared tiling code and the operator-base helpers, so host files that include it and call their
// tiling function directly build. ops-math ships its own registry on its include path
// (common/inc/op_host/math_tiling_templates_registry.h: Ops::Math::OpTiling::TilingRegistry and
// REGISTER_OPS_TILING_TEMPLATE, which 53 of its tiling files dispatch through, lin_space among them):
// that one is read too, after the twin's helpers, as tiling_templates_registry.h does for ops-nn's.
#pragma once
#include "../twin_host/opbase.h"
namespace Ops {
namespace NN { namespace OpTiling {} }
namespace Math { namespace OpTiling {} }
namespace Base { namespace OpTiling {} }
} // namespace Ops
#if defined(__has_include_next)
#if __has_include_next("op_host/math_tiling_templates_registry.h")
#include_next "op_host/math_tiling_templates_registry.h"
#endif
#endif
