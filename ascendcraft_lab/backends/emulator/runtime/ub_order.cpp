// The UB side of the pipe-order check (base.h: `ub_track`; the model and the clocks are
// acemu/pipe_order.h, shared with the cube memories): per 32-B granule of UB, the last writer and
// the last reader on V, MTE2 and MTE3; and the dependencies the kernel declares (queues, flags,
// barriers, SyncAll), which order every memory of the core.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernel_operator.h"

namespace acemu {
namespace rt {
namespace {

constexpr size_t kMaxInstrs = size_t(4) << 20;  // past this UB goes unchecked (memory), never wrongly flagged

struct UbRecords {
    std::vector<UbGranule> gran;
    uint64_t high = 0;  // granules touched since the block started
    bool off = false;

    void reset() {
        std::memset(gran.data(), 0, (high < gran.size() ? high : gran.size()) * sizeof(UbGranule));
        high = 0;
        off = false;
    }
};

thread_local UbRecords* tls_ub = nullptr;

UbRecords& ub_records() {
    if (__builtin_expect(tls_ub == nullptr, 0)) tls_ub = new UbRecords();
    return *tls_ub;
}

}  // namespace

void ub_access(BlockCtx* c, uint64_t off, uint64_t n, bool write) {
    UbRecords& ub = ub_records();
    if (ub.off || c->ub_pipe == 0) return;
    order::Clocks& st = order::clocks();
    const uint64_t g0 = off >> 5, g1 = (off + n - 1) >> 5;
    if (g1 >= ub.gran.size()) {
        ub.gran.resize(std::max<uint64_t>({g1 + 1, 2 * ub.gran.size(), c->ub_bytes >> 5}));  // the SoC's UB; more only for an overflow
        c->ub_gran = ub.gran.data();
        c->ub_gran_n = ub.gran.size();
    }
    if (!c->ub_issued) {
        if (st.instrs.size() >= kMaxInstrs) {
            ub.off = true;
            return;
        }
        c->ub_instr = st.issue(c->ub_pipe, c->api ? c->api : "?", c->file ? c->file : "?", c->line);
        c->ub_issued = true;
    }
    if (g1 + 1 > ub.high) ub.high = g1 + 1;
    order::access(st, ub.gran.data(), g0, g1, 5, "UB", c->ub_instr, write, ub_slot);
}

// A dependency the kernel declared (trace.h's sync_op): it orders the pipes on every memory.
void ub_sync(BlockCtx* c, int kind, uint64_t a, uint64_t b, const char* file, int line) {
    (void)c;
    order::Clocks& st = order::clocks();
    const int slot = int(b & 0xff) % AscendC::detail::kMaxSlots;
    switch (kind) {
        case trace::ENQUE: st.queue_release(a, slot, true); break;
        case trace::FREE: st.queue_release(a, slot, false); break;
        case trace::DEQUE: st.queue_acquire(a, slot, true); break;
        case trace::ALLOC: st.queue_acquire(a, slot, false); break;
        case trace::SET_FLAG:
        case trace::WAIT_FLAG:
            st.flag(kind == trace::SET_FLAG, int(a), int(b), file, line);
            break;
        case trace::BARRIER:
            if (a == uint64_t(PIPE_ALL)) st.barrier_all();
            break;
        case trace::SYNC_ALL: st.barrier_all(); break;
        default: break;
    }
}

// A block starts on this thread: UB is fresh, nothing is ordered or pending on any memory.
void ub_order_begin_block(BlockCtx* c) {
    c->ub_pipe = 0;
    c->ub_issued = false;
    c->ub_instr = 0;
    if (order::tls_clocks) order::tls_clocks->reset();
    if (tls_ub) {
        tls_ub->reset();
        c->ub_gran = tls_ub->gran.data();
        c->ub_gran_n = tls_ub->gran.size();
    } else {
        c->ub_gran = nullptr;
        c->ub_gran_n = 0;
    }
}
void ub_order_end_thread() {
    delete tls_ub;
    tls_ub = nullptr;
    delete order::tls_clocks;
    order::tls_clocks = nullptr;
}

}  // namespace rt
}  // namespace acemu
