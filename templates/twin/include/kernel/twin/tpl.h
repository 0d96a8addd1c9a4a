// twin: tiling-key templates (ASCENDC_TPL_*), host and kernel side.
// ASCENDC_TPL_ARGS_DECL records the template parameters (bit width and candidate values) in a
// constexpr table and registers it globally (friend injection), so that
//  - the host's GET_TPL_TILING_KEY / ASCENDC_TPL_SEL_PARAM pack values into a tiling key: parameter i
//    takes bw_i bits, the first parameter the lowest bits, each holding the value itself;
//  - the kernel launch (twin/tpl_launch.h, TWIN_TPL_LAUNCH) decodes the key and calls the matching
//    instance kernel<v0, v1, ...>.
// ASCENDC_TPL_SEL lists the combinations the device build compiles: each ASCENDC_TPL_ARGS_SEL is a
// product of value lists, matched to the declared parameters by name ("Tiling Template Programming",
// https://www.hiascend.com/document/detail/en/canncommercial/latest/opdevg/Ascendcopdevg/atlas_ascendc_10_00025.html).
// The twin instantiates a combination only where one ARGS_SEL admits it (all combinations when the
// op has no ASCENDC_TPL_SEL), as the device build does: an instance outside the selection need not
// compile (ops-transformer mla_prolog's bf16 scenario with its int8 dequant switch on does not), and
// each instance left out is compile time saved. A parameter an ARGS_SEL does not name takes any value.
// The key encoding is the twin's own: host and kernel agree, a device build may number keys
// differently.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <tuple>
#include <utility>

// kernel type options of ASCENDC_TPL_KERNEL_TYPE_SEL (the twin runs vector blocks only)
#define ASCENDC_TPL_AIV_ONLY 0
#define ASCENDC_TPL_AIC_ONLY 1
#define ASCENDC_TPL_MIX_AIV_1_0 4
#define ASCENDC_TPL_MIX_AIC_1_0 5
#define ASCENDC_TPL_MIX_AIC_1_1 6
#define ASCENDC_TPL_MIX_AIC_1_2 7
#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_3_BW 3
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_5_BW 5
#define ASCENDC_TPL_6_BW 6
#define ASCENDC_TPL_7_BW 7
#define ASCENDC_TPL_8_BW 8
#define ASCENDC_TPL_16_BW 16
#define ASCENDC_TPL_32_BW 32
#define ASCENDC_TPL_UI_LIST 0
#define ASCENDC_TPL_UI_RANGE 1
#define ASCENDC_TPL_UI_MIX 2
// ge::DataType numbering for DTYPE / DATATYPE parameters
#define C_DT_FLOAT 0
#define C_DT_FLOAT16 1
#define C_DT_INT8 2
#define C_DT_INT32 3
#define C_DT_UINT8 4
#define C_DT_INT16 6
#define C_DT_UINT16 7
#define C_DT_UINT32 8
#define C_DT_INT64 9
#define C_DT_UINT64 10
#define C_DT_DOUBLE 11
#define C_DT_BOOL 12
#define C_DT_BF16 27
#define ASCENDC_TPL_INPUT(n) (0x8000000000000000ull | (uint64_t)(n))
#define ASCENDC_TPL_OUTPUT(n) (0x4000000000000000ull | (uint64_t)(n))

namespace twin_tpl {
constexpr uint32_t MAXV = 64;
// FNV-1a of a parameter's name, so that ARGS_SEL entries find their ARGS_DECL parameter.
constexpr uint64_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}
struct Param {
    uint64_t name = 0;
    uint32_t bw = 0;
    uint32_t n = 0;
    bool is_type = false; // ASCENDC_TPL_DATATYPE_DECL: the kernel takes the C++ type of the C_DT_* value
    uint64_t v[MAXV] = {};
    constexpr Param() {}
    constexpr void add(uint64_t x) {
        if ((x & 0xC000000000000000ull) != 0) return; // ASCENDC_TPL_INPUT/OUTPUT markers
        for (uint32_t i = 0; i < n; i++) if (v[i] == x) return;
        if (n < MAXV) v[n++] = x;
    }
};
constexpr Param list(uint32_t bw, std::initializer_list<uint64_t> vals) {
    Param p;
    p.bw = bw;
    for (uint64_t x : vals) p.add(x);
    return p;
}
constexpr Param as_type(Param p) {
    p.is_type = true;
    return p;
}
// UI_LIST: values; UI_RANGE: count, then count [lo, hi] pairs; UI_MIX: count, pairs, then values.
constexpr Param uint_decl(uint32_t bw, uint32_t mode, std::initializer_list<uint64_t> vals) {
    Param p;
    p.bw = bw;
    const uint64_t *a = vals.begin();
    size_t n = vals.size();
    if (mode == ASCENDC_TPL_UI_LIST) {
        for (size_t i = 0; i < n; i++) p.add(a[i]);
        return p;
    }
    size_t ranges = n ? (size_t)a[0] : 0, k = 1;
    for (size_t r = 0; r < ranges && k + 1 < n; r++, k += 2)
        for (uint64_t x = a[k]; x <= a[k + 1]; x++) p.add(x);
    if (mode == ASCENDC_TPL_UI_MIX)
        for (; k < n; k++) p.add(a[k]);
    return p;
}

constexpr Param named(uint64_t name, Param p) {
    p.name = name;
    return p;
}

template <uint64_t name, uint64_t bw, uint64_t mode, uint64_t... vals> struct UintDecl {
    static constexpr Param p = named(name, uint_decl((uint32_t)bw, (uint32_t)mode, {vals...}));
};
template <uint64_t name, uint64_t bw, bool type, uint64_t... vals> struct ListDecl {
    static constexpr Param p =
        named(name, type ? as_type(list((uint32_t)bw, {vals...})) : list((uint32_t)bw, {vals...}));
};
template <class... Ps> struct Decl {
    static constexpr Param p[] = {Ps::p...};
    static constexpr size_t n = sizeof...(Ps);
};
template <class Tuple> struct DeclTuple;
template <class... Ps> struct DeclTuple<std::tuple<Ps...>> { using type = Decl<Ps...>; };
template <class Tuple> using DeclOf = typename DeclTuple<Tuple>::type;

// ASCENDC_TPL_SEL: a list of ARGS_SEL, each a list of entries. An entry that is no parameter
// (TILING_STRUCT_SEL, KERNEL_TYPE_SEL, DETERMINISTIC_SEL) has name 0 and restricts nothing.
struct NoSelEntry {
    static constexpr Param p = {};
};
template <class... Es> struct ArgsSel {
    static constexpr Param p[] = {Es::p..., Param{}};
    static constexpr size_t n = sizeof...(Es);
};
template <class Tuple> struct ArgsSelTuple;
template <class... Es> struct ArgsSelTuple<std::tuple<Es...>> { using type = ArgsSel<Es...>; };
template <class Tuple> using ArgsSelOf = typename ArgsSelTuple<Tuple>::type;
template <class... As> struct Sel {
    static constexpr size_t n = sizeof...(As);
};
template <class Tuple> struct SelTuple;
template <class... As> struct SelTuple<std::tuple<As...>> { using type = Sel<As...>; };
template <class Tuple> using SelOf = typename SelTuple<Tuple>::type;
// No ASCENDC_TPL_SEL in the program: every declared combination.
struct NoSel {};

template <class R> constexpr bool admits(const Param *entries, size_t n, const uint64_t *vals) {
    for (size_t e = 0; e < n; e++) {
        // not a parameter, or only ASCENDC_TPL_INPUT / OUTPUT markers: no restriction the twin reads
        if (entries[e].name == 0 || entries[e].n == 0) continue;
        for (size_t i = 0; i < R::n; i++) {
            if (R::p[i].name != entries[e].name) continue;
            bool in = false;
            for (uint32_t k = 0; k < entries[e].n; k++) in = in || entries[e].v[k] == vals[i];
            if (!in) return false;
        }
    }
    return true;
}
template <class R, size_t N> constexpr bool selected_in(const uint64_t (&)[N], Sel<> *) { return true; }
template <class R, size_t N, class... As> constexpr bool selected_in(const uint64_t (&vals)[N], Sel<As...> *) {
    return (admits<R>(As::p, As::n, vals) || ...);
}
template <class S, class R, size_t N> constexpr bool selected(const uint64_t (&vals)[N]) {
    if constexpr (std::is_same_v<S, NoSel>) {
        return true;
    } else {
        return selected_in<R>(vals, static_cast<S *>(nullptr));
    }
}

// Global registration of the (single) ASCENDC_TPL_ARGS_DECL of the program.
struct Key {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-template-friend"
    friend constexpr auto twin_tpl_get(Key);
#pragma GCC diagnostic pop
};
template <class R> struct Set {
    friend constexpr auto twin_tpl_get(Key) { return R{}; }
};
template <class R> constexpr uint64_t mask_of(uint32_t bw) { return bw >= 64 ? ~0ull : ((1ull << bw) - 1); }

template <class R, class VecLike> uint64_t encode(const VecLike &vals) {
    uint64_t key = 0;
    uint32_t shift = 0;
    size_t i = 0;
    for (uint64_t x : vals) {
        if (i >= R::n) break;
        key |= (x & mask_of<R>(R::p[i].bw)) << shift;
        shift += R::p[i].bw;
        i++;
    }
    return key;
}

// Kernel side: call f(std::integral_constant<uint64_t, v_0>, ...) for the instance the key selects,
// among those S (the program's ASCENDC_TPL_SEL, or NoSel) admits.
template <class S, class R, size_t I, uint64_t... Vs, class F, size_t... J>
bool dispatch_vals(uint64_t key, uint32_t shift, F &f, std::index_sequence<J...>);
template <class S, class R, size_t I, uint64_t... Vs, class F> bool dispatch(uint64_t key, uint32_t shift, F &f) {
    if constexpr (I == R::n) {
        constexpr uint64_t vals[] = {Vs..., 0};
        if constexpr (selected<S, R>(vals)) {
            f(std::integral_constant<uint64_t, Vs>{}...);
            return true;
        } else {
            return false;
        }
    } else {
        return dispatch_vals<S, R, I, Vs...>(key, shift, f, std::make_index_sequence<R::p[I].n>{});
    }
}
template <class S, class R, size_t I, uint64_t... Vs, class F, size_t... J>
bool dispatch_vals(uint64_t key, uint32_t shift, F &f, std::index_sequence<J...>) {
    uint64_t val = (key >> shift) & mask_of<R>(R::p[I].bw);
    bool done = false;
    ((!done && val == (R::p[I].v[J] & mask_of<R>(R::p[I].bw))
          ? (done = dispatch<S, R, I + 1, Vs..., R::p[I].v[J]>(key, shift + R::p[I].bw, f), true)
          : false),
     ...);
    return done;
}
template <class S, class F> bool launch(uint64_t key, F f) {
    using R = decltype(twin_tpl_get(Key{}));
    return dispatch<S, R, 0>(key, 0, f);
}
} // namespace twin_tpl

#define TWIN_TPL_CAT2(a, b) a##b
#define TWIN_TPL_CAT(a, b) TWIN_TPL_CAT2(a, b)
// Each declared parameter is a value of a type carrying its values, gathered with std::tuple's
// deduction from a braced list (which, like the device macros, accepts a trailing comma), and
// ASCENDC_TPL_ARGS_DECL is an alias of the resulting type, so a tiling-key header without an include
// guard may be read twice in one unit (an alias may be declared again as the same type; the
// registration is instantiated once).
// A value list may end in a comma too (`schMode, 1, ASCENDC_TPL_UI_LIST, A, B, )`), which a template
// argument list does not allow: TWIN_TPL_VALUES turns each non-empty argument into `, value` and
// drops an empty last one (__VA_OPT__, which GCC and Clang accept in C++17 mode).
#define TWIN_TPL_PARENS ()
#define TWIN_TPL_EXPAND(...) TWIN_TPL_EXPAND3(TWIN_TPL_EXPAND3(TWIN_TPL_EXPAND3(TWIN_TPL_EXPAND3(__VA_ARGS__))))
#define TWIN_TPL_EXPAND3(...) TWIN_TPL_EXPAND2(TWIN_TPL_EXPAND2(TWIN_TPL_EXPAND2(TWIN_TPL_EXPAND2(__VA_ARGS__))))
#define TWIN_TPL_EXPAND2(...) TWIN_TPL_EXPAND1(TWIN_TPL_EXPAND1(TWIN_TPL_EXPAND1(TWIN_TPL_EXPAND1(__VA_ARGS__))))
#define TWIN_TPL_EXPAND1(...) __VA_ARGS__
#define TWIN_TPL_VALUES(...) __VA_OPT__(TWIN_TPL_EXPAND(TWIN_TPL_VALUES_STEP(__VA_ARGS__)))
#define TWIN_TPL_VALUES_STEP(a, ...) , a __VA_OPT__(TWIN_TPL_VALUES_AGAIN TWIN_TPL_PARENS(__VA_ARGS__))
#define TWIN_TPL_VALUES_AGAIN() TWIN_TPL_VALUES_STEP
#define TWIN_TPL_NAME(x) ::twin_tpl::name_hash(#x)
#define ASCENDC_TPL_UINT_DECL(x, bw, mode, ...) ::twin_tpl::UintDecl<TWIN_TPL_NAME(x), bw, mode TWIN_TPL_VALUES(__VA_ARGS__)>{}
#define ASCENDC_TPL_DTYPE_DECL(x, ...) ::twin_tpl::ListDecl<TWIN_TPL_NAME(x), 8, false TWIN_TPL_VALUES(__VA_ARGS__)>{}
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) ::twin_tpl::ListDecl<TWIN_TPL_NAME(x), 8, true TWIN_TPL_VALUES(__VA_ARGS__)>{}
#define ASCENDC_TPL_FORMAT_DECL(x, ...) ::twin_tpl::ListDecl<TWIN_TPL_NAME(x), 8, false TWIN_TPL_VALUES(__VA_ARGS__)>{}
#define ASCENDC_TPL_BOOL_DECL(x, ...) ::twin_tpl::ListDecl<TWIN_TPL_NAME(x), 1, false TWIN_TPL_VALUES(__VA_ARGS__)>{}
#define ASCENDC_TPL_ARGS_DECL(op, ...)                                                                     \
    using TWIN_TPL_CAT(twin_tpl_reg_, op) = ::twin_tpl::DeclOf<decltype(std::tuple{__VA_ARGS__})>;        \
    using TWIN_TPL_CAT(twin_tpl_set_, op) =                                                                \
        std::integral_constant<size_t, sizeof(::twin_tpl::Set<TWIN_TPL_CAT(twin_tpl_reg_, op)>)>
// ASCENDC_TPL_SEL declares a function whose return type carries the selection, one overload per
// expansion (__COUNTER__); TWIN_TPL_LAUNCH finds it by overload (`sel_pick`). None, or more than one
// (a header without an include guard read twice, the twin's API coverage unit with several), and every
// combination is instantiated. Written at global scope, as the guide's examples do; one written inside
// a namespace is not seen either.
// TWIN_TPL_IGNORE_SEL (the twin's second build where the selection does not compile): every
// declared combination, the selection's text unread.
#ifdef TWIN_TPL_IGNORE_SEL
#define ASCENDC_TPL_SEL(...) static_assert(true, "")
#else
#define ASCENDC_TPL_SEL(...)                                                                               \
    ::twin_tpl::SelOf<decltype(std::tuple{__VA_ARGS__})> twin_tpl_sel_of(::TwinTplSelTag,                  \
                                                                          ::twin_tpl::Nth<__COUNTER__> *)
#endif
#define ASCENDC_TPL_ARGS_SEL(...) ::twin_tpl::ArgsSelOf<decltype(std::tuple{__VA_ARGS__})>{}
#define ASCENDC_TPL_UINT_SEL(x, mode, ...) ::twin_tpl::UintDecl<TWIN_TPL_NAME(x), 0, mode TWIN_TPL_VALUES(__VA_ARGS__)>{}
#define ASCENDC_TPL_DTYPE_SEL(x, ...) ::twin_tpl::ListDecl<TWIN_TPL_NAME(x), 0, false TWIN_TPL_VALUES(__VA_ARGS__)>{}
#define ASCENDC_TPL_DATATYPE_SEL(x, ...) ::twin_tpl::ListDecl<TWIN_TPL_NAME(x), 0, false TWIN_TPL_VALUES(__VA_ARGS__)>{}
#define ASCENDC_TPL_FORMAT_SEL(x, ...) ::twin_tpl::ListDecl<TWIN_TPL_NAME(x), 0, false TWIN_TPL_VALUES(__VA_ARGS__)>{}
#define ASCENDC_TPL_BOOL_SEL(x, ...) ::twin_tpl::ListDecl<TWIN_TPL_NAME(x), 0, false TWIN_TPL_VALUES(__VA_ARGS__)>{}
#define ASCENDC_TPL_TILING_STRUCT_SEL(...) ::twin_tpl::NoSelEntry{}
#define ASCENDC_TPL_KERNEL_TYPE_SEL(...) ::twin_tpl::NoSelEntry{}
#define ASCENDC_TPL_SHARED_KERNEL_TYPE_SEL(...) ::twin_tpl::NoSelEntry{}
#define ASCENDC_TPL_DETERMINISTIC_SEL(...) ::twin_tpl::NoSelEntry{}
struct TwinTplSelTag {};
::twin_tpl::NoSel twin_tpl_sel_of(...);
namespace twin_tpl {
template <int> struct Nth {};
// The program's one selection; NoSel where it has none or several (an ambiguous call fails the
// substitution, and the second overload is taken).
template <class T> auto sel_pick(int) -> decltype(twin_tpl_sel_of(T{}, nullptr));
template <class T> NoSel sel_pick(...);
} // namespace twin_tpl

#define GET_TPL_TILING_KEY(...) ::twin_tpl::encode<decltype(twin_tpl_get(::twin_tpl::Key{}))>(std::initializer_list<uint64_t>{__VA_ARGS__})
#define ASCENDC_TPL_SEL_PARAM(context, ...)                       \
    do {                                                          \
        (context)->SetTilingKey(GET_TPL_TILING_KEY(__VA_ARGS__)); \
    } while (0)
