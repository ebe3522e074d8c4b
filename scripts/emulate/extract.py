"""Writes the header scripts/emulate-residual-kernels.sh compiles: cuda_host.h, the #defines
and __device__ helpers the kernels use (each must be the same in both versions), then each
named kernel from the current kernels/residual.cu and, renamed <name>_reference, from the
reference version.

    extract.py CURRENT.cu REFERENCE.cu OUT.h kernel [kernel ...]
"""
import sys

from pieces import write_pair_header

HELPERS = [
    "__device__ __forceinline__ index_t line_of(",
    "__device__ __forceinline__ int round_rule(",
    "__device__ __forceinline__ float dequant(",
    "__device__ __forceinline__ void abs_bin(",
]
DEFINES = r"#define (?:AXIS_\w+|ROUND_\w+|COMBINE_UNROLL|QUANTIZE_UNROLL|BIN_WINDOW) \d+"


write_pair_header(sys.argv, HELPERS, DEFINES, 'extern "C" __global__ void {name}(')
