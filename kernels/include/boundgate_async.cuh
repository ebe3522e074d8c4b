// Asynchronous copies and warp-wide shared-memory loads for the tensor-core GEMMs
// (kernels/mpfma_gemm.cu's wide kernel, kernels/mpfma_wgmma.cu, kernels/residual.cu's
// IMMA kernel), sm_80 and later. Shared by these files: NVRTC receives this header in
// memory (src/gpu/sources.rs, HEADERS; every build gets it), so no include path is needed at run time. With nvcc,
// pass -I kernels/include.
//
// Semantics: PTX ISA, "Data Movement and Conversion Instructions: cp.async",
// "cp.async.commit_group", "cp.async.wait_group" and "Warp-level matrix load
// instruction: ldmatrix". None of these helpers does arithmetic: they move bits, so the
// CPU models of the kernels that use them need no knowledge of them.
#ifndef BOUNDGATE_ASYNC_CUH
#define BOUNDGATE_ASYNC_CUH

// The shared-memory address of a generic pointer into shared memory.
__device__ __forceinline__ unsigned int bg_shared_addr(const void* p) {
    unsigned int a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}

// 16 bytes from global memory to the shared-memory address dst, asynchronously; zeros
// when !valid (src-size 0: nothing is read, the pointer is only named). Both addresses
// 16-byte aligned.
__device__ __forceinline__ void bg_cp_async16_shared(unsigned int dst, const void* src, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
                 "r"(valid ? 16 : 0)
                 : "memory");
}

// bg_cp_async16_shared to a generic pointer into shared memory.
__device__ __forceinline__ void bg_cp_async16(void* dst, const void* src, bool valid) {
    bg_cp_async16_shared(bg_shared_addr(dst), src, valid);
}

// Closes the group of copies issued since the last commit.
__device__ __forceinline__ void bg_cp_async_commit() {
    asm volatile("cp.async.commit_group;" ::: "memory");
}

// Waits until at most N committed groups are still in flight (N = 0: all landed).
template <int N>
__device__ __forceinline__ void bg_cp_async_wait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// Four 8 x 8 matrices of 16-bit elements (or 8 rows of 16 bytes) from shared memory:
// lane l gives the address of row l % 8 of matrix l / 8; register i of each lane gets
// its two elements of matrix i.
__device__ __forceinline__ void bg_ldmatrix_x4(unsigned int (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(bg_shared_addr(p))
                 : "memory");
}

// As bg_ldmatrix_x4, each matrix transposed on the way (16-bit elements).
__device__ __forceinline__ void bg_ldmatrix_x4_trans(unsigned int (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(bg_shared_addr(p))
                 : "memory");
}

#endif  // BOUNDGATE_ASYNC_CUH
