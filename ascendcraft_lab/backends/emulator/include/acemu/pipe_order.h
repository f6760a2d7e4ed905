// The pipe-order check (the `pipe-hazard` finding), one mechanism for every local memory of a core:
// UB on the vector side (MTE2 writes it, V reads and writes it, MTE3 reads it; runtime/ub_order.cpp)
// and L1 / L0A / L0B / L0C / the bias table on the cube side (MTE2, MTE1, M, FIX; cube.h).
//
// Each pipe runs its own instructions in order, but the pipes run in parallel: an access to bytes
// another pipe wrote (or still reads) needs a queue EnQue/DeQue (FreeTensor/AllocTensor for the
// reverse direction), a SetFlag/WaitFlag pair or PipeBarrier<PIPE_ALL> between them in program
// order. Per core (worker thread): each pipe's clock (instructions issued), how far each pipe is
// ordered after every other (`know`), the flags' and queues' released clocks; per granule of a
// memory (its alignment, so two buffers never share one), the instruction that last wrote it and
// each pipe's last reader. The memories keep their granules; the clocks and the check are here.
#pragma once
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "base.h"

namespace AscendC {
namespace detail {
constexpr int kMaxSlots = 64;  // buffers of one queue (pipe.h)
}  // namespace detail
}  // namespace AscendC

namespace acemu {

constexpr const char* PIPE_HAZARD = "pipe-hazard";

namespace order {

enum Pipe : int { P_S = 0, P_V, P_M, P_MTE1, P_MTE2, P_MTE3, P_FIX, NPIPE };
constexpr const char* kPipeName[NPIPE] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};

// HardEvent (base.h order) -> the pipe that sets the flag and the pipe that waits for it.
struct EventPipes {
    int8_t src, dst;
};
constexpr EventPipes kEventPipes[] = {
    {P_MTE2, P_MTE1}, {P_MTE1, P_MTE2}, {P_MTE1, P_M},    {P_M, P_MTE1},    {P_MTE2, P_V},    {P_V, P_MTE2},   {P_MTE3, P_V},
    {P_V, P_MTE3},    {P_M, P_V},       {P_V, P_M},       {P_V, P_V},       {P_MTE3, P_MTE1}, {P_MTE1, P_MTE3}, {P_MTE1, P_V},
    {P_MTE2, P_M},    {P_M, P_MTE2},    {P_V, P_MTE1},    {P_M, P_FIX},     {P_FIX, P_M},     {P_MTE3, P_MTE2}, {P_MTE2, P_MTE3},
    {P_S, P_V},       {P_V, P_S},       {P_S, P_MTE2},    {P_MTE2, P_S},    {P_S, P_MTE3},    {P_MTE3, P_S},    {P_MTE2, P_FIX},
    {P_FIX, P_MTE2},  {P_FIX, P_S},     {P_M, P_S},       {P_FIX, P_MTE3},  {P_MTE1, P_FIX},  {P_FIX, P_MTE1},  {P_FIX, P_FIX},
};
static_assert(sizeof(kEventPipes) / sizeof(kEventPipes[0]) == size_t(AscendC::HardEvent::MAX), "one entry per HardEvent");

struct Instr {
    int8_t pipe;
    uint32_t time;  // the pipe's instruction count when this one issued
    const char* api;
    const char* file;
    int line;
};
struct Flag {
    int pending = 0;
    uint32_t clk[NPIPE] = {};
};
struct QueClocks {  // per buffer of a queue: the clocks its EnQue / FreeTensor released
    uint32_t enq[AscendC::detail::kMaxSlots][NPIPE];
    uint32_t fre[AscendC::detail::kMaxSlots][NPIPE];
};
constexpr int kEventIds = 16;

inline void learn(uint32_t* know_row, const uint32_t* clk) {
    for (int q = 0; q < NPIPE; ++q)
        if (clk[q] > know_row[q]) know_row[q] = clk[q];
}

// One core's clocks: every memory's records refer to these instructions.
struct Clocks {
    uint32_t now[NPIPE] = {};          // instructions issued per pipe
    uint32_t know[NPIPE][NPIPE] = {};  // know[p][q]: pipe p is ordered after the first know[p][q] instructions of q
    std::vector<Instr> instrs{Instr{-1, 0, "?", "?", 0}};  // instrs[0] is "none"
    Flag flags[int(AscendC::HardEvent::MAX)][kEventIds];
    std::unordered_map<uint64_t, QueClocks> queues;  // key: the queue's address

    void reset() {
        std::memset(now, 0, sizeof(now));
        std::memset(know, 0, sizeof(know));
        instrs.resize(1);
        for (auto& row : flags)
            for (Flag& f : row) f = Flag();
        queues.clear();
    }
    uint32_t issue(int pipe, const char* api, const char* file, int line) {
        now[pipe] += 1;
        instrs.push_back({int8_t(pipe), now[pipe], api, file, line});
        return uint32_t(instrs.size() - 1);
    }
    // Pipe p is ordered after everything the other pipes issued: nothing it touches can conflict.
    bool ordered(int p) const {
        for (int q = 0; q < NPIPE; ++q)
            if (q != p && now[q] > know[p][q]) return false;
        return true;
    }
    void barrier_all() {
        for (int p = 0; p < NPIPE; ++p) learn(know[p], now);
    }
    // EnQue / FreeTensor release everything issued so far; the matching DeQue / next AllocTensor of
    // the same buffer waits for it, whichever pipes produce and consume it.
    void queue_release(uint64_t que, int slot, bool enque) {
        QueClocks& qc = queues[que];
        std::memcpy(enque ? qc.enq[slot] : qc.fre[slot], now, sizeof(now));
    }
    void queue_acquire(uint64_t que, int slot, bool deque) {
        auto it = queues.find(que);
        if (it == queues.end()) return;  // nothing released on this queue yet
        const uint32_t* clk = deque ? it->second.enq[slot] : it->second.fre[slot];
        for (int p = 0; p < NPIPE; ++p) learn(know[p], clk);
    }
    void flag(bool set, int event, int id, const char* file, int line) {
        if (event < 0 || event >= int(AscendC::HardEvent::MAX) || id < 0 || id >= kEventIds) return;  // api-misuse (pipe.h)
        Flag& f = flags[event][id];
        const EventPipes ep = kEventPipes[event];
        if (set) {
            // What the setting pipe knows, including its own instructions so far.
            std::memcpy(f.clk, know[int(ep.src)], sizeof(f.clk));
            f.clk[int(ep.src)] = now[int(ep.src)];
            f.pending += 1;
            return;
        }
        if (f.pending == 0) {
            rt::report(PIPE_HAZARD, "WaitFlag", file, line,
                       "WaitFlag<HardEvent::%s_%s>(%d) with no SetFlag of that event and id before it: on the NPU pipe %s waits "
                       "forever. Every WaitFlag needs a matching SetFlag earlier in program order",
                       kPipeName[int(ep.src)], kPipeName[int(ep.dst)], id, kPipeName[int(ep.dst)]);
            return;
        }
        f.pending -= 1;
        learn(know[int(ep.dst)], f.clk);
    }
};

inline thread_local Clocks* tls_clocks = nullptr;
inline Clocks& clocks() {
    if (__builtin_expect(tls_clocks == nullptr, 0)) tls_clocks = new Clocks();
    return *tls_clocks;
}

// What would order pipe `src`'s access before pipe `dst`'s: the queue a vector kernel uses for the
// pair, the pair's HardEvent, or (no event for the pair) a barrier.
inline const char* fix_for(int src, int dst, char* buf, size_t n) {
    if (src == P_MTE2 && dst == P_V) return "EnQue/DeQue it through a TQue<VECIN> (or SetFlag/WaitFlag<HardEvent::MTE2_V>)";
    if (src == P_V && dst == P_MTE3) return "EnQue/DeQue it through a TQue<VECOUT> (or SetFlag/WaitFlag<HardEvent::V_MTE3>)";
    if (src == P_V && dst == P_MTE2) return "FreeTensor/AllocTensor it through a queue (or SetFlag/WaitFlag<HardEvent::V_MTE2>)";
    if (src == P_MTE3 && dst == P_V) return "FreeTensor/AllocTensor it through a queue (or SetFlag/WaitFlag<HardEvent::MTE3_V>)";
    if (src == P_MTE2 && dst == P_MTE3) return "SetFlag/WaitFlag<HardEvent::MTE2_MTE3> (or a TQueBind<VECIN, VECOUT>)";
    for (const EventPipes& e : kEventPipes)
        if (e.src == src && e.dst == dst) {
            snprintf(buf, n, "SetFlag/WaitFlag<HardEvent::%s_%s> (or a queue's EnQue/DeQue, FreeTensor/AllocTensor the other way)",
                     kPipeName[src], kPipeName[dst]);
            return buf;
        }
    return "PipeBarrier<PIPE_ALL>";
}

// The access of instruction `id` to granules [g0, g1] of a memory (`gran`, granules of 1 << shift
// bytes; `mem` names it in messages), checked against the other pipes' records and then recorded.
// G is the memory's record: `w`, the last writer, and `r[]`, the last reader per reader slot
// (`slot(pipe)`). A run of granules with the same record (a buffer written by one instruction) is
// checked once and updated in one pass; each missing sync is reported once, at most one per access.
template <class G, class SlotOf>
inline void access(Clocks& st, G* gran, uint64_t g0, uint64_t g1, int shift, const char* mem, uint32_t id, bool write, SlotOf slot) {
    constexpr int kReaders = int(sizeof(G::r) / sizeof(G::r[0]));
    if (id == 0) return;  // no instruction (an access the caller does not order)
    const Instr me = st.instrs[id];
    const int p = me.pipe;
    const int mine = slot(p);
    bool check = !st.ordered(p);
    G prev;
    std::memset(&prev, 0xff, sizeof(G));
    for (uint64_t g = g0; g <= g1;) {
        const G gr = gran[g];
        uint64_t e = g + 1;
        while (e <= g1 && std::memcmp(&gran[e], &gr, sizeof(G)) == 0) ++e;
        if (check && std::memcmp(&gr, &prev, sizeof(G)) != 0) {
            prev = gr;
            const Instr* other = nullptr;
            bool war = false;
            if (gr.w && gr.w != id) {
                const Instr& o = st.instrs[gr.w];
                if (o.pipe != p && o.time > st.know[p][o.pipe]) other = &o;
            }
            if (!other && write) {
                for (int s = 0; s < kReaders; ++s) {
                    if (s == mine || gr.r[s] == 0) continue;
                    const Instr& o = st.instrs[gr.r[s]];
                    if (o.time > st.know[p][o.pipe]) { other = &o; war = true; break; }
                }
            }
            if (other) {
                const int q = other->pipe;
                char buf[160];
                const char* fix = fix_for(q, p, buf, sizeof(buf));
                if (war) {
                    rt::report(PIPE_HAZARD, me.api, me.file, me.line,
                               "%s (pipe %s) overwrites %s bytes from offset %llu that %s (pipe %s) at %s:%d reads, with no queue, flag "
                               "or PipeBarrier<PIPE_ALL> ordering them: the pipes run in parallel, so on the NPU the read may see the "
                               "new data. Fix: %s between them",
                               me.api, kPipeName[p], mem, (unsigned long long)(g << shift), other->api, kPipeName[q], other->file,
                               other->line, fix);
                } else {
                    rt::report(PIPE_HAZARD, me.api, me.file, me.line,
                               "%s (pipe %s) %s %s bytes from offset %llu that %s (pipe %s) at %s:%d writes, with no queue, flag or "
                               "PipeBarrier<PIPE_ALL> ordering them: the pipes run in parallel, so on the NPU it may %s. Fix: %s "
                               "between them",
                               me.api, kPipeName[p], write ? "overwrites" : "reads", mem, (unsigned long long)(g << shift), other->api,
                               kPipeName[q], other->file, other->line,
                               write ? "land before the earlier write" : "read the data before the write lands", fix);
                }
                // Each missing sync once: from here on the pipes count as ordered; one finding per access.
                if (other->time > st.know[p][q]) st.know[p][q] = other->time;
                check = false;
            }
        }
        G upd = gr;
        if (write) {
            std::memset(&upd, 0, sizeof(G));
            upd.w = id;
        } else {
            upd.r[mine] = id;
        }
        for (uint64_t k = g; k < e; ++k) gran[k] = upd;
        g = e;
    }
}

}  // namespace order
}  // namespace acemu
