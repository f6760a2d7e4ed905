// A 32 x 32 x 32 half matmul on one cube core with TBufs and hand-written flags, split into steps
// so each buggy kernel (bug_*.cpp) can get one of them wrong and keep the rest right.
#pragma once
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t M = 32, N = 32, K = 32, BLOCKS = 2;  // 2 x 2 fractals each

struct TinyMatmul {
    TPipe pipe;
    TBuf<TPosition::A1> a1Buf;
    TBuf<TPosition::B1> b1Buf;
    TBuf<TPosition::A2> a2Buf;
    TBuf<TPosition::B2> b2Buf;
    TBuf<TPosition::CO1> c1Buf;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c)
    {
        aGm.SetGlobalBuffer((__gm__ half *)a, M * K);
        bGm.SetGlobalBuffer((__gm__ half *)b, K * N);
        cGm.SetGlobalBuffer((__gm__ float *)c, M * N);
        pipe.InitBuffer(a1Buf, M * K * sizeof(half));
        pipe.InitBuffer(b1Buf, K * N * sizeof(half));
        pipe.InitBuffer(a2Buf, M * K * sizeof(half));
        pipe.InitBuffer(b2Buf, K * N * sizeof(half));
        pipe.InitBuffer(c1Buf, M * N * sizeof(float));
    }
    __aicore__ inline void CopyIn()
    {
        DataCopy(a1Buf.Get<half>(), aGm, Nd2NzParams(1, M, K, 0, K, M, 1, 0));
        DataCopy(b1Buf.Get<half>(), bGm, Nd2NzParams(1, K, N, 0, N, K, 1, 0));
    }
    __aicore__ inline void SplitA()
    {
        for (uint32_t i = 0; i < BLOCKS; ++i)
            LoadData(a2Buf.Get<half>()[i * BLOCKS * CUBE_MAX_SIZE], a1Buf.Get<half>()[i * CUBE_MAX_SIZE],
                     LoadData2DParams(0, BLOCKS, BLOCKS, 0, 0, false, 0));
    }
    __aicore__ inline void SplitB()
    {
        for (uint32_t kb = 0; kb < BLOCKS; ++kb)
            LoadData(b2Buf.Get<half>()[kb * BLOCKS * CUBE_MAX_SIZE], b1Buf.Get<half>()[kb * CUBE_MAX_SIZE],
                     LoadData2DParams(0, BLOCKS, BLOCKS, 0, 0, true, 0));
    }
    __aicore__ inline void Compute() { Mmad(c1Buf.Get<float>(), a2Buf.Get<half>(), b2Buf.Get<half>(), MmadParams(M, N, K)); }
    __aicore__ inline void CopyOut() { Fixpipe(cGm, c1Buf.Get<float>(), FixpipeParamsV220(N, M, M, N)); }

    // The whole correct sequence.
    __aicore__ inline void Run()
    {
        CopyIn();
        SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
        SplitA();
        SplitB();
        SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
        WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
        Compute();
        SetFlag<HardEvent::M_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
        CopyOut();
    }
};
