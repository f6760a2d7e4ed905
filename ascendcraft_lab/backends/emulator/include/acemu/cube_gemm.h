// The arithmetic behind Mmad and the Matmul API: C (+)= A * B on the CPU, fast.
//
// The cube's operands live in fractal layouts (see cube.h); the caller packs them through two
// callbacks into the panels this kernel wants, so one blocked loop serves every layout and dtype:
//   packA(m0, rows, k0, kc, dst): dst[kk * MR + i] = A[m0 + i][k0 + kk] for i < rows (rows <= MR)
//   packB(n0, cols, k0, kc, dst): dst[kk * NR + j] = B[k0 + kk][n0 + j] for j < cols (cols <= NR)
// Panels are zero-padded to MR / NR, so the micro-kernel always runs full width and only the
// store is clipped. Blocking: NC columns of B (a KC x NC panel stays in L2), KC of the reduction
// (an MR x KC strip of A stays in L1), an MR x NR tile of C in registers.
//
// The micro-kernel uses GCC vector types (16 lanes of 32 bits; on a CPU without AVX-512 the
// compiler splits them in two), so it is vectorised at -O2 whatever the cost model decides.
// Each C element is one fused multiply-add chain over k in increasing order, then added to what
// C held: float inputs accumulate in float (half and bfloat16 products are exact in float),
// int8 in int32, as the cube does.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

namespace acemu {
namespace gemm {

constexpr int MR = 8;    // rows of A per micro-tile
constexpr int NR = 32;   // columns of B per micro-tile: two 16-lane vectors
constexpr int KC = 256;  // reduction block
constexpr int NC = 512;  // column block of B

template <typename Acc> struct Vec {
    typedef Acc type __attribute__((vector_size(64)));
    static constexpr int lanes = 64 / int(sizeof(Acc));
};

// acc[MR][NR] = sum over kk of a[kk][i] * b[kk][j]; then C = acc (first) or C += acc.
template <typename Acc>
inline void micro_kernel(int kc, const Acc* __restrict a, const Acc* __restrict b, Acc* __restrict c, int ldc, int rows, int cols,
                         bool add) {
    typedef typename Vec<Acc>::type V;
    static_assert(NR == 2 * Vec<Acc>::lanes, "a micro-tile row is two vectors");
    V acc[MR][2];  // fully unrolled below, so the accumulators live in registers
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = V{};
    for (int kk = 0; kk < kc; ++kk) {
        V b0, b1;
        std::memcpy(&b0, b + kk * NR, sizeof(V));
        std::memcpy(&b1, b + kk * NR + Vec<Acc>::lanes, sizeof(V));
        const Acc* ak = a + kk * MR;
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i) {
            const V ai = V{} + ak[i];  // broadcast
            acc[i][0] += ai * b0;
            acc[i][1] += ai * b1;
        }
    }
    if (rows == MR && cols == NR) {
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i) {
            Acc* ci = c + i * ldc;
            V c0, c1;
            if (add) {
                std::memcpy(&c0, ci, sizeof(V));
                std::memcpy(&c1, ci + Vec<Acc>::lanes, sizeof(V));
                acc[i][0] += c0;
                acc[i][1] += c1;
            }
            std::memcpy(ci, &acc[i][0], sizeof(V));
            std::memcpy(ci + Vec<Acc>::lanes, &acc[i][1], sizeof(V));
        }
        return;
    }
    Acc tile[MR][NR];
    std::memcpy(tile, acc, sizeof(tile));
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) c[i * ldc + j] = add ? c[i * ldc + j] + tile[i][j] : tile[i][j];
}

// C[M x N] (row stride ldc) = A * B, or += when `accumulate`.
template <typename Acc, class PackA, class PackB>
void run(int M, int N, int K, PackA pack_a, PackB pack_b, Acc* c, int ldc, bool accumulate) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        if (!accumulate)
            for (int i = 0; i < M; ++i) std::memset(c + int64_t(i) * ldc, 0, size_t(N) * sizeof(Acc));
        return;
    }
    thread_local std::vector<Acc> bpack, apack;
    const int nc_max = N < NC ? N : NC;
    bpack.resize(size_t(KC) * size_t((nc_max + NR - 1) / NR * NR));
    apack.resize(size_t(KC) * MR);
    for (int n0 = 0; n0 < N; n0 += NC) {
        const int nc = N - n0 < NC ? N - n0 : NC;
        const int npanels = (nc + NR - 1) / NR;
        for (int k0 = 0; k0 < K; k0 += KC) {
            const int kc = K - k0 < KC ? K - k0 : KC;
            for (int p = 0; p < npanels; ++p) {
                const int cols = nc - p * NR < NR ? nc - p * NR : NR;
                Acc* dst = bpack.data() + size_t(p) * kc * NR;
                if (cols < NR) std::memset(dst, 0, size_t(kc) * NR * sizeof(Acc));
                pack_b(n0 + p * NR, cols, k0, kc, dst);
            }
            const bool add = accumulate || k0 > 0;
            for (int m0 = 0; m0 < M; m0 += MR) {
                const int rows = M - m0 < MR ? M - m0 : MR;
                if (rows < MR) std::memset(apack.data(), 0, size_t(kc) * MR * sizeof(Acc));
                pack_a(m0, rows, k0, kc, apack.data());
                for (int p = 0; p < npanels; ++p) {
                    const int cols = nc - p * NR < NR ? nc - p * NR : NR;
                    micro_kernel<Acc>(kc, apack.data(), bpack.data() + size_t(p) * kc * NR, c + int64_t(m0) * ldc + n0 + p * NR, ldc, rows,
                                      cols, add);
                }
            }
        }
    }
}

}  // namespace gemm
}  // namespace acemu
