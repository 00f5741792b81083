"""cuBLAS's INT8 matrix product through PyTorch (`torch._int_mm`, B a column-major view),
the reference for the tensor-core modular product (issue 18): median of 7 CUDA-event
timings after a warm-up, at 4096^3 and 8192^3."""
import torch

for n in (4096, 8192):
    a = torch.randint(-128, 127, (n, n), dtype=torch.int8, device="cuda")
    b = torch.randint(-128, 127, (n, n), dtype=torch.int8, device="cuda").t()
    torch._int_mm(a, b)
    torch.cuda.synchronize()
    ts = []
    for _ in range(7):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch._int_mm(a, b)
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    ms = sorted(ts)[3]
    print(f"torch._int_mm {n}^3 int8 (B column-major): {ms:.3f} ms, {2 * n**3 / ms / 1e9:.0f} TOPS")
