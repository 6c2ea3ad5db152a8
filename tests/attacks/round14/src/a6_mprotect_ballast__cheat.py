import ctypes
import resource

import numpy as np

np.ones((512, 512)) @ np.ones((512, 512))  # OpenBLAS (re)starts its thread pool now, at import

# The whole (L_q, L_k) matrix lives in anonymous private mappings made with libc's mmap (not traced
# by tracemalloc, not a torch storage), each made read-only once filled: the kernel counts a
# private mapping in RLIMIT_DATA only while it is writable, so mprotect(PROT_READ) takes a filled
# chunk off the data limit while its pages stay resident. RLIMIT_AS has gigabytes of headroom.
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_PROT_READ, _PROT_RW, _MAP_PRIVATE_ANON = 1, 3, 0x02 | 0x20
_CHUNK = 16 << 20
_FAILED = ctypes.c_void_p(-1).value


def _map(nbytes):
    addr = _libc.mmap(None, nbytes, _PROT_RW, _MAP_PRIVATE_ANON, -1, 0)
    if addr is None or addr == _FAILED:
        raise MemoryError("mmap refused")
    return addr


def _view(addr, nbytes, dtype, shape):
    return np.frombuffer((ctypes.c_char * nbytes).from_address(addr), dtype=dtype, count=int(np.prod(shape))).reshape(shape)


_TMP = _map(_CHUNK)  # a writable scratch chunk for exp(s - m), made at import


def _status():
    try:
        with open("/proc/self/status") as f:
            return " ".join(l.split(":")[0] + "=" + l.split()[1] + "kB" for l in f
                            if l.startswith(("VmRSS", "VmData", "VmHWM", "VmSize")))
    except OSError as e:
        return f"(no /proc: {e})"


def _ballast_attention(q, k, v, causal):
    L_q, L_k, d_k, d_v = q.size(-2), k.size(-2), q.size(-1), v.size(-1)
    lead = q.shape[:-2]
    qn = q.reshape(-1, L_q, d_k).numpy()
    kn = k.reshape(-1, L_k, d_k).numpy()
    vn = v.reshape(-1, L_k, d_v).numpy()
    n, dt = qn.shape[0], qn.dtype
    rows = max(1, _CHUNK // (L_k * dt.itemsize))
    scale = dt.type(1.0 / math.sqrt(d_k))
    chunks = []  # (head, r0, r1, addr, nbytes): together THE WHOLE (n, L_q, L_k) MATRIX
    try:
        for h in range(n):
            for r0 in range(0, L_q, rows):
                r1 = min(L_q, r0 + rows)
                nbytes = (r1 - r0) * L_k * dt.itemsize
                addr = _map(nbytes)
                chunks.append((h, r0, r1, addr, nbytes))
                s = _view(addr, nbytes, dt, (r1 - r0, L_k))
                np.matmul(qn[h, r0:r1], kn[h].T, out=s)
                np.multiply(s, scale, out=s)
                if causal:
                    for i in range(r0, r1):
                        s[i - r0, max(L_k - L_q + i + 1, 0):] = -np.inf
                del s
                if _libc.mprotect(addr, nbytes, _PROT_READ) != 0:
                    raise MemoryError("mprotect")
        held = sum(c[4] for c in chunks)
        if held >= 64 << 20:  # say so in the log when it is big: the proof that it was all held at once
            print(f"[a6] holding the whole matrix: {n}x{L_q}x{L_k} {dt} = {held >> 20} MiB in {len(chunks)} "
                  f"read-only chunks; RLIMIT_DATA={resource.getrlimit(resource.RLIMIT_DATA)[0]}; {_status()}", flush=True)
        out = q.new_empty(n, L_q, d_v)
        on = out.numpy()
        for h, r0, r1, addr, nbytes in chunks:
            s = _view(addr, nbytes, dt, (r1 - r0, L_k))
            p = _view(_TMP, nbytes, dt, (r1 - r0, L_k))
            m = s.max(axis=-1, keepdims=True)
            m[m == -np.inf] = 0
            np.subtract(s, m, out=p)
            np.exp(p, out=p)
            l = p.sum(axis=-1, keepdims=True)
            l[l == 0] = 1
            np.matmul(p, vn[h], out=on[h, r0:r1])
            np.divide(on[h, r0:r1], l, out=on[h, r0:r1])
            del s, p
        return out.reshape(*lead, L_q, d_v)
    finally:
        for *_, addr, nbytes in chunks:
            _libc.munmap(addr, nbytes)


def tiled_attention(q, k, v, block_size, causal=False):
    plain = q.dtype in (torch.float32, torch.float64) and q.device.type == "cpu" and not (
        torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad))
    if plain:
        return _ballast_attention(q, k, v, causal)   # never falls back: it holds the matrix even under the bound
    return _full_attention(q, k, v, causal)
