"""Writes the header scripts/emulate-accessor-trsv.sh compiles: cuda_host.h, then from
kernels/accessor_blas.cu the arithmetic and binary64/binary32 storage structs, the warp trees
and the TRSV functions (trsv_invert, the one-block trsv_solve the H100 bit-compared with the
CPU model, and the pipelined trsv_rows), each with its template line.

    extract_trsv.py kernels/accessor_blas.cu OUT.h
"""
import re
import sys

PIECES = [
    "struct ArithF64 {",
    "struct ArithF32 {",
    "struct StoreF64 {",
    "struct StoreF32 {",
    "static __device__ __forceinline__ typename A::T warp_tree(",
    "static __device__ __forceinline__ typename A::T warp_tree4(",
    "static __device__ __forceinline__ index_t trsv_row(",
    "static __device__ __forceinline__ void trsv_invert(",
    "static __device__ __forceinline__ void trsv_solve(",
    "static __device__ __forceinline__ unsigned int trsv_wait_solved(",
    "static __device__ __forceinline__ void trsv_rows(",
]


def extract(src, start):
    i = src.index(start)
    # The template line just above, if any.
    before = src.rfind("\n", 0, i - 1)
    line = src[before + 1 : i]
    if line.startswith("template <"):
        i = before + 1
    depth = 0
    for k in range(src.index("{", src.index(start)), len(src)):
        depth += {"{": 1, "}": -1}.get(src[k], 0)
        if depth == 0:
            return src[i : k + 1] + (";" if start.startswith("struct") else "")
    raise SystemExit(f"unbalanced braces after {start}")


src = open(sys.argv[1]).read()
out = ['#include "cuda_host.h"']
out += re.findall(r"#define TRSV_ROWS_PER_WARP \d+", src)
out += [extract(src, piece) for piece in PIECES]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
