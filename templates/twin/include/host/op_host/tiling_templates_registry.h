// twin: op_host/tiling_templates_registry.h. The tiling-template registry of the ops-nn / ops-math
// shared code is not modelled: the header gives its namespaces and the operator-base helpers, so
// host files that include it and call their tiling function directly build.
#pragma once
#include "../twin_host/opbase.h"
namespace Ops {
namespace NN { namespace OpTiling {} }
namespace Math { namespace OpTiling {} }
namespace Base { namespace OpTiling {} }
} // namespace Ops
