// The few CUDA built-ins that the emulated kernels use (kernels/residual.cu's residual_combine,
// residual_quantize and residual_abs_bins_f32 for scripts/emulate-residual-kernels.sh, kernels/accessor_blas.cu's TRSV
// for scripts/emulate-accessor-trsv.sh), as host C++: the qualifiers defined away (__shared__
// as static: one block runs at a time), the _rn arithmetic as IEEE binary32 and binary64
// operations in the default rounding mode (built without FMA contraction; fma as the C
// library's, correctly rounded), the conversions as the C library's, thread indices
// thread-local, a warp's __reduce_max_sync, shuffles and __syncwarp through a barrier of its 32 lanes (each
// lane a host thread), __syncthreads through a barrier of the block's threads, atomicMax as a
// compare-and-swap loop, float4 as a 16-byte aligned struct. Only what those kernels need; the drivers keep inputs in range (a
// float-to-int conversion out of range is undefined here, saturating on the device).
#pragma once
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <random>
#include <thread>
#include <vector>
typedef unsigned long long index_t;
struct alignas(16) float4 {
    float x, y, z, w;
};
#define __device__
#define __forceinline__ inline
#define __global__
#define __restrict__
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
struct dim3e {
    unsigned int x, y, z;
};
static thread_local dim3e threadIdx, blockIdx;
static dim3e blockDim, gridDim;
struct Warp {
    std::barrier<> bar{32};
    unsigned vals[32];
    unsigned long long wide[32];
};
static thread_local Warp* my_warp;
// The running block's barrier (blocks run one after another).
static std::barrier<>* block_barrier = nullptr;
static inline void __syncthreads() {
    if (block_barrier == nullptr) std::abort();
    block_barrier->arrive_and_wait();
}
// The calling lane's warp meets (a full-mask __syncwarp: every lane of the warp calls it).
static inline void __syncwarp(unsigned mask = 0xffffffffu) {
    if (mask != 0xffffffffu || my_warp == nullptr) std::abort();
    my_warp->bar.arrive_and_wait();
}
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <class T>
static inline T __ldcg(const T* p) {
    return *p;
}
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return std::fmaf(a, b, c); }
static inline float __double2float_rn(double d) { return (float)d; }
// Lane `src`'s value of v (every lane of the warp calls it, as a full-mask shuffle).
template <class T>
static inline T shuffle_from(unsigned mask, T v, unsigned src) {
    static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
    if (mask != 0xffffffffu || my_warp == nullptr) std::abort();
    Warp* w = my_warp;
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    w->wide[threadIdx.x & 31u] = bits;
    w->bar.arrive_and_wait();
    bits = w->wide[src & 31u];
    w->bar.arrive_and_wait();
    T out;
    std::memcpy(&out, &bits, sizeof(T));
    return out;
}
template <class T>
static inline T __shfl_down_sync(unsigned mask, T v, unsigned off) {
    const unsigned lane = threadIdx.x & 31u;
    return shuffle_from(mask, v, lane + off < 32u ? lane + off : lane);
}
template <class T>
static inline T __shfl_xor_sync(unsigned mask, T v, unsigned lane_mask) {
    return shuffle_from(mask, v, (threadIdx.x & 31u) ^ lane_mask);
}
template <class T>
static inline T __shfl_sync(unsigned mask, T v, int src) {
    return shuffle_from(mask, v, (unsigned)src);
}
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __int2float_rn(int i) { return (float)i; }
static inline int __float2int_rn(float t) { return (int)std::nearbyint(t); }
static inline int __float2int_rd(float t) { return (int)std::floor(t); }
static inline int __float2int_rz(float t) { return (int)std::trunc(t); }
static inline unsigned __float_as_uint(float f) {
    unsigned u;
    std::memcpy(&u, &f, 4);
    return u;
}
static inline int __float_as_int(float f) {
    int i;
    std::memcpy(&i, &f, 4);
    return i;
}
static inline float __int_as_float(int i) {
    float f;
    std::memcpy(&f, &i, 4);
    return f;
}
static inline unsigned __reduce_max_sync(unsigned mask, unsigned v) {
    if (mask != 0xffffffffu || my_warp == nullptr) std::abort();
    Warp* w = my_warp;
    w->vals[threadIdx.x & 31u] = v;
    w->bar.arrive_and_wait();
    unsigned m = 0;
    for (unsigned l = 0; l < 32; ++l) m = w->vals[l] > m ? w->vals[l] : m;
    w->bar.arrive_and_wait();
    return m;
}
// Runs `kernel()` for every block of `grid` and every thread of a `block`-wide block, one after
// another on this thread: the launch of a kernel without barriers, warp collectives or shared
// memory (its threads do not wait on each other, so any order is a valid schedule).
template <class Kernel>
static void launch_sequential(dim3e grid, unsigned block, Kernel kernel) {
    gridDim = grid;
    blockDim = {block, 1, 1};
    my_warp = nullptr;  // a warp collective here would abort
    for (unsigned by = 0; by < grid.y; ++by)
        for (unsigned bx = 0; bx < grid.x; ++bx)
            for (unsigned tx = 0; tx < block; ++tx) {
                blockIdx = {bx, by, 0};
                threadIdx = {tx, 0, 0};
                kernel();
            }
}
// Runs `kernel()` for the blocks `order` of `grid`, one after another: a host thread per CUDA
// thread of a `block` (x fastest, as CUDA numbers a block's threads into warps), with their
// warps' and the block's barriers, go through the blocks together, meeting at the block barrier
// after each (so a block's shared statics are not reused too early).
template <class Kernel>
static void run_blocks(dim3e grid, dim3e block, const std::vector<dim3e>& order, Kernel kernel) {
    const unsigned size = block.x * block.y * block.z;
    if (size % 32 != 0) std::abort();
    gridDim = grid;
    blockDim = block;
    std::barrier<> bar(size);
    block_barrier = &bar;
    std::vector<std::unique_ptr<Warp>> warps;
    for (unsigned w = 0; w < size / 32; ++w) warps.emplace_back(new Warp);
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < size; ++t)
        threads.emplace_back([&, t] {
            threadIdx = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
            my_warp = warps[t / 32].get();
            for (const dim3e& b : order) {
                blockIdx = b;
                kernel();
                bar.arrive_and_wait();
            }
        });
    for (auto& th : threads) th.join();
    block_barrier = nullptr;
}
// Every block of `grid`, one after another in DECREASING blockIdx (a kernel that takes tickets
// must not depend on it).
template <class Kernel>
static void launch_threads(dim3e grid, dim3e block, Kernel kernel) {
    std::vector<dim3e> order;
    for (unsigned by = grid.y; by-- > 0;)
        for (unsigned bx = grid.x; bx-- > 0;) order.push_back({bx, by, 0});
    run_blocks(grid, block, order, kernel);
}
template <class Kernel>
static void launch_threads(dim3e grid, unsigned block, Kernel kernel) {
    launch_threads(grid, dim3e{block, 1, 1}, kernel);
}
// Memory that every process of launch_forked sees: the "global memory" its blocks share.
template <class T>
static T* shared_alloc(size_t n) {
    void* p = mmap(nullptr, (n ? n : 1) * sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    return static_cast<T*>(p);
}
// Every block of a 1-D grid AT ONCE, each in a process of its own (so that its __shared__
// statics are its own) with a host thread per CUDA thread, all released together from a gate.
// The blocks share only what the driver put in shared_alloc memory (x86's memory model, which
// is stronger than the GPU's: this checks a protocol's logic, not its fences). A block still
// running after `seconds` is killed (a deadlock). Returns whether every block ran to its end.
template <class Kernel>
static bool launch_forked(unsigned grid, unsigned block, Kernel kernel, unsigned seconds) {
    unsigned* gate = shared_alloc<unsigned>(1);
    std::vector<pid_t> children;
    for (unsigned bx = 0; bx < grid; ++bx) {
        const pid_t pid = fork();
        if (pid < 0) std::abort();
        if (pid == 0) {
            alarm(seconds);
            while (__atomic_load_n(gate, __ATOMIC_ACQUIRE) == 0) sched_yield();
            run_blocks({grid, 1, 1}, {block, 1, 1}, {{bx, 0, 0}}, kernel);
            _exit(0);
        }
        children.push_back(pid);
    }
    __atomic_store_n(gate, 1u, __ATOMIC_RELEASE);
    bool ok = true;
    for (const pid_t pid : children) {
        int status = 0;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ok = false;
    }
    munmap(gate, sizeof(unsigned));
    return ok;
}
static inline unsigned atomicAdd(unsigned* p, unsigned v) {
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned atomicMax(unsigned* p, unsigned v) {
    unsigned cur = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (cur < v &&
           !__atomic_compare_exchange_n(p, &cur, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return cur;
}
