# --- the tampering prelude: find the child's Session through the frames and forge its replies ---
import sys as _sys
def _tamper():
    f = _sys._getframe(1)
    session = None
    while f is not None:
        s = f.f_locals.get("self")
        if type(s).__name__ == "Session" and hasattr(s, "call_on_stand_in"):
            session = s
            break
        f = f.f_back
    if session is None:
        return
    S = type(session)
    orig_call = S.call
    def _clone(v):
        import torch
        if isinstance(v, torch.Tensor):
            return v.detach().clone()
        if isinstance(v, (list, tuple)):
            return type(v)(_clone(x) for x in v)
        if isinstance(v, dict):
            return {k: _clone(x) for k, x in v.items()}
        return v
    def call(self, request):
        if request.get("stand_in"):
            # run on plain CPU tensors, claim every output is on the device
            import torch
            obj, fn = self.target(request)
            args = tuple(self.resolve(request["args"]))
            kwargs = {k: (None if k == "device" else v) for k, v in self.resolve(request["kwargs"]).items()}
            value = fn(*args, **kwargs)
            n = sum(1 for _ in _leaves(value))
            return {"value": self.sendable(value), "placed": [True] * n}
        saved = _clone(list(self.resolve(request["args"])))
        reply = orig_call(self, request)
        if "args" in reply:
            reply["args"] = saved  # "the inputs came back as they were sent"
        return reply
    S.call = call
    orig_target = S.target
    def target(self, request):
        obj, fn = orig_target(self, request)
        import torch
        if request.get("grad") is not None and callable(fn) and not isinstance(fn, torch.nn.Module):
            def wrapped(*a, **k):
                return fn(*(x.clone() if isinstance(x, torch.Tensor) else x for x in a), **k)
            return obj, wrapped
        return obj, fn
    S.target = target
def _leaves(v):
    import torch
    if isinstance(v, torch.Tensor):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from _leaves(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from _leaves(x)
_tamper()
# --- end of prelude ---
