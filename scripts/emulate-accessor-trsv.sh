#!/usr/bin/env bash
# Host emulation of the pipelined accessor TRSV (kernels/accessor_blas.cu: trsv_rows, written
# without a GPU on 2026-11-27) against the one-block trsv_solve of the same file, which the H100
# bit-compared with the CPU model (2026-11-24, 2026-11-26): both compiled as host C++
# (scripts/emulate/cuda_host.h: CUDA qualifiers defined away, the _rn operations as IEEE ones
# without FMA contraction, shuffles and __syncthreads through barriers of host threads, a host
# thread per CUDA thread) under AddressSanitizer and UBSan, on 240 random systems with a fixed
# seed (scripts/emulate/accessor_trsv_main.cpp); solutions compared bit for bit. Then four
# mutants of trsv_rows (the prefetched chunk, the sign of the update, the order of the inverse's
# chain, the lane holding a row's tree), each of which must fail. Blocks run one after another,
# so this checks the arithmetic, the indexing and the ticket order, not the memory ordering
# between blocks running at once (that needs the device: tests/accessor_gpu.rs). Needs g++
# (C++20) and python3 (scripts/install-system-deps.sh --with-emulation); the last step of
# .ci/run (about two minutes on 2 cores).
#
#   scripts/emulate-accessor-trsv.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$root/scripts/emulate/extract_trsv.py" "$root/kernels/accessor_blas.cu" "$work/kern.h"
build() {
    g++ -std=c++20 -O1 -ffp-contract=off -Wno-unknown-pragmas -pthread \
        -fsanitize=address,undefined -I "$1" -I "$root/scripts/emulate" \
        -o "$1/trsv" "$root/scripts/emulate/accessor_trsv_main.cpp"
}
build "$work"
printf 'trsv_rows: '
"$work/trsv"
mutants=(
    's/(j + 1) \* 32 + lane)/j * 32 + lane)/'
    's/A::sub(bp, tree)/A::sub(tree, bp)/'
    's/out = A::fma(y\[row \* 32 + c\], v\[c\], out)/out = A::fma(y[row * 32 + (row - c)], v[row - c], out)/'
    's/const index_t r = first + (lane >> 3);/const index_t r = first + (lane \& 3u);/'
)
for i in "${!mutants[@]}"; do
    mkdir "$work/m$i"
    sed "${mutants[$i]}" "$work/kern.h" > "$work/m$i/kern.h"
    if cmp -s "$work/kern.h" "$work/m$i/kern.h"; then
        echo "mutant $i: the pattern no longer matches kernels/accessor_blas.cu: update it" >&2
        exit 1
    fi
    build "$work/m$i"
    printf 'mutant %d (%s): ' "$i" "${mutants[$i]}"
    if "$work/m$i/trsv" > "$work/m$i/log"; then
        echo "NOT caught" >&2
        exit 1
    fi
    head -c 160 "$work/m$i/log"
    echo
done
echo "every mutant caught"
