import torch
from torch.distributions.utils import lazy_property

def check(cls, obj):
    return True

def grab(owner):
    return staticmethod(check) if False else check

name = "".join(["_", "_", "instancecheck", "_", "_"])
grab.__name__ = name
grab.__qualname__ = name

class MM(type):
    hook = lazy_property(grab)

class M(type, metaclass=MM):
    pass

class K(metaclass=M):
    pass

M.hook
print(isinstance(3, K), M.__dict__.get(name))
