// twin (host side): op_host/util/fp16.h, the operator-base 16-bit float `Ops::Base::fp16_t` that
// tiling code uses to read float16 attrs and const inputs (`float(*reinterpret_cast<fp16_t*>(&bits))`).
// IEEE 754 binary16 (1 sign, 5 exponent, 10 fraction bits, bias 15), as the Ascend float16 is
// documented (asc-devkit docs, "数据类型" / half); conversion from float rounds to nearest, ties to
// even, overflows to infinity and keeps NaN. Arithmetic goes through float and rounds back. No CANN
// source is copied.
#pragma once
#include <cstdint>
#include <cstring>

namespace Ops {
namespace Base {

struct fp16_t {
    uint16_t val = 0;

    fp16_t() = default;
    fp16_t(float f) : val(FromFloat(f)) {}
    fp16_t(double d) : val(FromFloat(static_cast<float>(d))) {}
    fp16_t(int32_t i) : val(FromFloat(static_cast<float>(i))) {}
    fp16_t(uint32_t i) : val(FromFloat(static_cast<float>(i))) {}
    fp16_t(int64_t i) : val(FromFloat(static_cast<float>(i))) {}

    operator float() const { return ToFloat(val); }
    explicit operator double() const { return ToFloat(val); }
    explicit operator int32_t() const { return static_cast<int32_t>(ToFloat(val)); }
    explicit operator int64_t() const { return static_cast<int64_t>(ToFloat(val)); }
    float toFloat() const { return ToFloat(val); }

    fp16_t &operator=(float f) { val = FromFloat(f); return *this; }
    fp16_t &operator+=(fp16_t o) { return *this = float(*this) + float(o); }
    fp16_t &operator-=(fp16_t o) { return *this = float(*this) - float(o); }
    fp16_t &operator*=(fp16_t o) { return *this = float(*this) * float(o); }
    fp16_t &operator/=(fp16_t o) { return *this = float(*this) / float(o); }

    static float ToFloat(uint16_t h) {
        const uint32_t sign = (h & 0x8000u) << 16;
        const uint32_t exp = (h >> 10) & 0x1f;
        uint32_t frac = h & 0x3ffu;
        uint32_t bits;
        if (exp == 0x1f) {
            bits = sign | 0x7f800000u | (frac << 13);
        } else if (exp != 0) {
            bits = sign | ((exp + 112) << 23) | (frac << 13);
        } else if (frac == 0) {
            bits = sign;
        } else {  // subnormal: normalise
            int e = -1;
            do { frac <<= 1; e++; } while ((frac & 0x400u) == 0);
            bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((frac & 0x3ffu) << 13);
        }
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }

    static uint16_t FromFloat(float f) {
        uint32_t x;
        std::memcpy(&x, &f, sizeof x);
        const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
        const uint32_t exp = (x >> 23) & 0xffu;
        const uint32_t frac = x & 0x7fffffu;
        if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (frac ? 0x200u : 0u));
        const int e = static_cast<int>(exp) - 127 + 15;
        if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
        if (e <= 0) {  // subnormal or zero in half
            if (e < -10) return sign;
            const uint32_t m = frac | 0x800000u;
            const int shift = 14 - e;
            uint32_t half = m >> shift;
            const uint32_t rest = m & ((1u << shift) - 1), mid = 1u << (shift - 1);
            if (rest > mid || (rest == mid && (half & 1u))) half++;
            return static_cast<uint16_t>(sign | half);
        }
        uint32_t half = (static_cast<uint32_t>(e) << 10) | (frac >> 13);
        const uint32_t rest = frac & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) half++;  // may carry into the exponent: right
        return static_cast<uint16_t>(sign | half);
    }
};

inline bool operator==(fp16_t a, fp16_t b) { return float(a) == float(b); }
inline bool operator!=(fp16_t a, fp16_t b) { return !(a == b); }
inline bool operator<(fp16_t a, fp16_t b) { return float(a) < float(b); }
inline bool operator>(fp16_t a, fp16_t b) { return float(a) > float(b); }

} // namespace Base
} // namespace Ops
