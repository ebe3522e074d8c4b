"""Writes the header scripts/emulate-accessor-kernels.sh compiles: cuda_host.h, the #defines
and building blocks of kernels/accessor_blas.cu that the compared kernels use (the arithmetic
and binary64/binary32 storage structs, the warp and block reductions, the BLAS epilogue: each
must read the same in both versions), then each named template function from the current file
and, renamed <name>_reference, from the reference version.

    extract_accessor.py CURRENT.cu REFERENCE.cu OUT.h function [function ...]
"""
import sys

from pieces import write_pair_header

COMMON = [
    "struct ArithF64 {",
    "struct ArithF32 {",
    "struct StoreF64 {",
    "struct StoreF32 {",
    "static __device__ __forceinline__ typename A::T warp_tree(",
    "static __device__ __forceinline__ typename A::T block_reduce(",
    "static __device__ __forceinline__ typename A::T finish(",
    "static __device__ __forceinline__ void finish_store(",
]
DEFINES = r"#define (?:DOT_BATCH|\w+_MIN_BLOCKS) \d+"


write_pair_header(sys.argv, COMMON, DEFINES, "static __device__ __forceinline__ void {name}(")
