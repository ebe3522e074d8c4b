#!/usr/bin/env bash
# Host emulation of accessor kernels changed without a GPU, against a reference version of the
# same kernels (default: commit 2d0a702, whose kernels/accessor_blas.cu the H200 bit-compared
# with the CPU models on 2026-11-27): dot_blocks (loads batched four terms at a time) and
# spmv_ell (unconditional loads, the last slots as one more batch), compiled as host C++
# (scripts/emulate/cuda_host.h: CUDA qualifiers defined away, the _rn operations as IEEE ones
# without FMA contraction, shuffles and __syncthreads through barriers of host threads) under
# AddressSanitizer and UBSan, on random inputs with a fixed seed
# (scripts/emulate/accessor_kernels_main.cpp); outputs compared bit for bit. Then four mutants,
# each of which must fail. The SpMV CSR and GEMV^T kernels changed only in their launch bounds,
# which do not change what a thread computes. Needs g++ (C++20) and python3
# (scripts/install-system-deps.sh --with-emulation); a step of .ci/run.
#
#   scripts/emulate-accessor-kernels.sh [reference-commit]
set -euo pipefail
source "$(dirname "$0")/emulate/lib.sh"
reference="${1:-2d0a702}"
git -C "$root" show "$reference:kernels/accessor_blas.cu" > "$work/reference.cu"
python3 "$root/scripts/emulate/extract.py" "$root/kernels/accessor_blas.cu" "$work/reference.cu" \
    "$work/kern.h" dot_blocks spmv_ell
emulate_build "$work" accessor_kernels_main
"$work/accessor_kernels_main"
# Mutants of the current kernels (each sed script confined to the current function, which
# kern.h has before its reference copy): a full DOT batch's terms added in reverse, a term
# dropped from a partial one, the last ELL slot dropped, a padding slot's (NaN) value added.
dot='/void dot_blocks(/,/void dot_blocks_reference(/'
ell='/void spmv_ell(/,/void spmv_ell_reference(/'
mutants=(
    "$dot s/read<A>(\([xy]\), i + u \* stride)/read<A>(\1, i + (DOT_BATCH - 1 - u) * stride)/"
    "$dot s/for (unsigned int u = 0; u < DOT_BATCH - 1; ++u) {/for (unsigned int u = 0; u < DOT_BATCH - 2; ++u) {/"
    "$ell s/c\[u\] = k + u < width ? col_idx/c[u] = k + u + 1 < width ? col_idx/"
    "$ell s/            if (c\[u\] >= 0) {/            if (c[u] >= -1) {/"
)
for i in "${!mutants[@]}"; do
    printf 'mutant %d (%s): ' "$i" "${mutants[$i]}"
    emulate_mutant "$i" "${mutants[$i]}" accessor_kernels_main kernels/accessor_blas.cu
done
echo "every mutant caught"
