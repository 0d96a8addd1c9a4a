// twin: IEEE binary16 `half` and `bfloat16_t` for the CPU twin of AscendC.
// Conversion from float rounds to nearest, ties to even, and handles subnormals, inf and NaN.
// Arithmetic goes through float: for + - * / and sqrt the float result rounded once more to
// half is the correctly rounded half result (float has more than 2*11+2 significand bits).
#pragma once
#include <cstdint>
#include <type_traits>

namespace twin {

// constexpr throughout, so operators may write `constexpr half ONE = 1.0f;` as device code does.
constexpr uint32_t f32_bits(float f) { return __builtin_bit_cast(uint32_t, f); }
constexpr float bits_f32(uint32_t u) { return __builtin_bit_cast(float, u); }

// float -> binary16, round to nearest even.
constexpr uint16_t f32_to_f16_rne(float f) {
    uint32_t x = f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    x &= 0x7fffffffu;
    if (x >= 0x7f800000u) {                       // inf or NaN
        if (x == 0x7f800000u) return (uint16_t)(sign | 0x7c00u);
        return (uint16_t)(sign | 0x7e00u | ((x >> 13) & 0x3ffu));
    }
    if (x >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);   // >= 65520 rounds to inf
    if (x < 0x38800000u) {                        // below 2^-14: half subnormal or zero
        if (x < 0x33000000u) return (uint16_t)sign; // <= 2^-25 rounds to zero (tie to even)
        uint32_t e = x >> 23;
        uint32_t m = (x & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e;                // 14..24
        uint32_t r = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (r & 1u))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = x - 0x38000000u;                 // rebias exponent 127 -> 15
    uint32_t h = r >> 13;
    uint32_t rem = r & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}

constexpr float f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    if (e == 0) {
        if (m == 0) return bits_f32(sign);
        // subnormal: m * 2^-24
        float v = (float)m * 5.9604644775390625e-08f;
        return sign ? -v : v;
    }
    if (e == 31) return bits_f32(sign | 0x7f800000u | (m << 13));
    return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

constexpr uint16_t f32_to_bf16_rne(float f) {
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); // quiet NaN
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}
constexpr float bf16_to_f32(uint16_t b) { return bits_f32((uint32_t)b << 16); }

struct from_bits_t {};

} // namespace twin

#define TWIN_HALF_LIKE(NAME, TOBITS, TOF)                                                    \
    struct NAME {                                                                             \
        uint16_t bits_;                                                                       \
        NAME() = default;                                                                     \
        constexpr NAME(twin::from_bits_t, uint16_t b) : bits_(b) {}                           \
        constexpr NAME(float f) : bits_(TOBITS(f)) {}                                         \
        template <class U, typename std::enable_if<std::is_arithmetic<U>::value &&           \
                                                   !std::is_same<U, float>::value, int>::type = 0> \
        constexpr NAME(U v) : bits_(TOBITS((float)v)) {}                                      \
        constexpr operator float() const { return TOF(bits_); }                               \
        static constexpr NAME FromBits(uint16_t b) { return NAME(twin::from_bits_t{}, b); }  \
        constexpr uint16_t Bits() const { return bits_; }                                     \
        NAME &operator+=(const NAME &o) { *this = NAME(float(*this) + float(o)); return *this; } \
        NAME &operator-=(const NAME &o) { *this = NAME(float(*this) - float(o)); return *this; } \
        NAME &operator*=(const NAME &o) { *this = NAME(float(*this) * float(o)); return *this; } \
        NAME &operator/=(const NAME &o) { *this = NAME(float(*this) / float(o)); return *this; } \
        constexpr NAME operator-() const { return FromBits((uint16_t)(bits_ ^ 0x8000u)); }    \
        constexpr NAME operator+() const { return *this; }                                    \
    };                                                                                        \
    static_assert(true, "")
// Binary arithmetic and comparisons go through the implicit conversion to float
// (a free operator+(NAME, NAME) would make `h * 2.0f` ambiguous).

TWIN_HALF_LIKE(half, twin::f32_to_f16_rne, twin::f16_to_f32);
TWIN_HALF_LIKE(bfloat16_t, twin::f32_to_bf16_rne, twin::bf16_to_f32);
#undef TWIN_HALF_LIKE

static_assert(sizeof(half) == 2, "half must be 2 bytes");
static_assert(sizeof(bfloat16_t) == 2, "bfloat16_t must be 2 bytes");
static_assert(std::is_trivially_copyable<half>::value, "half must be trivially copyable");

// `__bf16`: the device compiler's bfloat16 type, the one AscendC's bfloat16_t names (ops-nn's gelu
// tests `std::is_same_v<TYPE_X, __bf16>`). GCC before 13 has no `__bf16` on x86, so there it names the
// twin's bfloat16_t, as on the device. GCC 13+ and clang have a builtin `__bf16` of their own, a type
// other than the twin's bfloat16_t: there such a test is false for bfloat16_t data.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
using __bf16 = bfloat16_t;
#endif

namespace twin {
template <class T> struct is_half_like : std::false_type {};
template <> struct is_half_like<half> : std::true_type {};
template <> struct is_half_like<bfloat16_t> : std::true_type {};
// Type in which vector arithmetic on T is computed.
template <class T> struct calc { using type = T; };
template <> struct calc<half> { using type = float; };
template <> struct calc<bfloat16_t> { using type = float; };
template <class T> using calc_t = typename calc<T>::type;
} // namespace twin
