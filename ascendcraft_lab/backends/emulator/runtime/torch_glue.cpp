// Linked into every CPU torch extension the emulator builds: torch's CPU allocator registers each
// allocation with the emulator's GM bounds checker, so a kernel launched on torch tensors (through
// EXEC_NPU_CMD or a direct <<<>>> launch) is checked against the tensors' real extent.
#include <mutex>
#include <unordered_map>

#include <c10/core/CPUAllocator.h>

#include "acemu/launch.h"

namespace {

class CheckedCPUAllocator final : public c10::Allocator {
public:
    explicit CheckedCPUAllocator(c10::Allocator* base) : base_(base) {}
    c10::DataPtr allocate(size_t n) override {
        c10::DataPtr orig = base_->allocate(n);
        void* p = orig.get();
        if (p == nullptr) return orig;
        acemu::rt::register_gm(p, n, -1);
        {
            std::lock_guard<std::mutex> lk(mu());
            live()[p] = std::move(orig);
        }
        return c10::DataPtr(p, p, &release, c10::Device(c10::DeviceType::CPU));
    }
    c10::DeleterFnPtr raw_deleter() const override { return &release; }
    void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

private:
    static std::mutex& mu() { static std::mutex m; return m; }
    static std::unordered_map<void*, c10::DataPtr>& live() { static std::unordered_map<void*, c10::DataPtr> m; return m; }
    static void release(void* p) {
        acemu::rt::unregister_gm(p);
        c10::DataPtr orig;
        {
            std::lock_guard<std::mutex> lk(mu());
            auto it = live().find(p);
            if (it == live().end()) return;
            orig = std::move(it->second);
            live().erase(it);
        }
    }
    c10::Allocator* base_;
};

const bool installed = [] {
    static CheckedCPUAllocator checked(c10::GetDefaultCPUAllocator());
    c10::SetCPUAllocator(&checked, /*priority=*/100);
    return true;
}();

}  // namespace
