import sys, torch; sys.path.insert(0, sys.argv[1]); import exercise6_multihead as e
sys.path.insert(0,'/work/scratch20'); import lumen_ref as ref
torch.manual_seed(0)
m = e.MultiHeadAttention(12, 3).double(); r = ref.MultiHeadAttention(12, 3).double(); r.load_state_dict(m.state_dict())
x = torch.randn(2, 5, 12, dtype=torch.float64)
pad = ref.padding_mask(torch.tensor([4, 2]), 5)[:, None]
print("(B,1,1,L) max err:", (m(x, pad) - r(x, pad)).abs().max().item())
perhead = (torch.rand(2, 3, 5, 5, generator=torch.Generator().manual_seed(1)) > 0.3) | torch.eye(5, dtype=torch.bool)
try: print("(B,H,L,L) max err:", (m(x, perhead) - r(x, perhead)).abs().max().item())
except Exception as err: print("(B,H,L,L):", type(err).__name__, err)
