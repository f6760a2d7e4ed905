// acemu-test: entry=assert_fails args=1
// ASSERT with a message: block 2 fails it.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void assert_fails(GM_ADDR x)
{
    const int64_t block = GetBlockIdx();
    ASSERT(block != 2, "block %d of %d must not run", int(block), int(GetBlockNum()));
    (void)x;
}
