// twin: op_common/atvoss/broadcast/broadcast_tiling.h -- the operator-base library's header of its
// broadcast scheduling framework (CANN opbase, pkg_inc/op_common/atvoss/broadcast/). Besides that
// framework (a template DAG of broadcast nodes, Ops::Base::BroadcastBaseTiling and friends) it brings in
// the operator-base host utilities (logging, the tiling context, platform queries, Ops::Base's CeilDiv /
// CeilAlign / GetUbBlockSize / ToString), and ops-nn host code includes it for those alone: index/
// scatter_add_with_sorted's tiling (checked with `git grep` at the pinned commit) calls none of the
// framework. The twin brings in the utilities and declares none of the framework: code that calls it fails
// to build naming it, rather than running a made-up schedule.
// Must not know: anything of the twin beyond its host headers.
#pragma once
#include <vector>
#include "../../log/log.h"
#include "../../op_host/util/platform_util.h"
#include "../../op_host/util/math_util.h"
#include "../../../exe_graph/runtime/tiling_context.h"
#include "../../../tiling/platform/platform_ascendc.h"
