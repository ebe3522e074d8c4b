"""Writes the header scripts/emulate-accessor-trsv.sh compiles: cuda_host.h, then from
kernels/accessor_blas.cu the arithmetic and binary64/binary32 storage structs, the warp trees
and the TRSV functions (trsv_invert, trsv_apply_inverse, the one-block trsv_solve the H100 bit-compared with the
CPU model, and the pipelined trsv_rows), each with its template line.

    extract_trsv.py kernels/accessor_blas.cu OUT.h
"""
import re
import sys

from pieces import ACCESSOR_BASICS, extract

PIECES = ACCESSOR_BASICS + [
    "static __device__ __forceinline__ index_t trsv_row(",
    "static __device__ __forceinline__ void trsv_invert(",
    "static __device__ __forceinline__ typename A::T trsv_apply_inverse(",
    "static __device__ __forceinline__ void trsv_solve(",
    "static __device__ __forceinline__ unsigned int trsv_wait_solved(",
    "static __device__ __forceinline__ void trsv_rows(",
]


src = open(sys.argv[1]).read()
out = ['#include "cuda_host.h"']
out += re.findall(r"#define TRSV_(?:ROWS_PER_WARP|Y_STRIDE|STAGE_X|X_CHUNKS|CHAIN_WAYS|Y_REGISTERS) \d+", src)
out += [extract(src, piece) for piece in PIECES]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
