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
    bool aic = false;  // found on a cube core (mixed kernels)
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
// One task of a launch: a vector core (AIV) or, in a mixed kernel, a cube core (AIC).
struct Task {
    bool aic;
    int32_t block_idx, sub_block_idx, sub_block_num;
};
struct BlockData {
    Task task{};
    int task_no = 0;  // position in the launch's task list (what race checks tell blocks apart by)
    std::vector<Finding> findings;
    std::map<std::tuple<std::string, std::string, int>, size_t> index;  // (kind, file, line) -> finding
    std::vector<WriteRange> writes;
    std::vector<AtomicWrite> atomics;
    trace::Log trace;  // the block's pipe trace (when the launch is traced)
};
struct Alloc {
    const uint8_t* lo;
    const uint8_t* hi;
    int index;
};

#ifndef ACEMU_DEFAULT_SOC
#error "the runner compiles the runtime with -DACEMU_DEFAULT_SOC=\"<soc.py's emulator_line()>\""
#endif
SocInfo g_socinfo{};
bool g_soc_ready = false;
unsigned g_threads = 0;
bool g_sync_all = false;          // the kernel calls SyncAll (set before main, see base.h)
bool g_sync_all_mixed = false;    // ... SyncAll<false>: the barrier includes the cube cores
uint64_t g_tiling_key = 0;        // TILING_KEY_IS
int g_kernel_mode = 0;            // SetKernelMode: 0 MIX (the kernel's declared type), 1 AIC, 2 AIV
std::mutex g_print_mu;
// Kernel types declared with KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE, by kernel name.
struct KernelTypes {
    std::map<std::string, int> by_name;
    std::map<std::pair<std::string, uint64_t>, int> by_key;
};
KernelTypes& kernel_types() {
    static KernelTypes k;  // filled by static initialisers, so constructed on first use
    return k;
}
// A kernel's name as a launch spells it ("relu_kernel<float>", "ns::add") reduced to the bare
// identifier the type registry keys by.
std::string bare_name(const char* s) {
    std::string n(s ? s : "");
    size_t lt = n.find('<');
    if (lt != std::string::npos) n.resize(lt);
    size_t colon = n.rfind("::");
    if (colon != std::string::npos) n = n.substr(colon + 2);
    n.erase(std::remove_if(n.begin(), n.end(), [](char ch) { return ch == ' ' || ch == '&' || ch == '(' || ch == ')'; }), n.end());
    return n;
}

int g_implied_type = -1;   // implied by the cube APIs (set before main, base.h); -1: none
int g_launch_type = KERNEL_TYPE_AIV_ONLY;  // the type of the launch running now (rt::kernel_type)
CubeSizes g_cube;          // L1 / L0 / bias-table bytes of the SoC (spec line `cube`, or ACEMU_CUBE for host programs)
bool g_cube_known = false;
std::vector<Alloc> g_allocs;
std::mutex g_alloc_mu;
std::mutex g_mu;
std::vector<Finding> g_findings;  // merged, in block order
double g_kernel_s = 0.0;
unsigned long long g_launches = 0;  // kernel launches since the report was last cleared
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

// ---- the pipe trace (acemu/trace.h) ----------------------------------------------------------
// A traced launch keeps every block's events; `write_trace` writes them all after the run. The
// budget bounds the memory a long kernel's trace may take: past its share a block keeps counting
// its events without storing them, and the file says how many there were.
constexpr uint64_t kTraceBudget = 1ull << 22;  // events per launch, over all its blocks
constexpr uint64_t kTraceMinPerBlock = 1ull << 14;
std::string g_trace_path;  // spec line `trace PATH` (or ACEMU_TRACE for host programs): tracing on
struct TracedBlock {
    Task task;
    trace::Log log;
};
struct TracedLaunch {
    uint32_t block_dim;
    int kernel_type;
    std::vector<TracedBlock> blocks;
};
std::vector<TracedLaunch> g_traces;
bool tracing() {
    static const bool env_checked = [] {
        const char* env = getenv("ACEMU_TRACE");
        if (env && *env && g_trace_path.empty()) g_trace_path = env;
        return true;
    }();
    (void)env_checked;
    return !g_trace_path.empty();
}
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
    std::lock_guard<std::mutex> lk(g_alloc_mu);
    for (auto it = g_allocs.rbegin(); it != g_allocs.rend(); ++it) {
        const Alloc& a = *it;
        const uint8_t* q = static_cast<const uint8_t*>(p);
        if (q >= a.lo && q < a.hi) {
            *off = (long long)(q - a.lo);
            if (a.index >= 0) snprintf(buf, n, "kernel argument %d", a.index);
            else snprintf(buf, n, "a host tensor of %lld B", (long long)(a.hi - a.lo));
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
        madvise(ub, soc_info().ub_bytes + 4096, MADV_POPULATE_WRITE);
        madvise(sh, (soc_info().ub_bytes / 32 + 1024) * sizeof(uint32_t), MADV_POPULATE_WRITE);
#endif
        memset(ctx.ub, 0xff, soc_info().ub_bytes);  // the shadow starts zero (fresh pages); the data gets the pattern
        altstack = malloc(1 << 16);
        stack_t st;
        st.ss_sp = altstack;
        st.ss_size = 1 << 16;
        st.ss_flags = 0;
        sigaltstack(&st, nullptr);
        return true;
    }
    void begin_block(int num, int ration, int core_id, BlockData* bd) {
        // Fresh UB per block: the shadow says "never written" and the data is a NaN/-1 pattern, so a
        // kernel that reads what it did not write gets a finding and a visibly wrong value.
        // Only what the previous block on this thread touched needs resetting.
        uint64_t used = (ctx.ub_high + 31) & ~uint64_t(31);
        if (used > kReserve / 2) used = kReserve / 2;
        memset(ctx.shadow, 0, used / 32 * sizeof(uint32_t));
        memset(ctx.ub, 0xff, used);
        ctx.ub_high = 0;
        ctx.ub_bytes = soc_info().ub_bytes;
        ctx.ub_usable = soc_info().ub_usable;
        ctx.block_idx = bd->task.block_idx;
        ctx.block_num = num;
        ctx.core_id = core_id;
        ctx.core_type = bd->task.aic ? CORE_AIC : CORE_AIV;
        ctx.sub_block_idx = bd->task.sub_block_idx;
        ctx.sub_block_num = bd->task.sub_block_num;
        ctx.task_ration = ration;
        ctx.mask_counter = false;
        ctx.mask[0] = ctx.mask[1] = ~uint64_t(0);
        ctx.atomic_op = ATOMIC_NONE;
        ctx.atomic_dtype = 0;
        ctx.pipe = nullptr;
        ctx.api = nullptr;
        ctx.file = nullptr;
        ctx.line = 0;
        ctx.calls = 0;
        ctx.rt = bd;
        ctx.trace = bd->trace.cap ? &bd->trace : nullptr;
        cube::begin_block();  // fresh L1 / L0 for the block that starts on this thread
        ub_order_begin_block(&ctx);  // and a fresh UB pipe-order record
    }
};

// ---- progress: how far a run got, for a run stopped at its time limit (spec line `progress PATH`) ----
// A watchdog thread rewrites PATH (a temporary file renamed over it, so a killed run leaves a whole
// one) twice a second: the launches and blocks finished, and per running block its last AscendC
// call, how many calls it made and for how long it has made none. runner.py reads it on a timeout.
constexpr int kLiveSlots = 256;
struct LiveSlot {
    BlockCtx* ctx = nullptr;          // the worker's context while its thread lives (under g_live_mu)
    std::atomic<int32_t> task{-1};    // the task (block) it runs now, -1 between blocks
};
std::mutex g_live_mu;
LiveSlot g_live[kLiveSlots];
std::atomic<int> g_live_next{0};
std::atomic<uint32_t> g_tasks_total{0}, g_tasks_done{0};
std::string g_progress_path;

int live_claim(BlockCtx* ctx) {
    int i = g_live_next.fetch_add(1);
    if (i >= kLiveSlots) return -1;
    std::lock_guard<std::mutex> lk(g_live_mu);
    g_live[i].ctx = ctx;
    g_live[i].task.store(-1);
    return i;
}
void live_release(int i) {
    if (i < 0) return;
    std::lock_guard<std::mutex> lk(g_live_mu);
    g_live[i].ctx = nullptr;
    g_live[i].task.store(-1);
}

struct Watchdog {
    std::mutex mu;
    std::condition_variable cv;
    bool stop = false;
    std::thread th;
    void start() {
        th = std::thread([this] { loop(); });
    }
    void finish() {
        if (!th.joinable()) return;
        {
            std::lock_guard<std::mutex> lk(mu);
            stop = true;
        }
        cv.notify_all();
        th.join();
    }
    void loop() {
        const auto t0 = std::chrono::steady_clock::now();
        uint64_t last_calls[kLiveSlots] = {};
        int32_t last_task[kLiveSlots];
        double changed_at[kLiveSlots] = {};
        for (int i = 0; i < kLiveSlots; ++i) last_task[i] = -2;
        const std::string tmp = g_progress_path + ".tmp";
        for (;;) {
            {
                std::unique_lock<std::mutex> lk(mu);
                if (cv.wait_for(lk, std::chrono::milliseconds(500), [this] { return stop; })) return;
            }
            const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::string out;
            char buf[512];
            snprintf(buf, sizeof(buf), "elapsed %.3f\nlaunches %llu\nblocks %u %u\n", now, __atomic_load_n(&g_launches, __ATOMIC_RELAXED), g_tasks_done.load(),
                     g_tasks_total.load());
            out += buf;
            {
                std::lock_guard<std::mutex> lk(g_live_mu);
                for (int i = 0; i < kLiveSlots; ++i) {
                    BlockCtx* c = g_live[i].ctx;
                    const int32_t task = g_live[i].task.load();
                    if (c == nullptr || task < 0) continue;
                    const uint64_t calls = __atomic_load_n(&c->calls, __ATOMIC_RELAXED);
                    if (task != last_task[i] || calls != last_calls[i]) {
                        last_task[i] = task;
                        last_calls[i] = calls;
                        changed_at[i] = now;
                    }
                    const char* api = __atomic_load_n(&c->api, __ATOMIC_RELAXED);
                    const char* file = __atomic_load_n(&c->file, __ATOMIC_RELAXED);
                    const int line = __atomic_load_n(&c->line, __ATOMIC_RELAXED);
                    // block idx, AIC/AIV, calls, seconds without a call, line, api, file (last: it may hold spaces)
                    snprintf(buf, sizeof(buf), "running %d %s %llu %.3f %d %s %s\n", __atomic_load_n(&c->block_idx, __ATOMIC_RELAXED),
                             __atomic_load_n(&c->core_type, __ATOMIC_RELAXED) == CORE_AIC ? "AIC" : "AIV", (unsigned long long)calls,
                             now - changed_at[i], line, api ? api : "-", file ? file : "-");
                    out += buf;
                }
            }
            FILE* f = fopen(tmp.c_str(), "w");
            if (f == nullptr) continue;
            fwrite(out.data(), 1, out.size(), f);
            fclose(f);
            rename(tmp.c_str(), g_progress_path.c_str());
        }
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

// "block 3"; in a launch with cube cores, "AIV block 3" / "AIC block 1".
std::string task_label(const std::vector<BlockData>& blocks, int task) {
    const Task& t = blocks[size_t(task)].task;
    bool mixed = std::any_of(blocks.begin(), blocks.end(), [](const BlockData& b) { return b.task.aic; });
    return std::string(mixed ? (t.aic ? "AIC block " : "AIV block ") : "block ") + std::to_string(t.block_idx);
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
            const Task& tx = blocks[size_t(x.block)].task;
            snprintf(msg, sizeof(msg),
                     "%s in %s writes GM bytes [%lld, %lld) of %s, which %s also wrote (%s at %s:%d); without atomics the "
                     "result depends on which core writes last. Give each core a disjoint output range, or accumulate with SetAtomicAdd",
                     x.api, task_label(blocks, x.block).c_str(), off, off + (long long)(end - x.lo), name,
                     task_label(blocks, other->block).c_str(), other->api, other->file, other->line);
            Finding f;
            f.kind = GM_RACE;
            f.api = x.api;
            f.file = x.file;
            f.line = x.line;
            f.block = tx.block_idx;
            f.aic = tx.aic;
            f.count = 1;
            f.blocks = {tx.block_idx};
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

std::string findings_json() {
    std::string o;
    char buf[256];
    snprintf(buf, sizeof(buf), "{\"kernel_s\": %.6f, \"threads\": %u, \"launches\": %llu, \"ub_bytes\": %llu, \"findings\": [",
             g_kernel_s, g_threads, g_launches, (unsigned long long)g_initbuffer_high.load());
    o += buf;
    for (size_t i = 0; i < g_findings.size(); ++i) {
        const Finding& x = g_findings[i];
        o += i ? ",\n  {" : "\n  {";
        o += "\"kind\": \"" + json_escape(x.kind) + "\", \"api\": \"" + json_escape(x.api) + "\", \"file\": \"" + json_escape(x.file) + "\", ";
        snprintf(buf, sizeof(buf), "\"line\": %d, \"block\": %d, \"core\": \"%s\", \"count\": %llu, \"blocks\": [", x.line, x.block,
                 x.aic ? "aic" : "aiv", (unsigned long long)x.count);
        o += buf;
        for (size_t j = 0; j < x.blocks.size(); ++j) o += (j ? ", " : "") + std::to_string(x.blocks[j]);
        o += "], \"message\": \"" + json_escape(x.message) + "\"}";
    }
    o += "\n]}\n";
    return o;
}

bool write_report(const char* path) {
    std::string tmp = std::string(path) + ".tmp";
    FILE* f = fopen(tmp.c_str(), "w");
    if (!f) return false;
    std::string json = findings_json();
    fwrite(json.data(), 1, json.size(), f);
    fclose(f);
    return rename(tmp.c_str(), path) == 0;
}

// The trace file, little-endian: "ACEMUTR1"; u32 strings, each u32 length + bytes; u32 launches,
// each u32 blockDim, i32 kernel type, u32 blocks, each {i32 block idx, u8 cube core, u8 truncated,
// u16 0, u64 events counted, u64 events stored, stored x 32-B event}; an event is {u64 a, u64 b,
// u32 line, u16 api, u16 file, u8 kind, u8 pipe, u8 dtype, u8 aux, u32 0} (acemu/trace.h).
bool write_trace(const char* path) {
    std::map<const char*, uint32_t> ids;
    std::vector<const char*> strs;
    auto id = [&](const char* s) -> uint16_t {
        if (s == nullptr) s = "?";
        auto it = ids.find(s);
        if (it != ids.end()) return uint16_t(it->second);
        if (strs.size() >= 0xffff) return 0;
        ids[s] = uint32_t(strs.size());
        strs.push_back(s);
        return uint16_t(strs.size() - 1);
    };
    struct Packed {
        uint64_t a, b;
        uint32_t line;
        uint16_t api, file;
        uint8_t kind, pipe, dtype, aux;
        uint32_t pad;
    };
    static_assert(sizeof(Packed) == 32, "trace events are 32 bytes in the file");
    std::vector<std::vector<Packed>> packed;
    for (auto& l : g_traces)
        for (auto& b : l.blocks) {
            std::vector<Packed> out;
            out.reserve(b.log.events.size());
            for (const trace::Event& e : b.log.events)
                out.push_back({e.a, e.b, e.line, id(e.api), id(e.file), e.kind, e.pipe, e.dtype, e.aux, 0});
            packed.push_back(std::move(out));
        }
    std::string tmp = std::string(path) + ".tmp";
    FILE* f = fopen(tmp.c_str(), "wb");
    if (!f) return false;
    auto u32 = [&](uint32_t v) { fwrite(&v, 4, 1, f); };
    fwrite("ACEMUTR1", 1, 8, f);
    u32(uint32_t(strs.size()));
    for (const char* s : strs) {
        u32(uint32_t(strlen(s)));
        fwrite(s, 1, strlen(s), f);
    }
    u32(uint32_t(g_traces.size()));
    size_t k = 0;
    for (auto& l : g_traces) {
        u32(l.block_dim);
        u32(uint32_t(l.kernel_type));
        u32(uint32_t(l.blocks.size()));
        for (auto& b : l.blocks) {
            const std::vector<Packed>& ev = packed[k++];
            int32_t idx = b.task.block_idx;
            uint8_t head[4] = {uint8_t(b.task.aic ? 1 : 0), uint8_t(b.log.total > ev.size() ? 1 : 0), 0, 0};
            uint64_t counts[2] = {b.log.total, uint64_t(ev.size())};
            fwrite(&idx, 4, 1, f);
            fwrite(head, 1, 4, f);
            fwrite(counts, 8, 2, f);
            if (!ev.empty()) fwrite(ev.data(), sizeof(Packed), ev.size(), f);
        }
    }
    bool ok = fclose(f) == 0;
    return ok && rename(tmp.c_str(), path) == 0;
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
    f.aic = c && c->core_type == CORE_AIC;
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
    std::lock_guard<std::mutex> lk(g_alloc_mu);
    const uint8_t* q = static_cast<const uint8_t*>(p);
    // The allocation holding p (the latest registration first); only then one whose end p is
    // (an empty tensor, or one that ends where the next allocation starts).
    for (int pass = 0; pass < 2; ++pass) {
        for (auto it = g_allocs.rbegin(); it != g_allocs.rend(); ++it) {
            const Alloc& a = *it;
            if (pass == 0 ? (q >= a.lo && q < a.hi) : q == a.hi) {
                *lo = a.lo;
                *hi = a.hi;
                *arg_index = a.index;
                return true;
            }
        }
    }
    return false;
}

// A buffer registered again (the op harness naming a torch tensor as kernel argument k) shadows
// its earlier registration until it is unregistered.
void register_gm(const void* p, uint64_t nbytes, int arg_index) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    std::lock_guard<std::mutex> lk(g_alloc_mu);
    g_allocs.push_back({b, b + nbytes, arg_index});
}

void unregister_gm(const void* p) {
    std::lock_guard<std::mutex> lk(g_alloc_mu);
    for (size_t i = g_allocs.size(); i-- > 0;) {
        if (g_allocs[i].lo == p) {
            g_allocs.erase(g_allocs.begin() + long(i));
            return;
        }
    }
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

bool parse_soc_line(const char* line, SocInfo* out) {
    SocInfo s{};
    unsigned long long v[10] = {};
    char name[32] = {0};
    int n = sscanf(line, " %31s %llu %llu %u %u %llu %llu %llu %llu %llu %llu %llu %llu", name, &v[0], &v[1], &s.vector_cores,
                   &s.cube_cores, &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    if (n != 13) return false;
    memcpy(s.name, name, sizeof(s.name));
    s.ub_bytes = v[0];
    s.ub_usable = v[1];
    s.l1_bytes = v[2];
    s.l0a_bytes = v[3];
    s.l0b_bytes = v[4];
    s.l0c_bytes = v[5];
    s.l2_bytes = v[6];
    s.hbm_bytes = v[7];
    s.lib_api_workspace = v[8];
    s.bt_bytes = v[9];
    *out = s;
    return true;
}

void set_soc(const SocInfo& soc) {
    g_socinfo = soc;
    g_soc_ready = true;
}

// The runner's spec sets the SoC of a harness run; host programs and extensions read ACEMU_SOC,
// else the default SoC the runtime was built with.
const SocInfo& soc_info() {
    if (!g_soc_ready) {
        const char* env = getenv("ACEMU_SOC");
        if (!(env && parse_soc_line(env, &g_socinfo)) && !parse_soc_line(ACEMU_DEFAULT_SOC, &g_socinfo)) {
            fprintf(stderr, "acemu: cannot read the SoC line \"%s\"\n", env ? env : ACEMU_DEFAULT_SOC);
            abort();
        }
        g_soc_ready = true;
    }
    return g_socinfo;
}

uint64_t lib_api_workspace_bytes() { return soc_info().lib_api_workspace; }

bool note_kernel_type(int type, uint64_t key, bool per_key, const char* where) {
    // where: "static const char* <kernel>(<params>)::acemu_kernel_type_site::where() ..."
    std::string w(where ? where : "");
    size_t open = w.find('(');
    std::string head = w.substr(0, open == std::string::npos ? w.size() : open);
    size_t space = head.rfind(' ');
    std::string name = bare_name(head.substr(space == std::string::npos ? 0 : space + 1).c_str());
    KernelTypes& k = kernel_types();
    if (per_key) k.by_key[{name, key}] = type;
    else k.by_name[name] = type;
    return true;
}

uint64_t tiling_key() { return g_tiling_key; }
void set_tiling_key(uint64_t key) { g_tiling_key = key; }
void set_kernel_mode(int mode) { g_kernel_mode = mode; }

namespace {
[[noreturn]] void assert_stop(const char* expr, const char* file, int line, const char* msg) {
    BlockCtx* c = tls_ctx;
    char where[64] = "";
    if (c) snprintf(where, sizeof(where), " in %s block %d", c->core_type == CORE_AIC ? "AIC" : "AIV", c->block_idx);
    fprintf(stderr, "acemu: ASSERT(%s) failed%s at %s:%d%s%s\n", expr, where, file, line, msg && *msg ? ": " : "", msg ? msg : "");
    fflush(stderr);
    abort();
}
}  // namespace

void assert_failed(const char* expr, const char* file, int line) { assert_stop(expr, file, line, nullptr); }
void assert_failed(const char* expr, const char* file, int line, const char* fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    assert_stop(expr, file, line, msg);
}

void kernel_print(const char* text) {
    std::lock_guard<std::mutex> lk(g_print_mu);
    fputs(text, stdout);
    fflush(stdout);
}

bool write_report_file(const char* path) { return write_report(path); }
void set_trace_path(const char* path) { g_trace_path = path ? path : ""; }
bool write_trace_file() {
    if (g_trace_path.empty()) return true;
    const bool ok = write_trace(g_trace_path.c_str());
    g_traces.clear();  // written: nothing left for the exit handler
    return ok;
}

std::string report_json(bool clear) {
    std::lock_guard<std::mutex> lk(g_mu);
    std::string json = findings_json();
    if (clear) {
        g_findings.clear();
        g_kernel_s = 0.0;
        g_launches = 0;
        g_initbuffer_high = 0;
    }
    return json;
}

bool note_sync_all(bool aiv_only) {
    g_sync_all = true;
    if (!aiv_only) g_sync_all_mixed = true;
    return true;
}

bool note_kernel_type(int type) {
    // A kernel that uses cube APIs runs on cube cores; the mixed types win over the single-core ones
    // (the Matmul object registers MIX_AIC_1_2, its kernel may declare nothing). A type the kernel
    // declares (KERNEL_TASK_TYPE_DEFAULT) takes precedence (kernel_type_of).
    if (type > g_implied_type) g_implied_type = type;
    return true;
}

int kernel_type() { return g_launch_type; }

const CubeSizes& cube_sizes() {
    if (!g_cube_known) {
        // Host programs and extensions (no harness spec): ACEMU_CUBE from the runner's soc_env(), else
        // the SoC the process emulates (ACEMU_SOC, or the default line baked into the runtime).
        const char* env = getenv("ACEMU_CUBE");
        unsigned long long l1 = 0, l0a = 0, l0b = 0, l0c = 0, bt = 0;
        unsigned cores = 0;
        if (env != nullptr && sscanf(env, "%llu %llu %llu %llu %llu %u", &l1, &l0a, &l0b, &l0c, &bt, &cores) >= 5) {
            g_cube = {l1, l0a, l0b, l0c, bt, cores};
        } else {
            const SocInfo& s = soc_info();
            g_cube = {s.l1_bytes, s.l0a_bytes, s.l0b_bytes, s.l0c_bytes, s.bt_bytes, s.cube_cores};
        }
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
int kernel_type_of(const char* kernel) {
    if (g_kernel_mode == 1) return KERNEL_TYPE_AIC_ONLY;  // SetKernelMode(AIC_MODE)
    if (g_kernel_mode == 2) return KERNEL_TYPE_AIV_ONLY;  // SetKernelMode(AIV_MODE)
    KernelTypes& k = kernel_types();
    std::string name = bare_name(kernel);
    if (name.empty()) {  // launched without a name: the binary's only declaring kernel, if any
        std::map<std::string, int> names(k.by_name);
        for (auto& kv : k.by_key) names.emplace(kv.first.first, kv.second);
        if (names.size() != 1) return g_implied_type >= 0 ? g_implied_type : KERNEL_TYPE_AIV_ONLY;
        name = names.begin()->first;
    }
    auto key = k.by_key.find({name, g_tiling_key});
    if (key != k.by_key.end()) return key->second;
    auto def = k.by_name.find(name);
    if (def != k.by_name.end()) return def->second;
    // No declaration: a kernel using the cube APIs runs on cube cores (mixed when the Matmul object
    // asked for it), any other on vector cores.
    return g_implied_type >= 0 ? g_implied_type : KERNEL_TYPE_AIV_ONLY;
}

// The tasks of a launch of `block_dim` blocks, cube cores first (reference: GetBlockIdx,
// GetSubBlockNum): AIV-only and AIC-only kernels have one task per block; MIX_AIC_1_1 one AIC and
// one AIV per block; MIX_AIC_1_2 one AIC and two AIVs, the AIVs numbered 2b and 2b + 1.
std::vector<Task> tasks_for(int type, uint32_t block_dim, int* ration) {
    std::vector<Task> tasks;
    const int32_t n = int32_t(block_dim);
    const bool aic = type == KERNEL_TYPE_AIC_ONLY || type == KERNEL_TYPE_MIX_AIC_1_0 || type == KERNEL_TYPE_MIX_AIC_1_1 ||
                     type == KERNEL_TYPE_MIX_AIC_1_2;
    const int per = type == KERNEL_TYPE_MIX_AIC_1_2 ? 2 : (type == KERNEL_TYPE_AIC_ONLY || type == KERNEL_TYPE_MIX_AIC_1_0) ? 0 : 1;
    *ration = per ? per : 1;
    if (aic)
        for (int32_t b = 0; b < n; ++b) tasks.push_back({true, b, 0, 1});
    for (int32_t b = 0; b < n; ++b)
        for (int s = 0; s < per; ++s) tasks.push_back({false, b * per + s, s, per});
    return tasks;
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
    std::vector<Task> cores;                         // index: the logical core's core_id (its task number)
    std::vector<std::array<int, 16>> counter;
    std::map<std::pair<int, int>, int> round;        // mode 0: (core type, flag) -> cores of that type that set it
    std::map<std::tuple<int, int, int>, int> group;  // modes 1, 2 from AIVs: (mode, AI core, flag) -> AIVs that set it
    int ratio = 2;                                   // AIV cores per AI core
    std::vector<int> waiting;                        // per core: the flag it is blocked on, or -1
    std::vector<const int32_t*> ib_waiting;          // per core: the IBWait GM flag it is blocked on, or null
    int blocked = 0, exited = 0;                     // cores blocked with nothing to take, cores that ended
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
    if (g_cross.waiting[size_t(core)] == flag) {     // that core can go on now (before it even wakes up)
        g_cross.waiting[size_t(core)] = -1;
        --g_cross.blocked;
    }
}

std::vector<int> cores_of(int type, int lo = 0, int hi = 1 << 30) {
    std::vector<int> out;
    for (size_t i = 0; i < g_cross.cores.size(); ++i)
        if ((g_cross.cores[i].aic ? CORE_AIC : CORE_AIV) == type && g_cross.cores[i].block_idx >= lo && g_cross.cores[i].block_idx < hi)
            out.push_back(int(i));
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
    const size_t self = size_t(c->core_id);
    int& cnt = g_cross.counter[self][size_t(flag)];
    if (cnt == 0) {
        // Counted as blocked from now until a set raises this counter (raise_flag uncounts it then,
        // before this thread wakes): a woken core is never mistaken for a blocked one.
        g_cross.waiting[self] = flag;
        ++g_cross.blocked;
        while (cnt == 0) {
            if (g_cross.blocked + g_cross.exited >= int(g_cross.cores.size())) {
                report(CROSS_CORE, "CrossCoreWaitFlag", file, line,
                       "CrossCoreWaitFlag(%d) on %s core %d waits for a set that no core can make any more (every other core "
                       "has ended or waits too): on the NPU this core hangs. Check the mode of the matching CrossCoreSetFlag "
                       "and that every core involved reaches it", flag, c->core_type == CORE_AIC ? "cube" : "vector", c->block_idx);
                g_cross.waiting[self] = -1;
                --g_cross.blocked;
                g_cross.cv.notify_all();
                return;
            }
            g_cross.cv.wait(lk);
        }
    }
    --cnt;
}

// IBSet writes its core's flag in GM; IBWait blocks until the flag it names is set. The flag is
// read and written under the cross-core lock, so the GM write is visible to the waiter at once.
void ib_set(int32_t* flag, const char* file, int line) {
    (void)file;
    (void)line;
    std::lock_guard<std::mutex> lk(g_cross.mu);
    __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
    for (size_t i = 0; i < g_cross.ib_waiting.size(); ++i)
        if (g_cross.ib_waiting[i] == flag) {       // that core can go on now (before it even wakes up)
            g_cross.ib_waiting[i] = nullptr;
            --g_cross.blocked;
        }
    g_cross.cv.notify_all();
}

void ib_wait(int32_t* flag, int wait_block, const char* file, int line) {
    BlockCtx* c = tls_ctx;
    std::unique_lock<std::mutex> lk(g_cross.mu);
    const size_t self = size_t(c->core_id);
    if (__atomic_load_n(flag, __ATOMIC_SEQ_CST) != 0) return;
    g_cross.ib_waiting[self] = flag;
    ++g_cross.blocked;
    while (__atomic_load_n(flag, __ATOMIC_SEQ_CST) == 0) {
        if (g_cross.blocked + g_cross.exited >= int(g_cross.cores.size())) {
            report(CROSS_CORE, "IBWait", file, line,
                   "IBWait on core %d waits for block %d's flag, which no core can set any more (every other core has ended "
                   "or waits too): on the NPU this core hangs. Check that block %d calls IBSet with the same blockIdx and "
                   "eventID, and that gmWorkspace was zero before the launch", c->block_idx, wait_block, wait_block);
            g_cross.ib_waiting[self] = nullptr;
            --g_cross.blocked;
            g_cross.cv.notify_all();
            return;
        }
        g_cross.cv.wait(lk);
    }
}

namespace {
void cross_core_exit() {
    if (!g_cross_core) return;
    std::lock_guard<std::mutex> lk(g_cross.mu);
    ++g_cross.exited;
    g_cross.cv.notify_all();
}
}  // namespace

int run_blocks(uint32_t block_dim, BlockFn fn, void* closure) { return run_kernel(nullptr, block_dim, fn, closure); }

int run_kernel(const char* kernel, uint32_t block_dim, BlockFn fn, void* closure) {
    install_crash_handlers();
    if (block_dim == 0) return 0;
    const SocInfo& soc = soc_info();
    unsigned hw = g_threads ? g_threads : std::thread::hardware_concurrency();
    if (hw == 0) hw = 1;
    int ration = 1;
    g_launch_type = kernel_type_of(kernel);
    const std::vector<Task> tasks = tasks_for(g_launch_type, block_dim, &ration);
    const uint32_t ntasks = uint32_t(tasks.size());
    const bool has_aic = tasks.front().aic;
    const bool mixed = has_aic && !tasks.back().aic;
    unsigned nthreads = std::min<unsigned>(hw, ntasks);
    std::vector<BlockData> blocks(ntasks);
    const bool traced = tracing();
    for (uint32_t i = 0; i < ntasks; ++i) {
        blocks[i].task = tasks[i];
        blocks[i].task_no = int(i);
        if (traced) blocks[i].trace.cap = std::max<uint64_t>(kTraceMinPerBlock, kTraceBudget / ntasks);
    }
    // A barrier includes the vector cores (SyncAll<true>), or every core (SyncAll<false>).
    auto in_barrier = [&](const Task& t) { return !t.aic || g_sync_all_mixed || !mixed; };
    if (mixed) nthreads = ntasks;  // the cores of one AI core wait for each other: all alive at once
    if (g_cross_core) {
        nthreads = ntasks;  // a core waits for others: every core alive at once, as on the NPU
        std::lock_guard<std::mutex> lk(g_cross.mu);
        g_cross.cores = tasks;
        g_cross.counter.assign(tasks.size(), {});
        g_cross.waiting.assign(tasks.size(), -1);
        g_cross.ib_waiting.assign(tasks.size(), nullptr);
        g_cross.round.clear();
        g_cross.group.clear();
        g_cross.ratio = ration;
        g_cross.blocked = g_cross.exited = 0;
    }
    if (g_sync_all) {
        // SyncAll needs every block alive at once: one thread per block, as every core of the
        // NPU runs its block at the same time (the launch must not exceed the SoC's cores).
        nthreads = ntasks;
        std::lock_guard<std::mutex> lk(g_barrier.mu);
        g_barrier.total = int(std::count_if(tasks.begin(), tasks.end(), in_barrier));
        g_barrier.arrived = g_barrier.exited = 0;
        g_barrier.blocks = &blocks;
        const uint32_t aiv = uint32_t(std::count_if(tasks.begin(), tasks.end(), [](const Task& t) { return !t.aic; }));
        const uint32_t cores = has_aic && !mixed ? soc.cube_cores : soc.vector_cores;
        const uint32_t used = has_aic && !mixed ? ntasks : aiv;
        if (cores && used > cores) {
            barrier_finding(SYNC_MISMATCH, nullptr, 0,
                            "the kernel calls SyncAll with %u blocks but %s has %u %s cores: blocks beyond the first %u wait for a "
                            "free core that never comes, so the NPU hangs. Launch at most as many blocks as cores",
                            used, soc.name, cores, has_aic && !mixed ? "cube" : "vector", cores);
        }
    }
    g_threads = nthreads;
    std::atomic<uint32_t> next{0};
    g_tasks_total.store(ntasks);
    g_tasks_done.store(0);
    g_live_next.store(0);
    auto t0 = std::chrono::steady_clock::now();
    auto work = [&]() {
        Worker w;
        if (!w.init()) {
            fprintf(stderr, "acemu: cannot reserve emulated UB memory\n");
            abort();
        }
        const int live = live_claim(&w.ctx);
        for (;;) {
            uint32_t b = next.fetch_add(1);
            if (b >= ntasks) break;
            w.begin_block(int(block_dim), ration, int(b), &blocks[b]);
            if (live >= 0) g_live[live].task.store(int32_t(b));
            tls_ctx = &w.ctx;
            fn(closure);
            tls_ctx = nullptr;
            if (live >= 0) g_live[live].task.store(-1);
            g_tasks_done.fetch_add(1);
            cross_core_exit();
            if (g_sync_all && in_barrier(blocks[b].task)) {
                std::lock_guard<std::mutex> lk(g_barrier.mu);
                ++g_barrier.exited;
                if (g_barrier.arrived > 0 && g_barrier.arrived + g_barrier.exited == g_barrier.total)
                    release_barrier(nullptr, 0);
            }
        }
        live_release(live);
        munmap(w.ctx.ub, kReserve);
        munmap(w.ctx.shadow, w.shadow_bytes);
        cube::end_thread();
        ub_order_end_thread();
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
    if (traced) {
        TracedLaunch launch{block_dim, g_launch_type, {}};
        for (auto& b : blocks) launch.blocks.push_back({b.task, std::move(b.trace)});
        g_traces.push_back(std::move(launch));
    }
    ++g_launches;
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
    std::string report_path, entry_name;
    std::vector<uint8_t*> args;
    int ai = 0;
    while (fgets(line, sizeof(line), spec)) {
        line[strcspn(line, "\n")] = 0;
        char key[32] = {0};
        if (sscanf(line, "%31s", key) != 1) continue;
        if (!strcmp(key, "soc")) {
            SocInfo s;
            if (!parse_soc_line(line + 4, &s)) { fprintf(stderr, "acemu: bad spec line: %s\n", line); return 2; }
            set_soc(s);
        } else if (!strcmp(key, "tiling_key")) {
            unsigned long long k = 0;
            sscanf(line, "tiling_key %llu", &k);
            g_tiling_key = k;
        } else if (!strcmp(key, "entry")) {
            entry_name = line + 6;
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
        } else if (!strcmp(key, "trace")) {
            g_trace_path = line + 6;
        } else if (!strcmp(key, "progress")) {
            g_progress_path = line + 9;
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
    Watchdog watchdog;
    if (!g_progress_path.empty()) watchdog.start();
    run_kernel(entry_name.empty() ? nullptr : entry_name.c_str(), block_dim,
               [](void* p) { auto* c = static_cast<Closure*>(p); c->launch(c->args); }, &cl);
    watchdog.finish();
    if (!report_path.empty() && !write_report(report_path.c_str())) { perror(report_path.c_str()); return 2; }
    if (!g_trace_path.empty() && !write_trace(g_trace_path.c_str())) { perror(g_trace_path.c_str()); return 2; }
    return 0;
}

namespace {
// Host programs that launch with ACLRT_LAUNCH_KERNEL get the findings on stderr at exit.
struct ExitReport {
    ~ExitReport() {
        if (!g_harness && !g_traces.empty() && !write_trace(g_trace_path.c_str())) perror(g_trace_path.c_str());
        if (!g_harness && !g_findings.empty() && getenv("ACEMU_QUIET") == nullptr) print_findings_to_stderr();
    }
} g_exit_report;
}  // namespace

}  // namespace rt
}  // namespace acemu
