// acemu-test: entry=bug_cube_param args=3
// Nd2Nz's dstNzC0Stride is the destination's row count: 16 rows for a 32-row A makes the C0
// columns overwrite each other.
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void bug_cube_param(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TinyMatmul op;
    op.Init(a, b, c);
    DataCopy(op.a1Buf.Get<half>(), op.aGm, Nd2NzParams(1, M, K, 0, K, 16, 1, 0));  // FINDING: cube-param
    op.Run();
}
