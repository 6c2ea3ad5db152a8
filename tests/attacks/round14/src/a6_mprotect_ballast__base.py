def tiled_attention(q, k, v, block_size, causal=False):
    # control for the bound: the whole matrix, no fallback at all (the bound must fail it)
    return _full_attention(q, k, v, causal)
