// The pipe trace: per block, every AscendC call that occupies a pipe and every dependency the
// kernel declares, in program order (the order the scalar unit issues them), for the pipe-level
// performance model (ascendcraft_lab/perf). One call per traced API, made where the API is
// entered: `pipe_op` for work on a pipe (bytes of a copy, repeats of a vector instruction,
// m/n/k of an Mmad), `sync_op` for queue operations, flags, barriers and SyncAll, `scalar_op`
// for scalar work (GetValue / SetValue). The runtime turns tracing on per launch (spec line
// `trace PATH`); when it is off every helper is one load and a branch.
#pragma once
#include <cstdint>
#include <vector>

namespace acemu {
struct BlockCtx;
// The UB pipe-order check (base.h, runtime.cpp) learns each instruction's pipe and each
// dependency from the same calls that feed the trace.
inline void order_pipe_op(BlockCtx* c, int pipe);
inline void order_scalar(BlockCtx* c);
namespace rt {
void ub_sync(BlockCtx* c, int kind, uint64_t a, uint64_t b, const char* file = "?", int line = 0);
}  // namespace rt
namespace trace {

// Pipes, numbered as the pipe-order check numbers them (pipe_order.h `Pipe`).
enum Pipe : uint8_t { P_S = 0, P_V, P_M, P_MTE1, P_MTE2, P_MTE3, P_FIX };
// What an event is. INSTR occupies `pipe`; the others are dependencies the model schedules by.
enum Kind : uint8_t {
    INSTR = 1,   // a: bytes (copies) | repeats (vector) | m | n << 16 | k << 32 (Mmad); b: blocks | elements
    ALLOC,       // queue ops: a = the queue (its address), b = slot | src position << 8 | dst position << 16
    ENQUE,
    DEQUE,
    FREE,
    SET_FLAG,    // a = HardEvent, b = event id
    WAIT_FLAG,
    BARRIER,     // a = pipe_t of PipeBarrier
    SYNC_ALL,    // the all-core barrier
    SCALAR,      // a = cycles-class (0: UB scalar access, 1: GM scalar access), b = count
    CROSS_SET,   // CrossCoreSetFlag: a = flag id, b = mode | pipe_t << 8
    CROSS_WAIT,  // CrossCoreWaitFlag: a = flag id
};

// One event: 32 bytes as written to the trace file (api and file are indices there).
struct Event {
    const char* api;
    const char* file;
    uint64_t a, b;
    uint32_t line;
    uint8_t kind, pipe, dtype, aux;
};

// A block's events. Past `cap` events only the counts go on (the file says how many there were).
struct Log {
    std::vector<Event> events;
    uint64_t cap = 0;
    uint64_t total = 0;
    void add(const Event& e) {
        ++total;
        if (events.size() < cap) events.push_back(e);
    }
};

inline Log* log_of(BlockCtx* c);  // base.h: the running block's log, or null when tracing is off

inline void pipe_op(BlockCtx* c, int pipe, const char* api, const char* file, int line, int dtype, uint64_t a, uint64_t b = 0) {
    order_pipe_op(c, pipe);
    Log* l = log_of(c);
    if (__builtin_expect(l == nullptr, 1)) return;
    l->add({api, file, a, b, uint32_t(line), INSTR, uint8_t(pipe), uint8_t(dtype), 0});
}
inline void sync_op(BlockCtx* c, int kind, const char* api, const char* file, int line, uint64_t a, uint64_t b = 0, int pipe = 0) {
    rt::ub_sync(c, kind, a, b, file, line);
    Log* l = log_of(c);
    if (__builtin_expect(l == nullptr, 1)) return;
    l->add({api, file, a, b, uint32_t(line), uint8_t(kind), uint8_t(pipe), 0, 0});
}
inline void scalar_op(BlockCtx* c, const char* api, const char* file, int line, int gm, int dtype) {
    order_scalar(c);
    Log* l = log_of(c);
    if (__builtin_expect(l == nullptr, 1)) return;
    l->add({api, file, uint64_t(gm), 1, uint32_t(line), SCALAR, P_S, uint8_t(dtype), 0});
}
// A dependency only the model needs (the UB order check learns cross-core waits by itself).
inline void mark(BlockCtx* c, int kind, const char* api, const char* file, int line, uint64_t a, uint64_t b = 0) {
    Log* l = log_of(c);
    if (__builtin_expect(l == nullptr, 1)) return;
    l->add({api, file, a, b, uint32_t(line), uint8_t(kind), P_S, 0, 0});
}
// Vector repeats of `n` elements of `bytes_each`: every started 256-B repeat costs a whole one.
inline uint64_t repeats(uint64_t n, uint64_t bytes_each) { return (n * bytes_each + 255) / 256; }

}  // namespace trace
}  // namespace acemu
