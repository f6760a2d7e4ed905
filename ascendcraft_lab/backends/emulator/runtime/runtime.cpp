// AscendCraft emulator runtime: runs the logical blocks of a launch on a thread pool (one thread
// per block when the kernel calls SyncAll), owns each block's Unified Buffer and sanitizer state,
// collects findings, checks GM races, applies atomic writes in block order (at each SyncAll and
// at the end), and (harness_main) maps the kernel arguments the Python runner passes.
// Compiled once per header version and linked into every kernel binary.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel_operator.h"

namespace acemu {
namespace rt {
namespace {

struct Finding {
    std::string kind, api, file, message;
    int line = 0;
    int block = 0;
    uint64_t count = 0;
    std::vector<int> blocks;
};
struct WriteRange {
    uintptr_t lo, hi;
    int block;
    const char* api;
    const char* file;
    int line;
};
struct AtomicWrite {
    uint8_t* dst;
    int op, dtype;
    std::vector<uint8_t> data;
};
struct BlockData {
    std::vector<Finding> findings;
    std::map<std::tuple<std::string, std::string, int>, size_t> index;  // (kind, file, line) -> finding
    std::vector<WriteRange> writes;
    std::vector<AtomicWrite> atomics;
};
struct Alloc {
    const uint8_t* lo;
    const uint8_t* hi;
    int index;
};

std::string g_soc = "Ascend910B2";
uint64_t g_ub_bytes = 192 * 1024, g_ub_usable = 192 * 1024 - 8448;
unsigned g_cores = 0;      // vector cores of the SoC (0: unknown)
unsigned g_threads = 0;
bool g_sync_all = false;   // the kernel calls SyncAll (set before main, see base.h)
int g_kernel_type = -1;    // KERNEL_TASK_TYPE_DEFAULT or implied by the cube APIs (set before main); -1: vector only
CubeSizes g_cube;          // L1 / L0 / bias-table bytes of the SoC (spec line `cube`, or ACEMU_CUBE for host programs)
bool g_cube_known = false;
std::vector<Alloc> g_allocs;
std::mutex g_mu;
std::vector<Finding> g_findings;  // merged, in block order
double g_kernel_s = 0.0;
std::atomic<uint64_t> g_initbuffer_high{0};   // the most InitBuffer bytes any block's pipe held

// The all-core barrier of one launch. Every block runs on its own thread, so the blocks that
// reach SyncAll wait here until the others arrive too; a block that ends while others wait
// would hang the NPU, which is reported (and the waiters released) instead.
struct Barrier {
    std::mutex mu;
    std::condition_variable cv;
    int total = 0, arrived = 0, exited = 0;
    uint64_t generation = 0;
    std::vector<BlockData>* blocks = nullptr;
    std::vector<Finding> findings;  // races found between barriers, merged after the launch
    std::map<std::tuple<std::string, std::string, int>, size_t> index;
    bool mismatch_reported = false;
    // SyncAll's soft form: the blocks of this barrier that called it, the GM flag area they pass
    // (bytes of it inside its tensor), the call site, and how many soft barriers have passed.
    int soft_arrived = 0;
    uint8_t* soft_gm = nullptr;
    uint64_t soft_bytes = 0;
    const char* soft_file = nullptr;
    int soft_line = 0;
    int32_t soft_passed = 0;
} g_barrier;
bool g_harness = false;  // the runner reads the JSON report; a host program gets stderr
constexpr uint64_t kReserve = 64ull << 20;  // UB reserve per worker: the SoC's UB plus room for an overflowing kernel

void append_finding(std::vector<Finding>& out, std::map<std::tuple<std::string, std::string, int>, size_t>& idx, const Finding& f) {
    auto key = std::make_tuple(f.kind, f.file, f.line);
    auto it = idx.find(key);
    if (it == idx.end()) {
        idx[key] = out.size();
        out.push_back(f);
        return;
    }
    Finding& g = out[it->second];
    g.count += f.count;
    for (int b : f.blocks)
        if (g.blocks.size() < 64 && std::find(g.blocks.begin(), g.blocks.end(), b) == g.blocks.end()) g.blocks.push_back(b);
}

const char* arg_name_for(const void* p, char* buf, size_t n, long long* off) {
    for (const Alloc& a : g_allocs) {
        const uint8_t* q = static_cast<const uint8_t*>(p);
        if (q >= a.lo && q < a.hi) {
            *off = (long long)(q - a.lo);
            snprintf(buf, n, "kernel argument %d", a.index);
            return buf;
        }
    }
    *off = (long long)(uintptr_t)p;
    snprintf(buf, n, "GM");
    return buf;
}

// ---- crash reporting -----------------------------------------------------------------------
void write_str(const char* s) { ssize_t r = write(2, s, strlen(s)); (void)r; }
void write_int(long long v) {
    char buf[32];
    int i = 30;
    bool neg = v < 0;
    unsigned long long u = neg ? (unsigned long long)(-v) : (unsigned long long)v;
    buf[31] = 0;
    do { buf[i--] = char('0' + u % 10); u /= 10; } while (u && i > 0);
    if (neg) buf[i--] = '-';
    write_str(buf + i + 1);
}
void on_fatal(int sig) {
    const char* name = sig == SIGSEGV ? "SIGSEGV (invalid memory access)" : sig == SIGBUS ? "SIGBUS (bus error)"
                     : sig == SIGFPE ? "SIGFPE (arithmetic error, e.g. integer division by zero)" : sig == SIGILL ? "SIGILL (illegal instruction)"
                     : sig == SIGABRT ? "SIGABRT (abort)" : "a fatal signal";
    write_str("acemu: the kernel crashed with ");
    write_str(name);
    BlockCtx* c = tls_ctx;
    if (c) {
        write_str(" in block ");
        write_int(c->block_idx);
        if (c->api) {
            write_str("; last AscendC call: ");
            write_str(c->api);
            write_str(" at ");
            write_str(c->file ? c->file : "?");
            write_str(":");
            write_int(c->line);
            write_str(" (the crash is at or after it)");
        }
    }
    write_str("\n");
    signal(sig, SIG_DFL);
    raise(sig);
}
void install_crash_handlers() {
    static bool done = false;
    if (done) return;
    done = true;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(s, &sa, nullptr);
}

// ---- one worker: a UB reserve reused by the blocks it runs --------------------------------
struct Worker {
    BlockCtx ctx{};
    uint64_t shadow_bytes = 0;
    void* altstack = nullptr;
    bool init() {
        void* ub = mmap(nullptr, kReserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        shadow_bytes = kReserve / 32 * sizeof(uint32_t);
        void* sh = mmap(nullptr, shadow_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (ub == MAP_FAILED || sh == MAP_FAILED) return false;
        ctx.ub = static_cast<uint8_t*>(ub);
        ctx.shadow = static_cast<uint32_t*>(sh);
        ctx.ub_capacity = kReserve;
        ctx.ub_high = 0;
#ifdef MADV_POPULATE_WRITE
        // One populate call instead of a page fault per 4 KiB of the UB and its shadow.
        madvise(ub, g_ub_bytes + 4096, MADV_POPULATE_WRITE);
        madvise(sh, (g_ub_bytes / 32 + 1024) * sizeof(uint32_t), MADV_POPULATE_WRITE);
#endif
        memset(ctx.ub, 0xff, g_ub_bytes);  // the shadow starts zero (fresh pages); the data gets the pattern
        altstack = malloc(1 << 16);
        stack_t st;
        st.ss_sp = altstack;
        st.ss_size = 1 << 16;
        st.ss_flags = 0;
        sigaltstack(&st, nullptr);
        return true;
    }
    void begin_block(int idx, int num, int core_id, int8_t core_type, BlockData* bd) {
        // Fresh UB per block: the shadow says "never written" and the data is a NaN/-1 pattern, so a
        // kernel that reads what it did not write gets a finding and a visibly wrong value.
        // Only what the previous block on this thread touched needs resetting.
        uint64_t used = (ctx.ub_high + 31) & ~uint64_t(31);
        if (used > kReserve / 2) used = kReserve / 2;
        memset(ctx.shadow, 0, used / 32 * sizeof(uint32_t));
        memset(ctx.ub, 0xff, used);
        ctx.ub_high = 0;
        ctx.ub_bytes = g_ub_bytes;
        ctx.ub_usable = g_ub_usable;
        ctx.block_idx = idx;
        ctx.block_num = num;
        ctx.core_id = core_id;
        ctx.core_type = core_type;
        ctx.mask_counter = false;
        ctx.mask[0] = ctx.mask[1] = ~uint64_t(0);
        ctx.atomic_op = ATOMIC_NONE;
        ctx.atomic_dtype = 0;
        ctx.pipe = nullptr;
        ctx.api = nullptr;
        ctx.file = nullptr;
        ctx.line = 0;
        ctx.rt = bd;
        cube::begin_block();  // fresh L1 / L0 for the block that starts on this thread
    }
};

template <typename T> void apply_one(uint8_t* d, const uint8_t* s, int op) {
    T a, b;
    memcpy(&a, d, sizeof(T));
    memcpy(&b, s, sizeof(T));
    float fa = float(a), fb = float(b);
    T r;
    if (op == ATOMIC_ADD) r = T(a + b);
    else if (op == ATOMIC_MAX) r = fb > fa ? b : a;
    else r = fb < fa ? b : a;
    memcpy(d, &r, sizeof(T));
}
void apply_atomic(const AtomicWrite& w) {
    const uint8_t* s = w.data.data();
    size_t n = w.data.size();
    switch (w.dtype) {
        case DT_F32: for (size_t i = 0; i + 4 <= n; i += 4) apply_one<float>(w.dst + i, s + i, w.op); break;
        case DT_F16: for (size_t i = 0; i + 2 <= n; i += 2) apply_one<half>(w.dst + i, s + i, w.op); break;
        case DT_BF16:
            for (size_t i = 0; i + 2 <= n; i += 2) {
                bfloat16_t a, b;
                memcpy(&a, w.dst + i, 2);
                memcpy(&b, s + i, 2);
                float fa = a, fb = b;
                bfloat16_t r = w.op == ATOMIC_ADD ? bfloat16_t(fa + fb) : (w.op == ATOMIC_MAX ? (fb > fa ? b : a) : (fb < fa ? b : a));
                memcpy(w.dst + i, &r, 2);
            }
            break;
        case DT_I32: for (size_t i = 0; i + 4 <= n; i += 4) apply_one<int32_t>(w.dst + i, s + i, w.op); break;
        case DT_U32: for (size_t i = 0; i + 4 <= n; i += 4) apply_one<uint32_t>(w.dst + i, s + i, w.op); break;
        case DT_I16: for (size_t i = 0; i + 2 <= n; i += 2) apply_one<int16_t>(w.dst + i, s + i, w.op); break;
        case DT_I8: for (size_t i = 0; i < n; ++i) apply_one<int8_t>(w.dst + i, s + i, w.op); break;
        case DT_U8: for (size_t i = 0; i < n; ++i) apply_one<uint8_t>(w.dst + i, s + i, w.op); break;
        case DT_I64: for (size_t i = 0; i + 8 <= n; i += 8) apply_one<int64_t>(w.dst + i, s + i, w.op); break;
        default: memcpy(w.dst, s, n); break;
    }
}

void report_sync_mismatch(const char* file, int line);
void barrier_finding(const char* kind, const char* file, int line, const char* fmt, ...) __attribute__((format(printf, 4, 5)));

// SyncAll's soft form keeps one 32-B flag slot per block in the GM area. The emulator's barrier
// does not need them, but it checks what the documentation asks of the area and writes flags of
// its own, so a kernel that shares the area with its data sees the clash (called at the release,
// with g_barrier.mu held, after the phase's writes and atomics have landed).
void check_soft_flags() {
    Barrier& b = g_barrier;
    if (b.soft_arrived < b.arrived) {
        barrier_finding(SYNC_MISMATCH, b.soft_file, b.soft_line,
                        "%d block(s) wait in SyncAll(gmWorkspace, ubWorkspace) and %d in SyncAll() at the same barrier: the soft "
                        "and the hardware form are different mechanisms, so on the NPU neither completes. Use one form everywhere",
                        b.soft_arrived, b.arrived - b.soft_arrived);
    }
    char name[64];
    long long off = 0;
    arg_name_for(b.soft_gm, name, sizeof(name), &off);
    uint64_t slots = b.soft_bytes / kBlock;
    if (b.soft_passed == 0) {
        // Documented: the area is zero when the first SyncAll starts (host-zeroed, or zeroed whole by every core).
        for (uint64_t i = 0; i < b.soft_bytes; ++i) {
            if (b.soft_gm[i] != 0) {
                barrier_finding(SYNC_WORKSPACE, b.soft_file, b.soft_line,
                                "SyncAll's gmWorkspace (%s, from byte %lld) is not zero at the first SyncAll: byte %llu is 0x%02x. The "
                                "soft sync keeps each core's flags there, so stale values release the cores early or never; zero it on "
                                "the host before the launch (or have every core zero all of it before its first SyncAll)",
                                name, off, (unsigned long long)i, unsigned(b.soft_gm[i]));
                break;
            }
        }
    } else {
        for (uint64_t s = 0; s < slots; ++s) {
            int32_t flag;
            memcpy(&flag, b.soft_gm + s * kBlock, sizeof(flag));
            bool rest_zero = std::all_of(b.soft_gm + s * kBlock + sizeof(flag), b.soft_gm + (s + 1) * kBlock,
                                         [](uint8_t v) { return v == 0; });
            if (flag != b.soft_passed || !rest_zero) {
                barrier_finding(SYNC_WORKSPACE, b.soft_file, b.soft_line,
                                "SyncAll's gmWorkspace (%s, from byte %lld) changed between barriers: block %llu's 32-B flag slot is "
                                "not what the previous SyncAll left there. The area belongs to SyncAll for the whole kernel; keep "
                                "the kernel's own data out of it",
                                name, off, (unsigned long long)s);
                break;
            }
        }
    }
    ++b.soft_passed;
    for (uint64_t s = 0; s < slots; ++s) {
        memset(b.soft_gm + s * kBlock, 0, kBlock);
        memcpy(b.soft_gm + s * kBlock, &b.soft_passed, sizeof(b.soft_passed));
    }
}

// The documented initialisation in the kernel (every core zeroes the whole flag area before its
// first SyncAll) writes the same bytes from every block: not a race.
void drop_flag_area_writes(std::vector<BlockData>& blocks) {
    Barrier& b = g_barrier;
    uintptr_t lo = reinterpret_cast<uintptr_t>(b.soft_gm), hi = lo + b.soft_bytes;
    for (auto& bd : blocks)
        bd.writes.erase(std::remove_if(bd.writes.begin(), bd.writes.end(),
                                       [&](const WriteRange& w) { return w.lo >= lo && w.hi <= hi; }),
                        bd.writes.end());
}

// Everything before the barrier is done: atomics land in block order and the writes of this
// phase are checked for races, then the next phase starts (called with g_barrier.mu held).
void detect_races(std::vector<BlockData>& blocks, std::vector<Finding>& out, std::map<std::tuple<std::string, std::string, int>, size_t>& idx);
void release_barrier(const char* file, int line) {
    Barrier& b = g_barrier;
    if (b.exited > 0) report_sync_mismatch(file, line);
    if (b.soft_arrived > 0) drop_flag_area_writes(*b.blocks);
    detect_races(*b.blocks, b.findings, b.index);
    for (auto& bd : *b.blocks) {
        for (auto& a : bd.atomics) apply_atomic(a);
        bd.atomics.clear();
        bd.writes.clear();
    }
    if (b.soft_arrived > 0) check_soft_flags();
    b.soft_arrived = 0;
    b.soft_gm = nullptr;
    b.soft_bytes = 0;
    b.arrived = 0;
    ++b.generation;
    b.cv.notify_all();
}

// Two blocks writing the same GM bytes without atomics: the result depends on which core is last.
void detect_races(std::vector<BlockData>& blocks, std::vector<Finding>& out, std::map<std::tuple<std::string, std::string, int>, size_t>& idx) {
    std::vector<WriteRange> all;
    for (auto& b : blocks) all.insert(all.end(), b.writes.begin(), b.writes.end());
    if (all.empty()) return;
    std::sort(all.begin(), all.end(), [](const WriteRange& a, const WriteRange& b) { return a.lo < b.lo || (a.lo == b.lo && a.block < b.block); });
    const WriteRange* top1 = nullptr;  // largest end so far
    const WriteRange* top2 = nullptr;  // largest end among blocks other than top1's
    for (const WriteRange& x : all) {
        const WriteRange* other = nullptr;
        if (top1 && top1->block != x.block && x.lo < top1->hi) other = top1;
        else if (top2 && top2->block != x.block && x.lo < top2->hi) other = top2;
        if (other) {
            char name[64];
            long long off = 0;
            arg_name_for(reinterpret_cast<const void*>(x.lo), name, sizeof(name), &off);
            uintptr_t end = std::min(x.hi, other->hi);
            char msg[768];
            snprintf(msg, sizeof(msg),
                     "%s in block %d writes GM bytes [%lld, %lld) of %s, which block %d also wrote (%s at %s:%d); without atomics the "
                     "result depends on which core writes last. Give each core a disjoint output range, or accumulate with SetAtomicAdd",
                     x.api, x.block, off, off + (long long)(end - x.lo), name, other->block, other->api, other->file, other->line);
            Finding f;
            f.kind = GM_RACE;
            f.api = x.api;
            f.file = x.file;
            f.line = x.line;
            f.block = x.block;
            f.count = 1;
            f.blocks = {x.block};
            f.message = msg;
            append_finding(out, idx, f);
        }
        // keep the two furthest-reaching ranges from different blocks
        if (!top1 || x.hi > top1->hi) {
            if (top1 && top1->block != x.block) top2 = top1;
            else if (top1 && top2 && top2->block == x.block) top2 = nullptr;
            top1 = &x;
        } else if (x.block != top1->block && (!top2 || x.hi > top2->hi)) {
            top2 = &x;
        }
    }
}

std::string json_escape(const std::string& s) {
    std::string o;
    o.reserve(s.size() + 8);
    for (unsigned char ch : s) {
        switch (ch) {
            case '"': o += "\\\""; break;
            case '\\': o += "\\\\"; break;
            case '\n': o += "\\n"; break;
            case '\t': o += "\\t"; break;
            case '\r': o += "\\r"; break;
            default:
                if (ch < 0x20) { char b[8]; snprintf(b, sizeof(b), "\\u%04x", ch); o += b; }
                else o += char(ch);
        }
    }
    return o;
}

bool write_report(const char* path) {
    std::string tmp = std::string(path) + ".tmp";
    FILE* f = fopen(tmp.c_str(), "w");
    if (!f) return false;
    fprintf(f, "{\"kernel_s\": %.6f, \"threads\": %u, \"ub_bytes\": %llu, \"findings\": [", g_kernel_s, g_threads,
            (unsigned long long)g_initbuffer_high.load());
    for (size_t i = 0; i < g_findings.size(); ++i) {
        const Finding& x = g_findings[i];
        fprintf(f, "%s\n  {\"kind\": \"%s\", \"api\": \"%s\", \"file\": \"%s\", \"line\": %d, \"block\": %d, \"count\": %llu, \"blocks\": [",
                i ? "," : "", json_escape(x.kind).c_str(), json_escape(x.api).c_str(), json_escape(x.file).c_str(), x.line, x.block,
                (unsigned long long)x.count);
        for (size_t j = 0; j < x.blocks.size(); ++j) fprintf(f, "%s%d", j ? ", " : "", x.blocks[j]);
        fprintf(f, "], \"message\": \"%s\"}", json_escape(x.message).c_str());
    }
    fprintf(f, "\n]}\n");
    fclose(f);
    return rename(tmp.c_str(), path) == 0;
}

void report_sync_mismatch(const char* file, int line) {
    Barrier& b = g_barrier;
    if (b.mismatch_reported) return;
    b.mismatch_reported = true;
    barrier_finding(SYNC_MISMATCH, file, line,
                    "%d of %d blocks wait in SyncAll but %d block(s) ended without reaching it: on the NPU the waiting cores hang. "
                    "Every block must call SyncAll the same number of times (keep it out of loops and branches that depend on the block)",
                    b.arrived, b.total, b.exited);
}

// A finding about the barrier as a whole (not one block's), kept with the launch's race findings.
void barrier_finding(const char* kind, const char* file, int line, const char* fmt, ...) {
    Barrier& b = g_barrier;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    Finding f;
    f.kind = kind;
    f.api = "SyncAll";
    f.file = file ? file : "?";
    f.line = line;
    f.block = -1;
    f.count = 1;
    f.message = msg;
    append_finding(b.findings, b.index, f);
}

void print_findings_to_stderr() {
    for (const Finding& x : g_findings)
        fprintf(stderr, "%s:%d: %s [%s] (block %d, %llux): %s\n", x.file.c_str(), x.line, x.kind.c_str(), x.api.c_str(), x.block,
                (unsigned long long)x.count, x.message.c_str());
}

}  // namespace

void note_initbuffer_total(uint64_t bytes) {
    uint64_t seen = g_initbuffer_high.load();
    while (bytes > seen && !g_initbuffer_high.compare_exchange_weak(seen, bytes)) {
    }
}

// ---- entry points used by the headers ------------------------------------------------------
void report(const char* kind, const char* api, const char* file, int line, const char* fmt, ...) {
    BlockCtx* c = tls_ctx;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    Finding f;
    f.kind = kind;
    f.api = api ? api : "?";
    f.file = file ? file : "?";
    f.line = line;
    f.block = c ? c->block_idx : -1;
    f.count = 1;
    f.blocks = {f.block};
    f.message = buf;
    if (c && c->rt) {
        BlockData* bd = static_cast<BlockData*>(c->rt);
        append_finding(bd->findings, bd->index, f);
    } else {
        std::lock_guard<std::mutex> lk(g_mu);
        static std::map<std::tuple<std::string, std::string, int>, size_t> idx;
        append_finding(g_findings, idx, f);
    }
}

BlockCtx* no_context() {
    fprintf(stderr, "acemu: an AscendC API was called outside a kernel launch (no block is running on this thread); "
                    "launch kernels with ACLRT_LAUNCH_KERNEL(name)(blockDim, stream, args...) or through the emulator runner\n");
    abort();
}

bool find_alloc(const void* p, const uint8_t** lo, const uint8_t** hi, int* arg_index) {
    const uint8_t* q = static_cast<const uint8_t*>(p);
    for (const Alloc& a : g_allocs) {
        if (q >= a.lo && q <= a.hi) {  // one-past-the-end of an empty range still belongs to it
            *lo = a.lo;
            *hi = a.hi;
            *arg_index = a.index;
            return true;
        }
    }
    return false;
}

void register_gm(const void* p, uint64_t nbytes, int arg_index) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    g_allocs.push_back({b, b + nbytes, arg_index});
}

void gm_written(const void* p, uint64_t nbytes, const char* api, const char* file, int line) {
    BlockCtx* c = tls_ctx;
    if (!c || !c->rt || nbytes == 0) return;
    BlockData* bd = static_cast<BlockData*>(c->rt);
    uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + nbytes;
    if (!bd->writes.empty()) {
        WriteRange& w = bd->writes.back();
        if (w.hi == lo && w.file == file && w.line == line) { w.hi = hi; return; }  // a row-by-row copy is one range
    }
    bd->writes.push_back({lo, hi, c->core_id, api, file, line});
}

bool note_sync_all() {
    g_sync_all = true;
    return true;
}

bool note_kernel_type(int type) {
    // A kernel that uses cube APIs runs on cube cores; the mixed types win over the single-core ones
    // (the Matmul object registers MIX_AIC_1_2, its kernel may declare nothing).
    if (type > g_kernel_type) g_kernel_type = type;
    return true;
}

int kernel_type() { return g_kernel_type; }

const CubeSizes& cube_sizes() {
    if (!g_cube_known) {
        // Host programs (no harness spec): the runner's soc_env() puts the SoC's numbers here.
        const char* env = getenv("ACEMU_CUBE");
        unsigned long long l1 = 0, l0a = 0, l0b = 0, l0c = 0, bt = 0;
        unsigned cores = 0;
        if (env == nullptr || sscanf(env, "%llu %llu %llu %llu %llu %u", &l1, &l0a, &l0b, &l0c, &bt, &cores) < 4) {
            fprintf(stderr, "acemu: the kernel uses the cube (L1 / L0) but this process was not told the SoC's cube memory sizes: "
                            "run it through ascendcraft_lab.backends.emulator.runner, or set the environment from runner.soc_env(soc)\n");
            abort();
        }
        g_cube = {l1, l0a, l0b, l0c, bt, cores};
        g_cube_known = true;
    }
    return g_cube;
}

namespace {
// A block arrives at the barrier and waits for the others (the last one in releases it).
void arrive(std::unique_lock<std::mutex>& lk, const char* file, int line) {
    Barrier& b = g_barrier;
    ++b.arrived;
    uint64_t gen = b.generation;
    if (b.arrived + b.exited == b.total) {
        release_barrier(file, line);
        return;
    }
    b.cv.wait(lk, [&] { return b.generation != gen; });
}

std::unique_lock<std::mutex> barrier_lock() {
    std::unique_lock<std::mutex> lk(g_barrier.mu);
    if (g_barrier.total == 0) {  // not inside run_blocks' barrier set-up: cannot happen through the headers
        fprintf(stderr, "acemu: SyncAll outside a launch that was set up for it\n");
        abort();
    }
    return lk;
}
}  // namespace

void sync_all(const char* file, int line) {
    std::unique_lock<std::mutex> lk = barrier_lock();
    arrive(lk, file, line);
}

void sync_all_soft(void* gm, uint64_t gm_bytes, const char* file, int line) {
    std::unique_lock<std::mutex> lk = barrier_lock();
    Barrier& b = g_barrier;
    uint8_t* area = static_cast<uint8_t*>(gm);
    if (b.soft_arrived == 0) {
        b.soft_gm = area;
        b.soft_bytes = gm_bytes;
        b.soft_file = file;
        b.soft_line = line;
    } else if (area != b.soft_gm) {
        report(SYNC_WORKSPACE, "SyncAll", file, line,
               "this block passes SyncAll a different gmWorkspace than the other blocks at the same barrier: the soft sync "
               "only works when every core reads and writes the same flags");
    } else if (gm_bytes < b.soft_bytes) {
        b.soft_bytes = gm_bytes;  // check and write only what every block's tensor covers
    }
    ++b.soft_arrived;
    arrive(lk, file, line);
}

void gm_atomic(void* dst, const void* src, uint64_t nbytes, int op, int dtype, const char* file, int line) {
    (void)file;
    (void)line;
    BlockCtx* c = tls_ctx;
    if (!c || !c->rt || nbytes == 0) return;
    // Applied after all blocks, in block order, so float sums do not depend on thread timing.
    AtomicWrite w;
    w.dst = static_cast<uint8_t*>(dst);
    w.op = op;
    w.dtype = dtype;
    w.data.assign(static_cast<const uint8_t*>(src), static_cast<const uint8_t*>(src) + nbytes);
    static_cast<BlockData*>(c->rt)->atomics.push_back(std::move(w));
}

namespace {
// The logical cores a launch of `block_dim` blocks starts: each block's cube core (AIC) and its
// vector cores (AIV), as the kernel type says (GetBlockIdx: AIC i in [0, blockDim), AIV j in
// [0, ratio * blockDim)). A kernel that registered no type runs `block_dim` vector cores.
struct Core {
    int idx;
    int8_t type;
};
std::vector<Core> launch_cores(uint32_t block_dim) {
    int aic = 0, aiv = 1;
    switch (g_kernel_type) {
        case KERNEL_TYPE_AIC_ONLY: case KERNEL_TYPE_MIX_AIC_1_0: aic = 1; aiv = 0; break;
        case KERNEL_TYPE_MIX_AIC_1_1: aic = 1; aiv = 1; break;
        case KERNEL_TYPE_MIX_AIC_1_2: aic = 1; aiv = 2; break;
        default: break;
    }
    std::vector<Core> cores;
    for (int i = 0; i < aic * int(block_dim); ++i) cores.push_back({i, CORE_AIC});
    for (int j = 0; j < aiv * int(block_dim); ++j) cores.push_back({j, CORE_AIV});
    return cores;
}
}  // namespace

// The cross-core flags of one launch (CrossCoreSetFlag / CrossCoreWaitFlag, pipe.h): one counter
// per core and flag id, what each mode's sets have gathered so far, and who is blocked (a wait
// nothing can release any more is reported instead of hanging the run).
namespace {
bool g_cross_core = false;
struct CrossCore {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<Core> cores;                         // index: the logical core's core_id
    std::vector<std::array<int, 16>> counter;
    std::map<std::pair<int, int>, int> round;        // mode 0: (core type, flag) -> cores of that type that set it
    std::map<std::tuple<int, int, int>, int> group;  // modes 1, 2 from AIVs: (mode, AI core, flag) -> AIVs that set it
    int ratio = 2;                                   // AIV cores per AI core
    int blocked = 0, exited = 0;
} g_cross;

void raise_flag(int core, int flag, const char* file, int line) {
    int& c = g_cross.counter[size_t(core)][size_t(flag)];
    if (c == 16) {
        report(CROSS_CORE, "CrossCoreSetFlag", file, line,
               "flag %d of core %d already holds 16 sets nobody waited for: the counter takes at most 16 (API page "
               "CrossCoreSetFlag); a wait is missing, or the sets run ahead of the waits", flag, core);
        return;
    }
    ++c;
}

std::vector<int> cores_of(int type, int lo = 0, int hi = 1 << 30) {
    std::vector<int> out;
    for (size_t i = 0; i < g_cross.cores.size(); ++i)
        if (g_cross.cores[i].type == type && g_cross.cores[i].idx >= lo && g_cross.cores[i].idx < hi) out.push_back(int(i));
    return out;
}
}  // namespace

bool note_cross_core() {
    g_cross_core = true;
    return true;
}

void cross_core_set(int mode, int flag, const char* file, int line) {
    BlockCtx* c = tls_ctx;
    if (flag < 0 || flag > 10) {
        report(CROSS_CORE, "CrossCoreSetFlag", file, line, "flag id %d: Atlas A2 has flag ids 0..10 (API page CrossCoreSetFlag)", flag);
        return;
    }
    std::lock_guard<std::mutex> lk(g_cross.mu);
    const int self = c->core_id, type = c->core_type, idx = c->block_idx, r = g_cross.ratio;
    if (mode == 0) {
        int& n = g_cross.round[{type, flag}];
        const std::vector<int> peers = cores_of(type);
        if (++n == int(peers.size())) {
            n = 0;
            for (int p : peers) raise_flag(p, flag, file, line);
        }
    } else if (mode == 1 || (mode == 2 && type == CORE_AIV)) {
        if (type != CORE_AIV) {
            report(CROSS_CORE, "CrossCoreSetFlag", file, line, "mode 1 synchronises the vector cores of an AI core; a cube core set it");
            return;
        }
        int& n = g_cross.group[{mode, idx / r, flag}];
        if (++n == r) {
            n = 0;
            const std::vector<int> to = mode == 1 ? cores_of(CORE_AIV, idx / r * r, idx / r * r + r) : cores_of(CORE_AIC, idx / r, idx / r + 1);
            for (int p : to) raise_flag(p, flag, file, line);
        }
    } else {
        for (int p : cores_of(CORE_AIV, idx * r, idx * r + r)) raise_flag(p, flag, file, line);
    }
    (void)self;
    g_cross.cv.notify_all();
}

void cross_core_wait(int flag, const char* file, int line) {
    BlockCtx* c = tls_ctx;
    if (flag < 0 || flag > 10) {
        report(CROSS_CORE, "CrossCoreWaitFlag", file, line, "flag id %d: Atlas A2 has flag ids 0..10 (API page CrossCoreWaitFlag)", flag);
        return;
    }
    std::unique_lock<std::mutex> lk(g_cross.mu);
    int& cnt = g_cross.counter[size_t(c->core_id)][size_t(flag)];
    while (cnt == 0) {
        if (g_cross.blocked + 1 + g_cross.exited >= int(g_cross.cores.size())) {
            report(CROSS_CORE, "CrossCoreWaitFlag", file, line,
                   "CrossCoreWaitFlag(%d) on %s core %d waits for a set that no core can make any more (every other core has "
                   "ended or waits too): on the NPU this core hangs. Check the mode of the matching CrossCoreSetFlag and that "
                   "every core involved reaches it", flag, c->core_type == CORE_AIC ? "cube" : "vector", c->block_idx);
            g_cross.cv.notify_all();
            return;
        }
        ++g_cross.blocked;
        g_cross.cv.wait(lk);
        --g_cross.blocked;
    }
    --cnt;
}

namespace {
void cross_core_exit() {
    if (!g_cross_core) return;
    std::lock_guard<std::mutex> lk(g_cross.mu);
    ++g_cross.exited;
    g_cross.cv.notify_all();
}
}  // namespace

int run_blocks(uint32_t block_dim, BlockFn fn, void* closure) {
    install_crash_handlers();
    if (block_dim == 0) return 0;
    const std::vector<Core> cores = launch_cores(block_dim);
    const uint32_t ncores = uint32_t(cores.size());
    if (g_cross_core) {
        std::lock_guard<std::mutex> lk(g_cross.mu);
        g_cross.cores = cores;
        g_cross.counter.assign(cores.size(), {});
        g_cross.round.clear();
        g_cross.group.clear();
        g_cross.ratio = g_kernel_type == KERNEL_TYPE_MIX_AIC_1_1 ? 1 : 2;
        g_cross.blocked = g_cross.exited = 0;
    }
    unsigned hw = g_threads ? g_threads : std::thread::hardware_concurrency();
    if (hw == 0) hw = 1;
    unsigned nthreads = std::min<unsigned>(hw, ncores);
    std::vector<BlockData> blocks(ncores);
    if (g_cross_core) nthreads = ncores;  // a core waits for others: every core alive at once, as on the NPU
    if (g_sync_all) {
        // SyncAll needs every block alive at once: one thread per block, as every core of the
        // NPU runs its block at the same time (the launch must not exceed the SoC's cores).
        nthreads = ncores;
        std::lock_guard<std::mutex> lk(g_barrier.mu);
        g_barrier.total = int(ncores);
        g_barrier.arrived = g_barrier.exited = 0;
        g_barrier.blocks = &blocks;
        if (g_cores && block_dim > g_cores) {
            barrier_finding(SYNC_MISMATCH, nullptr, 0,
                            "the kernel calls SyncAll with %u blocks but %s has %u vector cores: blocks beyond the first %u wait for a "
                            "free core that never comes, so the NPU hangs. Launch at most as many blocks as cores",
                            block_dim, g_soc.c_str(), g_cores, g_cores);
        }
    }
    g_threads = nthreads;
    std::atomic<uint32_t> next{0};
    auto t0 = std::chrono::steady_clock::now();
    auto work = [&]() {
        Worker w;
        if (!w.init()) {
            fprintf(stderr, "acemu: cannot reserve emulated UB memory\n");
            abort();
        }
        for (;;) {
            uint32_t b = next.fetch_add(1);
            if (b >= ncores) break;
            w.begin_block(cores[b].idx, int(block_dim), int(b), cores[b].type, &blocks[b]);
            tls_ctx = &w.ctx;
            fn(closure);
            tls_ctx = nullptr;
            cross_core_exit();
            if (g_sync_all) {
                std::lock_guard<std::mutex> lk(g_barrier.mu);
                ++g_barrier.exited;
                if (g_barrier.arrived > 0 && g_barrier.arrived + g_barrier.exited == g_barrier.total)
                    release_barrier(nullptr, 0);
            }
        }
        munmap(w.ctx.ub, kReserve);
        munmap(w.ctx.shadow, w.shadow_bytes);
        cube::end_thread();
    };
    {
        std::vector<std::thread> pool;  // the calling thread is one of the workers
        for (unsigned i = 1; i < nthreads; ++i) pool.emplace_back(work);
        work();
        for (auto& t : pool) t.join();
    }
    // Deterministic post-processing, in block order.
    std::lock_guard<std::mutex> lk(g_mu);
    std::map<std::tuple<std::string, std::string, int>, size_t> idx;
    for (size_t i = 0; i < g_findings.size(); ++i) idx[std::make_tuple(g_findings[i].kind, g_findings[i].file, g_findings[i].line)] = i;
    for (auto& b : blocks)
        for (auto& f : b.findings) append_finding(g_findings, idx, f);
    for (auto& f : g_barrier.findings) append_finding(g_findings, idx, f);
    g_barrier.findings.clear();
    g_barrier.index.clear();
    g_barrier.total = g_barrier.arrived = g_barrier.exited = 0;
    g_barrier.blocks = nullptr;
    g_barrier.mismatch_reported = false;
    g_barrier.soft_arrived = 0;
    g_barrier.soft_gm = nullptr;
    g_barrier.soft_bytes = 0;
    g_barrier.soft_passed = 0;
    detect_races(blocks, g_findings, idx);
    for (auto& b : blocks)
        for (auto& a : b.atomics) apply_atomic(a);
    g_kernel_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return 0;
}

// ---- the kernel binary's main, called by the generated harness ------------------------------
// argv[1] is a spec file written by runner.py:
//   soc NAME UB_BYTES UB_USABLE | blocks N | threads T | report PATH | arg KIND NBYTES PATH
// KIND: in / tiling / out / inout (the file, mapped shared; out and inout are read back), ws (zeroed memory).
int harness_main(int argc, char** argv, int nargs, void (*launch)(uint8_t** args)) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SPEC_FILE (written by ascendcraft_lab.backends.emulator.runner)\n", argv[0]);
        return 2;
    }
    g_harness = true;
    FILE* spec = fopen(argv[1], "r");
    if (!spec) { perror(argv[1]); return 2; }
    char line[4096];
    uint32_t block_dim = 1;
    std::string report_path;
    std::vector<uint8_t*> args;
    int ai = 0;
    while (fgets(line, sizeof(line), spec)) {
        line[strcspn(line, "\n")] = 0;
        char key[32] = {0};
        if (sscanf(line, "%31s", key) != 1) continue;
        if (!strcmp(key, "soc")) {
            char name[64];
            unsigned long long ub, usable;
            unsigned cores = 0;
            if (sscanf(line, "soc %63s %llu %llu %u", name, &ub, &usable, &cores) >= 3) {
                g_soc = name;
                g_ub_bytes = ub;
                g_ub_usable = usable;
                g_cores = cores;
            }
        } else if (!strcmp(key, "cube")) {
            unsigned long long l1, l0a, l0b, l0c, bt;
            unsigned cores = 0;
            if (sscanf(line, "cube %llu %llu %llu %llu %llu %u", &l1, &l0a, &l0b, &l0c, &bt, &cores) >= 5) {
                g_cube = {l1, l0a, l0b, l0c, bt, cores};
                g_cube_known = true;
            }
        } else if (!strcmp(key, "blocks")) {
            sscanf(line, "blocks %u", &block_dim);
        } else if (!strcmp(key, "threads")) {
            sscanf(line, "threads %u", &g_threads);
        } else if (!strcmp(key, "report")) {
            report_path = line + 7;
        } else if (!strcmp(key, "arg")) {
            char kind[16];
            unsigned long long nbytes;
            int consumed = 0;
            if (sscanf(line, "arg %15s %llu %n", kind, &nbytes, &consumed) < 2) { fprintf(stderr, "acemu: bad spec line: %s\n", line); return 2; }
            const char* path = line + consumed;
            uint64_t maplen = nbytes ? nbytes : 1;
            void* p = MAP_FAILED;
            if (!strcmp(kind, "ws")) {
                p = mmap(nullptr, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
            } else {
                // Every argument file is private to this run, so a shared mapping is safe for inputs too,
                // and it avoids copying each page (a private writable mapping copies on populate).
                bool shared = true;
                int fd = open(path, O_RDWR);
                if (fd < 0) { perror(path); return 2; }
                if (nbytes == 0) p = mmap(nullptr, 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                // MAP_POPULATE maps the pages now, so the kernel's timing does not include first-touch faults.
                else p = mmap(nullptr, maplen, PROT_READ | PROT_WRITE, (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_POPULATE, fd, 0);
                close(fd);
            }
            if (p == MAP_FAILED) { perror("acemu: mmap"); return 2; }
#ifdef MADV_POPULATE_WRITE
            // Shared mappings are populated read-only; take the write faults now, not inside the kernel's timing.
            if (nbytes && (!strcmp(kind, "out") || !strcmp(kind, "inout"))) madvise(p, nbytes, MADV_POPULATE_WRITE);
#endif
            register_gm(p, nbytes, ai);
            args.push_back(static_cast<uint8_t*>(p));
            ++ai;
        }
    }
    fclose(spec);
    if (int(args.size()) != nargs) {
        fprintf(stderr, "acemu: the kernel takes %d arguments but %zu were given\n", nargs, args.size());
        return 2;
    }
    struct Closure { void (*launch)(uint8_t**); uint8_t** args; } cl{launch, args.data()};
    run_blocks(block_dim, [](void* p) { auto* c = static_cast<Closure*>(p); c->launch(c->args); }, &cl);
    if (!report_path.empty() && !write_report(report_path.c_str())) { perror(report_path.c_str()); return 2; }
    return 0;
}

namespace {
// Host programs that launch with ACLRT_LAUNCH_KERNEL get the findings on stderr at exit.
struct ExitReport {
    ~ExitReport() {
        if (!g_harness && !g_findings.empty() && getenv("ACEMU_QUIET") == nullptr) print_findings_to_stderr();
    }
} g_exit_report;
}  // namespace

}  // namespace rt
}  // namespace acemu
