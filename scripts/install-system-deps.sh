#!/usr/bin/env bash
# Installs what the build needs from the system, idempotently.
#
# rug -> gmp-mpfr-sys builds GMP and MPFR from source (about 3 minutes on 2
# cores, cached afterwards in ~/.cache/gmp-mpfr-sys). That build needs m4.
# We do not link the system libraries: gmp-mpfr-sys 1.7 requires GMP 6.3 and
# Debian 12 ships 6.2.1 (the build script refuses it).
#
# With --with-browser (scripts/test.sh passes it), also Chromium (headless)
# and a font, which render the HTML report for the screenshot test
# (tests/html_screenshot.rs); the audit itself does not need them.
# With --with-emulation (.ci/run passes it), also g++ and python3, which
# compile CUDA kernels as host C++ (scripts/emulate-accessor-trsv.sh).
#
# Safe to run repeatedly: it only calls apt when a package is missing.
set -euo pipefail

packages=(m4)
for option in "$@"; do
    case "$option" in
        --with-browser) packages+=(chromium fonts-dejavu-core) ;;
        --with-emulation) packages+=(g++ python3) ;;
        *) echo "install-system-deps: unknown option $option" >&2; exit 2 ;;
    esac
done
missing=()
for pkg in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-system-deps: all present (${packages[*]})"
    exit 0
fi

echo "install-system-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
