// TPipe, TQue / TQueBind, TBuf, synchronisation and block queries.
#pragma once
#include "pipe_order.h"
#include "tensor.h"

// The cube core's memories and pipe clock live in cube.h; queues, TBuf and TPipe reach them here.
namespace acemu {
namespace cube {
inline bool is_cube_position(AscendC::TPosition pos);
// InitBuffer at a cube position: `num` buffers of `len` bytes (each rounded up to the memory's
// alignment, `*slot_len`) from that memory's arena; returns its base, `*offset` the first buffer.
inline uint8_t* take(AscendC::TPosition pos, uint64_t len, int num, const char* file, int line, uint64_t* offset, uint64_t* slot_len);
inline void reset_arenas();
}  // namespace cube
}  // namespace acemu

namespace AscendC {

class TPipe;

namespace detail {
enum SlotState : uint8_t { SLOT_FREE = 0, SLOT_ALLOCATED, SLOT_ENQUEUED, SLOT_DEQUEUED };

struct SoftAlloc {  // UB for a buffer handed out although the queue/pipe had none: keeps a buggy kernel running
    static uint8_t* take(acemu::BlockCtx* c, uint64_t bytes) {
        static thread_local uint64_t cursor = 0;
        static thread_local const uint8_t* ub = nullptr;
        if (ub != c->ub) { ub = c->ub; cursor = 0; }
        uint64_t half_cap = c->ub_capacity / 2;
        bytes = (bytes + 31) & ~uint64_t(31);
        if (cursor + bytes > half_cap) cursor = 0;
        uint8_t* p = c->ub + half_cap + cursor;
        cursor += bytes;
        return p;
    }
};
}  // namespace detail

// Common state of TQue and TQueBind: `num` slots of `len` bytes, a FIFO of enqueued slots.
class TQueBase {
public:
    TQueBase() = default;
    TQueBase(const TQueBase&) = delete;
    TQueBase& operator=(const TQueBase&) = delete;
    ~TQueBase() { acemu_check_leaks(); }

    // The buffer behind AllocTensor (both forms; TQueBind checks the form against the depth).
    template <typename T> LocalTensor<T> acemu_alloc(ACEMU_SITE_PARAMS) {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "AllocTensor", ACEMU_SITE);
        if (num_ == 0) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "AllocTensor", ACEMU_SITE,
                              "AllocTensor on a queue that has no buffers: call pipe.InitBuffer(queue, num, bytes) in Init first");
            return LocalTensor<T>(reinterpret_cast<T*>(detail::SoftAlloc::take(c, 32)), 32 / sizeof(T), pos_);
        }
        for (int k = 0; k < num_; ++k) {
            int i = (next_ + k) % num_;
            if (state_[i] == detail::SLOT_FREE) {
                state_[i] = detail::SLOT_ALLOCATED;
                alloc_file_[i] = acemu_site.file;
                alloc_line_[i] = acemu_site.line;
                next_ = (i + 1) % num_;
                trace(c, acemu::trace::ALLOC, "AllocTensor", i, ACEMU_SITE);
                return LocalTensor<T>(reinterpret_cast<T*>(base_ + off_[i]), uint32_t(len_ / sizeof(T)), pos_);
            }
        }
        acemu::rt::report(acemu::QUEUE_MISUSE, "AllocTensor", ACEMU_SITE,
                          "AllocTensor on a queue whose %d buffer(s) are all in use (the first was allocated at %s:%d and not freed yet); "
                          "on the NPU this call waits forever. FreeTensor a buffer before allocating again, or give the queue more buffers in InitBuffer",
                          num_, alloc_file_[0], alloc_line_[0]);
        return LocalTensor<T>(reinterpret_cast<T*>(detail::SoftAlloc::take(c, len_)), uint32_t(len_ / sizeof(T)), pos_);
    }

    template <typename T> bool EnQue(const LocalTensor<T>& t, ACEMU_SITE_PARAMS) {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "EnQue", ACEMU_SITE);
        int i = slot_of(c, t.acemu_ptr());
        if (i < 0) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "EnQue", ACEMU_SITE,
                              "EnQue of a tensor that was not allocated from this queue (AllocTensor on another queue or a TBuf?)");
            return false;
        }
        if (state_[i] == detail::SLOT_ENQUEUED) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "EnQue", ACEMU_SITE, "EnQue of a tensor that is already in the queue");
            return false;
        }
        if (state_[i] == detail::SLOT_FREE) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "EnQue", ACEMU_SITE, "EnQue of a tensor that was already freed (FreeTensor before EnQue)");
        }
        if (count_ >= depth_) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "EnQue", ACEMU_SITE,
                              "EnQue beyond the queue depth: %d tensor(s) already wait in a queue of depth %d; on the NPU this blocks. "
                              "DeQue before the next EnQue, or raise the depth template argument",
                              count_, depth_);
        }
        if (count_ < detail::kMaxSlots) {
            fifo_[(head_ + count_) % detail::kMaxSlots] = int8_t(i);
            ++count_;
        }
        state_[i] = detail::SLOT_ENQUEUED;
        trace(c, acemu::trace::ENQUE, "EnQue", i, ACEMU_SITE);
        return true;
    }

    template <typename T> LocalTensor<T> acemu_deque(ACEMU_SITE_PARAMS) {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "DeQue", ACEMU_SITE);
        if (count_ == 0) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "DeQue", ACEMU_SITE,
                              "DeQue on an empty queue: nothing was EnQue'd since the last DeQue; on the NPU this waits forever. "
                              "Every AllocTensor that feeds this queue needs an EnQue");
            // Continue as if the EnQue had been there (its pipe order too: one bug, one finding), with the
            // most recently allocated buffer: that is what the kernel meant to pass on.
            acemu::rt::ub_sync(c, acemu::trace::SYNC_ALL, 0, 0);
            for (int k = 1; k <= num_; ++k) {
                int i = (next_ - k + num_) % num_;
                if (state_[i] == detail::SLOT_ALLOCATED) {
                    state_[i] = detail::SLOT_DEQUEUED;
                    return LocalTensor<T>(reinterpret_cast<T*>(base_ + off_[i]), uint32_t(len_ / sizeof(T)), pos_);
                }
            }
            uint64_t len = len_ ? len_ : 32;
            return LocalTensor<T>(reinterpret_cast<T*>(detail::SoftAlloc::take(c, len)), uint32_t(len / sizeof(T)), pos_);
        }
        int i = fifo_[head_];
        head_ = (head_ + 1) % detail::kMaxSlots;
        --count_;
        state_[i] = detail::SLOT_DEQUEUED;
        trace(c, acemu::trace::DEQUE, "DeQue", i, ACEMU_SITE);
        return LocalTensor<T>(reinterpret_cast<T*>(base_ + off_[i]), uint32_t(len_ / sizeof(T)), pos_);
    }

    template <typename T> void FreeTensor(const LocalTensor<T>& t, ACEMU_SITE_PARAMS) {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "FreeTensor", ACEMU_SITE);
        int i = slot_of(c, t.acemu_ptr());
        if (i < 0) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "FreeTensor", ACEMU_SITE,
                              "FreeTensor of a tensor that does not belong to this queue: free it on the queue it was allocated from");
            return;
        }
        if (state_[i] == detail::SLOT_FREE) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "FreeTensor", ACEMU_SITE,
                              "FreeTensor of a tensor that is already free (freed twice, or never allocated)");
            return;
        }
        if (state_[i] == detail::SLOT_ENQUEUED) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "FreeTensor", ACEMU_SITE,
                              "FreeTensor of a tensor that is still in the queue: DeQue it first");
            drop_from_fifo(i);
        }
        state_[i] = detail::SLOT_FREE;
        trace(c, acemu::trace::FREE, "FreeTensor", i, ACEMU_SITE);
    }

    bool VacantInQue() const { return count_ < depth_; }
    bool HasTensorInQue() const { return count_ > 0; }
    int32_t GetTensorCountInQue() const { return count_; }
    bool HasIdleBuffer() const {
        for (int i = 0; i < num_; ++i) if (state_[i] == detail::SLOT_FREE) return true;
        return false;
    }
    void FreeAllEvent() {}

    TPosition acemu_position() const { return pos_; }
    // Called by TPipe::InitBuffer: `num` buffers of `len` bytes from `offset` of the memory at `base`.
    void acemu_init(uint8_t* base, int num, uint64_t offset, uint64_t len, const char* file, int line) {
        if (num > detail::kMaxSlots) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "InitBuffer", file, line, "InitBuffer with %d buffers; the emulator supports at most %d", num, detail::kMaxSlots);
            num = detail::kMaxSlots;
        }
        base_ = base;
        cube_ = acemu::cube::is_cube_position(pos_);
        num_ = num;
        len_ = len;
        for (int i = 0; i < num; ++i) { off_[i] = offset + uint64_t(i) * len; state_[i] = detail::SLOT_FREE; }
        head_ = count_ = next_ = 0;
        init_file_ = file;
        init_line_ = line;
    }
    void acemu_check_leaks() {
        if (acemu::tls_ctx == nullptr) return;
        for (int i = 0; i < num_; ++i) {
            if (state_[i] == detail::SLOT_FREE) continue;
            const char* what = state_[i] == detail::SLOT_ENQUEUED ? "still waits in the queue (EnQue'd, never DeQue'd)"
                                                                     : "was never freed (FreeTensor missing)";
            acemu::rt::report(acemu::QUEUE_MISUSE, "AllocTensor", alloc_file_[i], alloc_line_[i],
                              "at kernel end a tensor allocated here %s; on the NPU the next AllocTensor on this queue would wait forever",
                              what);
            state_[i] = detail::SLOT_FREE;
        }
    }

protected:
    // A queue operation for the pipe trace: which queue, which buffer, and the positions that say
    // which pipes it orders (its producer writes at `pos_`, its consumer reads at `dst_pos_`).
    void trace(acemu::BlockCtx* c, int kind, const char* api, int slot, const char* file, int line) const {
        acemu::trace::sync_op(c, kind, api, file, line, uint64_t(reinterpret_cast<uintptr_t>(this)),
                              uint64_t(slot) | uint64_t(pos_) << 8 | uint64_t(dst_pos_) << 16);
    }
    int slot_of(acemu::BlockCtx* c, const void* p) const {
        (void)c;
        const uint8_t* b = static_cast<const uint8_t*>(p);
        if (base_ == nullptr || b < base_) return -1;
        uint64_t off = uint64_t(b - base_);
        for (int i = 0; i < num_; ++i) if (off_[i] == off) return i;
        return -1;
    }
    void drop_from_fifo(int slot) {
        int kept = 0;
        int8_t tmp[detail::kMaxSlots];
        for (int k = 0; k < count_; ++k) {
            int8_t s = fifo_[(head_ + k) % detail::kMaxSlots];
            if (s != slot) tmp[kept++] = s;
        }
        head_ = 0;
        count_ = kept;
        for (int k = 0; k < kept; ++k) fifo_[k] = tmp[k];
    }
    int depth_ = 1;
    TPosition pos_ = TPosition::VECIN;
    TPosition dst_pos_ = TPosition::VECIN;  // TQueBind's destination (TQue: the same position)
    uint8_t* base_ = nullptr;  // the memory the buffers are in: UB, or L1 / L0 for the cube positions
    bool cube_ = false;
    int num_ = 0;
    uint64_t len_ = 0;
    uint64_t off_[detail::kMaxSlots] = {};
    uint8_t state_[detail::kMaxSlots] = {};
    const char* alloc_file_[detail::kMaxSlots] = {};
    int alloc_line_[detail::kMaxSlots] = {};
    int8_t fifo_[detail::kMaxSlots] = {};
    int head_ = 0, count_ = 0, next_ = 0;
    const char* init_file_ = "?";
    int init_line_ = 0;
};

// The queue's depth chooses the API form (AllocTensor / DeQue reference pages): a non-zero depth
// takes the non-inplace forms that return a tensor, depth 0 the inplace forms that fill the
// caller's tensor (and does not bound the EnQue count).
// @api TQue, TQueBind, AllocTensor, EnQue, DeQue, FreeTensor | yes: the non-inplace AllocTensor<T>() / DeQue<T>() on a depth-0 queue do not compile; the inplace forms fill their argument | TQue
template <TPosition src, TPosition dst, int32_t depth, auto mask = 0> class TQueBind : public TQueBase {
public:
    TQueBind() { depth_ = depth > 0 ? depth : detail::kMaxSlots; pos_ = src; dst_pos_ = dst; }

    template <typename T> LocalTensor<T> AllocTensor(ACEMU_SITE_PARAMS) {
        static_assert(depth != 0, "AllocTensor<T>() (non-inplace) needs a queue whose depth template argument is not 0; "
                                  "a depth-0 queue takes the inplace form AllocTensor(tensor) (API reference: AllocTensor)");
        return this->template acemu_alloc<T>(acemu_site);
    }
    template <typename T> void AllocTensor(LocalTensor<T>& tensor, ACEMU_SITE_PARAMS) {
        tensor = this->template acemu_alloc<T>(acemu_site);
    }
    template <typename T> LocalTensor<T> DeQue(ACEMU_SITE_PARAMS) {
        static_assert(depth != 0, "DeQue<T>() (non-inplace) needs a queue whose depth template argument is not 0; "
                                  "a depth-0 queue takes the inplace form DeQue(tensor) (API reference: DeQue)");
        return this->template acemu_deque<T>(acemu_site);
    }
    template <typename T> void DeQue(LocalTensor<T>& tensor, ACEMU_SITE_PARAMS) {
        tensor = this->template acemu_deque<T>(acemu_site);
    }
};

template <TPosition pos, int32_t depth, auto mask = 0> class TQue : public TQueBind<pos, pos, depth, mask> {};

// @api TBuf, Get, GetWithOffset, FreeTensor | yes: TBuf::FreeTensor (not on the TBuf page) releases nothing | TBuf
template <TPosition pos = TPosition::VECCALC> class TBuf {
public:
    template <typename T> LocalTensor<T> Get(ACEMU_SITE_PARAMS) const {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "TBuf::Get", ACEMU_SITE);
        if (!init_) no_buffer(ACEMU_SITE);
        return LocalTensor<T>(reinterpret_cast<T*>(base(c) + off_), uint32_t(len_ / sizeof(T)), pos);
    }
    template <typename T> LocalTensor<T> Get(uint32_t count, ACEMU_SITE_PARAMS) const {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "TBuf::Get", ACEMU_SITE);
        if (!init_) no_buffer(ACEMU_SITE);
        acemu::check_extent(c, "TBuf::Get", "the TBuf", uint64_t(count) * sizeof(T), len_, ACEMU_SITE);
        return LocalTensor<T>(reinterpret_cast<T*>(base(c) + off_), count, pos);
    }
    template <typename T> LocalTensor<T> GetWithOffset(uint32_t count, uint32_t byteOffset, ACEMU_SITE_PARAMS) const {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "TBuf::GetWithOffset", ACEMU_SITE);
        if (!init_) no_buffer(ACEMU_SITE);
        acemu::check_extent(c, "TBuf::GetWithOffset", "the TBuf", uint64_t(byteOffset) + uint64_t(count) * sizeof(T), len_, ACEMU_SITE);
        return LocalTensor<T>(reinterpret_cast<T*>(base(c) + off_ + byteOffset), count, pos);
    }
    // Kernels ported from queues call FreeTensor on a TBuf's tensor too, and the device toolchain
    // takes it: a TBuf holds no allocation state, so it releases nothing (the tensor stays valid,
    // the next Get returns the same memory). A tensor from elsewhere is queue-misuse.
    template <typename T> void FreeTensor(const LocalTensor<T>& t, ACEMU_SITE_PARAMS) const {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "TBuf::FreeTensor", ACEMU_SITE);
        const uint8_t* p = reinterpret_cast<const uint8_t*>(t.acemu_ptr());
        const uint8_t* b = init_ ? base(c) + off_ : nullptr;
        if (b == nullptr || p < b || p >= b + len_) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "TBuf::FreeTensor", ACEMU_SITE,
                              "TBuf::FreeTensor of a tensor that this TBuf did not give (Get / GetWithOffset)");
        }
    }
    void acemu_init(uint8_t* base, uint64_t off, uint64_t len) { base_ = base; off_ = off; len_ = len; init_ = true; }

private:
    void no_buffer(const char* file, int line) const {
        acemu::rt::report(acemu::QUEUE_MISUSE, "TBuf::Get", file, line, "TBuf::Get on a buffer that pipe.InitBuffer never sized");
    }
    uint8_t* base(acemu::BlockCtx* c) const { return base_ ? base_ : c->ub; }
    uint8_t* base_ = nullptr;
    uint64_t off_ = 0;
    uint64_t len_ = 0;
    bool init_ = false;
};

// @api TPipe, InitBuffer, FetchEventID, AllocEventID, ReleaseEventID | yes: the UB limit is GetCoreMemSize(UB) of the SoC table | TPipe
class TPipe {
public:
    TPipe() { acemu::ctx()->pipe = this; }
    ~TPipe() {
        acemu::BlockCtx* c = acemu::tls_ctx;
        if (c && c->pipe == this) c->pipe = nullptr;
    }
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;

    void InitBuffer(TQueBase& que, uint8_t num, uint32_t len, ACEMU_SITE_PARAMS) {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "InitBuffer", ACEMU_SITE);
        uint64_t rlen = (uint64_t(len) + 31) & ~uint64_t(31);
        if (acemu::cube::is_cube_position(que.acemu_position())) {  // L1 / L0: that memory's arena and alignment
            uint64_t off = 0;
            uint8_t* base = acemu::cube::take(que.acemu_position(), len, num, ACEMU_SITE, &off, &rlen);
            que.acemu_init(base, num, off, rlen, ACEMU_SITE);
            return;
        }
        uint64_t off = take(c, uint64_t(num) * rlen, "InitBuffer", ACEMU_SITE);
        que.acemu_init(c->ub, num, off, rlen, ACEMU_SITE);
    }
    template <TPosition P> void InitBuffer(TBuf<P>& buf, uint32_t len, ACEMU_SITE_PARAMS) {
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "InitBuffer", ACEMU_SITE);
        uint64_t rlen = (uint64_t(len) + 31) & ~uint64_t(31);
        if (acemu::cube::is_cube_position(P)) {
            uint64_t off = 0;
            uint8_t* base = acemu::cube::take(P, len, 1, ACEMU_SITE, &off, &rlen);
            buf.acemu_init(base, off, rlen);
            return;
        }
        buf.acemu_init(c->ub, take(c, rlen, "InitBuffer", ACEMU_SITE), rlen);
    }
    void Init() {}
    // Gives all UB back (queues and buffers initialised before must not be used afterwards).
    void Reset() { used_ = 0; acemu::cube::reset_arenas(); }
    void Destroy() { used_ = 0; acemu::cube::reset_arenas(); }

    template <HardEvent evt> TEventID FetchEventID() { return TEventID(next_event_++ & 7); }
    TEventID FetchEventID(HardEvent) { return TEventID(next_event_++ & 7); }
    template <HardEvent evt> TEventID AllocEventID() { return TEventID(next_event_++ & 7); }
    template <HardEvent evt> void ReleaseEventID(TEventID) {}

    uint64_t acemu_used() const { return used_; }

private:
    uint64_t take(acemu::BlockCtx* c, uint64_t bytes, const char* api, const char* file, int line) {
        uint64_t off = used_;
        used_ += bytes;
        acemu::rt::note_initbuffer_total(used_);
        if (used_ > c->ub_bytes && off <= c->ub_bytes) {
            acemu::rt::report(acemu::UB_OVERFLOW, api, file, line,
                              "InitBuffer brings this pipe's UB total to %llu B, but the SoC has only %llu B of UB: %llu B too many. "
                              "On the NPU the buffers overlap or the launch fails. Shrink the tile size or the number of buffers",
                              (unsigned long long)used_, (unsigned long long)c->ub_bytes, (unsigned long long)(used_ - c->ub_bytes));
        } else if (used_ > c->ub_usable && off <= c->ub_usable) {
            // GetCoreMemSize(UB) reports the UB less what the runtime keeps; a tiling that divides that
            // size among buffers can pass it by InitBuffer's rounding of each length up to 32 B. The
            // NPU does not stop it, so it is a note, not a finding.
            acemu::rt::report(acemu::UB_RESERVED, api, file, line,
                              "InitBuffer brings this pipe's UB total to %llu B, %llu B past the %llu B GetCoreMemSize(UB) reports "
                              "(InitBuffer rounds each length up to 32 B) and into the %llu B the runtime keeps at the end of UB",
                              (unsigned long long)used_, (unsigned long long)(used_ - c->ub_usable), (unsigned long long)c->ub_usable,
                              (unsigned long long)(c->ub_bytes - c->ub_usable));
        }
        if (used_ > c->ub_capacity / 2) used_ = c->ub_capacity / 2;  // the emulator's reserve ends here
        if (used_ > c->ub_high) c->ub_high = used_;
        return off;
    }
    uint64_t used_ = 0;
    uint32_t next_event_ = 0;
};

// @api GetTPipePtr, GetBlockIdx, GetBlockNum | yes | GetBlockIdx
inline TPipe* GetTPipePtr() { return static_cast<TPipe*>(acemu::ctx()->pipe); }

inline int64_t GetBlockIdx() { return acemu::ctx()->block_idx; }
inline int64_t GetBlockNum() { return acemu::ctx()->block_num; }

// The emulator runs every instruction of a block to completion before the next one starts, so the
// pipes are always in order: barriers and flags have nothing left to wait for. They are recorded
// all the same: the pipe-order check (pipe_order.h) asks whether the program orders a pipe's
// access after another pipe's, on UB and the cube memories, as the NPU would need.
// @api PipeBarrier, SetFlag, WaitFlag | yes: event IDs outside 0..7 are api-misuse | SetFlag
template <pipe_t pipe> inline void PipeBarrier(ACEMU_SITE_PARAMS) {
    acemu::trace::sync_op(acemu::ctx(), acemu::trace::BARRIER, "PipeBarrier", ACEMU_SITE, uint64_t(pipe));
}
inline void pipe_barrier(pipe_t pipe, ACEMU_SITE_PARAMS) {
    acemu::trace::sync_op(acemu::ctx(), acemu::trace::BARRIER, "PipeBarrier", ACEMU_SITE, uint64_t(pipe));
}
// Each pipe pair has eight event IDs (EVENT_ID0..EVENT_ID7); another value is not a valid flag.
namespace detail {
inline void check_event_id(const char* api, int32_t id, const char* file, int line) {
    if (__builtin_expect(id < 0 || id > 7, 0)) {
        acemu::rt::report(acemu::API_MISUSE, api, file, line,
                          "%s with event ID %d: event IDs are 0..7 (EVENT_ID0..EVENT_ID7, or one from TPipe::FetchEventID / "
                          "AllocEventID); on the NPU another value waits on or sets a flag that does not exist",
                          api, int(id));
    }
}
}  // namespace detail
template <HardEvent evt> inline void SetFlag(int32_t eventID, ACEMU_SITE_PARAMS) {
    detail::check_event_id("SetFlag", eventID, ACEMU_SITE);
    acemu::trace::sync_op(acemu::ctx(), acemu::trace::SET_FLAG, "SetFlag", ACEMU_SITE, uint64_t(evt), uint64_t(eventID));
}
template <HardEvent evt> inline void WaitFlag(int32_t eventID, ACEMU_SITE_PARAMS) {
    detail::check_event_id("WaitFlag", eventID, ACEMU_SITE);
    acemu::trace::sync_op(acemu::ctx(), acemu::trace::WAIT_FLAG, "WaitFlag", ACEMU_SITE, uint64_t(evt), uint64_t(eventID));
}
// Atomic GM accumulation for the following copies to GM (DataCopy / DataCopyPad / SetValue).
// @api SetAtomicAdd, SetAtomicMax, SetAtomicMin, SetAtomicNone, SetAtomicType, DisableDmaAtomic | yes | SetAtomicAdd
template <typename T> inline void SetAtomicAdd() { auto* c = acemu::ctx(); c->atomic_op = acemu::ATOMIC_ADD; c->atomic_dtype = acemu::dtype_of<T>(); }
template <typename T> inline void SetAtomicMax() { auto* c = acemu::ctx(); c->atomic_op = acemu::ATOMIC_MAX; c->atomic_dtype = acemu::dtype_of<T>(); }
template <typename T> inline void SetAtomicMin() { auto* c = acemu::ctx(); c->atomic_op = acemu::ATOMIC_MIN; c->atomic_dtype = acemu::dtype_of<T>(); }
inline void SetAtomicNone() { acemu::ctx()->atomic_op = acemu::ATOMIC_NONE; }
inline void DisableDmaAtomic() { SetAtomicNone(); }  // the CANN 9 name of SetAtomicNone
// The element type of the atomic operation already set (SetAtomicAdd / Max / Min).
template <typename T> inline void SetAtomicType() { acemu::ctx()->atomic_dtype = acemu::dtype_of<T>(); }

// All-core barrier (the hardware form, no workspace): a block waits until every block of the
// launch has reached it; GM written before it, atomic adds included, is visible after it.
// Using it makes the runtime run every block of the launch on its own thread (a barrier needs
// them all alive at once), which is what `uses_sync_all` registers before main. CANN supports
// this form in op projects only (with a non-zero workspace); a kernel-launch (<<<>>>) project uses
// the soft form below.
// @api SyncAll | yes: the all-block barrier of both forms; subsets of usedCores are not modelled | SyncAll
template <bool isAIVOnly = true> inline void SyncAll(ACEMU_SITE_PARAMS) {
    (void)&acemu::rt::uses_sync_all<isAIVOnly>;
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "SyncAll", ACEMU_SITE);
    acemu::trace::sync_op(c, acemu::trace::SYNC_ALL, "SyncAll", ACEMU_SITE, 0);
    acemu::rt::sync_all(ACEMU_SITE);
}

// The same barrier, soft form: the cores keep their state in `gmWorkspace`, shared, at least 32 B
// per core and zero before the launch (host-zeroed, or zeroed whole by every core before its first
// SyncAll), and in `ubWorkspace`, each core's own, at least 32 B per core (VECIN/VECCALC/VECOUT).
// `usedCores` 0 means every block of the launch. Sizes, position and the zeroed GM are checked
// (findings `sync-all-workspace`); SyncAll writes its flags into both areas, so a kernel that
// reuses them for data sees its data change. The emulator models the all-block barrier only.
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, const int32_t usedCores = 0,
                    ACEMU_SITE_PARAMS) {
    static_assert(isAIVOnly, "SyncAll's soft form (gmWorkspace, ubWorkspace) syncs vector cores only: isAIVOnly must be true");
    (void)&acemu::rt::uses_sync_all<isAIVOnly>;
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "SyncAll", ACEMU_SITE);
    acemu::order_scalar(c);  // its flags in ubWorkspace are the barrier's own, not a pipe's
    if (usedCores < 0 || usedCores > c->block_num) {
        acemu::rt::report(acemu::SYNC_MISMATCH, "SyncAll", ACEMU_SITE,
                          "SyncAll(gmWorkspace, ubWorkspace, usedCores = %d): usedCores must be 0 (every block) or at most the "
                          "launch's %d blocks", int(usedCores), int(c->block_num));
    } else if (usedCores != 0 && usedCores != c->block_num) {
        acemu::rt::report(acemu::SYNC_MISMATCH, "SyncAll", ACEMU_SITE,
                          "SyncAll(gmWorkspace, ubWorkspace, usedCores = %d) syncs a subset of the launch's %d blocks, which the "
                          "emulator does not model: it waits for every block", int(usedCores), int(c->block_num));
    }
    const uint64_t need = uint64_t(c->block_num) * acemu::kBlock;  // 32 B per core of the launch
    void* gm = gmWorkspace.GetPhyAddr();
    const uint64_t gm_have = gm ? gmWorkspace.acemu_range_bytes() : 0;
    if (gm == nullptr) {
        acemu::rt::report(acemu::SYNC_WORKSPACE, "SyncAll", ACEMU_SITE,
                          "SyncAll's gmWorkspace has no GM behind it (SetGlobalBuffer was not called)");
    } else if (gm_have < need) {
        acemu::rt::report(acemu::SYNC_WORKSPACE, "SyncAll", ACEMU_SITE,
                          "SyncAll's gmWorkspace has %llu B but the soft sync needs 32 B per core, %llu B for %d blocks: "
                          "on the NPU the flags of the last cores land in whatever GM follows it",
                          (unsigned long long)gm_have, (unsigned long long)need, int(c->block_num));
    }
    int32_t* ub = ubWorkspace.acemu_ptr();
    const TPosition pos = ubWorkspace.GetPosition();
    if (!acemu::in_ub(c, ub)) {
        acemu::rt::report(acemu::SYNC_WORKSPACE, "SyncAll", ACEMU_SITE,
                          "SyncAll's ubWorkspace is not a UB tensor: give it a LocalTensor<int32_t> from a TBuf or queue");
    } else {
        if (pos != TPosition::VECIN && pos != TPosition::VECCALC && pos != TPosition::VECOUT) {
            acemu::rt::report(acemu::SYNC_WORKSPACE, "SyncAll", ACEMU_SITE,
                              "SyncAll's ubWorkspace must be a VECIN, VECCALC or VECOUT tensor");
        }
        acemu::check_align(c, "SyncAll", "ubWorkspace", ub, ACEMU_SITE);
        uint64_t have = ubWorkspace.acemu_bytes();
        if (have < need) {
            acemu::rt::report(acemu::SYNC_WORKSPACE, "SyncAll", ACEMU_SITE,
                              "SyncAll's ubWorkspace has %llu B but the soft sync needs 32 B per core, %llu B for %d blocks: "
                              "on the NPU it runs into the neighbouring UB buffer",
                              (unsigned long long)have, (unsigned long long)need, int(c->block_num));
        }
        // This core's state: SyncAll owns the whole area while it runs.
        const uint64_t n = (have < need ? have : need) / sizeof(int32_t);
        for (uint64_t i = 0; i < n; ++i) ub[i] = c->block_idx + 1;
        acemu::mark_written(c, ub, n * sizeof(int32_t));
    }
    acemu::trace::sync_op(c, acemu::trace::SYNC_ALL, "SyncAll", ACEMU_SITE, 1);
    acemu::rt::sync_all_soft(gm, gm_have < need ? gm_have : need, ACEMU_SITE);
}

// Cross-core flags of the separated architecture (Atlas A2: cube cores AIC and vector cores AIV;
// API pages CrossCoreSetFlag / CrossCoreWaitFlag). Each core has a counter per flag id (0..10 on
// A2), starting at 0; CrossCoreWaitFlag blocks while its counter is 0, then takes one. A set raises
// counters by mode: 0, once every core of the setter's type has set the id, every one of them;
// 1, once both vector cores of an AI core have set it, both; 2, from a cube core, its two vector
// cores, and from the vector cores, once both have set it, their cube core. A counter takes at
// most 16 sets. A wait no core will ever release is reported (on the NPU the core hangs). GM
// written before a set is visible after the matching wait (the emulator writes GM at once).
// @api CrossCoreSetFlag, CrossCoreWaitFlag | yes: modes 0, 1, 2, flag ids 0..10, at most 16 pending sets; a wait nothing can release is cross-core-sync | CrossCoreSetFlag
constexpr uint16_t kCrossCoreFlags = 11;
template <uint8_t modeId, pipe_t pipe> inline void CrossCoreSetFlag(uint16_t flagId, ACEMU_SITE_PARAMS) {
    static_assert(modeId <= 2, "CrossCoreSetFlag: modeId is 0 (all cores of a type), 1 (the AIVs of an AI core) or 2 (AIC <-> AIV)");
    static_assert(pipe != PIPE_S && pipe != PIPE_ALL, "CrossCoreSetFlag: pipe may not be PIPE_S or PIPE_ALL (API page)");
    (void)&acemu::rt::uses_cross_core<true>;
    acemu::enter(acemu::ctx(), "CrossCoreSetFlag", ACEMU_SITE);
    acemu::trace::mark(acemu::ctx(), acemu::trace::CROSS_SET, "CrossCoreSetFlag", ACEMU_SITE, flagId,
                       uint64_t(modeId) | uint64_t(pipe) << 8);
    acemu::rt::cross_core_set(modeId, flagId, ACEMU_SITE);
}
// The newer pages give the wait the set's template parameters too, with defaults (the set's have
// none): kernels write CrossCoreWaitFlag(id) or CrossCoreWaitFlag<modeId>(id). On A2 (arch 2201)
// neither parameter changes what the wait does, so the defaults' values do not matter here. Being a
// template also means only a kernel that calls it registers the cross-core mode (every core on its
// own thread); as a plain inline function it registered it for every kernel that includes the header.
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S> inline void CrossCoreWaitFlag(uint16_t flagId, ACEMU_SITE_PARAMS) {
    static_assert(modeId <= 2, "CrossCoreWaitFlag: modeId is 0 (all cores of a type), 1 (the AIVs of an AI core) or 2 (AIC <-> AIV)");
    (void)&acemu::rt::uses_cross_core<true>;
    acemu::enter(acemu::ctx(), "CrossCoreWaitFlag", ACEMU_SITE);
    acemu::trace::mark(acemu::ctx(), acemu::trace::CROSS_WAIT, "CrossCoreWaitFlag", ACEMU_SITE, flagId);
    acemu::rt::cross_core_wait(flagId, ACEMU_SITE);
    acemu::rt::ub_sync(acemu::ctx(), acemu::trace::SYNC_ALL, 0, 0);  // the waiting core's pipes resume after it
}

// Inter-block flags in GM (API pages IBSet / IBWait): IBSet sets the flag of (blockIdx, eventID),
// IBWait blocks until that flag is set. The flags are 32-B slots of gmWorkspace, slot
// eventID * cores + blockIdx (the pages' minimum size, cores * 32 B * eventID_max + blockIdx_max *
// 32 B + 32 B, is that layout's end), where cores is GetBlockNum() for isAIVOnly and twice that in
// mixed mode; the area must be zero before the launch. A set flag stays set (the pages say nothing
// of a wait clearing it). ubWorkspace, at least 32 B of VECIN/VECCALC/VECOUT, holds the flag on
// its way to GM. Checked: the sizes, the position, blockIdx in [0, cores) and, for IBWait, not the
// waiting core itself (the page excludes it); a wait nothing can release is cross-core-sync.
// @api IBSet, IBWait | yes: one 32-B flag per (eventID, blockIdx) in gmWorkspace; a set flag stays set | IBSet
namespace detail {
template <bool isAIVOnly>
inline int32_t* ib_flag(const char* api, const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                        int32_t blockIdx, int32_t eventID, const char* file, int line) {
    (void)&acemu::rt::uses_cross_core<true>;
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, api, file, line);
    acemu::order_scalar(c);
    const int32_t cores = int32_t(c->block_num) * (isAIVOnly ? 1 : 2);
    if (blockIdx < 0 || blockIdx >= cores || eventID < 0) {
        acemu::rt::report(acemu::API_MISUSE, api, file, line,
                          "%s(blockIdx = %d, eventID = %d): blockIdx must be in [0, %d) (the cores of the launch%s) and eventID "
                          "not negative", api, int(blockIdx), int(eventID), int(cores), isAIVOnly ? "" : ", twice the blocks in mixed mode");
        return nullptr;
    }
    int32_t* ub = ubWorkspace.acemu_ptr();
    const TPosition pos = ubWorkspace.GetPosition();
    if (!acemu::in_ub(c, ub) || ubWorkspace.acemu_bytes() < acemu::kBlock ||
        (pos != TPosition::VECIN && pos != TPosition::VECCALC && pos != TPosition::VECOUT)) {
        acemu::rt::report(acemu::API_MISUSE, api, file, line,
                          "%s's ubWorkspace must be at least 32 B of a VECIN, VECCALC or VECOUT tensor in UB (API page %s)", api, api);
    } else {
        acemu::check_align(c, api, "ubWorkspace", ub, file, line);
    }
    const int64_t slot = (int64_t(eventID) * cores + blockIdx) * int64_t(acemu::kBlock / sizeof(int32_t));
    const uint64_t need = uint64_t(slot) * sizeof(int32_t) + acemu::kBlock;
    if (gmWorkspace.GetPhyAddr() == nullptr || gmWorkspace.acemu_range_bytes() < need) {
        acemu::rt::report(acemu::API_MISUSE, api, file, line,
                          "%s(blockIdx = %d, eventID = %d) uses gmWorkspace bytes [%llu, %llu), but it has %llu B: the page asks for "
                          "cores * 32 B * eventID_max + blockIdx_max * 32 B + 32 B", api, int(blockIdx), int(eventID),
                          (unsigned long long)(need - acemu::kBlock), (unsigned long long)need,
                          (unsigned long long)(gmWorkspace.GetPhyAddr() ? gmWorkspace.acemu_range_bytes() : 0));
        return nullptr;
    }
    return gmWorkspace.GetPhyAddr() + slot;
}
}  // namespace detail

template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx, int32_t eventID,
                  ACEMU_SITE_PARAMS) {
    int32_t* flag = detail::ib_flag<isAIVOnly>("IBSet", gmWorkspace, ubWorkspace, blockIdx, eventID, ACEMU_SITE);
    if (flag != nullptr) acemu::rt::ib_set(flag, ACEMU_SITE);
}
template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx, int32_t eventID,
                   ACEMU_SITE_PARAMS) {
    acemu::BlockCtx* c = acemu::ctx();
    if (blockIdx == c->block_idx) {
        acemu::rt::report(acemu::API_MISUSE, "IBWait", ACEMU_SITE,
                          "IBWait(blockIdx = %d) on block %d waits for itself; the page's blockIdx excludes the waiting core's own "
                          "(on the NPU it waits for a set it would make later: a hang)", int(blockIdx), int(c->block_idx));
        return;
    }
    int32_t* flag = detail::ib_flag<isAIVOnly>("IBWait", gmWorkspace, ubWorkspace, blockIdx, eventID, ACEMU_SITE);
    if (flag == nullptr) return;
    acemu::rt::ib_wait(flag, blockIdx, ACEMU_SITE);
    acemu::rt::ub_sync(c, acemu::trace::SYNC_ALL, 0, 0);  // the waiting core's pipes resume after it
}

// @api DataCacheCleanAndInvalid | yes: nothing to flush (scalar reads go to GM) | DataCacheCleanAndInvalid
enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
// The scalar unit's data cache: the emulator's scalar reads go straight to GM, so flushing and
// invalidating it has nothing to do (kernels still need it on the NPU before reading GM that
// other cores wrote).
template <typename T, CacheLine entireType, DcciDst dcciDst> inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}
template <typename T, CacheLine entireType> inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}

}  // namespace AscendC
