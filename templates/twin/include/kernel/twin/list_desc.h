// twin: the memory layout of a tensor list (a DYNAMIC OpDef input or output) as the kernel receives it.
// Owns only the layout: kernel_main.cpp builds it for a run-file `list` tensor; it knows nothing of
// runs, manifests or the AscendC classes that read it.
//
// Layout (uint64 words), as documented for ListTensorDesc (asc-devkit docs/zh/api/SIMD-API/基础API/
// 辅助数据结构/ListTensorDesc.md and docs/zh/guide/编程指南/附录/常用操作/如何开发动态输入算子.md):
//   word 0            the byte offset from the descriptor's start to the data-pointer table;
//   per tensor i      one word holding dim (low 32 bits) and index i (high 32 bits), then dim words
//                     of its shape;
//   the pointer table one data address per tensor, in list order.
#pragma once
#include <cstdint>
#include <vector>

namespace twin {

inline uint64_t list_tensor_bytes(const std::vector<uint64_t> &dims, uint64_t elem_bytes) {
    uint64_t n = elem_bytes;
    for (uint64_t d : dims) n *= d;
    return n;
}

inline std::vector<uint64_t> list_desc_words(const std::vector<std::vector<uint64_t>> &shapes,
                                             const std::vector<uint8_t *> &data) {
    std::vector<uint64_t> w;
    w.push_back(0);
    for (size_t i = 0; i < shapes.size(); i++) {
        w.push_back((uint64_t)shapes[i].size() | ((uint64_t)i << 32));
        for (uint64_t d : shapes[i]) w.push_back(d);
    }
    w[0] = w.size() * sizeof(uint64_t);
    for (size_t i = 0; i < shapes.size(); i++) w.push_back((uint64_t)(uintptr_t)(i < data.size() ? data[i] : nullptr));
    return w;
}

} // namespace twin
