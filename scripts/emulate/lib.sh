# What the scripts/emulate-*.sh scripts share, sourced by them (bash, set -euo pipefail):
# `root` (the repository), `work` (a temporary folder, removed on exit), and
#   emulate_build DIR DRIVER   compiles scripts/emulate/DRIVER.cpp with DIR/kern.h into DIR/DRIVER
#                              (C++20, no FMA contraction, AddressSanitizer and UBSan);
#   emulate_mutant I EDIT DRIVER FILE [ARGS...]
#                              applies the sed script EDIT to $work/kern.h as mutant I, builds
#                              DRIVER against it and runs it with ARGS: exits 1 unless the run
#                              fails (a mutant nobody catches), or when EDIT no longer changes
#                              anything (FILE, the kernel file it was written for, is named).
#   emulate_checked_mutant I EDIT DRIVER CHECK [FILE]
#                              the same, but judged by the shell function CHECK run with the
#                              mutant's folder (a check against the CPU model): exits 1 unless
#                              CHECK fails.
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
    mutant_driver="$driver"
    mutant_args=("$@")
    emulate_checked_mutant "$i" "$edit" "$driver" run_mutant_driver "$file"
}

# emulate_mutant's check: the mutant's driver with the arguments it was given.
run_mutant_driver() {
    "$1/$mutant_driver" "${mutant_args[@]}"
}

emulate_checked_mutant() {
    local i="$1" edit="$2" driver="$3" check="$4" file="${5:-kernels/accessor_blas.cu}"
    local dir="$work/$check$i"
    mkdir "$dir"
    sed "$edit" "$work/kern.h" > "$dir/kern.h"
    if cmp -s "$work/kern.h" "$dir/kern.h"; then
        echo "mutant $i: the pattern no longer matches $file: update it" >&2
        exit 1
    fi
    emulate_build "$dir" "$driver"
    if "$check" "$dir" > "$dir/log"; then
        echo "NOT caught" >&2
        exit 1
    fi
    head -c 160 "$dir/log"
    echo
}
