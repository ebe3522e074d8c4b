#!/usr/bin/env python3
"""Registers, spills and machine-code shape of kernels, without a GPU or a CUDA toolkit.

Compiles a kernels/*.cu file with the pinned NVRTC of scripts/install-cuda-nvrtc.sh (the
same compiler the tests use, so the same ptxas) and prints, for each entry point whose name
matches ENTRY (a regular expression), what ptxas reports (registers, spill stores) and,
from `cuobjdump -sass` of the CUBIN, the static instruction count and the longest run of
global loads with no FMA between them (the measure of tests/accessor_sass.rs). The tables
of docs/accessor.md ("CSR_MIN_BLOCKS", "split lanes", "a deeper pipeline") come from it.

    eval "$(scripts/install-cuda-nvrtc.sh)"
    scripts/nvrtc-ptxas.py kernels/accessor_blas.cu sm_90 'accessor_spmv_csr_(f32_f32|f32_f64|f64_f64)$' \\
        -DCSR_PIPELINE_DEPTH=2 -DCSR_MIN_BLOCKS=3

Options after ENTRY go to NVRTC as they are (the tests' --fmad=false is always added, as the
accessor kernels' launcher adds it).
"""
import ctypes
import os
import re
import subprocess
import sys
import tempfile


def find_in_library_path(prefix):
    for folder in filter(None, os.environ.get("LD_LIBRARY_PATH", "").split(":")):
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                if name.startswith(prefix):
                    return os.path.join(folder, name)
    raise SystemExit(f"nvrtc-ptxas: no {prefix}* on LD_LIBRARY_PATH; run "
                     "eval \"$(scripts/install-cuda-nvrtc.sh)\" first")


def compile_cubin(source_path, arch, options):
    nvrtc = ctypes.CDLL(find_in_library_path("libnvrtc.so"))
    program = ctypes.c_void_p()
    source = open(source_path, "rb").read()
    name = os.path.basename(source_path).encode()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(program), source, name, 0, None, None) != 0:
        raise SystemExit("nvrtc-ptxas: nvrtcCreateProgram failed")
    include = os.environ.get("BOUNDGATE_CUDA_INCLUDE", "")
    opts = [f"--gpu-architecture={arch}", "-default-device", "-std=c++17", "--fmad=false",
            "--ptxas-options=-v",
            f"-I{os.path.join(os.path.dirname(os.path.abspath(source_path)), 'include')}"]
    opts += [f"-I{include}"] if include else []
    opts += options
    array = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    status = nvrtc.nvrtcCompileProgram(program, len(opts), array)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    if status != 0:
        raise SystemExit(f"nvrtc-ptxas: compilation failed ({status}):\n{log.value.decode()}")
    nvrtc.nvrtcGetCUBINSize(program, ctypes.byref(size))
    cubin = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetCUBIN(program, cubin)
    return log.value.decode(), cubin.raw


def ptxas_report(log):
    """entry -> (registers, spill store bytes), from ptxas -v's lines."""
    report, entry, spills = {}, None, 0
    for line in log.splitlines():
        if m := re.search(r"Compiling entry function '(\w+)'", line):
            entry, spills = m.group(1), 0
        elif entry and (m := re.search(r"(\d+) bytes spill stores", line)):
            spills = int(m.group(1))
        elif entry and (m := re.search(r"Used (\d+) registers", line)):
            report[entry] = (int(m.group(1)), spills)
            entry = None
    return report


def sass_shape(cuobjdump, cubin_path, entry):
    """(instructions, longest run of LDG with no FFMA/DFMA between them)."""
    sass = subprocess.run([cuobjdump, "-sass", "-fun", entry, cubin_path], check=True,
                          capture_output=True, text=True).stdout
    opcodes = []
    for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9]+)[^;]*;", sass):
        opcodes.append(m.group(1))
    best = run = 0
    for op in opcodes:
        if op == "LDG":
            run += 1
            best = max(best, run)
        elif op in ("FFMA", "DFMA"):
            run = 0
    return len(opcodes), best


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    source, arch, entry_pattern, options = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    log, cubin = compile_cubin(source, arch, options)
    report = ptxas_report(log)
    cuobjdump = os.path.join(os.path.dirname(find_in_library_path("libnvrtc.so")), "..", "bin",
                             "cuobjdump")
    with tempfile.NamedTemporaryFile(suffix=".cubin") as file:
        file.write(cubin)
        file.flush()
        print(f"{'entry':40} {'registers':>9} {'spills':>7} {'SASS':>6} {'load run':>8}  "
              f"({arch}, {' '.join(options) or 'defaults'})")
        for entry in sorted(e for e in report if re.search(entry_pattern, e)):
            registers, spills = report[entry]
            shape = sass_shape(cuobjdump, file.name, entry) if os.path.exists(cuobjdump) else ("-", "-")
            print(f"{entry:40} {registers:>9} {spills:>6}B {shape[0]:>6} {shape[1]:>8}")


if __name__ == "__main__":
    main()
