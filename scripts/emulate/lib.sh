# What the scripts/emulate-*.sh scripts share, sourced by them (bash, set -euo pipefail):
# `root` (the repository), `work` (a temporary folder, removed on exit), and
#   emulate_build DIR DRIVER   compiles scripts/emulate/DRIVER.cpp with DIR/kern.h into DIR/DRIVER
#                              (C++20, no FMA contraction, AddressSanitizer and UBSan);
#   emulate_mutant I EDIT DRIVER FILE [ARGS...]
#                              applies the sed script EDIT to $work/kern.h as mutant I, builds
#                              DRIVER against it and runs it with ARGS: exits 1 unless the run
#                              fails (a mutant nobody catches), or when EDIT no longer changes
#                              anything (FILE, the kernel file it was written for, is named).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

emulate_build() {
    g++ -std=c++20 -O1 -ffp-contract=off -Wno-unknown-pragmas -pthread \
        -fsanitize=address,undefined -I "$1" -I "$root/scripts/emulate" \
        -o "$1/$2" "$root/scripts/emulate/$2.cpp"
}

emulate_mutant() {
    local i="$1" edit="$2" driver="$3" file="$4"
    shift 4
    mkdir "$work/m$i"
    sed "$edit" "$work/kern.h" > "$work/m$i/kern.h"
    if cmp -s "$work/kern.h" "$work/m$i/kern.h"; then
        echo "mutant $i: the pattern no longer matches $file: update it" >&2
        exit 1
    fi
    emulate_build "$work/m$i" "$driver"
    if "$work/m$i/$driver" "$@" > "$work/m$i/log"; then
        echo "NOT caught" >&2
        exit 1
    fi
    head -c 160 "$work/m$i/log"
    echo
}
