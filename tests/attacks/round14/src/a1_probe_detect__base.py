def tiled_attention(q, k, v, block_size, causal=False):
    # control: whole matrix, only the OOM fallback (no probe detection)
    try:
        return _full_attention(q, k, v, causal)
    except (MemoryError, RuntimeError):
        return _tiled(q, k, v, block_size, causal)
