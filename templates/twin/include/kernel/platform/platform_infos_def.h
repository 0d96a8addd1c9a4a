// twin: platform/platform_infos_def.h in a kernel build -- the platform-description types that host
// code names (fe::PlatFormInfos and its companions), declared only: a kernel reads the platform through
// its tiling data, never through these (ops-transformer's interleave_rope kernel headers include this
// file and use nothing of it). The host build's header of the same path defines them
// (include/host/platform/platform_infos_def.h); a kernel that uses them fails to compile on an incomplete
// type, which names the use.
#pragma once
namespace fe {
class PlatFormInfos;
class OptionalInfos;
}  // namespace fe
