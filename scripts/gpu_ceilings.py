"""The device's two ceilings, measured once per GPU run (scripts/gpu-device.sh).

1. Device-to-device copy bandwidth, counting bytes read plus bytes written
   (a 4 GiB buffer copied with cudaMemcpyAsync through PyTorch's copy_).
2. A large fp16 and bf16 GEMM through cuBLAS (torch.matmul on CUDA tensors is
   cublasGemmEx / cublasLt with fp32 accumulation), 8192^3, random data.

3. The cuBLAS BLAS-1/2 baselines issue 4 names, on the sizes of
   benches/accessor_gpu.rs: Sdot/Ddot (torch.dot on CUDA vectors calls
   cublasSdot/cublasDdot) at n = 2^20, 2^24, 2^26 and Sgemv/Dgemv (torch.mv,
   cublas?gemv) at 4096 and 16384, both orientations, in GB/s over the same
   byte counts as AccessorGpu::time (each operand read once, output written).

Timed with CUDA events after warm-up, median of the repeats, rotating between
several input sets so that no repeat reads a warm L2. The kernels' throughput
in docs/gpu/ is quoted as a ratio to these numbers.
"""

import statistics

import torch


def median_ms(fn, repeats=20, warmup=5):
    for _ in range(warmup):
        fn(0)
    torch.cuda.synchronize()
    times = []
    for i in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn(i)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), min(times), max(times)


def main():
    # fp32 accumulation, as the kernels audited here use (no fp16 reductions).
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    print(f"device: {props.name}, {props.multi_processor_count} SMs, "
          f"{props.total_memory / 2**30:.1f} GiB, L2 {props.L2_cache_size / 2**20:.0f} MiB")
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}")

    nbytes = 1 << 32
    sources = [torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device=dev) for _ in range(2)]
    dest = torch.empty(nbytes, dtype=torch.uint8, device=dev)
    med, lo, hi = median_ms(lambda i: dest.copy_(sources[i % 2]))
    gbs = 2 * nbytes / (med * 1e-3) / 1e9
    print(f"copy bandwidth: {gbs:.0f} GB/s (read + write of {nbytes / 2**30:.0f} GiB; "
          f"median {med:.3f} ms, min {lo:.3f}, max {hi:.3f})")
    del sources, dest

    n = 8192
    for dtype in (torch.float16, torch.bfloat16):
        mats = [(torch.randn(n, n, device=dev).to(dtype), torch.randn(n, n, device=dev).to(dtype))
                for _ in range(3)]
        out = torch.empty(n, n, device=dev, dtype=dtype)
        med, lo, hi = median_ms(lambda i: torch.matmul(*mats[i % 3], out=out))
        tflops = 2 * n**3 / (med * 1e-3) / 1e12
        print(f"cuBLAS GEMM {str(dtype).removeprefix('torch.')} {n}^3, fp32 accumulation: "
              f"{tflops:.0f} TFLOP/s (median {med:.3f} ms, min {lo:.3f}, max {hi:.3f})")
        del mats, out

    for dtype, blas in ((torch.float32, "S"), (torch.float64, "D")):
        size = torch.tensor([], dtype=dtype).element_size()
        for log2 in (20, 24, 26):
            n = 1 << log2
            vecs = [torch.rand(n, device=dev, dtype=dtype) * 2 - 1 for _ in range(4)]
            med, _, _ = median_ms(lambda i: torch.dot(vecs[i % 2], vecs[2 + i % 2]))
            gbs = 2 * n * size / (med * 1e-3) / 1e9
            print(f"cuBLAS {blas}dot n=2^{log2}: {gbs:.1f} GB/s ({med * 1e3:.2f} us)")
            del vecs
        for n in (4096, 16384):
            mats = [torch.rand(n, n, device=dev, dtype=dtype) * 2 - 1 for _ in range(2)]
            x = torch.rand(n, device=dev, dtype=dtype)
            for label, op in (("gemv", lambda a: a), ("gemv^T", lambda a: a.t())):
                med, _, _ = median_ms(lambda i: torch.mv(op(mats[i % 2]), x))
                gbs = (n * n + 2 * n) * size / (med * 1e-3) / 1e9
                print(f"cuBLAS {blas}{label} {n}x{n}: {gbs:.1f} GB/s ({med * 1e3:.2f} us)")
            del mats, x


if __name__ == "__main__":
    main()
