"""Writes the header a current-against-reference emulation compiles: cuda_host.h, the current
file's #defines the compared code uses, the pieces both versions must share (each must read
the same in both: compare by hand first otherwise), then each named piece from the current file
and, renamed <name>_reference, from the reference version. What is shared and how a named piece
begins depends on the kernel file (its name):

- kernels/residual.cu (scripts/emulate-residual-kernels.sh): the __device__ helpers; the named
  pieces are kernels (`extern "C" __global__`);
- kernels/accessor_blas.cu (scripts/emulate-accessor-kernels.sh): the arithmetic and
  binary64/binary32 storage structs, the warp and block reductions, the BLAS epilogue; the
  named pieces are template functions.

    extract.py CURRENT.cu REFERENCE.cu OUT.h name [name ...]   (+name: the current file's only;
                                                                for accessor_blas.cu a void
                                                                function or a warp tree)
"""
import os
import sys

from pieces import ACCESSOR_BASICS, write_pair_header

# Per kernel file: (shared pieces, #defines to copy, how a named piece begins).
FILES = {
    "residual.cu": (
        [
            "__device__ __forceinline__ index_t line_of(",
            "__device__ __forceinline__ int round_rule(",
            "__device__ __forceinline__ float dequant(",
            "__device__ __forceinline__ void abs_bin(",
        ],
        r"#define (?:AXIS_\w+|ROUND_\w+|COMBINE_UNROLL|QUANTIZE_UNROLL|BIN_WINDOW) \d+",
        'extern "C" __global__ void {name}(',
    ),
    "accessor_blas.cu": (
        ACCESSOR_BASICS
        + [
            "static __device__ __forceinline__ typename A::T block_reduce(",
            "static __device__ __forceinline__ typename A::T finish(",
            "static __device__ __forceinline__ void finish_store(",
        ],
        r"#define (?:DOT_BATCH|\w+_MIN_BLOCKS|GEMV_T_\w+|CSR_ROWS_PER_WARP|CSR_SPLIT_LANES|CSR_PIPELINE_DEPTH|CSR_STREAM_\w+) \d+",
        "static __device__ __forceinline__ void {name}(",
    ),
}

kernel_file = os.path.basename(sys.argv[1])
if kernel_file not in FILES:
    raise SystemExit(f"extract.py: no table for {kernel_file} (known: {', '.join(FILES)})")
write_pair_header(sys.argv, *FILES[kernel_file])
