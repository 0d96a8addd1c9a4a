// twin: math for the kernel headers. Only the float (f) and long double (l) libm entry points
// are called: a user kernel compiled into the same program may itself be an extern "C"
// function named exp, log, sqrt, floor ... and would otherwise capture these calls.
#include <cstdarg>
#include <cstdio>
#include <math.h>
#include "../include/kernel/twin/runtime.h"

// Square roots: the correctly rounded hardware instruction, never a libm call.
namespace twin {
#if defined(__x86_64__)
float m_sqrt(float x) { float r; __asm__("sqrtss %1, %0" : "=x"(r) : "x"(x)); return r; }
double m_sqrt(double x) { double r; __asm__("sqrtsd %1, %0" : "=x"(r) : "x"(x)); return r; }
#elif defined(__aarch64__)
float m_sqrt(float x) { float r; __asm__("fsqrt %s0, %s1" : "=w"(r) : "w"(x)); return r; }
double m_sqrt(double x) { double r; __asm__("fsqrt %d0, %d1" : "=w"(r) : "w"(x)); return r; }
#else
float m_sqrt(float x) { return sqrtf(x); }
double m_sqrt(double x) { return (double)sqrtl(x); }
#endif
} // namespace twin

// Keeps GCC from narrowing f_l(L(x)) back into a call of the double function f.
static inline long double L(double x) {
    long double y = x;
    __asm__ volatile("" : "+m"(y));
    return y;
}

namespace twin {
float m_exp(float x) { return expf(x); }
double m_exp(double x) { return (double)expl(L(x)); }
float m_log(float x) { return logf(x); }
double m_log(double x) { return (double)logl(L(x)); }
// Rounding to an integral value, exactly, in double arithmetic: the long double libm entry points
// (x87 frndint) took half of a Cast-heavy kernel's run (ops-math's less, per element of a
// half -> int8 Cast). A double of magnitude 2^52 or more (and NaN, inf) is integral already; below,
// the integer part is exact in an int64_t, and each result keeps the sign of x (-0.3 -> -0.0).
static const double TWO52 = 4503599627370496.0;
static inline bool integral_already(double x) { return !(__builtin_fabs(x) < TWO52); }
double m_trunc(double x) {
    if (integral_already(x)) return x;
    return __builtin_copysign((double)(long long)x, x);
}
double m_floor(double x) {
    if (integral_already(x)) return x;
    const double t = m_trunc(x);
    return t > x ? t - 1.0 : t;
}
double m_ceil(double x) {
    if (integral_already(x)) return x;
    const double t = m_trunc(x);
    return t < x ? __builtin_copysign(t + 1.0, x) : t;
}
// Halves away from zero.
double m_round(double x) {
    if (integral_already(x)) return x;
    const double t = m_trunc(x);
    return __builtin_fabs(x - t) >= 0.5 ? t + __builtin_copysign(1.0, x) : t;
}
// Halves to even (the default rounding mode, which the twin never changes): adding and taking away
// 2^52 leaves no fraction bits, so the addition rounds x as rint does.
double m_rint(double x) {
    if (integral_already(x)) return x;
    volatile double big = __builtin_copysign(TWO52, x);
    const double r = (x + big) - big;
    return __builtin_copysign(r, x);
}
double m_fmod(double a, double b) { return (double)fmodl(L(a), L(b)); }
float m_nextafterf(float a, float b) { return nextafterf(a, b); }
float m_tanh(float x) { return tanhf(x); }
double m_tanh(double x) { return (double)tanhl(L(x)); }
float m_pow(float a, float b) { return powf(a, b); }
double m_pow(double a, double b) { return (double)powl(L(a), L(b)); }
float m_sin(float x) { return sinf(x); }
double m_sin(double x) { return (double)sinl(L(x)); }
float m_cos(float x) { return cosf(x); }
double m_cos(double x) { return (double)cosl(L(x)); }
float m_erf(float x) { return erff(x); }
double m_erf(double x) { return (double)erfl(L(x)); }
float m_log2(float x) { return log2f(x); }
double m_log2(double x) { return (double)log2l(L(x)); }
float m_log10(float x) { return log10f(x); }
double m_log10(double x) { return (double)log10l(L(x)); }
float m_acos(float x) { return acosf(x); }
float m_asin(float x) { return asinf(x); }
float m_atan(float x) { return atanf(x); }
float m_sinh(float x) { return sinhf(x); }
float m_cosh(float x) { return coshf(x); }
float m_tan(float x) { return tanf(x); }
float m_asinh(float x) { return asinhf(x); }
float m_acosh(float x) { return acoshf(x); }
float m_atanh(float x) { return atanhf(x); }
float m_erfc(float x) { return erfcf(x); }
float m_expm1(float x) { return expm1f(x); }
float m_log1p(float x) { return log1pf(x); }
float m_atan2(float y, float x) { return atan2f(y, x); }
void kprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
}
} // namespace twin
