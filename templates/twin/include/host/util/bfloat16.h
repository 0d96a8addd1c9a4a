// twin (host side): util/bfloat16.h, the operator-base 16-bit brain float `Ops::Base::bfloat16` that
// tiling code uses to read bfloat16 attrs and const inputs (`float(*reinterpret_cast<bfloat16*>(&bits))`).
// bfloat16 is the upper half of an IEEE 754 binary32 (1 sign, 8 exponent, 7 fraction bits), as the
// Ascend bfloat16_t is documented (asc-devkit docs/zh/api/SIMD-API/基础API/数据结构/内置数据类型.md);
// conversion from float rounds to nearest, ties to even, and keeps NaN a NaN (the default rounding of
// "Cast（float转bfloat16_t）" in the same docs). Arithmetic goes through float and rounds back. No CANN
// source is copied.
#pragma once
#include <cstdint>
#include <cstring>

namespace Ops {
namespace Base {

struct bfloat16 {
    uint16_t value = 0;

    bfloat16() = default;
    bfloat16(float f) : value(FromFloat(f)) {}
    bfloat16(double d) : value(FromFloat(static_cast<float>(d))) {}
    bfloat16(int32_t i) : value(FromFloat(static_cast<float>(i))) {}
    bfloat16(int64_t i) : value(FromFloat(static_cast<float>(i))) {}

    operator float() const { return ToFloat(value); }
    explicit operator double() const { return ToFloat(value); }
    explicit operator int32_t() const { return static_cast<int32_t>(ToFloat(value)); }
    explicit operator int64_t() const { return static_cast<int64_t>(ToFloat(value)); }

    bfloat16 &operator=(float f) { value = FromFloat(f); return *this; }
    bfloat16 operator+(bfloat16 o) const { return bfloat16(float(*this) + float(o)); }
    bfloat16 operator-(bfloat16 o) const { return bfloat16(float(*this) - float(o)); }
    bfloat16 operator*(bfloat16 o) const { return bfloat16(float(*this) * float(o)); }
    bfloat16 operator/(bfloat16 o) const { return bfloat16(float(*this) / float(o)); }
    bool operator==(bfloat16 o) const { return float(*this) == float(o); }
    bool operator!=(bfloat16 o) const { return !(*this == o); }
    bool operator<(bfloat16 o) const { return float(*this) < float(o); }
    bool operator>(bfloat16 o) const { return float(*this) > float(o); }

    static float ToFloat(uint16_t b) {
        uint32_t bits = static_cast<uint32_t>(b) << 16;
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }
    static uint16_t FromFloat(float f) {
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) {
            return static_cast<uint16_t>((bits >> 16) | 0x0040u); // a NaN stays a (quiet) NaN
        }
        uint32_t lsb = (bits >> 16) & 1u;
        bits += 0x7fffu + lsb; // round to nearest, ties to even (a carry into the exponent is right)
        return static_cast<uint16_t>(bits >> 16);
    }
};

} // namespace Base
} // namespace Ops
