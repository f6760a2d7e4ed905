// Global Memory utilities: Fill / InitGlobalMemory, and ListTensorDesc / TensorDesc for the
// tensor lists of dynamic inputs.
// Clean-room implementation from Huawei's public AscendC API documentation.
#pragma once
#include "sys.h"

namespace AscendC {

// Fill (CANN 8.5+ name; InitGlobalMemory before): `size` elements of the tensor set to `value`
// (uint16_t, int16_t, half, uint32_t, int32_t, float on Atlas A2/A3). The reference allows it only
// before the first InitBuffer, since it works through UB; other cores see the values after a
// SyncAll.
// @api Fill, InitGlobalMemory | yes: a call after InitBuffer is api-misuse | Fill
template <typename T> inline void Fill(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Fill, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Fill", ACEMU_SITE);
    const TPipe* pipe = static_cast<const TPipe*>(c->pipe);
    if (pipe != nullptr && pipe->acemu_used() > 0) {
        acemu::rt::report(acemu::API_MISUSE, "Fill", ACEMU_SITE,
                          "Fill / InitGlobalMemory after pipe.InitBuffer: the reference supports it only before the first "
                          "InitBuffer (it uses UB that InitBuffer hands out); call it at the start of Init");
    }
    const uint64_t bytes = size * sizeof(T);
    acemu::trace::pipe_op(c, acemu::trace::P_MTE3, "Fill", ACEMU_SITE, acemu::dtype_of<T>(), bytes, 1);
    const uint64_t ok = gmWorkspaceAddr.acemu_in_bounds("Fill", "writes", 0, bytes, ACEMU_SITE);
    T* d = gmWorkspaceAddr.GetPhyAddr();
    for (uint64_t i = 0; i < ok / sizeof(T); ++i) d[i] = value;
    acemu::rt::gm_written(d, ok - ok % sizeof(T), "Fill", ACEMU_SITE);
}
template <typename T> inline void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value, ACEMU_SITE_PARAMS) {
    Fill(gmWorkspaceAddr, size, value, acemu_site);
}

// ---- ListTensorDesc --------------------------------------------------------------------------
// A tensor list in GM (dynamic inputs of a registered op), in the layout the reference's figure
// shows, all 64-bit words: word 0 is the byte offset from the start to the pointer table; then per
// tensor a header word (dimension count in the low 32 bits) followed by its dims; then one data
// pointer per tensor. The emulator's op harness writes it the same way.
// @api ListTensorDesc, TensorDesc | yes | ListTensorDesc
template <typename T> class TensorDesc {
public:
    void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
    uint64_t GetDim() const { return dim_; }
    uint64_t GetIndex() const { return index_; }
    uint64_t GetShape(uint32_t offset) const { return shape_ != nullptr && offset < dim_ ? shape_[offset] : 0; }
    __gm__ T* GetDataPtr() const { return data_; }
    GlobalTensor<T> GetDataObj() const {
        GlobalTensor<T> g;
        uint64_t n = 1;
        for (uint64_t i = 0; i < dim_; ++i) n *= GetShape(uint32_t(i));
        g.SetGlobalBuffer(data_, n);
        return g;
    }
    void acemu_set(uint64_t dim, uint64_t index, const uint64_t* shape, __gm__ T* data) {
        dim_ = dim;
        index_ = index;
        data_ = data;
        if (shape_ != nullptr)
            for (uint64_t i = 0; i < dim; ++i) shape_[i] = shape[i];
    }

private:
    uint64_t* shape_ = nullptr;
    uint64_t dim_ = 0, index_ = 0;
    __gm__ T* data_ = nullptr;
};

class ListTensorDesc {
public:
    ListTensorDesc() = default;
    ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) { Init(data, length, shapeSize); }
    void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff, ACEMU_SITE_PARAMS) {
        base_ = static_cast<const uint64_t*>(data);
        count_ = 0;
        if (base_ == nullptr) return;
        const uint64_t table = base_[0];
        if (table % 8 != 0 || (length != 0xffffffff && table > length)) {
            acemu::rt::report(acemu::API_MISUSE, "ListTensorDesc", ACEMU_SITE,
                              "ListTensorDesc: the data does not look like a tensor list (pointer table at byte %llu%s)",
                              (unsigned long long)table, length != 0xffffffff ? " past the given length" : "");
            return;
        }
        // Walk the shape records up to the pointer table: that many tensors.
        uint64_t w = 1;
        while (w * 8 < table && count_ < kMax) {
            offsets_[count_++] = w;
            w += 1 + (base_[w] & 0xffffffffu);
        }
        if (shapeSize != 0xffffffff && shapeSize != count_) {
            acemu::rt::report(acemu::API_MISUSE, "ListTensorDesc", ACEMU_SITE,
                              "ListTensorDesc: shapeSize %u, but the list holds %u tensors", shapeSize, count_);
        }
    }
    uint32_t GetSize() const { return count_; }
    template <class T> __gm__ T* GetDataPtr(uint32_t index) const {
        if (base_ == nullptr || index >= count_) return nullptr;
        const uint64_t* table = base_ + base_[0] / 8;
        return reinterpret_cast<__gm__ T*>(table[index]);
    }
    template <class T> void GetDesc(TensorDesc<T>& desc, uint32_t index) const {
        if (base_ == nullptr || index >= count_) return;
        const uint64_t* rec = base_ + offsets_[index];
        desc.acemu_set(rec[0] & 0xffffffffu, rec[0] >> 32, rec + 1, GetDataPtr<T>(index));
    }

private:
    static constexpr uint32_t kMax = 256;
    const uint64_t* base_ = nullptr;
    uint32_t count_ = 0;
    uint64_t offsets_[kMax] = {};
};

}  // namespace AscendC
