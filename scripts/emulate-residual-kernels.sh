#!/usr/bin/env bash
# Host emulation of residual kernels changed without a GPU, against a reference version of the
# same kernels (default: commit 17d998c, the kernels bit-compared with the CPU model on the H100
# on 2026-11-27): residual_combine, residual_quantize and residual_abs_bins_f32 from
# kernels/residual.cu (the combine also given P0 in place of D_F, against the reference
# residual_dequantize and combine), compiled as host C++ (scripts/emulate/cuda_host.h: CUDA
# qualifiers defined away, the _rn operations as IEEE binary32 ones without FMA contraction, warp
# reductions and shuffles through a barrier of host threads), under AddressSanitizer and UBSan,
# on random inputs with a fixed seed; outputs compared bit for bit (the histograms by the exact
# sum they stand for: scripts/emulate/residual_abs_bins_main.cpp). residual_combine has no
# barriers, shuffles or shared memory, so its threads run one after another; the other two run a
# host thread per CUDA thread. Needs g++ (C++20) and python3 (scripts/install-system-deps.sh
# --with-emulation); a step of .ci/run since 2026-11-27 (about 1-2 minutes on 2 cores).
#
#   scripts/emulate-residual-kernels.sh [reference-commit]
set -euo pipefail
source "$(dirname "$0")/emulate/lib.sh"
reference="${1:-17d998c}"
git -C "$root" show "$reference:kernels/residual.cu" > "$work/reference.cu"
python3 "$root/scripts/emulate/extract.py" "$root/kernels/residual.cu" "$work/reference.cu" \
    "$work/kern.h" residual_combine residual_quantize residual_dequantize residual_abs_bins_f32
for driver in residual_combine residual_quantize residual_abs_bins; do
    emulate_build "$work" "${driver}_main"
    printf '%s: ' "$driver"
    "$work/${driver}_main"
done
