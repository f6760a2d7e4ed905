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
// Row i of the C tile is two vectors: columns 0..lanes-1 at c + i * ldc, the next lanes at
// c + i * ldc + hi (hi = lanes for a dense row; in L0C's NZ layout the next 16-wide column group).
// The A strip the micro-kernel reads: A(m0 + i, k0 + kk) = *(a.at(kk) + i * a.rs).
template <typename Acc> struct PackedA {  // packed by the caller: a[kk * MR + i]
    const Acc* a;
    static constexpr int rs = 1;
    const Acc* at(int kk) const { return a + kk * MR; }
};
template <typename Acc, int K0> struct FractalA {  // read in place from L0A's ZZ layout: rows K0 apart, K in runs of K0, fractals 16 * K0 apart
    const Acc* a;  // row m0, column k0 (m0 % 16 is 0 or 8, k0 % K0 == 0): all MR rows are in one fractal row
    static constexpr int rs = K0;
    const Acc* at(int kk) const { return a + (kk / K0) * (16 * K0) + kk % K0; }
};

template <typename Acc, class AView>
inline void micro_kernel(int kc, const AView a, const Acc* __restrict b, Acc* __restrict c, int ldc, int hi, int rows, int cols, bool add) {
    typedef typename Vec<Acc>::type V;
    static_assert(NR == 2 * Vec<Acc>::lanes, "a micro-tile row is two vectors");
    V acc[MR][2];  // fully unrolled below, so the accumulators live in registers
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = V{};
    for (int kk = 0; kk < kc; ++kk) {
        V b0, b1;
        std::memcpy(&b0, b + kk * NR, sizeof(V));
        std::memcpy(&b1, b + kk * NR + Vec<Acc>::lanes, sizeof(V));
        const Acc* ak = a.at(kk);
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i) {
            const V ai = V{} + ak[i * AView::rs];  // broadcast
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
                std::memcpy(&c1, ci + hi, sizeof(V));
                acc[i][0] += c0;
                acc[i][1] += c1;
            }
            std::memcpy(ci, &acc[i][0], sizeof(V));
            std::memcpy(ci + hi, &acc[i][1], sizeof(V));
        }
        return;
    }
    constexpr int L = Vec<Acc>::lanes;
    Acc tile[MR][NR];
    std::memcpy(tile, acc, sizeof(tile));
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            Acc* e = c + i * ldc + (j < L ? j : hi + j - L);
            *e = add ? *e + tile[i][j] : tile[i][j];
        }
}

// Where C's tiles are: a dense matrix (row stride ldc), or L0C's NZ layout (Mmad page): 16-wide
// column groups, each a dense (mRows x 16) matrix, `group` elements apart.
template <typename Acc> struct DenseC {
    Acc* c;
    int64_t ldc;
    Acc* at(int i, int j) const { return c + i * ldc + j; }  // j: a multiple of NR (tiles), or any column
};
template <typename Acc> struct NzC {
    Acc* c;
    int64_t group;  // elements between column groups: mRows * 16
    static_assert(Vec<Acc>::lanes == 16, "an NZ column group is one vector");
    Acc* at(int i, int j) const { return c + (j / 16) * group + i * 16 + j % 16; }
};

template <typename Acc> inline int row_stride(const DenseC<Acc>& d) { return int(d.ldc); }
template <typename Acc> inline int hi_offset(const DenseC<Acc>&) { return Vec<Acc>::lanes; }
template <typename Acc> inline int row_stride(const NzC<Acc>&) { return 16; }
template <typename Acc> inline int hi_offset(const NzC<Acc>& z) { return int(z.group); }

// C[M x N] = A * B, or += when `accumulate`; C as `Out` lays it out (DenseC or NzC). get_a(m0, rows,
// k0, kc, buffer) gives the micro-kernels' view of A's strip: packed into the buffer (PackedA) or in place.
template <typename Acc, class GetA, class PackB, class Out>
void run_view(int M, int N, int K, GetA get_a, PackB pack_b, const Out& out, bool accumulate) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        if (!accumulate)
            for (int i = 0; i < M; ++i)
                for (int j = 0; j < N; ++j) *out.at(i, j) = Acc();
        return;
    }
    const int ldc = row_stride(out), hi = hi_offset(out);
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
                const auto av = get_a(m0, rows, k0, kc, apack.data());
                for (int p = 0; p < npanels; ++p) {
                    const int cols = nc - p * NR < NR ? nc - p * NR : NR;
                    micro_kernel<Acc>(kc, av, bpack.data() + size_t(p) * kc * NR, out.at(m0, n0 + p * NR), ldc, hi, rows, cols, add);
                }
            }
        }
    }
}

// The same with A packed by pack_a(m0, rows, k0, kc, dst): dst[kk * MR + i] = A[m0 + i][k0 + kk].
template <typename Acc, class PackA, class PackB, class Out>
void run_into(int M, int N, int K, PackA pack_a, PackB pack_b, const Out& out, bool accumulate) {
    auto get_a = [&](int m0, int rows, int k0, int kc, Acc* buf) {
        if (rows < MR) std::memset(buf, 0, size_t(kc) * MR * sizeof(Acc));
        pack_a(m0, rows, k0, kc, buf);
        return PackedA<Acc>{buf};
    };
    run_view<Acc>(M, N, K, get_a, pack_b, out, accumulate);
}

// C[M x N] (row stride ldc) = A * B, or += when `accumulate`.
template <typename Acc, class PackA, class PackB>
void run(int M, int N, int K, PackA pack_a, PackB pack_b, Acc* c, int ldc, bool accumulate) {
    run_into<Acc>(M, N, K, pack_a, pack_b, DenseC<Acc>{c, ldc}, accumulate);
}

}  // namespace gemm
}  // namespace acemu
