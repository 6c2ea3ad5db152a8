import os, re, ast
src = open('/work/scratch20/solutions/exercise6_multihead.py').read()
blocks = list(re.finditer(r'^([ \t]*)# BEGIN SOLUTION\n.*?^[ \t]*# END SOLUTION\n', src, re.M | re.S))
print(len(blocks))
def put(name, codes):
    out, last = [], 0
    for m, code in zip(blocks, codes):
        out.append(src[last:m.start()]); out.append(code if code is not None else m.group(0)); last = m.end()
    out.append(src[last:]); text = ''.join(out); ast.parse(text)
    d = f'/work/round63/{name}/sub'; os.makedirs(d, exist_ok=True)
    open(f'{d}/exercise6_multihead.py', 'w').write(text)
for i, m in enumerate(blocks): print(i, src[:m.start()].rsplit('def ', 1)[1].split('(')[0])
put('h15_ex6_unflatten_chunk', ['''    return x.unflatten(-1, (n_heads, -1)).permute(0, 2, 1, 3)
''', '''    return x.permute(0, 2, 1, 3).flatten(2)
''', '''        if d_model % n_heads:
            raise ValueError("d_model % n_heads != 0")
        self.h = n_heads
        self.scale = (d_model // n_heads) ** -0.5
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)
''', '''        B, L, D = x.shape
        q, k, v = (split_heads(t, self.h) for t in self.qkv(x).chunk(3, dim=-1))
        if mask is None:
            mask = ~torch.ones(L, L, dtype=torch.bool, device=x.device).triu(1)
        s = (q * self.scale) @ k.mT
        s = s.masked_fill(~mask, float("-inf"))
        sees = mask.any(-1, keepdim=True)  # a query that sees some key
        w = torch.softmax(s.masked_fill(~sees, 0.0), dim=-1) * sees
        return self.out(merge_heads(w @ v))
'''])
put('h16_ex6_einsum_weights', [None, '''    B, H, L, d = x.shape
    return x.transpose(1, 2).reshape(B, L, H * d)
''', None, '''        B, L, D = x.shape
        H, dh = self.n_heads, self.d_head
        wq, wk, wv = self.qkv.weight.chunk(3, dim=0)
        bq, bk, bv = self.qkv.bias.chunk(3) if self.qkv.bias is not None else (None, None, None)
        q = torch.nn.functional.linear(x, wq, bq).view(B, L, H, dh)
        k = torch.nn.functional.linear(x, wk, bk).view(B, L, H, dh)
        v = torch.nn.functional.linear(x, wv, bv).view(B, L, H, dh)
        s = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(dh)
        if mask is None:
            i = torch.arange(L, device=x.device)
            mask = i[None, :] <= i[:, None]
        y, _ = scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), mask)
        return self.out(merge_heads(y))
'''])
