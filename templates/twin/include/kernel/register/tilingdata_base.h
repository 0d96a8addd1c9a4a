// twin (kernel side): tiling data definitions are plain structs with members in declaration order.
// The host side (include/host/register/tilingdata_base.h) adds only non-virtual methods, so the
// byte layout is identical.
#pragma once
#include <cstdint>
#include <cstddef>
#include <cstring>
#include "../twin/tiling.h"
#include "twin_host_decls.h"
// The high-level APIs' tiling structs (SoftMaxTiling, TopkTiling, TCubeTiling, ...): a tiling data class
// holds them with TILING_DATA_FIELD_DEF_STRUCT, and the kernel build may read that class (the header
// cargo-ascend-tune generates from the host's definition) before kernel_operator.h brings them.
#include "../kernel_tiling/kernel_tiling.h"

// The accessors are the host side's too: a CANN 9 `.asc` program is one translation unit built against
// the kernel headers, whose host part fills the struct (`tiling.set_m(m)`, SaveToBuffer) as a custom
// op's tiling function does. Members get no initialisers here, so the struct stays trivial.
#define BEGIN_TILING_DATA_DEF(name)                                                   \
    struct name {                                                                     \
        void SaveToBuffer(void *buf, size_t cap) const {                              \
            if (buf && cap >= sizeof(*this)) std::memcpy(buf, this, sizeof(*this));   \
        }                                                                             \
        size_t GetDataSize() const { return sizeof(*this); }                          \
        void SetDataPtr(void *) {}
#define TILING_DATA_FIELD_DEF(type, n)                  \
    type n;                                             \
    void set_##n(type twin_v) { n = twin_v; }                     \
    type get_##n() const { return n; }
#define TILING_DATA_FIELD_DEF_ARR(type, cnt, n)                                        \
    type n[cnt];                                                                       \
    void set_##n(const type *twin_v) { std::memcpy(n, twin_v, sizeof(type) * (cnt)); }          \
    type *get_##n() { return n; }
#define TILING_DATA_FIELD_DEF_STRUCT(type, n) \
    type n;                                   \
    type &get_##n() { return n; }
#define END_TILING_DATA_DEF };
