// twin: positions, tensors, queues, the pipe and synchronisation.
#pragma once
#include <cstdint>
#include <type_traits>
#include "half.h"
#include "runtime.h"

// Hardware pipes (a global enum in the real toolchain).
enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX };

namespace AscendC {

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM,
    C2PIPE2GM, C2PIPE2LOCAL, MAX
};
using QuePosition = TPosition;
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t DEFAULT_BLK_NUM = 8;
constexpr int32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr int32_t BLOCK_CUBE = 16;
constexpr int32_t MAX_REPEAT_TIMES = 255;
constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr int32_t ONE_BYTE_BIT_SIZE = 8;
// More of the kernel library's named constants (same header): the fractal's C0 side in bytes (asc-devkit's
// data_copy_l0c2gm example sizes its Nz copies with DEFAULT_C0_SIZE), a repeat in bytes, the strides of
// half- and quarter-width repeats, the full vector mask, and the L0A / L0B sizes of the cube.
constexpr int32_t DEFAULT_C0_SIZE = 32;
constexpr int32_t DEFAULT_BLOCK_SIZE = 256;
constexpr int32_t MIN_REPEAT_TIMES = 0;
constexpr uint8_t HALF_DEFAULT_REPEAT_STRIDE = 4;
constexpr uint8_t ONE_FOURTH_DEFAULT_REPEAT_STRIDE = 2;
constexpr uint64_t FULL_MASK = 0xffffffffffffffffull;
constexpr uint16_t MAX_HALF_MASK_LEN = 64;
constexpr uint16_t MASK_ARRAY_SIZE = 4;
constexpr uint32_t TOTAL_L0A_SIZE = 64 * 1024;
constexpr uint32_t TOTAL_L0B_SIZE = 64 * 1024;
// Element counts of a 32-byte block and of a 256-byte repeat, as the kernel library names them
// (asc-devkit impl/basic_api/utils/kernel_utils_constants.h); ops-nn's add_layer_norm kernels read
// ONE_BLK_FLOAT_NUM unqualified after `using namespace AscendC`.
constexpr uint8_t B32_BYTE_SIZE = 4;
// Elements Brcb spreads per repeat, one to each of its 8 destination blocks (same header, used by
// ops-nn's add_layer_norm to align its Brcb row steps).
constexpr uint32_t BRCB_BROADCAST_NUMBER = 8;
constexpr uint8_t B16_BYTE_SIZE = 2;
constexpr uint32_t ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE / B32_BYTE_SIZE;
constexpr uint32_t ONE_BLK_HALF_NUM = ONE_BLK_SIZE / B16_BYTE_SIZE;
constexpr uint32_t HALF_REPEAT_SIZE = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
constexpr uint32_t FLOAT_REPEAT_SIZE = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
constexpr uint32_t ONE_REPEAT_FLOAT_SIZE = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
constexpr uint32_t ONE_REPEAT_HALF_SIZE = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
constexpr uint32_t MAX_REPEAT_FLOAT_SIZE = ONE_REPEAT_FLOAT_SIZE * MAX_REPEAT_TIMES;
constexpr uint32_t MAX_REPEAT_HALF_SIZE = ONE_REPEAT_HALF_SIZE * MAX_REPEAT_TIMES;
// The vector register's width in bytes, the same on every architecture the kernel library names
// (kernel_utils_constants.h): dav-3510 vector functions size their loops by it (hicann/cann-samples'
// vector_function_add: `AscendC::VECTOR_REG_WIDTH / sizeof(T)` elements per instruction); equal to
// GetVecLen() on the twin's register core.
constexpr uint32_t VECTOR_REG_WIDTH = 256;
// The float32 infinities and quiet NaN as bit patterns (kernel_utils_constants.h); ops-transformer's
// moe_gating_top_k reads its -inf as `*(float *)(&F32_NEG_INF)`.
const uint32_t F32_INF = 0x7f800000;
const uint32_t F32_NEG_INF = 0xff800000;
const uint32_t F32_NAN = 0x7fc00000;
// The rest of the element-size family of the same header: byte sizes, elements per 32-byte block and
// per 256-byte repeat, the mask lengths of a float / half repeat, a fractal's bytes, and the 16 MB of
// workspace the system keeps on dav-2201 (ops-nn's multi_scale_deformable_attn_function aligns its
// point counts to B32_DATA_NUM_PER_BLOCK unqualified after `using namespace AscendC`).
constexpr uint8_t B64_BYTE_SIZE = 8;
constexpr uint8_t B8_BYTE_SIZE = 1;
constexpr uint8_t B32_DATA_NUM_PER_BLOCK = ONE_BLK_SIZE / B32_BYTE_SIZE;
constexpr uint8_t B16_DATA_NUM_PER_BLOCK = ONE_BLK_SIZE / B16_BYTE_SIZE;
constexpr int32_t B32_DATA_NUM_PER_REPEAT = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
constexpr int32_t B16_DATA_NUM_PER_REPEAT = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
constexpr int32_t FULL_MASK_LEN = 128;
constexpr int32_t HALF_MASK_LEN = 64;
constexpr int32_t BYTE_PER_FRACTAL = 512;
constexpr size_t RESERVED_WORKSPACE = 16 * 1024 * 1024;
constexpr uint16_t DEFAULT_DATA_COPY_NBURST = 1; // DataCopyParams defaults: one burst, no gaps
constexpr uint16_t DEFAULT_DATA_COPY_STRIDE = 0;

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1,
    MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2,
    MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};

using TEventID = int8_t;

} // namespace AscendC
#include "mem.h"

namespace twin {
using AscendC::HardEvent;
using AscendC::TPosition;

constexpr Pipe ev_src(HardEvent e) {
    switch (e) {
    case HardEvent::MTE2_MTE1: case HardEvent::MTE2_V: case HardEvent::MTE2_M: case HardEvent::MTE2_MTE3:
    case HardEvent::MTE2_S: case HardEvent::MTE2_FIX: return P_MTE2;
    case HardEvent::MTE1_MTE2: case HardEvent::MTE1_M: case HardEvent::MTE1_MTE3: case HardEvent::MTE1_V:
    case HardEvent::MTE1_FIX: return P_MTE1;
    case HardEvent::M_MTE1: case HardEvent::M_V: case HardEvent::M_MTE2: case HardEvent::M_FIX:
    case HardEvent::M_S: return P_M;
    case HardEvent::V_MTE2: case HardEvent::V_MTE3: case HardEvent::V_M: case HardEvent::V_V:
    case HardEvent::V_MTE1: case HardEvent::V_S: return P_V;
    case HardEvent::MTE3_V: case HardEvent::MTE3_MTE1: case HardEvent::MTE3_MTE2: case HardEvent::MTE3_S: return P_MTE3;
    case HardEvent::FIX_M: case HardEvent::FIX_MTE2: case HardEvent::FIX_S: case HardEvent::FIX_MTE3:
    case HardEvent::FIX_MTE1: case HardEvent::FIX_FIX: return P_FIX;
    case HardEvent::S_V: case HardEvent::S_MTE2: case HardEvent::S_MTE3: return P_S;
    default: return P_NONE;
    }
}
constexpr Pipe ev_dst(HardEvent e) {
    switch (e) {
    case HardEvent::MTE1_MTE2: case HardEvent::V_MTE2: case HardEvent::M_MTE2: case HardEvent::MTE3_MTE2:
    case HardEvent::S_MTE2: case HardEvent::FIX_MTE2: return P_MTE2;
    case HardEvent::MTE2_MTE1: case HardEvent::M_MTE1: case HardEvent::MTE3_MTE1: case HardEvent::V_MTE1:
    case HardEvent::FIX_MTE1: return P_MTE1;
    case HardEvent::MTE1_M: case HardEvent::V_M: case HardEvent::MTE2_M: case HardEvent::FIX_M: return P_M;
    case HardEvent::MTE2_V: case HardEvent::MTE3_V: case HardEvent::M_V: case HardEvent::V_V:
    case HardEvent::MTE1_V: case HardEvent::S_V: return P_V;
    case HardEvent::V_MTE3: case HardEvent::MTE1_MTE3: case HardEvent::MTE2_MTE3: case HardEvent::S_MTE3:
    case HardEvent::FIX_MTE3: return P_MTE3;
    case HardEvent::M_FIX: case HardEvent::MTE2_FIX: case HardEvent::MTE1_FIX: case HardEvent::FIX_FIX: return P_FIX;
    case HardEvent::MTE2_S: case HardEvent::V_S: case HardEvent::MTE3_S: case HardEvent::FIX_S:
    case HardEvent::M_S: return P_S;
    default: return P_NONE;
    }
}
inline Pipe pipe_of(pipe_t p) {
    switch (p) {
    case PIPE_S: return P_S; case PIPE_V: return P_V; case PIPE_M: return P_M; case PIPE_MTE1: return P_MTE1;
    case PIPE_MTE2: return P_MTE2; case PIPE_MTE3: return P_MTE3; case PIPE_FIX: return P_FIX;
    default: return P_ALL;
    }
}
// Producer and consumer pipes of a queue bound from position src to position dst.
inline void que_pipes(TPosition src, TPosition dst, Pipe &prod, Pipe &cons) {
    prod = P_NONE; cons = P_NONE;
    if (src == TPosition::VECIN && dst == TPosition::VECIN) { prod = P_MTE2; cons = P_V; }
    else if (src == TPosition::VECOUT && dst == TPosition::VECOUT) { prod = P_V; cons = P_MTE3; }
    else if (src == TPosition::VECIN && dst == TPosition::VECOUT) { prod = P_MTE2; cons = P_MTE3; }
    else if (src == TPosition::GM && dst == TPosition::VECIN) { prod = P_MTE2; cons = P_V; }
    else if (src == TPosition::VECOUT && dst == TPosition::GM) { prod = P_V; cons = P_MTE3; }
    else if (dst == TPosition::A1 || dst == TPosition::B1 || dst == TPosition::C1) { prod = P_MTE2; cons = P_MTE1; }
    else if (dst == TPosition::A2 || dst == TPosition::B2) { prod = P_MTE1; cons = P_M; }
    else if (dst == TPosition::CO1) { prod = P_M; cons = P_FIX; }
    else if (dst == TPosition::CO2) { prod = P_FIX; cons = P_MTE3; }
}
// Whether a position lives in the L1 buffer (asc-devkit docs, "TPosition": A1 / B1 / C1). Which buffer
// every position lives in, and local_span, the bytes of a local tensor: mem.h.
inline bool pos_is_l1(TPosition p) { return p == TPosition::A1 || p == TPosition::B1 || p == TPosition::C1; }
inline const char *pos_name(TPosition p) {
    switch (p) {
    case TPosition::GM: return "GM"; case TPosition::VECIN: return "VECIN"; case TPosition::VECOUT: return "VECOUT";
    case TPosition::VECCALC: return "VECCALC"; case TPosition::A1: return "A1"; case TPosition::B1: return "B1";
    case TPosition::A2: return "A2"; case TPosition::B2: return "B2"; case TPosition::CO1: return "CO1";
    case TPosition::CO2: return "CO2"; default: return "?";
    }
}
} // namespace twin

namespace AscendC {

template <class T> class LocalTensor;

// int4b_t: a 4-bit signed integer, two to a byte, the lower-addressed element in the low nibble. As
// the asc-devkit Cast page and its cast_int4b_t sample show, kernels get one by reinterpreting an
// int8_t (or uint8_t) tensor, then Cast into it. The twin keeps one byte per object; a
// LocalTensor<int4b_t> counts its elements (and offsets) in nibbles.
struct int4b_t {
    uint8_t storage = 0;
};
template <class T> constexpr uint32_t twin_elem_bits() { return std::is_same<T, int4b_t>::value ? 4u : (uint32_t)sizeof(T) * 8u; }
template <class T> class GlobalTensor;

// ShapeInfo and DataFormat (asc-devkit docs/zh/api/SIMD-API/基础API/辅助数据结构/ShapeInfo.md): a tensor's
// shape, original shape and layout, as LocalTensor / GlobalTensor::SetShapeInfo keep it; GetShapeSize is
// the product of the shape's dims. ops-transformer's common/include/kernel/util.h names both.
enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC };
constexpr uint32_t K_MAX_DIM = 8;
struct ShapeInfo {
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[K_MAX_DIM] = {0};
    uint32_t originalShape[K_MAX_DIM] = {0};
    DataFormat dataFormat = DataFormat::ND;
    ShapeInfo() = default;
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[], const uint8_t inputOriginalShapeDim,
              const uint32_t inputOriginalShape[], const DataFormat inputFormat)
        : shapeDim(inputShapeDim), originalShapeDim(inputOriginalShapeDim), dataFormat(inputFormat) {
        for (uint32_t i = 0; i < inputShapeDim && i < K_MAX_DIM; i++) shape[i] = inputShape[i];
        for (uint32_t i = 0; i < inputOriginalShapeDim && i < K_MAX_DIM; i++) originalShape[i] = inputOriginalShape[i];
    }
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[], const DataFormat inputFormat)
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat) {}
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[])
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, DataFormat::ND) {}
};
inline int GetShapeSize(const ShapeInfo &shapeInfo) {
    int n = 1;
    for (uint32_t i = 0; i < shapeInfo.shapeDim && i < K_MAX_DIM; i++) n *= (int)shapeInfo.shape[i];
    return n;
}

// ---------------------------------------------------------------------------------------------
// Whole-tensor operator overloads of LocalTensor (asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/
// 基础算术/Add.md, Sub.md, Mul.md, Div.md, And.md, Or.md and 比较与选择/Compare.md, "整个Tensor参与计算"):
// `dst = a + b` (- * / & |) runs the count form of the API over dst.GetSize() elements, And / Or of
// 32-bit elements as their 16-bit halves (twice the count); `dst = a < b` (> <= >= == !=) runs
// Compare(dst, a, b, CMPMODE::..., a.GetSize()), the bit mask into dst. The operators build one of
// these small records; LocalTensor's operator= (defined after the vector APIs, at the end of vec.h)
// makes the API call. The right operand's implicit conversion to Operand captures the caller's file
// and line (an operator can take no default argument), so faults and trace records name the user's
// line, as a direct call would.
// ---------------------------------------------------------------------------------------------
enum class CMPMODE : uint8_t; // vec.h
namespace twin_sym {
enum class Arith : uint8_t { ADD, SUB, MUL, DIV, AND, OR };
template <class T> struct Operand {
    const LocalTensor<T> &t;
    twin::SrcFile file;
    int line;
    Operand(const LocalTensor<T> &t_, TWIN_LOC) : t(t_), file(twin_file), line(twin_line) {}
};
template <class T, Arith K> struct ArithExpr {
    const LocalTensor<T> &a;
    const LocalTensor<T> &b;
    twin::SrcFile file;
    int line;
};
template <class T> struct CmpExpr {
    const LocalTensor<T> &a;
    const LocalTensor<T> &b;
    CMPMODE mode;
    twin::SrcFile file;
    int line;
};
} // namespace twin_sym

// A queue buffer's handle (basic_api/kernel_tpipe.h, `using TBufHandle = uint8_t*` in
// kernel_tensor_base.h): what the handle forms `TBufHandle DeQue()` and `EnQue(TBufHandle)` pass. The
// twin's handle is the buffer's byte address plus one, never dereferenced; only a queue reads it back.
using TBufHandle = uint8_t *;

// TBuffAddr (asc-devkit impl/basic_api/kernel_tensor_base.h declares it; its use is the Matmul library's
// cube_in_buffer: `tensor.SetAddr(que.GetBufferAddr(handle))` after `handle = tensor.GetBufferHandle()`):
// a buffer's length in bytes, byte address in its memory, handle and logical position. Kernels keep
// one to point a LocalTensor back at a buffer they hold (ops-transformer's mla_prolog keeps its L1 / L0
// buffers so). The device's CPU-debug build adds a host pointer, which the twin leaves out.
struct TBuffAddr {
    uint32_t dataLen = 0;
    uint32_t bufferAddr = 0;
    TBufHandle bufferHandle = nullptr;
    uint8_t logicPos = 0;
};

// ---------------------------------------------------------------------------------------------
// LocalTensor<T>: a view of the UB arena: byte address, element count, logical position.
// Every element access is bounds-checked against the arena.
// ---------------------------------------------------------------------------------------------
template <class T> class LocalTensor {
public:
    using PrimType = T;
    uint32_t addr_ = 0;
    uint32_t size_ = 0; // elements
    TPosition pos_ = TPosition::VECCALC;
    uint32_t tag_ = 0;

    LocalTensor() = default;
    LocalTensor(uint32_t addr, uint32_t size, TPosition pos) : addr_(addr), size_(size), pos_(pos) {}
    // Static tensor programming: a tensor of tileSize elements at byte address addr of the memory that
    // pos lives in: the UB for VECIN / VECOUT / VECCALC, the L1 buffer for A1 / B1 / C1 (asc-devkit
    // docs, "LocalTensor constructor", atlasascendc_api_07_00101; addr must be 32-byte aligned).
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize) : addr_(addr), size_(tileSize), pos_(pos) {}

    LocalTensor operator[](uint32_t offset) const {
        LocalTensor r(*this);
        r.addr_ = addr_ + (uint32_t)((uint64_t)offset * twin_elem_bits<T>() / 8);
        r.size_ = offset <= size_ ? size_ - offset : 0;
        return r;
    }
    T GetValue(uint32_t i, TWIN_LOC) const {
        const uint8_t *p = twin::local_span(pos_, (uint64_t)addr_ + (uint64_t)i * sizeof(T), sizeof(T), "GetValue", TWIN_LOC_ARGS);
        twin::tr_scalar("GetValue", twin_line);
        return twin::ld<T>(p);
    }
    template <class U> void SetValue(uint32_t i, U v, TWIN_LOC) const {
        uint8_t *p = twin::local_span(pos_, (uint64_t)addr_ + (uint64_t)i * sizeof(T), sizeof(T), "SetValue", TWIN_LOC_ARGS);
        twin::tr_scalar("SetValue", twin_line);
        twin::st<T>(p, (T)v);
    }
    // operator(): a reference into UB (scalar access)
    T &operator()(uint32_t i) const {
        uint8_t *p = twin::local_span(pos_, (uint64_t)addr_ + (uint64_t)i * sizeof(T), sizeof(T), "LocalTensor::operator()", __builtin_FILE(), __builtin_LINE());
        return *reinterpret_cast<T *>(p);
    }
    uint32_t GetSize() const { return size_; }
    uint32_t GetLength() const { return size_ * (uint32_t)sizeof(T); }
    void SetSize(uint32_t n) { size_ = n; }
    TPosition GetPosition() const { return pos_; }
    uint64_t twin_phy(uint64_t addr) const {
        return twin::hw_of(pos_) == twin::HW_UB && twin::g.ub != nullptr ? (uint64_t)(uintptr_t)(twin::g.ub + addr) : addr;
    }
    // GetPhyAddr: of a UB tensor, a host pointer into the block's UB arena (kernels dereference
    // `(__ubuf__ T *)x.GetPhyAddr()`; twin::ub_addr_of_ptr takes it back to a UB address); of an L1 / L0
    // tensor, its byte address in that buffer.
    uint64_t GetPhyAddr() const { return twin_phy(addr_); }
    uint64_t GetPhyAddr(uint32_t offset) const { return twin_phy(addr_ + offset * sizeof(T)); }
    void SetAddrWithOffset(const LocalTensor<T> &src, uint32_t offset) {
        addr_ = src.addr_ + offset * (uint32_t)sizeof(T);
        size_ = src.size_ > offset ? src.size_ - offset : 0;
        pos_ = src.pos_;
    }
    template <class U> void SetAddrWithOffset(const LocalTensor<U> &src, uint32_t offset) {
        addr_ = src.addr_ + offset * (uint32_t)sizeof(U);
        size_ = (uint32_t)((uint64_t)(src.size_ > offset ? src.size_ - offset : 0) * sizeof(U) / sizeof(T));
        pos_ = src.pos_;
    }
    // The buffer handle of the tensor's start (the twin's handle: byte address plus one, as DeQue()'s),
    // and SetAddr, which points the tensor at what a TBuffAddr names: its address, its length in
    // elements and its position.
    TBufHandle GetBufferHandle() const { return reinterpret_cast<TBufHandle>((uintptr_t)addr_ + 1u); }
    void SetAddr(const TBuffAddr &a) {
        addr_ = a.bufferAddr;
        size_ = (uint32_t)((uint64_t)a.dataLen * 8u / twin_elem_bits<T>());
        pos_ = (TPosition)a.logicPos;
    }
    template <class U> LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> r;
        r.addr_ = addr_;
        r.size_ = (uint32_t)((uint64_t)size_ * twin_elem_bits<T>() / twin_elem_bits<U>());
        r.pos_ = pos_;
        r.tag_ = tag_;
        return r;
    }
    void SetUserTag(uint32_t t) { tag_ = t; }
    uint32_t GetUserTag() const { return tag_; }
    void SetShapeInfo(const ShapeInfo &info) { shape_info_ = info; }
    ShapeInfo GetShapeInfo() const { return shape_info_; }
    ShapeInfo shape_info_;
    // The whole-tensor operators (twin_sym above). The implicit copy assignment stays as it is.
#define TWIN_SYM_ARITH(OP, KIND)                                                                          \
    twin_sym::ArithExpr<T, twin_sym::Arith::KIND> operator OP(const twin_sym::Operand<T> &b) const {     \
        return {*this, b.t, b.file, b.line};                                                               \
    }
    TWIN_SYM_ARITH(+, ADD)
    TWIN_SYM_ARITH(-, SUB)
    TWIN_SYM_ARITH(*, MUL)
    TWIN_SYM_ARITH(/, DIV)
    TWIN_SYM_ARITH(&, AND)
    TWIN_SYM_ARITH(|, OR)
#undef TWIN_SYM_ARITH
    twin_sym::CmpExpr<T> operator<(const twin_sym::Operand<T> &b) const;
    twin_sym::CmpExpr<T> operator>(const twin_sym::Operand<T> &b) const;
    twin_sym::CmpExpr<T> operator<=(const twin_sym::Operand<T> &b) const;
    twin_sym::CmpExpr<T> operator>=(const twin_sym::Operand<T> &b) const;
    twin_sym::CmpExpr<T> operator==(const twin_sym::Operand<T> &b) const;
    twin_sym::CmpExpr<T> operator!=(const twin_sym::Operand<T> &b) const;
    template <twin_sym::Arith K> void operator=(const twin_sym::ArithExpr<T, K> &e);
    template <class S> void operator=(const twin_sym::CmpExpr<S> &e);

    // Raw host pointer (twin only; UB tensors).
    T *TwinPtr() const { return reinterpret_cast<T *>(g_ub_base() + addr_); }

private:
    static uint8_t *g_ub_base() { return twin::g.ub; }
};

enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL = 1, CACHE_MODE_LAST = 2, CACHE_MODE_PERSISTENT = 4 };
// Reserved read/write selector of SetL2CacheHint (docs/zh/api/SIMD-API/基础API/数据结构/GlobalTensor/
// SetL2CacheHint.md: "reserved, use the default").
enum CacheRwMode : uint8_t { READ = 1, WRITE = 2, RW = 3 };

// ---------------------------------------------------------------------------------------------
// GlobalTensor<T>: a pointer into a GM allocation. Accesses are checked against the allocation.
// ---------------------------------------------------------------------------------------------
template <class T> class GlobalTensor {
public:
    using PrimType = T;
    T *ptr_ = nullptr;
    uint64_t size_ = 0;
    // The address SetGlobalBuffer got: accesses are checked against the allocation holding it
    // (twin::gm_check_in), however far an index moves ptr_.
    const void *origin_ = nullptr;
    // The L2 cache mode of this tensor's accesses (SetL2CacheHint; CACHE_MODE_NORMAL unless set). The
    // twin moves data the same either way; its GM copy records carry the mode as `cache=` for the model.
    CacheMode cache_ = CacheMode::CACHE_MODE_NORMAL;

    GlobalTensor() = default;
    void SetGlobalBuffer(T *p, uint64_t n) { ptr_ = p; size_ = n; origin_ = p; }
    void SetGlobalBuffer(T *p) { ptr_ = p; size_ = 0; origin_ = p; }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor r;
        r.ptr_ = ptr_ + offset;
        r.origin_ = origin_;
        r.size_ = offset <= size_ ? size_ - offset : 0;
        r.cache_ = cache_;
        return r;
    }
    T GetValue(uint64_t i, TWIN_LOC) const {
        uint64_t off = twin::gm_check_in(origin_, ptr_ + i, sizeof(T), false, "GlobalTensor::GetValue", TWIN_LOC_ARGS);
        twin::tr_scalar("GetValue", twin_line, (int64_t)off);
        return twin::ld<T>(reinterpret_cast<const uint8_t *>(ptr_ + i));
    }
    template <class U> void SetValue(uint64_t i, U v, TWIN_LOC) const {
        uint64_t off = twin::gm_check_in(origin_, ptr_ + i, sizeof(T), true, "GlobalTensor::SetValue", TWIN_LOC_ARGS);
        twin::tr_scalar("SetValue", twin_line, (int64_t)off);
        twin::st<T>(reinterpret_cast<uint8_t *>(ptr_ + i), (T)v);
    }
    T &operator()(uint64_t i) const {
        twin::gm_check_in(origin_, ptr_ + i, sizeof(T), true, "GlobalTensor::operator()", __builtin_FILE(), __builtin_LINE());
        return ptr_[i];
    }
    uint64_t GetSize() const { return size_; }
    T *GetPhyAddr() const { return ptr_; }
    T *GetPhyAddr(uint64_t offset) const { return ptr_ + offset; }
    // asc-devkit docs/zh/api/SIMD-API/基础API/数据结构/GlobalTensor/SetL2CacheHint.md: whether this
    // tensor's accesses use the L2 cache (default CACHE_MODE_NORMAL: they do). Kept as state of this
    // object; views taken with operator[] afterwards inherit it.
    template <CacheRwMode rwMode = CacheRwMode::RW> void SetL2CacheHint(CacheMode mode) { cache_ = mode; }
    CacheMode TwinCacheMode() const { return cache_; }
    template <class U> GlobalTensor<U> ReinterpretCast() const {
        GlobalTensor<U> r;
        r.ptr_ = reinterpret_cast<U *>(ptr_);
        r.origin_ = origin_;
        r.size_ = size_ * sizeof(T) / sizeof(U);
        r.cache_ = cache_;
        return r;
    }
    void SetShapeInfo(const ShapeInfo &info) { shape_info_ = info; }
    ShapeInfo GetShapeInfo() const { return shape_info_; }
    ShapeInfo shape_info_;
};

// ---------------------------------------------------------------------------------------------
// Queues and buffers.
// ---------------------------------------------------------------------------------------------
class TPipe;

struct TBufState {
    int qid = -1;
    uint32_t addr = 0;
    uint32_t len = 0;    // bytes per buffer (32 B aligned)
    uint32_t num = 0;
    uint32_t stride = 0; // bytes from one buffer to the next: len, or more under ASCEND_TWIN_UB_GAP (twin::ub_gap)
    uint32_t at(uint32_t i) const { return addr + i * stride; }
};

template <TPosition src, TPosition dst, int32_t depth = 1, auto mask = 0> class TQueBind {
public:
    static constexpr int MAXBUF = 64;
    enum St : uint8_t { FREE = 0, ALLOC, QUEUED, DEQUEUED };
    TBufState b_;
    uint8_t st_[MAXBUF] = {0};
    uint8_t freed_[MAXBUF] = {0};
    uint8_t fifo_[MAXBUF] = {0};
    uint32_t head_ = 0, count_ = 0;
    // AllocTensor hands out the queue's buffers in turn, from the one after the last it gave, as a ring:
    // with two buffers, the tile copied in next lands in the other buffer from the one the vector unit
    // is still computing on, which is what "num = 2 enables double buffer" means (asc-devkit
    // docs/zh/api/SIMD-API/基础API/资源管理/TPipe/InitBuffer.md, parameter `num`). Taking the lowest
    // free buffer instead would hand the just-freed buffer back and wait for its reader every tile.
    uint32_t cursor_ = 0;

    TQueBind() = default;

    void twin_init(int qid, uint32_t addr, uint32_t len, uint32_t num, uint32_t stride) {
        b_.qid = qid; b_.addr = addr; b_.len = len; b_.num = num; b_.stride = stride;
        for (int i = 0; i < MAXBUF; i++) { st_[i] = FREE; freed_[i] = 0; }
        head_ = 0; count_ = 0; cursor_ = 0;
    }
    int find(uint32_t addr) const {
        if (b_.num == 0 || addr < b_.addr) return -1;
        // Buffers of length 0 (InitBuffer carves nothing, zero_length) all sit at the queue's address:
        // the tensor names the buffer in use there, the one allocated or dequeued first.
        if (b_.stride == 0) {
            if (addr != b_.addr) return -1;
            for (uint32_t i = 0; i < b_.num; i++) if (st_[i] == ALLOC || st_[i] == DEQUEUED) return (int)i;
            for (uint32_t i = 0; i < b_.num; i++) if (st_[i] != FREE) return (int)i;
            return 0;
        }
        uint32_t k = (addr - b_.addr) / b_.stride;
        return k < b_.num && addr - b_.at(k) < b_.len ? (int)k : -1;
    }
    void need_init(const char *api, TWIN_LOC_DECL) const {
        if (b_.qid < 0) twin::fault(twin_file, twin_line, "%s: queue used before TPipe::InitBuffer", api);
    }

    template <class T> LocalTensor<T> AllocTensor(TWIN_LOC) {
        need_init("AllocTensor", TWIN_LOC_ARGS);
        for (uint32_t k = 0; k < b_.num; k++) {
            uint32_t i = (cursor_ + k) % b_.num;
            if (st_[i] == FREE) {
                st_[i] = ALLOC;
                cursor_ = (i + 1) % b_.num;
                twin::Pipe p, c; twin::que_pipes(src, dst, p, c);
                if (freed_[i] && p != twin::P_NONE) twin::tr_flag(false, c, p, 'q', b_.qid, (int)i);
                return LocalTensor<T>(b_.at(i), b_.len / (uint32_t)sizeof(T), dst);
            }
        }
        twin::fault(twin_file, twin_line,
                    "AllocTensor: no free buffer in queue q%d (%u buffers, all allocated or queued; FreeTensor missing?)",
                    b_.qid, b_.num);
    }
    template <class T> void AllocTensor(LocalTensor<T> &t, TWIN_LOC) { t = AllocTensor<T>(TWIN_LOC_ARGS); }

    template <class T> bool EnQue(const LocalTensor<T> &t, TWIN_LOC) { return enque(t, src, dst, TWIN_LOC_ARGS); }
    // EnQue / DeQue at one stage of the queue's data path: `from` -> `to` (the synchronisation is
    // that stage's pipes). A buffer may be queued when it is allocated (AllocTensor) or when it was
    // taken out of the queue (DeQue'd) and not freed: a kernel that keeps a running result in a
    // queue DeQues it, updates it and EnQues it again, and a VECIN -> VECOUT bound queue hands the
    // tensor of one stage on to the next the same way. Only a buffer that is free or still in the
    // queue is refused. The TQue EnQue/DeQue/FreeTensor pages (asc-devkit docs/zh/api/SIMD-API/
    // 基础API/资源管理/TQue/EnQue.md, DeQue.md) define the cycle Alloc -> EnQue -> DeQue -> Free and put
    // no freeing between a DeQue and the next EnQue; the library's own debug check accepts both the
    // allocated and the dequeued state.
    template <class T> bool enque(const LocalTensor<T> &t, TPosition from, TPosition to, TWIN_LOC_DECL) {
        need_init("EnQue", TWIN_LOC_ARGS);
        int i = find(t.addr_);
        if (i < 0) twin::fault(twin_file, twin_line, "EnQue: tensor (UB address %u) does not belong to queue q%d", t.addr_, b_.qid);
        if (st_[i] == FREE)
            twin::fault(twin_file, twin_line, "EnQue: buffer q%d.b%d is free (AllocTensor missing, or EnQue after FreeTensor)",
                        b_.qid, i);
        if (st_[i] == QUEUED)
            twin::fault(twin_file, twin_line, "EnQue: buffer q%d.b%d is already in the queue (EnQue twice without DeQue)",
                        b_.qid, i);
        st_[i] = QUEUED;
        fifo_[(head_ + count_) % MAXBUF] = (uint8_t)i;
        count_++;
        twin::Pipe p, c; twin::que_pipes(from, to, p, c);
        if (p != twin::P_NONE) twin::tr_flag(true, p, c, 'q', b_.qid, i);
        return true;
    }
    template <class T> LocalTensor<T> DeQue(TWIN_LOC) { return deque<T>(src, dst, TWIN_LOC_ARGS); }
    template <class T> LocalTensor<T> deque(TPosition from, TPosition to, TWIN_LOC_DECL) {
        need_init("DeQue", TWIN_LOC_ARGS);
        if (count_ == 0) twin::fault(twin_file, twin_line, "DeQue: queue q%d is empty (EnQue missing?)", b_.qid);
        int i = fifo_[head_];
        head_ = (head_ + 1) % MAXBUF;
        count_--;
        st_[i] = DEQUEUED;
        twin::Pipe p, c; twin::que_pipes(from, to, p, c);
        if (p != twin::P_NONE) twin::tr_flag(false, p, c, 'q', b_.qid, i);
        return LocalTensor<T>(b_.at((uint32_t)i), b_.len / (uint32_t)sizeof(T), dst);
    }
    template <class T> void DeQue(LocalTensor<T> &t, TWIN_LOC) { t = DeQue<T>(TWIN_LOC_ARGS); }
    // The handle forms of basic_api/kernel_tpipe.h: `TBufHandle DeQue()` takes the next buffer out of
    // the queue as DeQue<T>() does (the same flag wait) and gives its handle; `EnQue(TBufHandle)` queues
    // the buffer a handle names. ops-cv's grid_sample calls `DeQue()` to wait for a copy-in.
    TBufHandle DeQue(TWIN_LOC) {
        LocalTensor<uint8_t> t = deque<uint8_t>(src, dst, TWIN_LOC_ARGS);
        return reinterpret_cast<TBufHandle>((uintptr_t)t.addr_ + 1u);
    }
    bool EnQue(TBufHandle h, TWIN_LOC) {
        LocalTensor<uint8_t> t((uint32_t)(reinterpret_cast<uintptr_t>(h) - 1u), b_.len, src);
        return enque(t, src, dst, TWIN_LOC_ARGS);
    }
    // EnQue / DeQue with the user positions named (asc-devkit docs, TQueBind "EnQue" / "DeQue":
    // `template <TPosition srcUserPos, TPosition dstUserPos, typename T>`): one stage of a bound
    // queue's path, GM -> VECIN after the copy in, VECOUT -> GM before the copy out; the tensor
    // DeQue'd at one stage is EnQue'd at the next without being freed.
    template <TPosition S2, TPosition D2, class T> LocalTensor<T> DeQue(TWIN_LOC) { return deque<T>(S2, D2, TWIN_LOC_ARGS); }
    template <TPosition S2, TPosition D2, class T> bool EnQue(const LocalTensor<T> &t, TWIN_LOC) {
        return enque(t, S2, D2, TWIN_LOC_ARGS);
    }

    template <class T> void FreeTensor(const LocalTensor<T> &t, TWIN_LOC) {
        need_init("FreeTensor", TWIN_LOC_ARGS);
        int i = find(t.addr_);
        if (i < 0) twin::fault(twin_file, twin_line, "FreeTensor: tensor (UB address %u) does not belong to queue q%d", t.addr_, b_.qid);
        if (st_[i] == FREE) twin::fault(twin_file, twin_line, "FreeTensor: double free of buffer q%d.b%d", b_.qid, i);
        if (st_[i] == QUEUED) twin::fault(twin_file, twin_line, "FreeTensor: buffer q%d.b%d is still in the queue (DeQue missing?)", b_.qid, i);
        st_[i] = FREE;
        freed_[i] = 1;
        twin::Pipe p, c; twin::que_pipes(src, dst, p, c);
        if (p != twin::P_NONE) twin::tr_flag(true, c, p, 'q', b_.qid, i);
    }
    // GetBufferAddr(handle): the TBuffAddr of the queue buffer a handle names (GetBufferHandle of a tensor
    // the queue gave, or DeQue()'s): the whole buffer, at the queue's destination position, as AllocTensor
    // gives it. A handle of another queue's buffer faults.
    TBuffAddr GetBufferAddr(TBufHandle h, TWIN_LOC) const {
        need_init("GetBufferAddr", TWIN_LOC_ARGS);
        uint32_t a = (uint32_t)(reinterpret_cast<uintptr_t>(h) - 1u);
        int i = h == nullptr ? -1 : find(a);
        if (i < 0 || a != b_.at((uint32_t)i))
            twin::fault(twin_file, twin_line, "GetBufferAddr: the handle does not name a buffer of queue q%d", b_.qid);
        TBuffAddr r;
        r.dataLen = b_.len;
        r.bufferAddr = a;
        r.bufferHandle = h;
        r.logicPos = (uint8_t)dst;
        return r;
    }
    bool VacantInQue() const { return count_ < (uint32_t)(depth > 0 ? depth : 1) && count_ < b_.num; }
    bool HasTensorInQue() const { return count_ > 0; }
    int32_t GetTensorCountInQue() const { return (int32_t)count_; }
    bool HasIdleBuffer() const {
        for (uint32_t i = 0; i < b_.num; i++) if (st_[i] == FREE) return true;
        return false;
    }
    void FreeAllEvent() {}
    template <class T> void InitStartBufHandle(T *, uint8_t, uint32_t) {}
};

// TQueConfig: a queue's compile-time configuration, given to TQue as `&conf` (its mask parameter),
// fields as the asc-devkit docs list them (基础API/资源管理/TQue/TQue简介.md: format conversions for A1 /
// B1 / CO2, the buffer length and number InitBuffer will give, reserved fields). The twin's queues
// allocate at InitBuffer whatever the configuration says, as the docs allow for 0 lengths; ops-nn's
// mse_loss_grad_v2 builds one with a constexpr function.
struct TQueConfig {
    bool nd2nz = false;
    bool nz2nd = false;
    bool scmBlockGroup = false;
    uint32_t bufferLen = 0;
    uint32_t bufferNumber = 0;
    uint32_t consumerSize = 0;
    TPosition consumer[8] = {};
    bool enableStaticEvtId = false;
    bool enableLoopQueue = false;
};

template <TPosition pos, int32_t depth = 1, auto mask = 0> class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::VECCALC> class TBuf {
public:
    TBufState b_;
    void twin_init(int qid, uint32_t addr, uint32_t len) { b_.qid = qid; b_.addr = addr; b_.len = len; b_.num = 1; b_.stride = len; }
    template <class T> LocalTensor<T> Get(TWIN_LOC) {
        if (b_.qid < 0) twin::fault(twin_file, twin_line, "TBuf::Get: buffer used before TPipe::InitBuffer");
        return LocalTensor<T>(b_.addr, b_.len / (uint32_t)sizeof(T), pos);
    }
    // Get(len): the docs (TBuf Get) ask for len within the InitBuffer length, and the device does not
    // check it: the tensor runs on into the UB after the buffer (the next buffer InitBuffer placed). So
    // does the twin's, with a warning; its accesses are still checked against the UB. ops-nn's
    // group_norm_swish_grad takes a group's length from an HxW buffer and uses one channel of it.
    template <class T> LocalTensor<T> Get(uint32_t len, TWIN_LOC) {
        if (b_.qid < 0) twin::fault(twin_file, twin_line, "TBuf::Get: buffer used before TPipe::InitBuffer");
        if ((uint64_t)len * sizeof(T) > b_.len)
            twin::warn_once(twin_file, twin_line,
                            "TBuf::Get: %u elements (%llu bytes) exceed the buffer of %u bytes (the docs ask for at most "
                            "the InitBuffer length); on the device, as here, the tensor runs on into the UB after it",
                            len, (unsigned long long)len * sizeof(T), b_.len);
        return LocalTensor<T>(b_.addr, len, pos);
    }
    template <class T> LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset, TWIN_LOC) {
        if (b_.qid < 0) twin::fault(twin_file, twin_line, "TBuf::GetWithOffset: buffer used before TPipe::InitBuffer");
        if (bufOffset + (uint64_t)size * sizeof(T) > b_.len)
            twin::fault(twin_file, twin_line, "TBuf::GetWithOffset: offset %u + %u elements exceed the buffer of %u bytes",
                        bufOffset, size, b_.len);
        return LocalTensor<T>(b_.addr + bufOffset, size, pos);
    }
    // GetBufferAddr(handle): the TBuffAddr of the buffer (the handle must be the buffer's, as
    // Get<T>().GetBufferHandle() gives it).
    TBuffAddr GetBufferAddr(TBufHandle h, TWIN_LOC) const {
        if (b_.qid < 0) twin::fault(twin_file, twin_line, "TBuf::GetBufferAddr: buffer used before TPipe::InitBuffer");
        if (reinterpret_cast<uintptr_t>(h) != (uintptr_t)b_.addr + 1u)
            twin::fault(twin_file, twin_line, "TBuf::GetBufferAddr: the handle does not name this buffer (UB address %u)", b_.addr);
        TBuffAddr r;
        r.dataLen = b_.len;
        r.bufferAddr = b_.addr;
        r.bufferHandle = h;
        r.logicPos = (uint8_t)pos;
        return r;
    }
    template <class T> LocalTensor<T> AllocTensor(TWIN_LOC) { return Get<T>(TWIN_LOC_ARGS); }
    template <class T> void FreeTensor(LocalTensor<T> &) {}
    template <class T> bool EnQue(const LocalTensor<T> &) { return true; }
    template <class T> LocalTensor<T> DeQue(TWIN_LOC) { return Get<T>(TWIN_LOC_ARGS); }
};

// ---------------------------------------------------------------------------------------------
// TPipe: carves queues and buffers out of the UB arena.
// ---------------------------------------------------------------------------------------------
class TPipe {
public:
    uint32_t base_[twin::HW_COUNT] = {0}; // what each buffer had carved before this pipe
    bool owner_ = true;                   // constructed, not copied: its end releases what it carved
    TPipe() {
        for (int h = 0; h < twin::HW_COUNT; h++) base_[h] = twin::hw_used((twin::Hw)h);
        twin::g.pipe = this;
    }
    // The destructor releases the buffers the pipe carved, as CANN's does (Destroy, asc-devkit
    // impl/basic_api/kernel_tpipe_impl.h): a kernel that runs two stages, each with a pipe in its own scope,
    // has the whole UB again for the second (ops-cv rasterizer: 101 KiB, then 184 KiB). The twin's pipes
    // carve one after another (a pipe constructed while another lives starts after it, where the device
    // would restart at 0), so the end of the innermost releases back to where it started.
    ~TPipe() {
        if (twin::g.pipe == this) twin::g.pipe = nullptr;
        if (owner_)
            for (int h = 0; h < twin::HW_COUNT; h++)
                if (twin::hw_used((twin::Hw)h) > base_[h]) twin::hw_set_used((twin::Hw)h, base_[h]);
    }
    // Copies (ops-nn add_layer_norm_grad keeps `TPipe pipe_;` in a class and assigns `pipe_ = pipe;`
    // before calling pipe_.InitBuffer): as in CANN, where TPipe has the implicit copy operations, a copy
    // takes the pipe's state and does not become the current pipe (GetTPipePtr still names the one
    // constructed). The twin keeps the carve state per block, not per pipe: buffers carved through the
    // copy and through the original continue one sequence, where on CANN each would continue from the
    // copied offsets (and could overlap if both carved after the copy).
    // A copy releases nothing when it ends (the original's buffers may still be in use).
    TPipe(const TPipe &o) : owner_(false) { for (int h = 0; h < twin::HW_COUNT; h++) base_[h] = o.base_[h]; }
    TPipe &operator=(const TPipe &o) {
        for (int h = 0; h < twin::HW_COUNT; h++) base_[h] = o.base_[h];
        owner_ = false;
        return *this;
    }

    // A buffer of length 0 (moe_compute_expert_tokens' blocks past the last one with work): CANN's
    // InitBuffer rounds it up to 0 bytes and carves nothing on the device; only its CPU debug build asserts
    // len > 0 (asc-devkit impl/basic_api/kernel_tpipe_impl.h). Here too, with a warning.
    static void zero_length(TWIN_LOC_DECL) {
        twin::warn_once(twin_file, twin_line,
                        "InitBuffer: zero buffer length; the device carves nothing (CANN's CPU debug mode stops here)");
    }
    // Each queue or buffer is carved from the buffer of its position (mem.h).
    static uint32_t carve(twin::Hw h, uint64_t bytes, TWIN_LOC_DECL) { return twin::hw_carve(h, bytes, TWIN_LOC_ARGS); }
    template <TPosition S, TPosition D, int32_t DEP, auto M>
    bool InitBuffer(TQueBind<S, D, DEP, M> &que, uint8_t num, uint32_t len, TWIN_LOC) {
        if (num == 0 || num > TQueBind<S, D, DEP, M>::MAXBUF)
            twin::fault(twin_file, twin_line, "InitBuffer: buffer count %u out of range 1..%d", num, TQueBind<S, D, DEP, M>::MAXBUF);
        if (len == 0) zero_length(TWIN_LOC_ARGS);
        uint32_t alen = (len + 31u) / 32u * 32u;
        const twin::Hw h = twin::hw_of_queue(S, D);
        const uint32_t stride = alen + (h == twin::HW_UB ? twin::g.ub_gap : 0);
        uint32_t a = carve(h, (uint64_t)stride * num, TWIN_LOC_ARGS);
        twin::tr_carve((int)h, a, stride, num, TWIN_LOC_ARGS);
        if (h == twin::HW_UB && stride == alen) twin::ub_note_buffer(a, alen, num, TWIN_LOC_ARGS);
        else if (h == twin::HW_UB)
            for (uint32_t i = 0; i < num; i++) {
                twin::ub_note_buffer(a + i * stride, alen, 1, TWIN_LOC_ARGS);
                twin::ub_fill_gap(a + i * stride + alen);
            }
        que.twin_init(twin::g.next_qid++, a, alen, num, stride);
        return true;
    }
    template <TPosition P> bool InitBuffer(TBuf<P> &buf, uint32_t len, TWIN_LOC) {
        if (len == 0) zero_length(TWIN_LOC_ARGS);
        uint32_t alen = (len + 31u) / 32u * 32u;
        uint32_t a = carve(twin::hw_of(P), alen + (twin::hw_of(P) == twin::HW_UB ? twin::g.ub_gap : 0), TWIN_LOC_ARGS);
        twin::tr_carve((int)twin::hw_of(P), a, alen, 1, TWIN_LOC_ARGS);
        if (twin::hw_of(P) == twin::HW_UB) {
            twin::ub_note_buffer(a, alen, 1, TWIN_LOC_ARGS);
            twin::ub_fill_gap(a + alen);
        }
        buf.twin_init(twin::g.next_qid++, a, alen);
        return true;
    }
    // TBuf with a buffer count (accepted by the real API as well): num * len bytes.
    template <TPosition P> bool InitBuffer(TBuf<P> &buf, uint8_t num, uint32_t len, TWIN_LOC) {
        if (num == 0) twin::fault(twin_file, twin_line, "InitBuffer: zero buffer count");
        if (len == 0) zero_length(TWIN_LOC_ARGS);
        uint32_t alen = (len + 31u) / 32u * 32u;
        uint32_t a = carve(twin::hw_of(P), (uint64_t)alen * num + (twin::hw_of(P) == twin::HW_UB ? twin::g.ub_gap : 0),
                           TWIN_LOC_ARGS);
        twin::tr_carve((int)twin::hw_of(P), a, alen, num, TWIN_LOC_ARGS);
        if (twin::hw_of(P) == twin::HW_UB) {
            twin::ub_note_buffer(a, alen * num, 1, TWIN_LOC_ARGS);
            twin::ub_fill_gap(a + alen * num);
        }
        buf.twin_init(twin::g.next_qid++, a, alen * num);
        return true;
    }
    void Reset() { for (int h = 0; h < twin::HW_COUNT; h++) twin::hw_set_used((twin::Hw)h, base_[h]); }
    void Destroy() { Reset(); }
    void Init() {}
    // Event ids (asc-devkit docs, TPipe FetchEventID / AllocEventID / ReleaseEventID): FetchEventID
    // names the lowest id not held, without holding it (two fetches give the same id);
    // AllocEventID holds it until ReleaseEventID. Eight ids per HardEvent.
    TEventID FetchEventID(HardEvent evt) {
        uint8_t held = twin::g.event_alloc[(int)evt & 63];
        for (int k = 0; k < 8; k++)
            if (!(held & (1u << k))) return (TEventID)k;
        return 0;
    }
    template <HardEvent evt> TEventID FetchEventID() { return FetchEventID(evt); }
    template <HardEvent evt> TEventID AllocEventID(TWIN_LOC) {
        uint8_t &held = twin::g.event_alloc[(int)evt & 63];
        for (int k = 0; k < 8; k++)
            if (!(held & (1u << k))) { held |= (uint8_t)(1u << k); return (TEventID)k; }
        twin::fault(twin_file, twin_line, "AllocEventID: all 8 event ids of this HardEvent are held (ReleaseEventID missing?)");
    }
    template <HardEvent evt> void ReleaseEventID(TEventID id, TWIN_LOC) {
        uint8_t &held = twin::g.event_alloc[(int)evt & 63];
        if (id < 0 || id > 7 || !(held & (1u << id)))
            twin::fault(twin_file, twin_line, "ReleaseEventID: event id %d was not held by AllocEventID", (int)id);
        held &= (uint8_t)~(1u << id);
    }
};

inline TPipe *GetTPipePtr() { return static_cast<TPipe *>(twin::g.pipe); }

// PopStackBuffer<T, pos>(popLocal) (asc-devkit docs, SIMD-API/基础API/资源管理/PopStackBuffer.md): a
// temporary tensor over all the space of pos's buffer that TPipe has not carved, starting where the
// carving ends; false when nothing is left. It carves nothing itself: a later InitBuffer reuses the
// space, as on the device. For the UB that is the library's pool (what InitBuffer carves from, mem.h),
// not the size the runtime reports. Nesting (the docs forbid it) is not detected.
template <class T, TPosition pos> inline bool PopStackBuffer(LocalTensor<T> &popLocal) {
    twin::Hw h = twin::hw_of(pos);
    uint32_t used = twin::hw_used(h), cap = twin::hw_pool(h);
    if (used >= cap) return false;
    popLocal = LocalTensor<T>(used, (cap - used) / (uint32_t)sizeof(T), pos);
    return true;
}

// ---------------------------------------------------------------------------------------------
// LocalMemAllocator: static tensor programming without TPipe/TQue (asc-devkit docs,
// "LocalMemAllocator", atlasascendc_api_07_00096). Tensors are handed out one after another from
// address 0 of the buffer, each start 32-byte aligned; GetCurAddr is the next free address. Each
// Hardware is checked against its own capacity (mem.h); the cube buffers are computed on by cube.h.
// ---------------------------------------------------------------------------------------------
template <Hardware hard = Hardware::UB> class LocalMemAllocator {
public:
    LocalMemAllocator() = default;
    uint32_t GetCurAddr() const { return cur_; }
    template <class DataType, uint32_t tileSize> LocalTensor<DataType> Alloc(TWIN_LOC) {
        return take<DataType>(default_pos(), tileSize, TWIN_LOC_ARGS);
    }
    template <TPosition pos, class DataType, uint32_t tileSize> LocalTensor<DataType> Alloc(TWIN_LOC) {
        return take<DataType>(pos, tileSize, TWIN_LOC_ARGS);
    }
    template <class DataType> LocalTensor<DataType> Alloc(uint32_t tileSize, TWIN_LOC) {
        return take<DataType>(default_pos(), tileSize, TWIN_LOC_ARGS);
    }
    template <TPosition pos, class DataType> LocalTensor<DataType> Alloc(uint32_t tileSize, TWIN_LOC) {
        return take<DataType>(pos, tileSize, TWIN_LOC_ARGS);
    }

private:
    uint32_t cur_ = 0;
    static constexpr TPosition default_pos() {
        return hard == Hardware::L1 ? TPosition::A1 : hard == Hardware::L0A ? TPosition::A2
             : hard == Hardware::L0B ? TPosition::B2 : hard == Hardware::L0C ? TPosition::CO1 : TPosition::VECCALC;
    }
    template <class T> LocalTensor<T> take(TPosition pos, uint32_t n, TWIN_LOC_DECL) {
        uint64_t bytes = ((uint64_t)n * sizeof(T) + 31) / 32 * 32;
        twin::Hw h = twin::hw_of(pos);
        if ((uint64_t)cur_ + bytes > twin::hw_cap(h))
            twin::fault(twin_file, twin_line,
                        "LocalMemAllocator::Alloc: %u elements (%llu bytes) at address %u exceed the %u bytes of %s", n,
                        (unsigned long long)bytes, cur_, twin::hw_cap(h), twin::hw_name(h));
        LocalTensor<T> t(pos, cur_, n);
        cur_ += (uint32_t)bytes;
        return t;
    }
};

// ---------------------------------------------------------------------------------------------
// Block queries and synchronisation.
// ---------------------------------------------------------------------------------------------
inline int64_t GetBlockIdx() { return twin::g.block_idx; }
inline int64_t GetBlockNum() { return twin::g.block_dim; }
// GetSubBlockIdx, GetSubBlockNum, GetTaskRatio: twin/mix.h (mixed kernels).
// GetSystemCycle reads the 50 MHz system counter (PIPE_S; asc-devkit docs, GetSystemCycle:
// https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0282.html).
// The twin keeps no clock while it runs, so the counter advances one tick per read, each read a scalar
// instruction in the trace: a loop waiting for it to pass a target ends after that many reads, and the
// model charges them.
inline int64_t GetSystemCycle(TWIN_LOC) {
    twin::tr_scalar("GetSystemCycle", twin_line);
    (void)twin_file;
    return ++twin::g.sys_cnt;
}

// SetFlag/WaitFlag: recorded as flags src->dst keyed e<id> (asc-devkit docs, SetFlag/WaitFlag).
template <HardEvent evt> inline void SetFlag(int32_t eventID, TWIN_LOC) {
    twin::event_set(twin::ev_src(evt), twin::ev_dst(evt), eventID, TWIN_LOC_ARGS);
}
template <HardEvent evt> inline void WaitFlag(int32_t eventID, TWIN_LOC) {
    twin::event_wait(twin::ev_src(evt), twin::ev_dst(evt), eventID, "WaitFlag", TWIN_LOC_ARGS);
}
// TQueSync<src, dst>: the same flag between two pipes of one core, as a class whose SetFlag / WaitFlag
// take the event id (asc-devkit docs, 同步控制/核内同步/SetFlag-WaitFlag.md: `TQueSync<PIPE_S, PIPE_MTE3>
// sync; sync.SetFlag(0); sync.WaitFlag(0);`, the form that holds across hardware versions; ops-math's
// ones_like wraps it in a macro).
template <pipe_t src, pipe_t dst> struct TQueSync {
    void SetFlag(int32_t eventID, TWIN_LOC) {
        twin::event_set(twin::pipe_of(src), twin::pipe_of(dst), eventID, TWIN_LOC_ARGS);
    }
    void WaitFlag(int32_t eventID, TWIN_LOC) {
        twin::event_wait(twin::pipe_of(src), twin::pipe_of(dst), eventID, "TQueSync::WaitFlag", TWIN_LOC_ARGS);
    }
};
template <pipe_t pipe> inline void PipeBarrier() { twin::tr_barrier(twin::pipe_of(pipe)); }
inline void pipe_barrier(pipe_t pipe) { twin::tr_barrier(twin::pipe_of(pipe)); }
template <pipe_t pipe> inline void DataSyncBarrier() { twin::tr_barrier(twin::pipe_of(pipe)); }
// DataSyncBarrier<MemDsbT>: the scalar unit waits until its earlier accesses of that memory (GM, UB,
// both) have completed (asc-devkit docs, DataSyncBarrier(ISASI): ALL = GM and UB, DDR = GM, UB, SEQ).
// The twin's scalar accesses complete in program order, so it is one scalar instruction.
enum class MemDsbT { ALL, DDR, UB, SEQ };
template <MemDsbT mem> inline void DataSyncBarrier(TWIN_LOC) { twin::tr_instr(twin::P_S, "DataSyncBarrier", twin_line); }
// Barrier(): a compiler memory barrier, no instruction (asc-devkit impl/basic_api/dav_c220/kfc/kfc_comm.h,
// which kernel_operator.h brings into AscendC: an empty asm statement that clobbers memory). ops-math's
// reduce_prod_v2 calls it after SyncAll. Nothing is traced.
inline void Barrier() { __asm__ __volatile__("" ::: "memory"); }

// SyncAll: all blocks meet here. The twin runs blocks one at a time; at SyncAll a block hands over
// to the next one and resumes once every block has arrived (kernel_main.cpp).
template <bool isAIVOnly = true> inline void SyncAll(TWIN_LOC) {
    twin::tr_barrier(twin::P_ALL);
    twin::tr_instr(twin::P_S, "SyncAll", twin_line);
    twin::sync_all("SyncAll", TWIN_LOC_ARGS, isAIVOnly);
}
template <bool isAIVOnly = true> inline void SyncAll(const GlobalTensor<int32_t> &, const LocalTensor<int32_t> &, int32_t = 0, TWIN_LOC) {
    twin::tr_barrier(twin::P_ALL);
    twin::tr_instr(twin::P_S, "SyncAll", twin_line);
    twin::sync_all("SyncAll", TWIN_LOC_ARGS, isAIVOnly);
}

// WaitPreTaskEnd / SetNextTaskStart (基础API/同步控制/任务间同步): SuperKernel's Early-Start marks, the
// point before which a sub-kernel may overlap the one before it, after which it may overlap the next. One
// launch on the twin has no neighbouring sub-kernel, and the model does not schedule SuperKernels: they do
// nothing here (ops-nn's quant_matmul_reduce_sum calls WaitPreTaskEnd).
template <bool FORCE = false> inline void WaitPreTaskEnd() {}
template <bool FORCE = false> inline void SetNextTaskStart() {}

} // namespace AscendC

// Low-level intrinsics some kernels call directly.
enum event_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
inline int64_t get_block_idx() { return twin::g.block_idx; }
inline int64_t get_block_num() { return twin::g.block_dim; }
// `block_idx`: the compiler's built-in variable holding the running core's block index, which SDK
// examples read directly in kernel code (`x + block_idx * blockLength`); the same value as GetBlockIdx()
// and the C API's asc_get_block_idx() (asc-devkit docs/zh/api/SIMD-API/C-API/sys_var/asc_get_block_idx.md).
// An object converting to int64_t, so the twin's per-block state is read where it is used.
struct TwinBlockIdxVar {
    operator int64_t() const { return twin::g.block_idx; }
};
inline constexpr TwinBlockIdxVar block_idx{};
// get_para_base: the address of the launch's parameter area (the argument addresses, 8 bytes each in the
// kernel's order, then the tiling data inline; twin::para_base). CANN's kernel library wraps it as
// GetParaBase (impl/basic_api/dav_c220/kernel_operator_reg_others_impl.h) and reads the workspace slot
// from it (include/basic_api/kernel_operator_swap_mem_intf.h); ops-math's experimental/math/gcd reads its
// tensors and inline tiling from it. An integer, as the intrinsic returns it.
inline int64_t get_para_base(TWIN_LOC) {
    if (twin::para_base == nullptr)
        twin::fault(twin_file, twin_line, "get_para_base: this launch has no parameter area (only the twin's kernel program lays one out)");
    return (int64_t)(uintptr_t)twin::para_base;
}
namespace AscendC {
inline int64_t GetParaBase(TWIN_LOC) { return get_para_base(TWIN_LOC_ARGS); }
}
inline int64_t get_subblockid() { return 0; }
inline int64_t get_subblockdim() { return 1; }
inline void set_flag(pipe_t src, pipe_t dst, event_t id, TWIN_LOC) { twin::event_set(twin::pipe_of(src), twin::pipe_of(dst), (int)id, TWIN_LOC_ARGS); }
inline void wait_flag(pipe_t src, pipe_t dst, event_t id, TWIN_LOC) {
    twin::event_wait(twin::pipe_of(src), twin::pipe_of(dst), (int)id, "wait_flag", TWIN_LOC_ARGS);
}
