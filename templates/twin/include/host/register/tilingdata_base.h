// twin (host side): tiling data definitions. The struct holds plain members in declaration order
// (identical layout to the kernel-side struct) plus non-virtual set_<n>/get_<n> accessors,
// SaveToBuffer and GetDataSize. Fields start zeroed (value-initialised), as in CANN.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include "../twin_host/core.h"

#define BEGIN_TILING_DATA_DEF(name)                                                   \
    struct name {                                                                     \
        void SaveToBuffer(void *buf, size_t cap) const {                              \
            if (buf && cap >= sizeof(*this)) std::memcpy(buf, this, sizeof(*this));   \
        }                                                                             \
        size_t GetDataSize() const { return sizeof(*this); }                          \
        void SetDataPtr(void *) {}                                                    \
        bool CheckAlignAndGenPlaceHolder(const char *, size_t) { return true; }

#define TILING_DATA_FIELD_DEF(type, n)                  \
    type n{};                                             \
    void set_##n(type v) { n = v; }                     \
    type get_##n() const { return n; }

#define TILING_DATA_FIELD_DEF_ARR(type, cnt, n)                                        \
    type n[cnt]{};                                                                       \
    void set_##n(const type *v) { std::memcpy(n, v, sizeof(type) * (cnt)); }          \
    type *get_##n() { return n; }

#define TILING_DATA_FIELD_DEF_STRUCT(type, n) \
    type n{};                                   \
    type &get_##n() { return n; }

#define END_TILING_DATA_DEF };

#define REGISTER_TILING_DATA_CLASS(op, cls) using twin_tiling_##op = cls;
