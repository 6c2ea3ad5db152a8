# the control's compiled softmax run outside the grader (plain torch): python outside.py > result_outside.txt
import math, sys, warnings
warnings.simplefilter("ignore")
import torch
sys.path.insert(0, sys.path[0] + "/control")
import exercise5_softmax as m
torch.manual_seed(0)
for shape in [(2, 7, 7), (3, 4, 5, 6), (5,)]:
    x = torch.randn(*shape)
    print(shape, torch.allclose(m.softmax(x, -1), torch.softmax(x, -1), atol=1e-6))
q, k, v = torch.randn(2, 3, 7, 5), torch.randn(2, 3, 7, 5), torch.randn(2, 3, 7, 4)
o, w = m.scaled_dot_product_attention(q, k, v)
print("attention weights", torch.allclose(w, torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(5), -1), atol=1e-6))
mask = torch.ones(7, 7, dtype=torch.bool).tril()
o, w = m.scaled_dot_product_attention(q, k, v, mask)
print("causal", torch.allclose(w, torch.softmax((q @ k.transpose(-2, -1) / math.sqrt(5)).masked_fill(~mask, float("-inf")), -1), atol=1e-6))
print("all -inf row", m.softmax(torch.full((2, 3), float("-inf"))).tolist())
