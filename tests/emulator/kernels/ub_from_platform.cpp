// acemu-test: entry=ub_from_platform args=2
// Three double-buffered queues that take all of the UB the platform reports (tiling[0] bytes each),
// as a tiling function sized from GetCoreMemSize(UB) would.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void ub_from_platform(GM_ADDR x, GM_ADDR tiling)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 2> a, b;
    TQue<TPosition::VECOUT, 2> c;
    const uint32_t bytes = *reinterpret_cast<__gm__ uint32_t*>(tiling);
    pipe.InitBuffer(a, 2, bytes);
    pipe.InitBuffer(b, 2, bytes);
    pipe.InitBuffer(c, 2, bytes);  // FINDING: ub-overflow (past the physical UB; past GetCoreMemSize(UB) a note)
    (void)x;
}
