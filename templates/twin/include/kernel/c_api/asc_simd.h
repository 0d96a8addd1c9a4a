// twin: the AscendC C API (`#include "c_api/asc_simd.h"`), a functional subset written from the asc-devkit
// docs (docs/zh/api/SIMD-API/C-API/...): the same machine as the C++ API with C names, built here over the
// twin's own C++ implementation so that both front ends share one core and one trace:
//   - register compute (reg/...): vector_<type> = AscendC::Reg::RegTensor<type>, vector_bool = MaskReg, and
//     asc_loadalign / asc_storealign / asc_add / asc_mul / ... / asc_update_mask_b* / asc_create_mask_b*
//     forward to the register core of twin/reg.h (VL = 256 bytes, reg/reg_data_types/asc_update_mask.md);
//   - data movement (vector_datamove/asc_copy_gm2ub_align/asc_copy_gm2ub_align_arch_3510.md,
//     asc_copy_ub2gm_align, asc_copy_gm2ub, asc_copy_ub2gm): DataCopyPad / DataCopy on the UB address;
//   - synchronisation (sync/asc_sync_notify.md, asc_sync_wait, asc_sync_pipe, asc_sync): SetFlag / WaitFlag
//     and barriers; asc_lock / asc_unlock as a barrier of the pipe (the twin runs one instruction at a time);
//   - repeat-form vector compute on UB arrays (vector_compute/asc_add.md ...: count elements, `_sync` forms
//     ending with a barrier): the C++ Add / Sub / Mul / ... of a count;
//   - system variables: asc_init, asc_get_block_idx / asc_get_block_num, asc_get_vf_len, block_idx;
//   - register gather (register and UB sources), squeeze and the frequency histograms (at the end).
// UB arrays (`__ubuf__ float x[n];` in a kernel) are UB allocations: the twin's ASC compiler rewrites such a
// declaration into `::twin_asc::ub_array<float>(n)` (package/src/asc_rewrite.cpp), whose pointer is a UB
// byte address, as `__ubuf__ T *` is everywhere in the twin. Only the normal L2 cache mode is modelled. Not modelled: the cube (L1 / L0 / mmad), the
// repeat-form gathers, cumulative histograms, squeeze with status, interleave, address registers, SIMT.
#pragma once
#include "../kernel_operator.h"

using vector_int8_t = AscendC::Reg::RegTensor<int8_t>;
using vector_uint8_t = AscendC::Reg::RegTensor<uint8_t>;
using vector_int16_t = AscendC::Reg::RegTensor<int16_t>;
using vector_uint16_t = AscendC::Reg::RegTensor<uint16_t>;
using vector_int32_t = AscendC::Reg::RegTensor<int32_t>;
using vector_uint32_t = AscendC::Reg::RegTensor<uint32_t>;
using vector_int64_t = AscendC::Reg::RegTensor<int64_t>;
using vector_uint64_t = AscendC::Reg::RegTensor<uint64_t>;
using vector_half = AscendC::Reg::RegTensor<half>;
using vector_bfloat16_t = AscendC::Reg::RegTensor<bfloat16_t>;
using vector_float = AscendC::Reg::RegTensor<float>;
using vector_bool = AscendC::Reg::MaskReg;

// L2 cache modes of the copies, as the C API enums define them (asc-devkit
// docs/zh/api/SIMD-API/C-API/enum/asc_load_l2_cache_mode.md and asc_store_l2_cache_mode.md). The twin moves
// the data the same in every mode and gives the GM side the AscendC CacheMode that says the same to the
// model (its GM copy records carry it as `cache=`): the NOTALLOC modes do not allocate in L2 and read
// from GM each time (CACHE_MODE_DISABLE), NORMAL_LAST_VICTIM marks lines replaced last (CACHE_MODE_LAST),
// NORMAL_PERSISTENT keeps them (CACHE_MODE_PERSISTENT), NORMAL_FIRST_VICTIM is the normal mode.
enum class asc_load_l2_cache_mode : uint8_t {
    NORMAL_FIRST_VICTIM = 0,
    NORMAL_LAST_VICTIM = 1,
    NORMAL_PERSISTENT = 2,
    NOTALLOC_KEEP = 4,
    NOTALLOC_CLEAN = 5,
    NOTALLOC_DROP = 6
};
enum class asc_store_l2_cache_mode : uint8_t {
    NORMAL_FIRST_VICTIM = 0,
    NORMAL_LAST_VICTIM = 1,
    NORMAL_PERSISTENT = 2,
    NOTALLOC_CLEAN = 4
};

// Mask patterns of asc_create_mask_b* (reg/reg_data_types/asc_create_mask.md).
enum twin_capi_pat { PAT_ALL, PAT_VL1, PAT_VL2, PAT_VL3, PAT_VL4, PAT_VL8, PAT_VL16, PAT_VL32, PAT_VL64, PAT_VL128,
                     PAT_M3, PAT_M4, PAT_H, PAT_Q, PAT_ALLF };

namespace twin_capi {
using namespace AscendC;
// A UB pointer as the twin keeps it: its value is the UB byte address.
template <class T> inline LocalTensor<T> ub_tensor(const T *p, uint64_t elems) {
    return LocalTensor<T>(TPosition::VECCALC, (uint32_t)twin::ub_addr_of_ptr(p), (uint32_t)elems);
}
template <class T> inline GlobalTensor<T> gm_tensor(T *p, uint64_t elems) {
    GlobalTensor<T> g;
    g.SetGlobalBuffer(p, elems);
    return g;
}
// The AscendC CacheMode a copy's L2 cache mode comes to (see the enums above).
inline CacheMode cache_of(asc_load_l2_cache_mode m) {
    switch (m) {
    case asc_load_l2_cache_mode::NORMAL_LAST_VICTIM: return CacheMode::CACHE_MODE_LAST;
    case asc_load_l2_cache_mode::NORMAL_PERSISTENT: return CacheMode::CACHE_MODE_PERSISTENT;
    case asc_load_l2_cache_mode::NOTALLOC_KEEP:
    case asc_load_l2_cache_mode::NOTALLOC_CLEAN:
    case asc_load_l2_cache_mode::NOTALLOC_DROP: return CacheMode::CACHE_MODE_DISABLE;
    default: return CacheMode::CACHE_MODE_NORMAL;
    }
}
inline CacheMode cache_of(asc_store_l2_cache_mode m) {
    switch (m) {
    case asc_store_l2_cache_mode::NORMAL_LAST_VICTIM: return CacheMode::CACHE_MODE_LAST;
    case asc_store_l2_cache_mode::NORMAL_PERSISTENT: return CacheMode::CACHE_MODE_PERSISTENT;
    case asc_store_l2_cache_mode::NOTALLOC_CLEAN: return CacheMode::CACHE_MODE_DISABLE;
    default: return CacheMode::CACHE_MODE_NORMAL;
    }
}
template <class T, class M> inline GlobalTensor<T> gm_tensor(T *p, uint64_t elems, M mode) {
    GlobalTensor<T> g = gm_tensor(p, elems);
    g.SetL2CacheHint(cache_of(mode));
    return g;
}
inline twin::Pipe pipe(pipe_t p) { return twin::pipe_of(p); }
template <class T> inline Reg::MaskReg mask_of(twin_capi_pat pat) {
    switch (pat) {
    case PAT_ALL: return Reg::CreateMask<T, Reg::MaskPattern::ALL>();
    case PAT_VL1: return Reg::CreateMask<T, Reg::MaskPattern::VL1>();
    case PAT_VL2: return Reg::CreateMask<T, Reg::MaskPattern::VL2>();
    case PAT_VL3: return Reg::CreateMask<T, Reg::MaskPattern::VL3>();
    case PAT_VL4: return Reg::CreateMask<T, Reg::MaskPattern::VL4>();
    case PAT_VL8: return Reg::CreateMask<T, Reg::MaskPattern::VL8>();
    case PAT_VL16: return Reg::CreateMask<T, Reg::MaskPattern::VL16>();
    case PAT_VL32: return Reg::CreateMask<T, Reg::MaskPattern::VL32>();
    case PAT_VL64: return Reg::CreateMask<T, Reg::MaskPattern::VL64>();
    case PAT_VL128: return Reg::CreateMask<T, Reg::MaskPattern::VL128>();
    case PAT_M3: return Reg::CreateMask<T, Reg::MaskPattern::M3>();
    case PAT_M4: return Reg::CreateMask<T, Reg::MaskPattern::M4>();
    case PAT_H: return Reg::CreateMask<T, Reg::MaskPattern::H>();
    case PAT_Q: return Reg::CreateMask<T, Reg::MaskPattern::Q>();
    default: return Reg::CreateMask<T, Reg::MaskPattern::ALLF>();
    }
}
} // namespace twin_capi

// ---- system (misc/asc_init.md, sys_var/asc_get_block_idx.md, asc_get_vf_len) ----------------------------
inline void asc_init() {}
inline int64_t asc_get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t asc_get_block_num() { return AscendC::GetBlockNum(); }
inline constexpr uint32_t asc_get_vf_len() { return AscendC::Reg::VL; }

// ---- synchronisation (sync/asc_sync_notify.md, asc_sync_wait.md, asc_sync_pipe.md, asc_sync.md) --------
inline void asc_sync_notify(pipe_t src, pipe_t dst, int32_t id, TWIN_LOC) {
    twin::event_set(twin_capi::pipe(src), twin_capi::pipe(dst), id, TWIN_LOC_ARGS);
}
inline void asc_sync_wait(pipe_t src, pipe_t dst, int32_t id, TWIN_LOC) {
    twin::event_wait(twin_capi::pipe(src), twin_capi::pipe(dst), id, "asc_sync_wait", TWIN_LOC_ARGS);
}
inline void asc_sync_pipe(pipe_t p) { twin::tr_barrier(twin_capi::pipe(p)); }
inline void asc_sync() { twin::tr_barrier(twin::pipe_of(PIPE_ALL)); }
// asc_lock / asc_unlock: a mutex between pipes. The twin runs the instructions in program order, so the
// lock orders nothing further; it is kept as a barrier of the pipe taking it (cost: the pipe drains).
inline void asc_lock(pipe_t p, int32_t) { twin::tr_barrier(twin_capi::pipe(p)); }
inline void asc_unlock(pipe_t p, int32_t) { twin::tr_barrier(twin_capi::pipe(p)); }

// ---- data movement --------------------------------------------------------------------------------------
// asc_copy_gm2ub_align(dst, src, size): the first `size` bytes, any length (padded in UB to 32 B).
template <class T> inline void asc_copy_gm2ub_align(T *dst, T *src, uint32_t size, TWIN_LOC) {
    using namespace AscendC;
    DataCopyExtParams p{1, size, 0, 0, 0};
    DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
    DataCopyPad(twin_capi::ub_tensor(dst, (size + 31) / sizeof(T)), twin_capi::gm_tensor(src, size / sizeof(T)), p, pad,
                TWIN_LOC_ARGS);
}
// The n-burst form: n_burst bursts of len_burst bytes, src_stride bytes between GM burst starts (0: packed),
// dst_stride bytes between UB burst starts (0: each burst padded to 32 B), left/right padding elements.
template <class T>
inline void asc_copy_gm2ub_align(T *dst, T *src, uint16_t n_burst, uint32_t len_burst, uint8_t left_pad, uint8_t right_pad,
                                 bool constant_pad, asc_load_l2_cache_mode l2_mode, uint64_t src_stride, uint32_t dst_stride,
                                 TWIN_LOC) {
    using namespace AscendC;
    const uint32_t ub_burst = (len_burst + 31) / 32 * 32;
    const uint64_t gm_gap = src_stride == 0 ? 0 : src_stride - len_burst;
    const uint32_t ub_gap = dst_stride == 0 ? 0 : (dst_stride - ub_burst) / 32;
    DataCopyExtParams p{n_burst, len_burst, (uint32_t)gm_gap, ub_gap, 0};
    DataCopyPadExtParams<T> pad{constant_pad || left_pad || right_pad, left_pad, right_pad, T(0)};
    const uint64_t ub_elems = ((uint64_t)n_burst * (dst_stride ? dst_stride : ub_burst)) / sizeof(T) + 32;
    const uint64_t gm_elems = ((uint64_t)n_burst * (src_stride ? src_stride : len_burst)) / sizeof(T);
    DataCopyPad(twin_capi::ub_tensor(dst, ub_elems), twin_capi::gm_tensor(src, gm_elems, l2_mode), p, pad, TWIN_LOC_ARGS);
}
template <class T> inline void asc_copy_gm2ub_align_sync(T *dst, T *src, uint32_t size, TWIN_LOC) {
    asc_copy_gm2ub_align(dst, src, size, TWIN_LOC_ARGS);
    asc_sync();
}
template <class T> inline void asc_copy_ub2gm_align(T *dst, T *src, uint32_t size, TWIN_LOC) {
    using namespace AscendC;
    DataCopyExtParams p{1, size, 0, 0, 0};
    DataCopyPad(twin_capi::gm_tensor(dst, size / sizeof(T)), twin_capi::ub_tensor(src, (size + 31) / sizeof(T)), p,
                TWIN_LOC_ARGS);
}
// The n-burst form: src_stride bytes between UB burst starts (0: each padded to 32 B), dst_stride bytes
// between GM burst starts (0: packed).
template <class T>
inline void asc_copy_ub2gm_align(T *dst, T *src, uint16_t n_burst, uint32_t len_burst, asc_store_l2_cache_mode l2_mode,
                                 uint64_t src_stride, uint32_t dst_stride, TWIN_LOC) {
    using namespace AscendC;
    const uint32_t ub_burst = (len_burst + 31) / 32 * 32;
    const uint32_t ub_gap = src_stride == 0 ? 0 : (uint32_t)((src_stride - ub_burst) / 32);
    const uint64_t gm_gap = dst_stride == 0 ? 0 : dst_stride - len_burst;
    DataCopyExtParams p{n_burst, len_burst, ub_gap, (uint32_t)gm_gap, 0};
    const uint64_t ub_elems = ((uint64_t)n_burst * (src_stride ? src_stride : ub_burst)) / sizeof(T) + 32;
    const uint64_t gm_elems = ((uint64_t)n_burst * (dst_stride ? dst_stride : len_burst)) / sizeof(T);
    DataCopyPad(twin_capi::gm_tensor(dst, gm_elems, l2_mode), twin_capi::ub_tensor(src, ub_elems), p, TWIN_LOC_ARGS);
}
template <class T> inline void asc_copy_ub2gm_align_sync(T *dst, T *src, uint32_t size, TWIN_LOC) {
    asc_copy_ub2gm_align(dst, src, size, TWIN_LOC_ARGS);
    asc_sync();
}
// asc_copy_gm2ub / asc_copy_ub2gm (vector_datamove/asc_copy_gm2ub.md): size bytes, a multiple of 32.
template <class T> inline void asc_copy_gm2ub(T *dst, T *src, uint32_t size, TWIN_LOC) {
    if (size % 32 != 0)
        twin::fault(twin_file, twin_line, "asc_copy_gm2ub: size %u is not a multiple of 32 bytes (use asc_copy_gm2ub_align)",
                    size);
    AscendC::DataCopy(twin_capi::ub_tensor(dst, size / sizeof(T)), twin_capi::gm_tensor(src, size / sizeof(T)),
                      size / (uint32_t)sizeof(T), TWIN_LOC_ARGS);
}
template <class T> inline void asc_copy_ub2gm(T *dst, T *src, uint32_t size, TWIN_LOC) {
    if (size % 32 != 0)
        twin::fault(twin_file, twin_line, "asc_copy_ub2gm: size %u is not a multiple of 32 bytes (use asc_copy_ub2gm_align)",
                    size);
    AscendC::DataCopy(twin_capi::gm_tensor(dst, size / sizeof(T)), twin_capi::ub_tensor(src, size / sizeof(T)),
                      size / (uint32_t)sizeof(T), TWIN_LOC_ARGS);
}
// The n-burst forms (asc_copy_gm2ub_arch_3510.md, asc_copy_ub2gm_arch_3510.md): n_burst bursts of len_burst
// bytes, src_stride / dst_stride bytes from one burst's start to the next (0: the bursts are packed).
template <class T>
inline void asc_copy_gm2ub(T *dst, T *src, uint16_t n_burst, uint32_t len_burst, uint64_t src_stride, uint64_t dst_stride,
                           TWIN_LOC) {
    using namespace AscendC;
    const uint64_t ss = src_stride ? src_stride : len_burst, ds = dst_stride ? dst_stride : len_burst;
    if (len_burst % 32 != 0 || ds % 32 != 0)
        twin::fault(twin_file, twin_line, "asc_copy_gm2ub: burst length %u or UB stride %llu is not a multiple of 32 bytes",
                    len_burst, (unsigned long long)ds);
    DataCopyExtParams p{n_burst, len_burst, (uint32_t)(ss - len_burst), (uint32_t)((ds - len_burst) / 32), 0};
    DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
    DataCopyPad(twin_capi::ub_tensor(dst, n_burst * ds / sizeof(T)), twin_capi::gm_tensor(src, n_burst * ss / sizeof(T)), p,
                pad, TWIN_LOC_ARGS);
}
template <class T>
inline void asc_copy_ub2gm(T *dst, T *src, uint16_t n_burst, uint32_t len_burst, uint64_t src_stride, uint64_t dst_stride,
                           TWIN_LOC) {
    using namespace AscendC;
    const uint64_t ss = src_stride ? src_stride : len_burst, ds = dst_stride ? dst_stride : len_burst;
    if (len_burst % 32 != 0 || ss % 32 != 0)
        twin::fault(twin_file, twin_line, "asc_copy_ub2gm: burst length %u or UB stride %llu is not a multiple of 32 bytes",
                    len_burst, (unsigned long long)ss);
    DataCopyExtParams p{n_burst, len_burst, (uint32_t)((ss - len_burst) / 32), (uint32_t)(ds - len_burst), 0};
    DataCopyPad(twin_capi::gm_tensor(dst, n_burst * ds / sizeof(T)), twin_capi::ub_tensor(src, n_burst * ss / sizeof(T)), p,
                TWIN_LOC_ARGS);
}
template <class T> inline void asc_copy_gm2ub_sync(T *dst, T *src, uint32_t size, TWIN_LOC) {
    asc_copy_gm2ub(dst, src, size, TWIN_LOC_ARGS);
    asc_sync();
}
template <class T> inline void asc_copy_ub2gm_sync(T *dst, T *src, uint32_t size, TWIN_LOC) {
    asc_copy_ub2gm(dst, src, size, TWIN_LOC_ARGS);
    asc_sync();
}
// The documented prototypes take `void *` (asc-devkit docs/zh/api/SIMD-API/C-API/vector_datamove/
// asc_copy_gm2ub/asc_copy_gm2ub_arch_2201.md: `asc_copy_gm2ub(__ubuf__ void* dst, __gm__ void* src, uint32_t
// size)`, cann-samples' vector_add_c_api calls them so): size bytes, copied as bytes.
#define TWIN_CAPI_VOID_COPY(NAME)                                                                                      \
    inline void NAME(void *dst, void *src, uint32_t size, TWIN_LOC) {                                                  \
        NAME(static_cast<uint8_t *>(dst), static_cast<uint8_t *>(src), size, TWIN_LOC_ARGS);                          \
    }
TWIN_CAPI_VOID_COPY(asc_copy_gm2ub)
TWIN_CAPI_VOID_COPY(asc_copy_ub2gm)
TWIN_CAPI_VOID_COPY(asc_copy_gm2ub_sync)
TWIN_CAPI_VOID_COPY(asc_copy_ub2gm_sync)
TWIN_CAPI_VOID_COPY(asc_copy_gm2ub_align)
TWIN_CAPI_VOID_COPY(asc_copy_ub2gm_align)
TWIN_CAPI_VOID_COPY(asc_copy_gm2ub_align_sync)
TWIN_CAPI_VOID_COPY(asc_copy_ub2gm_align_sync)
#undef TWIN_CAPI_VOID_COPY

// ---- repeat-form vector compute on UB arrays (vector_compute/asc_add.md ...): count elements ------------
#define TWIN_CAPI_VEC_BINARY(NAME, CXX)                                                                           \
    template <class T> inline void NAME(T *dst, T *src0, T *src1, uint32_t count, TWIN_LOC) {                    \
        AscendC::LocalTensor<T> d = twin_capi::ub_tensor(dst, count);                                             \
        AscendC::CXX(d, twin_capi::ub_tensor(src0, count),                                                        \
                     twin_capi::ub_tensor(src1, count), (int32_t)count, TWIN_LOC_ARGS);                           \
    }                                                                                                             \
    template <class T> inline void NAME##_sync(T *dst, T *src0, T *src1, uint32_t count, TWIN_LOC) {             \
        NAME(dst, src0, src1, count, TWIN_LOC_ARGS);                                                              \
        asc_sync();                                                                                               \
    }
TWIN_CAPI_VEC_BINARY(asc_add, Add)
TWIN_CAPI_VEC_BINARY(asc_sub, Sub)
TWIN_CAPI_VEC_BINARY(asc_mul, Mul)
TWIN_CAPI_VEC_BINARY(asc_div, Div)
TWIN_CAPI_VEC_BINARY(asc_max, Max)
TWIN_CAPI_VEC_BINARY(asc_min, Min)
#undef TWIN_CAPI_VEC_BINARY

// ---- register compute (reg/...): VL = 256 bytes per vector_<type> ---------------------------------------
// Masks (reg/reg_data_types/asc_update_mask.md, asc_create_mask.md).
inline vector_bool asc_update_mask_b8(uint32_t &value) { return AscendC::Reg::UpdateMask<uint8_t>(value); }
inline vector_bool asc_update_mask_b16(uint32_t &value) { return AscendC::Reg::UpdateMask<uint16_t>(value); }
inline vector_bool asc_update_mask_b32(uint32_t &value) { return AscendC::Reg::UpdateMask<uint32_t>(value); }
inline vector_bool asc_create_mask_b8(twin_capi_pat pat) { return twin_capi::mask_of<uint8_t>(pat); }
inline vector_bool asc_create_mask_b16(twin_capi_pat pat) { return twin_capi::mask_of<uint16_t>(pat); }
inline vector_bool asc_create_mask_b32(twin_capi_pat pat) { return twin_capi::mask_of<uint32_t>(pat); }

// Loads and stores (reg/reg_load/asc_loadalign.md, reg/reg_store/asc_storealign.md): VL bytes, 32-byte
// aligned; the offset forms address src + offset elements. asc_load / asc_store: the same, all lanes.
template <class T> inline void asc_loadalign(AscendC::Reg::RegTensor<T> &dst, T *src, TWIN_LOC) {
    AscendC::Reg::LoadAlign(dst, src, TWIN_LOC_ARGS);
}
template <class T> inline void asc_loadalign(AscendC::Reg::RegTensor<T> &dst, T *src, int32_t offset, TWIN_LOC) {
    AscendC::Reg::LoadAlign(dst, src + offset, TWIN_LOC_ARGS);
}
// The post-update forms (reg/reg_load/asc_loadalign_postupdate.md): load (store) at src (dst), then move
// the pointer on by `offset` elements.
template <class T> inline void asc_loadalign_postupdate(AscendC::Reg::RegTensor<T> &dst, T *&src, int32_t offset, TWIN_LOC) {
    AscendC::Reg::LoadAlign(dst, src, TWIN_LOC_ARGS);
    src += offset;
}
template <class T>
inline void asc_storealign_postupdate(T *&dst, AscendC::Reg::RegTensor<T> src, int32_t offset, vector_bool mask, TWIN_LOC) {
    AscendC::Reg::StoreAlign(dst, src, mask, TWIN_LOC_ARGS);
    dst += offset;
}
// The mask-register form (reg/reg_load/asc_loadalign_postupdate.md, "普通搬运"): VL/8 = 32 bytes of UB, bit k
// (least significant first within each byte) the predicate of byte lane k, so lane i of a b32 operand is bit 4*i;
// then src moves on by `offset` bytes. The unit is bytes: the select example's data (scripts/gen_data.py: one
// 32-byte MaskReg per repeat, `mask_rep_size = asc_get_vf_len() / 8`) only lines up so.
inline void asc_loadalign_postupdate(vector_bool &dst, uint32_t *&src, int32_t offset, TWIN_LOC) {
    twin_reg::load_mask(dst, src, "RegLoadAlign", TWIN_LOC_ARGS);
    src = (uint32_t *)((uintptr_t)src + (intptr_t)offset);
}
template <class T> inline void asc_load(AscendC::Reg::RegTensor<T> &dst, T *src, TWIN_LOC) {
    AscendC::Reg::LoadAlign(dst, src, TWIN_LOC_ARGS);
}
template <class T> inline void asc_storealign(T *dst, AscendC::Reg::RegTensor<T> src, vector_bool mask, TWIN_LOC) {
    AscendC::Reg::StoreAlign(dst, src, mask, TWIN_LOC_ARGS);
}
template <class T>
inline void asc_storealign(T *dst, AscendC::Reg::RegTensor<T> src, int32_t offset, vector_bool mask, TWIN_LOC) {
    AscendC::Reg::StoreAlign(dst + offset, src, mask, TWIN_LOC_ARGS);
}
template <class T> inline void asc_store(T *dst, AscendC::Reg::RegTensor<T> src, TWIN_LOC) {
    vector_bool all = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
    AscendC::Reg::StoreAlign(dst, src, all, TWIN_LOC_ARGS);
}

// Arithmetic (reg/arithmetic_compute/*.md): lanes the mask leaves out are zeroed in dst.
#define TWIN_CAPI_REG_BINARY(NAME, CXX)                                                                             \
    template <class T>                                                                                              \
    inline void NAME(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src0, AscendC::Reg::RegTensor<T> src1, \
                     vector_bool mask, TWIN_LOC) {                                                                  \
        AscendC::Reg::CXX(dst, src0, src1, mask, TWIN_LOC_ARGS);                                                    \
    }
TWIN_CAPI_REG_BINARY(asc_add, Add)
TWIN_CAPI_REG_BINARY(asc_sub, Sub)
TWIN_CAPI_REG_BINARY(asc_mul, Mul)
TWIN_CAPI_REG_BINARY(asc_div, Div)
TWIN_CAPI_REG_BINARY(asc_max, Max)
TWIN_CAPI_REG_BINARY(asc_min, Min)
#undef TWIN_CAPI_REG_BINARY
#define TWIN_CAPI_REG_SCALAR(NAME, CXX)                                                                             \
    template <class T, class S>                                                                                     \
    inline void NAME(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src, S value, vector_bool mask,    \
                     TWIN_LOC) {                                                                                    \
        AscendC::Reg::CXX(dst, src, (T)value, mask, TWIN_LOC_ARGS);                                                 \
    }
TWIN_CAPI_REG_SCALAR(asc_add_scalar, Adds)
TWIN_CAPI_REG_SCALAR(asc_mul_scalar, Muls)
TWIN_CAPI_REG_SCALAR(asc_max_scalar, Maxs)
TWIN_CAPI_REG_SCALAR(asc_min_scalar, Mins)
#undef TWIN_CAPI_REG_SCALAR
#define TWIN_CAPI_REG_UNARY(NAME, CXX)                                                                              \
    template <class T>                                                                                              \
    inline void NAME(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src, vector_bool mask, TWIN_LOC) { \
        AscendC::Reg::CXX(dst, src, mask, TWIN_LOC_ARGS);                                                           \
    }
TWIN_CAPI_REG_UNARY(asc_abs, Abs)
TWIN_CAPI_REG_UNARY(asc_exp, Exp)
TWIN_CAPI_REG_UNARY(asc_ln, Ln)
TWIN_CAPI_REG_UNARY(asc_sqrt, Sqrt)
TWIN_CAPI_REG_UNARY(asc_relu, Relu)
TWIN_CAPI_REG_UNARY(asc_neg, Neg)
#undef TWIN_CAPI_REG_UNARY

// Floor (reg/data_type_convert/asc_floor.md): each active lane rounded toward minus infinity, kept in its
// floating type (half, bfloat16, float); lanes the mask leaves out are zeroed.
template <class T> inline void asc_floor(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src, vector_bool mask, TWIN_LOC) {
    AscendC::Reg::Truncate<T, AscendC::RoundMode::CAST_FLOOR>(dst, src, mask, TWIN_LOC_ARGS);
}

// Index generation (reg/index_operate/asc_arange.md): lane i takes value + i (ascending), or
// value + VL_T - 1 - i (descending), for int8/int16/int32/half/float registers.
template <class T, class S> inline void asc_arange(AscendC::Reg::RegTensor<T> &dst, S value, TWIN_LOC) {
    twin_reg::arange(dst, (T)value, false, TWIN_LOC_ARGS);
}
template <class T, class S> inline void asc_arange_descend(AscendC::Reg::RegTensor<T> &dst, S value, TWIN_LOC) {
    twin_reg::arange(dst, (T)value, true, TWIN_LOC_ARGS);
}

// Pairwise sum (reg/reduce_compute/asc_pair_reduce_sum.md): dst lane k = src[2k] + src[2k+1] for the low half,
// a lane the mask leaves out counted as 0; the high half of dst is 0.
template <class T>
inline void asc_pair_reduce_sum(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src, vector_bool mask, TWIN_LOC) {
    AscendC::Reg::PairReduceElem(dst, src, mask, TWIN_LOC_ARGS);
}

// Fill (reg/data_fill/asc_duplicate_scalar.md): the active lanes take the value (all lanes without a mask).
template <class T, class S>
inline void asc_duplicate_scalar(AscendC::Reg::RegTensor<T> &dst, S value, vector_bool mask, TWIN_LOC) {
    AscendC::Reg::Duplicate(dst, (T)value, mask, TWIN_LOC_ARGS);
}
template <class T, class S> inline void asc_duplicate_scalar(AscendC::Reg::RegTensor<T> &dst, S value, TWIN_LOC) {
    AscendC::Reg::Duplicate(dst, (T)value, TWIN_LOC_ARGS);
}

// Compare and select (reg/compare_and_select/asc_gt.md ..., asc_select.md): dst is the predicate of the
// active lanes where the comparison holds; select takes src0 where the mask is set, src1 elsewhere.
#define TWIN_CAPI_REG_CMP(NAME, MODE)                                                                               \
    template <class T>                                                                                              \
    inline void NAME(vector_bool &dst, AscendC::Reg::RegTensor<T> src0, AscendC::Reg::RegTensor<T> src1,            \
                     vector_bool mask, TWIN_LOC) {                                                                  \
        AscendC::Reg::Compare<T, AscendC::CMPMODE::MODE>(dst, src0, src1, mask, TWIN_LOC_ARGS);                     \
    }                                                                                                               \
    template <class T, class S>                                                                                     \
    inline void NAME##_scalar(vector_bool &dst, AscendC::Reg::RegTensor<T> src0, S value, vector_bool mask,         \
                              TWIN_LOC) {                                                                           \
        AscendC::Reg::CompareScalar<T, AscendC::CMPMODE::MODE>(dst, src0, (T)value, mask, TWIN_LOC_ARGS);           \
    }
TWIN_CAPI_REG_CMP(asc_eq, EQ)
TWIN_CAPI_REG_CMP(asc_ne, NE)
TWIN_CAPI_REG_CMP(asc_gt, GT)
TWIN_CAPI_REG_CMP(asc_ge, GE)
TWIN_CAPI_REG_CMP(asc_lt, LT)
TWIN_CAPI_REG_CMP(asc_le, LE)
#undef TWIN_CAPI_REG_CMP
template <class T>
inline void asc_select(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src0, AscendC::Reg::RegTensor<T> src1,
                       vector_bool mask, TWIN_LOC) {
    AscendC::Reg::Select(dst, src0, src1, mask, TWIN_LOC_ARGS);
}

// Reductions (reg/reduce_compute/asc_reduce_sum.md ...): lane 0 takes the sum / max / min of the active
// lanes, the other lanes zero.
template <class T> inline void asc_reduce_sum(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src, vector_bool mask, TWIN_LOC) {
    AscendC::Reg::Reduce<AscendC::Reg::ReduceType::SUM>(dst, src, mask, TWIN_LOC_ARGS);
}
template <class T> inline void asc_reduce_max(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src, vector_bool mask, TWIN_LOC) {
    AscendC::Reg::Reduce<AscendC::Reg::ReduceType::MAX>(dst, src, mask, TWIN_LOC_ARGS);
}
template <class T> inline void asc_reduce_min(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src, vector_bool mask, TWIN_LOC) {
    AscendC::Reg::Reduce<AscendC::Reg::ReduceType::MIN>(dst, src, mask, TWIN_LOC_ARGS);
}

// Gather (reg/reg_load/asc_gather.md). Register form: dst[i] = src[index[i] % lanes] (the page: an index
// past the register wraps), index of the element width. UB form: the active lanes take the element at
// src + index[i] elements (src 32-byte aligned), the others 0; a b8 source into a b16 register is
// zero-extended. The UB form with a 32-bit index into a 16-bit register is not modelled (a build error).
template <class T, class I>
inline void asc_gather(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src, AscendC::Reg::RegTensor<I> index,
                       TWIN_LOC) {
    static_assert(sizeof(I) == sizeof(T) && !std::is_signed<I>::value, "asc_gather: the index is unsigned, of src's width");
    constexpr uint32_t lanes = AscendC::Reg::RegTensor<T>::kLanes;
    AscendC::Reg::RegTensor<T> out;
    for (uint32_t i = 0; i < lanes; i++) out.set(i, src.get((uint32_t)(index.get(i) % lanes)));
    dst = out;
    twin_reg::trace<T>("RegGather", lanes, TWIN_LOC_ARGS);
}
template <class D, class S, class I>
inline void asc_gather(AscendC::Reg::RegTensor<D> &dst, S *src, AscendC::Reg::RegTensor<I> index, vector_bool mask, TWIN_LOC) {
    static_assert(sizeof(I) == sizeof(D) && !std::is_signed<I>::value,
                  "asc_gather (UB): the twin models an unsigned index of the destination's width");
    static_assert(sizeof(S) == sizeof(D) || (sizeof(S) == 1 && sizeof(D) == 2),
                  "asc_gather (UB): the source has the destination's width, or is b8 into b16");
    constexpr uint32_t lanes = AscendC::Reg::RegTensor<D>::kLanes;
    const uint64_t base = twin::ub_addr_of_ptr(src);
    if (base % 32 != 0) twin::fault(twin_file, twin_line, "asc_gather: UB source address %llu is not 32-byte aligned",
                                    (unsigned long long)base);
    AscendC::Reg::RegTensor<D> out;
    for (uint32_t i = 0; i < lanes; i++) {
        if (!twin_reg::on<D>(mask, i)) continue;
        const uint8_t *p = twin::ub_span(base + (uint64_t)index.get(i) * sizeof(S), sizeof(S), "asc_gather", TWIN_LOC_ARGS);
        if constexpr (sizeof(S) == sizeof(D)) out.set(i, twin::ld<D>(p));
        else out.set(i, (D)(uint16_t)p[0]);
    }
    dst = out;
    twin_reg::trace<D>("RegGather", lanes, TWIN_LOC_ARGS);
}

// Squeeze (reg/compare_and_select/asc_squeeze.md): the active lanes of src, in order, packed into the low
// lanes of dst; the rest of dst 0.
template <class T>
inline void asc_squeeze(AscendC::Reg::RegTensor<T> &dst, AscendC::Reg::RegTensor<T> src, vector_bool mask, TWIN_LOC) {
    constexpr uint32_t lanes = AscendC::Reg::RegTensor<T>::kLanes;
    AscendC::Reg::RegTensor<T> out;
    uint32_t n = 0;
    for (uint32_t i = 0; i < lanes; i++)
        if (twin_reg::on<T>(mask, i)) out.set(n++, src.get(i));
    dst = out;
    twin_reg::trace<T>("RegSqueeze", lanes, TWIN_LOC_ARGS);
}

// Frequency histogram (reg/histogram_compute/asc_frequency_histogram.md): for every active lane of the
// uint8_t src, dst[v] += 1 for v in [0, 127] (bin0) or dst[v - 128] += 1 for v in [128, 255] (bin1),
// added to dst's values, uint16_t wrapping.
template <int Bin>
inline void twin_capi_histogram(vector_uint16_t &dst, const vector_uint8_t &src, const vector_bool &mask, TWIN_LOC_DECL) {
    for (uint32_t i = 0; i < vector_uint8_t::kLanes; i++) {
        if (!twin_reg::on<uint8_t>(mask, i)) continue;
        const uint32_t v = src.get(i);
        if ((v >> 7) != (uint32_t)Bin) continue;
        dst.set(v & 127u, (uint16_t)(dst.get(v & 127u) + 1u));
    }
    twin_reg::trace<uint8_t>(Bin == 0 ? "RegHistogramBin0" : "RegHistogramBin1", vector_uint8_t::kLanes, TWIN_LOC_ARGS);
}
inline void asc_frequency_histogram_bin0(vector_uint16_t &dst, vector_uint8_t src, vector_bool mask, TWIN_LOC) {
    twin_capi_histogram<0>(dst, src, mask, TWIN_LOC_ARGS);
}
inline void asc_frequency_histogram_bin1(vector_uint16_t &dst, vector_uint8_t src, vector_bool mask, TWIN_LOC) {
    twin_capi_histogram<1>(dst, src, mask, TWIN_LOC_ARGS);
}
