// Baseline dot product with a FIXED, documented order of operations, so that the
// CPU model in src/kernels/baseline/tree_dot.rs reproduces it bit for bit.
//
// The order (T = blockDim.x, B = gridDim.x of the first launch):
//
//   Launch 1, dot_<p>_blocks: B blocks of T threads; T is a power of two <= 1024,
//   B <= 1024; dynamic shared memory T * sizeof(accumulator).
//     Thread t of block b:  acc = +0;
//                           for k = 0, 1, ...  while i = b*T + t + k*T*B < n:
//                               acc = fma(x[i], y[i], acc)      (one rounding)
//     Block tree:           sh[t] = acc;
//                           for s = T/2, T/4, ..., 1:  if t < s: sh[t] = sh[t] + sh[t + s]
//                           partials[b] = sh[0]
//   Launch 2, dot_<acc>_final: one block of P threads, P = the least power of two >= B:
//                           sh[t] = t < B ? partials[t] : +0;  the same tree;  out[0] = sh[0]
//
// Every operation is an explicit round-to-nearest-even intrinsic (__fmaf_rn,
// __fadd_rn, __fma_rn, __dadd_rn): the compiler may neither contract nor reorder
// them, and the host compiles with --fmad=false --ftz=false as a second guard.
// No atomics: the result depends on (n, T, B) only, never on scheduling, so it is
// the same on every GPU and every run.
//
// Precisions: f64 (fma and add in binary64), f32 (binary32), and f16 storage with
// f32 accumulation (each binary16 input is widened to binary32 exactly, then the
// f32 path runs; a product of two binary16 numbers is exact in binary32, so the
// fma's single rounding is the only one).
//
// No headers are included: binary16 inputs arrive as their bit patterns and are
// widened with the PTX instruction cvt.f32.f16 (exact), so this file compiles with
// NVRTC alone, with or without the CUDA include directory.

typedef unsigned long long index_t;

struct ArithF64 {
    typedef double input_t;
    typedef double acc_t;
    static __device__ __forceinline__ double load(const double* p, index_t i) { return p[i]; }
    static __device__ __forceinline__ double fma(double a, double b, double c) { return __fma_rn(a, b, c); }
    static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
};

struct ArithF32 {
    typedef float input_t;
    typedef float acc_t;
    static __device__ __forceinline__ float load(const float* p, index_t i) { return p[i]; }
    static __device__ __forceinline__ float fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
    static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
};

struct ArithF16F32 {
    typedef unsigned short input_t;  // binary16 bit pattern
    typedef float acc_t;
    static __device__ __forceinline__ float load(const unsigned short* p, index_t i) {
        float widened;
        asm("cvt.f32.f16 %0, %1;" : "=f"(widened) : "h"(p[i]));
        return widened;
    }
    static __device__ __forceinline__ float fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
    static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
};

// Dynamic shared memory, declared once as bytes so that each instantiation can
// view it with its own accumulator type.
extern __shared__ __align__(16) unsigned char dot_shared[];

// sh[0] = sh[0] + sh[1] + ... as a pairwise tree over blockDim.x (a power of two)
// entries, in the fixed order documented above. Ends with sh[0] visible to thread 0.
template <class Arith>
__device__ __forceinline__ void block_tree(typename Arith::acc_t* sh) {
    const unsigned int t = threadIdx.x;
    for (unsigned int s = blockDim.x >> 1; s > 0; s >>= 1) {
        if (t < s) {
            sh[t] = Arith::add(sh[t], sh[t + s]);
        }
        __syncthreads();
    }
}

template <class Arith>
__device__ __forceinline__ void block_partials(const typename Arith::input_t* __restrict__ x,
                                               const typename Arith::input_t* __restrict__ y,
                                               index_t n,
                                               typename Arith::acc_t* __restrict__ partials) {
    typedef typename Arith::acc_t acc_t;
    acc_t* sh = reinterpret_cast<acc_t*>(dot_shared);
    const unsigned int t = threadIdx.x;
    const index_t stride = (index_t)blockDim.x * (index_t)gridDim.x;
    acc_t acc = 0;
    for (index_t i = (index_t)blockIdx.x * blockDim.x + t; i < n; i += stride) {
        acc = Arith::fma(Arith::load(x, i), Arith::load(y, i), acc);
    }
    sh[t] = acc;
    __syncthreads();
    block_tree<Arith>(sh);
    if (t == 0) {
        partials[blockIdx.x] = sh[0];
    }
}

template <class Arith>
__device__ __forceinline__ void final_sum(const typename Arith::acc_t* __restrict__ partials,
                                          unsigned int count,
                                          typename Arith::acc_t* __restrict__ out) {
    typedef typename Arith::acc_t acc_t;
    acc_t* sh = reinterpret_cast<acc_t*>(dot_shared);
    const unsigned int t = threadIdx.x;
    sh[t] = t < count ? partials[t] : (acc_t)0;
    __syncthreads();
    block_tree<Arith>(sh);
    if (t == 0) {
        out[0] = sh[0];
    }
}

extern "C" __global__ void dot_f64_blocks(const double* __restrict__ x, const double* __restrict__ y,
                                          index_t n, double* __restrict__ partials) {
    block_partials<ArithF64>(x, y, n, partials);
}

extern "C" __global__ void dot_f32_blocks(const float* __restrict__ x, const float* __restrict__ y,
                                          index_t n, float* __restrict__ partials) {
    block_partials<ArithF32>(x, y, n, partials);
}

extern "C" __global__ void dot_f16_f32_blocks(const unsigned short* __restrict__ x,
                                              const unsigned short* __restrict__ y,
                                              index_t n, float* __restrict__ partials) {
    block_partials<ArithF16F32>(x, y, n, partials);
}

extern "C" __global__ void dot_f64_final(const double* __restrict__ partials, unsigned int count,
                                         double* __restrict__ out) {
    final_sum<ArithF64>(partials, count, out);
}

extern "C" __global__ void dot_f32_final(const float* __restrict__ partials, unsigned int count,
                                         float* __restrict__ out) {
    final_sum<ArithF32>(partials, count, out);
}
