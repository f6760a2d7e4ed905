// The UB pipe-order check (base.h: `ub_track`): per worker thread, the pipes' clocks, the flags,
// the queues' released clocks and, per 32-B granule of UB, the last writer and each pipe's last
// reader; a `pipe-hazard` finding where a V / MTE2 / MTE3 access meets another pipe's unordered one.
// The same model as the cube memories' check (cube.h), on the vector core's UB.
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "kernel_operator.h"

namespace acemu {
namespace rt {
namespace {

constexpr int kPipes = cube::NPIPE;
constexpr int kEventIds = 16;
constexpr size_t kMaxInstrs = size_t(4) << 20;  // past this a block goes unchecked (memory), never wrongly flagged

struct Instr {
    int8_t pipe;
    uint32_t time;  // the pipe's instruction count when this one issued
    const char* api;
    const char* file;
    int line;
};
struct Flag {
    int pending = 0;
    uint32_t clk[kPipes] = {};
};
struct QueClocks {  // per buffer of a queue: the clocks its EnQue / FreeTensor released
    uint32_t enq[AscendC::detail::kMaxSlots][kPipes];
    uint32_t fre[AscendC::detail::kMaxSlots][kPipes];
};

struct State {
    uint32_t now[kPipes] = {};
    uint32_t know[kPipes][kPipes] = {};  // know[p][q]: pipe p is ordered after the first know[p][q] instructions of q
    std::vector<Instr> instrs{Instr{-1, 0, "?", "?", 0}};
    Flag flags[int(AscendC::HardEvent::MAX)][kEventIds];
    std::unordered_map<uint64_t, QueClocks> queues;
    std::vector<UbGranule> gran;
    uint64_t high = 0;  // granules touched since the block started
    bool off = false;

    void reset() {
        std::memset(gran.data(), 0, (high < gran.size() ? high : gran.size()) * sizeof(UbGranule));
        high = 0;
        std::memset(now, 0, sizeof(now));
        std::memset(know, 0, sizeof(know));
        instrs.resize(1);
        for (auto& row : flags)
            for (Flag& f : row) f = Flag();
        queues.clear();
        off = false;
    }
};

thread_local State* tls_order = nullptr;

State& order_state() {
    if (__builtin_expect(tls_order == nullptr, 0)) tls_order = new State();
    return *tls_order;
}

void learn(uint32_t* row, const uint32_t* clk) {
    for (int q = 0; q < kPipes; ++q)
        if (clk[q] > row[q]) row[q] = clk[q];
}
void learn_all(State& st) {
    for (int p = 0; p < kPipes; ++p) learn(st.know[p], st.now);
}

const char* fix_for(int src, int dst) {
    if (src == cube::P_MTE2 && dst == cube::P_V) return "EnQue/DeQue it through a TQue<VECIN> (or SetFlag/WaitFlag<HardEvent::MTE2_V>)";
    if (src == cube::P_V && dst == cube::P_MTE3) return "EnQue/DeQue it through a TQue<VECOUT> (or SetFlag/WaitFlag<HardEvent::V_MTE3>)";
    if (src == cube::P_V && dst == cube::P_MTE2) return "FreeTensor/AllocTensor it through a queue (or SetFlag/WaitFlag<HardEvent::V_MTE2>)";
    if (src == cube::P_MTE3 && dst == cube::P_V) return "FreeTensor/AllocTensor it through a queue (or SetFlag/WaitFlag<HardEvent::MTE3_V>)";
    if (src == cube::P_MTE2 && dst == cube::P_MTE3) return "SetFlag/WaitFlag<HardEvent::MTE2_MTE3> (or a TQueBind<VECIN, VECOUT>)";
    if (src == cube::P_MTE3 && dst == cube::P_MTE2) return "SetFlag/WaitFlag<HardEvent::MTE3_MTE2>";
    return "PipeBarrier<PIPE_ALL>";
}

}  // namespace

void ub_access(BlockCtx* c, uint64_t off, uint64_t n, bool write) {
    State& st = order_state();
    if (st.off || c->ub_pipe == 0) return;
    const uint64_t g0 = off >> 5, g1 = (off + n - 1) >> 5;
    if (g1 >= st.gran.size()) {
        st.gran.resize(std::max<uint64_t>({g1 + 1, 2 * st.gran.size(), c->ub_bytes >> 5}));  // the SoC's UB; more only for an overflow
        c->ub_gran = st.gran.data();
        c->ub_gran_n = st.gran.size();
    }
    if (!c->ub_issued) {
        if (st.instrs.size() >= kMaxInstrs) {
            st.off = true;
            return;
        }
        const int p = c->ub_pipe;
        st.now[p] += 1;
        st.instrs.push_back({int8_t(p), st.now[p], c->api ? c->api : "?", c->file ? c->file : "?", c->line});
        c->ub_instr = uint32_t(st.instrs.size() - 1);
        c->ub_issued = true;
    }
    if (g1 + 1 > st.high) st.high = g1 + 1;
    const uint32_t id = c->ub_instr;
    const Instr me = st.instrs[id];
    const int p = me.pipe;
    const int slot = ub_slot(p);
    // Checking: only when some other pipe issued work this one is not ordered after (after a DeQue,
    // AllocTensor, WaitFlag or barrier that covers everything, nothing can conflict), and then
    // only where the records change (a buffer is mostly one run of equal records).
    bool ordered = true;
    for (int q = 0; q < kPipes; ++q)
        if (q != p && st.now[q] > st.know[p][q]) ordered = false;
    if (!ordered) {
        uint64_t prev[2] = {~uint64_t(0), ~uint64_t(0)};
        for (uint64_t g = g0; g <= g1; ++g) {
            UbGranule& gr = st.gran[g];
            uint64_t cur[2];
            std::memcpy(cur, &gr, sizeof(cur));
            if (cur[0] == prev[0] && cur[1] == prev[1]) continue;
            prev[0] = cur[0];
            prev[1] = cur[1];
            const Instr* other = nullptr;
            bool war = false;
            if (gr.w && gr.w != id) {
                const Instr& o = st.instrs[gr.w];
                if (o.pipe != p && o.time > st.know[p][o.pipe]) other = &o;
            }
            if (!other && write) {
                for (int s = 0; s < 3; ++s) {
                    if (s == slot || gr.r[s] == 0) continue;
                    const Instr& o = st.instrs[gr.r[s]];
                    if (o.time > st.know[p][o.pipe]) { other = &o; war = true; break; }
                }
            }
            if (!other) continue;
            const int q = other->pipe;
            const char* src = cube::kPipeName[q];
            const char* dst = cube::kPipeName[p];
            if (war) {
                report(PIPE_HAZARD, me.api, me.file, me.line,
                       "%s (pipe %s) overwrites UB bytes from offset %llu that %s (pipe %s) at %s:%d reads, with no queue, flag or "
                       "PipeBarrier<PIPE_ALL> ordering them: the pipes run in parallel, so on the NPU the read may see the new data. "
                       "Fix: %s between them",
                       me.api, dst, (unsigned long long)(g << 5), other->api, src, other->file, other->line, fix_for(q, p));
            } else {
                report(PIPE_HAZARD, me.api, me.file, me.line,
                       "%s (pipe %s) %s UB bytes from offset %llu that %s (pipe %s) at %s:%d writes, with no queue, flag or "
                       "PipeBarrier<PIPE_ALL> ordering them: the pipes run in parallel, so on the NPU it may %s. Fix: %s between them",
                       me.api, dst, write ? "overwrites" : "reads", (unsigned long long)(g << 5), other->api, src, other->file,
                       other->line, write ? "land before the earlier write" : "read the data before the write lands", fix_for(q, p));
            }
            // Each missing sync once: from here on the pipes count as ordered.
            if (other->time > st.know[p][q]) st.know[p][q] = other->time;
            break;
        }
    }
    // Recording: this instruction is the granules' writer, or their reader on its pipe.
    UbGranule* gr = st.gran.data();
    if (write) {
        const UbGranule w{id, {0, 0, 0}};
        for (uint64_t g = g0; g <= g1; ++g) gr[g] = w;
    } else {
        for (uint64_t g = g0; g <= g1; ++g) gr[g].r[slot] = id;
    }
}

void ub_sync(BlockCtx* c, int kind, uint64_t a, uint64_t b) {
    (void)c;
    State& st = order_state();
    switch (kind) {
        case trace::ENQUE:
        case trace::FREE: {
            QueClocks& qc = st.queues[a];
            const int s = int(b & 0xff) % AscendC::detail::kMaxSlots;
            std::memcpy(kind == trace::ENQUE ? qc.enq[s] : qc.fre[s], st.now, sizeof(st.now));
            break;
        }
        case trace::DEQUE:
        case trace::ALLOC: {
            auto it = st.queues.find(a);
            if (it == st.queues.end()) break;  // nothing released on this queue yet
            const int s = int(b & 0xff) % AscendC::detail::kMaxSlots;
            const uint32_t* clk = kind == trace::DEQUE ? it->second.enq[s] : it->second.fre[s];
            for (int p = 0; p < kPipes; ++p) learn(st.know[p], clk);
            break;
        }
        case trace::SET_FLAG:
        case trace::WAIT_FLAG: {
            if (a >= uint64_t(AscendC::HardEvent::MAX) || b >= uint64_t(kEventIds)) break;
            Flag& f = st.flags[a][b];
            const cube::EventPipes ep = cube::kEventPipes[a];
            if (kind == trace::SET_FLAG) {
                std::memcpy(f.clk, st.know[int(ep.src)], sizeof(f.clk));
                f.clk[int(ep.src)] = st.now[int(ep.src)];
                f.pending += 1;
            } else if (f.pending > 0) {
                f.pending -= 1;
                learn(st.know[int(ep.dst)], f.clk);
            }
            break;
        }
        case trace::BARRIER:
            if (a == uint64_t(PIPE_ALL)) learn_all(st);
            break;
        case trace::SYNC_ALL: learn_all(st); break;
        default: break;
    }
}

// A block starts on this thread: UB is fresh, nothing is ordered or pending.
void ub_order_begin_block(BlockCtx* c) {
    c->ub_pipe = 0;
    c->ub_issued = false;
    c->ub_instr = 0;
    if (tls_order) {
        tls_order->reset();
        c->ub_gran = tls_order->gran.data();
        c->ub_gran_n = tls_order->gran.size();
    } else {
        c->ub_gran = nullptr;
        c->ub_gran_n = 0;
    }
}
void ub_order_end_thread() {
    delete tls_order;
    tls_order = nullptr;
}

}  // namespace rt
}  // namespace acemu
