# evidence: float16 / bfloat16 inputs come back float32, against the docstring's "returns tensors in the inputs'
# dtype (float32 or float64; float16 and bfloat16 too)"; the grader has no half-precision test in exercise 3
import importlib.util, math, torch
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise3_scaling.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
    q, k = torch.randn(2, 5, 8).to(dtype), torch.randn(2, 7, 8).to(dtype)
    s = m.scale_scores(q @ k.mT, 8); t = m.scaled_scores(q, k)
    ref = (q.double() @ k.double().mT) / math.sqrt(8)
    print(f"{str(dtype):15} scale_scores -> {s.dtype}, scaled_scores -> {t.dtype}, max |err| {(t.double() - ref).abs().max().item():.1e}")
