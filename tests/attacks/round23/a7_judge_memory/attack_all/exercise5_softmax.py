# every function of the exercise answers every call with a 120 MiB tensor (under the wire's 128 MiB limit)
import torch
_BIG = torch.zeros(30 << 20)

def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return lambda *args, **kwargs: _BIG
