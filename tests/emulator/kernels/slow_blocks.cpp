// acemu-test: entry=slow_blocks args=2
// Block 0 finishes at once; every other block keeps calling Duplicate for as many rounds as x[0]
// says (a huge number: they are still at it when the time limit stops the run).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void slow_blocks(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    LocalTensor<float> t = buf.Get<float>();
    uint32_t rounds = GetBlockIdx() == 0 ? 1 : *reinterpret_cast<__gm__ uint32_t *>(x);
    for (uint32_t i = 0; i < rounds; ++i) {
        Duplicate(t, float(i), 64);  // the call the progress report names
    }
    (void)y;
}
