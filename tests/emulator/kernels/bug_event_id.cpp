// acemu-test: entry=bug_event_id args=2
// Event IDs are EVENT_ID0..EVENT_ID7.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void bug_event_id(GM_ADDR x, GM_ADDR y)
{
    SetFlag<HardEvent::V_MTE3>(EVENT_ID7);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID7);
    event_t id = static_cast<event_t>(8);
    SetFlag<HardEvent::V_MTE3>(id);  // FINDING: api-misuse
    (void)x;
    (void)y;
}
