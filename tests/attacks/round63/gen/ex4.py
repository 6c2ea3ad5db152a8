import os, re, ast
src = open('/work/scratch20/solutions/exercise4_masking.py').read()
blocks = list(re.finditer(r'^([ \t]*)# BEGIN SOLUTION\n.*?^[ \t]*# END SOLUTION\n', src, re.M | re.S))
def put(name, codes):
    out, last = [], 0
    for m, code in zip(blocks, codes):
        out.append(src[last:m.start()]); out.append(code if code is not None else m.group(0)); last = m.end()
    out.append(src[last:]); text = ''.join(out); ast.parse(text)
    d = f'/work/round63/{name}/sub'; os.makedirs(d, exist_ok=True)
    open(f'{d}/exercise4_masking.py', 'w').write(text)
put('h17_ex4_where_compare', ['''    i = torch.arange(L, device=device)
    return i.unsqueeze(1) >= i.unsqueeze(0)
''', '''    return torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
''', '''    B = lengths.shape[0]
    j = torch.arange(L, device=lengths.device).expand(B, L)
    return (j < lengths.unsqueeze(-1)).unsqueeze(1)
'''])
put('h18_ex4_triu_add', ['''    return ~torch.ones(L, L, device=device).triu(diagonal=1).bool()
''', '''    neg = torch.zeros_like(scores).masked_fill(~mask.expand_as(scores), float("-inf"))
    return scores + neg
''', '''    return torch.stack([torch.arange(L, device=lengths.device) < n for n in lengths]).view(-1, 1, L)
'''])
