// twin: a constant CANN's kernel headers leak into every kernel of the 220 architecture (Ascend 910B):
// kernel_operator.h includes the whole high-level API (basic_api/kernel_operator_intf.h includes
// adv_api/kernel_api.h), whose TopK header (adv_api/sort/topk.h) brings an internal header with small
// named numbers in an anonymous namespace at global scope. ops-nn's top_k_top_p_sample divides by
// `SIXTEEN` (the 16 elements a Concat repeat takes) and `EIGHT` without defining them. Only those names
// are declared: the twin adds no more of the internal header's names than an operator is seen to rely
// on (no kernel of ops-nn or ops-math defines either at global or anonymous-namespace scope, so none
// clashes).
#pragma once
#include <cstdint>

namespace {
constexpr uint32_t EIGHT = 8;
constexpr uint32_t SIXTEEN = 16;
} // namespace
