import queue
import threading

# a worker thread started at import: the thread count the probe compares is already taken with it,
# and torch's dispatch-mode stack is per thread
_REQ, _RESP = queue.Queue(), queue.Queue()


def _worker():
    while True:
        fn, args = _REQ.get()
        try:
            _RESP.put((True, fn(*args)))
        except BaseException as error:  # noqa
            _RESP.put((False, error))


threading.Thread(target=_worker, daemon=True).start()


def tiled_attention(q, k, v, block_size, causal=False):
    if q.device.type != "cpu" or (torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad)):
        try:
            return _full_attention(q, k, v, causal)
        except (MemoryError, RuntimeError):
            return _tiled(q, k, v, block_size, causal)
    _REQ.put((_full_attention, (q, k, v, causal)))   # the whole matrix, in the worker
    ok, value = _RESP.get()
    return value if ok else _tiled(q, k, v, block_size, causal)
