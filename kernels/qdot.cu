// qdot, the error-bounded quantized dot product (Diffenderfer, Osei-Kuffuor &
// Menon 2021, Algorithms 3.1-3.3), for binary64 inputs, in the FIXED order of
// the CPU model src/kernels/qdot/compute.rs, which reproduces it bit for bit.
//
// Selection (Algorithm 3.2) in one pass without a sort:
//   qdot_exponents_f64: thread i computes e_i = fexp(x_i) + fexp(y_i) from the
//     bits (IEEE exponent, or eq. (1.1)'s ceiling below 1 when fexp_paper != 0;
//     subnormals by their leading bit), stores it as a short (-32768 for a zero
//     product) and counts it in a shared-memory histogram over all possible
//     exponent sums [-2148, 2046]; each block then adds its histogram to the
//     global one. Integer atomics only: the counts do not depend on scheduling.
//   The host reads the histogram (4195 counts): e_min, e_max, the early exit of
//   Theorem 3.6, the scores (3.10) and precisions (3.9), and gives every
//   computed bin a slot, in ascending exponent order.
//
// Computation (Algorithm 3.1), T = tile, m = ceil(n / T) tiles:
//   qdot_tiles_f64: thread t owns tile t (indices tT .. tT + T - 1) and one
//     accumulator per slot, all starting at +0; for each index of its tile, in
//     order, with a computed bin: a = x 2^-fexp(x), b = y 2^-fexp(y) (exact),
//     both rounded to the slot's format, then acc = step(acc, a, b):
//       code 0, double:    __fma_rn(a, b, acc)
//       code 1, single:    __fmaf_rn(a, b, acc)            (a, b rounded to binary32)
//       code 2, half-fp32: __fmaf_rn(a, b, acc)            (a, b binary16 values; exact product)
//       code 3, half:      acc = h(acc + h(a b))           (binary16 product and sum)
//       code 4, bf16-fp32: __fmaf_rn(a, b, acc)            (a, b bfloat16 values; exact product)
//     where h() rounds to binary16 (nearest even) from an exact binary64 value;
//     then writes partials[slot][t] (0 where the tile had none of the bin).
//   qdot_tree_level_f64 (launched until one value per slot is left): level by
//     level, out[i] = add(in[2i], in[2i + 1]), an odd last element carried.
//   qdot_finish_f64 (one thread): z = sum over slots in ascending exponent of
//     round_binary64(S_k 2^u_k) (one rounding, exact unless subnormal), summed
//     left to right in binary64. Perforated bins have no slot.
//
// Early exit (Theorem 3.6), the original kernel: qdot_original_tiles_f64 puts
// the plain binary64 FMA chain of each tile (unscaled, all indices) in slot 0,
// then the same tree and qdot_finish_f64 with exponent 0.
//
// Every operation is an explicit round-to-nearest-even intrinsic; the host
// compiles with --fmad=false --ftz=false. No atomics on floating point values.
// No headers: binary16 and bfloat16 rounding is done on binary64 values with
// integer rounding (__double2ll_rn), so this file compiles with NVRTC alone.

typedef unsigned long long index_t;

#define QDOT_NO_EXPONENT (-32768)
#define QDOT_HIST_OFFSET 2148
#define QDOT_HIST_SIZE 4195
#define QDOT_MAX_SLOTS 128

// 2^e as a binary64 for -1022 <= e <= 1023.
__device__ __forceinline__ double qdot_pow2(int e) {
    return __longlong_as_double(static_cast<long long>(e + 1023) << 52);
}

// fexp from the bits; returns 0 and sets *zero for 0 (and non-finite values,
// which the host refuses before launching).
__device__ __forceinline__ int qdot_fexp(double v, int paper, int* zero) {
    const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(v)) & 0x7fffffffffffffffULL;
    const int biased = static_cast<int>(bits >> 52);
    const unsigned long long fraction = bits & 0x000fffffffffffffULL;
    if (bits == 0ULL || biased == 0x7ff) {
        *zero = 1;
        return 0;
    }
    int floor_log2;
    int power_of_two;
    if (biased == 0) {
        floor_log2 = -1011 - __clzll(static_cast<long long>(fraction));
        power_of_two = (fraction & (fraction - 1ULL)) == 0ULL;
    } else {
        floor_log2 = biased - 1023;
        power_of_two = fraction == 0ULL;
    }
    return (paper != 0 && floor_log2 < 0 && !power_of_two) ? floor_log2 + 1 : floor_log2;
}

// v 2^-f for the fexp f of v (exact; the result is in [1/2, 2)).
__device__ __forceinline__ double qdot_scaled(double v, int f) {
    if (f >= -1022 && f <= 1022) {
        return v * qdot_pow2(-f);
    }
    const int half = f / 2;
    return (v * qdot_pow2(-half)) * qdot_pow2(-(f - half));
}

// v (exact, finite, |v| < 2^1023) rounded to p significant bits, nearest even;
// values whose rounded exponent exceeds emax become infinite. Only called on
// values that are zero or at least 2^-30 in magnitude, far inside the normal
// range of every format here.
__device__ __forceinline__ double qdot_round_bits(double v, int p, int emax) {
    if (v == 0.0) {
        return v;
    }
    const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(v)) & 0x7fffffffffffffffULL;
    const int e = static_cast<int>(bits >> 52) - 1023;
    const double up = qdot_pow2(p - 1 - e);
    const double down = qdot_pow2(e - p + 1);
    const long long k = __double2ll_rn(v * up);
    const double r = static_cast<double>(k) * down;
    const double largest = (2.0 - qdot_pow2(1 - p)) * qdot_pow2(emax);
    if (r > largest) {
        return __longlong_as_double(0x7ff0000000000000LL);
    }
    if (r < -largest) {
        return __longlong_as_double(static_cast<long long>(0xfff0000000000000ULL));
    }
    return r;
}

__device__ __forceinline__ double qdot_to_half(double v) { return qdot_round_bits(v, 11, 15); }
__device__ __forceinline__ double qdot_to_bf16(double v) { return qdot_round_bits(v, 8, 127); }

// Rounds a scaled value to the format of a code.
__device__ __forceinline__ double qdot_cast(int code, double a) {
    switch (code) {
        case 1: return static_cast<double>(__double2float_rn(a));
        case 2:
        case 3: return qdot_to_half(a);
        case 4: return qdot_to_bf16(a);
        default: return a;
    }
}

// One chain step on cast values; accumulators are carried as binary64 values
// (exact for every accumulator format here).
__device__ __forceinline__ double qdot_step(int code, double acc, double a, double b) {
    switch (code) {
        case 0: return __fma_rn(a, b, acc);
        case 3: {
            const double p = qdot_to_half(__dmul_rn(a, b));  // exact product, one rounding
            return qdot_to_half(__dadd_rn(acc, p));          // exact sum, one rounding
        }
        default:
            return static_cast<double>(__fmaf_rn(__double2float_rn(a), __double2float_rn(b), __double2float_rn(acc)));
    }
}

// One tree addition in the accumulator of a code.
__device__ __forceinline__ double qdot_add(int code, double a, double b) {
    switch (code) {
        case 0: return __dadd_rn(a, b);
        case 3: return qdot_to_half(__dadd_rn(a, b));
        default: return static_cast<double>(__fadd_rn(__double2float_rn(a), __double2float_rn(b)));
    }
}

extern "C" __global__ void qdot_exponents_f64(const double* __restrict__ x,
                                              const double* __restrict__ y,
                                              index_t n,
                                              int fexp_paper,
                                              short* __restrict__ e,
                                              unsigned int* __restrict__ hist) {
    __shared__ unsigned int local[QDOT_HIST_SIZE];
    for (unsigned int k = threadIdx.x; k < QDOT_HIST_SIZE; k += blockDim.x) {
        local[k] = 0U;
    }
    __syncthreads();
    const index_t stride = static_cast<index_t>(blockDim.x) * gridDim.x;
    for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        int zero = 0;
        const int fx = qdot_fexp(x[i], fexp_paper, &zero);
        const int fy = qdot_fexp(y[i], fexp_paper, &zero);
        if (zero != 0) {
            e[i] = static_cast<short>(QDOT_NO_EXPONENT);
        } else {
            e[i] = static_cast<short>(fx + fy);
            atomicAdd(&local[fx + fy + QDOT_HIST_OFFSET], 1U);
        }
    }
    __syncthreads();
    for (unsigned int k = threadIdx.x; k < QDOT_HIST_SIZE; k += blockDim.x) {
        if (local[k] != 0U) {
            atomicAdd(&hist[k], local[k]);
        }
    }
}

extern "C" __global__ void qdot_tiles_f64(const double* __restrict__ x,
                                          const double* __restrict__ y,
                                          const short* __restrict__ e,
                                          index_t n,
                                          index_t tile,
                                          int e_min,
                                          int range,
                                          const int* __restrict__ slot_of_bin,
                                          const signed char* __restrict__ code_of_slot,
                                          int slots,
                                          int fexp_paper,
                                          double* __restrict__ partials,
                                          index_t tiles) {
    const index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= tiles || slots > QDOT_MAX_SLOTS) {
        return;
    }
    double acc[QDOT_MAX_SLOTS];
    for (int s = 0; s < slots; ++s) {
        acc[s] = 0.0;
    }
    const index_t begin = t * tile;
    const index_t end = (begin + tile < n) ? begin + tile : n;
    for (index_t i = begin; i < end; ++i) {
        const int k = static_cast<int>(e[i]);
        if (k == QDOT_NO_EXPONENT || k - e_min < 0 || k - e_min >= range) {
            continue;
        }
        const int s = slot_of_bin[k - e_min];
        if (s < 0) {
            continue;  // perforated
        }
        const int code = static_cast<int>(code_of_slot[s]);
        int zero = 0;
        const double a = qdot_cast(code, qdot_scaled(x[i], qdot_fexp(x[i], fexp_paper, &zero)));
        const double b = qdot_cast(code, qdot_scaled(y[i], qdot_fexp(y[i], fexp_paper, &zero)));
        acc[s] = qdot_step(code, acc[s], a, b);
    }
    for (int s = 0; s < slots; ++s) {
        partials[static_cast<index_t>(s) * tiles + t] = acc[s];
    }
}

extern "C" __global__ void qdot_original_tiles_f64(const double* __restrict__ x,
                                                   const double* __restrict__ y,
                                                   index_t n,
                                                   index_t tile,
                                                   double* __restrict__ partials,
                                                   index_t tiles) {
    const index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= tiles) {
        return;
    }
    double acc = 0.0;
    const index_t begin = t * tile;
    const index_t end = (begin + tile < n) ? begin + tile : n;
    for (index_t i = begin; i < end; ++i) {
        acc = __fma_rn(x[i], y[i], acc);
    }
    partials[t] = acc;
}

extern "C" __global__ void qdot_tree_level_f64(const double* __restrict__ in,
                                               double* __restrict__ out,
                                               index_t m_in,
                                               index_t m_out,
                                               const signed char* __restrict__ code_of_slot,
                                               int slots) {
    const index_t j = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= m_out * static_cast<index_t>(slots)) {
        return;
    }
    const index_t s = j / m_out;
    const index_t i = j % m_out;
    const double* row = in + s * m_in;
    const int code = static_cast<int>(code_of_slot[s]);
    out[s * m_out + i] = (2 * i + 1 < m_in) ? qdot_add(code, row[2 * i], row[2 * i + 1]) : row[2 * i];
}

// S 2^u rounded once to binary64 (u may lie outside the binary64 exponent range).
__device__ __forceinline__ double qdot_rescale(double v, int u) {
    if (v == 0.0 || u == 0) {
        return v;
    }
    const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(v)) & 0x7fffffffffffffffULL;
    const int ev = static_cast<int>(bits >> 52) - 1023;  // v is normal here
    if (u > 0) {
        const int first = u < 1023 ? u : 1023;
        const double r = v * qdot_pow2(first);
        return (u - first > 0) ? r * qdot_pow2(u - first < 1023 ? u - first : 1023) : r;
    }
    // Keep the first step exact (normal), round once in the second.
    int first = -1022 - ev;
    if (first < u) {
        first = u;
    }
    if (first > 0) {
        first = 0;
    }
    const double r = (first >= -1022) ? v * qdot_pow2(first) : (v * qdot_pow2(-1000)) * qdot_pow2(first + 1000);
    const int rest = u - first;
    if (rest == 0) {
        return r;
    }
    if (rest <= -54) {
        return v < 0.0 ? -0.0 : 0.0;
    }
    return r * qdot_pow2(rest);
}

extern "C" __global__ void qdot_finish_f64(const double* __restrict__ sums,
                                           const int* __restrict__ exponent_of_slot,
                                           int slots,
                                           double* __restrict__ out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    double z = 0.0;
    for (int s = 0; s < slots; ++s) {
        const double zk = qdot_rescale(sums[s], exponent_of_slot[s]);
        z = (s == 0) ? zk : __dadd_rn(z, zk);
    }
    out[0] = z;
}
