#!/usr/bin/env bash
# Host emulation of accessor kernels changed without a GPU, against a reference version of the
# same kernels (default: commit 2d0a702, whose kernels/accessor_blas.cu the H200 bit-compared
# with the CPU models on 2026-11-27): dot_blocks (loads batched four terms at a time), spmv_ell
# (unconditional loads, the last slots as one more batch), spmv_csr (32-bit positions, row
# groups in a pipeline, any grid, a row's 32 lanes held two to a thread by half-warps; then
# again with CSR_SPLIT_LANES=0, lane l of the warp lane l of each row, and with
# CSR_PIPELINE_DEPTH 2 and 3, two and three groups' entries in flight per warp) and
# gemv_t (x converted once per warp into shared memory, 16-row batches), compiled as host C++
# (scripts/emulate/cuda_host.h: CUDA qualifiers defined away, the _rn operations as IEEE ones
# without FMA contraction, shuffles, __syncwarp and __syncthreads through barriers of host
# threads) under AddressSanitizer and UBSan, on random inputs with a fixed seed
# (scripts/emulate/accessor_kernels_main.cpp); outputs compared bit for bit. Then eleven mutants,
# each of which must fail. Needs g++ (C++20) and python3
# (scripts/install-system-deps.sh --with-emulation); a step of .ci/run. The CSR-stream kernel
# (spmv_csr_stream, 2026-11-28) has no reference version: it is copied in only because the
# driver's `dump` runs it, and scripts/emulate-accessor-models.sh checks it against the model.
#
#   scripts/emulate-accessor-kernels.sh [reference-commit]
set -euo pipefail
source "$(dirname "$0")/emulate/lib.sh"
reference="${1:-2d0a702}"
git -C "$root" show "$reference:kernels/accessor_blas.cu" > "$work/reference.cu"
python3 "$root/scripts/emulate/extract.py" "$root/kernels/accessor_blas.cu" "$work/reference.cu" \
    "$work/kern.h" dot_blocks spmv_ell +warp_tree4_split +csr_bounds +csr_chain_bounds +csr_entries \
    +csr_chain_step spmv_csr gemv_t +spmv_csr_stream
emulate_build "$work" accessor_kernels_main
"$work/accessor_kernels_main"
# The CSR kernel's other settings against the same reference: without split lanes
# (CSR_SPLIT_LANES=0, the default until 2026-11-28) and with deeper pipelines.
unsplit='s/^#define CSR_SPLIT_LANES 1$/#define CSR_SPLIT_LANES 0/'
depth2='s/^#define CSR_PIPELINE_DEPTH 1$/#define CSR_PIPELINE_DEPTH 2/'
depth3='s/^#define CSR_PIPELINE_DEPTH 1$/#define CSR_PIPELINE_DEPTH 3/'
variants=(unsplit depth2 depth3)
for name in "${variants[@]}"; do
    mkdir "$work/$name"
    sed "${!name}" "$work/kern.h" > "$work/$name/kern.h"
    if cmp -s "$work/kern.h" "$work/$name/kern.h"; then
        echo "$name: its sed script (${!name}) no longer changes the header: update this script" >&2
        exit 1
    fi
    emulate_build "$work/$name" accessor_kernels_main
    printf '%s: ' "$name"
    "$work/$name/accessor_kernels_main" spmv_csr
done
# Mutants of the current kernels (each sed script confined to the current function, which
# kern.h has before its reference copy): a full DOT batch's terms added in reverse, a term
# dropped from a partial one, the last ELL slot dropped, a padding slot's (NaN) value added, the
# last step of a CSR group's longest row dropped, a CSR warp's next group given this group's
# column indices, GEMV^T's second batch given the first one's x, the last row of a GEMV^T
# staging left unstaged, a row's upper 16 lanes started one entry early (split lanes), and
# without split lanes the last step of a group's longest row dropped, and with a pipeline two
# deep the second group's values given the third's.
dot='/void dot_blocks(/,/void dot_blocks_reference(/'
ell='/void spmv_ell(/,/void spmv_ell_reference(/'
gemv_t='/void gemv_t(/,/void gemv_t_reference(/'
csr='/void spmv_csr(/,/void spmv_csr_reference(/'
mutants=(
    "$dot s/read<A>(\([xy]\), i + u \* stride)/read<A>(\1, i + (DOT_BATCH - 1 - u) * stride)/"
    "$dot s/for (unsigned int u = 0; u < DOT_BATCH - 1; ++u) {/for (unsigned int u = 0; u < DOT_BATCH - 2; ++u) {/"
    "$ell s/c\[u\] = k + u < width ? col_idx/c[u] = k + u + 1 < width ? col_idx/"
    "$ell s/            if (c\[u\] >= 0) {/            if (c[u] >= -1) {/"
    "$csr s/step < longest; step += 32/step + 1 < longest; step += 32/"
    "$csr s/            c\[D - 1\]\[r\] = c_last\[r\];/            c[D - 1][r] = c[D - 1][r];/"
    "$gemv_t s/acc = A::fma(av\[u\], xs\[t + u\], acc);/acc = A::fma(av[u], xs[u], acc);/"
    "$gemv_t s/if (i + groups \* c < m) {/if (i + groups * c + groups < m) {/"
    "/void csr_chain_bounds(/,/^}/ s/b + 16u : e;/b + 15u : e;/"
    "$unsplit; $csr s/step < longest; step += 32/step + 1 < longest; step += 32/"
    "$depth2; $csr s/                v\[d\]\[r\] = v\[d + 1\]\[r\];/                v[d][r] = v_last[r];/"
)
# The kernel each mutant changes: its run emulates only that one.
targets=(dot_blocks dot_blocks spmv_ell spmv_ell spmv_csr spmv_csr gemv_t gemv_t spmv_csr spmv_csr spmv_csr)
for i in "${!mutants[@]}"; do
    printf 'mutant %d (%s): ' "$i" "${mutants[$i]}"
    emulate_mutant "$i" "${mutants[$i]}" accessor_kernels_main kernels/accessor_blas.cu "${targets[$i]}"
done
echo "every mutant caught"
