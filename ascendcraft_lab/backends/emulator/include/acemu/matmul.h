// The high-level Matmul API (kernel side): Matmul<MatmulType<...>, ...>, REGIST_MATMUL_OBJ, and the
// @api Matmul, MatmulType, MatmulConfig, REGIST_MATMUL_OBJ, SetTensorA, SetTensorB, SetBias, SetOrgShape, SetSingleShape, SetTail, Iterate, GetTensorC, IterateAll, End | yes: A and B ND in GM, or A a VECTOR (GEMV: M 1, not transposed, 16-B aligned); no BatchMatmul, callbacks, HF32 | Matmul
// @api TCubeTiling | yes: the fields of its page | TCubeTiling
// TCubeTiling it runs from. Clean-room, from the API reference pages (Matmul, SetTensorA/B,
// SetBias, SetOrgShape, SetSingleShape, SetTail, Iterate, GetTensorC, IterateAll, End, TCubeTiling,
// SetDim) and from how the public samples call it; no Huawei header or implementation was read.
//
// What it models
// --------------
// * The iteration: one Iterate computes the next baseM x baseN block of this core's singleCoreM x
//   singleCoreN part of C (the tail blocks shorter), over all of singleCoreK; iterateOrder 0 walks M
//   first, 1 walks N first ("iterateOrder: 0 先往M轴方向偏移再往N轴方向偏移"). GetTensorC writes that
//   block to C in GM at its place (row stride: the org N), or with enSequentialWrite densely from the
//   tensor's start; to a UB tensor (C at VECIN / VECCALC / VECOUT) row-major with rows baseN long.
//   IterateAll = Iterate + GetTensorC until done.
// * The numbers: the same as the basic API's Mmad + Fixpipe path: products in float (int32 for
//   int8), summed over k in order, then converted to C's type (round to nearest even); a bias
//   (SetBias) is added to every row.
// * The checks: a tiling whose blocks do not fit L0A / L0B / L0C / L1 of the SoC (baseM * baseK
//   * size * dbL0A <= L0A, ..., depthA1 * baseM * baseK * size + depthB1 * ... <= L1: the limits the
//   TCubeTiling page states) is reported as l0-overflow / l1-overflow at REGIST_MATMUL_OBJ (or Init);
//   GM reads and writes go through the GlobalTensors' bounds (gm-out-of-bounds) and the launch's
//   race check (gm-race), so a wrong per-core offset, or a missing SetTail on the last core, shows.
// * Not modelled: the data movement inside (the object computes from GM directly; its L1 / L0 use
//   is only checked against the SoC), BatchMatmul, callbacks, NZ-format or local-memory inputs, HF32
//   (SetHF32(true) stops the run, its rounding is not documented).
//
// Cores: without ASCENDC_CUBE_ONLY the Matmul object makes the kernel a mixed one (MIX_AIC_1_2, as
// the device compiler does): a launch of numBlocks starts numBlocks cube cores and 2 * numBlocks
// vector cores; the vector cores (GetBlockIdx in [0, 2 * numBlocks)) drive the Matmul and the cube
// cores leave at REGIST_MATMUL_OBJ, as on the NPU where they serve the vector cores' requests.
// With ASCENDC_CUBE_ONLY defined first, the kernel runs on cube cores only and REGIST_MATMUL_OBJ
// goes on.
#pragma once
#include "cube.h"
#include "cube_tiling.h"

// Matrix formats and layouts (global enumerations in the device headers).
enum class CubeFormat : uint8_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode : uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

namespace AscendC {

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false, LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
};

// The configuration template parameter (CFG_NORM, CFG_MDL, GetNormalConfig(), ...). The emulator
// computes the same result whatever the configuration says about scheduling.
struct MatmulConfig {
    bool doNorm = true;
    bool doBasicBlock = false;
    bool doMultiDataLoad = false;
    uint32_t basicM = 0, basicN = 0, basicK = 0;
    bool intrinsicsCheck = false;
    bool isNBatch = false;
    bool enVecND2NZ = false;
    bool doSpecialBasicBlock = false;
    uint32_t doMTE2Preload = 0;
    uint32_t singleCoreM = 0, singleCoreN = 0, singleCoreK = 0;
    uint32_t stepM = 0, stepN = 0;
    uint32_t baseMN = 0;
    uint32_t singleCoreMN = 0;
    bool enUnitFlag = true;
    bool isPerTensor = false;
    bool hasAntiQuantOffset = false;
    bool doIBShareNorm = false;
    bool doSpecialMDL = false;
    bool enableInit = true;
    uint32_t batchMode = 0;
    bool enableEnd = true;
    bool enableGetTensorC = true;
    bool enableSetOrgShape = true;
    bool enableSetBias = true;
    bool enableSetTail = true;
    bool enableQuantVector = true;
    bool enableSetDefineData = true;
    uint8_t iterateMode = 0;
    bool enableReuse = true;
    bool enableUBReuse = false;
    bool enableL1CacheUB = false;
    bool intraBlockPartSum = false;
    uint32_t iterateOrder = 0;
    uint32_t scheduleType = 0;
    bool enableDoubleCache = false;
    bool isBiasBatch = true;
    bool enableStaticPadZeros = false;
    bool isPartialOutput = false;
    bool enableMixDualMaster = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
};
constexpr MatmulConfig GetNormalConfig(bool intrinsicsLimit = false, bool batchLoop = false, bool isVecND2NZ = false, uint32_t bmmMode = 0,
                                       bool isMsgReuse = true, uint32_t iterateOrder = 0, uint32_t scheduleType = 0, bool enUnitFlag = true,
                                       bool enableMixDualMaster = false) {
    MatmulConfig c;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.enableSetDefineData = isMsgReuse;
    c.iterateOrder = iterateOrder;
    c.scheduleType = scheduleType;
    c.enUnitFlag = enUnitFlag;
    c.enableMixDualMaster = enableMixDualMaster;
    return c;
}
constexpr MatmulConfig GetMDLConfig(bool intrinsicsLimit = false, bool batchLoop = false, uint32_t doMTE2Preload = 0, bool isVecND2NZ = false,
                                    bool isPerTensor = false, bool hasAntiQuantOffset = false, bool enUnitFlag = false, bool isMsgReuse = true,
                                    bool enableUBReuse = true, bool enableL1CacheUB = false, bool enableMixDualMaster = false,
                                    bool enableKdimReorderLoad = false) {
    MatmulConfig c = GetNormalConfig(intrinsicsLimit, batchLoop, isVecND2NZ);
    c.doNorm = false;
    c.doMultiDataLoad = true;
    c.doMTE2Preload = doMTE2Preload;
    c.isPerTensor = isPerTensor;
    c.hasAntiQuantOffset = hasAntiQuantOffset;
    c.enUnitFlag = enUnitFlag;
    c.enableSetDefineData = isMsgReuse;
    c.enableUBReuse = enableUBReuse;
    c.enableL1CacheUB = enableL1CacheUB;
    c.enableMixDualMaster = enableMixDualMaster;
    c.enableKdimReorderLoad = enableKdimReorderLoad;
    return c;
}
constexpr MatmulConfig GetSpecialMDLConfig(bool intrinsicsLimit = false, bool batchLoop = false, uint32_t doMTE2Preload = 0) {
    MatmulConfig c = GetMDLConfig(intrinsicsLimit, batchLoop, doMTE2Preload);
    c.doSpecialMDL = true;
    return c;
}
constexpr MatmulConfig GetIBShareNormConfig(bool intrinsicsLimit = false, bool batchLoop = false, bool isVecND2NZ = false) {
    MatmulConfig c = GetNormalConfig(intrinsicsLimit, batchLoop, isVecND2NZ);
    c.doNorm = false;
    c.doIBShareNorm = true;
    return c;
}
inline constexpr MatmulConfig CFG_NORM = GetNormalConfig();
inline constexpr MatmulConfig CFG_MDL = GetMDLConfig();
inline constexpr MatmulConfig MM_CFG_BB = [] {
    MatmulConfig c = GetNormalConfig();
    c.doNorm = false;
    c.doBasicBlock = true;
    return c;
}();
inline constexpr MatmulConfig CFG_IBSHARE_NORM = GetIBShareNormConfig();
inline constexpr MatmulConfig CFG_SPECIAL_MDL = GetSpecialMDLConfig();

// Callbacks of the data movement (MatmulCallBackFunc<DataCopyOut, CopyA1, CopyB1>): not modelled;
// a Matmul given callbacks does not compile.
template <auto... F> struct MatmulCallBackFunc {
    static constexpr bool none = ((F == nullptr) && ...);
};

}  // namespace AscendC

namespace acemu {
namespace matmul {

// The accumulator of an input type (the cube's: float, or int32 for int8).
template <typename T> using Acc = typename cube::CubeIn<T>::Acc;

// Where the next block is, in a core's singleCoreM x singleCoreN part of C.
struct Walk {
    int mIters = 0, nIters = 0, done = 0, total = 0;
    int order = 0;  // 0: M first, 1: N first
    int mIdx = 0, nIdx = 0;
    void start(int mi, int ni, int ord) {
        mIters = mi;
        nIters = ni;
        order = ord;
        total = mi * ni;
        done = 0;
    }
    bool next() {
        if (done >= total) return false;
        if (order == 0) { mIdx = done % mIters; nIdx = done / mIters; }
        else { nIdx = done % nIters; mIdx = done / nIters; }
        ++done;
        return true;
    }
};

// Whether REGIST_MATMUL_OBJ should leave this core: the cube core of a mixed kernel does (it only
// serves the vector cores' requests, which the emulator computes on the vector core itself).
inline bool aic_leaves() {
    const int type = rt::kernel_type();
    return ctx()->core_type == CORE_AIC && (type == KERNEL_TYPE_MIX_AIC_1_1 || type == KERNEL_TYPE_MIX_AIC_1_2);
}

}  // namespace matmul
}  // namespace acemu

namespace AscendC {

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const MatmulConfig& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>, typename... POLICY>
class Matmul {
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    using AccT = acemu::matmul::Acc<SrcAT>;
    static_assert(std::is_same<SrcAT, SrcBT>::value, "Matmul: A and B have the same type (half, bfloat16_t, float or int8_t)");
    static_assert(acemu::cube::mmad_types<AccT, SrcAT, SrcBT>(), "Matmul: A / B types must be half, bfloat16_t, float or int8_t (API page Matmul)");
    static_assert(A_TYPE::format == CubeFormat::ND || A_TYPE::format == CubeFormat::ND_ALIGN || A_TYPE::format == CubeFormat::VECTOR,
                  "Matmul: the emulator models ND inputs (and A as a VECTOR, GEMV) only (A's CubeFormat)");
    static_assert(B_TYPE::format == CubeFormat::ND || B_TYPE::format == CubeFormat::ND_ALIGN,
                  "Matmul: the emulator models ND inputs only (B's CubeFormat)");
    static_assert(A_TYPE::pos == TPosition::GM && B_TYPE::pos == TPosition::GM, "Matmul: the emulator models A and B in GM (TPosition::GM)");
    static_assert(MM_CB::none, "Matmul: data-movement callbacks (MatmulCallBackFunc) are not modelled by the emulator");

public:
    Matmul() {
#ifdef ASCENDC_CUBE_ONLY
        (void)&acemu::rt::uses_kernel_type<KERNEL_TYPE_AIC_ONLY>;
#else
        (void)&acemu::rt::uses_kernel_type<KERNEL_TYPE_MIX_AIC_1_2>;
#endif
    }

    void Init(const TCubeTiling* tiling, TPipe* tpipe = nullptr, ACEMU_SITE_PARAMS) {
        (void)tpipe;
        if (tiling == nullptr) return;  // REGIST_MATMUL_OBJ(..., (TCubeTiling*)nullptr): Init comes later
        t_ = *tiling;
        has_tiling_ = true;
        orgM_ = t_.M;
        orgN_ = t_.N;
        orgKa_ = t_.Ka;
        orgKb_ = t_.Kb;
        singleM_ = t_.singleCoreM;
        singleN_ = t_.singleCoreN;
        singleK_ = t_.singleCoreK;
        check_tiling(ACEMU_SITE);
    }
    void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK, orgN); }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        (void)orgKc;
        orgM_ = orgM;
        orgN_ = orgN;
        orgKa_ = orgKa;
        orgKb_ = orgKb;
    }
    void SetSingleShape(int singleM, int singleN, int singleK) {
        singleM_ = singleM;
        singleN_ = singleN;
        singleK_ = singleK;
    }
    // The last core's shorter part: -1 keeps the tiling's single-core size.
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
        if (tailM > 0) singleM_ = tailM;
        if (tailN > 0) singleN_ = tailN;
        if (tailK > 0) singleK_ = tailK;
    }
    void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false) {
        a_ = gm;
        transA_ = isTransposeA;
        has_a_ = true;
        walking_ = false;
    }
    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false) {
        b_ = gm;
        transB_ = isTransposeB;
        has_b_ = true;
        walking_ = false;
    }
    template <typename U> void SetTensorA(const LocalTensor<U>&, bool = false, ACEMU_SITE_PARAMS) {
        acemu::cube::unsupported("Matmul::SetTensorA", "a local-memory A", ACEMU_SITE);
    }
    template <typename U> void SetTensorB(const LocalTensor<U>&, bool = false, ACEMU_SITE_PARAMS) {
        acemu::cube::unsupported("Matmul::SetTensorB", "a local-memory B", ACEMU_SITE);
    }
    void SetBias(const GlobalTensor<BiasT>& gm) {
        bias_ = gm;
        has_bias_ = true;
    }
    void DisableBias() { has_bias_ = false; }
    void ClearBias() { has_bias_ = false; }
    void SetHF32(bool enableHF32 = false, int32_t transMode = 0, ACEMU_SITE_PARAMS) {
        (void)transMode;
        if (enableHF32) acemu::cube::unsupported("Matmul::SetHF32", "HF32 mode (its rounding is not documented)", ACEMU_SITE);
    }
    void SetLocalWorkspace(const LocalTensor<uint8_t>&) {}  // scratch UB of the data movement: not needed here
    template <typename U> void SetWorkspace(const GlobalTensor<U>&) {}
    void SetSelfDefineData(uint64_t) {}
    void SetUserDefInfo(uint64_t) {}

    // The next baseM x baseN block of C; false when this core's part is done.
    template <bool sync = true> bool Iterate(bool enPartialSum = false, ACEMU_SITE_PARAMS) {
        (void)enPartialSum;
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "Matmul::Iterate", ACEMU_SITE);
        if (!ready("Iterate", ACEMU_SITE)) return false;
        if (!walking_) {
            walk_.start(ceil_div(singleM_, t_.baseM), ceil_div(singleN_, t_.baseN), t_.iterateOrder);
            walking_ = true;
        }
        if (!walk_.next()) {
            walking_ = false;
            return false;
        }
        compute_block(ACEMU_SITE);
        return true;
    }

    // The block of the last Iterate to GM, at its place in C (or from C's start, dense, with
    // enSequentialWrite); enAtomic 1 / 2 / 3 adds / maxes / mins into C.
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, ACEMU_SITE_PARAMS) {
        acemu::enter(acemu::ctx(), "Matmul::GetTensorC", ACEMU_SITE);
        if (!has_block_) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "Matmul::GetTensorC", ACEMU_SITE, "Matmul::GetTensorC with no block computed: call Iterate first");
            return;
        }
        const int64_t row0 = enSequentialWrite ? 0 : int64_t(walk_.mIdx) * t_.baseM;
        const int64_t col0 = enSequentialWrite ? 0 : int64_t(walk_.nIdx) * t_.baseN;
        const int64_t ld = enSequentialWrite ? curN_ : orgN_;
        store_gm(gm, row0, col0, ld, enAtomic, ACEMU_SITE);
    }
    // The block to a UB tensor (C at VECIN / VECCALC / VECOUT): row-major, rows baseN long.
    template <bool sync = true>
    void GetTensorC(const LocalTensor<DstT>& ub, uint8_t enAtomic = 0, bool enSequentialWrite = false, ACEMU_SITE_PARAMS) {
        (void)enAtomic;
        (void)enSequentialWrite;
        acemu::BlockCtx* c = acemu::ctx();
        acemu::enter(c, "Matmul::GetTensorC", ACEMU_SITE);
        if (!has_block_) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "Matmul::GetTensorC", ACEMU_SITE, "Matmul::GetTensorC with no block computed: call Iterate first");
            return;
        }
        store_ub(ub, t_.baseN, ACEMU_SITE);
    }

    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, bool waitIterateAll = false,
                    bool fakeMsg = false, ACEMU_SITE_PARAMS) {
        (void)enSequentialWrite;
        (void)waitIterateAll;
        (void)fakeMsg;
        while (Iterate<sync>(false, acemu_site)) GetTensorC<sync>(gm, enAtomic, false, acemu_site);
    }
    // All of this core's C to a UB tensor, row-major with rows singleCoreN long.
    template <bool sync = true> void IterateAll(const LocalTensor<DstT>& ub, uint8_t enAtomic = 0, ACEMU_SITE_PARAMS) {
        (void)enAtomic;
        while (Iterate<sync>(false, acemu_site)) {
            LocalTensor<DstT> at = ub[uint32_t(int64_t(walk_.mIdx) * t_.baseM * singleN_ + int64_t(walk_.nIdx) * t_.baseN)];
            store_ub(at, singleN_, ACEMU_SITE);
        }
    }
    void WaitIterateAll() {}
    void WaitGetTensorC() {}
    void End() {
        walking_ = false;
        has_block_ = false;
    }

private:
    static int ceil_div(int a, int b) { return b > 0 ? (a + b - 1) / b : 0; }

    bool ready(const char* what, const char* file, int line) {
        const char* missing = !has_tiling_ ? "a tiling (REGIST_MATMUL_OBJ or Init)" : !has_a_ ? "SetTensorA" : !has_b_ ? "SetTensorB" : nullptr;
        if (missing) {
            acemu::rt::report(acemu::QUEUE_MISUSE, "Matmul", file, line, "Matmul::%s before %s", what, missing);
            return false;
        }
        if constexpr (A_TYPE::format == CubeFormat::VECTOR) {
            // GEMV (the guide's "matrix-vector multiplication" page): A is a (1, K) vector, read as an
            // ND row; its constraints: M is 1, A is not transposed, A in GM starts 16-B aligned.
            if (orgM_ != 1 || singleM_ != 1)
                acemu::rt::report(acemu::CUBE_PARAM, "Matmul", file, line,
                                  "Matmul::%s with A in CubeFormat::VECTOR (GEMV) and M = %d (single-core M %d): GEMV needs A's M to "
                                  "be 1; use CubeFormat::ND for a matrix A",
                                  what, orgM_, singleM_);
            if (transA_)
                acemu::rt::report(acemu::CUBE_PARAM, "Matmul", file, line,
                                  "Matmul::%s with A in CubeFormat::VECTOR (GEMV) transposed: GEMV does not transpose A", what);
            if (reinterpret_cast<uintptr_t>(a_.GetPhyAddr()) % 16)
                acemu::rt::report(acemu::CUBE_PARAM, "Matmul", file, line,
                                  "Matmul::%s with A in CubeFormat::VECTOR (GEMV): A in GM must start 16-B aligned", what);
        }
        if (t_.baseM <= 0 || t_.baseN <= 0 || singleM_ <= 0 || singleN_ <= 0 || singleK_ <= 0) {
            acemu::rt::report(acemu::CUBE_PARAM, "Matmul", file, line,
                              "Matmul::%s with baseM = %d, baseN = %d and a single-core shape %d x %d x %d: all must be positive", what, t_.baseM,
                              t_.baseN, singleM_, singleN_, singleK_);
            return false;
        }
        return true;
    }

    // The limits of the TCubeTiling page, against the SoC this run emulates.
    void check_tiling(const char* file, int line) {
        using namespace acemu::cube;
        const acemu::rt::CubeSizes& z = acemu::rt::cube_sizes();
        const int64_t sa = sizeof(SrcAT), sb = sizeof(SrcBT);
        const int c0 = int(32 / sizeof(SrcAT));
        if (t_.baseM % 16 || t_.baseN % 16 || t_.baseK % c0)
            acemu::rt::report(acemu::UNALIGNED_FRACTAL, "REGIST_MATMUL_OBJ", file, line,
                              "TCubeTiling baseM = %d, baseN = %d, baseK = %d: baseM and baseN are whole fractals (multiples of 16), baseK "
                              "multiples of %d for %s",
                              t_.baseM, t_.baseN, t_.baseK, c0, acemu::type_name<SrcAT>());
        const int64_t l0a = int64_t(t_.baseM) * t_.baseK * sa * (t_.dbL0A > 1 ? 2 : 1);
        const int64_t l0b = int64_t(t_.baseK) * t_.baseN * sb * (t_.dbL0B > 1 ? 2 : 1);
        const int64_t l0c = int64_t(t_.baseM) * t_.baseN * int64_t(sizeof(AccT)) * (t_.dbL0C > 1 ? 2 : 1);
        const int64_t l1 = int64_t(t_.depthA1) * t_.baseM * t_.baseK * sa + int64_t(t_.depthB1) * t_.baseN * t_.baseK * sb +
                           (t_.isBias ? int64_t(t_.baseN) * int64_t(sizeof(BiasT)) : 0);
        struct Limit {
            const char* kind;
            const char* what;
            int64_t need, have;
        } limits[] = {{acemu::L0_OVERFLOW, "L0A (baseM * baseK * size, doubled by dbL0A)", l0a, int64_t(z.l0a)},
                      {acemu::L0_OVERFLOW, "L0B (baseK * baseN * size, doubled by dbL0B)", l0b, int64_t(z.l0b)},
                      {acemu::L0_OVERFLOW, "L0C (baseM * baseN * accumulator size, doubled by dbL0C)", l0c, int64_t(z.l0c)},
                      {acemu::L1_OVERFLOW, "L1 (depthA1 A blocks + depthB1 B blocks + the bias)", l1, int64_t(z.l1)}};
        for (const Limit& lim : limits)
            if (lim.need > lim.have)
                acemu::rt::report(lim.kind, "REGIST_MATMUL_OBJ", file, line,
                                  "the Matmul tiling needs %lld B of %s, but the SoC has %lld B: on the NPU the blocks overlap. Make the "
                                  "tiling with the SoC's buffer sizes (MultiCoreMatmulTiling::SetBufferSpace(-1, -1, -1)) or smaller blocks",
                                  (long long)lim.need, lim.what, (long long)lim.have);
    }

    // Bytes [off, off + n) of a GlobalTensor inside its range? (Reports the first that is not.)
    template <typename T> bool gm_ok(const GlobalTensor<T>& g, int64_t elem_off, int64_t elems, const char* file, int line) {
        if (elems <= 0) return true;
        return g.acemu_in_bounds("Matmul::Iterate", "reads", elem_off, uint64_t(elems) * sizeof(T), file, line) == uint64_t(elems) * sizeof(T);
    }

    // One block: C_block (curM x curN) = A[m0.., 0..K) * B[0..K, n0..] (+ bias), in the accumulator type.
    void compute_block(const char* file, int line) {
        const int m0 = walk_.mIdx * t_.baseM, n0 = walk_.nIdx * t_.baseN;
        curM_ = std::min(t_.baseM, singleM_ - m0);
        curN_ = std::min(t_.baseN, singleN_ - n0);
        const int K = singleK_;
        trace_block(curM_, curN_, K, file, line);
        block_.assign(size_t(curM_) * curN_, AccT());
        // The reads this block makes (rows or columns of A and B), through the tensors' bounds.
        const int64_t lda = transA_ ? orgM_ : orgKa_, ldb = transB_ ? orgKb_ : orgN_;
        bool a_in = true, b_in = true;
        if (transA_) { a_in = gm_ok(a_, int64_t(K - 1) * lda + m0, curM_, file, line) && gm_ok(a_, m0, curM_, file, line); }
        else { a_in = gm_ok(a_, int64_t(m0 + curM_ - 1) * lda, K, file, line) && gm_ok(a_, int64_t(m0) * lda, K, file, line); }
        if (transB_) { b_in = gm_ok(b_, int64_t(n0 + curN_ - 1) * ldb, K, file, line) && gm_ok(b_, int64_t(n0) * ldb, K, file, line); }
        else { b_in = gm_ok(b_, int64_t(K - 1) * ldb + n0, curN_, file, line) && gm_ok(b_, n0, curN_, file, line); }
        const SrcAT* ap = a_.GetPhyAddr();
        const SrcBT* bp = b_.GetPhyAddr();
        const uint64_t arange = a_.acemu_range_bytes() / sizeof(SrcAT), brange = b_.acemu_range_bytes() / sizeof(SrcBT);
        // Out-of-range elements read as zero (the finding above already says where).
        auto a_at = [&](int64_t i) -> AccT { return (a_in || (i >= 0 && uint64_t(i) < arange)) ? AccT(ap[i]) : AccT(); };
        auto b_at = [&](int64_t i) -> AccT { return (b_in || (i >= 0 && uint64_t(i) < brange)) ? AccT(bp[i]) : AccT(); };
        const bool tA = transA_, tB = transB_;
        constexpr int MR = acemu::gemm::MR, NR = acemu::gemm::NR;
        // Contiguous runs where the layout has them: A's rows (or, transposed, its k rows), B's k rows
        // (or, transposed, its n rows).
        auto pack_a = [&](int r0, int rows, int k0, int kc, AccT* out) {
            if (!a_in) {
                for (int i = 0; i < rows; ++i)
                    for (int kk = 0; kk < kc; ++kk)
                        out[kk * MR + i] = tA ? a_at(int64_t(k0 + kk) * lda + m0 + r0 + i) : a_at(int64_t(m0 + r0 + i) * lda + k0 + kk);
            } else if (tA) {
                for (int kk = 0; kk < kc; ++kk) {
                    const SrcAT* row = ap + int64_t(k0 + kk) * lda + m0 + r0;
                    for (int i = 0; i < rows; ++i) out[kk * MR + i] = AccT(row[i]);
                }
            } else {
                for (int i = 0; i < rows; ++i) {
                    const SrcAT* row = ap + int64_t(m0 + r0 + i) * lda + k0;
                    for (int kk = 0; kk < kc; ++kk) out[kk * MR + i] = AccT(row[kk]);
                }
            }
        };
        auto pack_b = [&](int c0, int cols, int k0, int kc, AccT* out) {
            if (!b_in) {
                for (int kk = 0; kk < kc; ++kk)
                    for (int j = 0; j < cols; ++j)
                        out[kk * NR + j] = tB ? b_at(int64_t(n0 + c0 + j) * ldb + k0 + kk) : b_at(int64_t(k0 + kk) * ldb + n0 + c0 + j);
            } else if (tB) {
                for (int j = 0; j < cols; ++j) {
                    const SrcBT* row = bp + int64_t(n0 + c0 + j) * ldb + k0;
                    for (int kk = 0; kk < kc; ++kk) out[kk * NR + j] = AccT(row[kk]);
                }
            } else {
                for (int kk = 0; kk < kc; ++kk) {
                    const SrcBT* row = bp + int64_t(k0 + kk) * ldb + n0 + c0;
                    for (int j = 0; j < cols; ++j) out[kk * NR + j] = AccT(row[j]);
                }
            }
        };
        bool accumulate = false;
        if (has_bias_) {
            const int64_t nb = curN_;
            if (gm_ok(bias_, n0, nb, file, line)) {
                const BiasT* bias = bias_.GetPhyAddr() + n0;
                for (int i = 0; i < curM_; ++i)
                    for (int j = 0; j < curN_; ++j) block_[size_t(i) * curN_ + j] = AccT(bias[j]);
                accumulate = true;
            }
        }
        acemu::gemm::run<AccT>(curM_, curN_, K, pack_a, pack_b, block_.data(), curN_, accumulate);
        has_block_ = true;
    }

    // The pipe trace of one block: the object moves A and B in (MTE2), multiplies (M) and moves C out
    // (FIX), ordering its own pipes (its internal flags use event id 15, outside the kernel's 0..7).
    void trace_block(int m, int n, int k, const char* file, int line) const {
        acemu::BlockCtx* c = acemu::ctx();
        using namespace acemu::trace;
        pipe_op(c, P_MTE2, "Matmul::Iterate", file, line, acemu::dtype_of<SrcAT>(), uint64_t(m) * k * sizeof(SrcAT), 1);
        pipe_op(c, P_MTE2, "Matmul::Iterate", file, line, acemu::dtype_of<SrcBT>(), uint64_t(k) * n * sizeof(SrcBT), 1);
        sync_op(c, SET_FLAG, "Matmul::Iterate", file, line, uint64_t(HardEvent::MTE2_M), 15);
        sync_op(c, WAIT_FLAG, "Matmul::Iterate", file, line, uint64_t(HardEvent::MTE2_M), 15);
        pipe_op(c, P_M, "Matmul::Iterate", file, line, acemu::dtype_of<SrcAT>(), uint64_t(m) | uint64_t(n) << 16 | uint64_t(k) << 32);
        sync_op(c, SET_FLAG, "Matmul::Iterate", file, line, uint64_t(HardEvent::M_FIX), 15);
    }
    void trace_store(const char* file, int line) const {
        acemu::BlockCtx* c = acemu::ctx();
        using namespace acemu::trace;
        sync_op(c, WAIT_FLAG, "Matmul::GetTensorC", file, line, uint64_t(HardEvent::M_FIX), 15);
        pipe_op(c, P_FIX, "Matmul::GetTensorC", file, line, acemu::dtype_of<DstT>(), uint64_t(curM_) * curN_ * sizeof(DstT), uint64_t(curM_));
    }
    void store_gm(const GlobalTensor<DstT>& gm, int64_t row0, int64_t col0, int64_t ld, uint8_t enAtomic, const char* file, int line) {
        trace_store(file, line);
        acemu::BlockCtx* c = acemu::ctx();
        const int saved = c->atomic_op, saved_dt = c->atomic_dtype;
        if (enAtomic) {
            c->atomic_op = enAtomic == 1 ? acemu::ATOMIC_ADD : enAtomic == 2 ? acemu::ATOMIC_MAX : acemu::ATOMIC_MIN;
            c->atomic_dtype = acemu::dtype_of<DstT>();
        }
        row_.resize(size_t(curN_));
        for (int i = 0; i < curM_; ++i) {
            const AccT* src = block_.data() + size_t(i) * curN_;
            for (int j = 0; j < curN_; ++j) row_[size_t(j)] = DstT(src[j]);
            acemu::cube::gm_write(gm, int64_t(((row0 + i) * ld + col0) * int64_t(sizeof(DstT))), row_.data(), uint64_t(curN_) * sizeof(DstT),
                                  "Matmul::GetTensorC", file, line);
        }
        if (enAtomic) {
            c->atomic_op = saved;
            c->atomic_dtype = saved_dt;
        }
    }
    void store_ub(const LocalTensor<DstT>& ub, int64_t ld, const char* file, int line) {
        trace_store(file, line);
        acemu::BlockCtx* c = acemu::ctx();
        const char* api = "Matmul::GetTensorC";
        acemu::check_align(c, api, "the UB destination", ub.acemu_ptr(), file, line);
        if (!acemu::in_ub(c, ub.acemu_ptr())) return;
        acemu::check_extent(c, api, "the UB destination", uint64_t((curM_ - 1) * ld + curN_) * sizeof(DstT), ub.acemu_bytes(), file, line);
        DstT* out = ub.acemu_ptr();
        const uint64_t cap = (c->ub + c->ub_capacity - reinterpret_cast<uint8_t*>(out)) / sizeof(DstT);
        for (int i = 0; i < curM_; ++i) {
            if (uint64_t(i * ld + curN_) > cap) break;
            const AccT* src = block_.data() + size_t(i) * curN_;
            for (int j = 0; j < curN_; ++j) out[i * ld + j] = DstT(src[j]);
            acemu::mark_written(c, out + i * ld, uint64_t(curN_) * sizeof(DstT));
        }
    }

    TCubeTiling t_{};
    bool has_tiling_ = false, has_a_ = false, has_b_ = false, has_bias_ = false, transA_ = false, transB_ = false;
    int orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0, singleM_ = 0, singleN_ = 0, singleK_ = 0;
    GlobalTensor<SrcAT> a_;
    GlobalTensor<SrcBT> b_;
    GlobalTensor<BiasT> bias_;
    acemu::matmul::Walk walk_;
    bool walking_ = false, has_block_ = false;
    int curM_ = 0, curN_ = 0;
    std::vector<AccT> block_;
    std::vector<DstT> row_;
};

}  // namespace AscendC

// The system workspace the Matmul API's messages use on the NPU (the kernel's workspace argument
// after SetSysWorkspace, or the framework's). The emulator needs none, but samples test it for
// null. Global functions in the device headers (kernels call them unqualified).
#ifndef ACEMU_SYS_WORKSPACE
#define ACEMU_SYS_WORKSPACE
namespace acemu {
namespace matmul {
inline thread_local GM_ADDR sys_workspace = nullptr;
inline uint8_t sys_workspace_stub[64];
}  // namespace matmul
}  // namespace acemu
inline void SetSysWorkspace(GM_ADDR workspace) { acemu::matmul::sys_workspace = workspace; }
inline GM_ADDR GetSysWorkSpacePtr() { return acemu::matmul::sys_workspace ? acemu::matmul::sys_workspace : acemu::matmul::sys_workspace_stub; }
namespace AscendC {
using ::GetSysWorkSpacePtr;
using ::SetSysWorkspace;
}  // namespace AscendC
#endif

namespace acemu {
namespace matmul {
inline void regist(AscendC::TPipe*, const char*, int) {}
template <class MM> inline void regist(AscendC::TPipe*, const char*, int, MM&) {}  // an object alone: Init(&tiling) comes later
template <class MM, class T, class... Rest>
inline void regist(AscendC::TPipe* pipe, const char* file, int line, MM& mm, const T* tiling, Rest&&... rest) {
    mm.Init(reinterpret_cast<const TCubeTiling*>(tiling), pipe, acemu::CallSite(file, line));
    regist(pipe, file, line, rest...);
}
}  // namespace matmul
}  // namespace acemu

// REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling[, mm2, &tiling2 ...]): Init each
// object from its tiling (a null tiling: Init later). On a mixed kernel's cube core it returns
// from the kernel, as the device's does (that core only serves the vector cores).
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)                                         \
    if (acemu::matmul::aic_leaves()) return;                                              \
    (void)(workspace);                                                                    \
    acemu::matmul::regist((tpipe), __builtin_FILE(), __builtin_LINE(), __VA_ARGS__)

// Global, as the toolchain gives them (acemu/toolchain.h): kernels write CFG_MDL without a namespace.
// @api CFG_NORM, CFG_MDL (global) | yes: supplied by the toolchain at global scope | -
using AscendC::CFG_MDL;
using AscendC::CFG_NORM;

namespace matmul {
using AscendC::CFG_IBSHARE_NORM;
using AscendC::CFG_MDL;
using AscendC::CFG_NORM;
using AscendC::CFG_SPECIAL_MDL;
using AscendC::GetMDLConfig;
using AscendC::GetNormalConfig;
using AscendC::Matmul;
using AscendC::MatmulCallBackFunc;
using AscendC::MatmulConfig;
using AscendC::MatmulType;
using AscendC::MM_CFG_BB;
}  // namespace matmul
