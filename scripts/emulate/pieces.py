"""What extract.py and extract_trsv.py share: cutting pieces of CUDA source out of a file.

extract(src, start): the text from `start` (a declaration's first line, up to its opening
brace or beyond) to its closing brace, with the `template <...>` line just above it if there is
one, and a `;` after a struct.
write_pair_header(...): extract.py's header of current and reference pieces.
ACCESSOR_BASICS: the pieces of kernels/accessor_blas.cu every accessor emulation needs first.
"""

# kernels/accessor_blas.cu's arithmetic and binary64/binary32 storage structs and warp trees.
ACCESSOR_BASICS = [
    "struct ArithF64 {",
    "struct ArithF32 {",
    "struct StoreF64 {",
    "struct StoreF32 {",
    "static __device__ __forceinline__ typename A::T warp_tree(",
    "static __device__ __forceinline__ typename A::T warp_tree4(",
]


def extract(src, start):
    i = src.index(start)
    before = src.rfind("\n", 0, i - 1)
    if src[before + 1 : i].startswith("template <"):
        i = before + 1
    depth = 0
    for k in range(src.index("{", src.index(start)), len(src)):
        depth += {"{": 1, "}": -1}.get(src[k], 0)
        if depth == 0:
            return src[i : k + 1] + (";" if start.startswith("struct") else "")
    raise SystemExit(f"unbalanced braces after {start}")


def write_pair_header(argv, common, defines, declaration):
    """The header of a current-against-reference emulation, from the command line
    `CURRENT.cu REFERENCE.cu OUT.h name [name ...]` (argv[1:]): cuda_host.h, the current file's
    #defines matching the regular expression `defines`, the `common` pieces (each must read the
    same in both versions), then each named piece (`declaration.format(name=...)` starts it)
    from the current file and, renamed <name>_reference, from the reference; a name written
    +name is a helper of the current file alone, copied from it only."""
    import re

    current, reference = open(argv[1]).read(), open(argv[2]).read()
    out = ['#include "cuda_host.h"']
    out += sorted(set(re.findall(defines, current)))
    for piece in common:
        if extract(current, piece) != extract(reference, piece):
            raise SystemExit(f"{piece} differs from the reference: compare it by hand first")
        out.append(extract(current, piece))
    for name in argv[4:]:
        if name.startswith("+"):
            # A helper only the current version has (named before what calls it), declared as
            # the named pieces are but of any return type (a warp tree returns a value).
            head, tail = declaration.format(name=name[1:]).split(" void ", 1)
            found = re.search(re.escape(head) + r" [\w:<>]+(?: [\w:<>]+)* " + re.escape(tail), current)
            if found is None:
                raise SystemExit(f"no helper {name[1:]} in {argv[1]}")
            out.append(extract(current, found.group(0)))
            continue
        start = declaration.format(name=name)
        out.append(extract(current, start))
        out.append(extract(reference, start).replace(f" {name}(", f" {name}_reference(", 1))
    open(argv[3], "w").write("\n".join(out) + "\n")
