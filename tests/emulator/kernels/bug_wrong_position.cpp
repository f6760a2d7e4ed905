// acemu-test: entry=bug_wrong_position args=3
// A vector instruction on an L1 tensor: vector instructions reach only UB.
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void bug_wrong_position(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TinyMatmul op;
    op.Init(a, b, c);
    op.CopyIn();
    LocalTensor<half> a1 = op.a1Buf.Get<half>();
    Muls(a1, a1, half(2.0), M * K);  // FINDING: wrong-position
    op.Run();
}
