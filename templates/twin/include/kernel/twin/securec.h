// twin: the bounds-checked memory and string functions host code gets with the CANN headers (memset_s,
// memcpy_s, memmove_s, strcpy_s, strcat_s, strncpy_s; EOK). Each returns EOK on success and a non-zero code,
// leaving the destination unchanged, when the destination is null or too small. The one copy: host code
// includes it through host/securec.h, `.asc` programs through the kernel-side tiling/tiling_api.h (their
// package ships the kernel headers only).
#pragma once
#include <cstddef>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
typedef int errno_t;

inline errno_t memset_s(void *dest, size_t destMax, int c, size_t count) {
    if (dest == nullptr || count > destMax) return 34; // ERANGE
    std::memset(dest, c, count);
    return EOK;
}
inline errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count) {
    if (dest == nullptr || src == nullptr || count > destMax) return 34;
    std::memcpy(dest, src, count);
    return EOK;
}
inline errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count) {
    if (dest == nullptr || src == nullptr || count > destMax) return 34;
    std::memmove(dest, src, count);
    return EOK;
}
inline errno_t strcpy_s(char *dest, size_t destMax, const char *src) {
    if (dest == nullptr || src == nullptr || std::strlen(src) + 1 > destMax) return 34;
    std::memcpy(dest, src, std::strlen(src) + 1);
    return EOK;
}
// strcat_s(dest, destMax, src): appends src when the result and its terminator fit in destMax.
inline errno_t strcat_s(char *dest, size_t destMax, const char *src) {
    if (dest == nullptr || src == nullptr) return 34;
    const size_t d = strnlen(dest, destMax);
    if (d == destMax || d + std::strlen(src) + 1 > destMax) return 34;
    std::memcpy(dest + d, src, std::strlen(src) + 1);
    return EOK;
}
inline errno_t strncpy_s(char *dest, size_t destMax, const char *src, size_t count) {
    if (dest == nullptr || src == nullptr) return 34;
    size_t n = std::strlen(src);
    if (n > count) n = count;
    if (n + 1 > destMax) return 34;
    std::memcpy(dest, src, n);
    dest[n] = 0;
    return EOK;
}
