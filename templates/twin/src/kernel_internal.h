// twin: private declarations shared by kernel_runtime.cpp and kernel_main.cpp.
#pragma once
#include <string>
#include <vector>
#include "../include/kernel/twin/runtime.h"

namespace twin {
struct Fault {
    std::string msg;
    const char *file;
    int line;
};
extern thread_local std::string g_trace; // the trace text of the block running on this thread
std::vector<GmAlloc> &gm_allocs();   // sorted by base
void trace_append(const char *s);
void trace_u64(uint64_t v);
} // namespace twin
