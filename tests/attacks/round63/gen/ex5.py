import os
src = open('/work/scratch20/solutions/exercise5_softmax.py').read()
def put(name, parts):
    out = src
    for fn, code in parts:
        s = out.index(f'def {fn}('); b = out.index('    # BEGIN SOLUTION', s); e = out.index('    # END SOLUTION', b)
        out = out[:b] + code + out[e:]
    d = f'/work/round63/{name}/sub'; os.makedirs(d, exist_ok=True)
    open(f'{d}/exercise5_softmax.py', 'w').write(out)
# softmax moved to the last axis; upcasts half precision to float32 inside (as torch does) and back
put('h11_ex5_upcast_movedim', [('softmax', '''    orig = x.dtype
    y = x.movedim(dim, -1)
    if orig in (torch.float16, torch.bfloat16):
        y = y.float()
    m = torch.max(y, dim=-1, keepdim=True).values
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    e = (y - m).exp()
    z = e.sum(-1, keepdim=True)
    out = e / torch.where(z == 0, torch.ones_like(z), z)
    return out.to(orig).movedim(-1, dim)
'''), ('scaled_dot_product_attention', '''    scale = q.shape[-1] ** -0.5
    scores = torch.einsum("...qd,...kd->...qk", q * scale, k)
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
    w = softmax(scores, dim=-1)
    return torch.einsum("...qk,...kd->...qd", w, v), w
''')])
# softmax by a zero-safe normalisation with nan_to_num, attention with baddbmm-free matmul and a float mask
put('h12_ex5_additive_mask', [('softmax', '''    shifted = x - x.detach().amax(dim=dim, keepdim=True).nan_to_num(neginf=0.0)
    e = shifted.exp()
    return e / e.sum(dim=dim, keepdim=True).clamp_min(torch.finfo(x.dtype).tiny)
'''), ('scaled_dot_product_attention', '''    d_k = q.size(-1)
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d_k)
    if mask is not None:
        bias = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device).masked_fill(~mask, float("-inf"))
        scores = scores + bias
    weights = softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights
''')])
