import os
src = open('/work/scratch20/solutions/exercise9_head_patterns.py').read()
def put(name, parts):
    out = src
    for fn, code in parts:
        s = out.index(f'def {fn}('); b = out.index('    # BEGIN SOLUTION', s); e = out.index('    # END SOLUTION', b)
        out = out[:b] + code + out[e:]
    d = f'/work/round63/{name}/sub'; os.makedirs(d, exist_ok=True)
    open(f'{d}/exercise9_head_patterns.py', 'w').write(out)
put('h13_ex9_rand_tokens_index', [('repeated_tokens', '''    u = torch.rand(batch, seq_len, generator=generator)  # uniform in [0, 1)
    first = (u * vocab_size).long().clamp_(max=vocab_size - 1)
    return first.repeat(1, 2)
'''), ('previous_token_score', '''    if pattern.ndim != 4 or pattern.shape[-1] != pattern.shape[-2] or pattern.shape[-1] < 2:
        raise ValueError("bad pattern")
    i = torch.arange(1, pattern.shape[-1], device=pattern.device)
    return pattern[:, :, i, i - 1].mean(dim=(0, 2))
'''), ('find_heads', '''    out = {"previous_token": [], "induction": []}
    for layer, p in enumerate(patterns):
        for key, score in (("previous_token", previous_token_score(p)),
                           ("induction", induction_score(p, p.shape[-1] // 2))):
            out[key].extend((layer, int(h)) for h in (score > threshold).nonzero().flatten().tolist())
    return out
''')])
put('h14_ex9_randint_tile', [('repeated_tokens', '''    first = torch.randint(0, vocab_size, size=(batch, seq_len), generator=generator, dtype=torch.long)
    return first.tile((1, 2))
''')])
