// Blocked GEMM on Hopper's warpgroup tensor-core instruction (wgmma, sm_90a only):
// Algorithm 1 of Bhola and Duraisamy ("Deterministic and Probabilistic Rounding Error
// Analysis for Mixed-Precision Arithmetic on Modern Computing Units", Section 3.3),
// D = C + A B, in the SAME fixed order as kernels/mpfma_gemm.cu, which the CPU model
// src/kernels/mpfma/blockfma.rs reproduces bit for bit:
//
//     D_ij = mma(... mma(mma(C_ij, k 0..15), k 16..31) ...)
//
// one tensor-core step per 16 of k, k ascending, on an accumulator that nothing else
// touches, starting from C_ij or +0. What changes against mpfma_gemm.cu is the
// instruction: wgmma.mma_async m64n128k16 (a warpgroup of four warps, 64 x 128 outputs
// per instruction, both operands read by the tensor cores from shared memory) instead
// of mma.sync m16n8k16. On the H100 cuBLAS's kernels are built on it (SASS HGMMA) and
// reach about 3.4x our mma.sync kernel (docs/gpu/2026-11-26-h100.md), whose SASS
// is HMMA alone (the warp-level path; NVIDIA's Hopper tuning guide points matrix
// code at the warpgroup instructions). Whether
// one wgmma k16 step is the same fused block as one mma.sync m16n8k16 on sm_90 (the
// records' b = 16, no split) is what tests/mpfma_gpu.rs checks on the device, bit for
// bit against the model; cuBLAS's HGMMA kernels already matched the model wherever
// its heuristic chose no split-K (2026-11-24 and 2026-11-26).
//
// Entry points (same arguments as mpfma_gemm.cu's: A, B, C or null, D, M, N, K;
// row-major; A and B bit patterns, C and D float):
//   mpfma_gemm_wgmma_f16_f32    binary16 inputs, fp32 accumulation
//   mpfma_gemm_wgmma_bf16_f32   bfloat16 inputs, fp32 accumulation
//
// Geometry: a block of 256 threads (two warpgroups) owns a 128 x 256 tile of D;
// warpgroup w its rows 64 w .. 64 w + 63, as two m64n128 accumulators (columns 0-127
// and 128-255: 2 x 64 fp32 registers per thread). K goes in slices of 64, staged by
// cp.async into a ring of WG_STAGES shared-memory stages, WG_AHEAD slices ahead of the
// one multiplied, with at most one wgmma group in flight behind it. M must be a
// multiple of 128, N of 256 (the host pads with zeros and crops D), K of 16: in the last
// slice only the k16 steps inside K are issued (no step on padding, so a -0 accumulator
// is never turned into +0 by a zero product, as in mpfma_gemm.cu).
//
// Shared-memory layouts (PTX ISA, "Asynchronous Warpgroup Level Matrix Shared Memory
// Layout", the 128-byte swizzle mode; its canonical layouts in CuTe notation):
//   A, K-major: ((8,m),(T,2k)):((8T,SBO),(1,T)): row r of the 128 x 64 slice is 128
//     bytes at r * 128, its 16-byte chunk c stored at chunk c ^ (r % 8); SBO = 1024
//     (eight rows), LBO unused. The k16 step j starts 32 j bytes into the row (the
//     hardware applies the XOR to the address it forms, so the start may move inside
//     the 128-byte atom).
//   B, N-major (B is row-major K x N, so N is contiguous; imm-trans-b = 1):
//     ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)): the 64 x 256 slice as four atoms of 64
//     columns, atom a at a * WG_B_ATOM_BYTES, k row kr of it 128 bytes at kr * 128 with
//     chunk c at c ^ (kr % 8); LBO = WG_B_ATOM_BYTES (next 64 columns), SBO = 1024 (next
//     eight k rows). The k16 step j starts 16 j rows (2048 j bytes) in.
// Every swizzle atom (eight 128-byte rows) is 1024-byte aligned: the stage base is
// rounded up to 1024 inside the dynamic shared memory (hence its extra 1024 bytes).
// Ordering (PTX ISA, "wgmma.fence", "Async proxy"): a stage written by cp.async (the
// generic proxy) and read by wgmma (the async proxy) needs, in every writing thread,
// the copies complete, then fence.proxy.async.shared::cta, then the barrier.
//
// No CUDA headers; the one include is our own kernels/include/boundgate_async.cuh
// (cp.async), which NVRTC receives in memory. Built for sm_90a only
// (src/gpu/sources.rs: MPFMA_WGMMA.arch_specific): wgmma exists on no other target.

#include "boundgate_async.cuh"

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#define WG_F16 0
#define WG_BF16 1

#define WG_BM 128
#define WG_BN 256
#define WG_BK 64
#define WG_THREADS 256
// Stages: the slice multiplied (s), the one the last wgmma group may still read
// (s - 1), and WG_AHEAD = 2 in flight (s + 1, s + 2).
#define WG_STAGES 4
#define WG_AHEAD 2
#define WG_A_BYTES (WG_BM * WG_BK * 2)       // 16 384
#define WG_B_BYTES (WG_BK * WG_BN * 2)       // 32 768
#define WG_STAGE_BYTES (WG_A_BYTES + WG_B_BYTES)
#define WG_B_ATOM_BYTES (WG_BK * 128)        // 64 columns of B: 64 k rows of 128 bytes
// The launcher's dynamic shared memory: src/kernels/mpfma/gpu/kernel.rs
// (GemmKernel::Warpgroup.dynamic_shared_bytes) must equal this.
#define WG_SHARED_BYTES (WG_STAGES * WG_STAGE_BYTES + 1024)
static_assert(WG_SHARED_BYTES == 197632,
              "GemmKernel::Warpgroup.dynamic_shared_bytes() (src/kernels/mpfma/gpu/kernel.rs) "
              "launches with 197632 bytes; change both together");
// The ring: slice s multiplied, s - 1 possibly still read by the wgmma group in flight,
// s + 1 .. s + WG_AHEAD loading.
static_assert(WG_STAGES >= WG_AHEAD + 2, "the stage being overwritten may still be read");

// Byte offset of 16-byte chunk c (0..7) of 128-byte row r in a 128-byte-swizzled region.
__device__ __forceinline__ u32 wg_swizzled(u32 r, u32 c) {
    return r * 128u + ((c ^ (r & 7u)) << 4);
}

// The A slice (128 x 64) and the B slice (64 x 256) of k0 into one stage: 1024 + 2048
// chunks of 16 bytes, 4 + 8 per thread, eight consecutive threads on one 128-byte row
// of global memory; zeros beyond K (K % 16 == 0: a chunk is wholly in or out).
__device__ __forceinline__ void wg_issue_slice(const u16* __restrict__ A, const u16* __restrict__ B,
                                               int row0, int col0, int k0, int N, int K, int tid,
                                               u32 sa, u32 sb) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int q = tid + i * WG_THREADS;
        const int r = q >> 3;
        const int c = q & 7;
        const bool in = k0 + c * 8 < K;
        bg_cp_async16_shared(sa + wg_swizzled(r, c),
                             in ? A + (u64)(row0 + r) * K + k0 + c * 8 : A, in);
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int q = tid + i * WG_THREADS;
        const int kr = q >> 5;
        const int cc = q & 31;
        const bool in = k0 + kr < K;
        bg_cp_async16_shared(sb + (cc >> 3) * WG_B_ATOM_BYTES + wg_swizzled(kr, cc & 7),
                             in ? B + (u64)(k0 + kr) * N + col0 + cc * 8 : B, in);
    }
}

// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start
// address, leading and stride byte offsets, each in units of 16 bytes, and the layout
// type in bits 62-63 (1: 128-byte swizzle); base offset 0 (atoms 1024-byte aligned).
__device__ __forceinline__ u64 wg_descriptor(u32 address, u32 leading, u32 stride) {
    return (u64)((address & 0x3FFFFu) >> 4) | ((u64)(leading >> 4) << 16) |
           ((u64)(stride >> 4) << 32) | (1ull << 62);
}

#define WG_D4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define WG_D64                                                                                   \
    WG_D4(0), WG_D4(4), WG_D4(8), WG_D4(12), WG_D4(16), WG_D4(20), WG_D4(24), WG_D4(28), WG_D4(32), \
        WG_D4(36), WG_D4(40), WG_D4(44), WG_D4(48), WG_D4(52), WG_D4(56), WG_D4(60)
#define WG_REGS64                                                                                \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "  \
    "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "  \
    "%56, %57, %58, %59, %60, %61, %62, %63}"

// d += A (64 x 16, K-major) B (16 x 128, N-major), one fused tensor-core step per
// element (scale-d = 1: accumulate; imm-scale-a = imm-scale-b = 1; imm-trans-a = 0,
// imm-trans-b = 1). Asynchronous: d may be read only after wgmma.wait_group.
template <int V>
__device__ __forceinline__ void wg_mma_m64n128k16(float (&d)[64], u64 a, u64 b) {
    if constexpr (V == WG_F16) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " WG_REGS64
            ", %64, %65, p, 1, 1, 0, 1;\n}\n"
            : WG_D64
            : "l"(a), "l"(b));
    } else {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " WG_REGS64
            ", %64, %65, p, 1, 1, 0, 1;\n}\n"
            : WG_D64
            : "l"(a), "l"(b));
    }
}

// Keeps the compiler from moving reads or writes of the accumulators across the
// asynchronous wgmma (they are in flight between issue and wait_group).
__device__ __forceinline__ void wg_fence_operands(float (&d)[64]) {
#pragma unroll
    for (int i = 0; i < 64; ++i) {
        asm volatile("" : "+f"(d[i])::"memory");
    }
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wg_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void wg_fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Shared-memory addresses of slice s's stage: warpgroup `group`'s 64 rows of A, and B.
__device__ __forceinline__ u32 wg_stage_a(u32 base, int s, int group) {
    return base + (u32)(s % WG_STAGES) * WG_STAGE_BYTES + (u32)group * 64u * 128u;
}
__device__ __forceinline__ u32 wg_stage_b(u32 base, int s) {
    return base + (u32)(s % WG_STAGES) * WG_STAGE_BYTES + WG_A_BYTES;
}

// Before multiplying slice s: its copies landed in this thread (groups committed:
// WG_AHEAD + s, slice s is group s, so at most WG_AHEAD - 1 may still be in flight),
// made visible to the async proxy, and to both warpgroups by the barrier; the barrier
// also means both warpgroups are past the wait_group<1> of slice s - 1, so slice
// s - 2's wgmma group is complete and its stage, (s + WG_AHEAD) % WG_STAGES, may take
// slice s + WG_AHEAD, issued here.
__device__ __forceinline__ void wg_wait_slice(int s, int slices, const u16* __restrict__ A,
                                              const u16* __restrict__ B, int row0, int col0, int N,
                                              int K, int tid, u32 base) {
    bg_cp_async_wait<WG_AHEAD - 1>();
    wg_fence_proxy_async();
    __syncthreads();
    const int next = s + WG_AHEAD;
    if (next < slices) {
        const u32 sa = base + (u32)(next % WG_STAGES) * WG_STAGE_BYTES;
        wg_issue_slice(A, B, row0, col0, next * WG_BK, N, K, tid, sa, sa + WG_A_BYTES);
    }
    bg_cp_async_commit();
}

// STEPS k16 steps of one staged slice into both accumulators, k ascending: per step one
// m64n128k16 for columns 0-127, one for 128-255.
template <int V, int STEPS>
__device__ __forceinline__ void wg_slice_mma(float (&acc)[2][64], u32 sa, u32 sb) {
#pragma unroll
    for (int j = 0; j < STEPS; ++j) {
        const u64 a = wg_descriptor(sa + 32u * j, 16u, 1024u);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const u64 b =
                wg_descriptor(sb + (u32)(2 * h) * WG_B_ATOM_BYTES + 2048u * j, WG_B_ATOM_BYTES, 1024u);
            wg_mma_m64n128k16<V>(acc[h], a, b);
        }
    }
}

// The accumulator fragment of m64nNk16 with fp32 D (PTX ISA, "Matrix Fragments for
// wgmma.mma_async.m64nNk16", accumulator D): register 4 j + e of thread t of the
// warpgroup holds row 16 (t / 32) + (t % 32) / 4 + 8 (e / 2), column 8 j + 2 (t % 4) +
// e % 2. So thread t's rows are r and r + 8 and its columns c + 8 j, c + 8 j + 1.
template <int V, bool WITH_C>
__device__ __forceinline__ void gemm_tile_wgmma(const u16* __restrict__ A, const u16* __restrict__ B,
                                                const float* __restrict__ C, float* __restrict__ D,
                                                int M, int N, int K) {
    extern __shared__ __align__(1024) unsigned char wg_shared[];
    const u32 base = (bg_shared_addr(wg_shared) + 1023u) & ~1023u;
    const int tid = (int)threadIdx.x;
    const int group = tid >> 7;  // warpgroup: rows 64 group .. 64 group + 63 of the tile
    const int t = tid & 127;
    const int row0 = (int)blockIdx.y * WG_BM;
    const int col0 = (int)blockIdx.x * WG_BN;
    if (row0 >= M || col0 >= N) {
        return;
    }
    const int r = row0 + group * 64 + (t >> 5) * 16 + ((t & 31) >> 2);
    const int c = col0 + 2 * (t & 3);
    // C's values or +0. WITH_C is a template argument, not a test of C here: a branch
    // whose two sides define the accumulators would join before the first wgmma, and
    // ptxas serializes wgmmas whose accumulators come from a join (C7515).
    float acc[2][64];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            const int cj = c + h * 128 + 8 * j;
            acc[h][4 * j + 0] = WITH_C ? C[(u64)r * N + cj] : 0.0f;
            acc[h][4 * j + 1] = WITH_C ? C[(u64)r * N + cj + 1] : 0.0f;
            acc[h][4 * j + 2] = WITH_C ? C[(u64)(r + 8) * N + cj] : 0.0f;
            acc[h][4 * j + 3] = WITH_C ? C[(u64)(r + 8) * N + cj + 1] : 0.0f;
        }
    }
    const int slices = (K + WG_BK - 1) / WG_BK;
    const int whole = K / WG_BK;  // slices of four k16 steps; then one of (K % 64) / 16, if any
    // The first WG_AHEAD slices in flight; one commit group per slice (empty groups
    // past the end keep the count uniform).
#pragma unroll
    for (int p = 0; p < WG_AHEAD; ++p) {
        if (p < slices) {
            const u32 sa = base + (u32)p * WG_STAGE_BYTES;
            wg_issue_slice(A, B, row0, col0, p * WG_BK, N, K, tid, sa, sa + WG_A_BYTES);
        }
        bg_cp_async_commit();
    }
    // The whole slices: four steps each, with no branch around a wgmma, so that the
    // accumulators are defined by nothing but wgmma between issue and wait (otherwise
    // ptxas serializes the wgmmas: its warning C7515, an error in the strict build).
    for (int s = 0; s < whole; ++s) {
        wg_wait_slice(s, slices, A, B, row0, col0, N, K, tid, base);
        wg_fence_operands(acc[0]);
        wg_fence_operands(acc[1]);
        wg_fence();
        wg_slice_mma<V, 4>(acc, wg_stage_a(base, s, group), wg_stage_b(base, s));
        wg_commit();
        wg_wait<1>();
    }
    wg_wait<0>();
    // The last, partial slice (K % 64 = 16, 32 or 48): only its steps inside K, each
    // count its own straight-line code, complete before the branches join.
    if (whole < slices) {
        wg_wait_slice(whole, slices, A, B, row0, col0, N, K, tid, base);
        const u32 sa = wg_stage_a(base, whole, group);
        const u32 sb = wg_stage_b(base, whole);
        wg_fence_operands(acc[0]);
        wg_fence_operands(acc[1]);
        wg_fence();
        switch ((K - whole * WG_BK) / 16) {
            case 1: wg_slice_mma<V, 1>(acc, sa, sb); break;
            case 2: wg_slice_mma<V, 2>(acc, sa, sb); break;
            case 3: wg_slice_mma<V, 3>(acc, sa, sb); break;
            default: __trap();  // K not a multiple of 16: the host pads it, never here
        }
        wg_commit();
        wg_wait<0>();
    }
    wg_fence_operands(acc[0]);
    wg_fence_operands(acc[1]);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            const int cj = c + h * 128 + 8 * j;
            D[(u64)r * N + cj] = acc[h][4 * j + 0];
            D[(u64)r * N + cj + 1] = acc[h][4 * j + 1];
            D[(u64)(r + 8) * N + cj] = acc[h][4 * j + 2];
            D[(u64)(r + 8) * N + cj + 1] = acc[h][4 * j + 3];
        }
    }
}

// One block per SM: 197 632 bytes of dynamic shared memory (the launcher raises the
// function's limit), up to 255 registers a thread.
extern "C" __global__ void __launch_bounds__(WG_THREADS, 1)
    mpfma_gemm_wgmma_f16_f32(const u16* A, const u16* B, const float* C, float* D, int M, int N,
                             int K) {
    if (C) {
        gemm_tile_wgmma<WG_F16, true>(A, B, C, D, M, N, K);
    } else {
        gemm_tile_wgmma<WG_F16, false>(A, B, C, D, M, N, K);
    }
}

extern "C" __global__ void __launch_bounds__(WG_THREADS, 1)
    mpfma_gemm_wgmma_bf16_f32(const u16* A, const u16* B, const float* C, float* D, int M, int N,
                              int K) {
    if (C) {
        gemm_tile_wgmma<WG_BF16, true>(A, B, C, D, M, N, K);
    } else {
        gemm_tile_wgmma<WG_BF16, false>(A, B, C, D, M, N, K);
    }
}
