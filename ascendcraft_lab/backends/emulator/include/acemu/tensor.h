// LocalTensor (a view of UB) and GlobalTensor (a bounded view of GM).
#pragma once
#include "base.h"

namespace acemu {
namespace cube {
// A vector instruction given an operand that is not in UB: in L1 / L0 (cube.h) that is a bug.
inline void foreign_operand(const char* api, const char* what, const void* p, const char* file, int line);
}  // namespace cube

template <typename T> inline const char* type_name() {
    if (std::is_same<T, float>::value) return "float";
    if (std::is_same<T, half>::value) return "half";
    if (std::is_same<T, bfloat16_t>::value) return "bfloat16_t";
    if (std::is_same<T, int32_t>::value) return "int32_t";
    if (std::is_same<T, uint32_t>::value) return "uint32_t";
    if (std::is_same<T, int16_t>::value) return "int16_t";
    if (std::is_same<T, uint16_t>::value) return "uint16_t";
    if (std::is_same<T, int8_t>::value) return "int8_t";
    if (std::is_same<T, uint8_t>::value) return "uint8_t";
    if (std::is_same<T, int64_t>::value) return "int64_t";
    if (std::is_same<T, uint64_t>::value) return "uint64_t";
    return "T";
}

// Reports bytes [p, p+n) of UB never written; `what` names the operand ("src0", "src").
inline void check_read(BlockCtx* c, const char* api, const char* what, const void* p, uint64_t n, const char* file, int line) {
    if (!in_ub(c, p)) return;
    uint64_t off = ub_offset(c, p);
    ub_track(c, off, n, false);
    int64_t bad = shadow_first_unset(c, off, n);
    if (__builtin_expect(bad >= 0, 0)) {
        rt::report(UNINIT_READ, api, file, line,
                   "%s reads %s bytes [%llu, %llu) of UB but byte %lld (offset +%lld in the operand) was never written since InitBuffer; "
                   "the hardware reads whatever an earlier tile left there. Check that the copy-in / previous op covers the whole range "
                   "(a DataCopy whose length is not a multiple of 32 B is rounded down)",
                   api, what, (unsigned long long)off, (unsigned long long)(off + n), (long long)bad, (long long)(bad - int64_t(off)));
    }
}
inline void mark_written(BlockCtx* c, const void* p, uint64_t n) {
    if (in_ub(c, p)) {
        shadow_mark(c, ub_offset(c, p), n);
        ub_track(c, ub_offset(c, p), n, true);
    }
}
// Vector instructions and DataCopy address UB in 32-B units.
inline void check_align(BlockCtx* c, const char* api, const char* what, const void* p, const char* file, int line) {
    if (!in_ub(c, p)) {
        cube::foreign_operand(api, what, p, file, line);
        return;
    }
    uint64_t off = ub_offset(c, p);
    if (__builtin_expect(off % kBlock != 0, 0)) {
        rt::report(UNALIGNED_UB, api, file, line,
                   "%s: %s starts at UB offset %llu, which is not 32-B aligned; the hardware addresses UB in 32-B blocks and "
                   "silently uses the aligned-down address %llu. Take sub-tensors (tensor[k]) at multiples of 32 B",
                   api, what, (unsigned long long)off, (unsigned long long)(off & ~uint64_t(31)));
    }
}
// An operand running past the end of its tensor overwrites or reads a neighbouring buffer on the NPU.
inline void check_extent(BlockCtx* c, const char* api, const char* what, uint64_t need_bytes, uint64_t have_bytes, const char* file, int line) {
    if (__builtin_expect(need_bytes > have_bytes, 0)) {
        rt::report(UB_OVERFLOW, api, file, line,
                   "%s touches %llu B of %s, but that tensor has only %llu B; on the NPU the access runs into the neighbouring UB buffer",
                   api, (unsigned long long)need_bytes, what, (unsigned long long)have_bytes);
    }
    (void)c;
}

}  // namespace acemu

namespace AscendC {

// @api LocalTensor | yes | LocalTensor
template <typename T> class LocalTensor {
public:
    using PrimType = T;
    LocalTensor() = default;
    LocalTensor(T* addr, uint32_t size, TPosition pos = TPosition::VECCALC) : addr_(addr), size_(size), pos_(pos) {}

    LocalTensor operator[](uint32_t offset) const {
        return LocalTensor(addr_ + offset, offset <= size_ ? size_ - offset : 0, pos_);
    }
    T GetValue(uint32_t index, ACEMU_SITE_PARAMS) const {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "GetValue", ACEMU_SITE);
        acemu::trace::scalar_op(c, "GetValue", ACEMU_SITE, 0, acemu::dtype_of<T>());
        if (index >= size_) {
            acemu::check_extent(c, "GetValue", "the tensor", (uint64_t(index) + 1) * sizeof(T), uint64_t(size_) * sizeof(T), ACEMU_SITE);
            if (!acemu::in_ub(c, addr_ + index)) return T();
        }
        acemu::check_read(c, "GetValue", "the element", addr_ + index, sizeof(T), ACEMU_SITE);
        return addr_[index];
    }
    void SetValue(uint32_t index, T value, ACEMU_SITE_PARAMS) const {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "SetValue", ACEMU_SITE);
        acemu::trace::scalar_op(c, "SetValue", ACEMU_SITE, 0, acemu::dtype_of<T>());
        if (index >= size_) {
            acemu::check_extent(c, "SetValue", "the tensor", (uint64_t(index) + 1) * sizeof(T), uint64_t(size_) * sizeof(T), ACEMU_SITE);
            if (!acemu::in_ub(c, addr_ + index)) return;
        }
        addr_[index] = value;
        acemu::mark_written(c, addr_ + index, sizeof(T));
    }
    template <typename U> LocalTensor<U> ReinterpretCast() const {
        return LocalTensor<U>(reinterpret_cast<U*>(addr_), uint32_t(uint64_t(size_) * sizeof(T) / sizeof(U)), pos_);
    }
    uint32_t GetSize() const { return size_; }
    uint32_t GetLength() const { return size_ * uint32_t(sizeof(T)); }
    void SetSize(uint32_t size) { size_ = size; }
    TPosition GetPosition() const { return pos_; }
    // Physical UB address (an offset into the Unified Buffer).
    uint64_t GetPhyAddr() const { acemu::BlockCtx* c = acemu::ctx(); return acemu::ub_offset(c, addr_); }
    uint64_t GetPhyAddr(uint32_t offset) const { return GetPhyAddr() + uint64_t(offset) * sizeof(T); }

    T* acemu_ptr() const { return addr_; }
    uint64_t acemu_bytes() const { return uint64_t(size_) * sizeof(T); }

private:
    T* addr_ = nullptr;
    uint32_t size_ = 0;
    TPosition pos_ = TPosition::VECCALC;
};

// @api GlobalTensor, SetGlobalBuffer | yes: a length past the allocation is checked at the accesses; accesses past the length but inside the allocation are a note (gm-beyond-buffer) and copied | GlobalTensor
template <typename T> class GlobalTensor {
public:
    using PrimType = T;
    static constexpr uint64_t kUnbounded = ~uint64_t(0);

    // bufferSize is in elements; without it the tensor may reach as far as the host allocation.
    // The length is the kernel's own bookkeeping: the NPU does not check it, so a length past the
    // allocation is not an error by itself (accesses are checked when they happen).
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize = kUnbounded, ACEMU_SITE_PARAMS) {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "SetGlobalBuffer", ACEMU_SITE);
        base_ = buffer;
        size_ = bufferSize;
        set_file_ = acemu_site.file;
        set_line_ = acemu_site.line;
        const uint8_t* b = reinterpret_cast<const uint8_t*>(buffer);
        arg_ = -1;
        alloc_lo_ = alloc_hi_ = nullptr;
        acemu::rt::find_alloc(b, &alloc_lo_, &alloc_hi_, &arg_);
        lo_ = b;
        hi_ = bufferSize == kUnbounded ? nullptr : b + bufferSize * sizeof(T);
    }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor r = *this;
        r.base_ = base_ + offset;
        r.size_ = size_ == kUnbounded ? kUnbounded : (offset <= size_ ? size_ - offset : 0);
        return r;
    }
    T GetValue(uint64_t index, ACEMU_SITE_PARAMS) const {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "GetValue", ACEMU_SITE);
        acemu::trace::scalar_op(c, "GetValue", ACEMU_SITE, 1, acemu::dtype_of<T>());
        if (acemu_in_bounds("GetValue", "reads", index, sizeof(T), ACEMU_SITE) < sizeof(T)) return T();
        return base_[index];
    }
    void SetValue(uint64_t index, T value, ACEMU_SITE_PARAMS) {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "SetValue", ACEMU_SITE);
        acemu::trace::scalar_op(c, "SetValue", ACEMU_SITE, 1, acemu::dtype_of<T>());
        if (acemu_in_bounds("SetValue", "writes", index, sizeof(T), ACEMU_SITE) < sizeof(T)) return;
        if (c->atomic_op != acemu::ATOMIC_NONE) {
            acemu::rt::gm_atomic(base_ + index, &value, sizeof(T), c->atomic_op, acemu::dtype_of<T>(), ACEMU_SITE);
            return;
        }
        base_[index] = value;
        acemu::rt::gm_written(base_ + index, sizeof(T), "SetValue", ACEMU_SITE);
    }
    __gm__ T* GetPhyAddr() const { return base_; }
    __gm__ T* GetPhyAddr(uint64_t offset) const { return base_ + offset; }
    uint64_t GetSize() const { return size_; }

    // Bytes from the tensor's start to the end of its range (SetGlobalBuffer's length, within the
    // host allocation); all of memory when neither is known.
    uint64_t acemu_range_bytes() const {
        const uint8_t* p = reinterpret_cast<const uint8_t*>(base_);
        const uint8_t* end = hi_;
        if (alloc_lo_ != nullptr && (end == nullptr || end > alloc_hi_)) end = alloc_hi_;
        if (end == nullptr) return ~uint64_t(0);
        return p >= (alloc_lo_ ? alloc_lo_ : lo_) && p < end ? uint64_t(end - p) : 0;
    }

    // Bytes of [index, index + nbytes) that may be touched (a prefix); reports the rest. The hard
    // bound is the host allocation (bytes outside it are skipped: gm-out-of-bounds); bytes past the
    // SetGlobalBuffer length but inside the allocation are copied like the NPU does, with a note
    // (gm-beyond-buffer). Without a known allocation the length is the bound.
    uint64_t acemu_in_bounds(const char* api, const char* verb, int64_t elem_index, uint64_t nbytes, const char* file, int line) const {
        return acemu_in_bounds_b(api, verb, elem_index * int64_t(sizeof(T)), nbytes, file, line);
    }
    uint64_t acemu_in_bounds_b(const char* api, const char* verb, int64_t byte_off, uint64_t nbytes, const char* file, int line) const {
        const uint8_t* p = reinterpret_cast<const uint8_t*>(base_) + byte_off;
        if (lo_ == nullptr) {
            acemu::rt::report(acemu::GM_OOB, api, file, line,
                              "%s %s %llu B through a GlobalTensor<%s> that has no GM behind it (SetGlobalBuffer was not called, or "
                              "was given a null pointer); the emulator skipped the access",
                              api, verb, (unsigned long long)nbytes, acemu::type_name<T>());
            return 0;
        }
        const bool known = alloc_lo_ != nullptr;
        const uint8_t* lo = known ? alloc_lo_ : lo_;
        const uint8_t* hi = known ? alloc_hi_ : hi_;
        if (hi == nullptr) return nbytes;  // neither a length nor a known allocation: nothing to check against
        if (p >= lo && p + nbytes <= hi) {
            if (known && hi_ != nullptr && (p < lo_ || p + nbytes > hi_)) {
                const uint64_t past = p + nbytes > hi_ ? uint64_t(p + nbytes - (p > hi_ ? p : hi_)) : 0;
                acemu::rt::report(acemu::GM_BEYOND_BUFFER, api, file, line,
                                  "%s %s %llu B at byte %lld of a GlobalTensor<%s> whose SetGlobalBuffer length (at %s:%d) is %lld B: "
                                  "%llu B lie past that length but inside %s. The NPU does not check the length, "
                                  "so the bytes were %s as on the device; check the length if this was not meant",
                                  api, verb, (unsigned long long)nbytes, (long long)(p - lo_), acemu::type_name<T>(), set_file_, set_line_,
                                  (long long)(hi_ - lo_), (unsigned long long)past, alloc_name().c_str(), verb[0] == 'r' ? "read" : "written");
            }
            return nbytes;
        }
        uint64_t ok = 0;
        if (p >= lo && p < hi) ok = uint64_t(hi - p);
        const char* why = (p < lo) ? "before the start" : "past the end";
        if (known) {
            acemu::rt::report(acemu::GM_OOB, api, file, line,
                              "%s %s %llu B at byte %lld of %s, which has %lld B: %llu B lie %s of the host allocation "
                              "(the GlobalTensor was set at %s:%d). The emulator skipped them; on the NPU they hit whatever lies there",
                              api, verb, (unsigned long long)nbytes, (long long)(p - lo), alloc_name().c_str(), (long long)(hi - lo),
                              (unsigned long long)(nbytes - ok), why, set_file_, set_line_);
        } else {
            acemu::rt::report(acemu::GM_OOB, api, file, line,
                              "%s %s %llu B at byte %lld of a GlobalTensor<%s> whose range (SetGlobalBuffer at %s:%d) is %lld B: "
                              "%llu B lie %s of it. The emulator skipped them; on the NPU they hit whatever lies there",
                              api, verb, (unsigned long long)nbytes, (long long)(p - lo), acemu::type_name<T>(), set_file_, set_line_,
                              (long long)(hi - lo), (unsigned long long)(nbytes - ok), why);
        }
        return p < lo ? 0 : ok;
    }

private:
    std::string alloc_name() const { return arg_ >= 0 ? "kernel argument " + std::to_string(arg_) : std::string("a host tensor"); }
    __gm__ T* base_ = nullptr;
    uint64_t size_ = 0;
    const uint8_t* lo_ = nullptr;        // SetGlobalBuffer's range [lo_, hi_); hi_ null without a length
    const uint8_t* hi_ = nullptr;
    const uint8_t* alloc_lo_ = nullptr;  // the host allocation holding it, when known
    const uint8_t* alloc_hi_ = nullptr;
    const char* set_file_ = "?";
    int set_line_ = 0;
    int arg_ = -1;
};

}  // namespace AscendC
