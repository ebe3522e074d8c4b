"""Writes the header scripts/emulate-residual-kernels.sh compiles: cuda_host.h, the #defines
and __device__ helpers the kernels use (each must be the same in both versions), then each
named kernel from the current kernels/residual.cu and, renamed <name>_reference, from the
reference version.

    extract.py CURRENT.cu REFERENCE.cu OUT.h kernel [kernel ...]
"""
import re
import sys

HELPERS = [
    "__device__ __forceinline__ index_t line_of(",
    "__device__ __forceinline__ int round_rule(",
    "__device__ __forceinline__ float dequant(",
    "__device__ __forceinline__ void abs_bin(",
]
DEFINES = r"#define (?:AXIS_\w+|ROUND_\w+|COMBINE_UNROLL|QUANTIZE_UNROLL|BIN_WINDOW) \d+"


def extract(src, start):
    i = src.index(start)
    depth = 0
    for k in range(src.index("{", i), len(src)):
        depth += {"{": 1, "}": -1}.get(src[k], 0)
        if depth == 0:
            return src[i : k + 1]
    raise SystemExit(f"unbalanced braces after {start}")


current, reference = open(sys.argv[1]).read(), open(sys.argv[2]).read()
out = ['#include "cuda_host.h"']
out += sorted(set(re.findall(DEFINES, current)))
for helper in HELPERS:
    if extract(current, helper) != extract(reference, helper):
        raise SystemExit(f"{helper} differs from the reference: compare it by hand first")
    out.append(extract(current, helper))
for name in sys.argv[4:]:
    start = f'extern "C" __global__ void {name}('
    out.append(extract(current, start))
    out.append(extract(reference, start).replace(f"{name}(", f"{name}_reference(", 1))
open(sys.argv[3], "w").write("\n".join(out) + "\n")
