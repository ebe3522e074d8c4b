#!/usr/bin/env bash
# The whole test suite on a fresh machine of this kind (README, "Test"):
# installs what the build needs (m4 for the GMP/MPFR build behind `rug`;
# NVRTC and the CUDA headers from PyPI for the compile check of kernels/*.cu),
# then runs every test of the workspace, doc tests included, with the GPU code
# compiled in (feature `cuda`). Tests that need a GPU are #[ignore]d with the
# reason; run them on the device with `-- --ignored`.
#
# Heavy campaigns are opt-in: BOUNDGATE_HEAVY=1 scripts/test.sh --release
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-system-deps.sh --with-browser
eval "$(scripts/install-cuda-nvrtc.sh)"
# The screenshot test must not skip here: the browser was just installed.
export BOUNDGATE_REQUIRE_CHROMIUM=1
cargo test --workspace --features cuda "$@"
