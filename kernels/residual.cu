// Residual-compensated quantized GEMM (Gu, "A method for accelerating low precision
// operations by sparse matrix multiplication", Algorithm 1), working format binary32,
// integers in int8 (int4 values are int8 in [-7, 7]), int32 accumulation.
//
// The CPU model is src/kernels/residual/method.rs with Working::Fp32: every floating-point
// step below is the same single correctly rounded operation (explicit _rn intrinsics; the
// host compiles with --fmad=false --ftz=false --prec-div=true), so outputs agree bit for bit.
// Integer products are exact whatever the summation order (two's-complement int32 addition
// is associative modulo 2^32 and the host checks that the exact sums fit), so the GEMM and
// the sparse products may sum in any order. The only other order-dependent steps, the means of
// |D_F|, are summed sequentially in binary64 by one thread per row or column, exactly as the
// CPU model does, and the scale maxima are order-independent.
//
// Steps (launch order), with the CPU model's names:
//   residual_absmax_rows, residual_absmax_strided   max |x| per line (row of A: a block per
//                         row; column of B or the whole matrix: warps along rows, atomicMax)
//   residual_scales       lambda = fl(num / amax); 1 for amax = 0; max_pow2 if it overflows
//   residual_quantize     q = clamp(Q(fl(lambda x))) row-major: A's as m x kp, kp = k rounded
//                         up to a multiple of 16 (zero padding: 4-byte words for dp4a,
//                         16-byte rows for cp.async), B's as k x n; with the residuals, also
//                         max |r| per line, r = fl(x - fl(q / lambda)). Then, for RA and RB,
//                         residual_scales from those maxima and residual_quantize again with
//                         the operand's integers as base: r recomputed from x and quantized
//                         (r is never stored)
//   residual_transpose_i8 B's integers transposed (n x kp) for the GEMMs; RB's only when a
//                         GEMM reads them (the full method, or a dense P1 in the sparse one)
//   residual_gemm_dp4a    P = Aq Bq (int32), 32x32 tiles, dp4a.s32.s32; or
//   residual_gemm_imma    the same P on the int8 tensor cores (mma.sync m16n8k32), 128x128
//                         tiles, cp.async double buffering, ldmatrix fragments
//   residual_dequantize   D_F = fl(fl(fl(P) / lambda_hi) / lambda_lo), the larger scale first
//   residual_row_means, residual_col_means     sum_j |D_F| in binary64, sequential, / count
//                         (rules 1 and 2 only: rule 0 compares with its global limit)
//   residual_abs_bins_f32 rule 0's mean_nnz|X|, exactly: the 24-bit significands of the
//                         nonzero |x| summed per exponent field (u64, exact), and their count;
//                         the host weights the 256 bins by their powers of two and rounds the
//                         exact sum over the count once (exact_mean.rs), so the limit is the
//                         CPU model's whatever order the atomics took
//   residual_mask_count_rows, residual_mask_count_cols
//                         kept entries per row of A (one warp per row) and per column of B
//                         (threads over columns, chunks of rows; column totals by integer
//                         atomics) (reduce.rs: rule 0 |x| >= 2M mean_nnz|X| with that exactly
//                         rounded limit, rule 1 |x| > M mean, rule 2 x > M mean)
//   (host: exclusive scan of the counts, the density switch, per product)
//   residual_mask_fill_rows, residual_mask_fill_cols   CSR of A^r (rows) and of B^r's
//                         transpose (columns), ascending indices (__ballot_sync orders a
//                         warp's entries in a row; the earlier chunks' counts order a
//                         column's chunks). Coalesced reads both: a thread per row of a
//                         row-major matrix reads a row apart (2026-11-24, H100: the sparse
//                         method ran 6x slower than the full residual at 16384)
//   residual_combine      D = fl(fl(D_F + dq(P1)) + dq(P2)), P1 = A^r_int RB_int and
//                         P2 = RA_int B^r_int multiplied from the CSRs inside (a block per
//                         row), or read dense
// The full residual runs the GEMM for P1 and P2 and residual_combine reads them; so does
// the sparse method for a product whose reduced matrix is not sparser than eta.
//
// No CUDA headers: the kernels use only built-in types, intrinsics and inline PTX. The one
// include is our own kernels/include/boundgate_async.cuh (cp.async and ldmatrix for the
// IMMA GEMM, shared with kernels/mpfma_gemm.cu), which NVRTC receives in memory.

#include "boundgate_async.cuh"

typedef unsigned long long index_t;

// Rounding rules of the quantizer (quant.rs: Rounding).
#define ROUND_NEAREST 0
#define ROUND_FLOOR 1
#define ROUND_TRUNC 2

// Scale layouts (bounds::residual::ScaleAxis): one line per row, per column, or one line.
#define AXIS_TENSOR 0
#define AXIS_ROWS 1
#define AXIS_COLUMNS 2

__device__ __forceinline__ index_t line_of(index_t i, index_t j, int axis) {
    return axis == AXIS_ROWS ? i : (axis == AXIS_COLUMNS ? j : 0);
}

// max |x| per row: one block per row, threads over the row (coalesced reads),
// any blockDim.x (power of two <= 1024). Maxima are exact, so the reduction order does
// not matter.
extern "C" __global__ void residual_absmax_rows(const float* __restrict__ x, index_t rows,
                                                index_t cols, float* __restrict__ amax) {
    extern __shared__ float red_max[];
    const index_t line = blockIdx.x;
    float m = 0.0f;
    for (index_t t = threadIdx.x; t < cols; t += blockDim.x) {
        m = fmaxf(m, fabsf(x[line * cols + t]));
    }
    red_max[threadIdx.x] = m;
    __syncthreads();
    for (unsigned int s = blockDim.x >> 1; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            red_max[threadIdx.x] = fmaxf(red_max[threadIdx.x], red_max[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && line < rows) {
        amax[line] = red_max[0];
    }
}

// max |x| per column (axis = AXIS_COLUMNS) or over the whole matrix (AXIS_TENSOR), into
// amax zeroed beforehand. Blocks of 32 x 8 threads: threadIdx.x runs along a row, so a
// warp reads 32 consecutive floats; blockIdx.y and threadIdx.y stride over the rows. Each
// block folds its 8 partial maxima per column in shared memory and publishes them with
// atomicMax on the bit patterns: for non-negative finite floats (the host refuses NaN and
// inf) the order of the bits is the order of the values, and a maximum is exact whatever
// the order the atomics land in. (Until 2026-11-25 one block per column walked that column,
// each warp's loads a row apart, and AXIS_TENSOR was one block for the whole matrix.)
extern "C" __global__ void residual_absmax_strided(const float* __restrict__ x, index_t rows,
                                                   index_t cols, int axis,
                                                   float* __restrict__ amax) {
    __shared__ float part[8][32];
    const index_t c = (index_t)blockIdx.x * 32 + threadIdx.x;
    float m = 0.0f;
    if (c < cols) {
        for (index_t r = (index_t)blockIdx.y * 8 + threadIdx.y; r < rows;
             r += (index_t)gridDim.y * 8) {
            m = fmaxf(m, fabsf(x[r * cols + c]));
        }
    }
    part[threadIdx.y][threadIdx.x] = m;
    __syncthreads();
    if (threadIdx.y == 0) {
        for (unsigned int y = 1; y < 8; ++y) {
            m = fmaxf(m, part[y][threadIdx.x]);
        }
        if (axis == AXIS_TENSOR) {
            for (unsigned int off = 16; off > 0; off >>= 1) {
                m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, off));
            }
            if (threadIdx.x == 0) {
                atomicMax((unsigned int*)amax, __float_as_uint(m));
            }
        } else if (c < cols) {
            atomicMax((unsigned int*)amax + c, __float_as_uint(m));
        }
    }
}

// lambda = fl(num / amax) per line (quant.rs: Quantizer::quantize).
extern "C" __global__ void residual_scales(const float* __restrict__ amax, index_t lines, float num,
                                           float max_pow2, float* __restrict__ scales) {
    const index_t l = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= lines) {
        return;
    }
    const float m = amax[l];
    float lambda = 1.0f;
    if (m != 0.0f) {
        lambda = __fdiv_rn(num, m);
        if (isinf(lambda)) {
            lambda = max_pow2;
        }
    }
    scales[l] = lambda;
}

__device__ __forceinline__ int round_rule(float t, int rule) {
    if (rule == ROUND_FLOOR) {
        return __float2int_rd(t);
    }
    if (rule == ROUND_TRUNC) {
        return __float2int_rz(t);
    }
    return __float2int_rn(t);  // nearest, ties to even
}

// q = clamp(Q(fl(lambda v)), -qmax, qmax) with v = x, or, given a base (the operand's own
// integers base_q, row length base_ld, and scales base_scales), v = fl(x - fl(q0 / lambda0))
// its residual, recomputed here by the same operations on the same operands as the pass
// that quantized x computed it, so the same floats (until 2026-11-27 that pass stored the
// residual, rows x cols floats, and this one read it back). q goes to q_out[i * ld + j]
// (row-major, consecutive threads write consecutive bytes), the padding of q_out being
// zero beforehand. B's and RB's transposed copies for dp4a come from residual_transpose_i8
// (a thread per element writing q_out[j * ld + i] directly stored bytes a row apart,
// 2026-11-24). Saturations are not counted (the CPU model's count, quant.rs, is what the
// reports print; the integers the two write are compared bit for bit): until 2026-11-27
// an atomic counter here went to a buffer nobody read.
//
// With r_amax (zeroed by the caller, one per line of axis), r = fl(v - fl(q / lambda)) is
// formed and max |r| per line is written there: the residual's quantization needs it, and
// finding it here saves a pass over the residual. Maxima are exact in any order;
// atomicMax on the bit patterns orders non-negative finite floats as their values (r is
// finite: x is, and q / lambda is at most |x| plus a step). Rows: a warp's lanes share row
// i, so the warp's maximum (redux.sync) makes one atomic; columns: each thread keeps its
// column's maximum over its rows and makes one; tensor: one per warp.
//
// Threads over the columns, grid y striding over the rows (rows_grid in the launcher): no
// 64-bit division of a flat index per element (until 2026-11-27). No lane leaves early,
// so the warp-wide reductions see every lane (lanes past cols carry 0).
//
// Each thread takes QUANTIZE_UNROLL of its rows (gridDim.y apart) per step and loads their x,
// base integers and scales before it computes any of them: one row at a time, with the
// divisions, the store and the warp's reduction and atomic between one load and the next,
// left a warp one load in flight (62.4 us per launch at 4096^2 on the H100, 2026-11-27, about
// 45 % of the copy bandwidth for what it moves). The operations per element, and the maxima
// (exact in any order), are as before. Not yet timed on a device.
#define QUANTIZE_UNROLL 4

extern "C" __global__ void residual_quantize(const float* __restrict__ x, index_t rows, index_t cols,
                                             const signed char* __restrict__ base_q,
                                             index_t base_ld,
                                             const float* __restrict__ base_scales,
                                             const float* __restrict__ scales, int axis, int rule,
                                             int qmax, index_t ld,
                                             signed char* __restrict__ q_out,
                                             float* __restrict__ r_amax) {
    const index_t j = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    const bool live = j < cols;
    const index_t stride = gridDim.y;
    unsigned int mine = 0u;  // bits of this thread's max |r| (columns, tensor)
    for (index_t i0 = blockIdx.y; i0 < rows; i0 += stride * QUANTIZE_UNROLL) {
        // The step's loads, issued together (rows past the end load nothing).
        float v[QUANTIZE_UNROLL];
        int base[QUANTIZE_UNROLL];
        float base_scale[QUANTIZE_UNROLL];
        float lambda[QUANTIZE_UNROLL];
#pragma unroll
        for (int u = 0; u < QUANTIZE_UNROLL; ++u) {
            const index_t i = i0 + u * stride;
            const bool here = live && i < rows;
            const index_t line = line_of(i, j, axis);
            v[u] = here ? x[i * cols + j] : 0.0f;
            base[u] = here && base_q != 0 ? (int)base_q[i * base_ld + j] : 0;
            base_scale[u] = here && base_q != 0 ? base_scales[line] : 1.0f;
            lambda[u] = here ? scales[line] : 1.0f;
        }
#pragma unroll
        for (int u = 0; u < QUANTIZE_UNROLL; ++u) {
            const index_t i = i0 + u * stride;
            unsigned int r_bits = 0u;
            if (live && i < rows) {
                float w = v[u];
                if (base_q != 0) {
                    w = __fsub_rn(w, __fdiv_rn(__int2float_rn(base[u]), base_scale[u]));
                }
                int q = round_rule(__fmul_rn(lambda[u], w), rule);
                if (q > qmax || q < -qmax) {
                    q = q > qmax ? qmax : -qmax;
                }
                q_out[i * ld + j] = (signed char)q;
                if (r_amax != 0) {
                    r_bits = __float_as_uint(
                        fabsf(__fsub_rn(w, __fdiv_rn(__int2float_rn(q), lambda[u]))));
                }
            }
            // i is the same for the whole warp, so every lane takes the reduction or none.
            if (r_amax != 0 && axis == AXIS_ROWS) {
                if (i < rows) {
                    const unsigned int m = __reduce_max_sync(0xffffffffu, r_bits);
                    if ((threadIdx.x & 31u) == 0u && m != 0u) {
                        atomicMax((unsigned int*)r_amax + i, m);
                    }
                }
            } else {
                mine = r_bits > mine ? r_bits : mine;
            }
        }
    }
    if (r_amax != 0 && axis != AXIS_ROWS) {
        if (axis == AXIS_TENSOR) {
            mine = __reduce_max_sync(0xffffffffu, mine);
            if ((threadIdx.x & 31u) == 0u && mine != 0u) {
                atomicMax((unsigned int*)r_amax, mine);
            }
        } else if (live && mine != 0u) {
            atomicMax((unsigned int*)r_amax + j, mine);
        }
    }
}

// out[j * ld + i] = in[i * cols + j] for i < rows, j < cols (int8; out's padding untouched).
// 32 x 32 tiles through shared memory, blocks of 32 x 8 threads: reads and writes both run
// along rows of 32 bytes. The tile rows stride by gridDim.y, so any number of rows fits.
extern "C" __global__ void residual_transpose_i8(const signed char* __restrict__ in, index_t rows,
                                                 index_t cols, signed char* __restrict__ out,
                                                 index_t ld) {
    __shared__ signed char tile[32][33];
    const index_t c0 = (index_t)blockIdx.x * 32;
    for (index_t r0 = (index_t)blockIdx.y * 32; r0 < rows; r0 += (index_t)gridDim.y * 32) {
        for (unsigned int y = threadIdx.y; y < 32; y += 8) {
            const index_t r = r0 + y;
            const index_t c = c0 + threadIdx.x;
            tile[y][threadIdx.x] = (r < rows && c < cols) ? in[r * cols + c] : 0;
        }
        __syncthreads();
        for (unsigned int y = threadIdx.y; y < 32; y += 8) {
            const index_t c = c0 + y;
            const index_t r = r0 + threadIdx.x;
            if (r < rows && c < cols) {
                out[c * ld + r] = tile[threadIdx.x][y];
            }
        }
        __syncthreads();
    }
}

// 4 signed bytes times 4 signed bytes, summed into c (exact).
__device__ __forceinline__ int dp4a(int a, int b, int c) {
    int d;
    asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

#define TILE 32
#define TILE_K_WORDS 8  // 32 bytes of k per step

// P = A Bt^T: A is m x kp, Bt is n x kp (both int8, row-major, kp % 4 == 0, 4-byte aligned),
// P is m x n int32. Blocks of 16 x 16 threads compute 32 x 32 tiles, each thread 2 x 2 outputs.
extern "C" __global__ void residual_gemm_dp4a(const int* __restrict__ a, const int* __restrict__ bt,
                                              index_t m, index_t n, index_t kp_words,
                                              int* __restrict__ p) {
    __shared__ int sa[TILE][TILE_K_WORDS + 1];
    __shared__ int sb[TILE][TILE_K_WORDS + 1];
    const unsigned int tx = threadIdx.x;  // 0..15
    const unsigned int ty = threadIdx.y;  // 0..15
    const index_t row0 = (index_t)blockIdx.y * TILE;
    const index_t col0 = (index_t)blockIdx.x * TILE;
    int acc[2][2] = {{0, 0}, {0, 0}};
    const unsigned int tid = ty * 16 + tx;
    for (index_t w0 = 0; w0 < kp_words; w0 += TILE_K_WORDS) {
        // 256 threads load 32 x 8 words of each operand.
        const unsigned int r = tid / TILE_K_WORDS;
        const unsigned int w = tid % TILE_K_WORDS;
        const index_t wa = w0 + w;
        sa[r][w] = (row0 + r < m && wa < kp_words) ? a[(row0 + r) * kp_words + wa] : 0;
        sb[r][w] = (col0 + r < n && wa < kp_words) ? bt[(col0 + r) * kp_words + wa] : 0;
        __syncthreads();
        for (unsigned int kw = 0; kw < TILE_K_WORDS; ++kw) {
            for (unsigned int di = 0; di < 2; ++di) {
                for (unsigned int dj = 0; dj < 2; ++dj) {
                    acc[di][dj] = dp4a(sa[ty * 2 + di][kw], sb[tx * 2 + dj][kw], acc[di][dj]);
                }
            }
        }
        __syncthreads();
    }
    for (unsigned int di = 0; di < 2; ++di) {
        for (unsigned int dj = 0; dj < 2; ++dj) {
            const index_t i = row0 + ty * 2 + di;
            const index_t j = col0 + tx * 2 + dj;
            if (i < m && j < n) {
                p[i * n + j] = acc[di][dj];
            }
        }
    }
}

// ------------------------------------------------------------------ IMMA GEMM
// P = A Bt^T on the int8 tensor cores (mma.sync m16n8k32 .s8.s8.s32, sm_80 and later):
// the same exact int32 sums as residual_gemm_dp4a (integer addition is exact and, wrapping
// aside, which the host's overflow check excludes, associative, so any order gives the same P).
// A is m x kp, Bt n x kp (both int8, row-major in k, kp a multiple of 16 so that every row
// starts 16-byte aligned), P m x n int32; any m, n (rows beyond them load zeros and store
// nothing). Blocks of 256 threads (8 warps, 2 x 4) own 128 x 128 of P, each warp 64 x 32 as
// 4 x 4 mma tiles of 16 x 8; k in slices of 64 bytes staged by cp.async into two
// shared-memory buffers (the next slice lands while the current one is multiplied), zeros
// beyond kp. Fragments come from ldmatrix: an 8 x 8 matrix of 16-bit elements is 8 rows of
// 16 int8, and the m16n8k32 fragments of A (row-major) and of B (column-major, i.e. Bt's rows)
// are both "row g, bytes 4tq .. 4tq + 3" of such matrices (PTX ISA, "Matrix Fragments for
// mma.m16n8k32"). Shared rows are 80 bytes (64 + 16 padding): the eight row addresses of an
// ldmatrix then fall in eight distinct groups of four banks. Shared memory: 40 960 bytes.
#define IMMA_BM 128
#define IMMA_BN 128
#define IMMA_BK 64
#define IMMA_LD (IMMA_BK + 16)

__device__ __forceinline__ void imma_mma(int (&d)[4], const unsigned int (&a)[4], unsigned int b0,
                                         unsigned int b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The A and Bt slices of k0 (128 rows x 64 bytes each) into one buffer: 512 vectors of
// 16 bytes per operand, two per thread.
__device__ __forceinline__ void imma_issue_slice(const signed char* __restrict__ a,
                                                 const signed char* __restrict__ bt, index_t m,
                                                 index_t n, index_t kp, index_t row0, index_t col0,
                                                 index_t k0, unsigned int tid,
                                                 signed char (*as)[IMMA_LD],
                                                 signed char (*bs)[IMMA_LD]) {
    for (unsigned int r = 0; r < 2; ++r) {
        const unsigned int q = tid + r * 256;
        const unsigned int row = q >> 2;  // 4 vectors per row of 64 bytes
        const unsigned int byte = (q & 3) * 16;
        const bool k_in = k0 + byte < kp;
        const bool a_in = k_in && row0 + row < m;
        bg_cp_async16(&as[row][byte], a_in ? a + (row0 + row) * kp + k0 + byte : a, a_in);
        const bool b_in = k_in && col0 + row < n;
        bg_cp_async16(&bs[row][byte], b_in ? bt + (col0 + row) * kp + k0 + byte : bt, b_in);
    }
}

extern "C" __global__ void __launch_bounds__(256)
residual_gemm_imma(const signed char* __restrict__ a, const signed char* __restrict__ bt, index_t m,
                   index_t n, index_t kp, int* __restrict__ p) {
    __shared__ __align__(16) signed char as[2][IMMA_BM][IMMA_LD];
    __shared__ __align__(16) signed char bs[2][IMMA_BN][IMMA_LD];
    const unsigned int tid = threadIdx.x;
    const unsigned int warp = tid >> 5;
    const unsigned int lane = tid & 31u;
    const index_t row0 = (index_t)blockIdx.y * IMMA_BM;
    const index_t col0 = (index_t)blockIdx.x * IMMA_BN;
    const unsigned int wm = (warp >> 2) * 64;
    const unsigned int wn = (warp & 3) * 32;
    int acc[4][4][4];
    for (int mi = 0; mi < 4; ++mi) {
        for (int ni = 0; ni < 4; ++ni) {
            for (int v = 0; v < 4; ++v) {
                acc[mi][ni][v] = 0;
            }
        }
    }
    const index_t slices = (kp + IMMA_BK - 1) / IMMA_BK;
    if (slices > 0) {
        imma_issue_slice(a, bt, m, n, kp, row0, col0, 0, tid, as[0], bs[0]);
    }
    bg_cp_async_commit();
    for (index_t s = 0; s < slices; ++s) {
        const unsigned int buf = (unsigned int)(s & 1);
        if (s + 1 < slices) {
            // Into the other buffer, read in the previous step and released by its barrier.
            imma_issue_slice(a, bt, m, n, kp, row0, col0, (s + 1) * IMMA_BK, tid, as[buf ^ 1u],
                             bs[buf ^ 1u]);
            bg_cp_async_commit();
            bg_cp_async_wait<1>();
        } else {
            bg_cp_async_wait<0>();
        }
        __syncthreads();
        for (unsigned int ks = 0; ks < IMMA_BK; ks += 32) {
            unsigned int af[4][4];
            unsigned int bf[4][2];
            for (int mi = 0; mi < 4; ++mi) {
                // Lanes 0-15: rows 0-15 at bytes ks..ks+15; lanes 16-31: the same rows at
                // ks+16..ks+31: the four matrices are A's fragment registers 0..3 in order.
                bg_ldmatrix_x4(af[mi], &as[buf][wm + mi * 16 + (lane & 15u)][ks + (lane >> 4) * 16]);
            }
            for (int nj = 0; nj < 2; ++nj) {
                // Matrix q = lane / 8: Bt rows (n) 8 (q / 2) .. +7 of the pair of n tiles,
                // bytes ks + 16 (q % 2): b[2nj][0], b[2nj][1], b[2nj+1][0], b[2nj+1][1].
                unsigned int r[4];
                const unsigned int q = lane >> 3;
                bg_ldmatrix_x4(r, &bs[buf][wn + nj * 16 + (q >> 1) * 8 + (lane & 7u)][ks + (q & 1u) * 16]);
                bf[2 * nj][0] = r[0];
                bf[2 * nj][1] = r[1];
                bf[2 * nj + 1][0] = r[2];
                bf[2 * nj + 1][1] = r[3];
            }
            for (int mi = 0; mi < 4; ++mi) {
                for (int ni = 0; ni < 4; ++ni) {
                    imma_mma(acc[mi][ni], af[mi], bf[ni][0], bf[ni][1]);
                }
            }
        }
        __syncthreads();
    }
    const unsigned int g = lane >> 2;
    const unsigned int tq = lane & 3u;
    for (int mi = 0; mi < 4; ++mi) {
        for (int ni = 0; ni < 4; ++ni) {
            const index_t r = row0 + wm + mi * 16 + g;
            const index_t c = col0 + wn + ni * 8 + 2 * tq;
            for (int h = 0; h < 2; ++h) {
                const index_t rr = r + 8 * h;
                if (rr < m && c < n) {
                    p[rr * n + c] = acc[mi][ni][2 * h];
                }
                if (rr < m && c + 1 < n) {
                    p[rr * n + c + 1] = acc[mi][ni][2 * h + 1];
                }
            }
        }
    }
}

// fl(fl(fl(P) / lambda_hi) / lambda_lo), lambda_hi the larger of the two scales (method.rs:
// dequantize; equal scales give the same result in either order). Dividing by the larger
// first keeps the intermediate at most max(|P|, |result|): row first overflowed fp32 for
// A = [[1e38]], B = [[1e-30]] (P / lambda_A = 1.3e40) although the result is 1e8.
__device__ __forceinline__ float dequant(int p, float row_scale, float col_scale) {
    const float hi = fmaxf(row_scale, col_scale);
    const float lo = fminf(row_scale, col_scale);
    return __fdiv_rn(__fdiv_rn(__int2float_rn(p), hi), lo);
}

// D_F = dequantized P; scales per row (row_axis) / column (col_axis) or per tensor.
extern "C" __global__ void residual_dequantize(const int* __restrict__ p, index_t m, index_t n,
                                               const float* __restrict__ row_scales, int row_axis,
                                               const float* __restrict__ col_scales, int col_axis,
                                               float* __restrict__ d) {
    // Threads over the columns, grid y striding over the rows (as residual_quantize).
    const index_t j = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) {
        return;
    }
    const float col_scale = col_scales[col_axis == AXIS_TENSOR ? 0 : j];
    for (index_t i = blockIdx.y; i < m; i += gridDim.y) {
        d[i * n + j] = dequant(p[i * n + j], row_scales[row_axis == AXIS_TENSOR ? 0 : i], col_scale);
    }
}

// Mean of |d[first + k stride]| over k = 0 .. count - 1 in binary64, summed
// k = 0, 1, ... (reduce.rs: abs_means): a row of D_F (stride 1) or a column
// (stride n).
__device__ __forceinline__ double residual_abs_mean(const float* __restrict__ d, index_t first, index_t stride,
                                                    index_t count) {
    double s = 0.0;
    for (index_t k = 0; k < count; ++k) {
        s = __dadd_rn(s, fabs((double)d[first + k * stride]));
    }
    return __ddiv_rn(s, (double)count);
}

// Row means of |D_F|.
extern "C" __global__ void residual_row_means(const float* __restrict__ d, index_t m, index_t n,
                                              double* __restrict__ means) {
    const index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) {
        means[i] = residual_abs_mean(d, i * n, 1, n);
    }
}

// Column means of |D_F|.
extern "C" __global__ void residual_col_means(const float* __restrict__ d, index_t m, index_t n,
                                              double* __restrict__ means) {
    const index_t j = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) {
        means[j] = residual_abs_mean(d, j, n, m);
    }
}

// Reduction rules (reduce.rs: ReduceRule).
#define RULE_MEAN 0
#define RULE_ROWS 1
#define RULE_SIGNED 2

// Whether x is kept (reduce.rs: ReduceRule::keeps): against global_limit = fl64(2M) *
// mean_nnz|X| (exactly rounded: residual_abs_bins_f32's bins, weighted and divided on the
// host) for RULE_MEAN, against fl64(M * mean) otherwise.
__device__ __forceinline__ bool keeps(float x, double threshold, double mean, double global_limit,
                                      int rule) {
    const double v = (double)x;
    if (rule == RULE_MEAN) {
        return v != 0.0 && fabs(v) >= global_limit;
    }
    const double limit = __dmul_rn(threshold, mean);
    return rule == RULE_SIGNED ? v > limit : fabs(v) > limit;
}

// Exponent-field histogram of the nonzero |x| (rule 0's exact mean; exact_mean.rs):
// bins[E] holds a sum of terms t, each standing for t 2^(E - 150) (the weight of one unit of a
// 24-bit significand of field E >= 1; subnormals, E = 0, go to bins[1] with their fraction,
// the same weight); count += 1 per nonzero, count being bins[256] (one buffer, so that the host
// reads the histograms of A and B back in one copy, 2026-11-27). The host weighs every bin
// by its power of two and sums exactly (AbsSumBins::from_f32_bins), so only the weighted sum
// matters, not which bin a term went to. Integer additions are exact and associative, so the
// atomics' order does not matter. One shared-memory histogram per block (blockDim.x a
// multiple of 32, any grid: grid-stride loop), flushed to the global bins once per block.
// bins (257 entries) must be zeroed by the caller.
//
// The register window: the warp's fields [low, top], low = max(top - BIN_WINDOW + 1, 1),
// top the largest field among the warp's first nonzero values (redux.sync max;
// warp-uniform). A value of field E in the window adds its significand shifted left by
// E - low (exact: below 2^31) to one 64-bit register, whose sum weighs 2^(low - 150) per
// unit and goes to bins[low] at the end (summed over the warp, one shared atomic); a value
// outside the window goes to its own field's shared bin with a shared atomic. Any top is
// correct (it only decides which path a value takes); one near the largest field sends
// almost every value to the register (U(0, 1): 1 - 2^-8 of them). Until 2026-11-27 (second
// session) the window kept BIN_WINDOW registers, one per field, each value adding a
// predicated significand to all of them: 8 compares, selects and 64-bit adds per value,
// which made the kernel compute-bound (0.78 ms per 16384^2 matrix on the H200, 29 % of its
// copy bandwidth; 56 us at 4096^2). Every term is below 2^31, so a bin holds the sum of up to
// 2^33 of them without overflow: the host launches at most 2^32 values at a time
// (sparse.rs: BINS_CHUNK), each launch with bins of its own, and merges them exactly.
// The loop runs the same number of steps in every lane (base is uniform), so every lane
// reaches the full-mask reductions; lanes past n carry no bin (-1).
#define BIN_WINDOW 8

// The exponent-field bin (1 ..= 254, subnormals in 1) and the 24-bit significand of |v|,
// or bin -1 for a zero or a non-finite v (which the host's sum skips too).
__device__ __forceinline__ void abs_bin(float v, int& bin, unsigned int& significand) {
    const unsigned int bits = __float_as_uint(v) & 0x7fffffffu;
    bin = -1;
    significand = 0u;
    if (bits != 0u && bits < 0x7f800000u) {
        const unsigned int field = bits >> 23;
        const unsigned int fraction = bits & 0x7fffffu;
        bin = field == 0u ? 1 : (int)field;
        significand = field == 0u ? fraction : (fraction | 0x800000u);
    }
}

// x must be 16-byte aligned (a device allocation's start): each thread reads four values
// per step as one float4, so that a wave of threads has 16 bytes each in flight (one float
// each left this kernel latency-bound, 73 us per 4096^2 matrix on the H100, 2026-11-27);
// the last n % 4 values are one more step's slot, read as scalars.
extern "C" __global__ void residual_abs_bins_f32(const float* __restrict__ x, index_t n,
                                                 unsigned long long* __restrict__ bins) {
    __shared__ unsigned long long local[256];
    __shared__ unsigned long long local_count;
    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) {
        local[b] = 0ull;
    }
    if (threadIdx.x == 0) {
        local_count = 0ull;
    }
    __syncthreads();
    unsigned long long mine = 0ull;
    unsigned long long windowed = 0ull;  // the window's values, 2^(low - 150) per unit
    int top = -1;  // warp-uniform: set by the first step with a nonzero value
    int low = 1;   // warp-uniform: the window's lowest field, max(top - BIN_WINDOW + 1, 1)
    const unsigned int lane = threadIdx.x & 31u;
    const index_t quads = n / 4;
    const index_t slots = quads + (n % 4 != 0 ? 1 : 0);
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
    const index_t stride = (index_t)gridDim.x * blockDim.x;
    for (index_t base = (index_t)blockIdx.x * blockDim.x; base < slots; base += stride) {
        const index_t slot = base + threadIdx.x;
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (slot < quads) {
            const float4 q = x4[slot];
            v[0] = q.x;
            v[1] = q.y;
            v[2] = q.z;
            v[3] = q.w;
        } else if (slot < slots) {
            // The last n % 4 (1 to 3) values. Constant indices: a loop up to n indexed
            // v at run time and put it on the stack for sm_80 (tests/nvrtc_compile.rs).
#pragma unroll
            for (unsigned int u = 0; u < 3; ++u) {
                if (4 * slot + u < n) {
                    v[u] = x[4 * slot + u];
                }
            }
        }
        int bin[4];
        unsigned int significand[4];
        int largest = -1;
#pragma unroll
        for (unsigned int u = 0; u < 4; ++u) {
            abs_bin(v[u], bin[u], significand[u]);
            mine += bin[u] >= 0 ? 1ull : 0ull;
            largest = bin[u] > largest ? bin[u] : largest;
        }
        if (top < 0) {
            top = (int)__reduce_max_sync(0xffffffffu, (unsigned int)(largest + 1)) - 1;
            low = top - (BIN_WINDOW - 1) > 1 ? top - (BIN_WINDOW - 1) : 1;
        }
#pragma unroll
        for (unsigned int u = 0; u < 4; ++u) {
            if (bin[u] >= 0) {
                if (bin[u] >= low && bin[u] <= top) {
                    windowed += (unsigned long long)significand[u] << (bin[u] - low);
                } else {
                    atomicAdd(&local[bin[u]], (unsigned long long)significand[u]);
                }
            }
        }
    }
    // The window's sum and the count summed over the warp (every lane is here: no early
    // exits), one shared atomic each.
    for (unsigned int offset = 16u; offset > 0u; offset >>= 1) {
        windowed += __shfl_down_sync(0xffffffffu, windowed, offset);
    }
    if (lane == 0u && windowed != 0ull) {
        atomicAdd(&local[low], windowed);  // low >= 1: bins[0] stays empty
    }
    for (unsigned int offset = 16u; offset > 0u; offset >>= 1) {
        mine += __shfl_down_sync(0xffffffffu, mine, offset);
    }
    if (lane == 0u) {
        atomicAdd(&local_count, mine);
    }
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) {
        if (local[b] != 0ull) {
            atomicAdd(&bins[b], local[b]);
        }
    }
    if (threadIdx.x == 0 && local_count != 0ull) {
        atomicAdd(&bins[256], local_count);
    }
}

// B's kept entries per column, in chunks of chunk_rows rows: thread (column c, chunk
// blockIdx.y) counts rows [chunk * chunk_rows, +chunk_rows) of column c into
// chunk_counts[chunk * cols + c] and adds a nonzero count to totals[c] (zeroed by the
// caller; integer atomics, so the totals do not depend on their order). Consecutive
// threads read consecutive columns of a row (coalesced), and chunks x cols threads share
// the work: one thread per column walking all k rows (until 2026-11-25) left 16 384
// threads for a 16384^2 B and 4096 for 4096^2, a few warps per SM, each waiting on its
// loads. (Until 2026-11-27 a separate kernel scanned the chunk counts per column, one
// thread per column walking the chunks: 35 us at 4096^2 for a few KB of work.)
extern "C" __global__ void residual_mask_count_cols(const float* __restrict__ x, index_t rows,
                                                    index_t cols, const double* __restrict__ means,
                                                    double threshold, double global_limit, int rule,
                                                    index_t chunk_rows,
                                                    unsigned int* __restrict__ chunk_counts,
                                                    unsigned int* __restrict__ totals) {
    const index_t c = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    const index_t chunk = blockIdx.y;
    if (c >= cols) {
        return;
    }
    const index_t r0 = chunk * chunk_rows;
    const index_t r1 = r0 + chunk_rows < rows ? r0 + chunk_rows : rows;
    const double mean = means[c];
    unsigned int kept = 0;
    for (index_t r = r0; r < r1; ++r) {
        kept += keeps(x[r * cols + c], threshold, mean, global_limit, rule) ? 1u : 0u;
    }
    chunk_counts[chunk * cols + c] = kept;
    if (kept != 0u) {
        atomicAdd(&totals[c], kept);
    }
}

// The CSR of B^r's transpose: column c lists its kept rows ascending, with their integers
// from q (row-major, rows x cols). Thread (c, chunk) writes its chunk's entries from
// offsets[c] (the host's scan of the column totals) plus the counts of the column's
// earlier chunks, rows ascending: the chunks of a column follow each other, so the list is
// the one a single thread walking the column would write. A chunk that keeps nothing
// (almost all of them at the paper's densities) reads nothing more.
extern "C" __global__ void residual_mask_fill_cols(const float* __restrict__ x, index_t rows,
                                                   index_t cols, const double* __restrict__ means,
                                                   double threshold, double global_limit, int rule,
                                                   const signed char* __restrict__ q,
                                                   const unsigned int* __restrict__ offsets,
                                                   const unsigned int* __restrict__ chunk_counts,
                                                   index_t chunk_rows,
                                                   unsigned int* __restrict__ index,
                                                   signed char* __restrict__ values) {
    const index_t c = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    const index_t chunk = blockIdx.y;
    if (c >= cols || chunk_counts[chunk * cols + c] == 0u) {
        return;
    }
    unsigned int out = offsets[c];
    for (index_t earlier = 0; earlier < chunk; ++earlier) {
        out += chunk_counts[earlier * cols + c];
    }
    const index_t r0 = chunk * chunk_rows;
    const index_t r1 = r0 + chunk_rows < rows ? r0 + chunk_rows : rows;
    const double mean = means[c];
    for (index_t r = r0; r < r1; ++r) {
        if (keeps(x[r * cols + c], threshold, mean, global_limit, rule)) {
            index[out] = (unsigned int)r;
            values[out] = q[r * cols + c];
            ++out;
        }
    }
}

// Loads in flight per lane in the row-mask kernels: a warp walks its row ROW_MASK_UNROLL
// groups of 32 entries at a time, the loads of a step issued before their tests (one load
// per lane per step until 2026-11-27: 61 us per 4096^2 matrix, 1 TB/s, on the H100).
#define ROW_MASK_UNROLL 4

// One step of a warp's walk along row `row`: lane `lane` loads entries base + 32 u + lane,
// u < ROW_MASK_UNROLL (0 past cols), all before any is tested.
__device__ __forceinline__ void load_row_step(const float* __restrict__ x, index_t row,
                                              index_t cols, index_t base, unsigned int lane,
                                              float (&v)[ROW_MASK_UNROLL]) {
#pragma unroll
    for (unsigned int u = 0; u < ROW_MASK_UNROLL; ++u) {
        const index_t t = base + 32 * u + lane;
        v[u] = t < cols ? x[row * cols + t] : 0.0f;
    }
}

// A's kept entries per row, one warp per row: lanes read consecutive entries
// of the row (coalesced), and the warp counts the kept ones with a ballot. Same counts.
extern "C" __global__ void residual_mask_count_rows(const float* __restrict__ x, index_t rows,
                                                   index_t cols, const double* __restrict__ means,
                                                   double threshold, double global_limit, int rule,
                                                   unsigned int* __restrict__ counts) {
    const index_t warp = ((index_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const unsigned int lane = threadIdx.x % 32;
    if (warp >= rows) {
        return;  // whole warps leave together: blockDim.x is a multiple of 32
    }
    const double mean = means[warp];
    unsigned int c = 0;
    for (index_t base = 0; base < cols; base += 32 * ROW_MASK_UNROLL) {
        float v[ROW_MASK_UNROLL];
        load_row_step(x, warp, cols, base, lane, v);
#pragma unroll
        for (unsigned int u = 0; u < ROW_MASK_UNROLL; ++u) {
            const index_t t = base + 32 * u + lane;
            const bool kept = t < cols && keeps(v[u], threshold, mean, global_limit, rule);
            c += __popc(__ballot_sync(0xffffffffu, kept));
        }
    }
    if (lane == 0) {
        counts[warp] = c;
    }
}

// The CSR of A^r (q not transposed), one warp per row: each group
// of 32 consecutive entries is written at out + (kept lanes below this one), so the column
// indices come out ascending exactly as in the one-thread loop. A row that keeps nothing
// (offsets equal) reads nothing.
extern "C" __global__ void residual_mask_fill_rows(const float* __restrict__ x, index_t rows,
                                                  index_t cols, const double* __restrict__ means,
                                                  double threshold, double global_limit, int rule,
                                                  const signed char* __restrict__ q, index_t ld,
                                                  const unsigned int* __restrict__ offsets,
                                                  unsigned int* __restrict__ index,
                                                  signed char* __restrict__ values) {
    const index_t warp = ((index_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const unsigned int lane = threadIdx.x % 32;
    if (warp >= rows || offsets[warp] == offsets[warp + 1]) {
        return;  // warp-uniform
    }
    const double mean = means[warp];
    unsigned int out = offsets[warp];
    const unsigned int below = (1u << lane) - 1u;
    for (index_t base = 0; base < cols; base += 32 * ROW_MASK_UNROLL) {
        float v[ROW_MASK_UNROLL];
        load_row_step(x, warp, cols, base, lane, v);
#pragma unroll
        for (unsigned int u = 0; u < ROW_MASK_UNROLL; ++u) {
            const index_t t = base + 32 * u + lane;
            const bool kept = t < cols && keeps(v[u], threshold, mean, global_limit, rule);
            const unsigned int mask = __ballot_sync(0xffffffffu, kept);
            if (kept) {
                const unsigned int at = out + __popc(mask & below);
                index[at] = (unsigned int)t;
                values[at] = q[warp * ld + t];
            }
            out += __popc(mask);
        }
    }
}

// D = fl(fl(D_F + dq(P1)) + dq(P2)) (method.rs: combine), with
// dq(P1; lambda_A_i, lambda_RB_j), dq(P2; lambda_RA_i, lambda_B_j), with
// dq(P; l1, l2) = fl(fl(fl(P) / max(l1, l2)) / min(l1, l2)) (dequant).
//
// Each compensating product is either dense (p1 / p2 given: the full method's GEMMs, or a
// reduced matrix the density switch sent to the GEMM) or, where its pointer is null,
// computed here from the CSR of the reduced matrix (Gu, Algorithm 1, the sparse products):
//   P1_ij = sum over row i of A^r of  a_val[e] RB_int[a_idx[e], j]  (RB row-major, k x n),
//   P2_ij = sum over column j of B^r of  RA_int[i, b_idx[e]] b_val[e]  (RA m x ld).
// Integer sums are exact (the host refuses a k whose products could overflow int32,
// int32_max_k), so their order is free and P1, P2 are method.rs's spmm_csr_dense and
// spmm_dense_csr bit for bit. Until 2026-11-27 two SpMM kernels wrote P1 and P2 in full
// (m x n int32 each, zero in the rows and columns the reduced matrices leave empty) and
// this kernel read them back: four passes over m x n words for products that are almost
// all zero at the paper's densities.
//
// A block per row i (grid-stride over the rows), its threads over the columns j: a warp
// reads 32 consecutive entries of D_F, of a dense P, of RB's row. In P1 the block shares
// row i's CSR range (a uniform loop); in P2 a thread gathers RA_int[i, b_idx[e]] for its
// column's kept rows, and since the block walks all of row i, that row of RA (k bytes) is
// fetched into the SM's L1 once and the gathers hit it. (First version, 2026-11-27
// morning: blocks over 256 columns and 16 rows, so every row of RA went to 16 SMs and the
// gathers missed L1; 153 us at 4096^2 on the H100 where the dense dequantization of the
// same rows takes 55 us.)
// Each thread takes COMBINE_UNROLL columns, a block's width apart, per step and issues every
// load that no sparse loop waits on (D_F, a dense P, the column's CSR range) for all of them
// before it multiplies or stores anything. Before (the kernel of the 2026-11-27 H100 run) a
// thread loaded one column, ran its data-dependent CSR loop, stored, and only then loaded
// the next column, so a warp had one load in flight: 144 us at 4096^2 where the dense
// dequantization of the same rows takes 54 us (that run's profile). The integers and the
// floating-point operations per element, and their order, are as before. 48 registers on
// sm_90 (5 blocks of 256 per SM), no spills; __launch_bounds__(256, 6) spilled. On an H200
// (2026-11-27): 103-164 us at 4096^2, 3.51 ms at 16384^2 where the dense dequantization of the
// same output takes 0.74 ms. Tried the same day and reverted: both sparse products' entries
// four at a time with the batch's loads issued together (86 registers, 2 blocks per SM): the
// same D, but 7.05 ms at 16384^2 (docs/residual.md, "GPU").
//
// Given P0 instead of D_F (d_f null), the kernel forms D_F = dq(P0; lambda_A_i, lambda_B_j)
// itself, the operations of residual_dequantize on the same scales, so the same floats: a run
// that needs D_F only to add to (a timed run of the full or the code's-rule sparse method)
// skips the dequantization's pass, which wrote D_F (m x n floats) for this kernel to read back.
#define COMBINE_UNROLL 4

extern "C" __global__ void residual_combine(
    const float* __restrict__ d_f, const int* __restrict__ p0, index_t m, index_t n,
    const int* __restrict__ p1,
    const unsigned int* __restrict__ a_ptr, const unsigned int* __restrict__ a_idx,
    const signed char* __restrict__ a_val, const signed char* __restrict__ rb,
    const int* __restrict__ p2, const signed char* __restrict__ ra, index_t ld,
    const unsigned int* __restrict__ b_ptr, const unsigned int* __restrict__ b_idx,
    const signed char* __restrict__ b_val, const float* __restrict__ la,
    const float* __restrict__ lrb, const float* __restrict__ lra, const float* __restrict__ lb,
    int left_axis, int right_axis, float* __restrict__ d) {
    const index_t width = blockDim.x;
    for (index_t i = blockIdx.x; i < m; i += gridDim.x) {
        const index_t il = left_axis == AXIS_TENSOR ? 0 : i;
        const float la_i = la[il];
        const float lra_i = lra[il];
        const unsigned int a_begin = p1 == 0 ? a_ptr[i] : 0u;
        const unsigned int a_end = p1 == 0 ? a_ptr[i + 1] : 0u;
        // Row i of D_F, of a dense product, and of D.
        const float* __restrict__ d_f_i = d_f == 0 ? d_f : d_f + i * n;
        const int* __restrict__ p0_i = d_f == 0 ? p0 + i * n : p0;
        const int* __restrict__ p1_i = p1 == 0 ? p1 : p1 + i * n;
        const int* __restrict__ p2_i = p2 == 0 ? p2 : p2 + i * n;
        const signed char* __restrict__ ra_i = ra + i * ld;
        float* __restrict__ d_i = d + i * n;
        for (index_t j0 = threadIdx.x; j0 < n; j0 += width * COMBINE_UNROLL) {
            // The loads of the step's columns, issued together.
            float f[COMBINE_UNROLL];
            int acc1[COMBINE_UNROLL];
            int acc2[COMBINE_UNROLL];
            unsigned int b_begin[COMBINE_UNROLL];
            unsigned int b_end[COMBINE_UNROLL];
#pragma unroll
            for (int u = 0; u < COMBINE_UNROLL; ++u) {
                const index_t j = j0 + u * width;
                const bool live = j < n;
                // D_F's element, or P0's as its bits (dequantized below).
                f[u] = !live ? 0.0f : (d_f != 0 ? d_f_i[j] : __int_as_float(p0_i[j]));
                acc1[u] = live && p1 != 0 ? p1_i[j] : 0;
                acc2[u] = live && p2 != 0 ? p2_i[j] : 0;
                b_begin[u] = live && p2 == 0 ? b_ptr[j] : 0u;
                b_end[u] = live && p2 == 0 ? b_ptr[j + 1] : 0u;
            }
            // P1 from row i of A^r: one uniform loop over its entries, each entry's RB row
            // read at the step's columns.
            for (unsigned int e = a_begin; e < a_end; ++e) {
                const int a = (int)a_val[e];
                const index_t rb_row = (index_t)a_idx[e] * n;
#pragma unroll
                for (int u = 0; u < COMBINE_UNROLL; ++u) {
                    const index_t j = j0 + u * width;
                    if (j < n) {
                        acc1[u] += a * (int)rb[rb_row + j];
                    }
                }
            }
            // P2 from each column's kept rows of B^r (empty ranges where P2 is dense or the
            // column is past n).
#pragma unroll
            for (int u = 0; u < COMBINE_UNROLL; ++u) {
                for (unsigned int e = b_begin[u]; e < b_end[u]; ++e) {
                    acc2[u] += (int)ra_i[b_idx[e]] * (int)b_val[e];
                }
            }
#pragma unroll
            for (int u = 0; u < COMBINE_UNROLL; ++u) {
                const index_t j = j0 + u * width;
                if (j < n) {
                    // dq(0) = fl(fl(0 / hi) / lo) = +0 for the positive finite scales the
                    // host makes, so a zero product skips its two divisions (most products
                    // are zero at the paper's densities; the divisions, four per element,
                    // made this kernel three times the dense dequantization, 2026-11-27
                    // profile). The sum keeps the +0, as fl(-0 + +0) = +0 must.
                    const index_t jl = right_axis == AXIS_TENSOR ? 0 : j;
                    // D_F = dq(P0; lambda_A_i, lambda_B_j), as residual_dequantize forms it.
                    const float d_f_ij =
                        d_f != 0 ? f[u] : dequant(__float_as_int(f[u]), la_i, lb[jl]);
                    const float y1 = acc1[u] == 0 ? 0.0f : dequant(acc1[u], la_i, lrb[jl]);
                    const float y2 = acc2[u] == 0 ? 0.0f : dequant(acc2[u], lra_i, lb[jl]);
                    d_i[j] = __fadd_rn(__fadd_rn(d_f_ij, y1), y2);
                }
            }
        }
    }
}
