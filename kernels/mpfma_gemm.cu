// Blocked GEMM on tensor cores: Algorithm 1 of Bhola and Duraisamy ("Deterministic
// and Probabilistic Rounding Error Analysis for Mixed-Precision Arithmetic on Modern
// Computing Units", Section 3.3), D = C + A B, with a FIXED, documented order that
// the CPU model src/kernels/mpfma/blockfma.rs reproduces bit for bit.
//
// Layout: A is M x K, B is K x N, C and D are M x N, all row-major. C may be null
// (then every accumulator starts at +0). The host pads M and N to multiples of 64
// and K to a multiple of 16 with zeros (a zero product takes no part in a tensor
// core's alignment, so padding changes no result) and crops D.
//
// Order: a block of 128 threads (4 warps) owns a 64 x 64 tile of D; warp w owns the
// 32 x 32 sub-tile at rows 32 (w / 2), columns 32 (w % 2), as 2 x 4 mma tiles of
// 16 x 8. For k0 = 0, 16, 32, ... (increasing), the 64 x 16 slice of A and the
// 16 x 64 slice of B go through shared memory, then each warp issues, per 16 x 8
// tile, ONE mma.sync m16n8k16 (fp16, bf16) or TWO m16n8k8 in k order (tf32),
// accumulating in place. So every D_ij is
//     D_ij = mma(... mma(mma(C_ij, k 0..15), k 16..31) ...)
// and nothing else ever touches its accumulator: Algorithm 1 with b = the
// instruction's k, each step the hardware's fused block (on sm_80 the m16n8k16
// instruction is two fused halves of 8 and m16n8k8 tf32 two of 4: the records'
// split-K; on sm_90, mma.sync fuses the whole k, as the sm90 records say).
//
// Precisions (extern "C" entry points):
//   mpfma_gemm_f16_f32   A, B binary16 bit patterns, C, D float (fp32 accumulation)
//   mpfma_gemm_bf16_f32  A, B bfloat16 bit patterns, C, D float
//   mpfma_gemm_f16_f16   A, B, C, D binary16 bit patterns (fp16 accumulation)
//   mpfma_gemm_tf32_f32  A, B float (the unit reads their top 19 bits: tf32), C, D float
//
// A second set of entry points, mpfma_gemm_pipelined_* (same arguments, same launch
// geometry, same tile and warp layout), stages K in slices of 32 instead of 16: 16-byte
// vector loads from global memory, the next slice loaded into registers while the
// current one is multiplied, one pair of barriers per 32 instead of per 16. The order
// of the mma instructions on every accumulator is the same (k ascending, one
// instruction per 16 or two per 8 for tf32), so its D equals mpfma_gemm_*'s bit for
// bit; only the memory traffic changes. K must be a multiple of 16 (as for the
// others): a last slice of 16 is loaded with zeros beyond K and its second half skipped
// (no mma on padding, so a -0 accumulator is never turned into +0 by a zero product).
//
// A third set, mpfma_gemm_wide_* (fp16 and bf16 inputs only; see the section below),
// is the one meant to be fast: 128 x 128 tiles, a 3-stage cp.async pipeline, ldmatrix.
// It too issues the same mma instructions on every accumulator in the same order.
//
// No CUDA headers: fragments are built from bit patterns and moved with PTX. The one
// include is our own kernels/include/boundgate_async.cuh (cp.async, ldmatrix), which
// NVRTC receives in memory. Fragment layouts: PTX ISA, "Matrix Fragments for
// mma.m16n8k16 with floating point type" and "... mma.m16n8k8 ... .tf32".

#include "boundgate_async.cuh"

typedef unsigned short u16;
typedef unsigned int u32;

#define MPFMA_BM 64
#define MPFMA_BN 64
#define MPFMA_BK 16
#define MPFMA_PAD 8

enum Variant { F16_F32 = 0, BF16_F32 = 1, F16_F16 = 2, TF32_F32 = 3 };

template <int V> struct Traits;
template <> struct Traits<F16_F32> { typedef u16 in_t; typedef float out_t; };
template <> struct Traits<BF16_F32> { typedef u16 in_t; typedef float out_t; };
template <> struct Traits<F16_F16> { typedef u16 in_t; typedef u16 out_t; };
template <> struct Traits<TF32_F32> { typedef float in_t; typedef float out_t; };

__device__ __forceinline__ u32 pack2(u16 lo, u16 hi) {
    return (u32)lo | ((u32)hi << 16);
}

__device__ __forceinline__ u32 bits_of(float x) {
    u32 u;
    asm("mov.b32 %0, %1;" : "=r"(u) : "f"(x));
    return u;
}

// One fused step of 16 (or 8 for tf32) products into a 16 x 8 fp32 tile.
template <int V>
__device__ __forceinline__ void mma_f32(float (&d)[4], const u32 (&a)[4], const u32 (&b)[2]) {
    if constexpr (V == F16_F32) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else if constexpr (V == BF16_F32) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        asm volatile(
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
}

// One fused step of 16 products into a 16 x 8 fp16 tile (two f16x2 registers).
__device__ __forceinline__ void mma_f16(u32 (&d)[2], const u32 (&a)[4], const u32 (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
        "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};"
        : "+r"(d[0]), "+r"(d[1])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The warp's place in the block's 64 x 64 tile and in its mma fragments.
struct Lane {
    int tid, g, tq, row0, col0, wm, wn;
};

__device__ __forceinline__ Lane lane_of() {
    Lane l;
    l.tid = (int)threadIdx.x;
    const int warp = l.tid >> 5;
    const int lane = l.tid & 31;
    l.g = lane >> 2;   // groupID
    l.tq = lane & 3;   // threadID_in_group
    l.row0 = (int)blockIdx.y * MPFMA_BM;
    l.col0 = (int)blockIdx.x * MPFMA_BN;
    l.wm = (warp >> 1) * 32;
    l.wn = (warp & 1) * 32;
    return l;
}

// The warp's MI x NI accumulator tiles (16 x 8 each, the first at row r0, column c0 of D):
// C's values, or +0 without C.
template <int V, int MI, int NI>
__device__ __forceinline__ void acc_init(const typename Traits<V>::out_t* __restrict__ C, int N, int r0,
                                         int c0, int g, int tq, float (&acc)[MI][NI][4],
                                         u32 (&acc16)[MI][NI][2]) {
    for (int mi = 0; mi < MI; ++mi) {
        for (int ni = 0; ni < NI; ++ni) {
            const int r = r0 + mi * 16 + g;
            const int c = c0 + ni * 8 + 2 * tq;
            if constexpr (V == F16_F16) {
                acc16[mi][ni][0] = C ? pack2(C[r * N + c], C[r * N + c + 1]) : 0u;
                acc16[mi][ni][1] = C ? pack2(C[(r + 8) * N + c], C[(r + 8) * N + c + 1]) : 0u;
            } else {
                acc[mi][ni][0] = C ? C[r * N + c] : 0.0f;
                acc[mi][ni][1] = C ? C[r * N + c + 1] : 0.0f;
                acc[mi][ni][2] = C ? C[(r + 8) * N + c] : 0.0f;
                acc[mi][ni][3] = C ? C[(r + 8) * N + c + 1] : 0.0f;
            }
        }
    }
}

// The 16 products of k = ks .. ks + 15 of the shared-memory slices into every
// accumulator: one m16n8k16 (fp16, bf16) or two m16n8k8 in k order (tf32).
// LDA and LDB are the slices' row lengths in elements.
template <int V, int LDA, int LDB>
__device__ __forceinline__ void mma_k16(const typename Traits<V>::in_t (*As)[LDA],
                                        const typename Traits<V>::in_t (*Bs)[LDB], int ks, const Lane& l,
                                        float (&acc)[2][4][4], u32 (&acc16)[2][4][2]) {
    const int g = l.g;
    const int tq = l.tq;
    if constexpr (V == TF32_F32) {
        for (int k8 = ks; k8 < ks + MPFMA_BK; k8 += 8) {
            u32 a[2][4];
            u32 b[4][2];
            for (int mi = 0; mi < 2; ++mi) {
                const int r = l.wm + mi * 16 + g;
                a[mi][0] = bits_of(As[r][k8 + tq]);
                a[mi][1] = bits_of(As[r + 8][k8 + tq]);
                a[mi][2] = bits_of(As[r][k8 + tq + 4]);
                a[mi][3] = bits_of(As[r + 8][k8 + tq + 4]);
            }
            for (int ni = 0; ni < 4; ++ni) {
                const int c = l.wn + ni * 8 + g;
                b[ni][0] = bits_of(Bs[k8 + tq][c]);
                b[ni][1] = bits_of(Bs[k8 + tq + 4][c]);
            }
            for (int mi = 0; mi < 2; ++mi) {
                for (int ni = 0; ni < 4; ++ni) {
                    mma_f32<V>(acc[mi][ni], a[mi], b[ni]);
                }
            }
        }
    } else {
        u32 a[2][4];
        u32 b[4][2];
        for (int mi = 0; mi < 2; ++mi) {
            const int r = l.wm + mi * 16 + g;
            a[mi][0] = pack2((u16)As[r][ks + 2 * tq], (u16)As[r][ks + 2 * tq + 1]);
            a[mi][1] = pack2((u16)As[r + 8][ks + 2 * tq], (u16)As[r + 8][ks + 2 * tq + 1]);
            a[mi][2] = pack2((u16)As[r][ks + 2 * tq + 8], (u16)As[r][ks + 2 * tq + 9]);
            a[mi][3] = pack2((u16)As[r + 8][ks + 2 * tq + 8], (u16)As[r + 8][ks + 2 * tq + 9]);
        }
        for (int ni = 0; ni < 4; ++ni) {
            const int c = l.wn + ni * 8 + g;
            b[ni][0] = pack2((u16)Bs[ks + 2 * tq][c], (u16)Bs[ks + 2 * tq + 1][c]);
            b[ni][1] = pack2((u16)Bs[ks + 2 * tq + 8][c], (u16)Bs[ks + 2 * tq + 9][c]);
        }
        for (int mi = 0; mi < 2; ++mi) {
            for (int ni = 0; ni < 4; ++ni) {
                if constexpr (V == F16_F16) {
                    mma_f16(acc16[mi][ni], a[mi], b[ni]);
                } else {
                    mma_f32<V>(acc[mi][ni], a[mi], b[ni]);
                }
            }
        }
    }
}

// The accumulators into D (the tiles of acc_init).
template <int V, int MI, int NI>
__device__ __forceinline__ void acc_store(typename Traits<V>::out_t* __restrict__ D, int N, int r0, int c0,
                                          int g, int tq, const float (&acc)[MI][NI][4],
                                          const u32 (&acc16)[MI][NI][2]) {
    for (int mi = 0; mi < MI; ++mi) {
        for (int ni = 0; ni < NI; ++ni) {
            const int r = r0 + mi * 16 + g;
            const int c = c0 + ni * 8 + 2 * tq;
            if constexpr (V == F16_F16) {
                D[r * N + c] = (u16)(acc16[mi][ni][0] & 0xffffu);
                D[r * N + c + 1] = (u16)(acc16[mi][ni][0] >> 16);
                D[(r + 8) * N + c] = (u16)(acc16[mi][ni][1] & 0xffffu);
                D[(r + 8) * N + c + 1] = (u16)(acc16[mi][ni][1] >> 16);
            } else {
                D[r * N + c] = acc[mi][ni][0];
                D[r * N + c + 1] = acc[mi][ni][1];
                D[(r + 8) * N + c] = acc[mi][ni][2];
                D[(r + 8) * N + c + 1] = acc[mi][ni][3];
            }
        }
    }
}

template <int V>
__device__ __forceinline__ void gemm_tile(const typename Traits<V>::in_t* __restrict__ A,
                                          const typename Traits<V>::in_t* __restrict__ B,
                                          const typename Traits<V>::out_t* __restrict__ C,
                                          typename Traits<V>::out_t* __restrict__ D,
                                          int M, int N, int K) {
    typedef typename Traits<V>::in_t in_t;
    __shared__ in_t As[MPFMA_BM][MPFMA_BK + MPFMA_PAD];
    __shared__ in_t Bs[MPFMA_BK][MPFMA_BN + MPFMA_PAD];
    const Lane l = lane_of();
    if (l.row0 >= M || l.col0 >= N) {
        return;
    }
    float acc[2][4][4];
    u32 acc16[2][4][2];
    acc_init<V, 2, 4>(C, N, l.row0 + l.wm, l.col0 + l.wn, l.g, l.tq, acc, acc16);
    for (int k0 = 0; k0 < K; k0 += MPFMA_BK) {
        {
            // 128 threads move 64 x 16 elements of A and 16 x 64 of B, 8 each.
            const int ar = l.tid >> 1;
            const int ac = (l.tid & 1) * 8;
            const int br = l.tid >> 3;
            const int bc = (l.tid & 7) * 8;
            for (int e = 0; e < 8; ++e) {
                As[ar][ac + e] = A[(l.row0 + ar) * K + k0 + ac + e];
                Bs[br][bc + e] = B[(k0 + br) * N + l.col0 + bc + e];
            }
        }
        __syncthreads();
        mma_k16<V, MPFMA_BK + MPFMA_PAD, MPFMA_BN + MPFMA_PAD>(As, Bs, 0, l, acc, acc16);
        __syncthreads();
    }
    acc_store<V, 2, 4>(D, N, l.row0 + l.wm, l.col0 + l.wn, l.g, l.tq, acc, acc16);
}

// ------------------------------------------------------------- pipelined variant
#define MPFMA_BK2 32

// 16 bytes, for vector loads and stores (no vector_types.h under NVRTC alone).
struct __align__(16) V16 {
    u32 x, y, z, w;
};

// The A slice (64 x 32) and the B slice (32 x 64) of k0 as 16-byte vectors: NV of each
// per thread (NV = sizeof(in_t): 2 for 16-bit inputs, 4 for tf32's floats); zeros beyond K.
template <typename in_t, int NV>
__device__ __forceinline__ void load_slices(const in_t* __restrict__ A, const in_t* __restrict__ B,
                                            int row0, int col0, int k0, int N, int K, int tid,
                                            V16 (&ra)[NV], V16 (&rb)[NV]) {
    constexpr int E = 16 / (int)sizeof(in_t);   // elements per vector
    constexpr int VRA = MPFMA_BK2 / E;          // vectors per row of the A slice
    constexpr int VRB = MPFMA_BN / E;           // vectors per row of the B slice
    const V16 zero = {0u, 0u, 0u, 0u};
    for (int r = 0; r < NV; ++r) {
        const int q = tid + r * 128;
        const int ar = q / VRA;
        const int ac = (q % VRA) * E;
        ra[r] = (k0 + ac < K)
                    ? *reinterpret_cast<const V16*>(A + (unsigned long long)(row0 + ar) * K + k0 + ac)
                    : zero;
        const int br = q / VRB;
        const int bc = (q % VRB) * E;
        rb[r] = (k0 + br < K)
                    ? *reinterpret_cast<const V16*>(B + (unsigned long long)(k0 + br) * N + col0 + bc)
                    : zero;
    }
}

template <typename in_t, int NV>
__device__ __forceinline__ void store_slices(in_t (*As)[MPFMA_BK2 + MPFMA_PAD],
                                             in_t (*Bs)[MPFMA_BN + MPFMA_PAD], int tid,
                                             const V16 (&ra)[NV], const V16 (&rb)[NV]) {
    constexpr int E = 16 / (int)sizeof(in_t);
    constexpr int VRA = MPFMA_BK2 / E;
    constexpr int VRB = MPFMA_BN / E;
    for (int r = 0; r < NV; ++r) {
        const int q = tid + r * 128;
        *reinterpret_cast<V16*>(&As[q / VRA][(q % VRA) * E]) = ra[r];
        *reinterpret_cast<V16*>(&Bs[q / VRB][(q % VRB) * E]) = rb[r];
    }
}

template <int V>
__device__ __forceinline__ void gemm_tile_pipelined(const typename Traits<V>::in_t* __restrict__ A,
                                                    const typename Traits<V>::in_t* __restrict__ B,
                                                    const typename Traits<V>::out_t* __restrict__ C,
                                                    typename Traits<V>::out_t* __restrict__ D,
                                                    int M, int N, int K) {
    typedef typename Traits<V>::in_t in_t;
    constexpr int NV = (int)sizeof(in_t);
    // Row strides of 80/160 (A) and 144/288 (B) bytes: every vector store is 16-byte aligned.
    __shared__ __align__(16) in_t As[MPFMA_BM][MPFMA_BK2 + MPFMA_PAD];
    __shared__ __align__(16) in_t Bs[MPFMA_BK2][MPFMA_BN + MPFMA_PAD];
    const Lane l = lane_of();
    if (l.row0 >= M || l.col0 >= N) {
        return;
    }
    float acc[2][4][4];
    u32 acc16[2][4][2];
    acc_init<V, 2, 4>(C, N, l.row0 + l.wm, l.col0 + l.wn, l.g, l.tq, acc, acc16);
    V16 ra[NV];
    V16 rb[NV];
    if (K > 0) {
        load_slices<in_t, NV>(A, B, l.row0, l.col0, 0, N, K, l.tid, ra, rb);
        store_slices<in_t, NV>(As, Bs, l.tid, ra, rb);
    }
    __syncthreads();
    for (int k0 = 0; k0 < K; k0 += MPFMA_BK2) {
        const bool more = k0 + MPFMA_BK2 < K;
        if (more) {
            // In flight while this slice is multiplied.
            load_slices<in_t, NV>(A, B, l.row0, l.col0, k0 + MPFMA_BK2, N, K, l.tid, ra, rb);
        }
        for (int ks = 0; ks < MPFMA_BK2 && k0 + ks < K; ks += MPFMA_BK) {
            mma_k16<V, MPFMA_BK2 + MPFMA_PAD, MPFMA_BN + MPFMA_PAD>(As, Bs, ks, l, acc, acc16);
        }
        __syncthreads();
        if (more) {
            store_slices<in_t, NV>(As, Bs, l.tid, ra, rb);
            __syncthreads();
        }
    }
    acc_store<V, 2, 4>(D, N, l.row0 + l.wm, l.col0 + l.wn, l.g, l.tq, acc, acc16);
}

// One entry point NAME(A, B, C, D, M, N, K) running TILE<V> on blocks of THREADS threads,
// its pointer types those of V (Traits).
#define MPFMA_ENTRY(NAME, THREADS, TILE, V)                                                           \
    extern "C" __global__ void __launch_bounds__(THREADS)                                           \
        NAME(const Traits<V>::in_t* A, const Traits<V>::in_t* B, const Traits<V>::out_t* C,         \
             Traits<V>::out_t* D, int M, int N, int K) {                                            \
        TILE<V>(A, B, C, D, M, N, K);                                                               \
    }

MPFMA_ENTRY(mpfma_gemm_f16_f32, 128, gemm_tile, F16_F32)
MPFMA_ENTRY(mpfma_gemm_bf16_f32, 128, gemm_tile, BF16_F32)
MPFMA_ENTRY(mpfma_gemm_f16_f16, 128, gemm_tile, F16_F16)
MPFMA_ENTRY(mpfma_gemm_tf32_f32, 128, gemm_tile, TF32_F32)
MPFMA_ENTRY(mpfma_gemm_pipelined_f16_f32, 128, gemm_tile_pipelined, F16_F32)
MPFMA_ENTRY(mpfma_gemm_pipelined_bf16_f32, 128, gemm_tile_pipelined, BF16_F32)
MPFMA_ENTRY(mpfma_gemm_pipelined_f16_f16, 128, gemm_tile_pipelined, F16_F16)
MPFMA_ENTRY(mpfma_gemm_pipelined_tf32_f32, 128, gemm_tile_pipelined, TF32_F32)

// ------------------------------------------------------------------ wide variant
// mpfma_gemm_wide_* (fp16 and bf16 inputs): 128 x 128 tiles of D per block of 256
// threads (8 warps, 2 x 4, each owning 64 x 32 as 4 x 4 mma tiles), K in slices of 32
// staged by cp.async into a ring of WIDE_STAGES shared-memory buffers (the next two
// slices land while the current one is multiplied), fragments read with ldmatrix (x4 for A, x4.trans for B:
// four 8 x 8 matrices per instruction instead of one 2-byte load per element). Every
// accumulator still receives one m16n8k16 per 16 of k, k ascending, starting from C or
// +0, and a last half slice beyond K is skipped: D equals mpfma_gemm_*'s bit for bit.
// M and N must be multiples of 128 (the host pads), K of 16. Needs sm_80 (cp.async,
// ldmatrix). Shared memory: WIDE_STAGES x (128 x 40 + 32 x 136) x 2 bytes, dynamic.
// Fragment layouts: PTX ISA, "Warp-level matrix load instruction: ldmatrix" and
// "Matrix Fragments for mma.m16n8k16 with floating point type".
#define WIDE_BM 128
#define WIDE_BN 128
#define WIDE_BK 32
#define WIDE_LDA (WIDE_BK + MPFMA_PAD)   // 40 elements = 80 bytes: ldmatrix rows hit 8 bank groups
#define WIDE_LDB (WIDE_BN + MPFMA_PAD)   // 136 elements = 272 bytes: the same for B

// The A slice (128 x 32) and the B slice (32 x 128) of k0 into one buffer: 512 vectors
// of 8 elements each, two per thread per operand; zeros beyond K (K % 16 == 0, so a
// vector is wholly inside or wholly outside).
__device__ __forceinline__ void wide_issue_slice(const u16* __restrict__ A, const u16* __restrict__ B,
                                                 int row0, int col0, int k0, int N, int K, int tid,
                                                 u16 (*As)[WIDE_LDA], u16 (*Bs)[WIDE_LDB]) {
    for (int r = 0; r < 2; ++r) {
        const int q = tid + r * 256;
        const int ar = q >> 2;           // 4 vectors per row of 32
        const int ac = (q & 3) * 8;
        const bool a_in = k0 + ac < K;
        bg_cp_async16(&As[ar][ac], a_in ? A + (unsigned long long)(row0 + ar) * K + k0 + ac : A, a_in);
        const int br = q >> 4;           // 16 vectors per row of 128
        const int bc = (q & 15) * 8;
        const bool b_in = k0 + br < K;
        bg_cp_async16(&Bs[br][bc], b_in ? B + (unsigned long long)(k0 + br) * N + col0 + bc : B, b_in);
    }
}

// One m16n8k16 per accumulator tile for k = ks .. ks + 15 of a staged slice.
template <int V>
__device__ __forceinline__ void wide_mma_k16(const u16 (*As)[WIDE_LDA], const u16 (*Bs)[WIDE_LDB], int ks,
                                             int wm, int wn, int lane, float (&acc)[4][4][4],
                                             u32 (&acc16)[4][4][2]) {
    u32 a[4][4];
    u32 b[4][2];
    for (int mi = 0; mi < 4; ++mi) {
        // Lanes 0-15 name rows 0-15 at k ks..ks+7, lanes 16-31 the same rows at ks+8..ks+15:
        // the four 8 x 8 matrices land in a[mi][0..3] as the fragment wants them.
        bg_ldmatrix_x4(a[mi], &As[wm + mi * 16 + (lane & 15)][ks + (lane >> 4) * 8]);
    }
    for (int nj = 0; nj < 2; ++nj) {
        // Lanes 0-15 name k rows ks..ks+15 of columns wn+16nj..+7, lanes 16-31 the next 8
        // columns; transposed, they are b[2nj][0], b[2nj][1], b[2nj+1][0], b[2nj+1][1].
        u32 r[4];
        bg_ldmatrix_x4_trans(r, &Bs[ks + (lane & 15)][wn + nj * 16 + (lane >> 4) * 8]);
        b[2 * nj][0] = r[0];
        b[2 * nj][1] = r[1];
        b[2 * nj + 1][0] = r[2];
        b[2 * nj + 1][1] = r[3];
    }
    for (int mi = 0; mi < 4; ++mi) {
        for (int ni = 0; ni < 4; ++ni) {
            if constexpr (V == F16_F16) {
                mma_f16(acc16[mi][ni], a[mi], b[ni]);
            } else {
                mma_f32<V>(acc[mi][ni], a[mi], b[ni]);
            }
        }
    }
}

// Stages of the wide kernel's cp.async pipeline: slice s + WIDE_STAGES - 1 is in flight
// while slice s is multiplied. Three stages take 3 x 18 944 = 56 832 bytes of dynamic
// shared memory, above the 48 KiB a launch gets by default: the launcher raises the
// function's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (src/kernels/mpfma/gpu/kernel.rs:
// GemmKernel::dynamic_shared_bytes). Two blocks per SM still fit (sm_80: 164 KiB,
// sm_90: 228 KiB).
#define WIDE_STAGES 3
#define WIDE_STAGE_A (WIDE_BM * WIDE_LDA)  // elements of one stage of A
#define WIDE_STAGE_B (WIDE_BK * WIDE_LDB)  // elements of one stage of B

template <int V>
__device__ __forceinline__ void gemm_tile_wide(const u16* __restrict__ A, const u16* __restrict__ B,
                                               const typename Traits<V>::out_t* __restrict__ C,
                                               typename Traits<V>::out_t* __restrict__ D, int M, int N,
                                               int K) {
    static_assert(V != TF32_F32, "the wide kernel is for 16-bit inputs");
    // WIDE_STAGES stages of A (128 x 40) then WIDE_STAGES stages of B (32 x 136).
    extern __shared__ __align__(16) u16 wide_shared[];
    u16(*As)[WIDE_BM][WIDE_LDA] = reinterpret_cast<u16(*)[WIDE_BM][WIDE_LDA]>(wide_shared);
    u16(*Bs)[WIDE_BK][WIDE_LDB] =
        reinterpret_cast<u16(*)[WIDE_BK][WIDE_LDB]>(wide_shared + WIDE_STAGES * WIDE_STAGE_A);
    const int tid = (int)threadIdx.x;
    const int warp = tid >> 5;
    const int lane = tid & 31;
    const int row0 = (int)blockIdx.y * WIDE_BM;
    const int col0 = (int)blockIdx.x * WIDE_BN;
    if (row0 >= M || col0 >= N) {
        return;
    }
    const int wm = (warp >> 2) * 64;
    const int wn = (warp & 3) * 32;
    const int g = lane >> 2;
    const int tq = lane & 3;
    float acc[4][4][4];
    u32 acc16[4][4][2];
    acc_init<V, 4, 4>(C, N, row0 + wm, col0 + wn, g, tq, acc, acc16);
    const int slices = (K + WIDE_BK - 1) / WIDE_BK;
    // The first WIDE_STAGES - 1 slices in flight; one commit group per slice (empty
    // groups past the end keep the count uniform).
    for (int p = 0; p < WIDE_STAGES - 1; ++p) {
        if (p < slices) {
            wide_issue_slice(A, B, row0, col0, p * WIDE_BK, N, K, tid, As[p], Bs[p]);
        }
        bg_cp_async_commit();
    }
    for (int s = 0; s < slices; ++s) {
        // Groups committed: WIDE_STAGES - 1 + s; slice s is group s, so at most
        // WIDE_STAGES - 2 may still be in flight.
        bg_cp_async_wait<WIDE_STAGES - 2>();
        // Slice s visible to every thread, and every thread done with slice s - 1,
        // whose buffer the next issue reuses.
        __syncthreads();
        const int next = s + WIDE_STAGES - 1;
        if (next < slices) {
            const int nb = next % WIDE_STAGES;
            wide_issue_slice(A, B, row0, col0, next * WIDE_BK, N, K, tid, As[nb], Bs[nb]);
        }
        bg_cp_async_commit();
        const int buf = s % WIDE_STAGES;
        const int k0 = s * WIDE_BK;
        wide_mma_k16<V>(As[buf], Bs[buf], 0, wm, wn, lane, acc, acc16);
        if (k0 + MPFMA_BK < K) {
            wide_mma_k16<V>(As[buf], Bs[buf], MPFMA_BK, wm, wn, lane, acc, acc16);
        }
    }
    acc_store<V, 4, 4>(D, N, row0 + wm, col0 + wn, g, tq, acc, acc16);
}

MPFMA_ENTRY(mpfma_gemm_wide_f16_f32, 256, gemm_tile_wide, F16_F32)
MPFMA_ENTRY(mpfma_gemm_wide_bf16_f32, 256, gemm_tile_wide, BF16_F32)
MPFMA_ENTRY(mpfma_gemm_wide_f16_f16, 256, gemm_tile_wide, F16_F16)
