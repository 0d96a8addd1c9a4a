// twin: AscendC::Std, the standard-library subset kernels use on the device (asc-devkit "Std"
// utilities: min, max, abs, ceil_division, ceil_align, the type traits and the tuple container), on the
// twin the C++ standard ones; and the layout helpers built on Std::tuple (Shape, Stride, Coord, Layout,
// MakeShape / MakeStride / MakeCoord / MakeLayout, Crd2Idx).
#pragma once
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace AscendC {
namespace Std {
template <class T, class U> constexpr typename std::common_type<T, U>::type min(const T &a, const U &b) {
    using C = typename std::common_type<T, U>::type;
    return (C)b < (C)a ? (C)b : (C)a;
}
template <class T, class U> constexpr typename std::common_type<T, U>::type max(const T &a, const U &b) {
    using C = typename std::common_type<T, U>::type;
    return (C)a < (C)b ? (C)b : (C)a;
}
template <class T> constexpr T abs(const T &a) { return a < T(0) ? -a : a; }
template <class T, class U> constexpr auto ceil_division(const T &a, const U &b) { return (a + b - 1) / b; }
template <class T, class U> constexpr auto ceil_align(const T &a, const U &b) { return ceil_division(a, b) * b; }
using std::add_const;
using std::conditional;
using std::conditional_t;
using std::decay;
using std::decay_t;
using std::enable_if;
using std::enable_if_t;
using std::false_type;
using std::integral_constant;
using std::is_arithmetic;
using std::is_floating_point;
using std::is_integral;
using std::is_pointer;
using std::is_same;
using std::is_same_v;
using std::is_signed;
using std::is_unsigned;
using std::remove_const;
using std::remove_cv;
using std::remove_reference;
using std::true_type;
using std::forward;
using std::move;
// The tuple container (asc-devkit docs, Utils-API/CPP标准库/容器函数/tuple.md, get1.md, make_tuple.md):
// the standard one, whose get / make_tuple / tuple_element / tuple_size behave as documented.
using std::get;
using std::make_tuple;
using std::tie;
using std::tuple;
using std::tuple_element;
using std::tuple_size;
// Std::Int<v>: integral_constant<size_t, v> (Utils-API/CPP标准库/类型特性/integral_constant.md).
template <size_t v> using Int = std::integral_constant<size_t, v>;
} // namespace Std

// Layout (asc-devkit docs, SIMD-API/基础API/辅助数据结构/Layout/ and Coordinate/; data_structure_TensorAPI/
// layout_structure/Layout.md): Shape, Stride and Coord are Std::tuple; Layout<Shape, Stride> maps a
// coordinate to a linear index with Crd2Idx: the sum of c_i * s_i, recursively for nested tuples, and an
// integer coordinate given for a tuple mode is first delinearised column-major over that mode's shape
// (c % d0, (c / d0) % d1, ..., the last mode taking the rest unreduced, as Crd2Idx.md's worked example
// ((2, 4), (3, 5)) : ((3, 6), (1, 24)) at (11, 12) = 129 does).
template <typename... Ts> using Shape = Std::tuple<Ts...>;
template <typename... Ts> using Stride = Std::tuple<Ts...>;
template <typename... Ts> using Coord = Std::tuple<Ts...>;
template <typename... Ts> constexpr Shape<Ts...> MakeShape(const Ts &...t) { return Shape<Ts...>(t...); }
template <typename... Ts> constexpr Stride<Ts...> MakeStride(const Ts &...t) { return Stride<Ts...>(t...); }
template <typename... Ts> constexpr Coord<Ts...> MakeCoord(const Ts &...t) { return Coord<Ts...>(t...); }
namespace twin_layout {
template <class T> struct is_tuple : std::false_type {};
template <class... Ts> struct is_tuple<std::tuple<Ts...>> : std::true_type {};
template <class C, class S, class D> constexpr int64_t crd2idx(const C &c, const S &shape, const D &stride);
template <class S> constexpr int64_t size_of(const S &s) {
    if constexpr (is_tuple<S>::value) {
        int64_t n = 1;
        std::apply([&](const auto &...d) { ((n *= size_of(d)), ...); }, s);
        return n;
    } else {
        return (int64_t)s;
    }
}
template <class C, class S, class D, size_t... I>
constexpr int64_t crd2idx_modes(const C &c, const S &shape, const D &stride, std::index_sequence<I...>) {
    return (int64_t(0) + ... + crd2idx(std::get<I>(c), std::get<I>(shape), std::get<I>(stride)));
}
// An integer coordinate over the modes I.. of a tuple shape: column-major delinearisation.
template <class S, class D, size_t... I>
constexpr int64_t crd2idx_flat(int64_t c, const S &shape, const D &stride, std::index_sequence<I...>) {
    int64_t idx = 0;
    constexpr size_t last = sizeof...(I) - 1;
    ((idx += crd2idx(I == last ? c : c % (int64_t)size_of(std::get<I>(shape)), std::get<I>(shape), std::get<I>(stride)),
      c /= (int64_t)size_of(std::get<I>(shape))), ...);
    return idx;
}
template <class C, class S, class D> constexpr int64_t crd2idx(const C &c, const S &shape, const D &stride) {
    if constexpr (is_tuple<C>::value) {
        static_assert(is_tuple<S>::value && is_tuple<D>::value && std::tuple_size<C>::value == std::tuple_size<S>::value &&
                          std::tuple_size<S>::value == std::tuple_size<D>::value,
                      "Crd2Idx: a tuple coordinate needs a shape and stride of the same rank");
        return crd2idx_modes(c, shape, stride, std::make_index_sequence<std::tuple_size<C>::value>{});
    } else if constexpr (is_tuple<S>::value) {
        return crd2idx_flat((int64_t)c, shape, stride, std::make_index_sequence<std::tuple_size<S>::value>{});
    } else {
        return (int64_t)c * (int64_t)stride;
    }
}
} // namespace twin_layout
template <typename ShapeType, typename StrideType> struct Layout : private Std::tuple<ShapeType, StrideType> {
    constexpr Layout(const ShapeType &shape = {}, const StrideType &stride = {}) : Std::tuple<ShapeType, StrideType>(shape, stride) {}
    constexpr decltype(auto) layout() { return *this; }
    constexpr decltype(auto) layout() const { return *this; }
    constexpr decltype(auto) GetShape() { return std::get<0>(static_cast<Std::tuple<ShapeType, StrideType> &>(*this)); }
    constexpr decltype(auto) GetShape() const { return std::get<0>(static_cast<const Std::tuple<ShapeType, StrideType> &>(*this)); }
    constexpr decltype(auto) GetStride() { return std::get<1>(static_cast<Std::tuple<ShapeType, StrideType> &>(*this)); }
    constexpr decltype(auto) GetStride() const { return std::get<1>(static_cast<const Std::tuple<ShapeType, StrideType> &>(*this)); }
    template <typename S> constexpr auto operator()(const S &coord) const { return twin_layout::crd2idx(coord, GetShape(), GetStride()); }
};
template <typename ShapeType, typename StrideType>
constexpr auto MakeLayout(const ShapeType &shape, const StrideType &stride) { return Layout<ShapeType, StrideType>(shape, stride); }
template <typename CoordType, typename ShapeType, typename StrideType>
constexpr auto Crd2Idx(const CoordType &coord, const Layout<ShapeType, StrideType> &layout) {
    return twin_layout::crd2idx(coord, layout.GetShape(), layout.GetStride());
}
template <typename CoordType, typename ShapeType, typename StrideType>
constexpr auto Crd2Idx(const CoordType &coord, const ShapeType &shape, const StrideType &stride) {
    return twin_layout::crd2idx(coord, shape, stride);
}
} // namespace AscendC
