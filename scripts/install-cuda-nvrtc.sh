#!/usr/bin/env bash
# Installs NVRTC and the CUDA headers (CUDA 13) from PyPI into a cache folder,
# so that boundgate can compile kernels/*.cu with NVRTC on a machine without a
# GPU and without a CUDA toolkit (CI, development machines). NVRTC needs no
# driver; running the compiled kernels does.
#
# Usage:
#   scripts/install-cuda-nvrtc.sh              # install (or reuse) and print exports
#   eval "$(scripts/install-cuda-nvrtc.sh)"    # install and export into this shell
#   scripts/install-cuda-nvrtc.sh --print-env  # only print the exports (no install)
#
# Cache folder: ${BOUNDGATE_CUDA_HOME:-$HOME/.cache/boundgate/cuda13}; the wheels
# lay out <cache>/nvidia/cu13/{lib,include}. Re-running with the same versions
# does nothing (idempotent); a version change reinstalls into a fresh folder
# that replaces the old one only once it is complete.
#
# What is installed, and why only this:
#   nvidia-cuda-nvrtc    libnvrtc.so.13 and libnvrtc-builtins (the compiler)
#   nvidia-cuda-runtime  cuda_fp16.h, cuda_bf16.h, vector types, ... (headers)
#   nvidia-cuda-crt      include/crt/*.h (host_defines.h, ...): since CUDA 13.5
#                        these are no longer in nvidia-cuda-nvcc but in their
#                        own wheel; nvidia-cuda-nvcc (~400 MB: nvcc, ptxas,
#                        libnvvm) is NOT needed for NVRTC and is not installed.
#   nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm
#                        bin/cuobjdump and the bin/nvdisasm it runs (0.3 and 5 MB
#                        as wheels), which print the machine code (SASS) of a
#                        CUBIN: tests/accessor_sass.rs checks with them that
#                        ptxas keeps the accessor kernels' batched loads ahead of
#                        their FMAs.
#
# Output: human-readable progress goes to stderr; stdout carries only `export`
# lines, which are also written to <cache>/env.sh. Under GitHub Actions
# ($GITHUB_ENV set) the variables are appended there too.

set -euo pipefail

CUDA_WHEEL_VERSION="13.5.37"
PACKAGES=(nvidia-cuda-nvrtc nvidia-cuda-runtime nvidia-cuda-crt nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)
CACHE="${BOUNDGATE_CUDA_HOME:-$HOME/.cache/boundgate/cuda13}"
LIB_DIR="$CACHE/nvidia/cu13/lib"
INCLUDE_DIR="$CACHE/nvidia/cu13/include"

say() { printf '%s\n' "$*" >&2; }

print_env() {
    local env_text
    env_text="export LD_LIBRARY_PATH=\"$LIB_DIR\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\"
export BOUNDGATE_CUDA_INCLUDE=\"$INCLUDE_DIR\""
    printf '%s\n' "$env_text"
}

# A dist-info folder is named after the normalised project name and version,
# e.g. nvidia_cuda_nvrtc-13.5.37.dist-info.
dist_info() {
    printf '%s/%s-%s.dist-info' "$1" "${2//-/_}" "$CUDA_WHEEL_VERSION"
}

is_complete() {
    local root="$1" package
    for package in "${PACKAGES[@]}"; do
        [[ -d "$(dist_info "$root" "$package")" ]] || return 1
    done
    # The files the build actually uses: the compiler, its builtins, a runtime
    # header and a crt header (the one most often reported missing).
    [[ -e "$root/nvidia/cu13/lib/libnvrtc.so.13" ]] || return 1
    compgen -G "$root/nvidia/cu13/lib/libnvrtc-builtins.so.*" >/dev/null || return 1
    [[ -f "$root/nvidia/cu13/include/cuda_fp16.h" ]] || return 1
    [[ -f "$root/nvidia/cu13/include/crt/host_defines.h" ]] || return 1
    [[ -x "$root/nvidia/cu13/bin/cuobjdump" ]] || return 1
    [[ -x "$root/nvidia/cu13/bin/nvdisasm" ]] || return 1
}

# pip is the one tool needed; a fresh Debian has python3 but not pip, so get it
# the way scripts/install-system-deps.sh gets m4 (only when missing).
ensure_pip() {
    if python3 -m pip --version >/dev/null 2>&1; then
        return 0
    fi
    if ! command -v apt-get >/dev/null; then
        say "error: python3 with pip is required (python3 -m pip), and apt-get is not available to install it"
        exit 1
    fi
    local sudo=""
    [[ "$(id -u)" -ne 0 ]] && sudo="sudo"
    say "installing python3-pip (apt)"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3 python3-pip >&2
}

if [[ "${1:-}" == "--print-env" ]]; then
    print_env
    exit 0
elif [[ $# -gt 0 ]]; then
    say "usage: $0 [--print-env]"
    exit 2
fi

if is_complete "$CACHE"; then
    say "NVRTC $CUDA_WHEEL_VERSION already installed in $CACHE"
else
    ensure_pip
    mkdir -p "$(dirname "$CACHE")"
    staging="$(mktemp -d "$CACHE.partial.XXXXXX")"
    trap 'rm -rf "$staging"' EXIT
    specs=()
    for package in "${PACKAGES[@]}"; do
        specs+=("$package==$CUDA_WHEEL_VERSION")
    done
    say "installing ${specs[*]} into $CACHE"
    # --no-deps: the wheels are self-contained for NVRTC; their declared
    # dependencies would pull nvidia-cuda-nvcc and libnvvm back in.
    # --target also keeps pip clear of PEP 668 "externally managed" system Pythons.
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps \
        --only-binary=:all: --target "$staging" "${specs[@]}" >&2
    if ! is_complete "$staging"; then
        say "error: the wheels installed, but the expected files are missing under $staging/nvidia/cu13"
        exit 1
    fi
    rm -rf "$CACHE"
    mv "$staging" "$CACHE"
    trap - EXIT
    say "installed NVRTC $CUDA_WHEEL_VERSION in $CACHE"
fi

print_env >"$CACHE/env.sh"
if [[ -n "${GITHUB_ENV:-}" ]]; then
    {
        printf 'LD_LIBRARY_PATH=%s%s\n' "$LIB_DIR" "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        printf 'BOUNDGATE_CUDA_INCLUDE=%s\n' "$INCLUDE_DIR"
    } >>"$GITHUB_ENV"
fi
say "to use it: eval \"\$($0 --print-env)\"  (or: source $CACHE/env.sh)"
print_env
