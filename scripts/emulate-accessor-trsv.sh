#!/usr/bin/env bash
# Host emulation of the pipelined accessor TRSV (kernels/accessor_blas.cu: trsv_rows, written
# without a GPU on 2026-11-27) against the one-block trsv_solve of the same file, which the H100
# bit-compared with the CPU model (2026-11-24, 2026-11-26): both compiled as host C++
# (scripts/emulate/cuda_host.h: CUDA qualifiers defined away, the _rn operations as IEEE ones
# without FMA contraction, shuffles and __syncthreads through barriers of host threads, a host
# thread per CUDA thread) under AddressSanitizer and UBSan, with a fixed seed
# (scripts/emulate/accessor_trsv_main.cpp): 240 random systems with the blocks one after another,
# then 24 with every block at once, each in a process of its own sharing x and the counters;
# solutions compared bit for bit; the same again with x loaded per warp (TRSV_STAGE_X 0, the
# variant the H200 measured) and with the inverse's rows read into registers before the trees
# (TRSV_Y_REGISTERS 1). Then ten mutants of trsv_rows, each of which must fail: seven
# in the arithmetic and indexing (the prefetched chunk, the sign of the update, the order of the
# inverse's chain, the lane holding a row's tree, the inverse's rows filled 32 apart and read 33
# apart in shared memory, a staged chunk of x read from the wrong slot, and with TRSV_Y_REGISTERS
# 1 the rows taken into registers 32 apart), three in the waits (the
# count waited for, the count taken as known, chunks of x staged past the solved count), which
# only blocks running at once can catch. Then the kernels against the CPU model itself
# (examples/accessor_trsv_emulation.rs, 32 systems the driver's `dump` writes: inverses, x and the
# stored x bit for bit) with the product with the inverse over TRSV_CHAIN_WAYS chains at its
# default, at 1 (the order the devices measured until 2026-11-28), 3 and 8, with TRSV_Y_REGISTERS
# 1, and three mutants of
# what the two kernels share (trsv_apply_inverse: the chains' columns, the tree, the diagonal
# term), which only the model can catch. The host's memory model is
# stronger than the GPU's: this checks the protocol's logic and the ticket order, not its fences
# (that needs the device: tests/accessor_gpu.rs). Needs g++
# (C++20) and python3 (scripts/install-system-deps.sh --with-emulation); a step of .ci/run
# (about 6 minutes on 2 cores).
#
#   scripts/emulate-accessor-trsv.sh
set -euo pipefail
source "$(dirname "$0")/emulate/lib.sh"
python3 "$root/scripts/emulate/extract_trsv.py" "$root/kernels/accessor_blas.cu" "$work/kern.h"
emulate_build "$work" accessor_trsv_main
printf 'trsv_rows: '
"$work/accessor_trsv_main"
variant() {  # DIR NAME VALUE: $work/DIR/kern.h with the knob NAME at VALUE, built
    mkdir "$work/$1"
    sed "s/^#define $2 [0-9]*$/#define $2 $3/" "$work/kern.h" > "$work/$1/kern.h"
    if ! grep -q "^#define $2 $3$" "$work/$1/kern.h"; then
        echo "no '#define $2' in kernels/accessor_blas.cu: update this script" >&2
        exit 1
    fi
    emulate_build "$work/$1" accessor_trsv_main
}
# The same with TRSV_STAGE_X 0, the kernel the H200 measured on 2026-11-27c, kept for the next
# device session's comparison, and with TRSV_Y_REGISTERS 1 (the inverse's rows read into
# registers before the trees, written without a device): both must stay right too.
variant unstaged TRSV_STAGE_X 0
printf 'trsv_rows with TRSV_STAGE_X 0: '
"$work/unstaged/accessor_trsv_main"
variant yregs TRSV_Y_REGISTERS 1
printf 'trsv_rows with TRSV_Y_REGISTERS 1: '
"$work/yregs/accessor_trsv_main"
# Each mutant with the phase that must catch it: the arithmetic's in the sequential phase, the
# waits' only where blocks run at once (a block reading a chunk of x before it is published).
mutants=(
    'sequential|s/(j + 1) \* 32 + lane)/j * 32 + lane)/'
    'sequential|s/A::sub(bp, tree)/A::sub(tree, bp)/'
    'sequential|s/trsv_apply_inverse<A>(row, y + row \* TRSV_Y_STRIDE, v)/trsv_apply_inverse<A>(row, y + row * TRSV_Y_STRIDE + 1, v)/'
    'sequential|s/const index_t tree_row = first + (lane >> 3);/const index_t tree_row = first + (lane \& 3u);/'
    'sequential|s/y\[(e >> 5) \* TRSV_Y_STRIDE + (e \& 31u)\]/y[(e >> 5) * 32 + (e \& 31u)]/'
    'concurrent|s/trsv_wait_solved(\&sync\[1\], (unsigned int)j + 1u)/trsv_wait_solved(\&sync[1], (unsigned int)j)/'
    'concurrent|s/ready = seen;/ready = seen + 1;/'
    'sequential|s/xq = xs\[(j - staged) \* 32 + lane\];/xq = xs[lane];/'
    'concurrent|s/staged_end = ready < j + TRSV_X_CHUNKS ? (index_t)ready : j + TRSV_X_CHUNKS;/staged_end = j + TRSV_X_CHUNKS;/'
    'sequential|s/^#define TRSV_Y_REGISTERS 0$/#define TRSV_Y_REGISTERS 1/; s/y_reg\[c\] = y\[lane \* TRSV_Y_STRIDE + c\];/y_reg[c] = y[lane * 32 + c];/'
)
for i in "${!mutants[@]}"; do
    phase="${mutants[$i]%%|*}"
    edit="${mutants[$i]#*|}"
    printf 'mutant %d (%s, %s phase): ' "$i" "$edit" "$phase"
    emulate_mutant "$i" "$edit" accessor_trsv_main kernels/accessor_blas.cu "$phase"
done
echo "every mutant caught"

# The kernels against the CPU model (the comparisons above are kernel against kernel).
cargo build --quiet --features cuda --example accessor_trsv_emulation
model_check() {  # DIR: the kern.h built there, dumped and checked; the check's status
    "$1/accessor_trsv_main" dump "$1/systems.txt" > /dev/null
    cargo run --quiet --features cuda --example accessor_trsv_emulation -- "$1/systems.txt"
}
printf 'against the CPU model: '
model_check "$work"
for ways in 1 3 8; do
    variant "ways$ways" TRSV_CHAIN_WAYS "$ways"
    printf 'TRSV_CHAIN_WAYS %d against the CPU model: ' "$ways"
    model_check "$work/ways$ways"
done
printf 'TRSV_Y_REGISTERS 1 against the CPU model: '
model_check "$work/yregs"
model_mutants=(
    's/part\[c % TRSV_CHAIN_WAYS\] = A::fma(y_row\[c\], v\[c\], part\[c % TRSV_CHAIN_WAYS\])/part[c \/ 8 % TRSV_CHAIN_WAYS] = A::fma(y_row[c], v[c], part[c \/ 8 % TRSV_CHAIN_WAYS])/'
    's/part\[w\] = A::add(part\[w\], part\[w + s\])/part[0] = A::add(part[0], part[w + s])/'
    's/        if (c <= row) {/        if (c < row) {/'
)
for i in "${!model_mutants[@]}"; do
    printf 'model mutant %d (%s): ' "$i" "${model_mutants[$i]}"
    emulate_checked_mutant "$i" "${model_mutants[$i]}" accessor_trsv_main model_check
done
echo "every model mutant caught"
