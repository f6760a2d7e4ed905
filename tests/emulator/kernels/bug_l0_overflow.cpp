// acemu-test: entry=bug_l0_overflow args=3
// A 256 x 128 float L0C tile is 128 KiB: with the matmul's own L0C buffer the total passes L0C's 128 KiB.
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void bug_l0_overflow(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TinyMatmul op;
    op.Init(a, b, c);
    TBuf<TPosition::CO1> bigTile;
    op.pipe.InitBuffer(bigTile, 256 * 128 * sizeof(float));  // FINDING: l0-overflow
    op.Run();
}
