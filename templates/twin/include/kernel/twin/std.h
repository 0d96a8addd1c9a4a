// twin: AscendC::Std, the standard-library subset kernels use on the device (asc-devkit "Std"
// utilities: min, max, abs, ceil_division, ceil_align and the type traits), on the twin the
// C++ standard ones.
#pragma once
#include <cstdint>
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
} // namespace Std
} // namespace AscendC
