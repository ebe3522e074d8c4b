#!/usr/bin/env bash
# A short run of every cargo-fuzz target (CI's fuzz smoke; docs/fuzzing.md).
# Needs the nightly toolchain; installs cargo-fuzz if missing.
#   FUZZ_SECONDS=20 scripts/fuzz-smoke.sh          # default 20 s per target
# Any crash fails the script and leaves its input in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-20}"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz
fi
targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^boundgate-fuzz$')
cd fuzz
for t in $targets; do
    echo "fuzz-smoke: $t for ${seconds}s"
    cargo +nightly fuzz run "$t" -- -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 2>&1 \
        | grep -E "^(stat::number_of_executed_units|==[0-9]+==|SUMMARY|thread .* panicked)" || true
    # cargo fuzz exits non-zero on a crash; with pipefail the grep hides it, so check artifacts too.
    if compgen -G "artifacts/$t/[clot]*-*" >/dev/null; then  # crash-, leak-, oom-, timeout-
        echo "fuzz-smoke: $t found a crash: fuzz/artifacts/$t/" >&2
        exit 1
    fi
done
echo "fuzz-smoke: all targets clean"
