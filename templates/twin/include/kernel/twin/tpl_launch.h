// twin: launch of a template (ASCENDC_TPL_*) kernel. A launch file for such an op includes the kernel
// source (a template cannot be instantiated from another translation unit), then
//     TWIN_TPL_LAUNCH(kernel_name, N)     N = number of GM_ADDR arguments (inputs, outputs, workspace, tiling)
// which defines twin_launch(): it decodes the run-file's tiling_key and calls kernel_name<v0, v1, ...>.
#pragma once
#include <cstdint>
#include <utility>
#include "runtime.h"
#include "tpl.h"

namespace twin_tpl {
template <size_t N, class F, size_t... I> void apply_args_impl(uint8_t **a, F &&f, std::index_sequence<I...>) { f(a[I]...); }
template <size_t N, class F> void apply_args(uint8_t **a, F &&f) { apply_args_impl<N>(a, f, std::make_index_sequence<N>{}); }
} // namespace twin_tpl

#define TWIN_TPL_LAUNCH(kernel, N)                                                                            \
    extern "C" void twin_launch(uint8_t **twin_args) {                                                        \
        bool twin_ok = ::twin_tpl::launch(::twin::g.tiling_key, [&](auto... twin_c) {                        \
            ::twin_tpl::apply_args<N>(twin_args, [&](auto... twin_p) { kernel<decltype(twin_c)::value...>(twin_p...); }); \
        });                                                                                                   \
        if (!twin_ok)                                                                                         \
            ::twin::fault(__FILE__, __LINE__, "tiling key %llu matches no declared template instance of " #kernel, \
                          (unsigned long long)::twin::g.tiling_key);                                          \
    }
