// acemu-test: entry=bug_infinite_loop args=2
// BUG: the loop counter never advances; the runner must stop it and report a timeout.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void bug_infinite_loop(GM_ADDR x, GM_ADDR y)
{
    volatile uint32_t i = 0;
    uint32_t n = *reinterpret_cast<__gm__ uint32_t *>(x);
    while (i < n + 1) {
        (void)y;
    }
}
