// twin: ListTensorDesc and TensorDesc<T>, the kernel-side readers of a tensor list's descriptor
// (asc-devkit docs/zh/api/SIMD-API/基础API/辅助数据结构/ListTensorDesc.md and TensorDesc/*.md; header
// kernel_operator_list_tensor_intf.h). Owns only the reading of the layout that twin/list_desc.h
// writes (word 0: the byte offset of the pointer table; per tensor a word with dim in its low and
// index in its high 32 bits, then dim words of shape; then one data pointer per tensor). The reads go
// through the GM checks, so a descriptor read past its allocation is a fault, not a crash.
#pragma once
#include <cstdint>
#include "runtime.h"
#include "tensor.h"

namespace AscendC {

class ListTensorDesc;

template <class T> class TensorDesc {
public:
    TensorDesc() = default;
    ~TensorDesc() = default;
    // Where GetDesc writes the tensor's shape (its dim words); GetShape reads it back from there.
    void SetShapeAddr(uint64_t *shapePtr) { shape_ = shapePtr; }
    uint64_t GetDim() const { return dim_; }
    uint64_t GetIndex() const { return index_; }
    uint64_t GetShape(uint32_t offset, TWIN_LOC) const {
        if (shape_ == nullptr)
            twin::fault(TWIN_LOC_ARGS, "TensorDesc::GetShape: no shape address (call SetShapeAddr before GetDesc)");
        if (offset >= dim_)
            twin::fault(TWIN_LOC_ARGS, "TensorDesc::GetShape: dimension %u of a %llu-dimensional tensor", offset,
                        (unsigned long long)dim_);
        return shape_[offset];
    }
    T *GetDataPtr() const { return data_; }
    // The data as a GlobalTensor of the tensor's element count.
    GlobalTensor<T> GetDataObj() const {
        GlobalTensor<T> g;
        uint64_t n = 1;
        for (uint64_t i = 0; i < dim_ && shape_ != nullptr; i++) n *= shape_[i];
        g.SetGlobalBuffer(data_, n);
        return g;
    }

private:
    friend class ListTensorDesc;
    uint64_t *shape_ = nullptr;
    uint64_t dim_ = 0;
    uint64_t index_ = 0;
    T *data_ = nullptr;
};

class ListTensorDesc {
public:
    ListTensorDesc() = default;
    // `length` (bytes) and `shapeSize` (data pointers) are checks only; 0xffffffff skips them.
    ListTensorDesc(__gm__ void *data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff, TWIN_LOC) {
        Init(data, length, shapeSize, TWIN_LOC_ARGS);
    }
    void Init(__gm__ void *data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff, TWIN_LOC) {
        base_ = reinterpret_cast<uint64_t *>(data);
        count_ = 0;
        uint64_t table = word(0, TWIN_LOC_ARGS);
        if (table % 8 != 0 || table < 8)
            twin::fault(TWIN_LOC_ARGS, "ListTensorDesc: the pointer table's offset %llu is not a word offset past word 0",
                        (unsigned long long)table);
        table_ = table / 8;
        for (uint64_t pos = 1; pos < table_; count_++) pos += 1 + (word(pos, TWIN_LOC_ARGS) & 0xffffffffull);
        uint64_t bytes = (table_ + count_) * 8;
        if (length != 0xffffffffu && bytes > length)
            twin::fault(TWIN_LOC_ARGS, "ListTensorDesc: the descriptor takes %llu bytes, more than the length %u given",
                        (unsigned long long)bytes, length);
        if (shapeSize != 0xffffffffu && shapeSize != count_)
            twin::fault(TWIN_LOC_ARGS, "ListTensorDesc: the descriptor holds %u data pointers, not the %u given", count_,
                        shapeSize);
    }
    template <class T> void GetDesc(TensorDesc<T> &desc, uint32_t index, TWIN_LOC) const {
        uint64_t pos = at(index, "GetDesc", TWIN_LOC_ARGS);
        uint64_t head = word(pos, TWIN_LOC_ARGS);
        desc.dim_ = head & 0xffffffffull;
        desc.index_ = head >> 32;
        if (desc.shape_ == nullptr)
            twin::fault(TWIN_LOC_ARGS, "ListTensorDesc::GetDesc: the TensorDesc has no shape address (call SetShapeAddr first)");
        for (uint64_t i = 0; i < desc.dim_; i++) desc.shape_[i] = word(pos + 1 + i, TWIN_LOC_ARGS);
        desc.data_ = reinterpret_cast<T *>(word(table_ + index, TWIN_LOC_ARGS));
    }
    template <class T> T *GetDataPtr(uint32_t index, TWIN_LOC) const {
        at(index, "GetDataPtr", TWIN_LOC_ARGS);
        return reinterpret_cast<T *>(word(table_ + index, TWIN_LOC_ARGS));
    }
    uint32_t GetSize() const { return count_; }

private:
    uint64_t word(uint64_t i, TWIN_LOC_DECL) const {
        if (base_ == nullptr) twin::fault(TWIN_LOC_ARGS, "ListTensorDesc: read before Init");
        twin::gm_check_in(base_, base_ + i, sizeof(uint64_t), false, "ListTensorDesc", TWIN_LOC_ARGS);
        return base_[i];
    }
    // The word where tensor `index`'s descriptor starts.
    uint64_t at(uint32_t index, const char *what, TWIN_LOC_DECL) const {
        if (index >= count_)
            twin::fault(TWIN_LOC_ARGS, "ListTensorDesc::%s: index %u of a list of %u tensors", what, index, count_);
        uint64_t pos = 1;
        for (uint32_t k = 0; k < index; k++) pos += 1 + (word(pos, TWIN_LOC_ARGS) & 0xffffffffull);
        return pos;
    }
    uint64_t *base_ = nullptr;
    uint64_t table_ = 0;
    uint32_t count_ = 0;
};

} // namespace AscendC
