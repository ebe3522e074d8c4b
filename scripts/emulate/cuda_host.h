// The few CUDA built-ins that kernels/residual.cu's residual_combine and residual_quantize use,
// as host C++ for scripts/emulate-residual-kernels.sh: the qualifiers defined away, the _rn
// arithmetic as IEEE binary32 operations in the default rounding mode (built without FMA
// contraction), the conversions as the C library's, thread indices thread-local, a warp's
// __reduce_max_sync through a barrier of its 32 lanes (each lane a host thread), atomicMax as
// a compare-and-swap loop. Only what those kernels need; the drivers keep inputs in range
// (a float-to-int conversion out of range is undefined here, saturating on the device).
#pragma once
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>
typedef unsigned long long index_t;
#define __device__
#define __forceinline__ inline
#define __global__
#define __restrict__
struct dim3e {
    unsigned int x, y, z;
};
static thread_local dim3e threadIdx, blockIdx;
static dim3e blockDim, gridDim;
struct Warp {
    std::barrier<> bar{32};
    unsigned vals[32];
};
static thread_local Warp* my_warp;
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
static inline unsigned atomicAdd(unsigned* p, unsigned v) {
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned atomicMax(unsigned* p, unsigned v) {
    unsigned cur = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (cur < v &&
           !__atomic_compare_exchange_n(p, &cur, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return cur;
}
