// The stages' own helpers, under a name the twin's kernel library also has (kernel_utils.h), as
// cann-samples' simd_vf_constraints keeps its own: a quoted include from a stage finds this one.
#pragma once
#include <cstdint>

constexpr uint32_t StageTile() { return 256; }
