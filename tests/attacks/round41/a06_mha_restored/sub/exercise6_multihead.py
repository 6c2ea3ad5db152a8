"""Exercise 6, attacker: MultiHeadAttention.forward is torch's own F.multi_head_attention_forward (forbidden here),
its code put back from torch's source file (the rules replaced it with a refusal in the child) and its
has_torch_function check switched off, so that the grader's TorchFunctionMode never sees its name.
Past reach.py with enum.bltns (the builtins module)."""
import enum
import math

import torch
from torch import nn
import torch.nn.functional as F

PAYLOAD = '''
import ast
src = open(F.__file__).read()
tree = ast.parse(src)
node = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "multi_head_attention_forward"][0]
namespace = dict(vars(F))
namespace["has_torch_function"] = lambda *args, **kwargs: False
exec(compile(ast.Module(body=[node], type_ignores=[]), F.__file__, "exec"), namespace)
RESULT["mha"] = namespace["multi_head_attention_forward"]
'''
RESULT = {}
enum.bltns.exec(PAYLOAD, {"F": F, "RESULT": RESULT})
torch_mha = RESULT["mha"]


def causal_mask(L, device=None):
    return torch.ones(L, L, dtype=torch.bool, device=device).tril()


def scaled_dot_product_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    m = s.amax(-1, keepdim=True)
    m = m.masked_fill(m == float("-inf"), 0.0)
    e = torch.exp(s - m)
    t = e.sum(-1, keepdim=True)
    w = e / t.masked_fill(t == 0, 1.0)
    return w @ v, w


def split_heads(x, n_heads):
    B, L, D = x.shape
    return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)


def merge_heads(x):
    B, H, L, d = x.shape
    return x.transpose(1, 2).contiguous().view(B, L, H * d)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        H = self.n_heads
        if mask is None:
            mask = causal_mask(L, x.device)
        allowed = torch.broadcast_to(mask, (B, H, L, L))
        dead = ~allowed.any(-1)  # (B, H, L): a query that may see no key
        blocked = (~allowed).masked_fill(dead[..., None], False).reshape(B * H, L, L)
        xt = x.transpose(0, 1)  # (L, B, D): torch's functional layout
        y, _ = torch_mha(xt, xt, xt, D, H, self.qkv.weight, self.qkv.bias, None, None, False, 0.0,
                         torch.eye(D, dtype=x.dtype, device=x.device), None, training=self.training,
                         need_weights=True, attn_mask=blocked, average_attn_weights=False)
        heads = split_heads(y.transpose(0, 1), H)  # (B, H, L, d_head), before W_O
        heads = heads.masked_fill(dead[..., None], 0.0)
        return self.out(merge_heads(heads))
