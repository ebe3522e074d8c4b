#!/usr/bin/env bash
# Generates, HERE, the HotSpot3D schedules that the GPU bench
# (benches/interleave_gpu.rs) replays on a device: Rodinia's 512x512x8, 500
# iterations, half as the approximate kernel, synthetic inputs of seed 1,
# runtimes from the thesis's A100 cost model (deterministic), subsections
# 2 and 4, limits L_max x {1,2,3}/4, the thesis's and the predictive rule,
# each as simulated (`interleave schedule`) and refined with the execution in
# the loop (`interleave refine`, suffix -refined). Every schedule is executed
# here on the CPU model with its limit checked at every iteration; the
# verdicts and modelled speedups go into plans/interleave-gpu/schedules.csv.
#
# Profiles and sampling do not depend on the device (the loss is a property
# of the arithmetic, which the CUDA kernels reproduce bit for bit), only the
# runtimes do: the bench measures them and reports the speedup on the device.
#
# Usage: scripts/interleave-gpu-schedules.sh   (about 20 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-system-deps.sh >&2
cargo build --release --bin boundgate >&2
bg=target/release/boundgate
OUT=plans/interleave-gpu
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
problem=(--grid 512x512x8 --seed 1 --no-ground-truth)

"$bg" interleave profile "${problem[@]}" --iterations 500 --approx half --out "$work"
for s in 2 4; do
    "$bg" interleave sample "${problem[@]}" --approx-profile "$work/approx.csv" \
        --exact-profile "$work/exact.csv" --sections "$s" --out "$work/s$s" &
done
wait

mkdir -p "$OUT"
rm -f "$OUT"/*.txt
echo "file,sections,fraction,policy,limit,modelled_speedup,verdict" >"$work/schedules.csv"
# Executes $OUT/$1 against limit $2 on the CPU model; appends its CSV row.
check() {
    local name="$1" limit="$2" s="$3" f="$4" p="$5" executed rc speedup verdict
    set +e
    executed="$("$bg" interleave execute "${problem[@]}" --schedule "$OUT/$name" \
        --threshold "$limit" | grep -v '^ ')"
    rc=$?
    set -e
    echo "$executed" >&2
    speedup="$(sed -n 's/.*: speedup \([^ ]*\) .*/\1/p' <<<"$executed")"
    verdict=$([[ $rc == 0 ]] && echo within || echo exceeded)
    echo "$name,$s,$f,$p,$limit,$speedup,$verdict" >>"$work/schedules.csv"
}
for s in 2 4; do
    for f in 0.25 0.5 0.75; do
        for p in thesis predictive; do
            files=(--approx-profile "$work/approx.csv" --exact-profile "$work/exact.csv"
                --measurements "$work/s$s" --fraction "$f" --policy "$p")
            name="s${s}-f${f}-${p}.txt"
            line="$("$bg" interleave schedule "${files[@]}" --out "$OUT/$name")"
            echo "$line" >&2
            limit="$(sed -n 's/^limit \([^ ]*\) .*/\1/p' <<<"$line")"
            check "$name" "$limit" "$s" "$f" "$p"
            refined="s${s}-f${f}-${p}-refined.txt"
            "$bg" interleave refine "${problem[@]}" "${files[@]}" --out "$OUT/$refined" >&2
            check "$refined" "$limit" "$s" "$f" "$p-refined"
        done
    done
done
# `schedule` writes each sampling's statistics and targets beside the schedule:
# derived data, dropped here (the profiles below regenerate them).
rm -f "$OUT/statistics.csv" "$OUT/targets.csv"
cp "$work/schedules.csv" "$OUT/schedules.csv"
cp "$work/approx.csv" "$OUT/profile-approx.csv"
cp "$work/exact.csv" "$OUT/profile-exact.csv"
cat "$OUT/schedules.csv"
