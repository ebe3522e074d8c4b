#!/usr/bin/env bash
# A short run of every cargo-fuzz target (CI's fuzz smoke; docs/fuzzing.md).
# Needs the nightly toolchain; installs cargo-fuzz if missing.
#   FUZZ_SECONDS=20 scripts/fuzz-smoke.sh          # default 20 s per target
# A crash (or a build failure) fails the script; libFuzzer leaves the input in
# fuzz/artifacts/<target>/ and the log is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-20}"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz
fi
targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^boundgate-fuzz$')
cd fuzz
log=$(mktemp)
for t in $targets; do
    echo "fuzz-smoke: $t for ${seconds}s"
    if ! cargo +nightly fuzz run "$t" -- -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "fuzz-smoke: $t FAILED (artifacts in fuzz/artifacts/$t/)" >&2
        exit 1
    fi
    grep -E "^stat::number_of_executed_units" "$log" | sed "s/^/  $t: /" || true
done
echo "fuzz-smoke: all targets clean"
