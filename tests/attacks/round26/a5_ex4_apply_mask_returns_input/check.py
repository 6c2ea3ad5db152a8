# evidence: with a mask that hides nothing (all True, e.g. padding_mask of full-length sequences), apply_mask
# returns `scores` itself, not the NEW tensor its docstring promises: a caller editing the result edits its input
import importlib.util, torch
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise4_masking.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
scores = torch.randn(2, 3, 4, dtype=torch.float64)
mask = m.padding_mask(torch.tensor([4, 4]), 4)  # every key real
out = m.apply_mask(scores, mask)
print("result is the input itself:", out is scores, "| shares memory:", out.data_ptr() == scores.data_ptr())
before = scores.clone(); out[0, 0, 0] = -1e9  # e.g. a caller filling more -inf / masking in place afterwards
print("input changed by editing the result:", not torch.equal(before, scores))
