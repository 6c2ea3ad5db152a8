# evidence: padding_mask(lengths, L) changes the caller's lengths in place ((B,) becomes (B, 1)): the docstring
# of the module says "Inputs are left unchanged"; a second call with the same lengths returns a wrong shape.
import importlib.util, torch
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise4_masking.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
lengths = torch.tensor([3, 5, 1])
print("lengths before:", tuple(lengths.shape))
a = m.padding_mask(lengths, 6); print("first call:", tuple(a.shape), "(expected (3, 1, 6)); lengths after:", tuple(lengths.shape))
b = m.padding_mask(lengths, 6); print("second call, same lengths:", tuple(b.shape), "(expected (3, 1, 6))")
