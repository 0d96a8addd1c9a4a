// twin: kernel-side stub. A host tiling header that the kernel build includes for its tiling data
// may include the operator-base log header (and, through the repositories' error_util.h, use the
// standard string streams); the kernel never runs host code, so the log macros expand to nothing.
#pragma once
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#define OP_LOGE(...) ((void)0)
#define OP_LOGW(...) ((void)0)
#define OP_LOGI(...) ((void)0)
#define OP_LOGD(...) ((void)0)
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
