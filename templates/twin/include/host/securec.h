// twin: securec.h for host code; the memory and string functions are in the kernel headers
// (kernel/twin/securec.h), which `.asc` programs get without the host headers. The formatted-output
// functions below are host-only (ops-nn's conv tilings format their messages with vsnprintf_s).
#pragma once
#include "../kernel/twin/securec.h"
#include <cstdarg>
#include <cstdio>

// The bounded formatted output of the securec library (the CANN headers bring it along), written from
// its documented contract (openEuler libboundscheck, "vsnprintf_s / snprintf_s"):
//   vsnprintf_s(dest, destMax, count, fmt, args) writes at most `count` characters and a terminator
//   into `dest` (`destMax` bytes). It returns the number of characters written (terminator excluded);
//   -1 when the output was truncated to `count` characters (count < destMax: the truncated string is
//   kept), and -1 with dest[0] = '\0' on an error: null dest or fmt, destMax 0, or an output that does
//   not fit in destMax - 1 characters while count >= destMax.
//   vsprintf_s(dest, destMax, fmt, args): the whole output or an error (-1, dest[0] = '\0').
inline int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list argList) {
    if (strDest == nullptr || format == nullptr || destMax == 0) return -1;
    const bool truncate_ok = count < destMax;
    const size_t limit = truncate_ok ? count : destMax - 1; // characters that may be stored
    va_list copy;
    va_copy(copy, argList);
    const int n = std::vsnprintf(strDest, limit + 1, format, copy);
    va_end(copy);
    if (n < 0) {
        strDest[0] = '\0';
        return -1;
    }
    if (static_cast<size_t>(n) <= limit) return n;
    if (truncate_ok) return -1; // truncated to `count` characters, kept
    strDest[0] = '\0';
    return -1;
}
inline int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    const int n = vsnprintf_s(strDest, destMax, count, format, ap);
    va_end(ap);
    return n;
}
inline int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList) {
    if (strDest == nullptr || format == nullptr || destMax == 0) return -1;
    va_list copy;
    va_copy(copy, argList);
    const int n = std::vsnprintf(strDest, destMax, format, copy);
    va_end(copy);
    if (n < 0 || static_cast<size_t>(n) >= destMax) {
        strDest[0] = '\0';
        return -1;
    }
    return n;
}
inline int sprintf_s(char *strDest, size_t destMax, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    const int n = vsprintf_s(strDest, destMax, format, ap);
    va_end(ap);
    return n;
}
