// acemu-test: entry=bug_l1_overflow args=3
// Two 300 KiB buffers in L1, which has 512 KiB on Ascend910B.
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void bug_l1_overflow(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TinyMatmul op;
    op.Init(a, b, c);
    TQue<TPosition::B1, 2> bigQueue;
    op.pipe.InitBuffer(bigQueue, 2, 300 * 1024);  // FINDING: l1-overflow
    op.Run();
}
