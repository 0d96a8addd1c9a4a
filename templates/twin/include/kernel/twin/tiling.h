// twin: kernel-side tiling glue (GET_TILING_DATA and friends).
// The tiling struct is found through optiling::TwinTilingOf<tag of TWIN_OP_TYPE>, which
// REGISTER_TILING_DATA_CLASS specialises, or else through REGISTER_TILING_DEFAULT, which may stand
// at namespace scope or inside the kernel function (as CANN 9 samples write it): it declares an
// overload of twin_default_tiling_of returning the struct, found by unqualified lookup from the
// GET_TILING_DATA that follows it (a block-scope declaration hides the global fallback).
#pragma once
#include <cstdint>
#include <cstddef>
#include <type_traits>
#include "runtime.h"

#define TWIN_CAT2(a, b) a##b
#define TWIN_CAT(a, b) TWIN_CAT2(a, b)

namespace optiling {
template <class Tag> struct TwinTilingOf { using type = void; };
struct twin_tag_none;
#ifdef TWIN_OP_TYPE
struct TWIN_CAT(twin_tag_, TWIN_OP_TYPE);
#endif
} // namespace optiling
namespace twin {
struct DefaultTilingProbe {};
struct NoTilingRegistered {};
} // namespace twin
// The fallback when no REGISTER_TILING_DEFAULT is visible (never called: used in decltype only).
::twin::NoTilingRegistered twin_default_tiling_of(...);
// Kernel code names tiling structs without the optiling:: prefix (on the device they are global).
// Where the host tiling header's own constants clash with the kernel's, the build names each struct
// with a using-declaration instead (twin::tiling_extract::optiling_clash).
#ifndef TWIN_TILING_NO_USING_NAMESPACE
using namespace optiling;
#endif

#ifdef TWIN_OP_TYPE
#define TWIN_OP_TAG ::optiling::TWIN_CAT(twin_tag_, TWIN_OP_TYPE)
#else
#define TWIN_OP_TAG ::optiling::twin_tag_none
#endif

namespace twin {
template <class A, class B> struct pick_tiling { using type = A; };
template <class B> struct pick_tiling<void, B> { using type = B; };
template <class Tag, class Default>
using tiling_t = typename pick_tiling<typename ::optiling::TwinTilingOf<Tag>::type, Default>::type;
} // namespace twin

// Sits inside `namespace optiling` in the tiling header.
#define REGISTER_TILING_DATA_CLASS(op, cls)                                   \
    using twin_tiling_##op = cls;                                             \
    struct twin_tag_##op;                                                     \
    template <> struct TwinTilingOf<twin_tag_##op> { using type = cls; };

#define REGISTER_TILING_DEFAULT(T) T twin_default_tiling_of(::twin::DefaultTilingProbe)
#define REGISTER_TILING_FOR_TILINGKEY(key, T)

#define GET_TILING_DATA(var, tiling)                                                              \
    ::twin::tiling_t<TWIN_OP_TAG, decltype(twin_default_tiling_of(::twin::DefaultTilingProbe{}))> var; \
    static_assert(!std::is_same<decltype(var), ::twin::NoTilingRegistered>::value,                \
                  "GET_TILING_DATA: no tiling struct registered for TWIN_OP_TYPE "                \
                  "(REGISTER_TILING_DATA_CLASS or REGISTER_TILING_DEFAULT)");                     \
    ::twin::load_tiling(&var, sizeof(var), (const uint8_t *)(tiling), __FILE__, __LINE__)

#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling) \
    type var;                                          \
    ::twin::load_tiling(&var, sizeof(var), (const uint8_t *)(tiling), __FILE__, __LINE__)

// The pointer is not const (asc-devkit docs, Kernel-Tiling/GET_TILING_DATA_PTR_WITH_STRUCT.md: it
// "returns a pointer to the tiling struct", no const; ops-math's split_v passes it to an Init taking
// `SplitVTilingDataUnevenInnerAlignedMid *`).
#define GET_TILING_DATA_PTR_WITH_STRUCT(type, ptr, tiling) \
    type *ptr = reinterpret_cast<type *>((uint8_t *)(tiling))

#define GET_TILING_DATA_MEMBER(type, member, var, tiling)                                         \
    decltype(type::member) var;                                                                   \
    ::twin::load_tiling(&var, sizeof(var), (const uint8_t *)(tiling) + offsetof(type, member), __FILE__, __LINE__)

// TILING_KEY_IS(k): whether the launch's tiling key is k. The block remembers that it asked and whether
// any answer was yes: a kernel that asked and matched none ran none of its branches, which the twin
// says when the block ends (kernel_blocks.cpp), as the device would not.
namespace twin {
inline bool tiling_key_is(uint64_t k, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    const bool yes = g.tiling_key == k;
    g.key_asked = true;
    g.key_matched = g.key_matched || yes;
    g.key_file = file;
    g.key_line = line;
    return yes;
}
} // namespace twin
#define TILING_KEY_IS(k) (::twin::tiling_key_is((uint64_t)(k)))
#define TILING_KEY_LIST(...) true
