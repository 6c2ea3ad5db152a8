import numpy as np

np.ones((512, 512)) @ np.ones((512, 512))  # OpenBLAS (re)starts its thread pool now, at import


def tiled_attention(q, k, v, block_size, causal=False):
    # control: the whole matrix in numpy, allocated during the call (tracemalloc should see it)
    plain = q.dtype in (torch.float32, torch.float64) and q.device.type == "cpu" and not (
        torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad))
    if not plain:
        return _full_attention(q, k, v, causal)
    try:
        L_q, L_k = q.size(-2), k.size(-2)
        s = np.matmul(q.numpy(), np.swapaxes(k.numpy(), -1, -2)) / math.sqrt(q.size(-1))
        if causal:
            s = np.where(np.arange(L_k)[None, :] > np.arange(L_k - L_q, L_k)[:, None], -np.inf, s)
        m = s.max(axis=-1, keepdims=True)
        m[m == -np.inf] = 0
        p = np.exp(s - m)
        l = p.sum(axis=-1, keepdims=True)
        l[l == 0] = 1
        o = (p @ v.numpy()) / l
        out = q.new_empty(o.shape)
        out.numpy()[...] = o
        return out
    except MemoryError:
        return _tiled(q, k, v, block_size, causal)
