// twin: util/math_util.h in a kernel build. A host tiling header that the kernel build includes for
// its tiling data may include the operator-base math helpers (ops-nn's mse_loss_v2_tiling.h) and use
// them in inline code; the integer helpers are here as the host side defines them
// (include/host/twin_host/opbase.h: a zero divisor gives 0), constexpr so that constants may use them.
#pragma once
namespace Ops {
namespace Base {
template <class T, class U> constexpr T CeilDiv(T a, U b) {
    return b == 0 ? T(0) : static_cast<T>((a + static_cast<T>(b) - 1) / static_cast<T>(b));
}
template <class T, class U> constexpr T FloorDiv(T a, U b) { return b == 0 ? T(0) : static_cast<T>(a / static_cast<T>(b)); }
template <class T, class U> constexpr T CeilAlign(T a, U b) { return static_cast<T>(CeilDiv(a, b) * static_cast<T>(b)); }
template <class T, class U> constexpr T FloorAlign(T a, U b) { return static_cast<T>(FloorDiv(a, b) * static_cast<T>(b)); }
} // namespace Base
} // namespace Ops
