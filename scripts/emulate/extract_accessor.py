"""Writes the header scripts/emulate-accessor-kernels.sh compiles: cuda_host.h, the #defines
and building blocks of kernels/accessor_blas.cu that the compared kernels use (the arithmetic
and binary64/binary32 storage structs, the warp and block reductions, the BLAS epilogue: each
must read the same in both versions), then each named template function from the current file
and, renamed <name>_reference, from the reference version.

    extract_accessor.py CURRENT.cu REFERENCE.cu OUT.h function [function ...]
"""
import re
import sys

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


def extract(src, start):
    """The piece that begins with `start`, with the template line above it, if any."""
    i = src.index(start)
    before = src.rfind("\n", 0, i - 1)
    if src[before + 1 : i].startswith("template <"):
        i = before + 1
    depth = 0
    for k in range(src.index("{", src.index(start)), len(src)):
        depth += {"{": 1, "}": -1}.get(src[k], 0)
        if depth == 0:
            return src[i : k + 1] + (";" if start.startswith("struct") else "")
    raise SystemExit(f"unbalanced braces after {start}")


current, reference = open(sys.argv[1]).read(), open(sys.argv[2]).read()
out = ['#include "cuda_host.h"']
out += sorted(set(re.findall(DEFINES, current)))
for piece in COMMON:
    if extract(current, piece) != extract(reference, piece):
        raise SystemExit(f"{piece} differs from the reference: compare it by hand first")
    out.append(extract(current, piece))
for name in sys.argv[4:]:
    start = f"static __device__ __forceinline__ void {name}("
    out.append(extract(current, start))
    out.append(extract(reference, start).replace(f" {name}(", f" {name}_reference(", 1))
open(sys.argv[3], "w").write("\n".join(out) + "\n")
