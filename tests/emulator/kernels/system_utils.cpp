// acemu-test: entry=system_utils args=1
// GetSystemCycle moves forward, DivCeil rounds up (usable in constant expressions), AscendC::Std
// has the type traits, AscendC::printf prints one line per core.
#include "kernel_operator.h"
using namespace AscendC;

static_assert(Std::is_same<Std::conditional_t<true, half, float>, half>::value, "Std::conditional_t picks its first type");
constexpr int32_t kTiles = DivCeil(1000, 256);

extern "C" __global__ __aicore__ void system_utils(GM_ADDR y)
{
    GlobalTensor<int32_t> out;
    out.SetGlobalBuffer((__gm__ int32_t*)y + 4 * GetBlockIdx(), 4);
    const int64_t t0 = GetSystemCycle();
    int64_t t1 = t0;
    while (t1 == t0) t1 = GetSystemCycle();
    out.SetValue(0, t1 > t0 ? 1 : 0);
    out.SetValue(1, kTiles);
    out.SetValue(2, int32_t(DivCeil(int64_t(7), 2)));
    printf("block %d: %d tiles\n", int(GetBlockIdx()), int(kTiles));
}
