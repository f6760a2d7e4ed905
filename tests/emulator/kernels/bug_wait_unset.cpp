// acemu-test: entry=bug_wait_unset args=3
// A WaitFlag that no SetFlag of the same event and id precedes: on the NPU the FIX pipe waits forever.
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void bug_wait_unset(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TinyMatmul op;
    op.Init(a, b, c);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID1);  // FINDING: pipe-hazard
    op.Run();
}
