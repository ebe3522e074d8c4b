#!/usr/bin/env bash
# Builds, HERE (no Rust on the device), everything the GPU run needs and stages
# it in gpu-stage/ (git-ignored), small enough to carry with the device tool:
#
#   gpu-stage/boundgate         the CLI (audit --plan plans/gpu.toml, probe)
#   gpu-stage/test-<name>       each GPU test binary (tests/<name>.rs)
#   gpu-stage/bench-<name>      each GPU bench binary (benches/<name>.rs)
#   gpu-stage/MANIFEST          commit, rustc, build date, sizes
#
# All built with `--release --features cuda` and stripped of debug info (a
# carried tree is limited to 64 MiB). Then, with the device tool:
#
#   run(command="bash scripts/gpu-device.sh", carry=["gpu-stage"])
#
# which runs them there and writes the logs under $OUT (docs/gpu/README.md).
#
# Usage: scripts/gpu-stage.sh [--only NAME ...]   (default: every GPU binary)
set -euo pipefail
cd "$(dirname "$0")/.."

GPU_TESTS=(gpu_dot qdot_gpu accessor_gpu mpfma_gpu residual_gpu interleave_gpu)
GPU_BENCHES=(accessor_gpu mpfma_gpu qdot_gpu residual_gpu interleave_gpu)
STAGE=gpu-stage

if [[ "${1:-}" == "--only" ]]; then
    shift
    GPU_TESTS=("$@")
    GPU_BENCHES=()
fi

# The build needs m4 for GMP/MPFR; NVRTC is not needed to build (cudarc loads
# it at run time), so only the system dependencies are installed here.
scripts/install-system-deps.sh >&2

args=(--release --features cuda --message-format=json-render-diagnostics)
test_args=()
for t in "${GPU_TESTS[@]}"; do test_args+=(--test "$t"); done
bench_args=()
for b in "${GPU_BENCHES[@]}"; do
    [[ -f "benches/$b.rs" ]] && bench_args+=(--bench "$b")
done

json="$(mktemp)"
trap 'rm -f "$json"' EXIT
cargo build "${args[@]}" --bin boundgate >"$json"
cargo test --no-run "${args[@]}" "${test_args[@]}" >>"$json"
if ((${#bench_args[@]})); then
    # `cargo bench` builds with the bench profile (release settings) and
    # takes no --release.
    cargo bench --no-run "${args[@]:1}" "${bench_args[@]}" >>"$json"
fi

rm -rf "$STAGE"
mkdir -p "$STAGE"
python3 - "$json" "$STAGE" <<'EOF'
import json, shutil, sys
messages, stage = sys.argv[1], sys.argv[2]
seen = {}
for line in open(messages):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    kind = m["target"]["kind"][0]
    name = m["target"]["name"]
    prefix = {"test": "test-", "bench": "bench-", "bin": ""}.get(kind)
    if prefix is None:
        continue
    seen[prefix + name] = m["executable"]
for staged, built in sorted(seen.items()):
    shutil.copy2(built, f"{stage}/{staged}")
    print(f"staged {staged} <- {built}", file=sys.stderr)
EOF
strip --strip-debug "$STAGE"/* 2>/dev/null || true
{
    echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) with $(rustc --version)"
    (cd "$STAGE" && ls -l --block-size=K | tail -n +2)
} >"$STAGE/MANIFEST"
cat "$STAGE/MANIFEST" >&2
du -sh "$STAGE" >&2
