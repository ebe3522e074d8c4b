// Memory-accessor BLAS (Grützmacher, Anzt, Quintana-Ortí, Softw. Pract. Exper. 2021):
// values live in memory in a STORAGE format and are computed on in an ARITHMETIC
// format; every read widens (exactly), every write rounds to nearest even (once).
//
// Every kernel has a FIXED, documented order of operations, reproduced bit for bit
// by the CPU models in src/kernels/accessor/ (order.rs: warp_tree, warp_dot,
// block_reduce, grid_dot; gemv.rs; spmv.rs; trsv.rs). No atomic arithmetic: results
// depend on the sizes only, never on scheduling or on the device (trsv_rows takes its
// block rows and publishes them with atomic counters, which order the work, not the sums).
//
// Arithmetic: explicit round-to-nearest intrinsics (__fma_rn, __dadd_rn, __dsub_rn,
// __dmul_rn, __ddiv_rn and the f32 forms), which the compiler may neither contract
// nor reorder; no flush-to-zero. Storage: binary64, binary32, binary16 and bfloat16
// (16-bit formats as bit patterns, so that no header is needed and NVRTC alone
// compiles this file). Writes of binary64 values to 16-bit formats round to odd in
// binary32 first (__double2float_rz plus a sticky bit), then to nearest even: with
// at least two extra bits this is the correctly rounded result (Boldo and
// Melquiond, IEEE TC 57(4), 2008, Theorem 1), as the CPU model's Format::round is.
//
// Building blocks (order.rs):
//   warp_tree:    for off = 16, 8, 4, 2, 1: v = v + shfl_down(v, off); lane 0 holds the sum.
//   block_reduce: warp_tree per warp; warp sums to shared memory; warp 0 reduces
//                 them, padded with +0 to 32 lanes, with warp_tree.
// Kernels:
//   DOT   blocks of 256 threads, B = min(ceil(n / 256), 1024) blocks; thread t of block b
//         chains acc = fma(x[i], y[i], acc) for i = b*256 + t + k*256*B; block_reduce;
//         then one block of 1024 threads block_reduces the B partials (+0 beyond B)
//         and writes the result in the arithmetic format and through the accessor.
//   AXPY  y[i] = w(fma(alpha, r(x[i]), r(y[i]))).
//   GEMV  op(A) = A: 8 warps per block, a warp per row: lane l chains the columns
//         l, l + 32, ...; warp_tree. op(A) = A^T: blocks of 32 x G threads (G =
//         blockDim.y, a power of two <= 32: TRANSPOSED_GROUPS = 32 in gemv.rs), thread
//         (c, g) chains the rows g, g + G, ... of column 32*blockIdx.x + c; a tree
//         over g (s = G/2, ..., 2, 1) in shared memory (x converted once per warp, through
//         shared memory, where storage is not arithmetic: the same values). Then
//         y = alpha == 0 ? (beta == 0 ? +0 : beta*y0) : beta == 0 ? alpha*s
//         : fma(alpha, s, beta*y0) (BLAS: the sum unused when alpha is 0), written
//         through the accessor.
//   SPMV  CSR: a warp per row, lane l chains the row's entries l, l + 32, ...;
//         warp_tree (a warp takes groups of 4 consecutive rows, each row in this order,
//         the groups grid-stride and in a pipeline). ELL (column-major slots, column
//         index -1 = padding): a thread per row chains its slots k = 0 .. width - 1.
//         CSR-stream (spmv_csr_stream): ELL's order on CSR, a thread per row chains its
//         entries in increasing position, read through shared memory in block-wide chunks.
//         Then alpha and beta as GEMV.
//   ROOFLINE  y_i = w(f^k(r(x_i))), f(v) = fl(fl(v a) + b): a thread per value.
//   TRSV  positions p = 0 .. n-1 (row p for lower, n-1-p for upper: in positions T
//         is lower triangular), blocks of 32 positions.
//         trsv_invert: a warp per diagonal block; lane c computes column c of the
//         block's inverse Y by substitution: y_cc = 1 / l_cc (unit: 1), then for
//         r = c+1 ..: y_rc = (-(sum_{p=c}^{r-1} l_rp y_pc)) / l_rr (unit: no division),
//         the sum an fma chain in increasing p. Y stays in the arithmetic format.
//         trsv_solve: one block of 8 warps, block by block: for each row r of the
//         block (warp r mod 8) v_r = b_r (block 0) or b_r - warp_dot over the solved
//         positions q = lane, lane + 32, ...; then thread r computes
//         x_r = sum_{c <= r} y_rc v_c as TRSV_CHAIN_WAYS (W, default 4) fma chains,
//         chain w over c = w, w + W, ... <= r in increasing c, summed as a tree
//         (trsv_apply_inverse). x stays in the arithmetic format (global scratch) and
//         is written through the accessor at the end.
//         trsv_rows: the same values in the same order, a block of 8 warps per block
//         row (warp w takes rows 4w .. 4w+3, warp_tree4), all block rows at once; a
//         block waits for a chunk of x only when it reads it (Hogg 2013's schedule).

typedef unsigned long long index_t;

// ---------------------------------------------------------------- arithmetic

struct ArithF64 {
    typedef double T;
    static __device__ __forceinline__ T fma(T a, T b, T c) { return __fma_rn(a, b, c); }
    static __device__ __forceinline__ T add(T a, T b) { return __dadd_rn(a, b); }
    static __device__ __forceinline__ T sub(T a, T b) { return __dsub_rn(a, b); }
    static __device__ __forceinline__ T mul(T a, T b) { return __dmul_rn(a, b); }
    static __device__ __forceinline__ T div(T a, T b) { return __ddiv_rn(a, b); }
    static __device__ __forceinline__ T from_f32(float v) { return (double)v; }
    static __device__ __forceinline__ T from_f64(double v) { return v; }
    static __device__ __forceinline__ T shfl_down(T v, unsigned int off) {
        return __shfl_down_sync(0xffffffffu, v, off);
    }
    static __device__ __forceinline__ T shfl_xor(T v, unsigned int mask) {
        return __shfl_xor_sync(0xffffffffu, v, mask);
    }
};

struct ArithF32 {
    typedef float T;
    static __device__ __forceinline__ T fma(T a, T b, T c) { return __fmaf_rn(a, b, c); }
    static __device__ __forceinline__ T add(T a, T b) { return __fadd_rn(a, b); }
    static __device__ __forceinline__ T sub(T a, T b) { return __fsub_rn(a, b); }
    static __device__ __forceinline__ T mul(T a, T b) { return __fmul_rn(a, b); }
    static __device__ __forceinline__ T div(T a, T b) { return __fdiv_rn(a, b); }
    static __device__ __forceinline__ T from_f32(float v) { return v; }
    // Only instantiated for storage contained in binary32 (never binary64).
    static __device__ __forceinline__ T from_f64(double v) { return __double2float_rn(v); }
    static __device__ __forceinline__ T shfl_down(T v, unsigned int off) {
        return __shfl_down_sync(0xffffffffu, v, off);
    }
    static __device__ __forceinline__ T shfl_xor(T v, unsigned int mask) {
        return __shfl_xor_sync(0xffffffffu, v, mask);
    }
};

// ------------------------------------------------------------------- storage

// Binary32 rounding to odd of a binary64 value: truncate, and set the last bit
// if anything was lost (finite values only).
static __device__ __forceinline__ float round_to_odd_f32(double v) {
    float r = __double2float_rz(v);
    if ((double)r != v && !isnan(v) && !isinf(v)) {
        r = __int_as_float(__float_as_int(r) | 1);
    }
    return r;
}

static __device__ __forceinline__ unsigned short f32_to_f16_rn(float v) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
}

static __device__ __forceinline__ unsigned short f32_to_bf16_rn(float v) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
}

static __device__ __forceinline__ float f16_to_f32(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

static __device__ __forceinline__ float bf16_to_f32(unsigned short h) {
    return __uint_as_float(((unsigned int)h) << 16);
}

struct StoreF64 {
    typedef double S;
    template <class A> static __device__ __forceinline__ typename A::T read(const S* p, index_t i) {
        return A::from_f64(p[i]);
    }
    static __device__ __forceinline__ S write(double v) { return v; }
    static __device__ __forceinline__ S write(float v) { return (double)v; }
};

struct StoreF32 {
    typedef float S;
    template <class A> static __device__ __forceinline__ typename A::T read(const S* p, index_t i) {
        return A::from_f32(p[i]);
    }
    static __device__ __forceinline__ S write(double v) { return __double2float_rn(v); }
    static __device__ __forceinline__ S write(float v) { return v; }
};

struct StoreF16 {
    typedef unsigned short S;
    template <class A> static __device__ __forceinline__ typename A::T read(const S* p, index_t i) {
        return A::from_f32(f16_to_f32(p[i]));
    }
    static __device__ __forceinline__ S write(double v) { return f32_to_f16_rn(round_to_odd_f32(v)); }
    static __device__ __forceinline__ S write(float v) { return f32_to_f16_rn(v); }
};

struct StoreBF16 {
    typedef unsigned short S;
    template <class A> static __device__ __forceinline__ typename A::T read(const S* p, index_t i) {
        return A::from_f32(bf16_to_f32(p[i]));
    }
    static __device__ __forceinline__ S write(double v) { return f32_to_bf16_rn(round_to_odd_f32(v)); }
    static __device__ __forceinline__ S write(float v) { return f32_to_bf16_rn(v); }
};

// ------------------------------------------------------------ building blocks

template <class A>
static __device__ __forceinline__ typename A::T warp_tree(typename A::T v) {
    for (unsigned int off = 16; off > 0; off >>= 1) {
        v = A::add(v, A::shfl_down(v, off));
    }
    return v;
}

// warp_tree of four values at once: row r's tree ends in lane 8 r. Every pairwise sum is
// the one warp_tree forms for that row (the lane holding the lower index adds the higher
// one's value, as in warp_tree), so each row's result is warp_tree's bit for bit; the
// rows share the shuffles: at offset 16 a lane keeps two rows (lanes 0-15 rows 0 and 1,
// lanes 16-31 rows 2 and 3) and swaps the other two with lane ^ 16, at offset 8 one row
// (the 8-lane segment s holds row s) swapping the other with lane ^ 8, then plain
// offsets 4, 2, 1 within each segment: 6 shuffles of a value where four warp_trees take
// 20 (a binary64 shuffle is two 32-bit ones; the CSR kernel's trees were its bottleneck
// in binary64, 2026-11-27 H100 run).
template <class A>
static __device__ __forceinline__ typename A::T warp_tree4(const typename A::T (&v)[4]) {
    typedef typename A::T T;
    const unsigned int lane = threadIdx.x & 31u;
    const bool low = lane < 16u;
    // Offset 16: pairs (p, p + 16) of rows 0, 1 in lanes p < 16; of rows 2, 3 in lanes
    // 16 + p (the partner, lane p, holds the lower index).
    const T a = A::shfl_xor(low ? v[2] : v[0], 16u);
    const T b = A::shfl_xor(low ? v[3] : v[1], 16u);
    const T x0 = low ? A::add(v[0], a) : A::add(a, v[2]);
    const T x1 = low ? A::add(v[1], b) : A::add(b, v[3]);
    // Offset 8, within each half (q = lane mod 16): lanes q < 8 keep the half's first row,
    // pairs (q, q + 8); lanes q >= 8 its second row, pairs (q - 8, q).
    const bool first = (lane & 15u) < 8u;
    const T c = A::shfl_xor(first ? x1 : x0, 8u);
    T y = first ? A::add(x0, c) : A::add(c, x1);
    for (unsigned int off = 4; off > 0; off >>= 1) {
        y = A::add(y, A::shfl_down(y, off));
    }
    return y;
}

// warp_tree4 for the split lanes of the CSR kernel (CSR_SPLIT_LANES): thread q of half-warp h
// holds lanes q and q + 16 of rows 2h (v[0], v[1]) and 2h + 1 (v[2], v[3]). The offset-16 sums
// are v[0] + v[1] and v[2] + v[3] in the thread (lane q's value first, as warp_tree adds it),
// which leaves every lane holding what warp_tree4 holds after its offset 16 (lanes 0-15 rows 0
// and 1, lanes 16-31 rows 2 and 3); from there the same steps, so row r's tree ends in lane 8 r,
// bit for bit warp_tree's. Those steps are written out again rather than shared: warp_tree4
// stays as the device-validated kernels have it, since scripts/emulate-accessor-kernels.sh
// requires it to read the same as in its reference commit.
template <class A>
static __device__ __forceinline__ typename A::T warp_tree4_split(const typename A::T (&v)[4]) {
    typedef typename A::T T;
    const unsigned int lane = threadIdx.x & 31u;
    const T x0 = A::add(v[0], v[1]);
    const T x1 = A::add(v[2], v[3]);
    const bool first = (lane & 15u) < 8u;
    const T c = A::shfl_xor(first ? x1 : x0, 8u);
    T y = first ? A::add(x0, c) : A::add(c, x1);
    for (unsigned int off = 4; off > 0; off >>= 1) {
        y = A::add(y, A::shfl_down(y, off));
    }
    return y;
}

// The block's sum, valid in thread 0. blockDim.x is a multiple of 32, at most 1024.
template <class A>
static __device__ __forceinline__ typename A::T block_reduce(typename A::T v) {
    typedef typename A::T T;
    __shared__ __align__(8) unsigned char warp_sums_raw[32 * sizeof(double)];
    T* warp_sums = reinterpret_cast<T*>(warp_sums_raw);
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    v = warp_tree<A>(v);
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    if (warp == 0) {
        T w = lane < (blockDim.x >> 5) ? warp_sums[lane] : (T)0;
        v = warp_tree<A>(w);
    }
    return v;
}

// y = beta == 0 ? alpha s : fma(alpha, s, beta y0); with alpha == 0 the sum is
// not used (BLAS: A and x are not referenced), so y = beta y0, or +0 when beta
// is 0 too. The CPU model is common::blas_epilogue.
template <class A>
static __device__ __forceinline__ typename A::T finish(typename A::T s, typename A::T alpha,
                                                       typename A::T beta, typename A::T y0) {
    typedef typename A::T T;
    if (alpha == (T)0) {
        return beta == (T)0 ? (T)0 : A::mul(beta, y0);
    }
    if (beta == (T)0) {
        return A::mul(alpha, s);
    }
    return A::fma(alpha, s, A::mul(beta, y0));
}

// Element i of y: finish(s) with y0[i] read only when beta != 0 (y0 may be
// absent then), kept in the arithmetic format (y_arith) and stored rounded to
// the storage format (y). The epilogue of GEMV (both), SpMV CSR and ELL.
template <class St, class A>
static __device__ __forceinline__ void finish_store(typename A::T s, typename A::T alpha, typename A::T beta,
                                                    const typename St::S* __restrict__ y0, index_t i,
                                                    typename A::T* __restrict__ y_arith,
                                                    typename St::S* __restrict__ y) {
    typedef typename A::T T;
    const T y0v = beta == (T)0 ? (T)0 : St::template read<A>(y0, i);
    const T out = finish<A>(s, alpha, beta, y0v);
    y_arith[i] = out;
    y[i] = St::write(out);
}

// ------------------------------------------------------------------------ DOT

// Batched loads and launch bounds (DOT, GEMV^T, SpMV CSR and ELL). A batch's loads are
// issued before its FMAs only if ptxas keeps them so; with few registers it interleaves
// them, and each FMA then waits for its own loads before the next are issued. The "SASS,
// 2026-11-27" notes below are cuobjdump listings of sm_80 and sm_90 CUBINs from NVRTC 13.0.88
// (the devices' /usr/local/cuda) and 13.5.37 (scripts/install-cuda-nvrtc.sh, CI), which agree;
// tests/accessor_sass.rs keeps the batches whole.

// Terms per thread whose loads dot_blocks issues together.
#ifndef DOT_BATCH
#define DOT_BATCH 4
#endif
// Blocks of 256 threads per SM the launch bounds ask for: 8, i.e. at most 32 registers, so
// that the grid (at most 1024 blocks) is resident at once. The batch fits: ptxas issues the 8
// loads of a batch before its 4 FMAs in 30-32 registers (SASS, 2026-11-27).
#ifndef DOT_MIN_BLOCKS
#define DOT_MIN_BLOCKS 8
#endif

template <class St, class A>
static __device__ __forceinline__ void dot_blocks(const typename St::S* __restrict__ x,
                                                  const typename St::S* __restrict__ y, index_t n,
                                                  typename A::T* __restrict__ partials) {
    typedef typename A::T T;
    const index_t stride = (index_t)blockDim.x * (index_t)gridDim.x;
    T acc = 0;
    // DOT_BATCH terms' loads are issued before their FMAs, which stay one chain in increasing
    // i (the CPU model's order, so the same result); a last, partial batch is predicated (a
    // term beyond n is neither loaded nor added). The plain loop (PTX, 2026-11-27: not
    // unrolled, its trip count unknown) kept one term's two loads in flight per thread, each
    // FMA waiting for its loads before the next term's were issued: 85.6 % of copy on the
    // H200, where the H100, with 1.4x less bandwidth to cover, reached 90.7 %, and cuBLAS Sdot
    // took 0.84x our time on the H200. Batched: 104.1 % of copy, 0.996x fp32 (H200, 2026-11-27c).
    index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (DOT_BATCH - 1) * stride < n; i += DOT_BATCH * stride) {
        T xv[DOT_BATCH];
        T yv[DOT_BATCH];
#pragma unroll
        for (unsigned int u = 0; u < DOT_BATCH; ++u) {
            xv[u] = St::template read<A>(x, i + u * stride);
            yv[u] = St::template read<A>(y, i + u * stride);
        }
#pragma unroll
        for (unsigned int u = 0; u < DOT_BATCH; ++u) {
            acc = A::fma(xv[u], yv[u], acc);
        }
    }
    if (i < n) {
        T xv[DOT_BATCH - 1];
        T yv[DOT_BATCH - 1];
#pragma unroll
        for (unsigned int u = 0; u < DOT_BATCH - 1; ++u) {
            const index_t iu = i + u * stride;
            xv[u] = iu < n ? St::template read<A>(x, iu) : (T)0;
            yv[u] = iu < n ? St::template read<A>(y, iu) : (T)0;
        }
#pragma unroll
        for (unsigned int u = 0; u < DOT_BATCH - 1; ++u) {
            if (i + u * stride < n) {
                acc = A::fma(xv[u], yv[u], acc);
            }
        }
    }
    const T sum = block_reduce<A>(acc);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
    }
}

template <class St, class A>
static __device__ __forceinline__ void dot_final(const typename A::T* __restrict__ partials,
                                                 unsigned int count, typename A::T* __restrict__ out,
                                                 typename St::S* __restrict__ out_stored) {
    typedef typename A::T T;
    T v = threadIdx.x < count ? partials[threadIdx.x] : (T)0;
    v = block_reduce<A>(v);
    if (threadIdx.x == 0) {
        out[0] = v;
        out_stored[0] = St::write(v);
    }
}

// ----------------------------------------------------------------------- AXPY

template <class St, class A>
static __device__ __forceinline__ void axpy(typename A::T alpha, const typename St::S* __restrict__ x,
                                            typename St::S* __restrict__ y, index_t n) {
    const index_t stride = (index_t)blockDim.x * (index_t)gridDim.x;
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = St::write(A::fma(alpha, St::template read<A>(x, i), St::template read<A>(y, i)));
    }
}

// ----------------------------------------------------------------------- GEMV

template <class St, class A>
static __device__ __forceinline__ void gemv_n(index_t m, index_t n, typename A::T alpha,
                                              const typename St::S* __restrict__ a,
                                              const typename St::S* __restrict__ x, typename A::T beta,
                                              const typename St::S* __restrict__ y0,
                                              typename A::T* __restrict__ y_arith,
                                              typename St::S* __restrict__ y) {
    typedef typename A::T T;
    const unsigned int lane = threadIdx.x & 31u;
    const index_t row = (index_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= m) {
        return;  // the whole warp leaves together
    }
    T acc = 0;
    for (index_t j = lane; j < n; j += 32) {
        acc = A::fma(St::template read<A>(a, row * n + j), St::template read<A>(x, j), acc);
    }
    const T s = warp_tree<A>(acc);
    if (lane == 0) {
        finish_store<St, A>(s, alpha, beta, y0, row, y_arith, y);
    }
}

// One block of 32 x 32 threads per SM: the launch bounds then allow 64 registers, and ptxas
// (SASS, 2026-11-27) issues the 16 loads of an eight-row batch before its
// 8 FMAs (48 registers for fp32, 55 for acc<f64,f32>). Without the minimum it kept to 32
// registers, two blocks per SM, and interleaved each row's two loads with its FMA: one row's
// load in flight per thread for acc<f64,f32> (two for fp32), which left gemv^T at 0.858x our
// fp32 kernel and 80.1 % of copy on the H200, 0.949x and 89.4 % on the H100; with it 0.958x and
// 95.8 % (H200, 2026-11-27c). At 4096 columns (128 blocks) an SM never held two blocks anyway.
#ifndef GEMV_T_MIN_BLOCKS
#define GEMV_T_MIN_BLOCKS 1
#endif

// Whether gemv_t converts each warp's x values once, into shared memory, instead of in every
// lane (1, for the pairs whose storage is not their arithmetic format; 0: every lane converts).
// Nsight Compute on the H200 (2026-11-27, 16384^2, docs/accessor.md "GEMV^T: x converted once
// per warp"): acc<f64,f32> kept its SM 47.7 % busy against 29.5 % for fp32, the busiest pipe
// the conversions' (two F2F.F64.F32 per matrix entry: the entry's and x's, although x_i is the
// same in all 32 lanes), and moved 3.91 TB/s against fp32's 4.08 (0.958x). Staged, a warp
// converts 32 rows' x with one instruction and its lanes read them back from shared memory.
#ifndef GEMV_T_STAGE_X
#define GEMV_T_STAGE_X 1
#endif
// Rows per batch of loads on the staged path: 16, the 16 loads gemv^T's fp32 kernel keeps in
// flight per thread (8 rows' entries and x). Without x's loads and registers, 16 rows fit the
// 64 registers GEMV_T_MIN_BLOCKS allows (57 for acc<f64,f32>, no spills; sm_90, NVRTC 13.5).
#ifndef GEMV_T_STAGED_BATCH
#define GEMV_T_STAGED_BATCH 16
#endif

template <class St, class A>
static __device__ __forceinline__ void gemv_t(index_t m, index_t n, typename A::T alpha,
                                              const typename St::S* __restrict__ a,
                                              const typename St::S* __restrict__ x, typename A::T beta,
                                              const typename St::S* __restrict__ y0,
                                              typename A::T* __restrict__ y_arith,
                                              typename St::S* __restrict__ y) {
    typedef typename A::T T;
    // Up to 32 row groups of 32 columns: 8 KB for binary64 sums.
    __shared__ __align__(8) unsigned char sh_raw[32 * 32 * sizeof(double)];
    T* sh = reinterpret_cast<T*>(sh_raw);
    const unsigned int c = threadIdx.x;       // 0..31
    const unsigned int g = threadIdx.y;       // 0..G-1
    const index_t groups = blockDim.y;        // G, a power of two <= 32
    const index_t col = (index_t)blockIdx.x * 32 + c;
    T acc = 0;
    // Eight rows' loads are issued before their eight FMAs, which stay one
    // chain in row order (g, g + G, g + 2G, ...: the CPU model's order, the
    // same result). A `#pragma unroll` of the plain loop did not do this:
    // its trip count is unknown, so every unrolled step kept its exit
    // branch and each load still waited behind the previous FMA (PTX,
    // 2026-11-25). G was 8 until 2026-11-26: at 4096 columns that is
    // 128 blocks of 256 threads, one small block per SM of the H100, and
    // gemv^T reached 29 % of copy (0.71x our fp32 kernel); 32 groups gave
    // 0.86x and 61 % (H100, 2026-11-26). Whether ptxas keeps the eight
    // rows' loads together depends on the registers it may use:
    // GEMV_T_MIN_BLOCKS above.
    if constexpr (GEMV_T_STAGE_X && sizeof(typename St::S) != sizeof(T)) {
        // 32 rows' x per warp (g is the warp): 8 KB for binary64. Every lane takes part in the
        // staging and its __syncwarp()s, so a lane past the last column reads column n - 1
        // (n >= 1: the launcher does not launch an empty product) and its sum is never stored.
        __shared__ __align__(8) unsigned char xs_raw[32 * 32 * sizeof(double)];
        T* xs = reinterpret_cast<T*>(xs_raw) + g * 32;
        const index_t col_read = col < n ? col : n - 1;
        for (index_t i = g; i < m; i += 32 * groups) {
            // Rows i + G t, t = 0 .. 31: lane t converts row t's x.
            if (i + groups * c < m) {
                xs[c] = St::template read<A>(x, i + groups * c);
            }
            __syncwarp();
            unsigned int t = 0;
            for (; t + GEMV_T_STAGED_BATCH <= 32 && i + groups * (t + GEMV_T_STAGED_BATCH - 1) < m;
                 t += GEMV_T_STAGED_BATCH) {
                T av[GEMV_T_STAGED_BATCH];
#pragma unroll
                for (unsigned int u = 0; u < GEMV_T_STAGED_BATCH; ++u) {
                    av[u] = St::template read<A>(a, (i + groups * (t + u)) * n + col_read);
                }
#pragma unroll
                for (unsigned int u = 0; u < GEMV_T_STAGED_BATCH; ++u) {
                    acc = A::fma(av[u], xs[t + u], acc);
                }
            }
            for (; t < 32 && i + groups * t < m; ++t) {
                acc = A::fma(St::template read<A>(a, (i + groups * t) * n + col_read), xs[t], acc);
            }
            __syncwarp();  // every lane has read xs before it is written again
        }
    } else if (col < n) {
        index_t i = g;
        for (; i + 7 * groups < m; i += 8 * groups) {
            T av[8];
            T xv[8];
#pragma unroll
            for (unsigned int u = 0; u < 8; ++u) {
                av[u] = St::template read<A>(a, (i + groups * u) * n + col);
                xv[u] = St::template read<A>(x, i + groups * u);
            }
#pragma unroll
            for (unsigned int u = 0; u < 8; ++u) {
                acc = A::fma(av[u], xv[u], acc);
            }
        }
        for (; i < m; i += groups) {
            acc = A::fma(St::template read<A>(a, i * n + col), St::template read<A>(x, i), acc);
        }
    }
    sh[g * 32 + c] = acc;
    __syncthreads();
    for (unsigned int s = (unsigned int)groups / 2; s > 0; s >>= 1) {
        if (g < s) {
            sh[g * 32 + c] = A::add(sh[g * 32 + c], sh[(g + s) * 32 + c]);
        }
        __syncthreads();
    }
    if (g == 0 && col < n) {
        finish_store<St, A>(sh[c], alpha, beta, y0, col, y_arith, y);
    }
}

// ----------------------------------------------------------------------- SPMV

// Rows per warp of the CSR kernel (the launcher's CSR_ROWS_PER_WARP in mod.rs); the four
// trees are warp_tree4's.
#define CSR_ROWS_PER_WARP 4
// Row groups (of CSR_ROWS_PER_WARP rows) per warp: the launcher's grid has a warp for every
// CSR_GROUPS_PER_WARP groups, and each warp takes groups w, w + W, w + 2W, ... (W: the grid's
// warps), so that the loads of its next groups are in flight while it finishes one (spmv_csr).
// The kernel is right for any grid; this only sizes the launcher's.
#ifndef CSR_GROUPS_PER_WARP
#define CSR_GROUPS_PER_WARP 8
#endif
// Blocks of 256 threads per SM the launch bounds ask for: 4 (at most 64 registers, no spills
// for any pair), room for the three groups' state the pipeline keeps (spmv_csr). Measured on
// the H200 (docs/gpu/2026-11-27d-h200-h100.md, two calls, each setting timed right after the
// default): against 3 (78-80 registers), 4 takes 0.88-0.91x the time for fp32 and
// acc<f64,f32>, binary64 within +-3 %; 5 (48 registers) spills for binary64 arithmetic and
// takes 1.7-1.8x. With one group per warp the minimum was 5, for the reason the SASS of
// 2026-11-27 gave: ptxas kept to 40 registers otherwise and put each row's FMA before the next
// row's gather of x for binary64 arithmetic.
#ifndef CSR_MIN_BLOCKS
#define CSR_MIN_BLOCKS 4
#endif
// The same for binary64 storage (the fp64 pair), which holds twice the bytes per value in the
// pipeline and spills where the 4-byte pairs do not (2026-11-28: at 5 blocks, or with
// CSR_PIPELINE_DEPTH 2 at 4, fp64 spills 48-64 bytes and took 1.26-1.42x where fp32 and
// acc<f64,f32> gained), so that the two can be set apart. CSR_MIN_BLOCKS covers every other
// storage format.
#ifndef CSR_MIN_BLOCKS_F64
#define CSR_MIN_BLOCKS_F64 4
#endif
// Which thread holds which of a row's 32 lanes. 0 (the kernel measured on 2026-11-27): lane l
// of the warp is lane l of each of the group's four rows. 1: half-warp h takes rows 2h and
// 2h + 1 of the group, and its thread q lanes q and q + 16 of both. Each thread still chains
// four lanes' entries in the one-row order, and the tree's offset-16 sums (lane q plus lane
// q + 16, the lower first, as in warp_tree) are formed in the thread, so the results are the
// same bit for bit; what changes is that each thread loads and keeps in the pipeline the bounds
// of two rows, not four, and the trees take 4 shuffles of a value, not 6 (warp_tree4_split).
// Written 2026-11-27 after the profile of that session (docs/gpu/2026-11-27d-h200-h100.md:
// latency-bound, 47 % occupancy, about 2.2 warp instructions per nonzero). The default since
// 2026-11-28 (docs/gpu/2026-11-28-h100-h200.md): against 0 in one binary, 0.94-0.95x the time for
// fp32 and acc<f64,f32> and 0.92x for fp64 on the H100, 0.90-0.92x and 0.87x on the H200, at
// 64^3 and 96^3 alike; with CSR_MIN_BLOCKS 5 beside it fp64 spills and takes 1.26-1.42x.
#ifndef CSR_SPLIT_LANES
#define CSR_SPLIT_LANES 1
#endif
// Row groups whose first entries (column indices and values) a warp has in flight while it
// reduces one (spmv_csr), each with the bounds of one group further on. 1 (the kernel measured
// on 2026-11-28): the next group's. The CSR kernel is latency-bound (the record of 2026-11-27d:
// DRAM traffic equal to the byte count, memory system well below its peak) and its share of
// copy falls where the bandwidth rises (acc<f64,f32> at 96^3: 86 % on the H100, 74 % on the
// H200, 2026-11-28): what a warp keeps in flight is about one group's entries per memory
// latency, and more warps per SM helped before (CSR_MIN_BLOCKS 3 to 4: 0.88-0.91x). 2 or 3
// keep two or three groups' entries in flight per warp, for up to 16 (fp32) or 20 (fp64)
// registers more per group (four chains' bounds, indices and values; ptxas, unbounded: 78 / 80 /
// 94 registers at depth 2 for fp32 / acc<f64,f32> / fp64 where depth 1 takes 64 / 72 / 72), so they may need fewer blocks per SM
// (CSR_MIN_BLOCKS, CSR_MIN_BLOCKS_F64) to stay out of local memory (docs/accessor.md, "a
// deeper pipeline", has ptxas's counts); which wins is for a device to say. Which group is loaded when changes no operation
// and no order, so the results are the same bit for bit.
#ifndef CSR_PIPELINE_DEPTH
#define CSR_PIPELINE_DEPTH 1
#endif

// Row group g's bounds: rows g * CSR_ROWS_PER_WARP + r, 0 (an empty row) past the last row,
// so a group past the last one (g >= groups) is all empty rows.
// Positions in 32 bits: row_ptr holds int, so a position is below 2^31 and a position plus a
// step below 2^32. With 64-bit positions each row's bound check and address took four to six
// integer instructions, and the ALU was the busiest pipe (42 % for fp32, 46 % for acc<f64,f32>,
// Nsight Compute on the H200 at 96^3, 2026-11-27), issue-bound beside a memory system at 37-40 %
// of its peak; 32-bit positions gave 0.977x fp32 and 15-20 % more throughput (2026-11-27c).
static __device__ __forceinline__ void csr_bounds(index_t rows, const int* __restrict__ row_ptr, index_t g,
                                                  unsigned int (&begin)[CSR_ROWS_PER_WARP],
                                                  unsigned int (&end)[CSR_ROWS_PER_WARP]) {
#pragma unroll
    for (unsigned int r = 0; r < CSR_ROWS_PER_WARP; ++r) {
        const index_t row = g * CSR_ROWS_PER_WARP + r;
        begin[r] = row < rows ? (unsigned int)row_ptr[row] : 0u;
        end[r] = row < rows ? (unsigned int)row_ptr[row + 1] : 0u;
    }
}

// The bounds of a row group as this thread's four chains see them (CSR_SPLIT_LANES): with 0,
// csr_bounds (chain r: row r, from its first entry); with 1, chain 2 j + k is lane q + 16 k of
// row 2 h + j of the group (h: this thread's half-warp), so it starts 16 k entries into the row
// (clamped to the row's end: a row shorter than that gives the chain nothing), and the thread
// loads two rows' bounds, not four.
static __device__ __forceinline__ void csr_chain_bounds(index_t rows, const int* __restrict__ row_ptr, index_t g,
                                                        unsigned int (&begin)[CSR_ROWS_PER_WARP],
                                                        unsigned int (&end)[CSR_ROWS_PER_WARP]) {
    if constexpr (CSR_SPLIT_LANES) {
        const index_t half = (threadIdx.x & 31u) >> 4;
#pragma unroll
        for (unsigned int j = 0; j < 2; ++j) {
            const index_t row = g * CSR_ROWS_PER_WARP + 2 * half + j;
            const unsigned int b = row < rows ? (unsigned int)row_ptr[row] : 0u;
            const unsigned int e = row < rows ? (unsigned int)row_ptr[row + 1] : 0u;
            begin[2 * j] = b;
            end[2 * j] = e;
            begin[2 * j + 1] = e - b > 16u ? b + 16u : e;
            end[2 * j + 1] = e;
        }
    } else {
        csr_bounds(rows, row_ptr, g, begin, end);
    }
}

// The entries at `step` of a row group's rows: column index and stored value (unconverted),
// column 0 and value 0 where a row is shorter.
template <class S>
static __device__ __forceinline__ void csr_entries(const int* __restrict__ col_idx, const S* __restrict__ values,
                                                   const unsigned int (&begin)[CSR_ROWS_PER_WARP],
                                                   const unsigned int (&end)[CSR_ROWS_PER_WARP],
                                                   unsigned int step, int (&c)[CSR_ROWS_PER_WARP],
                                                   S (&v)[CSR_ROWS_PER_WARP]) {
#pragma unroll
    for (unsigned int r = 0; r < CSR_ROWS_PER_WARP; ++r) {
        const unsigned int k = begin[r] + step;
        c[r] = 0;
        v[r] = S(0);
        if (k < end[r]) {
            c[r] = col_idx[k];
            v[r] = values[k];
        }
    }
}

// Chains the entries at `step` of a row group's rows (loaded by csr_entries) into acc: x
// gathered for the four rows together, then the four FMAs.
template <class St, class A>
static __device__ __forceinline__ void csr_chain_step(const typename St::S* __restrict__ x,
                                                      const unsigned int (&begin)[CSR_ROWS_PER_WARP],
                                                      const unsigned int (&end)[CSR_ROWS_PER_WARP],
                                                      unsigned int step, const int (&c)[CSR_ROWS_PER_WARP],
                                                      const typename St::S (&v)[CSR_ROWS_PER_WARP],
                                                      typename A::T (&acc)[CSR_ROWS_PER_WARP]) {
    typedef typename A::T T;
    T xv[CSR_ROWS_PER_WARP];
#pragma unroll
    for (unsigned int r = 0; r < CSR_ROWS_PER_WARP; ++r) {
        xv[r] = 0;
        if (begin[r] + step < end[r]) {
            xv[r] = St::template read<A>(x, (index_t)c[r]);
        }
    }
#pragma unroll
    for (unsigned int r = 0; r < CSR_ROWS_PER_WARP; ++r) {
        if (begin[r] + step < end[r]) {
            acc[r] = A::fma(St::template read<A>(&v[r], 0), xv[r], acc[r]);
        }
    }
}

template <class St, class A>
static __device__ __forceinline__ void spmv_csr(index_t rows, const int* __restrict__ row_ptr,
                                                const int* __restrict__ col_idx,
                                                const typename St::S* __restrict__ values,
                                                const typename St::S* __restrict__ x, typename A::T alpha,
                                                typename A::T beta, const typename St::S* __restrict__ y0,
                                                typename A::T* __restrict__ y_arith,
                                                typename St::S* __restrict__ y) {
    typedef typename A::T T;
    typedef typename St::S S;
    const unsigned int lane = threadIdx.x & 31u;
    // Each warp reduces a group of CSR_ROWS_PER_WARP consecutive rows at a time, every row in
    // the one-row order: lane l chains the row's entries l, l + 32, ... in increasing order,
    // then warp_tree (warp_tree4's four trees). With a warp per row, a 27-point stencil row
    // gave each lane one entry and the warp three dependent loads in flight, 39 % of the copy
    // bandwidth on the H100 (2026-11-26); with a warp per group of four rows, the rows' loads
    // issued together, 56 % on the H200 (2026-11-27c), still a chain of three dependent loads
    // (row pointers, then indices and values, then x) per group and per warp. Now a warp takes
    // groups g, g + W, ... in a pipeline D = CSR_PIPELINE_DEPTH deep: while it gathers x for
    // group g, the indices and values of groups g + W, ..., g + D W (whose bounds it loaded one
    // group earlier) and the bounds of group g + (D + 1) W are in flight. Rows longer than 32
    // entries take their further steps the plain way. Same operations in the same order per
    // row, so the same results.
    constexpr unsigned int D = CSR_PIPELINE_DEPTH;
    const index_t groups = (rows + CSR_ROWS_PER_WARP - 1) / CSR_ROWS_PER_WARP;
    const index_t stride = (index_t)gridDim.x * (blockDim.x >> 5);
    index_t g = (index_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (g >= groups) {
        return;  // whole warps leave together
    }
    // Slot d: group g + d W. Bounds for slots 0 .. D, first entries for slots 0 .. D - 1; all
    // indices below are compile-time constants (unrolled), so the slots stay in registers.
    unsigned int begin[D + 1][CSR_ROWS_PER_WARP], end[D + 1][CSR_ROWS_PER_WARP];
    int c[D][CSR_ROWS_PER_WARP];
    S v[D][CSR_ROWS_PER_WARP];
    // A group past the last has empty bounds (csr_bounds), so its loads are predicated off.
    // The thread's first step in each chain: its lane, or with split lanes its lane in the
    // half-warp (csr_chain_bounds puts the other 16 in the chains' starts).
    const unsigned int first_step = CSR_SPLIT_LANES ? (lane & 15u) : lane;
#pragma unroll
    for (unsigned int d = 0; d <= D; ++d) {
        csr_chain_bounds(rows, row_ptr, g + d * stride, begin[d], end[d]);
    }
#pragma unroll
    for (unsigned int d = 0; d < D; ++d) {
        csr_entries(col_idx, values, begin[d], end[d], first_step, c[d], v[d]);
    }
    for (;;) {
        const index_t g_next = g + stride;
        // In flight while this group's x is gathered: the bounds of group g + (D + 1) W, the
        // first entries of group g + D W.
        unsigned int begin_after[CSR_ROWS_PER_WARP], end_after[CSR_ROWS_PER_WARP];
        csr_chain_bounds(rows, row_ptr, g + (D + 1) * stride, begin_after, end_after);
        int c_last[CSR_ROWS_PER_WARP];
        S v_last[CSR_ROWS_PER_WARP];
        csr_entries(col_idx, values, begin[D], end[D], first_step, c_last, v_last);
        T acc[CSR_ROWS_PER_WARP];
        unsigned int longest = 0;
#pragma unroll
        for (unsigned int r = 0; r < CSR_ROWS_PER_WARP; ++r) {
            acc[r] = 0;
            longest = end[0][r] - begin[0][r] > longest ? end[0][r] - begin[0][r] : longest;
        }
        csr_chain_step<St, A>(x, begin[0], end[0], first_step, c[0], v[0], acc);
        for (unsigned int step = first_step + 32; step < longest; step += 32) {
            int c_more[CSR_ROWS_PER_WARP];
            S v_more[CSR_ROWS_PER_WARP];
            csr_entries(col_idx, values, begin[0], end[0], step, c_more, v_more);
            csr_chain_step<St, A>(x, begin[0], end[0], step, c_more, v_more, acc);
        }
        // Every lane is here (no barrier above): the full-mask trees, row r's sum in lane 8 r.
        const T s = CSR_SPLIT_LANES ? warp_tree4_split<A>(acc) : warp_tree4<A>(acc);
        const index_t row = g * CSR_ROWS_PER_WARP + (lane >> 3);
        if ((lane & 7u) == 0u && row < rows) {
            finish_store<St, A>(s, alpha, beta, y0, row, y_arith, y);
        }
        if (g_next >= groups) {
            return;
        }
        g = g_next;
        // Every slot one group on: slot d takes slot d + 1's state, the last ones what was
        // loaded above.
#pragma unroll
        for (unsigned int r = 0; r < CSR_ROWS_PER_WARP; ++r) {
#pragma unroll
            for (unsigned int d = 0; d < D; ++d) {
                begin[d][r] = begin[d + 1][r];
                end[d][r] = end[d + 1][r];
            }
            begin[D][r] = begin_after[r];
            end[D][r] = end_after[r];
#pragma unroll
            for (unsigned int d = 0; d + 1 < D; ++d) {
                c[d][r] = c[d + 1][r];
                v[d][r] = v[d + 1][r];
            }
            c[D - 1][r] = c_last[r];
            v[D - 1][r] = v_last[r];
        }
    }
}

// ------------------------------------------------------------ SPMV CSR-stream

// A second CSR kernel, with another order: a thread per row, one FMA chain over the row's
// entries in increasing position (the ELL kernel's order, so the same CPU model and bound:
// spmv.rs, SparseFormat::CsrStream), the entries passed through shared memory in chunks that a
// block loads together ("CSR-Stream", Greathouse and Daga, "Efficient Sparse Matrix-Vector
// Multiplication on GPUs using the CSR Storage Format", SC 2014, Section 4). Why (written
// 2026-11-28, no device): the warp-per-row-group kernel above is latency-bound at 74 % (H200)
// and 86 % (H100) of copy for acc<f64,f32> at 96^3, and our fp32 CSR kernel stops at the same
// place, while the ELL kernel, whose order this is, reaches 92 % and 96 % on the same matrix
// (docs/gpu/2026-11-28-h100-h200.md). Nsight Compute put the CSR kernel at about 2.2 warp
// instructions per nonzero and three dependent loads per row group (row pointers, then indices
// and values, then x); here a block of CSR_STREAM_THREADS rows loads its two bounds, then each
// thread CSR_STREAM_BATCH entries of a chunk, all independent (coalesced indices and values,
// then their x), stores them to shared memory and, after a barrier, chains its own row's
// entries of the chunk: about 0.7 warp instructions per nonzero by the SASS (the fill about 16
// per thread and entry, 32 entries to a warp instruction; the chain about 6 per entry, 32 rows
// at a time), one dependent load before the batch. Rows of any length: a row runs through as
// many chunks as it spans, its chain carried in the thread (a long row keeps one thread busy
// while the block's others wait: the warp kernel above suits long rows better). Shared memory
// holds the entries as stored (values and gathered x in the storage format, widened exactly at
// the FMA): 2 x 256 x CSR_STREAM_BATCH values per block, 32 KiB for binary64 storage at a batch
// of 8.
#define CSR_STREAM_THREADS 256
// Entries of a chunk each thread loads (a chunk holds CSR_STREAM_THREADS times as many).
#ifndef CSR_STREAM_BATCH
#define CSR_STREAM_BATCH 8
#endif
// Blocks of 256 threads per SM the launch bounds ask for: 5 (40 warps per SM, as the ELL kernel
// has), at most 48 registers. ptxas (NVRTC 13, 2026-11-28; docs/accessor.md, "SpMV CSR-stream")
// keeps each batch's 24 loads ahead of its shared stores and spills nothing, on sm_80 and sm_90,
// for every pair at 4 and 5; at 4 it takes 48 / 62 / 56 registers (fp32, acc<f64,f32>, fp64),
// so acc<f64,f32> would hold only 4 blocks; at 6 and 7 the 4-byte pairs spill 8 bytes on sm_90.
// Shared memory allows 7 blocks of the binary64 pair and 8 of the others (228 KiB per SM).
#ifndef CSR_STREAM_MIN_BLOCKS
#define CSR_STREAM_MIN_BLOCKS 5
#endif

template <class St, class A>
static __device__ __forceinline__ void spmv_csr_stream(index_t rows, const int* __restrict__ row_ptr,
                                                       const int* __restrict__ col_idx,
                                                       const typename St::S* __restrict__ values,
                                                       const typename St::S* __restrict__ x, typename A::T alpha,
                                                       typename A::T beta, const typename St::S* __restrict__ y0,
                                                       typename A::T* __restrict__ y_arith,
                                                       typename St::S* __restrict__ y) {
    typedef typename A::T T;
    typedef typename St::S S;
    constexpr unsigned int B = CSR_STREAM_THREADS;
    constexpr unsigned int CHUNK = B * CSR_STREAM_BATCH;
    __shared__ S values_s[CHUNK];
    __shared__ S x_s[CHUNK];
    // The block's rows [first, last): the grid is ceil(rows / B) blocks, so first < rows, and
    // every thread of the block runs the same chunks (the barriers below are block-uniform).
    const index_t first = (index_t)blockIdx.x * B;
    const index_t last = first + B < rows ? first + B : rows;
    const index_t row = first + threadIdx.x;
    // Positions in 32 bits, as spmv_csr's (row_ptr holds int; a position plus CHUNK < 2^32).
    const unsigned int block_begin = (unsigned int)row_ptr[first];
    const unsigned int block_end = (unsigned int)row_ptr[last];
    const unsigned int begin = row < rows ? (unsigned int)row_ptr[row] : 0u;
    const unsigned int end = row < rows ? (unsigned int)row_ptr[row + 1] : 0u;
    T acc = 0;
    for (unsigned int chunk = block_begin; chunk < block_end; chunk += CHUNK) {
        // The chunk's entries chunk + threadIdx.x + u B: indices and values first, then their
        // x, all issued before any is stored. Past the block's last entry, index 0 and value 0
        // (x[0] exists: the block has an entry, so A has a column), stored but never read.
        int c[CSR_STREAM_BATCH];
        S v[CSR_STREAM_BATCH];
#pragma unroll
        for (unsigned int u = 0; u < CSR_STREAM_BATCH; ++u) {
            const unsigned int k = chunk + threadIdx.x + u * B;
            c[u] = 0;
            v[u] = S(0);
            if (k < block_end) {
                c[u] = col_idx[k];
                v[u] = values[k];
            }
        }
        S xv[CSR_STREAM_BATCH];
#pragma unroll
        for (unsigned int u = 0; u < CSR_STREAM_BATCH; ++u) {
            xv[u] = x[c[u]];
        }
#pragma unroll
        for (unsigned int u = 0; u < CSR_STREAM_BATCH; ++u) {
            values_s[threadIdx.x + u * B] = v[u];
            x_s[threadIdx.x + u * B] = xv[u];
        }
        __syncthreads();
        // This row's entries in the chunk, in increasing position: the chain goes on where the
        // previous chunk left it.
        const unsigned int from = begin > chunk ? begin : chunk;
        const unsigned int to = end < chunk + CHUNK ? end : chunk + CHUNK;
        for (unsigned int k = from; k < to; ++k) {
            acc = A::fma(St::template read<A>(values_s, k - chunk), St::template read<A>(x_s, k - chunk), acc);
        }
        __syncthreads();  // the next chunk overwrites what the slower threads may still read
    }
    if (row < rows) {
        finish_store<St, A>(acc, alpha, beta, y0, row, y_arith, y);
    }
}

// Blocks of 256 threads per SM the ELL kernel's launch bounds ask for (spmv_ell says why).
#ifndef ELL_MIN_BLOCKS
#define ELL_MIN_BLOCKS 5
#endif

template <class St, class A>
static __device__ __forceinline__ void spmv_ell(index_t rows, index_t width, const int* __restrict__ col_idx,
                                                const typename St::S* __restrict__ values,
                                                const typename St::S* __restrict__ x, typename A::T alpha,
                                                typename A::T beta, const typename St::S* __restrict__ y0,
                                                typename A::T* __restrict__ y_arith,
                                                typename St::S* __restrict__ y) {
    typedef typename A::T T;
    const index_t row = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) {
        return;
    }
    T acc = 0;
    // Eight slots' loads (column indices, then values and x) are issued before their FMAs,
    // which stay one chain in slot order, padding (c < 0) skipped: the operations of the plain
    // loop, in its order, so the same result (an FMA with zeros instead of a skip would turn
    // an acc of -0 into +0). A padding slot still loads its value (stored, in range) and x[0]
    // (width > 0 means some row has an entry, so x is not empty), so that no load waits for a
    // branch on its column index: with the loads conditional, ptxas put
    // FMAs between them (SASS, 2026-11-27). The slots after the last multiple of 8 are one
    // more batch, not a plain loop: that loop waited on two dependent loads per slot in turn,
    // as many (6) for a 27-point row's last 3 slots as for its first 24. ELL_MIN_BLOCKS above
    // (SASS, 2026-11-27): with the launch bounds and these loads, acc<f64,f32> issues a batch's
    // 24 loads before its 8 FMAs in 48 registers (five blocks of 256 threads per SM, as the
    // kernel had before); without them ptxas kept fewer registers and interleaved them. Before
    // (H100, 2026-11-27): 85.6 % of copy, 0.973x our fp32 kernel at 96^3; H200 77.9 %, 0.974x;
    // after: H200 93.6 %, 1.000x (2026-11-27c).
    index_t k = 0;
    for (; k + 8 <= width; k += 8) {
        int c[8];
        T v[8];
        T xv[8];
#pragma unroll
        for (unsigned int u = 0; u < 8; ++u) {
            c[u] = col_idx[(k + u) * rows + row];
        }
#pragma unroll
        for (unsigned int u = 0; u < 8; ++u) {
            v[u] = St::template read<A>(values, (k + u) * rows + row);
            xv[u] = St::template read<A>(x, (index_t)(c[u] >= 0 ? c[u] : 0));
        }
#pragma unroll
        for (unsigned int u = 0; u < 8; ++u) {
            if (c[u] >= 0) {
                acc = A::fma(v[u], xv[u], acc);
            }
        }
    }
    if (k < width) {
        // At most 7 slots left, as one more batch (slots beyond the width count as padding).
        int c[7];
        T v[7];
        T xv[7];
#pragma unroll
        for (unsigned int u = 0; u < 7; ++u) {
            c[u] = k + u < width ? col_idx[(k + u) * rows + row] : -1;
        }
#pragma unroll
        for (unsigned int u = 0; u < 7; ++u) {
            // Slots beyond the width have no value to load (their index is past the array).
            v[u] = k + u < width ? St::template read<A>(values, (k + u) * rows + row) : (T)0;
            xv[u] = St::template read<A>(x, (index_t)(c[u] >= 0 ? c[u] : 0));
        }
#pragma unroll
        for (unsigned int u = 0; u < 7; ++u) {
            if (c[u] >= 0) {
                acc = A::fma(v[u], xv[u], acc);
            }
        }
    }
    finish_store<St, A>(acc, alpha, beta, y0, row, y_arith, y);
}

// ----------------------------------------------------------------------- TRSV

static __device__ __forceinline__ index_t trsv_row(index_t p, index_t n, int upper) {
    return upper ? n - 1 - p : p;
}

// One warp (32 threads) per diagonal block k = blockIdx.x; inv holds 32 x 32 entries
// per block (row-major, arithmetic format).
template <class St, class A>
static __device__ __forceinline__ void trsv_invert(index_t n, const typename St::S* __restrict__ a,
                                                   int upper, int unit, typename A::T* __restrict__ inv) {
    typedef typename A::T T;
    const index_t s = (index_t)blockIdx.x * 32;
    const index_t m = n - s < 32 ? n - s : 32;
    const index_t c = threadIdx.x;
    T* y = inv + (index_t)blockIdx.x * 32 * 32;
    if (c >= m) {
        return;
    }
#define L(p, q) St::template read<A>(a, trsv_row((p), n, upper) * n + trsv_row((q), n, upper))
    y[c * 32 + c] = unit ? (T)1 : A::div((T)1, L(s + c, s + c));
    for (index_t r = c + 1; r < m; ++r) {
        T acc = 0;
        for (index_t p = c; p < r; ++p) {
            acc = A::fma(L(s + r, s + p), y[p * 32 + c], acc);
        }
        y[r * 32 + c] = unit ? -acc : A::div(-acc, L(s + r, s + r));
    }
}

// How many accumulators the product x_r = sum_{c <= r} y_rc v_c of a block row is split over
// (1 to 8): accumulator w chains the columns c = w, w + W, ... <= r (W = TRSV_CHAIN_WAYS) as fmas
// in increasing c from +0, then the accumulators are summed as a tree, part[w] + part[w + s] for
// s = 1, 2, 4 (w a multiple of 2 s, w + s < W), part[0] the result. This product runs on the
// pipelined solve's critical path, from one block row's publication to the next: with one
// chain (W = 1, the order measured on the H100 and H200 until 2026-11-28) its 32 dependent fmas
// cost 32 fma latencies, about 186 cycles more per block row in binary64 arithmetic than in
// binary32 (docs/gpu/2026-11-27d-h200-h100.md), which kept accessor<f64,f32> at 0.95 of fp32
// (docs/accessor.md, "Not done"). With W = 4 the path is 8 fmas and 2 adds. It changes the order
// and so the values: the CPU model (src/kernels/accessor/trsv.rs) takes W as a parameter and its
// bound the depth ceil(32 / W) + ceil(log2 W) instead of 32 (bounds::accessor::
// blocked_inverse_residual, step 3). The one tuning knob that changes an order: the device tests
// compare each setting with the CPU model at the same W. Written 2026-11-28 without a device:
// what it saves is a prediction until a device measures it.
#ifndef TRSV_CHAIN_WAYS
#define TRSV_CHAIN_WAYS 4
#endif

// y_row: row r of the block's inverse (columns 0 .. r read), in shared memory or, with
// TRSV_Y_REGISTERS, in registers (any type indexed as y_row[c]); v: the block's updated
// right-hand side. The chain unrolled over the block's 32 columns (c <= row predicated), so that the loads
// of y and v are free to run ahead of the fmas they feed.
template <class A, class Row>
static __device__ __forceinline__ typename A::T trsv_apply_inverse(unsigned int row,
                                                                   const Row& y_row,
                                                                   const typename A::T* v) {
    typedef typename A::T T;
    T part[TRSV_CHAIN_WAYS];
#pragma unroll
    for (unsigned int w = 0; w < TRSV_CHAIN_WAYS; ++w) {
        part[w] = 0;
    }
#pragma unroll
    for (unsigned int c = 0; c < 32; ++c) {
        if (c <= row) {
            part[c % TRSV_CHAIN_WAYS] = A::fma(y_row[c], v[c], part[c % TRSV_CHAIN_WAYS]);
        }
    }
#pragma unroll
    for (unsigned int s = 1; s < TRSV_CHAIN_WAYS; s *= 2) {
#pragma unroll
        for (unsigned int w = 0; w + s < TRSV_CHAIN_WAYS; w += 2 * s) {
            part[w] = A::add(part[w], part[w + s]);
        }
    }
    return part[0];
}

// One block of 256 threads (8 warps). x is scratch (n entries, arithmetic format).
template <class St, class A>
static __device__ __forceinline__ void trsv_solve(index_t n, const typename St::S* __restrict__ a,
                                                  const typename St::S* __restrict__ b, int upper,
                                                  const typename A::T* __restrict__ inv,
                                                  typename A::T* __restrict__ x,
                                                  typename St::S* __restrict__ x_stored) {
    typedef typename A::T T;
    __shared__ __align__(8) unsigned char v_raw[32 * sizeof(double)];
    T* v = reinterpret_cast<T*>(v_raw);
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    const index_t blocks = (n + 31) / 32;
    for (index_t k = 0; k < blocks; ++k) {
        const index_t s = k * 32;
        const index_t m = n - s < 32 ? n - s : 32;
        for (index_t r = warp; r < m; r += warps) {
            const index_t p = s + r;
            const T bp = St::template read<A>(b, trsv_row(p, n, upper));
            T vr = bp;
            if (k > 0) {
                T acc = 0;
                for (index_t q = lane; q < s; q += 32) {
                    acc = A::fma(L(p, q), x[q], acc);
                }
                vr = A::sub(bp, warp_tree<A>(acc));
            }
            if (lane == 0) {
                v[r] = vr;
            }
        }
        __syncthreads();
        if (threadIdx.x < m) {
            const unsigned int r = threadIdx.x;
            x[s + r] = trsv_apply_inverse<A>(r, inv + k * 32 * 32 + r * 32, v);
        }
        __syncthreads();
    }
    for (index_t p = threadIdx.x; p < n; p += blockDim.x) {
        x_stored[trsv_row(p, n, upper)] = St::write(x[p]);
    }
}

// The pipelined solve (Hogg, SIAM J. Sci. Comput. 35(3), 2013, the schedule the accessor paper's
// TRSV follows, Grützmacher et al. 2021, §4.3): a block of TRSV_WARPS (8) warps per block row,
// all of them at once, where trsv_solve runs the block rows one after another on one SM (5 GB/s
// at n = 8192 on the H100, 2026-11-26). Block row k needs x of the block rows before it;
// `sync[1]` counts the block rows solved and published, and the block waits on it only for the
// chunk of x it is about to read and not yet known solved, so the products with the chunks
// already solved overlap the solve of the next one. The arithmetic is trsv_solve's, value for value in the same order:
// row p's lane l chains l_pq x_q over q = l, l + 32, ... < 32 k, i.e. chunk j = 0 .. k-1 in
// turn; warp_tree4's trees are warp_tree's bit for bit; v, then x_r = sum_{c <= r} y_rc v_c by
// trsv_apply_inverse. Only when each value is computed depends on the schedule.
//
// No deadlock whatever the residency: block rows are taken in ticket order (`sync[0]`, an
// atomic counter), not blockIdx order, so a block waiting for block row j < k waits for a
// block that took its ticket earlier and is running or done, and that block waits only for
// tickets before its own. `sync` is zeroed before each launch.
#define TRSV_ROWS_PER_WARP 4  // 32 rows / TRSV_WARPS (8) warps
// Elements from one row of the block's inverse to the next in shared memory: 33, not 32. In
// the chain x_r = sum_c y_rc v_c, lane r of warp 0 reads y_rc for the same c as every other
// lane: 32 apart, all 32 lanes hit one bank, and each of the chain's 32 loads of y was
// replayed 32 times, on the critical path from one block row's publication to the next
// (2026-11-27, a session without a GPU; the listing shows the 32 loads between the barrier
// and the FMAs they feed). With rows 33 apart, lane r's word of column c lies in bank
// (r + c) mod 32 for binary32; for binary64 the 8-byte words of a half-warp (each half-warp is
// one access) fall in distinct bank pairs. The fill, a row per warp, stays conflict-free too.
// The values and their order are unchanged; every pipelined solve 10-18 % faster (H200,
// 2026-11-27c).
#define TRSV_Y_STRIDE 33
// Whether a block loads each chunk of x it needs once, into shared memory (1), or each of its
// warps loads it (0, the kernel measured on the H200 on 2026-11-27). At the publication of a
// block row, every block still below it (up to n/32 - 1 of them) reads that chunk: with a load
// per warp, 8 requests per block for the same 128 (binary32) or 256 (binary64) bytes in one L2
// slice, queued in front of the one request on the critical path, the next block row's. That
// would fit what Nsight Compute showed at n = 16384 (H200, 2026-11-27c: acc<f64,f32>'s warps
// stalled on memory 46 % of their cycles, fp32's on the barrier; acc<f64,f32> 1.17x fp32's
// time, binary64's x twice the sectors), but it is an explanation, not a measurement: this
// staging has not run on a device. Staged, a block makes one request per chunk, and in catching
// up (chunks already solved) one per TRSV_X_CHUNKS chunks. Same values, same order.
#ifndef TRSV_STAGE_X
#define TRSV_STAGE_X 1
#endif
// Chunks a block stages at once: one per thread (TRSV_WARPS warps of 32).
#define TRSV_X_CHUNKS 8
// Whether warp 0 reads its rows of the block's inverse from shared memory into registers before
// the trees (1) or in the product after the barrier (0, the kernels measured until 2026-11-28).
// The product x_r = sum_{c <= r} y_rc v_c lies on the critical path from one block row's
// publication to the next, and with four chains (TRSV_CHAIN_WAYS) its arithmetic is 8 fmas and
// 2 adds; what is left of it is shared-memory bandwidth. Each lane reads its row's 32 words,
// 8 KiB per warp in binary64 and 4 KiB in binary32, at 128 bytes per cycle per SM (H100 and
// H200): at least 64 and 32 cycles, twice as many for binary64 arithmetic as for binary32, on
// every block row's path (ptxas, NVRTC 13.5, sm_90: the 32 row loads and the 32 broadcast
// loads of v all after the barrier). In registers, only v's 32 broadcast loads stay behind the
// barrier, and the row loads overlap the trees (tests/accessor_sass.rs counts the loads behind
// the barrier: 64 by default, 32 with this). The cost: 32 more live registers in binary32, 64 in
// binary64, for the whole block (ptxas, sm_90: trsv_rows acc<f64,f32> and fp64 80 registers
// instead of 58 and 60, 3 blocks of 256 per SM instead of 4, fp32 45 instead of 48; sm_80: 91
// instead of 64, 2 blocks instead of 4), no spills at any setting of the TRSV knobs. Block row 0
// takes one barrier more. Same values, same order (trsv_apply_inverse reads the same words).
// Written 2026-11-28 without a device: whether the occupancy it costs is worth the cycles it
// saves is for a device to say.
#ifndef TRSV_Y_REGISTERS
#define TRSV_Y_REGISTERS 0
#endif

// Thread 0 of the block waits until `solved` (block rows published) reaches `count` and returns
// the count it saw. The producer writes its x, fences, and after a barrier increments; the fence
// here orders what the block reads after the barrier that follows (the pattern of the CUDA
// threadFenceReduction sample: one thread observes, the block reads after a __syncthreads).
// One poller per block: a warp each would put thousands of loads of the one counter in L2's
// queue at once, in front of the producer's increment.
static __device__ __forceinline__ unsigned int trsv_wait_solved(const unsigned int* solved,
                                                                unsigned int count) {
    unsigned int seen;
    do {
        seen = *reinterpret_cast<const volatile unsigned int*>(solved);
    } while (seen < count);
    __threadfence();
    return seen;
}

template <class St, class A>
static __device__ __forceinline__ void trsv_rows(index_t n, const typename St::S* __restrict__ a,
                                                 const typename St::S* __restrict__ b, int upper,
                                                 const typename A::T* __restrict__ inv,
                                                 typename A::T* x,
                                                 typename St::S* __restrict__ x_stored,
                                                 unsigned int* sync) {
    // x and sync are written and read by other blocks during the launch: no __restrict__.
    typedef typename A::T T;
    __shared__ unsigned int ticket;
    __shared__ unsigned int seen;
    __shared__ __align__(8) unsigned char v_raw[32 * sizeof(double)];
    __shared__ __align__(8) unsigned char y_raw[32 * TRSV_Y_STRIDE * sizeof(double)];
    __shared__ __align__(8) unsigned char xs_raw[TRSV_X_CHUNKS * 32 * sizeof(double)];
    T* v = reinterpret_cast<T*>(v_raw);
    T* y = reinterpret_cast<T*>(y_raw);
    T* xs = reinterpret_cast<T*>(xs_raw);
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
        ticket = atomicAdd(&sync[0], 1u);
    }
    __syncthreads();
    const index_t k = ticket;
    const index_t s = k * 32;
    const index_t m = n - s < 32 ? n - s : 32;
    // The block's inverse, into shared memory before any wait (off the critical path), its rows
    // TRSV_Y_STRIDE apart.
    for (unsigned int e = threadIdx.x; e < 32 * 32; e += blockDim.x) {
        y[(e >> 5) * TRSV_Y_STRIDE + (e & 31u)] = inv[k * 32 * 32 + e];
    }
    // Rows first + 0 .. 3 of the block row are this warp's; lanes read chunk j's columns.
    const index_t first = (index_t)warp * TRSV_ROWS_PER_WARP;
    T acc[TRSV_ROWS_PER_WARP];
    T l_next[TRSV_ROWS_PER_WARP];
#pragma unroll
    for (unsigned int r = 0; r < TRSV_ROWS_PER_WARP; ++r) {
        acc[r] = 0;
        l_next[r] = 0;
        if (k > 0 && first + r < m) {
            l_next[r] = L(s + first + r, lane);
        }
    }
    // b of the row whose tree this lane will hold (lane 8 r of the warp: row first + r), read
    // before any wait: read after the tree, its load (a first touch, from DRAM) sat on the chain
    // from one block row's publish to the next one's (2026-11-27, H200: 2.8-3.2 us per block
    // row). The same value whenever it is read.
    const index_t tree_row = first + (lane >> 3);
    T bp = 0;
    if ((lane & 7u) == 0u && tree_row < m) {
        bp = St::template read<A>(b, trsv_row(s + tree_row, n, upper));
    }
    // Block rows known to be solved: the same in every thread (read from `seen` between two
    // barriers), so every thread takes the same branches to the barriers below.
    unsigned int ready = 0;
    // TRSV_STAGE_X: chunks [staged, staged_end) of x, loaded once per block into xs.
    index_t staged = 0;
    index_t staged_end = 0;
    for (index_t j = 0; j < k; ++j) {
        // Chunk j + 1's entries are loaded before chunk j is waited for.
        T l[TRSV_ROWS_PER_WARP];
#pragma unroll
        for (unsigned int r = 0; r < TRSV_ROWS_PER_WARP; ++r) {
            l[r] = l_next[r];
            if (j + 1 < k && first + r < m) {
                l_next[r] = L(s + first + r, (j + 1) * 32 + lane);
            }
        }
        T xq;
        if constexpr (TRSV_STAGE_X) {
            if (j >= staged_end) {
                if (j >= ready && threadIdx.x == 0) {
                    seen = trsv_wait_solved(&sync[1], (unsigned int)j + 1u);
                }
                // Every thread is done with the chunks staged before (xs is rewritten below),
                // and sees `seen`.
                __syncthreads();
                ready = seen;
                staged = j;
                staged_end = ready < j + TRSV_X_CHUNKS ? (index_t)ready : j + TRSV_X_CHUNKS;
                // Thread t loads chunk j + t / 32's entry t mod 32, from L2 (another SM wrote
                // it during this launch).
                if (j + (threadIdx.x >> 5) < staged_end) {
                    xs[threadIdx.x] = __ldcg(&x[(j + (threadIdx.x >> 5)) * 32 + lane]);
                }
                // xs is complete, and every thread has read `seen` before thread 0 writes it
                // again.
                __syncthreads();
            }
            xq = xs[(j - staged) * 32 + lane];
        } else {
            if (j >= ready) {
                if (threadIdx.x == 0) {
                    seen = trsv_wait_solved(&sync[1], (unsigned int)j + 1u);
                }
                __syncthreads();
                ready = seen;
                __syncthreads();  // every thread has read `seen` before thread 0 writes it again
            }
            // From L2: another SM wrote it during this launch.
            xq = __ldcg(&x[j * 32 + lane]);
        }
#pragma unroll
        for (unsigned int r = 0; r < TRSV_ROWS_PER_WARP; ++r) {
            if (first + r < m) {
                acc[r] = A::fma(l[r], xq, acc[r]);
            }
        }
    }
    // TRSV_Y_REGISTERS: warp 0's lanes take their rows of the inverse into registers here, before
    // the trees and the barrier. The fill above is visible: whenever k > 0 the loop passed a
    // barrier (its first chunk's, staged or not); block row 0 has no loop and waits at one here
    // (k is the block's, so every thread takes the same branch).
    T y_reg[TRSV_Y_REGISTERS ? 32 : 1];
    if constexpr (TRSV_Y_REGISTERS) {
        if (k == 0) {
            __syncthreads();  // block row 0: its rows filled before they are read
        }
        if (warp == 0) {
#pragma unroll
            for (unsigned int c = 0; c < 32; ++c) {
                y_reg[c] = y[lane * TRSV_Y_STRIDE + c];
            }
        }
    }
    // Every lane is here: the full-mask trees, row first + r's sum in lane 8 r.
    const T tree = warp_tree4<A>(acc);
    if ((lane & 7u) == 0u && tree_row < m) {
        v[tree_row] = k > 0 ? A::sub(bp, tree) : bp;
    }
    __syncthreads();
    if (threadIdx.x < m) {
        const unsigned int row = threadIdx.x;
        // Unrolled (trsv_apply_inverse): the shared-memory loads run ahead of the fmas (the
        // rolled loop of 64-bit indices loaded each pair just before its fma, on the critical
        // path).
        T out;
        if constexpr (TRSV_Y_REGISTERS) {
            out = trsv_apply_inverse<A>(row, y_reg, v);
        } else {
            out = trsv_apply_inverse<A>(row, y + row * TRSV_Y_STRIDE, v);
        }
        x[s + row] = out;
        x_stored[trsv_row(s + row, n, upper)] = St::write(out);
    }
    // Publish block row k: its x written and fenced by every writer before the count moves.
    __threadfence();
    __syncthreads();
    // Thread 0, written as warp 0's lane 0: with `threadIdx.x == 0` ptxas (NVRTC 13.5, sm_90)
    // kept the predicate of the first such test live through the whole solve and, for
    // accessor_trsv_rows_f16_f32 with four chains, spilled it to the stack (8 bytes,
    // tests/nvrtc_compile.rs); this form recomputes it. Same thread.
    if (warp == 0 && lane == 0) {
        atomicAdd(&sync[1], 1u);
    }
#undef L
}

// ------------------------------------------------------------------- ROOFLINE

// The experimental roofline (Grützmacher et al. 2021, §3, mixbench-like; the CPU version is
// src/kernels/accessor/roofline.rs: accessor_kernel): y_i = w(f^k(r(x_i))) with
// f(v) = fl(fl(v a) + b), a multiplication and an addition (2k FLOPs per value, the
// conversions not counted), each rounded separately as on the CPU, so the outputs agree bit
// for bit. A grid-stride loop, one value per thread and step: the k-step chain of one value
// is sequential, and the many threads in flight give the throughput.
template <class St, class A>
static __device__ __forceinline__ void roofline(const typename St::S* __restrict__ x,
                                                typename St::S* __restrict__ y, index_t n,
                                                unsigned int k, typename A::T a, typename A::T b) {
    typedef typename A::T T;
    const index_t stride = (index_t)blockDim.x * (index_t)gridDim.x;
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        T v = St::template read<A>(x, i);
        for (unsigned int r = 0; r < k; ++r) {
            v = A::add(A::mul(v, a), b);
        }
        y[i] = St::write(v);
    }
}

// ------------------------------------------------------------ tuning knobs

// The #defines above that each stand in `#ifndef`: DOT_BATCH, DOT_MIN_BLOCKS, GEMV_T_MIN_BLOCKS,
// GEMV_T_STAGE_X, GEMV_T_STAGED_BATCH, CSR_GROUPS_PER_WARP, CSR_MIN_BLOCKS, CSR_MIN_BLOCKS_F64,
// CSR_SPLIT_LANES, CSR_PIPELINE_DEPTH, CSR_STREAM_BATCH, CSR_STREAM_MIN_BLOCKS, ELL_MIN_BLOCKS,
// TRSV_STAGE_X, TRSV_CHAIN_WAYS and TRSV_Y_REGISTERS. All but TRSV_CHAIN_WAYS change how loads
// are batched, staged and scheduled, which thread holds which of a sum's lanes, and how many
// registers ptxas may use, never which operations run or in what order, so
// every setting of them gives the same bits (the CPU models' orders); TRSV_CHAIN_WAYS picks the
// order of the TRSV's product with the inverse, and the CPU model takes it as a parameter. The launcher compiles this file with any of them set
// (`AccessorTuning`, src/kernels/accessor/gpu/tuning.rs, as NVRTC -D options), so that one
// device call can compare settings from one binary; the ranges below are the ones it accepts
// (blocks per SM: at most 2048 threads per SM on sm_80 and sm_90).
static_assert(DOT_BATCH >= 2 && DOT_BATCH <= 16, "DOT_BATCH: 2 to 16 terms per batch (the last, partial batch holds DOT_BATCH - 1)");
static_assert(DOT_MIN_BLOCKS >= 1 && DOT_MIN_BLOCKS <= 8, "DOT_MIN_BLOCKS: 1 to 8 blocks of 256");
static_assert(GEMV_T_MIN_BLOCKS >= 1 && GEMV_T_MIN_BLOCKS <= 2, "GEMV_T_MIN_BLOCKS: 1 or 2 blocks of 1024");
static_assert(GEMV_T_STAGE_X >= 0 && GEMV_T_STAGE_X <= 1, "GEMV_T_STAGE_X: 0 or 1");
static_assert(GEMV_T_STAGED_BATCH >= 1 && GEMV_T_STAGED_BATCH <= 32, "GEMV_T_STAGED_BATCH: 1 to 32 rows");
static_assert(CSR_GROUPS_PER_WARP >= 1 && CSR_GROUPS_PER_WARP <= 1024, "CSR_GROUPS_PER_WARP: 1 to 1024");
static_assert(CSR_MIN_BLOCKS >= 1 && CSR_MIN_BLOCKS <= 8, "CSR_MIN_BLOCKS: 1 to 8 blocks of 256");
static_assert(CSR_MIN_BLOCKS_F64 >= 1 && CSR_MIN_BLOCKS_F64 <= 8, "CSR_MIN_BLOCKS_F64: 1 to 8 blocks of 256");
static_assert(CSR_SPLIT_LANES >= 0 && CSR_SPLIT_LANES <= 1, "CSR_SPLIT_LANES: 0 or 1");
static_assert(CSR_PIPELINE_DEPTH >= 1 && CSR_PIPELINE_DEPTH <= 3, "CSR_PIPELINE_DEPTH: 1 to 3 groups");
static_assert(CSR_STREAM_BATCH >= 1 && CSR_STREAM_BATCH <= 8, "CSR_STREAM_BATCH: 1 to 8 entries per thread (at most 32 KiB of shared memory)");
static_assert(CSR_STREAM_MIN_BLOCKS >= 1 && CSR_STREAM_MIN_BLOCKS <= 8, "CSR_STREAM_MIN_BLOCKS: 1 to 8 blocks of 256");
static_assert(ELL_MIN_BLOCKS >= 1 && ELL_MIN_BLOCKS <= 8, "ELL_MIN_BLOCKS: 1 to 8 blocks of 256");
static_assert(TRSV_STAGE_X >= 0 && TRSV_STAGE_X <= 1, "TRSV_STAGE_X: 0 or 1");
static_assert(TRSV_CHAIN_WAYS >= 1 && TRSV_CHAIN_WAYS <= 8, "TRSV_CHAIN_WAYS: 1 to 8 accumulators");
static_assert(TRSV_Y_REGISTERS >= 0 && TRSV_Y_REGISTERS <= 1, "TRSV_Y_REGISTERS: 0 or 1");

// ------------------------------------------------------------ instantiations

#define ACCESSOR_KERNELS(SN, St, AN, A)                                                                   \
    extern "C" __global__ void __launch_bounds__(256, DOT_MIN_BLOCKS)                                     \
        accessor_dot_blocks_##SN##_##AN(const St::S* __restrict__ x, const St::S* __restrict__ y,         \
                                        index_t n, A::T* __restrict__ partials) {                         \
        dot_blocks<St, A>(x, y, n, partials);                                                             \
    }                                                                                                     \
    extern "C" __global__ void accessor_dot_final_##SN##_##AN(const A::T* __restrict__ partials,          \
                                                            unsigned int count, A::T* __restrict__ out,   \
                                                            St::S* __restrict__ out_stored) {             \
        dot_final<St, A>(partials, count, out, out_stored);                                               \
    }                                                                                                     \
    extern "C" __global__ void accessor_axpy_##SN##_##AN(A::T alpha, const St::S* __restrict__ x,         \
                                                       St::S* __restrict__ y, index_t n) {                \
        axpy<St, A>(alpha, x, y, n);                                                                      \
    }                                                                                                     \
    extern "C" __global__ void accessor_gemv_n_##SN##_##AN(index_t m, index_t n, A::T alpha,              \
                                                         const St::S* __restrict__ a,                     \
                                                         const St::S* __restrict__ x, A::T beta,          \
                                                         const St::S* __restrict__ y0,                    \
                                                         A::T* __restrict__ y_arith,                      \
                                                         St::S* __restrict__ y) {                         \
        gemv_n<St, A>(m, n, alpha, a, x, beta, y0, y_arith, y);                                           \
    }                                                                                                     \
    /* 32 x TRANSPOSED_GROUPS (32) threads: at most 64 registers each. */                               \
    extern "C" __global__ void __launch_bounds__(1024, GEMV_T_MIN_BLOCKS)                                 \
        accessor_gemv_t_##SN##_##AN(index_t m, index_t n, A::T alpha,                                     \
                                                         const St::S* __restrict__ a,                     \
                                                         const St::S* __restrict__ x, A::T beta,          \
                                                         const St::S* __restrict__ y0,                    \
                                                         A::T* __restrict__ y_arith,                      \
                                                         St::S* __restrict__ y) {                         \
        gemv_t<St, A>(m, n, alpha, a, x, beta, y0, y_arith, y);                                           \
    }                                                                                                     \
    extern "C" __global__ void                                                                            \
        __launch_bounds__(256, sizeof(St::S) == 8 ? CSR_MIN_BLOCKS_F64 : CSR_MIN_BLOCKS)                  \
        accessor_spmv_csr_##SN##_##AN(                                                                    \
        index_t rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,                   \
        const St::S* __restrict__ values, const St::S* __restrict__ x, A::T alpha, A::T beta,             \
        const St::S* __restrict__ y0, A::T* __restrict__ y_arith, St::S* __restrict__ y) {                \
        spmv_csr<St, A>(rows, row_ptr, col_idx, values, x, alpha, beta, y0, y_arith, y);                  \
    }                                                                                                     \
    extern "C" __global__ void __launch_bounds__(256, CSR_STREAM_MIN_BLOCKS)                              \
        accessor_spmv_csr_stream_##SN##_##AN(                                                             \
        index_t rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,                   \
        const St::S* __restrict__ values, const St::S* __restrict__ x, A::T alpha, A::T beta,             \
        const St::S* __restrict__ y0, A::T* __restrict__ y_arith, St::S* __restrict__ y) {                \
        spmv_csr_stream<St, A>(rows, row_ptr, col_idx, values, x, alpha, beta, y0, y_arith, y);           \
    }                                                                                                     \
    extern "C" __global__ void __launch_bounds__(256, ELL_MIN_BLOCKS) accessor_spmv_ell_##SN##_##AN(      \
        index_t rows, index_t width, const int* __restrict__ col_idx, const St::S* __restrict__ values,   \
        const St::S* __restrict__ x, A::T alpha, A::T beta, const St::S* __restrict__ y0,                 \
        A::T* __restrict__ y_arith, St::S* __restrict__ y) {                                              \
        spmv_ell<St, A>(rows, width, col_idx, values, x, alpha, beta, y0, y_arith, y);                    \
    }                                                                                                     \
    extern "C" __global__ void accessor_trsv_invert_##SN##_##AN(index_t n, const St::S* __restrict__ a,   \
                                                              int upper, int unit,                        \
                                                              A::T* __restrict__ inv) {                   \
        trsv_invert<St, A>(n, a, upper, unit, inv);                                                       \
    }                                                                                                     \
    extern "C" __global__ void accessor_trsv_solve_##SN##_##AN(                                           \
        index_t n, const St::S* __restrict__ a, const St::S* __restrict__ b, int upper,                   \
        const A::T* __restrict__ inv, A::T* __restrict__ x, St::S* __restrict__ x_stored) {               \
        trsv_solve<St, A>(n, a, b, upper, inv, x, x_stored);                                              \
    }                                                                                                     \
    extern "C" __global__ void __launch_bounds__(256)                                                     \
        accessor_trsv_rows_##SN##_##AN(index_t n, const St::S* __restrict__ a,                            \
                                       const St::S* __restrict__ b, int upper,                            \
                                       const A::T* __restrict__ inv, A::T* x,                             \
                                       St::S* __restrict__ x_stored, unsigned int* sync) {                \
        trsv_rows<St, A>(n, a, b, upper, inv, x, x_stored, sync);                                         \
    }                                                                                                     \
    extern "C" __global__ void accessor_roofline_##SN##_##AN(const St::S* __restrict__ x,                 \
                                                           St::S* __restrict__ y, index_t n,              \
                                                           unsigned int k, A::T a, A::T b) {              \
        roofline<St, A>(x, y, n, k, a, b);                                                                \
    }

// Storage contained in the arithmetic format only (reads widen exactly).
ACCESSOR_KERNELS(f64, StoreF64, f64, ArithF64)
ACCESSOR_KERNELS(f32, StoreF32, f64, ArithF64)
ACCESSOR_KERNELS(f32, StoreF32, f32, ArithF32)
ACCESSOR_KERNELS(f16, StoreF16, f64, ArithF64)
ACCESSOR_KERNELS(f16, StoreF16, f32, ArithF32)
ACCESSOR_KERNELS(bf16, StoreBF16, f64, ArithF64)
ACCESSOR_KERNELS(bf16, StoreBF16, f32, ArithF32)
