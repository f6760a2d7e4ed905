// acemu-test: entry=mm_fixpipe_modes args=6
// One 32 x 32 x 32 Mmad, its L0C moved out four ways by Fixpipe: NZ kept (CFG_NZ), bfloat16 with
// ReLU (F322BF16 + reluEn), int8 scaled (QF322B8_PRE), and two 16-column halves as two ND
// matrices (ndNum = 2, the second half read 1 KiB-units further and written 16 elements further).
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void mm_fixpipe_modes(GM_ADDR a, GM_ADDR b, GM_ADDR nz, GM_ADDR bf16Relu, GM_ADDR int8Out, GM_ADDR halves)
{
    TinyMatmul op;
    op.Init(a, b, nz);
    op.CopyIn();
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    op.SplitA();
    op.SplitB();
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    op.Compute();
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    LocalTensor<float> c1 = op.c1Buf.Get<float>();

    // NZ: each 16-wide column group lands dstStride (32-B blocks) after the previous one
    Fixpipe<float, float, CFG_NZ>(op.cGm, c1, FixpipeParamsV220(N, M, M, M * BLOCK_CUBE * sizeof(float) / ONE_BLK_SIZE));

    GlobalTensor<bfloat16_t> bfGm;
    bfGm.SetGlobalBuffer((__gm__ bfloat16_t *)bf16Relu, M * N);
    FixpipeParamsV220 bf(N, M, M, N, true);
    bf.quantPre = QuantMode_t::F322BF16;
    Fixpipe(bfGm, c1, bf);

    GlobalTensor<int8_t> i8Gm;
    i8Gm.SetGlobalBuffer((__gm__ int8_t *)int8Out, M * N);
    FixpipeParamsV220 q(N, M, M, N);
    q.quantPre = QuantMode_t::QF322B8_PRE;
    const float scale = 16.0f;
    uint32_t bits;
    memcpy(&bits, &scale, sizeof(bits));
    q.deqScalar = bits;
    Fixpipe(i8Gm, c1, q);

    GlobalTensor<float> halvesGm;
    halvesGm.SetGlobalBuffer((__gm__ float *)halves, M * N);
    FixpipeParamsV220 two(16, M, M, N);
    two.ndNum = 2;
    two.srcNdStride = M * BLOCK_CUBE * sizeof(float) / 1024;  // the second column group, in KiB
    two.dstNdStride = 16;
    Fixpipe(halvesGm, c1, two);
}
