// The host side of the Matmul API: matmul_tiling::MatmulApiTiling (one core) and
// MultiCoreMatmulTiling, which fill a TCubeTiling the kernel's Matmul accepts (API pages
// "MultiCoreMatmulTiling", SetDim, SetAType/SetBType/SetCType/SetBiasType, SetShape, SetOrgShape,
// SetSingleShape, SetFixSplit, SetBias, SetBufferSpace, GetTiling; limits from "TCubeTiling结构体").
// The algorithm is the emulator's own (the device toolkit's is not documented): it honours every
// constraint those pages state, so the kernel side runs with no finding, but the numbers it picks
// (base blocks, steps) need not be the toolkit's.
//
//   * Cores: M and N are split over at most SetDim() cores (K is never split, as the pages say):
//     the split with the smallest per-core block wins, then the one with fewer cores. In a mixed
//     (vector-driven) kernel SetDim counts vector cores and the launch needs half as many blocks.
//   * Base blocks: SetFixSplit's, or 128 x 256 shrunk to the single-core shape; baseK the largest
//     multiple of the K fractal (16 half/bfloat16, 8 float, 32 int8) for which A and B blocks fit
//     L0A / L0B twice (dbL0A = dbL0B = 2) and up to 256 (at most K rounded up); L0C once (dbL0C = 1).
//   * L1: stepM = stepN = 1; stepKa = stepKb as many baseK slices as fit L1 twice over (depthA1 =
//     2 * stepKa, depthB1 = 2 * stepKb), with room for the bias row.
// Sizes are the SoC's (ACEMU_CUBE / the runner's spec: soc.py), or SetBufferSpace's when smaller.
// @api matmul_tiling::MatmulApiTiling, matmul_tiling::MultiCoreMatmulTiling, SetDim, SetAType, SetBType, SetCType, SetBiasType, SetShape, GetTiling | yes: the split and base blocks are the emulator's own, within the pages' limits | MultiCoreMatmulTiling
#pragma once
#include <algorithm>
#include <cstdint>

#include "base.h"
#include "cube.h"
#include "cube_tiling.h"

namespace matmul_tiling {

enum class TPosition : int32_t { GM = 0, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, MAX };
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
// The values of ge::DataType, so kernels' static_cast<matmul_tiling::DataType>(ge::DT_FLOAT) works.
enum class DataType : int32_t {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7, DT_UINT32 = 8,
    DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_BF16 = 27, DT_INT4 = 29, DT_UNDEFINED = 28
};
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };

class MatmulApiTilingBase {
public:
    MatmulApiTilingBase() = default;
    template <typename Platform> explicit MatmulApiTilingBase(const Platform&) {}  // the emulated SoC is the runner's
    virtual ~MatmulApiTilingBase() = default;

    int32_t SetAType(TPosition pos, CubeFormat format, DataType type, bool isTrans = false) { return set(a_, pos, format, type, isTrans); }
    int32_t SetBType(TPosition pos, CubeFormat format, DataType type, bool isTrans = false) { return set(b_, pos, format, type, isTrans); }
    int32_t SetCType(TPosition pos, CubeFormat format, DataType type) { return set(c_, pos, format, type, false); }
    int32_t SetBiasType(TPosition pos, CubeFormat format, DataType type) { return set(bias_, pos, format, type, false); }
    int32_t SetShape(int32_t m, int32_t n, int32_t k) {
        shapeM_ = m;
        shapeN_ = n;
        shapeK_ = k;
        return m > 0 && n > 0 && k > 0 ? 0 : -1;
    }
    int32_t SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgK) { return SetOrgShape(orgM, orgN, orgK, orgK); }
    int32_t SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgKa, int32_t orgKb) {
        orgM_ = orgM;
        orgN_ = orgN;
        orgKa_ = orgKa;
        orgKb_ = orgKb;
        return orgM > 0 && orgN > 0 && orgKa > 0 && orgKb > 0 ? 0 : -1;
    }
    int32_t SetFixSplit(int32_t baseM = -1, int32_t baseN = -1, int32_t baseK = -1) {
        fixM_ = baseM;
        fixN_ = baseN;
        fixK_ = baseK;
        return 0;
    }
    int32_t SetBias(bool isBias = false) {
        isBias_ = isBias;
        return 0;
    }
    int32_t EnableBias(bool isBias = false) { return SetBias(isBias); }
    // -1: the SoC's whole buffer.
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1) {
        l1Space_ = l1Size;
        l0cSpace_ = l0CSize;
        (void)ubSize;
        (void)btSize;
        return 0;
    }
    int32_t SetTraverse(MatrixTraverse traverse) {
        traverse_ = traverse;
        return 0;
    }
    int32_t SetDoubleBuffer(bool, bool, bool, bool, bool = true, bool = true) { return 0; }
    int32_t SetMatmulConfigParams(int32_t = 1, bool = false, int32_t = 0, int32_t = 0, int32_t = 0) { return 0; }

    // Fills `tiling`; -1 (and a message on stderr) when no tiling fits.
    int64_t GetTiling(TCubeTiling& tiling) { return compute(tiling); }

protected:
    struct Operand {
        bool set = false;
        TPosition pos = TPosition::GM;
        CubeFormat format = CubeFormat::ND;
        DataType type = DataType::DT_FLOAT16;
        bool trans = false;
    };
    static int32_t set(Operand& o, TPosition pos, CubeFormat format, DataType type, bool trans) {
        o = {true, pos, format, type, trans};
        return 0;
    }
    static int32_t size_of(DataType t) {
        switch (t) {
            case DataType::DT_FLOAT: case DataType::DT_INT32: case DataType::DT_UINT32: return 4;
            case DataType::DT_FLOAT16: case DataType::DT_BF16: case DataType::DT_INT16: case DataType::DT_UINT16: return 2;
            case DataType::DT_INT8: case DataType::DT_UINT8: return 1;
            default: return 0;
        }
    }
    static int32_t up(int32_t x, int32_t a) { return (x + a - 1) / a * a; }
    static int32_t ceil_div(int32_t x, int32_t a) { return (x + a - 1) / a; }
    int64_t fail(const char* why) const {
        fprintf(stderr, "matmul_tiling: GetTiling failed: %s\n", why);
        return -1;
    }
    // The single-core shape and core split (MultiCoreMatmulTiling overrides).
    // `alignM` / `alignN`: a split's parts are whole multiples of these (SetFixSplit's base, or 16).
    virtual bool split(int32_t m, int32_t n, int32_t alignM, int32_t alignN, int32_t& singleM, int32_t& singleN, int32_t& cores) const {
        (void)alignM;
        (void)alignN;
        singleM = m;
        singleN = n;
        cores = 1;
        return true;
    }

    int64_t compute(TCubeTiling& t) const {
        if (!a_.set || !b_.set || !c_.set) return fail("SetAType, SetBType and SetCType come first");
        const int32_t sa = size_of(a_.type), sb = size_of(b_.type);
        if (sa == 0 || sa != sb) return fail("A and B must be one of float, float16, bfloat16, int8, and the same");
        const int32_t m = shapeM_ > 0 ? shapeM_ : orgM_, n = shapeN_ > 0 ? shapeN_ : orgN_, k = shapeK_ > 0 ? shapeK_ : orgKa_;
        if (m <= 0 || n <= 0 || k <= 0) return fail("SetShape (or SetOrgShape) with positive M, N, K comes first");
        const acemu::rt::CubeSizes& z = acemu::rt::cube_sizes();
        const int64_t l1 = l1Space_ > 0 ? std::min<int64_t>(l1Space_, int64_t(z.l1)) : int64_t(z.l1);
        const int64_t l0c = l0cSpace_ > 0 ? std::min<int64_t>(l0cSpace_, int64_t(z.l0c)) : int64_t(z.l0c);
        const int32_t acc = 4;  // float or int32 in L0C
        const int32_t c0 = 32 / sa;

        int32_t singleM = 0, singleN = 0, cores = 0;
        if (!split(m, n, fixM_ > 0 ? up(fixM_, 16) : 16, fixN_ > 0 ? up(fixN_, 16) : 16, singleM, singleN, cores))
            return fail("SetSingleShape / SetDim leave no core a part of C");
        // Base blocks: whole fractals, no larger than the single-core part (rounded up).
        int32_t baseM = fixM_ > 0 ? fixM_ : std::min(128, up(singleM, 16));
        int32_t baseN = fixN_ > 0 ? fixN_ : std::min(256, up(singleN, 16));
        baseM = up(baseM, 16);
        baseN = up(baseN, 16);
        while (int64_t(baseM) * baseN * acc > l0c && (baseN > 16 || baseM > 16)) {
            if (fixN_ <= 0 && baseN >= baseM && baseN > 16) baseN = up(baseN / 2, 16);
            else if (fixM_ <= 0 && baseM > 16) baseM = up(baseM / 2, 16);
            else return fail("SetFixSplit's baseM x baseN does not fit L0C");
        }
        int32_t baseK = fixK_ > 0 ? up(fixK_, c0) : std::min(256, up(k, c0));
        while (baseK > c0 && (int64_t(baseM) * baseK * sa * 2 > int64_t(z.l0a) || int64_t(baseK) * baseN * sb * 2 > int64_t(z.l0b))) baseK -= c0;
        if (int64_t(baseM) * baseK * sa * 2 > int64_t(z.l0a) || int64_t(baseK) * baseN * sb * 2 > int64_t(z.l0b))
            return fail("no baseK lets the A and B blocks fit L0A / L0B");
        // L1: as many K slices as fit, double-buffered.
        const int64_t biasBytes = isBias_ ? int64_t(baseN) * 4 : 0;
        const int64_t slice = int64_t(baseM) * baseK * sa + int64_t(baseK) * baseN * sb;
        int32_t stepK = std::max(1, std::min(ceil_div(k, baseK), int32_t((l1 - biasBytes) / (2 * slice))));
        if (2 * slice * stepK + biasBytes > l1) {
            if (slice + biasBytes > l1) return fail("one A and one B block do not fit L1");
            stepK = 1;
        }
        const int32_t depth = 2 * slice * stepK + biasBytes <= l1 ? 2 * stepK : stepK;

        t = TCubeTiling();
        t.usedCoreNum = cores;
        t.M = orgM_ > 0 ? orgM_ : m;
        t.N = orgN_ > 0 ? orgN_ : n;
        t.Ka = orgKa_ > 0 ? orgKa_ : k;
        t.Kb = orgKb_ > 0 ? orgKb_ : k;
        t.singleCoreM = singleM;
        t.singleCoreN = singleN;
        t.singleCoreK = k;
        t.baseM = baseM;
        t.baseN = baseN;
        t.baseK = baseK;
        t.depthA1 = depth;
        t.depthB1 = depth;
        t.stepM = 1;
        t.stepN = 1;
        t.stepKa = stepK;
        t.stepKb = stepK;
        t.isBias = isBias_ ? 1 : 0;
        t.iterateOrder = traverse_ == MatrixTraverse::FIRSTN ? 1 : 0;
        t.shareL1Size = int32_t(slice * depth + biasBytes);
        t.shareL0CSize = baseM * baseN * acc;
        t.batchM = t.batchN = t.singleBatchM = t.singleBatchN = 1;
        t.dbL0A = 2;
        t.dbL0B = 2;
        t.dbL0C = 1;
        t.BatchNum = 1;
        return 0;
    }

    Operand a_, b_, c_, bias_;
    int32_t shapeM_ = -1, shapeN_ = -1, shapeK_ = -1;
    int32_t orgM_ = -1, orgN_ = -1, orgKa_ = -1, orgKb_ = -1;
    int32_t fixM_ = -1, fixN_ = -1, fixK_ = -1;
    int32_t l1Space_ = -1, l0cSpace_ = -1;
    bool isBias_ = false;
    MatrixTraverse traverse_ = MatrixTraverse::NOSET;
};

// One core: the single-core shape is the whole shape.
class MatmulApiTiling : public MatmulApiTilingBase {
public:
    MatmulApiTiling() = default;
    template <typename Platform> explicit MatmulApiTiling(const Platform& p) : MatmulApiTilingBase(p) {}
};

class MultiCoreMatmulTiling : public MatmulApiTilingBase {
public:
    MultiCoreMatmulTiling() = default;
    template <typename Platform> explicit MultiCoreMatmulTiling(const Platform& p) : MatmulApiTilingBase(p) {}

    // The cores the split may use (in a vector-driven mixed kernel: vector cores).
    int32_t SetDim(int32_t dim) {
        if (dim <= 0) return -1;
        dim_ = dim;
        return 0;
    }
    int32_t SetSingleShape(int32_t singleM = -1, int32_t singleN = -1, int32_t singleK = -1) {
        singleM_ = singleM;
        singleN_ = singleN;
        (void)singleK;  // K is not split
        return 0;
    }
    int32_t GetSingleShape(int32_t& singleM, int32_t& singleN, int32_t& singleK) const {
        TCubeTiling t;
        if (compute(t) != 0) return -1;
        singleM = t.singleCoreM;
        singleN = t.singleCoreN;
        singleK = t.singleCoreK;
        return 0;
    }
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim) const {
        TCubeTiling t;
        if (compute(t) != 0) return -1;
        mDim = ceil_div(t.M, t.singleCoreM);
        nDim = ceil_div(t.N, t.singleCoreN);
        dim = mDim * nDim;
        return 0;
    }

protected:
    bool split(int32_t m, int32_t n, int32_t alignM, int32_t alignN, int32_t& singleM, int32_t& singleN, int32_t& cores) const override {
        if (singleM_ > 0 || singleN_ > 0) {
            singleM = singleM_ > 0 ? std::min(singleM_, m) : m;
            singleN = singleN_ > 0 ? std::min(singleN_, n) : n;
            cores = ceil_div(m, singleM) * ceil_div(n, singleN);
            return cores <= dim_;
        }
        // Try every mDim; each core's part is rounded up to whole fractals (or base blocks).
        int64_t best = -1;
        for (int32_t mDim = 1; mDim <= dim_ && mDim <= ceil_div(m, alignM); ++mDim) {
            const int32_t nDim = std::max(1, std::min(dim_ / mDim, ceil_div(n, alignN)));
            const int32_t sm = mDim == 1 ? m : up(ceil_div(m, mDim), alignM), sn = nDim == 1 ? n : up(ceil_div(n, nDim), alignN);
            const int32_t used = ceil_div(m, sm) * ceil_div(n, sn);
            const int64_t work = int64_t(sm) * sn;
            if (best < 0 || work < best || (work == best && used < cores)) {
                best = work;
                singleM = sm;
                singleN = sn;
                cores = used;
            }
        }
        return best > 0;
    }
    int32_t dim_ = 1;
    int32_t singleM_ = -1, singleN_ = -1;
};

}  // namespace matmul_tiling
