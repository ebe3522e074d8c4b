#!/usr/bin/env bash
# The main job on a fresh machine of this kind (README, "Audit"): installs
# what the build needs, builds boundgate in release mode and runs the default
# audit plan (plans/default.toml). Extra arguments go to `boundgate audit`,
# e.g. scripts/audit.sh --json report.json --markdown report.md
# Exit code: 0 all rigorous bounds hold, 1 a violation, 2 bad usage or input.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-system-deps.sh
cargo run --release --quiet -- audit "$@"
