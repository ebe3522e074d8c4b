#!/usr/bin/env bash
# Host emulation of kernels/residual.cu's residual_combine against a reference version of the
# same kernel (default: commit 17d998c, the kernel bit-compared with the CPU model on the H100 on
# 2026-11-27), for a change made without a GPU. Both are compiled as plain C++ (CUDA qualifiers
# defined away, __fdiv_rn/__fadd_rn as IEEE binary32 operations, no FMA contraction) and run with
# every block and thread in turn; the kernel has no barriers, shuffles or shared memory, so that
# is its parallel result. 3000 random cases (dense and CSR products, widths not multiples of the
# block, grid-stride over rows, -0 in D_F), fixed seed, under AddressSanitizer and UBSan;
# outputs compared bit for bit. Needs g++ and python3; not part of .ci/run.
#
#   scripts/emulate-residual-combine.sh [reference-commit]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
reference="${1:-17d998c}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git -C "$root" show "$reference:kernels/residual.cu" > "$work/reference.cu"
python3 - "$root/kernels/residual.cu" "$work/reference.cu" "$work/kern.h" <<'PY'
import re, sys
def extract(src, start):
    i = src.index(start); depth = 0
    for k in range(src.index('{', i), len(src)):
        depth += {'{': 1, '}': -1}.get(src[k], 0)
        if depth == 0:
            return src[i:k + 1]
current, reference = open(sys.argv[1]).read(), open(sys.argv[2]).read()
dequant = '__device__ __forceinline__ float dequant('
if extract(current, dequant) != extract(reference, dequant):
    sys.exit("dequant differs from the reference: compare it by hand first")
kernel = 'extern "C" __global__ void residual_combine('
defines = ''.join(m + '\n' for m in re.findall(r'#define COMBINE_\w+ \d+', current))
prelude = r'''
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
typedef unsigned long long index_t;
#define __device__
#define __forceinline__ inline
#define __global__
#define __restrict__
#define AXIS_TENSOR 0
#define AXIS_ROWS 1
#define AXIS_COLUMNS 2
struct dim3e { unsigned int x, y, z; };
static dim3e threadIdx, blockIdx, blockDim, gridDim;
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __int2float_rn(int i) { return (float)i; }
'''
open(sys.argv[3], 'w').write(prelude + extract(current, dequant) + '\n' + defines
    + extract(current, kernel) + '\n'
    + extract(reference, kernel).replace('residual_combine(', 'combine_old(') + '\n')
PY
g++ -std=c++17 -O1 -ffp-contract=off -Wno-unknown-pragmas -fsanitize=address,undefined \
    -I "$work" -o "$work/emulate" "$root/scripts/emulate/residual_combine_main.cpp"
"$work/emulate"
