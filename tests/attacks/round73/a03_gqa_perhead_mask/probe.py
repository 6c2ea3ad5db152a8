import sys, torch; sys.path.insert(0, sys.argv[1]); import exercise7_gqa as e
sys.path.insert(0,'/work/scratch20'); import lumen_ref as ref
torch.manual_seed(0)
m = e.GroupedQueryAttention(18, 6, 2).double(); r = ref.GroupedQueryAttention(18, 6, 2).double(); r.load_state_dict(m.state_dict())
x = torch.randn(4, 7, 18, dtype=torch.float64)
pad = (torch.arange(7)[None] < torch.tensor([6,4,2,5])[:, None])[:, None, None, :] & ref.causal_mask(7)
print("(B,1,L,L) max err:", (m(x, pad) - r(x, pad)).abs().max().item())
perhead = torch.rand(4, 6, 7, 7, generator=torch.Generator().manual_seed(1)) > 0.3   # (B, H, L, L), per-head
perhead |= torch.eye(7, dtype=torch.bool)
try: print("(B,H,L,L) max err:", (m(x, perhead) - r(x, perhead)).abs().max().item())
except Exception as err: print("(B,H,L,L):", type(err).__name__, err)
