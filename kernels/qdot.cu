// qdot, the error-bounded quantized dot product (Diffenderfer, Osei-Kuffuor &
// Menon 2021, Algorithms 3.1-3.3), for binary64 inputs, in the FIXED order of
// the CPU model src/kernels/qdot/compute.rs, which reproduces it bit for bit.
//
// Selection (Algorithm 3.2) in one pass without a sort:
//   qdot_exponents_f64: thread i computes e_i = fexp(x_i) + fexp(y_i) from the
//     bits (IEEE exponent, or eq. (1.1)'s ceiling below 1 when fexp_paper != 0;
//     subnormals by their leading bit), stores it as a short (-32768 for a zero
//     product) when e is not null (the tested path reads them back; the tile
//     kernels recompute e_i from x_i and y_i, which they read anyway) and counts it (warp-aggregated: one update per distinct bin
//     per warp and step) in a shared-memory histogram over all possible
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
//       code 3, half:      acc = h(acc + h(a b))           (binary16 product and sum;
//                          on fp16x2 in qdot_tiles_half2_f64, below)
//       code 4, bf16-fp32: __fmaf_rn(a, b, acc)            (a, b bfloat16 values; exact product)
//     where h() rounds to binary16 (nearest even) from an exact binary64 value;
//     then (accumulators in shared memory, a power-of-two block of tiles) the
//     block runs the tree's first log2(blockDim.x) levels below in place and
//     writes partials[slot][block] (0 where its tiles had none of the bin).
//   qdot_tree_level_f64 (launched until one value per slot is left): level by
//     level, out[i] = add(in[2i], in[2i + 1]), an odd last element carried.
//   qdot_finish_f64 (one thread): z = sum over slots in ascending exponent of
//     round_binary64(S_k 2^u_k) (one rounding, exact unless subnormal), summed
//     left to right in binary64. Perforated bins have no slot.
//
// Half bins of the pure-fp16 mode on fp16x2 (half2) arithmetic: when a slot
// has code 3, qdot_tiles_half2_f64 replaces qdot_tiles_f64. Thread p owns the
// tile PAIR (2p, 2p + 1): lane 0 (the low 16 bits) of a packed fp16x2
// accumulator is tile 2p's chain, lane 1 tile 2p + 1's, and step j of the
// loop processes index 2pT + j in lane 0 and (2p + 1)T + j in lane 1 with
//       p2 = mul.rn.f16x2(a2, b2),  acc2 = add.rn.f16x2(acc2, p2)
// (one correctly rounded fp16 product and one correctly rounded fp16 sum per
// lane: h(acc + h(a b)), the CPU model's pure-fp16 step; .rn also forbids
// contracting the pair into an fma). A lane whose index is not in the slot
// keeps its old bits (bit select after the instruction), so each lane runs
// exactly the CPU model's chain of its tile: the order is the model's own,
// lanes are tiles, nothing in the CPU model changes. a and b are rounded to
// fp16 by cvt.rn.f16.f64 from the exact scaled binary64 values (one
// rounding, nearest even). Slots with other codes keep two binary64
// accumulators (one per tile) and qdot_step. The tree and the finish are
// unchanged.
//   The fp16x2 instructions are written as inline PTX: they are what
// cuda_fp16.h's __hmul2_rn / __hadd2_rn / __double2half emit on sm_53 and
// later (its __BINARY_OP_HALF2_MACRO(mul.rn), (add.rn) and cvt.rn.f16.f64),
// but NVRTC has no built-in cuda_fp16.h and the device may have no CUDA
// headers, so the file stays header-free. (__hmul2/__hadd2 without _rn emit
// mul.f16x2/add.f16x2, which ptxas may fuse into fma.rn.f16x2: one rounding
// instead of two, a different result; __hfma2 would be that fused form.)
//
// The fp16-fp32 mode (code 2) stays on __fmaf_rn chains: fp16 values, their
// product exact in binary32, binary32 accumulation: the arithmetic of tensor
// core fp16 MMA with fp32 accumulators, but in a fixed, IEEE-rounded order
// (an MMA's internal summation order and rounding are not specified, so a
// tensor core version could not be bit-compared with a CPU model).
//
// Early exit (Theorem 3.6), the original kernel: qdot_original_tiles_f64 puts
// the plain binary64 FMA chain of each tile (unscaled, all indices) in slot 0,
// then the same tree and qdot_finish_f64 with exponent 0.
//
// Every operation is an explicit round-to-nearest-even intrinsic; the host
// compiles with --fmad=false --ftz=false. No atomics on floating point values.
// No headers: binary16 and bfloat16 rounding is done on binary64 values with
// integer rounding (__double2ll_rn), and the fp16x2 path uses inline PTX, so
// this file compiles with NVRTC alone.

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

// v (exact, |v| < 2^1023) rounded to p significant bits, nearest even; values
// whose rounded exponent exceeds emax become infinite; zeros, infinities and
// NaN stay as they are (a NaN from inf + -inf in the tree of a half slot is a
// NaN on the CPU too: __double2ll_rn(NaN) would have made it 0 or -inf).
// Rounds to p bits relative to v's own exponent, not to a subnormal grid:
// only called on values at least 2^-12 in magnitude (scaled factors lie in
// [1/2, 2), their fp16 products are at least 1/4, and sums of multiples of
// 2^-12 rounded to fp16 stay multiples of 2^-12), inside the normal range of
// every format here (fp16's starts at 2^-14). A caller with smaller values,
// unscaled inputs say, would need the subnormal grid (review, 2026-11-26:
// this said 2^-30, which is below fp16's normal range).
__device__ __forceinline__ double qdot_round_bits(double v, int p, int emax) {
    const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(v)) & 0x7fffffffffffffffULL;
    if (v == 0.0 || (bits >> 52) == 0x7ffULL) {
        return v;
    }
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
    // Warp-aggregated counting: the lanes of a warp that share a bin are
    // found with __match_any_sync and their lowest lane adds their number.
    // Exponent sums cluster in a few bins (17 for the paper's distribution A),
    // so one atomicAdd per lane serialised up to 32 updates of one shared word
    // per step; counts are integers, so the histogram is the same whatever the
    // grouping. The loop runs the same number of steps in every lane of the
    // block (base is uniform, blockDim.x a multiple of 32), so every lane
    // reaches the full-mask match; lanes past n carry no bin (-1).
    const index_t stride = static_cast<index_t>(blockDim.x) * gridDim.x;
    const unsigned int lane = threadIdx.x & 31U;
    for (index_t base = static_cast<index_t>(blockIdx.x) * blockDim.x; base < n; base += stride) {
        const index_t i = base + threadIdx.x;
        int bin = -1;
        if (i < n) {
            int zero = 0;
            const int fx = qdot_fexp(x[i], fexp_paper, &zero);
            const int fy = qdot_fexp(y[i], fexp_paper, &zero);
            if (e != nullptr) {
                e[i] = static_cast<short>(zero != 0 ? QDOT_NO_EXPONENT : fx + fy);
            }
            if (zero == 0) {
                bin = fx + fy + QDOT_HIST_OFFSET;
            }
        }
        const unsigned int peers = __match_any_sync(0xffffffffU, bin);
        if (bin >= 0 && lane == static_cast<unsigned int>(__ffs(static_cast<int>(peers)) - 1)) {
            atomicAdd(&local[bin], static_cast<unsigned int>(__popc(peers)));
        }
    }
    __syncthreads();
    for (unsigned int k = threadIdx.x; k < QDOT_HIST_SIZE; k += blockDim.x) {
        if (local[k] != 0U) {
            atomicAdd(&hist[k], local[k]);
        }
    }
}

// The indices of tile t: [first, end) in steps of step. Contiguous layout
// (interleaved = 0): t*tile .. min((t+1)*tile, n), step 1. Interleaved layout:
// t, t + tiles, t + 2*tiles, ... < n (compute.rs: TileLayout), so that the
// threads of a warp read consecutive indices.
__device__ __forceinline__ void qdot_span(index_t t, index_t n, index_t tile, index_t tiles, int interleaved,
                                          index_t* first, index_t* step, index_t* end) {
    if (interleaved) {
        *first = t;
        *step = tiles;
        *end = n;
    } else {
        *first = t * tile;
        *step = 1;
        *end = (*first + tile < n) ? *first + tile : n;
    }
}

// The slot of index i (-1: zero product, outside [e_min, e_max], or perforated),
// from e_i = fexp(x_i) + fexp(y_i) recomputed from the inputs (the tile kernels read
// x_i and y_i anyway; the selection's e array is not read back by them, so the timed
// selection need not write it: 2 bytes per index less, 2026-11-25). fx and fy are
// returned for the scaling.
__device__ __forceinline__ int qdot_slot_of(double xi,
                                            double yi,
                                            int fexp_paper,
                                            int e_min,
                                            int range,
                                            const int* __restrict__ slot_of_bin,
                                            int* fx,
                                            int* fy) {
    int zero = 0;
    *fx = qdot_fexp(xi, fexp_paper, &zero);
    *fy = qdot_fexp(yi, fexp_paper, &zero);
    const int k = *fx + *fy;
    if (zero != 0 || k - e_min < 0 || k - e_min >= range) {
        return -1;
    }
    return slot_of_bin[k - e_min];
}

// The tree's first log2(width) levels over a block's tiles, in place, then one partial per
// slot and block (partials[s][blockIdx.x]); rows holds slots rows of width tile results
// (row s at s * width), live = tiles from the block's first one (only the first width
// count). Level by level with stride h, the pair (2i, 2i + 1) of the level sits at positions
// 2ih and (2i + 1)h and an odd last element stays where it is: qdot_tree_level_f64's
// pairing restricted to an aligned group of width tiles (compute.rs: tree_blocked). Every
// thread of the block calls it after a barrier; the block's threads share the work.
__device__ __forceinline__ void qdot_block_tree(double* rows,
                                                unsigned int width,
                                                index_t live,
                                                const signed char* __restrict__ code_of_slot,
                                                int slots,
                                                double* __restrict__ partials) {
    const unsigned int slot_count = static_cast<unsigned int>(slots);
    unsigned int c = static_cast<unsigned int>(live < width ? live : width);
    for (unsigned int h = 1; h < width; h <<= 1) {
        const unsigned int pairs = c / 2;
        for (unsigned int q = threadIdx.x; q < pairs * slot_count; q += blockDim.x) {
            const unsigned int s = q / pairs;
            const unsigned int i = q % pairs;
            double* row = rows + s * width;
            row[2 * i * h] = qdot_add(static_cast<int>(code_of_slot[s]), row[2 * i * h], row[(2 * i + 1) * h]);
        }
        __syncthreads();
        c = (c + 1) / 2;
    }
    for (unsigned int s = threadIdx.x; s < slot_count; s += blockDim.x) {
        partials[static_cast<index_t>(s) * gridDim.x + blockIdx.x] = rows[s * width];
    }
}

// The largest power-of-two block (32 .. 256 threads) whose slots x threads
// binary64 accumulators fit the 48 KiB of shared memory a launch gets without
// opting in (src/kernels/qdot/gpu.rs: fused_block, the same rule).
//
// qdot_tiles_f64 is launched with blockDim.x = that power of two and
// slots x blockDim.x doubles of dynamic shared memory. Each thread's
// accumulators live in shared memory (slot s of thread j at s * blockDim.x + j:
// a warp's 32 lanes touch 32 consecutive words whatever their slots), not in a
// per-thread array indexed by a run-time slot, which the compiler kept in local
// memory (a 1024-byte stack frame: every step a scattered load and store
// through L1 to L2). The block then runs the first log2(blockDim.x) levels of
// qdot_tree_level_f64's tree in place and writes one partial per slot and
// block: blocks cover aligned groups of blockDim.x consecutive tiles, so those
// levels pair exactly the tiles the global levels pair, an odd last element
// carried in the last block as there (the pair (2i, 2i + 1) of a level with
// stride h sits at positions 2ih and (2i + 1)h). Until 2026-11-25 every tile
// wrote its slots' partials (slots x tiles doubles, 0.8 GB for 64 bins at
// n = 1e8 with tiles of 64) and the tree started from them.
extern "C" __global__ void qdot_tiles_f64(const double* __restrict__ x,
                                          const double* __restrict__ y,
                                          index_t n,
                                          index_t tile,
                                          int e_min,
                                          int range,
                                          const int* __restrict__ slot_of_bin,
                                          const signed char* __restrict__ code_of_slot,
                                          int slots,
                                          int fexp_paper,
                                          double* __restrict__ partials,
                                          index_t tiles,
                                          int interleaved) {
    extern __shared__ double qdot_acc[];  // slots x blockDim.x
    if (slots > QDOT_MAX_SLOTS) {
        return;  // the same for every block: no barrier is left waiting
    }
    const unsigned int width = blockDim.x;
    const index_t first_tile = static_cast<index_t>(blockIdx.x) * width;
    const index_t t = first_tile + threadIdx.x;
    double* mine = qdot_acc + threadIdx.x;
    for (int s = 0; s < slots; ++s) {
        mine[s * width] = 0.0;
    }
    if (t < tiles) {
        index_t begin, step, end;
        qdot_span(t, n, tile, tiles, interleaved, &begin, &step, &end);
        for (index_t i = begin; i < end; i += step) {
            const double xi = x[i];
            const double yi = y[i];
            int fx = 0;
            int fy = 0;
            const int s = qdot_slot_of(xi, yi, fexp_paper, e_min, range, slot_of_bin, &fx, &fy);
            if (s < 0) {
                continue;  // zero product, outside the bins, or perforated
            }
            const int code = static_cast<int>(code_of_slot[s]);
            const double a = qdot_cast(code, qdot_scaled(xi, fx));
            const double b = qdot_cast(code, qdot_scaled(yi, fy));
            mine[s * width] = qdot_step(code, mine[s * width], a, b);
        }
    }
    __syncthreads();
    qdot_block_tree(qdot_acc, width, tiles - first_tile, code_of_slot, slots, partials);
}

// fp16x2 helpers (inline PTX; see the header comment). A packed value holds
// lane 0 in its low 16 bits.
__device__ __forceinline__ unsigned short qdot_f16_bits(double v) {
    unsigned short h;
    asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(v));
    return h;
}

__device__ __forceinline__ double qdot_f16_value(unsigned short h) {
    double v;
    asm("cvt.f64.f16 %0, %1;" : "=d"(v) : "h"(h));
    return v;
}

__device__ __forceinline__ unsigned int qdot_hmul2_rn(unsigned int a, unsigned int b) {
    unsigned int r;
    asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

__device__ __forceinline__ unsigned int qdot_hadd2_rn(unsigned int a, unsigned int b) {
    unsigned int r;
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

// Scaled x[i] rounded to binary16, as bits (code 3 only).
__device__ __forceinline__ unsigned int qdot_half_of(const double* __restrict__ v, index_t i, int fexp_paper) {
    int zero = 0;
    return static_cast<unsigned int>(qdot_f16_bits(qdot_scaled(v[i], qdot_fexp(v[i], fexp_paper, &zero))));
}

// One index of one lane in a slot with a binary64-carried accumulator.
__device__ __forceinline__ double qdot_lane_step(int code,
                                                 double acc,
                                                 const double* __restrict__ x,
                                                 const double* __restrict__ y,
                                                 index_t i,
                                                 int fexp_paper) {
    int zero = 0;
    const double a = qdot_cast(code, qdot_scaled(x[i], qdot_fexp(x[i], fexp_paper, &zero)));
    const double b = qdot_cast(code, qdot_scaled(y[i], qdot_fexp(y[i], fexp_paper, &zero)));
    return qdot_step(code, acc, a, b);
}

// qdot_tiles_f64 with two tiles per thread and the code-3 slots on fp16x2
// (see the header comment). A block of blockDim.x threads (a power of two,
// fused_pairs_block in gpu.rs) owns 2 blockDim.x consecutive tiles, thread j
// the pair (2j, 2j + 1) of them. Accumulators in dynamic shared memory, not in
// run-time-indexed local arrays (a 2560-byte stack frame until 2026-11-25):
// wide[s][2j + l] (binary64-carried, codes != 3) and packed[s][j] (fp16x2,
// code 3), slots x blockDim.x x 20 bytes. At the end a half slot's two lanes
// are unpacked into wide[s][2j], wide[s][2j + 1], and the block runs the
// tree's first log2(2 blockDim.x) levels in place as qdot_tiles_f64 does,
// writing one partial per slot and block.
extern "C" __global__ void qdot_tiles_half2_f64(const double* __restrict__ x,
                                                const double* __restrict__ y,
                                                index_t n,
                                                index_t tile,
                                                int e_min,
                                                int range,
                                                const int* __restrict__ slot_of_bin,
                                                const signed char* __restrict__ code_of_slot,
                                                int slots,
                                                int fexp_paper,
                                                double* __restrict__ partials,
                                                index_t tiles,
                                                int interleaved) {
    extern __shared__ double qdot_half2_shared[];
    if (slots > QDOT_MAX_SLOTS) {
        return;  // the same for every block
    }
    const unsigned int pairs = blockDim.x;
    const unsigned int width = 2 * pairs;  // tiles per block
    double* wide = qdot_half2_shared;      // slots x width
    unsigned int* packed = reinterpret_cast<unsigned int*>(wide + static_cast<index_t>(slots) * width);
    const unsigned int j = threadIdx.x;
    const index_t first_tile = static_cast<index_t>(blockIdx.x) * width;
    const index_t t0 = first_tile + 2 * j;
    const index_t t1 = t0 + 1;  // may be >= tiles: lane 1 then has no index
    for (int s = 0; s < slots; ++s) {
        wide[s * width + 2 * j] = 0.0;
        wide[s * width + 2 * j + 1] = 0.0;
        packed[s * pairs + j] = 0U;  // +0 in both lanes
    }
    if (t0 < tiles) {
        // Lane 0's tile has at least as many indices as lane 1's in both layouts.
        index_t begin0, step, end0, begin1, end1;
        qdot_span(t0, n, tile, tiles, interleaved, &begin0, &step, &end0);
        qdot_span(t1, n, tile, tiles, interleaved, &begin1, &step, &end1);
        if (t1 >= tiles) {
            end1 = begin1;  // lane 1 has no tile, hence no index
        }
        for (index_t k = 0; begin0 + k * step < end0; ++k) {
            const index_t i0 = begin0 + k * step;
            const index_t i1 = begin1 + k * step;
            int fx = 0;
            int fy = 0;
            const int s0 = qdot_slot_of(x[i0], y[i0], fexp_paper, e_min, range, slot_of_bin, &fx, &fy);
            const int s1 = (i1 < end1) ? qdot_slot_of(x[i1], y[i1], fexp_paper, e_min, range, slot_of_bin, &fx, &fy) : -1;
            const int c0 = s0 >= 0 ? static_cast<int>(code_of_slot[s0]) : -1;
            const int c1 = s1 >= 0 ? static_cast<int>(code_of_slot[s1]) : -1;
            if (c0 == 3 && s1 == s0) {
                // Both lanes in the same fp16 slot: one fp16x2 multiply and add.
                unsigned int* acc2 = &packed[s0 * pairs + j];
                const unsigned int a2 = qdot_half_of(x, i0, fexp_paper) | (qdot_half_of(x, i1, fexp_paper) << 16);
                const unsigned int b2 = qdot_half_of(y, i0, fexp_paper) | (qdot_half_of(y, i1, fexp_paper) << 16);
                *acc2 = qdot_hadd2_rn(*acc2, qdot_hmul2_rn(a2, b2));
                continue;
            }
            if (c0 == 3) {
                // Lane 0 only: lane 1 keeps its bits.
                unsigned int* acc2 = &packed[s0 * pairs + j];
                const unsigned int r =
                    qdot_hadd2_rn(*acc2, qdot_hmul2_rn(qdot_half_of(x, i0, fexp_paper), qdot_half_of(y, i0, fexp_paper)));
                *acc2 = (r & 0x0000ffffU) | (*acc2 & 0xffff0000U);
            } else if (c0 >= 0) {
                double* acc = &wide[s0 * width + 2 * j];
                *acc = qdot_lane_step(c0, *acc, x, y, i0, fexp_paper);
            }
            if (c1 == 3) {
                // Lane 1 only: lane 0 keeps its bits.
                unsigned int* acc2 = &packed[s1 * pairs + j];
                const unsigned int r = qdot_hadd2_rn(
                    *acc2, qdot_hmul2_rn(qdot_half_of(x, i1, fexp_paper) << 16, qdot_half_of(y, i1, fexp_paper) << 16));
                *acc2 = (r & 0xffff0000U) | (*acc2 & 0x0000ffffU);
            } else if (c1 >= 0) {
                double* acc = &wide[s1 * width + 2 * j + 1];
                *acc = qdot_lane_step(c1, *acc, x, y, i1, fexp_paper);
            }
        }
    }
    // A half slot's lanes into its tiles' places (binary16 values are exact in binary64).
    for (int s = 0; s < slots; ++s) {
        if (static_cast<int>(code_of_slot[s]) == 3) {
            const unsigned int acc2 = packed[s * pairs + j];
            wide[s * width + 2 * j] = qdot_f16_value(static_cast<unsigned short>(acc2 & 0xffffU));
            wide[s * width + 2 * j + 1] = qdot_f16_value(static_cast<unsigned short>(acc2 >> 16));
        }
    }
    __syncthreads();
    qdot_block_tree(wide, width, tiles - first_tile, code_of_slot, slots, partials);
}

// The early exit's original kernel (Thm 3.6): one FMA chain per tile on the
// unscaled values in the input format `Input` (double, or float for the
// binary32 inputs below), the chain's sum widened exactly into `partials`.
__device__ __forceinline__ double qdot_fma_rn(double a, double b, double c) {
    return __fma_rn(a, b, c);
}
__device__ __forceinline__ float qdot_fma_rn(float a, float b, float c) {
    return __fmaf_rn(a, b, c);
}
__device__ __forceinline__ double qdot_to_input(double v, double) {
    return v;
}
__device__ __forceinline__ float qdot_to_input(double v, float) {
    return __double2float_rn(v);
}

template <typename Input>
__device__ __forceinline__ void qdot_original_tile(const double* __restrict__ x,
                                                   const double* __restrict__ y,
                                                   index_t n,
                                                   index_t tile,
                                                   double* __restrict__ partials,
                                                   index_t tiles,
                                                   int interleaved) {
    const index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= tiles) {
        return;
    }
    Input acc = Input(0);
    index_t begin, step, end;
    qdot_span(t, n, tile, tiles, interleaved, &begin, &step, &end);
    for (index_t i = begin; i < end; i += step) {
        acc = qdot_fma_rn(qdot_to_input(x[i], Input()), qdot_to_input(y[i], Input()), acc);
    }
    partials[t] = static_cast<double>(acc);
}

extern "C" __global__ void qdot_original_tiles_f64(const double* __restrict__ x,
                                                   const double* __restrict__ y,
                                                   index_t n,
                                                   index_t tile,
                                                   double* __restrict__ partials,
                                                   index_t tiles,
                                                   int interleaved) {
    qdot_original_tile<double>(x, y, n, tile, partials, tiles, interleaved);
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

// Binary32 inputs (input = fp32; x and y arrive as binary64 arrays holding
// binary32 values, exactly). Selection, tiles and tree are the kernels above:
// they depend on the bins' formats only. What changes is the input level:
//   qdot_original_tiles_f32in: the early exit's original kernel in binary32,
//     __fmaf_rn chains on the unscaled values (slot code 1 for the tree);
//   qdot_finish_f32in: z_k = fl32(fl32(S_k) 2^u_k): S_k rounded to binary32,
//     times 2^u_k exactly in binary64 (|u_k| <= 298 for binary32 values, so
//     no binary64 overflow or underflow), then ONE rounding to binary32
//     (subnormal or infinite where it must be); z summed in binary32, ascending
//     exponent.
extern "C" __global__ void qdot_original_tiles_f32in(const double* __restrict__ x,
                                                     const double* __restrict__ y,
                                                     index_t n,
                                                     index_t tile,
                                                     double* __restrict__ partials,
                                                     index_t tiles,
                                                     int interleaved) {
    qdot_original_tile<float>(x, y, n, tile, partials, tiles, interleaved);
}

extern "C" __global__ void qdot_finish_f32in(const double* __restrict__ sums,
                                             const int* __restrict__ exponent_of_slot,
                                             int slots,
                                             double* __restrict__ out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    float z = 0.0f;
    for (int s = 0; s < slots; ++s) {
        const double v = static_cast<double>(__double2float_rn(sums[s]));
        const float zk = __double2float_rn(__dmul_rn(v, qdot_pow2(exponent_of_slot[s])));
        z = (s == 0) ? zk : __fadd_rn(z, zk);
    }
    out[0] = static_cast<double>(z);
}
