#!/usr/bin/env bash
# The accessor SpMV kernels (spmv_csr, spmv_csr_stream and spmv_ell of kernels/accessor_blas.cu),
# compiled as host C++ (scripts/emulate/cuda_host.h, as scripts/emulate-accessor-kernels.sh builds
# them), against the CPU model itself: the driver's `dump` (scripts/emulate/accessor_kernels_main.cpp)
# writes 30 CSR, 30 ELL and 30 CSR-stream products over the three pairs fp64/fp64, fp32/fp64 and
# fp32/fp32 with the kernels' outputs, and examples/accessor_spmv_emulation.rs computes each with
# the model and compares every bit; for the default tuning and the CSR kernels' other settings
# (CSR_SPLIT_LANES 0, CSR_PIPELINE_DEPTH 2 and 3, CSR_STREAM_BATCH 1). Unlike
# scripts/emulate-accessor-kernels.sh it needs no reference commit from the git history, so it
# runs in any clone (the header's reference pieces are the current file's, unused here). Then three mutants, which must fail it.
# The TRSV kernels' model check is in scripts/emulate-accessor-trsv.sh. Needs g++ (C++20),
# python3 (scripts/install-system-deps.sh --with-emulation) and cargo; a step of .ci/run (about
# 3 minutes on 2 cores).
#
#   scripts/emulate-accessor-models.sh
set -euo pipefail
source "$(dirname "$0")/emulate/lib.sh"
python3 "$root/scripts/emulate/extract.py" "$root/kernels/accessor_blas.cu" "$root/kernels/accessor_blas.cu" \
    "$work/kern.h" dot_blocks spmv_ell +warp_tree4_split +csr_bounds +csr_chain_bounds +csr_entries \
    +csr_chain_step spmv_csr gemv_t +spmv_csr_stream
cargo build --quiet --features cuda --example accessor_spmv_emulation
model_check() {  # DIR: the driver built there dumps, the model checks; the check's status
    "$1/accessor_kernels_main" dump "$1/products.txt" > /dev/null
    cargo run --quiet --features cuda --example accessor_spmv_emulation -- "$1/products.txt"
}
variants=(
    'default|'
    'CSR_SPLIT_LANES 0|s/^#define CSR_SPLIT_LANES 1$/#define CSR_SPLIT_LANES 0/'
    'CSR_PIPELINE_DEPTH 2|s/^#define CSR_PIPELINE_DEPTH 1$/#define CSR_PIPELINE_DEPTH 2/'
    'CSR_PIPELINE_DEPTH 3|s/^#define CSR_PIPELINE_DEPTH 1$/#define CSR_PIPELINE_DEPTH 3/'
    'CSR_STREAM_BATCH 1|s/^#define CSR_STREAM_BATCH 8$/#define CSR_STREAM_BATCH 1/'
)
for i in "${!variants[@]}"; do
    name="${variants[$i]%%|*}"
    edit="${variants[$i]#*|}"
    dir="$work/v$i"
    mkdir "$dir"
    if [ -z "$edit" ]; then
        cp "$work/kern.h" "$dir/kern.h"
    else
        sed "$edit" "$work/kern.h" > "$dir/kern.h"
        if cmp -s "$work/kern.h" "$dir/kern.h"; then
            echo "$name: its sed script ($edit) no longer changes the header: update this script" >&2
            exit 1
        fi
    fi
    emulate_build "$dir" accessor_kernels_main
    printf '%s against the CPU model: ' "$name"
    model_check "$dir"
done
# Three mutants, each of which must fail the model check: the split-lane CSR tree's levels in the
# other order (1, 2, 4 instead of 4, 2, 1), ELL's FMAs as a multiply and an add, and the CSR-stream
# chain over a chunk's entries of its row in decreasing position.
mutants=(
    's/for (unsigned int off = 4; off > 0; off >>= 1) {/for (unsigned int off = 1; off < 8; off <<= 1) {/'
    's/acc = A::fma(v\[u\], xv\[u\], acc);/acc = A::add(A::mul(v[u], xv[u]), acc);/'
    's/for (unsigned int k = from; k < to; ++k) {/for (unsigned int k = to; k-- > from;) {/'
)
for i in "${!mutants[@]}"; do
    printf 'mutant %d (%s): ' "$i" "${mutants[$i]}"
    emulate_checked_mutant "$i" "${mutants[$i]}" accessor_kernels_main model_check
done
echo "every mutant caught"
