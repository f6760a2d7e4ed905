// acemu-test: entry=mm_flags_ok args=3
// The bug kernels' shared matmul done right (cube_bug_common.h): no finding.
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void mm_flags_ok(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TinyMatmul op;
    op.Init(a, b, c);
    op.Run();
}
