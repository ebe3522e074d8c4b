#!/usr/bin/env bash
# Runs, ON THE LENT DEVICE, what scripts/gpu-stage.sh built here and staged in
# gpu-stage/. Called through the device tool from the repository root:
#
#   run(command="bash scripts/gpu-device.sh [STEP ...]", carry=["gpu-stage"])
#
# STEP is any of: env ceilings tests memcheck racecheck bench profile audit
# (profile: Nsight Compute's per-kernel durations of one bench, or the
# sections of some of its launches). Default: all
# but profile and audit, in that order (audit writes its report's files, 8
# with the log and the summary, and the tool brings back at most 8, so it
# runs alone). Steps joined by '+' run at the same time (e.g.
# tests+memcheck+racecheck: correctness work may share the GPU; timing steps
# should run alone). Each step writes its own log under $OUT; every command,
# env's included, runs under its own time limit so that one hang cannot eat
# the whole call, and DEADLINE (seconds from the start, e.g. the call's
# timeout_s less 20) caps them all: nothing runs past DEADLINE - 10 s, so the
# summary table, the last lines printed, always comes out. Knobs:
# SANITIZE="bin:filter ...", SANITIZE_LIMIT, TEST_LIMIT (per test binary,
# 300 s), TEST_FILTER, TESTS="name ...", BENCHES="name ...", BENCH_LIMIT, PROFILE_BENCH,
# PROFILE_LIMIT, PROFILE_KERNELS (+ PROFILE_SKIP, PROFILE_COUNT, PROFILE_SECTIONS: the
# sections of chosen launches instead of every kernel's duration), DEADLINE. The exit status is 1 when any row is FAIL,
# TIMEOUT, MISSING, UNKNOWN or SKIPPED (rows EMPTY, a filter that matched no
# test, are shown, not counted).
#
# The device has CUDA 13 (nvcc, NVRTC, cuBLAS, compute-sanitizer) but no Rust;
# the binaries load libcuda, NVRTC and cuBLAS at run time (cudarc dynamic
# loading), found through LD_LIBRARY_PATH, and NVRTC gets the toolkit's headers
# through BOUNDGATE_CUDA_INCLUDE.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

OUT="${OUT:-$PWD/gpu-out}"
mkdir -p "$OUT"
STAGE=gpu-stage
STEPS=("$@")
((${#STEPS[@]})) || STEPS=(env ceilings tests memcheck racecheck bench)
# What compute-sanitizer runs: test binary (without test-) and a name filter
# (libtest's substring match; empty = every #[ignore]d device test). The
# filters pick the device tests whose kernels are the ones to check and
# leave out those whose time goes to host-side models or big sweeps.
SANITIZE_RUNS=(
    "gpu_dot:"
    "interleave_gpu:"
    "accessor_gpu:device::"
    "mpfma_gpu:gpu_gemm_matches_the_model_bit_for_bit"
    "mpfma_gpu:the_pipelined_and_wide_gemms_match_the_model_bit_for_bit"
    "qdot_gpu:fp16x2_half_bins_match_the_cpu_model_bit_for_bit"
    "qdot_gpu:gpu_matches_the_cpu_model_bit_for_bit_and_the_bound"
    "residual_gpu:dp4a_gemm_path"
    "residual_gpu:imma_gemm_path"
)
# SANITIZE="bin:filter bin:filter" replaces the list (filters without spaces).
if [[ -n "${SANITIZE:-}" ]]; then
    read -r -a SANITIZE_RUNS <<<"$SANITIZE"
fi
# 240 s: the residual GEMM sweeps and the qdot bit-compare took 140 s under
# racecheck on 2026-11-24, before they grew (review, 2026-11-26).
SANITIZE_LIMIT="${SANITIZE_LIMIT:-240}"
BENCH_LIMIT="${BENCH_LIMIT:-300}"
TEST_FILTER="${TEST_FILTER:-}"
TEST_LIMIT="${TEST_LIMIT:-300}"
# DEADLINE=seconds after the start: no command is started, or may run, past
# DEADLINE - 10 s (so the summary is printed inside the call's timeout_s).
DEADLINE="${DEADLINE:-}"

CUDA_ROOT="${CUDA_HOME:-/usr/local/cuda}"
cublas_lib="$(timeout -k 5 30 find / -xdev -name 'libcublas.so.13*' -print -quit 2>/dev/null || true)"
# Empty when cuBLAS is nowhere (dirname "" would say ".").
cublas_dir="${cublas_lib:+$(dirname "$cublas_lib")}"
export LD_LIBRARY_PATH="$CUDA_ROOT/lib64${cublas_dir:+:$cublas_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export BOUNDGATE_CUDA_INCLUDE="$CUDA_ROOT/include"
# Keep the install script's PyPI cache (absent there) out of the search.
export BOUNDGATE_CUDA_HOME=/nonexistent
export RUST_BACKTRACE=1
PATH="$CUDA_ROOT/bin:$PATH"

# Steps may run in parallel (subshells): the summary goes through a file.
SUMMARY_FILE="$OUT/summary.txt"
: >"$SUMMARY_FILE"
record() { printf '%-44s %-10s %s\n' "$1" "$2" "$3" >>"$SUMMARY_FILE"; }

# run_logged LOG LIMIT_S LABEL CMD...: appends CMD's output to LOG under a time
# limit and records PASS/FAIL/TIMEOUT with the wall time.
run_logged() {
    local log="$1" limit="$2" label="$3"
    shift 3
    local start rc off
    if [[ -n "$DEADLINE" ]]; then
        local left=$((DEADLINE - SECONDS - 10))
        if ((left < 5)); then
            record "$label" SKIPPED "deadline"
            return
        fi
        ((limit > left)) && limit=$left
    fi
    off=$(stat -c %s "$log" 2>/dev/null || echo 0)
    start=$(date +%s%N)
    {
        echo
        echo "=== $label: $*"
        echo "=== started $(date -u +%H:%M:%S), limit ${limit}s"
    } >>"$log"
    timeout --kill-after=10 "$limit" "$@" >>"$log" 2>&1
    rc=$?
    local ms=$((($(date +%s%N) - start) / 1000000))
    local secs="$((ms / 1000)).$(((ms % 1000) / 100))"
    local verdict=PASS
    if ((rc == 124 || (rc == 137 && ms >= limit * 1000))); then
        verdict=TIMEOUT
    elif ((rc != 0)); then
        verdict="FAIL($rc)"
    elif tail -c +$((off + 1)) "$log" | grep -q '^running 0 tests$'; then
        verdict=EMPTY
    fi
    echo "=== $label: $verdict in ${secs}s" >>"$log"
    record "$label" "$verdict" "${secs}s"
}

step_env() {
    local log="$OUT/device.txt"
    local t="timeout -k 5 30"
    {
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "host: $(uname -a)"
        cat "$STAGE/MANIFEST" 2>/dev/null
        $t nvidia-smi
        $t nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv
        $t nvcc --version
        echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
        ls "$CUDA_ROOT"/lib64/libnvrtc.so* "$CUDA_ROOT"/lib64/libcublas*.so* 2>&1
        echo "cublas found in: ${cublas_dir:-nowhere}"
        $t compute-sanitizer --version
    } >"$log" 2>&1
    record env 'done' "$(grep -m1 -o 'NVIDIA H[0-9]*[^|]*' "$log" | head -1 | xargs)"
}

step_ceilings() {
    run_logged "$OUT/ceilings.txt" 240 "ceilings (copy, cuBLAS GEMM)" \
        python3 scripts/gpu_ceilings.py
}

# TESTS="mpfma_gpu accessor_gpu" runs only those test binaries (default: every
# staged one).
step_tests() {
    local t
    for t in "$STAGE"/test-*; do
        if [[ ! -x "$t" ]]; then
            record tests MISSING "no $STAGE/test-*"
            continue
        fi
        local name="${t##*/test-}"
        if [[ -n "${TESTS:-}" && " $TESTS " != *" $name "* ]]; then
            continue
        fi
        # --include-ignored: the device tests are #[ignore]d ("needs an NVIDIA
        # GPU"); the others in these binaries run too. One thread: one GPU.
        run_logged "$OUT/tests.log" "$TEST_LIMIT" "test $name" \
            "$t" --include-ignored --nocapture --test-threads=1 $TEST_FILTER
    done
    for t in ${TESTS:-}; do
        [[ -x "$STAGE/test-$t" ]] || record "test $t" MISSING "no $STAGE/test-$t"
    done
}

# compute-sanitizer TOOL over SANITIZE_RUNS, one after the other.
sanitize_with() {
    local tool="$1" entry name filter
    for entry in "${SANITIZE_RUNS[@]}"; do
        name="${entry%%:*}"
        filter="${entry#*:}"
        [[ "$entry" == *:* ]] || filter=""
        if [[ ! -x "$STAGE/test-$name" ]]; then
            record "$tool $name" MISSING "no $STAGE/test-$name"
            continue
        fi
        run_logged "$OUT/$tool.log" "$SANITIZE_LIMIT" "$tool $name ${filter:-(all)}" \
            compute-sanitizer --tool "$tool" --error-exitcode 86 \
            --target-processes all --print-limit 20 \
            "$STAGE/test-$name" --ignored --test-threads=1 $filter
    done
}

step_memcheck() { sanitize_with memcheck; }
step_racecheck() { sanitize_with racecheck; }

# BENCHES="qdot_gpu residual_gpu" runs only those (default: every staged bench);
# BENCH_LIMIT=seconds per bench (default 300: the accessor bench prepares
# 16384^2 matrices on the host for our kernels and for cuBLAS).
step_bench() {
    local b
    for b in "$STAGE"/bench-*; do
        if [[ -n "${BENCHES:-}" && " $BENCHES " != *" ${b##*/bench-} "* ]]; then
            continue
        fi
        [[ -x "$b" ]] || continue
        run_logged "$OUT/bench.log" "$BENCH_LIMIT" "bench ${b##*/bench-}" "$b" --bench
    done
    for b in ${BENCHES:-}; do
        [[ -x "$STAGE/bench-$b" ]] || record "bench $b" MISSING "no $STAGE/bench-$b"
    done
}

# Nsight Compute's per-kernel durations (one metric, no replay) of one bench,
# PROFILE_BENCH (default residual_gpu), narrowed by its own variables (e.g.
# RESIDUAL_BENCH_SIZES=4096 RESIDUAL_BENCH_GEMMS=dp4a ... : see the bench's
# header); the bench's own timings print beside them, so the host's share (the
# sparse path's read-backs and scans) is the difference. --clock-control none:
# the clocks the bench saw (KINDS.md: ncu read counters on this machine so).
#
# With PROFILE_KERNELS (an ncu regular expression over kernel names), the
# sections that say why instead (PROFILE_SECTIONS; default: speed of light,
# occupancy, launch, warp states, scheduler, memory, compute and instruction
# statistics, source counters), for PROFILE_COUNT launches (default 4) of the
# matching kernels after skipping PROFILE_SKIP (default 0) of them: each
# kernel is replayed once per pass, so pick the launches (the accessor bench
# launches each kernel 21 times per size, fp32 before acc<f64,f32>: with the
# two pairs' kernels matched, PROFILE_SKIP=61 gives fp32's last two and
# acc<f64,f32>'s first two at a group's second size; docs/gpu/2026-11-27c-h200.md).
PROFILE_SECTIONS_DEFAULT="SpeedOfLight Occupancy LaunchStats WarpStateStats SchedulerStats MemoryWorkloadAnalysis ComputeWorkloadAnalysis InstructionStats SourceCounters"
step_profile() {
    local bench="${PROFILE_BENCH:-residual_gpu}"
    if [[ ! -x "$STAGE/bench-$bench" ]]; then
        record "profile $bench" MISSING "no $STAGE/bench-$bench"
        return
    fi
    # On the PATH, or where the device image installs Nsight Compute.
    local ncu
    ncu="$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -n 1)"
    if [[ -z "$ncu" ]]; then
        record "profile $bench" MISSING "no ncu on the PATH or in /opt/nvidia/nsight-compute"
        return
    fi
    if [[ -n "${PROFILE_KERNELS:-}" ]]; then
        local sections=() section
        for section in ${PROFILE_SECTIONS:-$PROFILE_SECTIONS_DEFAULT}; do
            sections+=(--section "$section")
        done
        run_logged "$OUT/profile.log" "${PROFILE_LIMIT:-240}" "profile $bench /$PROFILE_KERNELS/" \
            "$ncu" --clock-control none "${sections[@]}" \
            --kernel-name "regex:$PROFILE_KERNELS" \
            --launch-skip "${PROFILE_SKIP:-0}" --launch-count "${PROFILE_COUNT:-4}" \
            "$STAGE/bench-$bench" --bench
        return
    fi
    run_logged "$OUT/profile.log" "${PROFILE_LIMIT:-240}" "profile $bench" \
        "$ncu" --clock-control none --metrics gpu__time_duration.sum \
        --print-summary per-kernel --csv "$STAGE/bench-$bench" --bench
}

step_audit() {
    run_logged "$OUT/audit.log" 300 "audit plans/gpu.toml" \
        "$STAGE/boundgate" audit --plan plans/gpu.toml --quiet \
        --json "$OUT/audit-gpu.json"
    run_logged "$OUT/audit.log" 120 "probe --backend gpu" \
        "$STAGE/boundgate" probe --backend gpu
    # The Markdown report and its two charts go to a folder of their own,
    # which must exist before the audit starts (it checks its output paths
    # first and refused, so this plan never ran; review, 2026-11-26).
    mkdir -p "$OUT/fig6-gpu"
    run_logged "$OUT/audit.log" 300 "audit plans/mpfma-fig6-gpu.toml" \
        "$STAGE/boundgate" audit --plan plans/mpfma-fig6-gpu.toml --quiet \
        --json "$OUT/audit-fig6-gpu.json" --markdown "$OUT/fig6-gpu/report.md"
    # Its JSON holds every element's EDF series: 10.7 MB for two outputs on
    # 2026-11-26, about 16 MB for the three now, at the tool's 16 MiB limit
    # per file; compressed, 1.4 MB.
    if [[ -f "$OUT/audit-fig6-gpu.json" ]] && ! gzip -9 "$OUT/audit-fig6-gpu.json"; then
        record "gzip audit-fig6-gpu.json" FAIL "left uncompressed (may exceed 16 MiB)"
    fi
}

run_step() {
    case "$1" in
    env | ceilings | tests | memcheck | racecheck | bench | profile | audit) "step_$1" ;;
    *)
        local known="env ceilings tests memcheck racecheck bench profile audit"
        echo "unknown step: $1 ($known)" >&2
        record "step $1" UNKNOWN "$known"
        return 2
        ;;
    esac
}

for group in "${STEPS[@]}"; do
    IFS='+' read -r -a parallel <<<"$group"
    for s in "${parallel[@]}"; do
        run_step "$s" &
    done
    wait
done

echo
printf '%-44s %-10s %s\n' step verdict "time/what"
cat "$SUMMARY_FILE"
# The exit status says whether anything went wrong (it was always 0): a
# failure, a time-out, a missing binary, an unknown step or one skipped at
# the deadline. EMPTY (a filter that matched no test) is shown, not counted:
# TEST_FILTER leaves most binaries without a match on purpose.
! grep -qE ' (FAIL|TIMEOUT|MISSING|UNKNOWN|SKIPPED)' "$SUMMARY_FILE"
